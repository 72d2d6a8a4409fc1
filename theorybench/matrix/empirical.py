"""Empirical verdicts per task and experiment line, derived from stored runs.

The thresholds are data (:class:`Thresholds`) and are written into every cell and every
report, so a reader can see exactly what "Easy" meant:

* in-distribution: a task is Easy if, at every tested n, the seeds' aggregated test
  accuracy (mean by default) reaches ``target_accuracy`` within the run's step budget;
  Hard if some tested n misses it. Online runs decide; when a task has only fixed
  training-set runs, the largest set size at each n decides. The sample-complexity curve
  (smallest set size reaching the target, by n) is kept.
* length generalization: a configuration (model size x positional encoding) generalizes
  if its aggregated accuracy reaches ``length_accuracy`` in every length bin; the task is
  Easy if its best configuration generalizes. Per-configuration results are kept.
* LLM (when records of line ``llm`` exist): as in-distribution, on few-shot accuracy.

A cell with fewer than ``min_seeds`` finished runs at some tested point is
``insufficient`` and says how many it has - never a guess.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

LINES = ("in_distribution", "length_generalization", "llm")
EASY, HARD, INSUFFICIENT = "easy", "hard", "insufficient"


@dataclass(frozen=True)
class Thresholds:
    target_accuracy: float = 0.95   # in-distribution / LLM: accuracy that counts as learned
    length_accuracy: float = 0.90   # length generalization: accuracy needed in every bin
    min_seeds: int = 1              # finished runs needed per tested point
    aggregate: str = "mean"         # how seeds are combined for the verdict: mean | best

    def describe(self) -> str:
        return (f"in-distribution Easy iff the {self.aggregate} test accuracy over seeds is "
                f">= {self.target_accuracy:g} at every tested n; length generalization Easy "
                f"iff the best configuration reaches >= {self.length_accuracy:g} in every "
                f"length bin; at least {self.min_seeds} finished run(s) per point")


@dataclass
class Aggregate:
    """Seeds of one point combined: mean, best and spread (max - min)."""

    mean: float
    best: float
    spread: float
    seeds: int

    @classmethod
    def of(cls, values: list[float]) -> "Aggregate":
        return cls(mean=sum(values) / len(values), best=max(values),
                   spread=max(values) - min(values), seeds=len(values))

    def pick(self, how: str) -> float:
        return self.best if how == "best" else self.mean


@dataclass
class EmpiricalCell:
    """The empirical verdict of one task on one line, with everything it rests on."""

    task: str
    line: str
    verdict: str
    thresholds: Thresholds
    by_n: dict[int, Aggregate] = field(default_factory=dict)
    sample_complexity: dict[int, int | None] = field(default_factory=dict)
    by_config: dict[str, dict[str, Aggregate]] = field(default_factory=dict)
    config_verdicts: dict[str, str] = field(default_factory=dict)
    best_config: str | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["thresholds"] = asdict(self.thresholds)
        return json.loads(json.dumps(d, default=str))


def _spec_task(spec: dict[str, Any]) -> str:
    return spec.get("task") or spec.get("family") or "?"


def _finished(records: Iterable[Any], line: str) -> list[Any]:
    return [r for r in records if r.line == line and r.status == "done" and r.metrics]


def in_distribution_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds(),
                          line: str = "in_distribution") -> dict[str, EmpiricalCell]:
    """One cell per task from finished in-distribution (or LLM) runs."""
    acc: dict[str, dict[tuple[int, int | None], list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in _finished(records, line):
        n = int(r.spec.get("n", 0))
        size = r.spec.get("train_size")
        acc[_spec_task(r.spec)][(n, size)].append(float(r.metrics["test_accuracy"]))
    cells = {}
    for task, points in sorted(acc.items()):
        agg = {p: Aggregate.of(v) for p, v in points.items()}
        ns = sorted({n for n, _ in agg})
        by_n: dict[int, Aggregate] = {}
        complexity: dict[int, int | None] = {}
        thin = []
        for n in ns:
            online = agg.get((n, None))
            sized = sorted((s, a) for (m, s), a in agg.items() if m == n and s is not None)
            decider = online if online is not None else (sized[-1][1] if sized else None)
            by_n[n] = decider
            if decider.seeds < thresholds.min_seeds:
                thin.append(f"n={n} has {decider.seeds} run(s)")
            if sized:
                reach = [s for s, a in sized if a.pick(thresholds.aggregate) >= thresholds.target_accuracy]
                complexity[n] = min(reach) if reach else None
        if thin:
            verdict = INSUFFICIENT
            note = (f"too few runs ({'; '.join(thin)}; need {thresholds.min_seeds}): "
                    f"run more seeds with --seeds")
        else:
            missed = [n for n in ns if by_n[n].pick(thresholds.aggregate) < thresholds.target_accuracy]
            verdict = HARD if missed else EASY
            note = (f"target {thresholds.target_accuracy:g} missed at n = {missed}" if missed
                    else f"target {thresholds.target_accuracy:g} reached at every n in {ns}")
        cells[task] = EmpiricalCell(task, line, verdict, thresholds, by_n=by_n,
                                    sample_complexity=complexity, note=note)
    return cells


def bin_sort_key(label: str) -> tuple[int, str]:
    """Length bins in increasing order whatever order a store returns them in:
    ``"<=32"`` first, then by the lower end of ``"33-64"``-style labels."""
    import re

    if label.strip().startswith("<"):
        return (0, label)
    m = re.search(r"\d+", label)
    return (int(m.group()) if m else 1 << 30, label)


def config_name(spec: dict[str, Any]) -> str:
    model = spec.get("model", {})
    return f"{model.get('size', '?')}/{model.get('encoding', '?')}"


def length_generalization_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds()
                                ) -> dict[str, EmpiricalCell]:
    """One cell per task; per configuration the accuracy by length bin, and the best one."""
    acc: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    bin_order: dict[str, list[str]] = defaultdict(list)
    for r in _finished(records, "length_generalization"):
        task = _spec_task(r.spec)
        for label, value in r.metrics["bins"].items():
            acc[task][config_name(r.spec)][label].append(float(value))
            if label not in bin_order[task]:
                bin_order[task].append(label)
    for order in bin_order.values():
        order.sort(key=bin_sort_key)
    cells = {}
    for task, configs in sorted(acc.items()):
        by_config = {c: {b: Aggregate.of(bins[b]) for b in bin_order[task] if b in bins}
                     for c, bins in sorted(configs.items())}
        verdicts = {}
        thin = []
        for c, bins in by_config.items():
            if len(bins) < len(bin_order[task]):
                verdicts[c] = INSUFFICIENT
                thin.append(f"{c} lacks bins {sorted(set(bin_order[task]) - set(bins))}")
            elif min(a.seeds for a in bins.values()) < thresholds.min_seeds:
                verdicts[c] = INSUFFICIENT
                thin.append(f"{c} has too few runs")
            else:
                ok = all(a.pick(thresholds.aggregate) >= thresholds.length_accuracy
                         for a in bins.values())
                verdicts[c] = EASY if ok else HARD
        decided = {c: v for c, v in verdicts.items() if v != INSUFFICIENT}

        def score(c: str) -> float:  # the best configuration: highest accuracy in the longest bin
            last = bin_order[task][-1]
            a = by_config[c].get(last)
            return a.pick(thresholds.aggregate) if a else -1.0

        best = max(decided, key=score) if decided else None
        if best is None:
            verdict, note = INSUFFICIENT, "no configuration has a complete set of runs: " + "; ".join(thin)
        else:
            verdict = EASY if EASY in decided.values() else HARD
            good = [c for c, v in decided.items() if v == EASY]
            note = (f"generalizes with {', '.join(good)}" if good else
                    f"no configuration reaches {thresholds.length_accuracy:g} in every bin "
                    f"(best: {best})")
            if thin:
                note += f"; incomplete: {'; '.join(thin)}"
        cells[task] = EmpiricalCell(task, "length_generalization", verdict, thresholds,
                                    by_config=by_config, config_verdicts=verdicts,
                                    best_config=best, note=note)
    return cells


def empirical_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds()
                    ) -> dict[str, dict[str, EmpiricalCell]]:
    """line -> task -> cell, for every line that has finished runs."""
    records = list(records)
    out: dict[str, dict[str, EmpiricalCell]] = {}
    ind = in_distribution_cells(records, thresholds)
    if ind:
        out["in_distribution"] = ind
    lg = length_generalization_cells(records, thresholds)
    if lg:
        out["length_generalization"] = lg
    llm = in_distribution_cells(records, thresholds, line="llm")
    if llm:
        out["llm"] = llm
    return out
