"""Agreement of each theory's predictions with each empirical line.

For a theory T and a line L, the compared cells are the tasks where T's verdict is Easy or
Hard and L's verdict is Easy or Hard; Unknown predictions and insufficient empirical cells
are excluded and counted. Reported: accuracy, precision of T's Easy predictions (of the
tasks T calls Easy, the fraction observed Easy) and of its Hard predictions, the
disagreements with a likely cause drawn from T's modelling assumptions, and the theory
that agrees best on each line. Nothing here is asserted: every figure is computed from the
predictions and the store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping

from .empirical import EASY, HARD, EmpiricalCell


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
                 line: str = "in_distribution") -> str:
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
    if line.startswith("llm"):
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


def agreement(predictions: Iterable[Mapping[str, Any]],
              empirical: Mapping[str, Mapping[str, EmpiricalCell]],
              assumptions: Mapping[str, Iterable[str]] | None = None,
              min_status: str | None = None) -> list[AgreementRow]:
    """One row per (theory, line). ``predictions`` are Prediction.to_dict()-style mappings.

    ``min_status`` (e.g. ``"proven"``) compares only the decided cells with that status or
    a stronger one (order: proven, verified, extrapolated, conditional, cited); the others
    are counted in ``excluded_status``."""
    from ..theories.base import Status, at_least
    if min_status is not None:
        min_status = parse_min_status(min_status)
    assumptions = assumptions or {}
    by_theory: dict[str, dict[str, tuple[str, str]]] = {}
    for p in predictions:
        by_theory.setdefault(p["theory"], {})[p["task"]] = (p["verdict"],
                                                            p.get("status", "none"))
    rows = []
    for theory, verdicts in by_theory.items():
        for line, cells in empirical.items():
            row = AgreementRow(theory, line, 0, 0, None, 0, 0, None, 0, 0, None, 0, 0, 0,
                               min_status=min_status)
            for task, (predicted, status) in sorted(verdicts.items()):
                cell = cells.get(task)
                if cell is None:
                    row.missing_empirical += 1
                    continue
                if predicted not in (EASY, HARD):
                    row.excluded_unknown += 1
                    continue
                if min_status is not None:
                    try:
                        ok = at_least(Status(status), min_status)
                    except ValueError:
                        ok = False
                    if not ok:
                        row.excluded_status += 1
                        continue
                if cell.verdict not in (EASY, HARD):
                    row.excluded_insufficient += 1
                    continue
                row.compared += 1
                hit = predicted == cell.verdict
                row.agree += hit
                if predicted == EASY:
                    row.easy_predicted += 1
                    row.easy_correct += hit
                else:
                    row.hard_predicted += 1
                    row.hard_correct += hit
                if not hit:
                    row.disagreements.append(Disagreement(
                        task, predicted, cell.verdict,
                        likely_cause(predicted, cell.verdict, assumptions.get(theory, ()),
                                     line)))
            row.accuracy = _ratio(row.agree, row.compared)
            row.precision_easy = _ratio(row.easy_correct, row.easy_predicted)
            row.precision_hard = _ratio(row.hard_correct, row.hard_predicted)
            rows.append(row)
    return rows


def parse_min_status(value: str) -> str:
    """A ``--min-status`` value (proven, verified, extrapolated, conditional, cited)."""
    from ..errors import ConfigError
    from ..theories.base import STATUS_ORDER
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


def hard_vs_easy_precision(rows: Iterable[AgreementRow]) -> dict[str, Any]:
    """Pooled precision of all Hard and of all Easy predictions per line (the study's claim
    that Hard predictions are the more reliable ones, computed rather than asserted)."""
    out: dict[str, Any] = {}
    for r in rows:
        d = out.setdefault(r.line, {"easy_predicted": 0, "easy_correct": 0,
                                    "hard_predicted": 0, "hard_correct": 0})
        for k in ("easy_predicted", "easy_correct", "hard_predicted", "hard_correct"):
            d[k] += getattr(r, k)
    for d in out.values():
        d["precision_easy"] = _ratio(d["easy_correct"], d["easy_predicted"])
        d["precision_hard"] = _ratio(d["hard_correct"], d["hard_predicted"])
        pe, ph = d["precision_easy"], d["precision_hard"]
        d["hard_more_reliable"] = None if pe is None or ph is None else ph > pe
    return out
