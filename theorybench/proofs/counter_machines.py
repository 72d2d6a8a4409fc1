"""C-RASP programs and task specifications as counter machines, for proofs over every length.

A C-RASP program without positional imports or guarded counts is a counter machine
(Yang & Chiang, COLM 2024, Sec. 3: every count ``#phi`` at position i is the count at
i - 1 plus [phi(i)], and every other expression is a function of the current token and
the counts at i). Its state is the vector of its counts; one step reads a token. A task
whose language is recognised by a small counter machine (Majority, Dyck-1, bounded Dyck,
All, Any) has a *specification machine* of the same kind, written here and checked
against the task's reference function.

Both kinds of machine are written once over an ``ops`` namespace, so the same definition
runs concretely (numpy, on a batch of words) and symbolically (z3, for the induction of
:mod:`.induction`): the concrete run is how the translation is checked against the
interpreter and the specification against the task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import z3

from .. import tasks
from ..errors import TheorybenchError
from ..registry import artifact_library
from ..formal.crasp import ast as A


class NotACounterMachine(TheorybenchError):
    """The program uses a feature whose value is not a function of counts and the token."""


# ---- the two arithmetics ---------------------------------------------------------------

class NumpyOps:
    """Concrete, batched: Booleans and integers are numpy arrays of one shape."""

    ite = staticmethod(np.where)
    and_ = staticmethod(np.logical_and)
    or_ = staticmethod(np.logical_or)
    not_ = staticmethod(np.logical_not)
    min_ = staticmethod(np.minimum)
    max_ = staticmethod(np.maximum)

    def __init__(self, shape):
        self.shape = shape

    def int_(self, v: int):
        return np.full(self.shape, v, dtype=object if abs(v) > (1 << 62) else np.int64)

    def bool_(self, v: bool):
        return np.full(self.shape, bool(v))

    @staticmethod
    def as_int(b):
        return np.asarray(b).astype(np.int64)


class Z3Ops:
    """Symbolic: z3 integer and Boolean terms."""

    ite = staticmethod(z3.If)

    @staticmethod
    def and_(a, b):
        return z3.And(a, b)

    @staticmethod
    def or_(a, b):
        return z3.Or(a, b)

    not_ = staticmethod(z3.Not)

    @staticmethod
    def min_(a, b):
        return z3.If(a <= b, a, b)

    @staticmethod
    def max_(a, b):
        return z3.If(a >= b, a, b)

    @staticmethod
    def int_(v: int):
        return z3.IntVal(v)

    @staticmethod
    def bool_(v: bool):
        return z3.BoolVal(bool(v))

    @staticmethod
    def as_int(b):
        return z3.If(b, z3.IntVal(1), z3.IntVal(0))


_CMP: dict[str, Callable[[Any, Any], Any]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


# ---- programs ----------------------------------------------------------------------------

@dataclass
class ProgramMachine:
    """The counter machine of a C-RASP program: one state variable per distinct count."""

    program: A.Program
    counts: list[A.Count]               # the state, in order of first appearance
    names: list[str]                    # a readable name of each count
    defs: dict[str, A.Expr] = field(repr=False, default_factory=dict)

    @classmethod
    def of(cls, program: A.Program) -> "ProgramMachine":
        defs: dict[str, A.Expr] = {}
        counts: dict[A.Count, str] = {}
        named = {s.expr: s.name for s in program.definitions if isinstance(s.expr, A.Count)}
        for stmt in program.statements:
            if isinstance(stmt, A.Import):
                raise NotACounterMachine(
                    f"{_where(stmt)}: #import {stmt.name} is a positional predicate; its "
                    f"value is not a function of the counts, so the program is not a counter "
                    f"machine and cannot be proved by induction here")
            defs[stmt.name] = stmt.expr
            for node in stmt.expr.walk():
                if isinstance(node, A.Count):
                    if node.guard is not None:
                        raise NotACounterMachine(
                            f"{_where(node)}: the guarded count #[{node.guard}] compares "
                            f"positions i and j; it is not a counter machine's update")
                    counts.setdefault(node, named.get(node) or str(node))
        if program.output is None:
            raise NotACounterMachine("the program has no definitions")
        return cls(program, list(counts), list(counts.values()), defs)

    def init(self, ops) -> list:
        return [ops.int_(0) for _ in self.counts]

    def step(self, ops, state: list, tok_is: Callable[[str], Any], eos) -> tuple[list, Any]:
        """(counts after one more position, the output's value there).

        ``tok_is(symbol)`` is the test "the token here is symbol" (false at the end
        marker); ``eos`` is true at the end marker."""
        prev = dict(zip(self.counts, state))
        memo: dict[Any, Any] = {}

        def ev(e: A.Expr):
            key = id(e)
            if key in memo:
                return memo[key][1]
            out = _eval(e)
            memo[key] = (e, out)  # keep e alive so that its id is not reused
            return out

        def _eval(e: A.Expr):
            if isinstance(e, A.Token):
                return eos if e.symbol == A.EOS else ops.and_(tok_is(e.symbol), ops.not_(eos))
            if isinstance(e, A.BoolConst):
                return ops.bool_(e.value)
            if isinstance(e, A.IntConst):
                return ops.int_(e.value)
            if isinstance(e, A.Ref):
                return ev(self.defs[e.name])
            if isinstance(e, A.Not):
                return ops.not_(ev(e.arg))
            if isinstance(e, A.And):
                return ops.and_(ev(e.left), ev(e.right))
            if isinstance(e, A.Or):
                return ops.or_(ev(e.left), ev(e.right))
            if isinstance(e, A.Compare):
                return _CMP[e.op](ev(e.left), ev(e.right))
            if isinstance(e, A.Count):
                return prev[e] + ops.as_int(ev(e.body))
            if isinstance(e, A.Add):
                return ev(e.left) + ev(e.right)
            if isinstance(e, A.Sub):
                return ev(e.left) - ev(e.right)
            if isinstance(e, A.Scale):
                return ops.int_(e.factor) * ev(e.arg)
            if isinstance(e, A.Min):
                return ops.min_(ev(e.left), ev(e.right))
            if isinstance(e, A.Max):
                return ops.max_(ev(e.left), ev(e.right))
            if isinstance(e, A.Cond):
                return ops.ite(ev(e.cond), ev(e.then), ev(e.otherwise))
            raise NotACounterMachine(f"{_where(e)}: {type(e).__name__} is not supported")

        new = [ev(c) for c in self.counts]
        return new, ev(self.defs[self.program.output])

    def accepts(self, words: np.ndarray, alphabet: tuple[str, ...]) -> np.ndarray:
        """Acceptance at the end marker of every row of ``words`` (indices into alphabet)."""
        words = np.asarray(words)
        ops = NumpyOps(words.shape[:1])
        state = self.init(ops)
        for col in range(words.shape[1]):
            tok = words[:, col]
            state, _ = self.step(ops, state, tok_is(alphabet, tok), ops.bool_(False))
        _, out = self.step(ops, state, lambda s: ops.bool_(False), ops.bool_(True))
        return np.asarray(out, dtype=bool)


def tok_is(alphabet, tok):
    """The batched test "the token here is symbol" for a column of alphabet indices."""
    index = {s: i for i, s in enumerate(alphabet)}
    return lambda s: (tok == index[s]) if s in index else np.zeros(tok.shape, dtype=bool)


def _where(node) -> str:
    pos = getattr(node, "pos", None)
    return f"line {pos[0]}, column {pos[1]}" if pos else "the program"


# ---- specifications ------------------------------------------------------------------------

@dataclass(frozen=True)
class SpecMachine:
    """A task's language as a counter machine: integer and Boolean registers, an initial
    value, an update per token and an acceptance test; ``valid_length`` restricts the
    lengths the task is defined at (Majority: odd n)."""

    family: str
    alphabet: tuple[str, ...]
    registers: tuple[tuple[str, str], ...]          # (name, "int" | "bool")
    init: Callable[[Any], dict]
    step: Callable[[Any, dict, Callable[[str], Any]], dict]
    accept: Callable[[Any, dict], Any]
    valid_length: Callable[[Any, Any], Any]
    description: str

    def accepts(self, words: np.ndarray) -> np.ndarray:
        words = np.asarray(words)
        ops = NumpyOps(words.shape[:1])
        state = self.init(ops)
        for col in range(words.shape[1]):
            state = self.step(ops, state, tok_is(self.alphabet, words[:, col]))
        return np.asarray(self.accept(ops, state), dtype=bool)


def _bits(family, description, init, step, accept, registers, valid=None):
    return SpecMachine(family, ("0", "1"), registers, init, step, accept,
                       valid or (lambda ops, p: p >= 1), description)


def _dyck(D: int | None) -> SpecMachine:
    def step(ops, s, t):
        depth = s["depth"] + ops.as_int(t("(")) - ops.as_int(t(")"))
        broken = depth < 0 if D is None else ops.or_(depth < 0, depth > D)
        return {"depth": depth, "bad": ops.or_(s["bad"], broken)}

    what = "below depth 0" + ("" if D is None else f" or above depth {D}")
    return SpecMachine(
        "dyck" if D is None else "dyck_bounded", ("(", ")"),
        (("depth", "int"), ("bad", "bool")),
        lambda ops: {"depth": ops.int_(0), "bad": ops.bool_(False)}, step,
        lambda ops, s: ops.and_(ops.not_(s["bad"]), s["depth"] == 0),
        lambda ops, p: ops.and_(p >= 2, p % 2 == 0),
        f"depth = #( - #) after each prefix; bad once a prefix goes {what}; accept iff "
        f"not bad and depth = 0 at the end")


#: Specification machines per task family (the registry idiom of
#: :mod:`theorybench.registry`): each is ``make(params) -> SpecMachine | None`` (None when
#: the task's parameters are outside what it specifies).
INDUCTION_SPECS = artifact_library("induction spec", column="induction spec")


@INDUCTION_SPECS.provides("majority")
def _majority_spec(params: dict[str, Any]) -> SpecMachine:
    return _bits("majority", "d = #1 - #0; accept iff d > 0",
                 lambda ops: {"d": ops.int_(0)},
                 lambda ops, s, t: {"d": s["d"] + ops.as_int(t("1")) - ops.as_int(t("0"))},
                 lambda ops, s: s["d"] > 0, (("d", "int"),),
                 lambda ops, p: p % 2 == 1)


@INDUCTION_SPECS.provides("all")
def _all_spec(params: dict[str, Any]) -> SpecMachine:
    return _bits("all", "seen0 once a 0 is read; accept iff not seen0",
                 lambda ops: {"seen0": ops.bool_(False)},
                 lambda ops, s, t: {"seen0": ops.or_(s["seen0"], t("0"))},
                 lambda ops, s: ops.not_(s["seen0"]), (("seen0", "bool"),))


@INDUCTION_SPECS.provides("any")
def _any_spec(params: dict[str, Any]) -> SpecMachine:
    return _bits("any", "seen1 once a 1 is read; accept iff seen1",
                 lambda ops: {"seen1": ops.bool_(False)},
                 lambda ops, s, t: {"seen1": ops.or_(s["seen1"], t("1"))},
                 lambda ops, s: s["seen1"], (("seen1", "bool"),))


@INDUCTION_SPECS.provides("parity")
def _parity_spec(params: dict[str, Any]) -> SpecMachine:
    return _bits("parity", "odd flips at each 1; accept iff odd",
                 lambda ops: {"odd": ops.bool_(False)},
                 lambda ops, s, t: {"odd": ops.ite(t("1"), ops.not_(s["odd"]), s["odd"])},
                 lambda ops, s: s["odd"], (("odd", "bool"),))


@INDUCTION_SPECS.provides("dyck")
def _dyck_spec(params: dict[str, Any]) -> SpecMachine | None:
    return _dyck(None) if int(params.get("k", 2)) == 1 else None


@INDUCTION_SPECS.provides("dyck_bounded")
def _dyck_bounded_spec(params: dict[str, Any]) -> SpecMachine | None:
    return _dyck(int(params.get("D", 2))) if int(params.get("k", 1)) == 1 else None


def spec_for(family: str, params: dict[str, Any] | None = None) -> SpecMachine | None:
    """The specification machine of a task instance's language, or None if there is none.

    The machine's parameters come from the task (bounded Dyck's D); n does not enter, so
    one machine is the language at every length. A registered family is looked up by its
    class, so a family that inherits another's definition (a built-in renamed as a
    subclass) is offered that family's machine too; the prover checks the machine against
    the task's reference before it is used."""
    try:
        target: Any = tasks.family(family) if family in tasks.families() else family
    except Exception:
        target = family
    for _origin, make in INDUCTION_SPECS.for_task(target):
        machine = make(dict(params or {}))
        if machine is not None:
            return machine
    return None


SPEC_FAMILIES = ("all", "any", "majority", "parity", "dyck (k=1)", "dyck_bounded (k=1)")
