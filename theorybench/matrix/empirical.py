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
* LLM (when records of line ``llm`` exist): chance-aware, see :mod:`.llm_line` - Easy iff
  the few-shot accuracy is above chance (exact one-sided binomial test at ``llm_alpha``) at
  every tested n; one column pooled over the models, and one per model when there are
  several.

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
    target_accuracy: float = 0.99   # in-distribution / LLM: accuracy that counts as learned
                                    # (the profiles' training target, so the two agree)
    length_accuracy: float = 0.90   # length generalization: accuracy needed in every bin
    min_seeds: int = 1              # finished runs needed per tested point
    aggregate: str = "mean"         # how seeds are combined for the verdict: mean | best
    llm_alpha: float = 0.05         # llm: level of the one-sided binomial test against chance

    def describe(self) -> str:
        from .llm_line import describe as llm_describe
        return (f"in-distribution Easy iff the {self.aggregate} test accuracy over seeds is "
                f">= {self.target_accuracy:g} at every tested n; length generalization Easy "
                f"iff the best configuration reaches >= {self.length_accuracy:g} in every "
                f"length bin; at least {self.min_seeds} finished run(s) per point; "
                f"{llm_describe(self)}")


@dataclass
class Aggregate:
    """Seeds of one point combined: mean, best and spread (max - min)."""

    mean: float
    best: float
    spread: float
    seeds: int
    #: the seeds' values, for intervals over seeds
    values: tuple[float, ...] = ()

    @classmethod
    def of(cls, values: list[float]) -> "Aggregate":
        return cls(mean=sum(values) / len(values), best=max(values),
                   spread=max(values) - min(values), seeds=len(values),
                   values=tuple(values))

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
    train_max_len: int | None = None
    #: llm line: n -> pooled statistics (accuracy, correct, count, chance, p_value,
    #: wilson_lower, above_chance, powered, unparseable, runs); and the same per model
    llm_by_n: dict[int, dict[str, Any]] = field(default_factory=dict)
    llm_models: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["thresholds"] = asdict(self.thresholds)
        return json.loads(json.dumps(d, default=str))


def _spec_task(spec: dict[str, Any]) -> str:
    return spec.get("task") or spec.get("family") or "?"


def cell_name(spec: dict[str, Any]) -> str:
    """The row a run belongs to: the family name, plus its parameters where they differ
    from the family's defaults (``khop[k=3]``), so that variants are never pooled."""
    task = _spec_task(spec)
    params = dict(spec.get("params") or {})
    params.pop("n", None)
    try:
        from ..tasks import family

        defaults = {p.name: p.default for p in family(task).params}
    except Exception:  # a family this version does not know: keep every parameter
        defaults = {}
    extra = {k: v for k, v in sorted(params.items()) if defaults.get(k, object()) != v}
    if not extra:
        return task
    return f"{task}[{','.join(f'{k}={v}' for k, v in extra.items())}]"


def row_name(task: str) -> str:
    """A task written in the command syntax (``khop:k=2``, as predictions name variants)
    -> its row name (``khop[k=2]``, :func:`cell_name`), so that predictions and runs of one
    variant meet in one row; a name that does not parse is kept as it is."""
    if ":" not in task:
        return task
    try:
        from ..tasks import parse_task

        family, params = parse_task(task)
    except Exception:  # not a task this version knows: leave the row as named
        return task
    return cell_name({"task": family, "params": params})


def config_name(spec: dict[str, Any]) -> str:
    model = spec.get("model", {})
    return f"{model.get('size', '?')}/{model.get('encoding', '?')}"


def _finished(records: Iterable[Any], line: str) -> list[Any]:
    return [r for r in records if r.line == line and r.status == "done" and r.metrics]


def in_distribution_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds(),
                          line: str = "in_distribution") -> dict[str, EmpiricalCell]:
    """One cell per task (variant) from finished in-distribution runs.

    Seeds are pooled only within one configuration (model size and encoding) at one
    (n, training-set size); with several configurations, the best one at each n counts.
    """
    acc: dict[str, dict[tuple[int, int | None, str], list[float]]] = defaultdict(
        lambda: defaultdict(list))
    for r in _finished(records, line):
        n = int(r.spec.get("n") or 0)
        size = r.spec.get("train_size")
        acc[cell_name(r.spec)][(n, size, config_name(r.spec))].append(
            float(r.metrics["test_accuracy"]))
    cells = {}
    how, target = thresholds.aggregate, thresholds.target_accuracy
    for task, points in sorted(acc.items()):
        agg = {p: Aggregate.of(v) for p, v in points.items()}
        ns = sorted({n for n, _, _ in agg})
        by_n: dict[int, Aggregate] = {}
        complexity: dict[int, int | None] = {}
        thin = []
        for n in ns:
            online = [a for (m, s, _), a in agg.items() if m == n and s is None]
            sized = sorted((s, a) for (m, s, _), a in agg.items() if m == n and s is not None)
            if online:
                decider = max(online, key=lambda a: a.pick(how))
            else:  # fixed training sets only: the largest set decides
                largest = sized[-1][0]
                decider = max((a for s, a in sized if s == largest), key=lambda a: a.pick(how))
            by_n[n] = decider
            if decider.seeds < thresholds.min_seeds:
                thin.append(f"n={n} has {decider.seeds} run(s)")
            if sized:
                reach = [s for s, a in sized if a.pick(how) >= target]
                complexity[n] = min(reach) if reach else None
        if thin:
            verdict = INSUFFICIENT
            note = (f"too few runs ({'; '.join(thin)}; need {thresholds.min_seeds}): "
                    f"run more seeds with --seeds")
        else:
            missed = [n for n in ns if by_n[n].pick(how) < target]
            verdict = HARD if missed else EASY
            note = (f"target {target:g} missed at n = {missed}" if missed
                    else f"target {target:g} reached at every n in {ns}")
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


def length_generalization_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds()
                                ) -> dict[str, EmpiricalCell]:
    """One cell per task (variant); per configuration the accuracy by length bin.

    A bin a run could not fill (no valid input length in it; stored as None) is left out
    and named in the note. The best configuration is the one with the highest lowest-bin
    accuracy (so it generalizes whenever any configuration does), ties by the longest bin.
    """
    acc: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    bin_order: dict[str, list[str]] = defaultdict(list)
    empty_bins: dict[str, set[str]] = defaultdict(set)
    train_len: dict[str, int] = {}
    for r in _finished(records, "length_generalization"):
        task = cell_name(r.spec)
        if r.spec.get("train_max_len"):
            train_len[task] = int(r.spec["train_max_len"])
        for label, value in r.metrics["bins"].items():
            if value is None:
                empty_bins[task].add(label)
                continue
            acc[task][config_name(r.spec)][label].append(float(value))
            if label not in bin_order[task]:
                bin_order[task].append(label)
    for order in bin_order.values():
        order.sort(key=bin_sort_key)
    cells = {}
    how, need = thresholds.aggregate, thresholds.length_accuracy
    for task, configs in sorted(acc.items()):
        order = bin_order[task]
        by_config = {c: {b: Aggregate.of(bins[b]) for b in order if b in bins}
                     for c, bins in sorted(configs.items())}
        verdicts = {}
        thin = []
        for c, bins in by_config.items():
            if len(bins) < len(order):
                verdicts[c] = INSUFFICIENT
                thin.append(f"{c} lacks bins {sorted(set(order) - set(bins), key=bin_sort_key)}")
            elif min(a.seeds for a in bins.values()) < thresholds.min_seeds:
                verdicts[c] = INSUFFICIENT
                thin.append(f"{c} has too few runs")
            else:
                verdicts[c] = EASY if all(a.pick(how) >= need for a in bins.values()) else HARD
        decided = [c for c, v in verdicts.items() if v != INSUFFICIENT]

        def score(c: str) -> tuple[float, float]:
            values = [a.pick(how) for a in by_config[c].values()]
            return (min(values), by_config[c][order[-1]].pick(how))

        best = max(decided, key=score) if decided else None
        if best is None:
            verdict, note = INSUFFICIENT, "no configuration has a complete set of runs: " + "; ".join(thin)
        else:
            verdict = verdicts[best]
            good = [c for c in decided if verdicts[c] == EASY]
            note = (f"generalizes with {', '.join(good)}" if good else
                    f"no configuration reaches {need:g} in every bin (best: {best}, lowest "
                    f"bin accuracy {score(best)[0]:.2f})")
            if thin:
                note += f"; incomplete: {'; '.join(thin)}"
        unfilled = sorted(empty_bins[task] - set(order), key=bin_sort_key)
        if unfilled:
            note += f"; bins with no valid input length for this task: {', '.join(unfilled)}"
        cells[task] = EmpiricalCell(task, "length_generalization", verdict, thresholds,
                                    by_config=by_config, config_verdicts=verdicts,
                                    best_config=best, note=note,
                                    train_max_len=train_len.get(task))
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
    from .llm_line import llm_cells
    out.update(llm_cells(records, thresholds))
    return out
