"""Length generalization: train on mixed lengths up to ``train_max_len`` (every valid n
whose input length is at most that, uniformly per row), test on fresh instances in length
bins (default <=32, 33-64, 65-128, 129-256; lengths are input lengths in tokens, e.g.
n + 1 for index).

Position tables cover the longest evaluated input (see
:func:`.harness.check_positions`): a plain learned absolute encoding therefore has rows for
the long bins that training never updated - its failure there is what the line measures -
while ``learned_offsets`` trains them through random offsets.

Early stopping uses the accuracy on the training distribution. Metrics: ``bins``
({label: accuracy}, in bin order; None for a bin with no valid n), ``bin_chance`` (chance
accuracy per bin), ``train_accuracy``, ``steps``, ``train_loss``, ``wall_s``,
``chance_accuracy`` (on the training distribution), ``curve``, ``parameters`` and ``notes``
(explanations, e.g. which learned position rows training never reached).
"""

from __future__ import annotations

import time

from .checkpoint import save_checkpoint
from .data import TaskData, chance_accuracy, sizes_in_range
from .harness import build_model, check_positions, deterministic, generators
from .spec import RunSpec, bin_label
from .trainer import evaluate, pick_device, time_split, train
from ..errors import ConfigError


def plan(spec: RunSpec) -> tuple[list[int], list[tuple[str, list[int]]]]:
    """(training sizes, [(bin label, sizes in the bin), ...])."""
    params = spec.param_dict
    train_ns = sizes_in_range(spec.task, params, 1, spec.train_max_len)
    if not train_ns:
        raise ConfigError(f"task {spec.task} has no size n with input length <= "
                          f"{spec.train_max_len}; raise train_max_len")
    bins = [(bin_label(lo, hi, i == 0), sizes_in_range(spec.task, params, lo, hi))
            for i, (lo, hi) in enumerate(spec.eval_bins)]
    return train_ns, bins


def prepare(spec: RunSpec):
    train_ns, bins = plan(spec)
    every = sorted(set(train_ns).union(*[set(ns) for _, ns in bins]))
    data = TaskData(spec.task, spec.param_dict, every, spec.objective, spec.sampler)
    # the next-symbol objective keeps the lengths that have members
    kept = set(data.ns)
    train_ns = [n for n in train_ns if n in kept]
    bins = [(label, [n for n in ns if n in kept]) for label, ns in bins]
    if not train_ns:
        raise ConfigError(f"task {spec.task}: no training length <= {spec.train_max_len} "
                          f"has a member of the language; raise train_max_len")
    return data, train_ns, bins, check_positions(spec, data.max_sequence_length())


def run(spec: RunSpec, device: str = "cpu", progress: bool | None = None,
        checkpoint_dir: str | None = None) -> dict:
    began = time.perf_counter()
    deterministic()
    data, train_ns, bins, max_pos = prepare(spec)
    train_rng, test_rng, gen = generators(spec.seed)
    model = build_model(spec, data, max_pos, gen)
    cfg = spec.training

    result = train(model, data.stream(train_rng, cfg.batch_size, train_ns),
                   lambda count: data.sample(test_rng, count, train_ns), data.output, cfg, gen,
                   device=device, progress=progress, label=f"{spec.task} <= {spec.train_max_len}")
    dev = pick_device(device)
    bins_began = time.perf_counter()
    accs, chances = {}, {}
    for label, ns in bins:
        if not ns:
            accs[label] = chances[label] = None
            continue
        batch = data.sample(test_rng, cfg.final_eval_count, ns)
        accs[label] = evaluate(model, batch, data.output, dev, gen)
        chances[label] = chance_accuracy(batch, data.output, len(data.label_vocab))
    phases = dict(result.phases, bins=round(time.perf_counter() - bins_began, 4))
    chance = chance_accuracy(data.sample(test_rng, 4096, train_ns), data.output,
                             len(data.label_vocab))
    if checkpoint_dir:
        save_checkpoint(checkpoint_dir, spec.key, model,
                        {"spec": spec.to_dict(), "vocab": data.vocab, "labels": data.label_vocab})
    notes = []
    trained = data.sequence_length(max(train_ns))
    if spec.encoding == "learned" and max_pos > trained:
        notes.append(f"learned absolute positions {trained}..{max_pos - 1} were never trained "
                     f"(training inputs are at most {trained} tokens long), so the longer "
                     f"bins read untrained table rows; 'learned_offsets' trains them")
    return {"bins": accs, "bin_chance": chances, "train_accuracy": result.test_accuracy,
            "notes": notes,
            "steps": result.steps, "train_loss": result.train_loss,
            # why training stopped, as the in-distribution line records it
            "stop_reason": result.stop_reason, "loss_drop": result.loss_drop,
            "loss_tol": cfg.plateau_tol,
            "wall_s": round(result.wall_s, 3), "chance_accuracy": chance,
            "curve": result.curve, "parameters": model.num_parameters(),
            "time_split": time_split(phases, time.perf_counter() - began)}
