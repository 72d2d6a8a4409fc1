"""Empirical verdicts per task and experiment line, derived from stored runs.

The thresholds are data (:class:`Thresholds`) and are written into every cell and every
report, so a reader can see exactly what "Easy" meant:

* in-distribution: a task is Easy if, at every tested n, the seeds' aggregated test
  accuracy (mean by default) reaches ``target_accuracy`` within the run's step budget;
  Hard if some tested n is *not learned* (every seed misses the target with its training
  loss flat), and *inconclusive* when neither holds (seeds disagree, or the loss was still
  falling at the budget: :func:`point_outcome`). Online runs decide; when a task has only fixed
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

from collections import defaultdict
from typing import Any, Iterable

from .cells import (EASY, HARD, INCONCLUSIVE, INSUFFICIENT, LINES, Aggregate,  # noqa: F401
                    EmpiricalCell, Thresholds, cell_name, row_name)
from .llm_line import llm_cells
from ..experiments.lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION


#: The label a configuration trained with the next-symbol objective carries (the papers'
#: protocol for languages); membership runs keep the bare "size/encoding".
NEXT_SYMBOL_LABEL = " next-symbol"
#: ... and one trained with a cross-entropy over the sets (it contains the label above:
#: both are next-symbol configurations, kept apart).
_LABELS = {"next_symbol": NEXT_SYMBOL_LABEL, "next_symbol_set": NEXT_SYMBOL_LABEL + "-set"}


def config_name(spec: dict[str, Any]) -> str:
    model = spec.get("model", {})
    label = _LABELS.get(spec.get("objective"), "")
    return f"{model.get('size', '?')}/{model.get('encoding', '?')}{label}"


def _examples(spec: dict[str, Any]) -> int | None:
    """Test examples behind one run's accuracy (per length bin on the length line): the
    training config's final_eval_count, None when the spec does not say."""
    n = (spec.get("training") or {}).get("final_eval_count")
    return int(n) if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def config_encoding(config: str) -> str:
    """"small/nope next-symbol lr=0.002" -> "nope"."""
    return config.split("/", 1)[-1].split(" ", 1)[0]


def _grid_point(spec: dict[str, Any]) -> str:
    """The configuration seeds are pooled within: the model and the learning rate, so a
    learning-rate grid is pooled per rate and the best rate decides."""
    lr = (spec.get("training") or {}).get("lr")
    return config_name(spec) + (f" lr={lr:g}" if isinstance(lr, (int, float)) else "")


def _depth(config: str) -> str:
    """"small/rope lr=0.002" -> "small/rope lr=0.002 (2 layers)" where the size is known."""
    from ..experiments.model import SIZES
    size = config.split("/", 1)[0]
    return f"{config} ({SIZES[size][0]} layers)" if size in SIZES else config


def _finished(records: Iterable[Any], line: str) -> list[Any]:
    return [r for r in records if r.line == line and r.status == "done" and r.metrics]


def in_distribution_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds(),
                          line: str = IN_DISTRIBUTION) -> dict[str, EmpiricalCell]:
    """One cell per task (variant) from finished in-distribution runs.

    Seeds are pooled only within one configuration (model size and encoding) at one
    (n, training-set size); with several configurations, the best one at each n counts.
    Each tested n has one of three outcomes (:func:`point_outcome`): learned, not learned,
    or inconclusive. The task is Hard if some n is not learned, otherwise inconclusive if
    some n is, and Easy when every n is learned; inconclusive cells are shown and left out
    of the agreement.
    """
    runs: dict[str, dict[tuple[int, int | None, str], list[dict]]] = defaultdict(
        lambda: defaultdict(list))
    counts: dict[str, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
    for r in _finished(records, line):
        n = int(r.spec.get("n") or 0)
        size = r.spec.get("train_size")
        runs[cell_name(r.spec)][(n, size, _grid_point(r.spec))].append(r.metrics)
        counts[cell_name(r.spec)][(n, size, _grid_point(r.spec))].append(_examples(r.spec))
    cells = {}
    how, target = thresholds.aggregate, thresholds.target_accuracy
    for task, points in sorted(runs.items()):
        agg = {p: Aggregate.of([float(m["test_accuracy"]) for m in v], counts[task][p])
               for p, v in points.items()}
        ns = sorted({n for n, _, _ in agg})
        by_n: dict[int, Aggregate] = {}
        complexity: dict[int, int | None] = {}
        outcomes: dict[int, tuple[str, str]] = {}
        deciders: list[str] = []
        thin = []
        for n in ns:
            online = [p for p in agg if p[0] == n and p[1] is None]
            sized = sorted((p for p in agg if p[0] == n and p[1] is not None),
                           key=lambda p: p[1])
            if online:
                decider = max(online, key=lambda p: agg[p].pick(how))
            else:  # fixed training sets only: the largest set decides
                largest = sized[-1][1]
                decider = max((p for p in sized if p[1] == largest),
                              key=lambda p: agg[p].pick(how))
            by_n[n] = agg[decider]
            deciders.append(decider[2])
            outcomes[n] = point_outcome(agg[decider], points[decider], thresholds)
            if agg[decider].seeds < thresholds.min_seeds:
                thin.append(f"n={n} has {agg[decider].seeds} run(s)")
            if sized:
                reach = [p[1] for p in sized if agg[p].pick(how) >= target]
                complexity[n] = min(reach) if reach else None
        if thin:
            verdict = INSUFFICIENT
            note = (f"too few runs ({'; '.join(thin)}; need {thresholds.min_seeds}): "
                    f"run more seeds with --seeds")
        else:
            missed = [n for n in ns if outcomes[n][0] == NOT_LEARNED]
            open_ = [n for n in ns if outcomes[n][0] == INCONCLUSIVE]
            verdict = HARD if missed else INCONCLUSIVE if open_ else EASY
            why = "; ".join(f"n={n}: {outcomes[n][1]}" for n in missed + open_)
            note = (f"target {target:g} not learned at n = {missed} ({why})" if missed
                    else f"inconclusive at n = {open_} ({why})" if open_
                    else f"target {target:g} reached at every n in {ns}")
        if line == IN_DISTRIBUTION:
            note += (f"; decided by {', '.join(_depth(c) for c in dict.fromkeys(deciders))}"
                     f" under protocol {thresholds.protocol}")
        cells[task] = EmpiricalCell(task, line, verdict, thresholds, by_n=by_n,
                                    sample_complexity=complexity, note=note)
    return cells


LEARNED, NOT_LEARNED = "learned", "not learned"


def point_outcome(agg: Aggregate, metrics: list[dict], thresholds: Thresholds
                  ) -> tuple[str, str]:
    """(outcome, reason) of one tested point from its seeds' runs.

    * learned: the seeds' aggregate reaches the target;
    * inconclusive: the seeds disagree (some reach the target, some do not), or a run that
      missed it stopped at its step budget while its training loss was still falling
      (``loss_drop`` above the run's tolerance): more steps might have learned it;
    * not learned: every seed missed the target and no run's loss was still falling (the
      plateau rule stopped it, or the loss was flat at the budget). Runs stored before
      the loss was recorded count as not learned, as before, and say so.
    """
    target = thresholds.target_accuracy
    if agg.pick(thresholds.aggregate) >= target:
        return LEARNED, "target reached"
    reached = sum(float(m["test_accuracy"]) >= target for m in metrics)
    if 0 < reached < len(metrics):
        return INCONCLUSIVE, f"seeds disagree ({reached} of {len(metrics)} reached the target)"
    falling = [m for m in metrics if m.get("stop_reason") == "budget"
               and isinstance(m.get("loss_drop"), (int, float))
               and m["loss_drop"] > float(m.get("loss_tol", 0.01))]
    if falling:
        drop = max(m["loss_drop"] for m in falling)
        return INCONCLUSIVE, (f"loss still falling at the step budget ({drop:.1%} over the "
                              f"last window in {len(falling)} of {len(metrics)} runs)")
    if any("loss_drop" not in m for m in metrics):
        return NOT_LEARNED, "missed the target (loss trend not recorded)"
    if any(m.get("stop_reason") == "plateau" for m in metrics):
        return NOT_LEARNED, "missed the target; training loss flat (plateau stop)"
    return NOT_LEARNED, "missed the target with the training loss flat at the budget"


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
    cnt: dict[str, dict[str, dict[str, list]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    bin_order: dict[str, list[str]] = defaultdict(list)
    empty_bins: dict[str, set[str]] = defaultdict(set)
    train_len: dict[str, int] = {}
    unfit: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    fitted_only = thresholds.aggregate == "mean_of_fitted"
    for r in _finished(records, LENGTH_GENERALIZATION):
        task = cell_name(r.spec)
        if r.spec.get("train_max_len"):
            train_len[task] = int(r.spec["train_max_len"])
        filled = {b: v for b, v in r.metrics["bins"].items() if v is not None}
        if fitted_only and filled:
            first = min(filled, key=bin_sort_key)   # the bin of the training lengths
            if float(filled[first]) < thresholds.fit_accuracy:
                unfit[task][config_name(r.spec)] += 1
                continue
        for label, value in r.metrics["bins"].items():
            if value is None:
                empty_bins[task].add(label)
                continue
            acc[task][config_name(r.spec)][label].append(float(value))
            cnt[task][config_name(r.spec)][label].append(_examples(r.spec))
            if label not in bin_order[task]:
                bin_order[task].append(label)
    for order in bin_order.values():
        order.sort(key=bin_sort_key)
    cells = {}
    how, need = thresholds.aggregate, thresholds.length_accuracy
    for task in sorted(set(acc) | set(unfit)):
        configs = acc.get(task, {})
        order = bin_order[task]
        by_config = {c: {b: Aggregate.of(bins[b], cnt[task][c][b]) for b in order if b in bins}
                     for c, bins in sorted(configs.items())}
        verdicts = {}
        thin = []
        # mean_of_fitted: a configuration none of whose seeds fit the training lengths
        no_fit = sorted(set(unfit.get(task, {})) - set(by_config))
        for c, bins in by_config.items():
            if len(bins) < len(order):
                verdicts[c] = INSUFFICIENT
                thin.append(f"{c} lacks bins {sorted(set(order) - set(bins), key=bin_sort_key)}")
            elif min(a.seeds for a in bins.values()) < thresholds.min_seeds:
                verdicts[c] = INSUFFICIENT
                thin.append(f"{c} has too few runs")
            else:
                verdicts[c] = EASY if all(a.pick(how) >= need for a in bins.values()) else HARD
        for c in no_fit:
            verdicts[c] = HARD
            by_config[c] = {}
        decided = [c for c, v in verdicts.items() if v != INSUFFICIENT]

        def score(c: str) -> tuple[float, float]:
            values = [a.pick(how) for a in by_config[c].values()]
            return (min(values), by_config[c][order[-1]].pick(how))

        scored = [c for c in decided if by_config[c]]
        best = max(scored, key=score) if scored else None
        if best is None and no_fit:
            verdict, note = HARD, (f"no seed of {', '.join(no_fit)} fits the training lengths "
                                   f"(>= {thresholds.fit_accuracy:g}; protocol "
                                   f"{thresholds.protocol} drops unfit seeds)")
        elif best is None:
            verdict, note = INSUFFICIENT, "no configuration has a complete set of runs: " + "; ".join(thin)
        else:
            verdict = verdicts[best]
            good = [c for c in decided if verdicts[c] == EASY]
            note = (f"generalizes with {', '.join(good)}" if good else
                    f"no configuration reaches {need:g} in every bin (best: {best}, lowest "
                    f"bin accuracy {score(best)[0]:.2f})")
            if thin:
                note += f"; incomplete: {'; '.join(thin)}"
        dropped = sum(unfit.get(task, {}).values())
        if dropped:
            note += (f"; {dropped} run(s) dropped: below {thresholds.fit_accuracy:g} on the "
                     f"training lengths")
        unfilled = sorted(empty_bins[task] - set(order), key=bin_sort_key)
        if unfilled:
            note += f"; bins with no valid input length for this task: {', '.join(unfilled)}"
        cells[task] = EmpiricalCell(task, LENGTH_GENERALIZATION, verdict, thresholds,
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
        out[IN_DISTRIBUTION] = ind
    lg = length_generalization_cells(records, thresholds)
    if lg:
        out[LENGTH_GENERALIZATION] = lg
    out.update(llm_cells(records, thresholds))
    return out
