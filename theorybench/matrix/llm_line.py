"""Empirical verdicts of the llm line (few-shot prompting of pretrained models), chance-aware.

The runs of one model at one (task, n) are pooled (seeds, and prompt settings if several
were run): ``correct`` of ``count`` prompts. The *chance level* of that point is the larger
of the accuracy of always giving the most frequent gold answer of the sample (the run's
``chance``; the largest over the pooled runs) and one over the number of allowed answers.
A point is **above chance** when the exact one-sided binomial test rejects "accuracy <=
chance" at level ``Thresholds.llm_alpha``: P(X >= correct) <= alpha for X ~ Binomial(count,
chance). The lower end of the 95% Wilson interval is kept beside it.

Verdicts (per model, and pooled over the models by summing their prompts):

* Easy - above chance at every tested n;
* Hard - at some tested n the accuracy is not above chance although the number of prompts
  could have shown it (all ``count`` right would have been significant);
* insufficient - no n is a counterexample, but some n has too few prompts for any score to
  be significant (run more prompts or seeds).

Prompt samplers: a run's spec names the version of the prompt sampler that built its
prompts (``sampler``; none before version 2 of issue 32, when the prompts became
prefix-stable and the examples distinct). Runs of different samplers are never pooled:
each task's cell uses the runs of the newest sampler the store holds for that task, and
:func:`sampler_notes` says which runs were left out and which cells rest on an earlier
sampler (rerun ``theorybench run llm`` to measure them with the current one).

Each point also carries ``accuracy_stderr``, lm-eval's standard error of the mean of the
pooled 0/1 scores (sqrt(p (1 - p) / (count - 1)); None below two prompts).

So "Easy" here means "few-shot accuracy measurably above chance at every tested n", a far
weaker bar than the trained line's 0.99 target: the per-n accuracies are printed with it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Iterable

from ..experiments.llm.evaluate import SAMPLER
from ..experiments.llm.scoring import binomial_sf, wilson_lower
from .cells import (EASY, HARD, INSUFFICIENT, Aggregate, EmpiricalCell, Thresholds, cell_name,
                    llm_describe as describe)  # noqa: F401  (describe: the llm thresholds)

LINE = "llm"


def model_of(spec: dict[str, Any]) -> str:
    model = spec.get("model") or {}
    return str(model.get("name") or "?")


def _correct(metrics: dict[str, Any]) -> tuple[int, int]:
    count = int(metrics.get("count") or 0)
    if isinstance(metrics.get("correct"), int):
        return int(metrics["correct"]), count
    return int(round(float(metrics.get("accuracy", 0.0)) * count)), count


def point_stats(runs: list[dict[str, Any]], alpha: float) -> dict[str, Any]:
    """The pooled statistics of the metrics of the runs of one point."""
    correct = count = 0
    chance = 0.0
    unparse = 0.0
    accs = []
    for m in runs:
        c, k = _correct(m)
        correct, count = correct + c, count + k
        chance = max(chance, float(m.get("chance") or 0.0), float(m.get("uniform_chance") or 0.0))
        unparse += float(m.get("unparseable") or 0.0) * k
        accs.append(float(m.get("accuracy", 0.0)))
    acc = correct / count if count else 0.0
    # lm-eval's mean_stderr of the pooled 0/1 scores: sample variance count/(count-1) p(1-p)
    stderr = math.sqrt(acc * (1 - acc) / (count - 1)) if count > 1 else None
    p = binomial_sf(correct, count, chance) if count else 1.0
    powered = count > 0 and binomial_sf(count, count, chance) <= alpha
    return {"accuracy": acc, "accuracy_stderr": stderr, "correct": correct, "count": count, "chance": chance,
            "p_value": p, "wilson_lower": wilson_lower(correct, count),
            "above_chance": bool(count and p <= alpha), "powered": bool(powered),
            "unparseable": unparse / count if count else 0.0, "runs": len(runs),
            "run_accuracies": accs}


def _verdict(stats: dict[int, dict[str, Any]], alpha: float) -> tuple[str, str]:
    ns = sorted(stats)
    fails = [n for n in ns if stats[n]["powered"] and not stats[n]["above_chance"]]
    thin = [n for n in ns if not stats[n]["powered"]]
    if fails:
        return HARD, (f"not above chance (one-sided binomial, alpha {alpha:g}) at n = {fails}"
                      + (f"; too few prompts at n = {thin}" if thin else ""))
    if thin:
        return INSUFFICIENT, (f"too few prompts at n = {thin}: even all right would not be "
                              f"significant at alpha {alpha:g}; run more prompts or seeds")
    return EASY, f"above chance (one-sided binomial, alpha {alpha:g}) at every n in {ns}"


def _cell(task: str, line: str, stats: dict[int, dict[str, Any]], thresholds: Thresholds,
          models: dict[str, dict[int, dict[str, Any]]], configs: int,
          sampler: int = SAMPLER, parsers: Iterable[str] = ()) -> EmpiricalCell:
    verdict, note = _verdict(stats, thresholds.llm_alpha)
    by_n = {}
    for n, s in sorted(stats.items()):
        accs = s["run_accuracies"]
        by_n[n] = Aggregate(mean=s["accuracy"], best=max(accs), spread=max(accs) - min(accs),
                            seeds=s["runs"])
    names = sorted(models)
    note = f"{note}; model(s): {', '.join(names)}"
    if parsers:
        note += f"; answers by {', '.join(sorted(parsers))}"
    if configs > 1:
        note += f"; {configs} prompt settings pooled"
    if sampler < SAMPLER:
        note += (f"; prompts of an earlier sampler ({sampler}; this version's is {SAMPLER}): "
                 f"rerun `theorybench run llm`")
    return EmpiricalCell(task, line, verdict, thresholds, by_n=by_n, note=note,
                         llm_by_n={n: _public(s) for n, s in sorted(stats.items())},
                         llm_models={m: {n: _public(s) for n, s in sorted(v.items())}
                                     for m, v in sorted(models.items())})


def _public(s: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in s.items() if k != "run_accuracies"}


def parser_of(spec: dict[str, Any]) -> str:
    """What turned a run's model output into its answers: ``loglik`` (the best-scoring
    allowed answer) or, for generation, the answer parser (scoring.PARSERS)."""
    if spec.get("scoring", "loglik") == "loglik":
        return "loglik"
    return str(spec.get("parser") or "first_word")


def sampler_of(spec: dict[str, Any]) -> int:
    """The prompt sampler of a stored run (1: stored before the spec named one)."""
    v = spec.get("sampler", 1)
    return v if isinstance(v, int) and not isinstance(v, bool) else 1


def _done(records: Iterable[Any]) -> list[Any]:
    return [r for r in records if r.line == LINE and r.status == "done" and r.metrics]


def _newest(done: list[Any]) -> dict[str, int]:
    """The newest prompt sampler among each task's finished runs."""
    newest: dict[str, int] = {}
    for r in done:
        task = cell_name(r.spec)
        newest[task] = max(newest.get(task, 0), sampler_of(r.spec))
    return newest


def sampler_notes(records: Iterable[Any]) -> list[str]:
    """What the llm cells leave out or rest on because of the prompt sampler (empty when
    every finished run is of the current one)."""
    done = _done(records)
    newest = _newest(done)
    dropped: dict[str, int] = defaultdict(int)
    for r in done:
        task = cell_name(r.spec)
        if sampler_of(r.spec) < newest[task]:
            dropped[task] += 1
    notes = []
    if dropped:
        notes.append("llm: runs of an earlier prompt sampler are left out where the store "
                     "has runs of a newer one (never pooled): " + ", ".join(
                         f"{t} ({k})" for t, k in sorted(dropped.items())))
    old = sorted(t for t, v in newest.items() if v < SAMPLER)
    if old:
        notes.append(f"llm: {', '.join(old)}: measured with an earlier prompt sampler "
                     f"(this version's is {SAMPLER}: prefix-stable prompts, distinct examples); "
                     f"rerun `theorybench run llm` on the same store to measure them with it")
    return notes


def llm_cells(records: Iterable[Any], thresholds: Thresholds = Thresholds()
              ) -> dict[str, dict[str, EmpiricalCell]]:
    """``{"llm": pooled cells}`` plus ``{"llm:MODEL": cells}`` for each model when the store
    holds more than one model (with one model the pooled column is that model's). Each
    task's cell uses the runs of its newest prompt sampler only (:func:`sampler_notes`)."""
    runs: dict[str, dict[str, dict[int, list[dict]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list)))
    configs: dict[str, set] = defaultdict(set)
    parsers: dict[str, set] = defaultdict(set)
    done = _done(records)
    newest = _newest(done)
    for r in done:
        task, s = cell_name(r.spec), r.spec
        if sampler_of(s) < newest[task]:
            continue
        runs[task][model_of(s)][int(s.get("n") or 0)].append(r.metrics)
        configs[task].add((s.get("k"), s.get("template"), s.get("order"), s.get("scoring"),
                           parser_of(s), s.get("prompts_digest")))
        parsers[task].add(parser_of(s))
    if not runs:
        return {}
    alpha = thresholds.llm_alpha
    models = sorted({m for by_model in runs.values() for m in by_model})
    out: dict[str, dict[str, EmpiricalCell]] = {LINE: {}}
    for task, by_model in sorted(runs.items()):
        per_model = {m: {n: point_stats(v, alpha) for n, v in by_n.items()}
                     for m, by_n in by_model.items()}
        pooled: dict[int, list[dict]] = defaultdict(list)
        for by_n in by_model.values():
            for n, v in by_n.items():
                pooled[n].extend(v)
        stats = {n: point_stats(v, alpha) for n, v in pooled.items()}
        out[LINE][task] = _cell(task, LINE, stats, thresholds, per_model, len(configs[task]),
                                newest[task], parsers[task])
        if len(models) > 1:
            for m, st in per_model.items():
                out.setdefault(f"{LINE}:{m}", {})[task] = _cell(
                    task, f"{LINE}:{m}", st, thresholds, {m: st}, len(configs[task]),
                    newest[task], parsers[task])
    return out
