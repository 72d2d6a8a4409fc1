"""The data of the framework: verdicts, bases, statuses, predictions, rules and contexts.

A cell of the matrix is a :class:`Prediction` (docs/theories.md, "Statuses and bases");
a rule returns one or a :class:`RuleSkip`; :class:`Context` carries the options of one
``predict`` call. The :class:`~.base.Theory` class that runs rules lives in :mod:`.base`,
which re-exports everything here; this module imports nothing of the theories, so the
framework's helpers (:mod:`.closures`) can use these types without an import cycle.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any, Callable


class Verdict(str, enum.Enum):
    EASY = "easy"
    HARD = "hard"
    UNKNOWN = "unknown"


class Basis(str, enum.Enum):
    CONSTRUCTION = "construction"
    LOWER_BOUND = "lower-bound"
    REDUCTION = "reduction"
    THEOREM = "theorem"
    NONE = "none"


class Status(str, enum.Enum):
    """How much of a cell's argument was computed (docs/theories.md, "Statuses and bases").

    ``VERIFIED`` is shown as ``verified ≤ N``; N is ``evidence["verified_up_to"]``, followed
    by ``evidence["verified_how"]`` where the check was not exhaustive (``sampled: K per n
    at n = ...``).
    """

    PROVEN = "proven"
    VERIFIED = "verified"
    EXTRAPOLATED = "extrapolated"
    CONDITIONAL = "conditional"
    CITED = "cited"
    NONE = "none"

    @classmethod
    def _missing_(cls, value):
        # "verified ≤ 12" as printed; "conjectured" from predictions stored before issue 11
        # (those were growth fits or flat measurements, i.e. extrapolations)
        if isinstance(value, str):
            if value.startswith("verified"):
                return cls.VERIFIED
            if value == "conjectured":
                return cls.EXTRAPOLATED
        return None


#: Strongest first; ``--min-status S`` keeps the cells at S or stronger.
STATUS_ORDER = (Status.PROVEN, Status.VERIFIED, Status.EXTRAPOLATED, Status.CONDITIONAL,
                Status.CITED)


def status_label(status: "Status | str", evidence: dict[str, Any] | None = None) -> str:
    """The status as shown to readers: ``verified ≤ 12`` carries its N."""
    st = Status(status) if status is not None else Status.NONE
    if st == Status.VERIFIED:
        n = (evidence or {}).get("verified_up_to")
        how = (evidence or {}).get("verified_how")   # "sampled: K per n at n = ..." etc.
        label = f"verified ≤ {n}" if n is not None else "verified"
        return f"{label} ({how})" if how else label
    return "" if st == Status.NONE else st.value


def at_least(status: "Status | str", minimum: "Status | str") -> bool:
    """Whether ``status`` is ``minimum`` or stronger in :data:`STATUS_ORDER`."""
    st, lo = Status(status), Status(minimum)
    if st not in STATUS_ORDER:
        return False
    return STATUS_ORDER.index(st) <= STATUS_ORDER.index(lo)


def status_problem(p: "Prediction") -> str | None:
    """Why a cell's status is not justified by its evidence, or None.

    proven: names its proof object or checked premise (``evidence["proof"]``) and shows
    the task to be that object for every n (``evidence["identity"]``: ``{"object",
    "all_n": True, "how"}``; identified only up to a finite n, a cell is verified); verified:
    names N (``verified_up_to``, an int); extrapolated: carries a growth fit (a dict with
    kind/formula/candidates, or ``fit``); conditional: names its open separation
    (``condition``); cited: says why no premise was checked (``why_cited``).
    """
    ev = to_jsonable(p.evidence)
    st = p.status
    if p.verdict == Verdict.UNKNOWN:
        return None if st == Status.NONE else f"an Unknown cell with status {st.value}"
    if st == Status.NONE:
        return "a decided cell without a status"
    if st == Status.PROVEN:
        if not (isinstance(ev.get("proof"), str) and ev["proof"]):
            return "proven without evidence['proof'] naming the proof object or checked premise"
        ident = ev.get("identity")
        if not (isinstance(ident, dict) and ident.get("all_n") is True and ident.get("how")):
            return ("proven without evidence['identity'] showing, for every n, that the task "
                    "is the argument's object (a finite identity makes it verified <= N)")
        return None
    if st == Status.VERIFIED:
        n = ev.get("verified_up_to")
        return None if isinstance(n, int) and not isinstance(n, bool) and n > 0 else \
            "verified without an integer evidence['verified_up_to']"
    if st == Status.EXTRAPOLATED:
        if find_fit(ev, max_depth=3) is not None:
            return None
        return "extrapolated without a growth fit in its evidence"
    if st == Status.CONDITIONAL:
        return None if ev.get("condition") else "conditional without evidence['condition']"
    if st == Status.CITED:
        return None if ev.get("why_cited") else "cited without evidence['why_cited']"
    return f"unknown status {st}"


def find_fit(ev: Any, max_depth: int = 4, depth: int = 0) -> dict | None:
    """The first growth fit (a dict with kind/formula and candidates or rel_rmse) in a
    cell's evidence, searched ``max_depth`` levels deep, skipping other rules' evidence."""
    if isinstance(ev, dict):
        if {"kind", "formula"} <= set(ev) and ("candidates" in ev or "rel_rmse" in ev):
            return ev
        if depth < max_depth:
            for k, v in ev.items():
                if k != "other_rules":
                    got = find_fit(v, max_depth, depth + 1)
                    if got is not None:
                        return got
    return None


#: The basis order; a theory's rules are sorted by it.
RULE_ORDER = (Basis.CONSTRUCTION, Basis.LOWER_BOUND, Basis.REDUCTION, Basis.THEOREM)


@dataclass
class Prediction:
    """One cell of the matrix: a theory's verdict on a task family, with its evidence.

    ``evidence`` is JSON-serializable structured data (values by n, the construction and
    the n it was verified up to, the theorem and its source); ``tried`` records every rule
    run, in order, with its outcome.
    """

    theory: str
    task: str
    verdict: Verdict
    basis: Basis
    status: Status
    evidence: dict[str, Any]
    explanation: str
    rule: str = ""
    tried: list[dict[str, str]] = field(default_factory=list)
    #: the theory's own prediction for one experiment line, where it differs from the
    #: cell's: line key (:func:`line_key`: ``in_distribution``, ``llm``,
    #: ``length_generalization`` or ``length_generalization:ENCODING``) -> a
    #: :func:`line_prediction` dict. A line without an entry takes the cell's verdict
    #: (:meth:`on_line`).
    lines: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def status_label(self) -> str:
        return status_label(self.status, self.evidence)

    def on_line(self, line: str) -> dict[str, Any]:
        """The prediction for experiment line ``line`` (a :func:`line_key`): its own entry,
        else, for an encoding the theory does not list, its ``LINE:*`` entry, else that of
        the line without the encoding (``length_generalization:nope`` ->
        ``length_generalization``), else the cell's own verdict."""
        for key in line_fallbacks(line):
            if key in self.lines:
                return {"line": key, **self.lines[key]}
        return {"line": None, "verdict": self.verdict.value, "status": self.status.value,
                "status_label": self.status_label, "explanation": self.explanation}

    def to_dict(self) -> dict[str, Any]:
        return {"theory": self.theory, "task": str(self.task), "verdict": self.verdict.value,
                "basis": self.basis.value, "status": self.status.value,
                "status_label": self.status_label, "rule": self.rule,
                "evidence": to_jsonable(self.evidence), "explanation": self.explanation,
                "tried": self.tried, "lines": to_jsonable(self.lines)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Prediction":
        return cls(theory=d["theory"], task=d["task"], verdict=Verdict(d["verdict"]),
                   basis=Basis(d["basis"]), status=Status(d["status"]), evidence=d["evidence"],
                   explanation=d["explanation"], rule=d.get("rule", ""), tried=d.get("tried", []),
                   lines=dict(d.get("lines") or {}))


#: The experiment line a per-encoding prediction refines (the value of
#: ``experiments.lines.LENGTH_GENERALIZATION``; the theories may not import experiments, and
#: a test checks the two agree).
LENGTH_LINE = "length_generalization"


def line_fallbacks(line: str) -> tuple[str, ...]:
    """The entries of ``Prediction.lines`` that may answer for ``line``, in order:
    ``length_generalization:rope`` -> itself, ``length_generalization:*``,
    ``length_generalization``."""
    base = line.split(":", 1)[0]
    return (line, f"{base}:*", base) if ":" in line else (line,)


def line_key(line: str, encoding: str | None = None) -> str:
    """``line_key("length_generalization", "nope")`` -> ``"length_generalization:nope"``."""
    if not isinstance(line, str) or not line or ":" in line:
        raise ValueError(f"a line name has no ':' ({line!r})")
    return f"{line}:{encoding}" if encoding else line


def line_prediction(verdict: "Verdict | str", status: "Status | str", explanation: str,
                    evidence: dict[str, Any] | None = None) -> dict[str, Any]:
    """One entry of :attr:`Prediction.lines` (the status held to :func:`status_problem`'s
    policy like a cell's, with ``evidence``)."""
    v, st = Verdict(verdict), Status(status)
    ev = dict(evidence or {})
    return {"verdict": v.value, "status": st.value, "status_label": status_label(st, ev),
            "explanation": str(explanation), "evidence": to_jsonable(ev)}


@dataclass
class RuleSkip:
    """A rule that did not fire, and why (kept in ``Prediction.tried``)."""

    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    """A named rule of a theory: ``run(theory, family, context)`` -> Prediction | RuleSkip."""

    name: str
    basis: Basis
    run: Callable[..., "Prediction | RuleSkip"]
    doc: str = ""


def rule(name: str, basis: Basis):
    """Decorator for a Theory method that is a rule: ``@rule("verified circuit", Basis.CONSTRUCTION)``."""
    def wrap(fn):
        fn._rule = (name, basis)
        return fn
    return wrap


@dataclass
class Context:
    """Options shared by all rules of one ``predict`` call."""

    max_n: int = 12
    seed: int = 0
    time_limit_s: float = 20.0
    options: dict[str, Any] = field(default_factory=dict)
    #: own predictions (a theory's rules without the reduction catalogue) by (theory,
    #: task), shared by the cells of one matrix run; None: each ``predict`` call keeps its
    #: own for the cells it consults
    cache: dict[Any, Any] | None = field(default=None, repr=False, compare=False)
    #: the tasks (:class:`~theorybench.tasks.TaskRef`) whose cells a rule may consult,
    #: e.g. the other end of a catalogue reduction; the runner hands over the matrix's
    #: rows. None: the default rows (:func:`.universe.default_tasks`)
    universe: tuple | None = field(default=None, repr=False, compare=False)


def to_jsonable(obj: Any) -> Any:
    """Evidence to plain JSON types (numpy scalars and arrays, enums, tuples, dataclasses)."""
    import numpy as np
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    return str(obj)


def check_json(evidence: dict[str, Any]) -> None:
    """Raise if evidence does not serialize (used by tests)."""
    json.dumps(to_jsonable(evidence))


__all__ = ["Verdict", "Basis", "Status", "STATUS_ORDER", "RULE_ORDER", "status_label",
           "at_least", "status_problem", "find_fit", "Prediction", "LENGTH_LINE", "line_key", "line_fallbacks",
           "line_prediction", "RuleSkip", "Rule", "rule",
           "Context",
           "to_jsonable", "check_json"]
