"""The framework every theory uses: predictions, rules and the Theory base class.

A theory derives a prediction for a task family by running rules in basis order -
construction, lower bound, reduction, cited theorem (docs/theories.md). Each rule either fires
(returns a :class:`Prediction`) or says why it does not apply (returns a
:class:`RuleSkip`). ``Theory.predict`` returns the first prediction that fires, with the
record of every rule tried; if none fires the verdict is Unknown and says why.
No verdict is ever read from a table.

Every theory also applies the catalogue of checked task-to-task reductions
(:mod:`theorybench.formal.reduction_catalogue`, admitted per theory by
:mod:`.closures`) as its last reduction rule, after its own construction, lower-bound and
reduction rules and before its cited-theorem rules: a Hard cell of the same theory on a
source S with an admitted reduction S -> T makes T Hard (basis reduction), and, only
where the theory's class is closed under the map, an Easy cell on T makes S Easy. The
cell's status is no stronger than the other cell's nor than the reduction's check
(``verified <= N``: the maps are checked up to N, not proved for all n). The other cell
is the theory's *own* prediction there (its rules without the catalogue), so results do
not depend on the order in which cells are computed. Where the theory's own theorem rule
would give the same verdict at least as strongly, that cell is kept (the catalogue's
derivation is recorded in ``tried``): a finite reduction check never weakens a cell.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from ..errors import TheoryError


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

    ``VERIFIED`` is shown as ``verified ≤ N``; N is ``evidence["verified_up_to"]``.
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
        return f"verified ≤ {n}" if n is not None else "verified"
    return "" if st == Status.NONE else st.value


def at_least(status: "Status | str", minimum: "Status | str") -> bool:
    """Whether ``status`` is ``minimum`` or stronger in :data:`STATUS_ORDER`."""
    st, lo = Status(status), Status(minimum)
    if st not in STATUS_ORDER:
        return False
    return STATUS_ORDER.index(st) <= STATUS_ORDER.index(lo)


def status_problem(p: "Prediction") -> str | None:
    """Why a cell's status is not justified by its evidence, or None.

    proven: names its proof object or checked premise (``evidence["proof"]``); verified:
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
        return None if isinstance(ev.get("proof"), str) and ev["proof"] else \
            "proven without evidence['proof'] naming the proof object or checked premise"
    if st == Status.VERIFIED:
        n = ev.get("verified_up_to")
        return None if isinstance(n, int) and not isinstance(n, bool) and n > 0 else \
            "verified without an integer evidence['verified_up_to']"
    if st == Status.EXTRAPOLATED:
        return None if _has_fit(ev) else "extrapolated without a growth fit in its evidence"
    if st == Status.CONDITIONAL:
        return None if ev.get("condition") else "conditional without evidence['condition']"
    if st == Status.CITED:
        return None if ev.get("why_cited") else "cited without evidence['why_cited']"
    return f"unknown status {st}"


def _has_fit(ev: Any, depth: int = 0) -> bool:
    if isinstance(ev, dict):
        if {"kind", "formula"} <= set(ev) and ("candidates" in ev or "rel_rmse" in ev):
            return True
        return depth < 3 and any(_has_fit(v, depth + 1) for k, v in ev.items()
                                 if k != "other_rules")
    return False


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

    @property
    def status_label(self) -> str:
        return status_label(self.status, self.evidence)

    def to_dict(self) -> dict[str, Any]:
        return {"theory": self.theory, "task": self.task, "verdict": self.verdict.value,
                "basis": self.basis.value, "status": self.status.value,
                "status_label": self.status_label, "rule": self.rule,
                "evidence": to_jsonable(self.evidence), "explanation": self.explanation,
                "tried": self.tried}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Prediction":
        return cls(theory=d["theory"], task=d["task"], verdict=Verdict(d["verdict"]),
                   basis=Basis(d["basis"]), status=Status(d["status"]), evidence=d["evidence"],
                   explanation=d["explanation"], rule=d.get("rule", ""), tried=d.get("tried", []))


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


class Theory:
    """Base class. Subclasses set ``name``, ``title``, ``summary``, ``assumptions``,
    ``sources`` and define rule methods decorated with :func:`rule`. A theory with two
    variants registers two classes (Star-free with and without positions)."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""  # two or three sentences for readers of the report
    assumptions: ClassVar[tuple[str, ...]] = ()
    sources: ClassVar[tuple[str, ...]] = ()

    #: Rules inherited from a base class that this variant does not apply: method name ->
    #: the reason, recorded in ``Prediction.tried`` like any rule that does not fire.
    dropped_rules: ClassVar[dict[str, str]] = {}

    #: Which catalogue reductions the theory admits (:class:`.closures.Closure`); None:
    #: the default of :data:`.closures.CLOSURES` for the theory's name.
    reduction_closures: ClassVar[tuple | None] = None

    def rules(self) -> list[Rule]:
        found = []
        for attr in dir(type(self)):
            fn = getattr(type(self), attr)
            meta = getattr(fn, "_rule", None)
            if not meta:
                continue
            if attr in self.dropped_rules:
                fn = _dropped(self.dropped_rules[attr], attr)
            found.append(Rule(meta[0], meta[1], fn, (fn.__doc__ or "").strip()))
        order = {b: i for i, b in enumerate(RULE_ORDER)}
        # stable within a basis: by definition order in the class body
        src_order = {name: i for i, name in enumerate(_definition_order(type(self)))}
        found.sort(key=lambda r: (order[r.basis], src_order.get(r.run.__name__, 0)))
        return found

    def predict(self, family: str, context: Context | None = None) -> Prediction:
        """Run the rules in order on ``family``; the first that fires is the prediction.

        The reduction catalogue runs after the theory's own construction, lower-bound and
        reduction rules and before its theorem rules (module docstring)."""
        ctx = context or Context()
        if ctx.cache is None:
            import dataclasses
            ctx = dataclasses.replace(ctx, cache={})
        own = self.predict_own(family, ctx)
        return self._apply_catalogue(family, own, ctx)

    def predict_own(self, family: str, ctx: Context) -> Prediction:
        """The theory's own rules only (no catalogue), cached in ``ctx.cache``."""
        key = ("own", self.name, family)
        if ctx.cache is not None and key in ctx.cache:
            return ctx.cache[key]
        out = self._run_rules(family, ctx)
        if ctx.cache is not None:
            ctx.cache[key] = out
        return out

    def _apply_catalogue(self, family: str, own: Prediction, ctx: Context) -> Prediction:
        import copy

        from .closures import RULE_NAME, catalogue_rule
        early = (Basis.CONSTRUCTION.value, Basis.LOWER_BOUND.value, Basis.REDUCTION.value)
        if own.verdict != Verdict.UNKNOWN and own.tried and own.tried[-1]["basis"] in early:
            return own          # an own rule before the catalogue's place fired
        pos = next((i for i, t in enumerate(own.tried) if t["basis"] == Basis.THEOREM.value),
                   len(own.tried))

        def own_of(label: str) -> Prediction:
            from ..tasks import registry as treg
            from .runner import _unregister_variants, variant_family
            fresh = ":" in label and label not in treg._FAMILIES
            try:
                return self.predict_own(variant_family(label), ctx)
            finally:
                if fresh:
                    _unregister_variants([label])

        try:
            out = catalogue_rule(self, family, ctx, own_of)
        except Exception as exc:  # recorded like any crashing rule, never hidden
            if isinstance(exc, (KeyboardInterrupt, MemoryError)):
                raise
            out = RuleSkip(f"rule failed: {type(exc).__name__}: {exc}")
        before = own.tried[:pos]
        if (isinstance(out, Prediction) and own.verdict == out.verdict
                and STATUS_ORDER.index(out.status) >= STATUS_ORDER.index(own.status)):
            # the theory's cited theorem gives the same verdict at least as strongly: keep it
            out = RuleSkip(f"also derived {out.verdict.value} ({out.status_label}) by "
                           f"{out.evidence['reduction']['name']}; the theorem rule's cell is "
                           f"as strong ({own.status_label}) and is kept")
        elif isinstance(out, Prediction) and own.verdict != Verdict.UNKNOWN:
            out.evidence["theorem_cell"] = {"verdict": own.verdict.value, "rule": own.rule,
                                            "status": own.status_label,
                                            "conflict": own.verdict != out.verdict}
        if isinstance(out, Prediction):
            out.rule = RULE_NAME
            out.tried = before + [{"rule": RULE_NAME, "basis": Basis.REDUCTION.value,
                                   "outcome": "fired"}]
            names = {t["rule"] for t in before}
            skipped = {k: v for k, v in (own.evidence.get("other_rules") or {}).items()
                       if k in names}
            if skipped:
                out.evidence.setdefault("other_rules", skipped)
            return out
        res = copy.copy(own)
        res.tried = before + [{"rule": RULE_NAME, "basis": Basis.REDUCTION.value,
                               "outcome": out.reason}] + own.tried[pos:]
        if out.evidence:
            res.evidence = dict(own.evidence)
            res.evidence["other_rules"] = {**(own.evidence.get("other_rules") or {}),
                                           RULE_NAME: out.evidence}
        if own.verdict == Verdict.UNKNOWN:
            reasons = "; ".join(f"{t['rule']}: {t['outcome']}" for t in res.tried)
            res.explanation = f"no rule of {self.name} could derive a verdict ({reasons})"
        return res

    def _run_rules(self, family: str, ctx: Context) -> Prediction:
        tried: list[dict[str, str]] = []
        skipped_evidence: dict[str, Any] = {}
        for r in self.rules():
            try:
                out = r.run(self, family, ctx)
            except Exception as exc:  # a rule that crashes is recorded, never hidden
                if isinstance(exc, (KeyboardInterrupt, MemoryError)):
                    raise
                out = RuleSkip(f"rule failed: {type(exc).__name__}: {exc}")
            if isinstance(out, Prediction):
                tried.append({"rule": r.name, "basis": r.basis.value, "outcome": "fired"})
                out.rule = out.rule or r.name
                out.tried = tried
                if skipped_evidence:
                    out.evidence.setdefault("other_rules", skipped_evidence)
                return out
            tried.append({"rule": r.name, "basis": r.basis.value, "outcome": out.reason})
            if out.evidence:
                skipped_evidence[r.name] = out.evidence
        reasons = "; ".join(f"{t['rule']}: {t['outcome']}" for t in tried) or "no rules"
        return Prediction(self.name, family, Verdict.UNKNOWN, Basis.NONE, Status.NONE,
                          evidence={"other_rules": skipped_evidence},
                          explanation=f"no rule of {self.name} could derive a verdict ({reasons})",
                          tried=tried)

    def prediction(self, family: str, verdict: Verdict, basis: Basis, status: Status,
                   evidence: dict[str, Any], explanation: str) -> Prediction:
        """Convenience constructor used by rules."""
        return Prediction(self.name, family, verdict, basis, status, evidence, explanation)


def _dropped(reason: str, attr: str) -> Callable[..., RuleSkip]:
    def run(self, family, ctx):
        return RuleSkip(f"not applied by this variant: {reason}")
    run.__name__ = attr
    run.__doc__ = f"Not applied by this variant: {reason}"
    return run


def _definition_order(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        for name in vars(klass):
            if name not in names:
                names.append(name)
    return names


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


__all__ = ["Verdict", "Basis", "Status", "STATUS_ORDER", "status_label", "at_least",
           "status_problem", "Prediction", "RuleSkip", "Rule", "rule", "Context",
           "Theory", "to_jsonable", "TheoryError"]
