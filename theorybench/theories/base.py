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
not depend on the order in which cells are computed; the other ends are taken from
``Context.universe``, the tasks the runner hands over (no theory reaches into the runner
or the task registry). A task is a :class:`~theorybench.tasks.TaskRef` (``khop:k=2``):
rules see that value, and ``tasks.get(ref, n=...)`` builds its instances. Where the theory's own theorem rule
would give the same verdict at least as strongly, that cell is kept (the catalogue's
derivation is recorded in ``tried``): a finite reduction check never weakens a cell.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Callable, ClassVar

from ..errors import TaskFileError, TheoryError
from ..tasks import TaskRef
from .closures import RULE_NAME, catalogue_rule
from .prediction import (LENGTH_LINE, RULE_ORDER, STATUS_ORDER, Basis, Context, Prediction,
                         Rule, RuleSkip, Status, Verdict, at_least, check_json, line_key,
                         line_prediction, rule, status_label, status_problem, to_jsonable)


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

    def predict(self, family: "TaskRef | str", context: Context | None = None) -> Prediction:
        """Run the rules in order on the task ``family`` (a :class:`TaskRef` or its
        spelling, ``khop:k=2``); the first that fires is the prediction.

        The reduction catalogue runs after the theory's own construction, lower-bound and
        reduction rules and before its theorem rules (module docstring)."""
        ref = TaskRef.of(family)
        ctx = context or Context()
        if ctx.cache is None:
            ctx = dataclasses.replace(ctx, cache={})
        own = self.predict_own(ref, ctx)
        return self._apply_catalogue(ref, own, ctx)

    def predict_own(self, family: "TaskRef | str", ctx: Context) -> Prediction:
        """The theory's own rules only (no catalogue), cached in ``ctx.cache``."""
        family = TaskRef.of(family)
        key = ("own", self.name, family)
        if ctx.cache is not None and key in ctx.cache:
            return ctx.cache[key]
        out = self._run_rules(family, ctx)
        if ctx.cache is not None:
            ctx.cache[key] = out
        return out

    def _apply_catalogue(self, family: TaskRef, own: Prediction, ctx: Context) -> Prediction:
        early = (Basis.CONSTRUCTION.value, Basis.LOWER_BOUND.value, Basis.REDUCTION.value)
        if own.verdict != Verdict.UNKNOWN and own.tried and own.tried[-1]["basis"] in early:
            return own          # an own rule before the catalogue's place fired
        pos = next((i for i, t in enumerate(own.tried) if t["basis"] == Basis.THEOREM.value),
                   len(own.tried))

        def own_of(task: "TaskRef | str") -> Prediction:
            # another cell of this theory, its own rules only: a value, nothing registered
            return self.predict_own(TaskRef.of(task), ctx)

        try:
            out = catalogue_rule(self, family, ctx, own_of)
        except Exception as exc:  # recorded like any crashing rule, never hidden
            if isinstance(exc, (KeyboardInterrupt, MemoryError, TaskFileError)):
                raise  # TaskFileError: the task file is broken, not the rule
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
                if isinstance(exc, (KeyboardInterrupt, MemoryError, TaskFileError)):
                    raise  # TaskFileError: the task file is broken, not the rule
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


__all__ = ["Verdict", "Basis", "Status", "STATUS_ORDER", "RULE_ORDER", "status_label",
           "at_least", "status_problem", "Prediction", "RuleSkip", "Rule", "rule", "Context",
           "LENGTH_LINE", "line_key", "line_prediction", "Theory", "to_jsonable", "check_json", "TheoryError"]
