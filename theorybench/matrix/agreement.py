"""Agreement of each theory's predictions with each empirical line.

For a theory T and a line L, the compared cells are the tasks where T's verdict is Easy or
Hard and L's verdict is Easy or Hard; Unknown predictions and insufficient empirical cells
are excluded and counted. Reported: accuracy with its Wilson interval, precision of T's
Easy predictions (of the tasks T calls Easy, the fraction observed Easy) and of its Hard
predictions, the disagreements with a likely cause drawn from T's modelling assumptions,
and the theory that agrees best on each line.

Beside every theory stand the trivial predictors (:func:`baselines`: always Easy, always
Hard, the majority class), and each theory row carries the majority class's accuracy on the
theory's own compared cells with an exact McNemar p-value, so the table says when a theory
does not beat the trivial predictor. "Hard predictions are more precise" is decided by a
permutation test against the base rate (:func:`hard_vs_easy_precision`). Nothing here is
asserted: every figure is computed from the predictions and the store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import ConfigError
from ..theories.base import STATUS_ORDER, Status, at_least
from ..theories.prediction import line_fallbacks
from .empirical import EASY, HARD, INCONCLUSIVE, EmpiricalCell
from .stats import mcnemar_exact, precision_gap_test, wilson_interval
from ..experiments.lines import IN_DISTRIBUTION, LLM

#: level at which a theory "beats" the majority class and Hard is "more precise"
ALPHA = 0.05


@dataclass
class Disagreement:
    task: str
    predicted: str
    observed: str
    cause: str


@dataclass
class AgreementRow:
    theory: str
    line: str
    compared: int
    agree: int
    accuracy: float | None
    easy_predicted: int
    easy_correct: int
    precision_easy: float | None
    hard_predicted: int
    hard_correct: int
    precision_hard: float | None
    excluded_unknown: int
    excluded_insufficient: int
    missing_empirical: int
    disagreements: list[Disagreement] = field(default_factory=list)
    #: decided predictions left out because their status is below ``min_status``
    excluded_status: int = 0
    min_status: str | None = None
    #: 95 % Wilson interval of ``accuracy`` (over the compared tasks)
    accuracy_interval: tuple[float, float] | None = None
    #: accuracy of the majority observed verdict on the same compared cells, and the exact
    #: one-sided McNemar p-value that the theory does better than it
    majority_baseline: float | None = None
    p_vs_majority: float | None = None
    #: decided predictions whose empirical cell is inconclusive (left out)
    excluded_inconclusive: int = 0
    #: decided predictions that rest on a missing lemma (left out unless asked)
    excluded_missing_lemma: int = 0
    #: (task, predicted, observed) of every compared cell
    compared_cells: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def beats_majority(self) -> bool | None:
        """Whether the theory beats the majority class on its own cells at level ALPHA."""
        return None if self.p_vs_majority is None else self.p_vs_majority < ALPHA

    def count(self, task: str, predicted: str, observed: str) -> bool:
        """Add one compared cell (both verdicts Easy or Hard); True when they agree."""
        hit = predicted == observed
        self.compared += 1
        self.agree += hit
        self.compared_cells.append((task, predicted, observed))
        if predicted == EASY:
            self.easy_predicted += 1
            self.easy_correct += hit
        else:
            self.hard_predicted += 1
            self.hard_correct += hit
        return hit

    def finish(self) -> None:
        """Fill the figures derived from the compared cells."""
        self.accuracy = _ratio(self.agree, self.compared)
        self.precision_easy = _ratio(self.easy_correct, self.easy_predicted)
        self.precision_hard = _ratio(self.hard_correct, self.hard_predicted)
        self.accuracy_interval = wilson_interval(self.agree, self.compared)
        if not self.compared:
            return
        observed = [o for _, _, o in self.compared_cells]
        majority = HARD if observed.count(HARD) >= observed.count(EASY) else EASY
        self.majority_baseline = observed.count(majority) / len(observed)
        only_theory = sum(p == o != majority for _, p, o in self.compared_cells)
        only_majority = sum(p != o == majority for _, p, o in self.compared_cells)
        self.p_vs_majority = mcnemar_exact(only_theory, only_majority)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


#: Assumption keywords and what each means when a Hard prediction meets a learned task.
_HARD_BUT_LEARNED = (
    ("unique hard attention", "hard attention picks one position; trained softmax attention "
                              "can average and count (uniform attention computes Majority)"),
    ("no position", "the model has no positions; the trained models have positional encodings"),
    ("prefix counts", "counting programs have no content-dependent retrieval, while softmax "
                      "attention retrieves by query-key match"),
    ("communication at any split", "attention reads any token directly, beyond the "
                                   "bandwidth the model allows at a split"),
    ("sharpness", "the sensitivity argument concerns sharp minima as n grows; the tested n "
                  "are small enough to fit"),
    ("rounds", "round lower bounds are conditional and asymptotic; the tested sizes are "
               "small"),
)


def likely_cause(predicted: str, observed: str, assumptions: Iterable[str],
                 line: str = IN_DISTRIBUTION) -> str:
    """Why a theory and an experiment may part ways, from the theory's stated assumptions.

    Hard predicted but learned: one of the theory's modelling assumptions makes its model
    weaker than a trained softmax transformer (matched by keyword: unique hard attention,
    no positions, counting without retrieval, bounded communication, sharpness, rounds),
    or the
    tested n are too small for an asymptotic bound to show. Easy predicted but not
    learned: the theory shows expressibility, a loose upper bound on difficulty that
    ignores optimization, data and the step budget.

    On the llm line (few-shot prompting of a pretrained model, no training): Hard predicted
    but above chance - the asymptotic bound may not bite at the tested n, or the model
    meets the bar (above chance, not exact) with a partial heuristic; Easy predicted but at
    chance - expressibility says nothing about what a pretrained model does from a few
    examples in a prompt (the model's size and the prompt format matter).
    """
    assumptions = list(assumptions)
    if line.startswith(LLM):
        if predicted == HARD and observed == EASY:
            return ("predicted Hard but the LLM is above chance: the llm bar is accuracy "
                    "above chance, not exact solutions (a partial heuristic meets it), and an "
                    "asymptotic bound may not bite at the tested n")
        return ("predicted Easy but the LLM is not above chance: expressibility says nothing "
                "about what a pretrained model infers from a few examples in a prompt (its "
                "size, training and the prompt format decide)")
    if predicted == HARD and observed == EASY:
        hits = [why for key, why in _HARD_BUT_LEARNED
                if any(key in a.lower() for a in assumptions)]
        reasons = hits or ["the tested n may be too small for an asymptotic lower bound"]
        return "predicted Hard but learned: " + "; ".join(reasons)
    return ("predicted Easy but not learned: expressibility is an upper bound on difficulty "
            "that ignores optimization, data and the step budget"
            + (f" (the theory assumes: {'; '.join(assumptions)})" if assumptions else ""))


def on_line(p: Mapping[str, Any], line: str) -> tuple[str, str, bool]:
    """(verdict, status, rests on a missing lemma) of a prediction dict on experiment line
    ``line``: the theory's own entry for the line (``p["lines"]``, e.g.
    ``length_generalization:nope``), else for the line without its encoding, else the
    cell's (:meth:`~theorybench.theories.base.Prediction.on_line`)."""
    lines = p.get("lines") or {}
    for key in line_fallbacks(line):
        if key in lines:
            e = lines[key]
            return (e.get("verdict", "unknown"), e.get("status", "none"),
                    bool((e.get("evidence") or {}).get("missing_lemma")))
    return (p["verdict"], p.get("status", "none"),
            bool((p.get("evidence") or {}).get("missing_lemma")))


def agreement(predictions: Iterable[Mapping[str, Any]],
              empirical: Mapping[str, Mapping[str, EmpiricalCell]],
              assumptions: Mapping[str, Iterable[str]] | None = None,
              min_status: str | None = None,
              include_missing_lemmas: bool = False) -> list[AgreementRow]:
    """One row per (theory, line). ``predictions`` are Prediction.to_dict()-style mappings.

    ``min_status`` (e.g. ``"proven"``) compares only the decided cells with that status or
    a stronger one (order: proven, verified, extrapolated, conditional, cited); the others
    are counted in ``excluded_status``. A cell conditional on a missing lemma of its own
    proof (``evidence["missing_lemma"]``) is left out (``excluded_missing_lemma``) unless
    ``include_missing_lemmas``: it is a conjecture, not a prediction the theory makes."""
    if min_status is not None:
        min_status = parse_min_status(min_status)
    assumptions = assumptions or {}
    by_theory: dict[str, dict[str, Mapping[str, Any]]] = {}
    for p in predictions:
        by_theory.setdefault(p["theory"], {})[p["task"]] = p
    rows = []
    for theory, cells_of in by_theory.items():
        for line, cells in empirical.items():
            row = AgreementRow(theory, line, 0, 0, None, 0, 0, None, 0, 0, None, 0, 0, 0,
                               min_status=min_status)
            verdicts = {t: on_line(p, line) for t, p in cells_of.items()}
            for task, (predicted, status, lemma) in sorted(verdicts.items()):
                cell = cells.get(task)
                if cell is None:
                    row.missing_empirical += 1
                    continue
                if predicted not in (EASY, HARD):
                    row.excluded_unknown += 1
                    continue
                if lemma and not include_missing_lemmas:
                    row.excluded_missing_lemma += 1
                    continue
                if min_status is not None:
                    try:
                        ok = at_least(Status(status), min_status)
                    except ValueError:
                        ok = False
                    if not ok:
                        row.excluded_status += 1
                        continue
                if cell.verdict == INCONCLUSIVE:
                    row.excluded_inconclusive += 1
                    continue
                if cell.verdict not in (EASY, HARD):
                    row.excluded_insufficient += 1
                    continue
                if not row.count(task, predicted, cell.verdict):
                    row.disagreements.append(Disagreement(
                        task, predicted, cell.verdict,
                        likely_cause(predicted, cell.verdict, assumptions.get(theory, ()),
                                     line)))
            row.finish()
            rows.append(row)
    return rows


#: The trivial predictors every theory is set beside.
BASELINES = ("always Easy", "always Hard", "majority class")


def baselines(predictions: Iterable[Mapping[str, Any]],
              empirical: Mapping[str, Mapping[str, EmpiricalCell]]) -> list[AgreementRow]:
    """One row per (trivial predictor, line) over every task of the prediction matrix with a
    decided empirical verdict. The majority class is the line's more frequent observed
    verdict (ties: Hard), so it is the best constant predictor in hindsight."""
    tasks = sorted({p["task"] for p in predictions})
    rows = []
    for line, cells in empirical.items():
        observed = {t: cells[t].verdict for t in tasks
                    if t in cells and cells[t].verdict in (EASY, HARD)}
        values = list(observed.values())
        majority = HARD if values.count(HARD) >= values.count(EASY) else EASY
        for name, constant in zip(BASELINES, (EASY, HARD, majority)):
            row = AgreementRow(name, line, 0, 0, None, 0, 0, None, 0, 0, None, 0, 0, 0)
            for task, seen in observed.items():
                row.count(task, constant, seen)
            row.finish()
            row.p_vs_majority = None   # a baseline is not tested against itself
            rows.append(row)
    return rows


def parse_min_status(value: str) -> str:
    """A ``--min-status`` value (proven, verified, extrapolated, conditional, cited)."""
    names = [s.value for s in STATUS_ORDER]
    v = str(value).strip().lower()
    if v.startswith("verified"):
        v = "verified"
    if v not in names:
        raise ConfigError(f"--min-status {value!r} is not a status; use one of "
                          f"{', '.join(names)} (strongest first)")
    return v


def best_theory(rows: Iterable[AgreementRow]) -> dict[str, dict[str, Any]]:
    """line -> the theory with the highest accuracy (ties: more compared cells, then name)."""
    best: dict[str, AgreementRow] = {}
    for r in rows:
        if r.accuracy is None:
            continue
        cur = best.get(r.line)
        key = (r.accuracy, r.compared, _neg(r.theory))
        if cur is None or key > (cur.accuracy, cur.compared, _neg(cur.theory)):
            best[r.line] = r
    return {line: {"theory": r.theory, "accuracy": r.accuracy, "compared": r.compared}
            for line, r in best.items()}


def _neg(name: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in name)


def hard_vs_easy_precision(rows: Iterable[AgreementRow],
                           rng: np.random.Generator | None = None,
                           permutations: int = 20_000) -> dict[str, Any]:
    """Pooled precision of all Hard and of all Easy predictions per line (the study's claim
    that Hard predictions are the more reliable ones), and whether the gap beats the base
    rate: a permutation test (:func:`.stats.precision_gap_test`) shuffles the observed
    verdicts among the compared tasks. ``hard_more_reliable`` is True only when the gap is
    positive *and* its p-value is below ALPHA; the raw comparison of the two precisions is
    kept as ``hard_precision_higher``. ``rng`` defaults to a generator seeded with 0, so a
    report is reproducible."""
    rng = np.random.default_rng(0) if rng is None else rng
    rows = list(rows)
    out: dict[str, Any] = {}
    for r in rows:
        d = out.setdefault(r.line, {"easy_predicted": 0, "easy_correct": 0,
                                    "hard_predicted": 0, "hard_correct": 0})
        for k in ("easy_predicted", "easy_correct", "hard_predicted", "hard_correct"):
            d[k] += getattr(r, k)
    for line, d in out.items():
        d["precision_easy"] = _ratio(d["easy_correct"], d["easy_predicted"])
        d["precision_hard"] = _ratio(d["hard_correct"], d["hard_predicted"])
        pe, ph = d["precision_easy"], d["precision_hard"]
        d["hard_precision_higher"] = None if pe is None or ph is None else ph > pe
        test = _gap_test([r for r in rows if r.line == line], rng, permutations)
        d.update({k: test[k] for k in ("gap", "null_gap", "p_value", "permutations")})
        d["hard_more_reliable"] = (None if test["p_value"] is None
                                   else test["gap"] > 0 and test["p_value"] < ALPHA)
    return out


def _gap_test(rows: list[AgreementRow], rng: np.random.Generator,
              permutations: int) -> dict[str, Any]:
    """The permutation test over one line's compared cells (theories x tasks)."""
    tasks = sorted({t for r in rows for t, _, _ in r.compared_cells})
    col = {t: i for i, t in enumerate(tasks)}
    hard = np.zeros((len(rows), len(tasks)), dtype=bool)
    easy = np.zeros_like(hard)
    observed = np.zeros(len(tasks), dtype=bool)
    for i, r in enumerate(rows):
        for task, predicted, seen in r.compared_cells:
            hard[i, col[task]] = predicted == HARD
            easy[i, col[task]] = predicted == EASY
            observed[col[task]] = seen == HARD
    return precision_gap_test(hard, easy, observed, rng, permutations)
