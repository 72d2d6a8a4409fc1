"""Average sensitivity of trained models beside the task's own.

The Sensitivity theory predicts that transformers learn low-sensitivity functions (Hahn &
Rofin 2024, "Why are sensitive functions hard for transformers?", ACL: the loss landscape
around high-sensitivity solutions is sharp). This module applies the same estimator that
gives a task's average sensitivity (:func:`theorybench.formal.sensitivity.model_sensitivity`)
to each trained in-distribution model, read back from the checkpoints a sweep wrote
(``theorybench run --checkpoints DIR``; ``verify`` writes them to ``<out>/checkpoints``).

Both figures are taken under the uniform distribution on the task's natural input space
(the theory's measure; where the valid domain is too sparse for rejection sampling, as for
k-hop, under the task's own sampler, and the row says so), on the task's main decision
function (``decision_view()[0]``): for a
``final`` task the model's answer at the last position, for k-hop its answer at the last
position. A model that computes the task exactly has the task's sensitivity; a model that
learned a smoother function (e.g. a constant on parity) has a lower one. ``agreement`` is
the model's accuracy on inputs of the same distribution: a model trained on a label-balanced
distribution can differ there from its test accuracy. Families whose answer is a token
sequence (binary_add), inputs with very many one-token changes (large graphs) and any the
estimator refuses are left out with the reason.

A result is cached next to its checkpoint (``<key>.sensitivity.json``, keyed by the
estimator's settings), so a second report reads it instead of recomputing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .. import tasks
from ..errors import ResourceLimitError, TheorybenchError
from ..formal.sensitivity import average_sensitivity, model_sensitivity
from ..safe_io import atomic_write
from .empirical import cell_name
from .tables import Table
from ..experiments.lines import IN_DISTRIBUTION

#: Monte-Carlo draws per model (each draw evaluates the input and all its one-token
#: changes), lowered so that one model costs at most ``MAX_TOKENS`` forward tokens, but
#: never below ``MIN_SAMPLES``; a function whose inputs have more than ``MAX_CHANGES``
#: one-token changes is not measured (large graphs: V^2 possible edge tokens per position).
#: 200,000 tokens take about 1 s for the 4-layer model on 2 cores. With 500,000 the quick
#: report spent 470 s on its 198 models (2026-12-05), most of it at n = 32 (300 draws x 33
#: changes x 33 tokens); 200,000 leaves 184 draws there, a confidence interval about 1.3x
#: as wide, and every n <= 16 unchanged.
SAMPLES = 300
MIN_SAMPLES = 32
MAX_TOKENS = 200_000
MAX_CHANGES = 2_000
CACHE_VERSION = 3


def changes(df) -> int:
    """Rows one draw evaluates: the input and each of its one-token changes."""
    return sum(len(c) - 1 for c in df.choices) + 1


def draws(df, samples: int = SAMPLES) -> int:
    """Draws for ``df``: ``samples``, or fewer when a draw costs many forward tokens."""
    return max(MIN_SAMPLES, min(samples, MAX_TOKENS // (changes(df) * df.length)))


def _predictor(model, meta: dict, task) -> Any:
    """tokens of ``task`` (batch, L) -> the model's label ids of ``task`` at position L-1."""
    import torch

    index = {tok: i for i, tok in enumerate(meta["vocab"])}
    token_map = np.array([index[t] for t in task.vocab], dtype=np.int64)
    labels = list(meta["labels"])
    to_task = np.array([list(task.label_vocab).index(lab) if lab in task.label_vocab else -1
                        for lab in labels], dtype=np.int64)

    @torch.no_grad()
    def predict(x: np.ndarray) -> np.ndarray:
        out = np.empty(len(x), dtype=np.int64)
        for start in range(0, len(x), 2048):
            part = torch.from_numpy(token_map[x[start:start + 2048]])
            logits = model(part)[:, -1, :]
            out[start:start + 2048] = to_task[logits.argmax(-1).numpy()]
        return out
    return predict


def measure_one(record: Any, checkpoint_dir: str | Path, samples: int = SAMPLES,
                seed: int = 0) -> dict[str, Any] | None:
    """Model and task average sensitivity of one done in-distribution record, or None when
    its checkpoint is absent; a family that cannot be measured gives a row with ``skipped``."""
    from ..experiments.checkpoint import load_checkpoint

    spec = record.spec
    weights = Path(checkpoint_dir) / f"{record.key}.pt"
    if not weights.is_file():
        return None
    row = {"task": spec["task"], "params": dict(spec["params"]), "n": spec["n"],
           "seed": spec["seed"], "encoding": spec["model"]["encoding"],
           "size": spec["model"]["size"], "key": record.key,
           "test_accuracy": record.metrics.get("test_accuracy")}
    try:
        task = tasks.get(spec["task"], n=spec["n"], **spec["params"])
    except TheorybenchError as exc:  # a stored spec this theorybench cannot build
        return {**row, "skipped": f"the run's task cannot be built: {exc}"}
    if task.output == "answer":
        return {**row, "skipped": "the answer is a token sequence; the estimator needs one "
                                  "output per input"}
    df = task.decision_view()[0]
    if changes(df) > MAX_CHANGES:
        return {**row, "skipped": f"each input has {changes(df) - 1:,} one-token changes "
                                  f"(more than {MAX_CHANGES:,}); too many model evaluations"}
    cache = weights.with_suffix(".sensitivity.json")
    settings = {"version": CACHE_VERSION, "samples": samples, "seed": seed,
                "max_tokens": MAX_TOKENS}
    if cache.is_file():
        try:
            cached = json.loads(cache.read_text())
            if (isinstance(cached, dict) and cached.get("settings") == settings
                    and _valid_result(cached.get("result"))):
                return {**row, **cached["result"]}
        except (OSError, ValueError):
            pass  # a damaged cache file is recomputed
    notes: list[str] = []
    try:  # a checkpoint of another task or a damaged one is named in the table, not fatal
        model, meta = load_checkpoint(weights, task=spec["task"], params=spec["params"],
                                      n=spec["n"], warn=notes.append)
    except TheorybenchError as exc:
        return {**row, "skipped": f"checkpoint refused: {exc}"}
    if notes:
        row["checkpoint_note"] = " ".join(notes)
    if not set(task.vocab) <= set(meta["vocab"]) or not set(meta["labels"]) & set(task.label_vocab):
        return {**row, "skipped": "the checkpoint's tokens or labels are not the task's"}
    predict = _predictor(model, meta, task)
    result = None
    for distribution in ("uniform", "task"):
        try:
            result = _estimate(predict, df, samples, seed, distribution)
            break
        except ResourceLimitError as exc:
            # a sparse domain (k-hop forbids immediate repeats: at n = 32 about 1 uniform
            # input in 7,500 is valid) defeats rejection sampling; then both figures are
            # taken under the task's own sampler, which draws from the valid domain
            why = str(exc)
        except TheorybenchError as exc:
            why = str(exc)
            break
    if result is None:
        return {**row, "skipped": f"the estimator refused: {why}"}
    try:
        # atomic: two reports at once never read half a cache
        atomic_write(cache, json.dumps({"settings": settings, "result": result}))
    except OSError:
        pass  # a read-only checkpoint folder: the result is still returned
    return {**row, **result}


#: What a cached result must hold to be used (an edited or damaged one is recomputed).
_RESULT_NUMBERS = ("model_sensitivity", "task_sensitivity", "agreement", "samples")


def _valid_result(result: Any) -> bool:
    return (isinstance(result, dict) and result.get("distribution") in ("uniform", "task")
            and all(isinstance(result.get(k), (int, float)) and not isinstance(result.get(k), bool)
                    for k in _RESULT_NUMBERS))


def _estimate(predict, df, samples: int, seed: int, distribution: str) -> dict[str, Any]:
    """Model and task sensitivity of ``df`` under ``distribution``, and the model's accuracy
    on inputs of that distribution (all of them where the space is small and uniform)."""
    rng = np.random.default_rng([seed, 7])
    mod = model_sensitivity(predict, df, distribution=distribution, method="monte_carlo",
                            samples=draws(df, samples), rng=rng)
    own = average_sensitivity(df, distribution=distribution, samples=max(samples, 2000),
                              rng=np.random.default_rng([seed, 8]))
    if distribution == "uniform":
        x = df.enumerate() if df.space_size() <= 4096 else _uniform(df, rng, 2048)
    else:
        x = np.asarray(df.sample(rng, 2048))
    agreement = float(np.mean(predict(x) == df.evaluate(x))) if len(x) else float("nan")
    return {"model_sensitivity": mod.value, "model_ci": [mod.ci_low, mod.ci_high],
            "task_sensitivity": own.value, "task_ci": [own.ci_low, own.ci_high],
            "task_exact": own.exact, "agreement": agreement, "samples": mod.samples,
            "free_positions": mod.free_positions, "distribution": distribution}


def _uniform(df, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` uniform inputs of the decision function's space (``valid`` applied)."""
    cols = [np.asarray(c)[rng.integers(0, len(c), size=count * 4)] for c in df.choices]
    x = np.stack(cols, axis=1)
    if df.valid is not None:
        x = x[df.valid(x)]
    return x[:count]


def measure(records: Iterable[Any], checkpoint_dir: str | Path, samples: int = SAMPLES,
            seed: int = 0, progress: bool = False) -> list[dict[str, Any]]:
    """Rows of :func:`measure_one` for every done online in-distribution record with a
    checkpoint in ``checkpoint_dir``, in task, n, seed order. (A process per core was
    measured no faster than torch's own threads on 2 cores, so this runs in process.)"""
    todo = [r for r in records if r.status == "done" and r.spec.get("line") == IN_DISTRIBUTION
            and r.spec.get("train_size") is None]
    if progress:
        from tqdm import tqdm
        todo = tqdm(todo, desc="model sensitivity", leave=False)
    rows = [row for r in todo if (row := measure_one(r, checkpoint_dir, samples, seed))]
    rows.sort(key=lambda r: (r["task"], sorted(r["params"].items()), r["n"], r["seed"]))
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Seeds pooled per (task, params, n, size, encoding): mean model sensitivity, its range
    over seeds, the task's value and the mean agreement."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if "skipped" in r:
            continue
        key = (r["task"], tuple(sorted(r["params"].items())), r["n"], r["size"], r["encoding"])
        groups.setdefault(key, []).append(r)
    out = []
    for (task, params, n, size, enc), rs in groups.items():
        vals = [r["model_sensitivity"] for r in rs]
        out.append({"task": task, "params": dict(params), "n": n, "size": size,
                    "encoding": enc, "seeds": len(rs),
                    "distribution": rs[0].get("distribution", "uniform"),
                    "draws": min(r["samples"] for r in rs), "model_mean": float(np.mean(vals)),
                    "model_min": float(min(vals)), "model_max": float(max(vals)),
                    "task_sensitivity": rs[0]["task_sensitivity"],
                    "agreement": float(np.mean([r["agreement"] for r in rs])),
                    "test_accuracy": float(np.mean([r["test_accuracy"] or 0.0 for r in rs]))})
    return out


def _name(row: dict) -> str:
    """The task's row name in the report (parameters shown only where they differ from the
    family's defaults, as in the empirical table)."""
    return cell_name({"task": row["task"], "params": row["params"]})


def table(rows: Sequence[dict[str, Any]]):
    """The report's table: per task variant and n, the trained models' average sensitivity
    (mean and range over seeds) beside the task's own."""
    summary = summarize(rows)
    header = ["task", "n", "model", "seeds", "test acc.", "acc. (same inputs)",
              "as(model) mean [min, max]", "as(task)", "ratio", "draws"]
    body = []
    for s in summary:
        name = _name(s)
        ratio = s["model_mean"] / s["task_sensitivity"] if s["task_sensitivity"] else None
        body.append([name, str(s["n"]), f"{s['size']}/{s['encoding']}", str(s["seeds"]),
                     f"{s['test_accuracy']:.3f}", f"{s['agreement']:.3f}",
                     f"{s['model_mean']:.2f} [{s['model_min']:.2f}, {s['model_max']:.2f}]",
                     f"{s['task_sensitivity']:.2f}" + ("" if s["distribution"] == "uniform"
                                                       else " (task dist.)"),
                     "-" if ratio is None else f"{ratio:.2f}", str(s["draws"])])
    skipped = sorted({f"{r['task']} n={r['n']} ({r['skipped']})" for r in rows if "skipped" in r})
    caption = ("Average sensitivity under the uniform distribution (the Sensitivity theory's "
               "measure) of each trained model's answer, by the estimator that gives the "
               f"task's own (Monte Carlo, up to {SAMPLES} draws per model, fewer where a draw "
               f"costs many forward tokens (column draws); the task exact where "
               "its space is small); acc. (same inputs) is the model's accuracy on inputs of "
               "that distribution. '(task dist.)': the valid domain is too sparse for "
               "uniform rejection sampling (k-hop), so both figures are under the task's own "
               "sampler. A model below its task's sensitivity has learned a smoother "
               "function.")
    if skipped:
        caption += " Not measured: " + "; ".join(skipped) + "."
    return Table("Average sensitivity of trained models", header, body,
                 [dict(s) for s in summary] + [dict(r) for r in rows if "skipped" in r],
                 caption)


def plot(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """Model against task average sensitivity, one point per task variant and n (mean over
    seeds), filled where the models reached 99% test accuracy; the diagonal is equality."""
    from .plots import save_figure, plt

    summary = summarize(rows)
    fig, ax = plt.subplots(figsize=(5.6, 4.6))
    tasks_seen = sorted({_name(s) for s in summary})
    cmap = plt.get_cmap("tab20")
    top = 1.0
    for i, name in enumerate(tasks_seen):
        pts = [s for s in summary if _name(s) == name]
        xs = [s["task_sensitivity"] for s in pts]
        ys = [s["model_mean"] for s in pts]
        top = max(top, *xs, *ys)
        learned = [s["test_accuracy"] >= 0.99 for s in pts]
        color = cmap(i % 20)
        ax.scatter([x for x, ok in zip(xs, learned) if ok], [y for y, ok in zip(ys, learned) if ok],
                   color=color, label=name, s=22)
        ax.scatter([x for x, ok in zip(xs, learned) if not ok],
                   [y for y, ok in zip(ys, learned) if not ok], facecolors="none",
                   edgecolors=[color], s=22)
    ax.plot([0, top * 1.05], [0, top * 1.05], "k--", lw=0.8)
    ax.set(xlabel="task average sensitivity", ylabel="trained model average sensitivity",
           title="Sensitivity of what was learned (hollow: < 99% accuracy)")
    ax.grid(alpha=0.3)
    if tasks_seen:
        ax.legend(fontsize=6, ncol=2, loc="upper left")
    return save_figure(fig, Path(path))
