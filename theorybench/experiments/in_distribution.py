"""In-distribution learning: train at size n, test at n on fresh samples.

Two modes, chosen by ``RunSpec.train_size``: online (None - a fresh batch every step) and a
fixed training set of ``train_size`` instances drawn once (minibatches drawn from it with
replacement). The sample complexity of a task at n is the smallest fixed training-set size
(over the profile's 2^7, 2^8, ...) whose run reaches the target test accuracy within the
step budget: :func:`sample_complexity` computes it from stored records.

Metrics: ``test_accuracy`` (on ``final_eval_count`` fresh instances), ``target_accuracy``,
``reached_target``, ``steps``, ``train_loss`` (mean over the last ``eval_every`` steps),
``wall_s``, ``chance_accuracy`` (best input-independent predictor, see
:func:`.data.chance_accuracy`), ``curve`` ([[step, accuracy], ...]), ``parameters``,
``stop_reason`` (target, plateau or budget) and ``loss_drop`` (how much the training loss
still fell over the last window, :func:`.trainer.loss_drop`): the matrix reads a run that
missed the target as *not learned* only when its loss had stopped falling.
"""

from __future__ import annotations

import time
from typing import Iterable

import torch

from .checkpoint import save_checkpoint
from .data import TaskData, chance_accuracy
from .harness import build_model, check_positions, deterministic, generators
from .lines import IN_DISTRIBUTION
from .spec import RunSpec
from .trainer import time_split, train


def prepare(spec: RunSpec) -> tuple[TaskData, int]:
    """Build the data source and the model's position count (raises ConfigError)."""
    data = TaskData(spec.task, spec.param_dict, [spec.n], spec.objective)
    return data, check_positions(spec, data.max_sequence_length())


def run(spec: RunSpec, device: str = "cpu", progress: bool | None = None,
        checkpoint_dir: str | None = None) -> dict:
    began = time.perf_counter()
    deterministic()
    data, max_pos = prepare(spec)
    train_rng, test_rng, gen = generators(spec.seed)
    model = build_model(spec, data, max_pos, gen)
    cfg = spec.training
    if spec.train_size is None:
        def next_batch(step):
            return data.sample(train_rng, cfg.batch_size)
    else:
        pool = data.sample(train_rng, spec.train_size)

        def next_batch(step):
            return pool.select(torch.randint(0, len(pool), (cfg.batch_size,), generator=gen))

    def eval_batch(count):
        return data.sample(test_rng, count)

    result = train(model, next_batch, eval_batch, data.output, cfg, gen, device=device,
                   progress=progress, label=f"{spec.task} n={spec.n}")
    chance = chance_accuracy(data.sample(test_rng, 4096), data.output, len(data.label_vocab))
    if checkpoint_dir:
        save_checkpoint(checkpoint_dir, spec.key, model,
                        {"spec": spec.to_dict(), "vocab": data.vocab, "labels": data.label_vocab})
    return {"test_accuracy": result.test_accuracy, "target_accuracy": cfg.target,
            "reached_target": bool(result.reached_target), "steps": result.steps,
            "train_loss": result.train_loss, "wall_s": round(result.wall_s, 3),
            "stop_reason": result.stop_reason, "loss_drop": result.loss_drop,
            "loss_tol": cfg.plateau_tol,
            "chance_accuracy": chance, "curve": result.curve,
            "parameters": model.num_parameters(),
            "time_split": time_split(result.phases, time.perf_counter() - began)}


def sample_complexity(records: Iterable) -> dict[tuple, int | None]:
    """Smallest fixed training-set size reaching the target, per (task, params, n, size,
    encoding, seed), from done in-distribution records with a ``train_size``; None when no
    size reached it."""
    out: dict[tuple, int | None] = {}
    for rec in records:
        s = rec.spec
        if rec.status != "done" or rec.line != IN_DISTRIBUTION or s.get("train_size") is None:
            continue
        key = (s["task"], tuple(sorted(s["params"].items())), s["n"], s["model"]["size"],
               s["model"]["encoding"], s["seed"])
        best = out.get(key)
        if rec.metrics.get("reached_target"):
            size = int(s["train_size"])
            out[key] = size if best is None else min(best, size)
        else:
            out.setdefault(key, None)
    return out
