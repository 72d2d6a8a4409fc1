"""An embedded Python DSL that builds the same AST as the ``.br`` parser.

    from theorybench.formal.brasp import dsl as B
    p = B.Builder(alphabet=("0", "1"))
    p.let("seen0", B.leftmost(score=B.tok("0", "j"), value=B.TRUE, default=B.FALSE, mask="<"))
    p.let("out", ~B.ref("seen0") & B.tok("1"))
    program = p.build()                      # validated; B.to_text(program) prints it

Expressions combine with ``&``, ``|`` and ``~``; position terms ``I``, ``J``, ``N`` (and
``B.const(3)``, ``B.tokpos("i")``) support ``+``, ``-``, ``%``, ``//`` (the text ``/``) and the comparison methods
``.eq .ne .lt .le .gt .ge`` (Python's ``==`` is left alone so nodes stay comparable).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ProgramError
from . import ast as A
from .ast import to_text  # noqa: F401  (re-exported for convenience)
from .validate import problems


@dataclass(frozen=True)
class E:
    """A wrapped expression supporting &, |, ~."""

    node: object

    def __and__(self, other):
        return E(A.And((self.node, _node(other))))

    def __or__(self, other):
        return E(A.Or((self.node, _node(other))))

    def __invert__(self):
        return E(A.Not(self.node))


@dataclass(frozen=True)
class T:
    """A wrapped position term."""

    node: object

    def __add__(self, other):
        return T(A.Arith("+", self.node, _term(other)))

    def __sub__(self, other):
        return T(A.Arith("-", self.node, _term(other)))

    def __floordiv__(self, p: int):
        if isinstance(self.node, (A.Arith, A.Mod, A.Div)):
            raise ValueError("/ applies to i, j, n, a constant or tokpos(); the text syntax "
                             "has no parentheses in position terms")
        return T(A.Div(self.node, int(p)))

    def __mod__(self, p: int):
        if isinstance(self.node, (A.Arith, A.Mod, A.Div)):
            raise ValueError("% applies to i, j, n, a constant or tokpos(); the text syntax "
                             "has no parentheses in position terms")
        return T(A.Mod(self.node, int(p)))

    def _cmp(self, op, other):
        return E(A.PosCmp(op, self.node, _term(other)))

    def eq(self, o): return self._cmp("==", o)  # noqa: E704
    def ne(self, o): return self._cmp("!=", o)  # noqa: E704
    def lt(self, o): return self._cmp("<", o)  # noqa: E704
    def le(self, o): return self._cmp("<=", o)  # noqa: E704
    def gt(self, o): return self._cmp(">", o)  # noqa: E704
    def ge(self, o): return self._cmp(">=", o)  # noqa: E704


def _node(x):
    if isinstance(x, E):
        return x.node
    if isinstance(x, bool):
        return A.Const(x)
    return x


def _term(x):
    if isinstance(x, T):
        return x.node
    if isinstance(x, int):
        return A.Int(x)
    return x


I, J, N = T(A.Var("i")), T(A.Var("j")), T(A.Var("n"))
TRUE, FALSE = E(A.Const(True)), E(A.Const(False))


def const(value: int) -> T:
    return T(A.Int(int(value)))


def tokpos(at: str = "i") -> T:
    return T(A.TokPos(at))


def tok(symbol: str, at: str | None = None) -> E:
    """Token test; ``at`` "i" or "j" (omit it in position-wise definitions)."""
    return E(A.Tok(symbol, at or "i", at is not None))


def ref(name: str, at: str | None = None) -> E:
    """A defined vector; ``at`` "i" or "j" (omit it in position-wise definitions)."""
    return E(A.Ref(name, at or "i", at is not None))


def all_of(*xs) -> E:
    return E(A.And(tuple(_node(x) for x in xs)))


def any_of(*xs) -> E:
    return E(A.Or(tuple(_node(x) for x in xs)))


@dataclass(frozen=True)
class Attention:
    direction: str
    mask: str
    score: object
    value: object
    default: object


def leftmost(score, value, default, mask: str = "<") -> Attention:
    return Attention("leftmost", mask, _node(score), _node(value), _node(default))


def rightmost(score, value, default, mask: str = "<") -> Attention:
    return Attention("rightmost", mask, _node(score), _node(value), _node(default))


class Builder:
    """Collects statements; ``build()`` returns a validated :class:`ast.Program`."""

    def __init__(self, alphabet=None):
        self.alphabet = tuple(alphabet) if alphabet is not None else None
        self.stmts: list = []
        self.out: str | None = None

    def let(self, name: str, what) -> "Builder":
        if isinstance(what, Attention):
            self.stmts.append(A.Attend(name, what.direction, what.mask, what.score, what.value,
                                       what.default))
        else:
            self.stmts.append(A.Assign(name, _node(what)))
        return self

    def output(self, name: str) -> "Builder":
        self.out = name
        return self

    def build(self, positional: bool = True) -> A.Program:
        prog = A.Program(tuple(self.stmts), self.out, self.alphabet)
        found = problems(prog, positional=positional)
        if found:
            raise ProgramError(found, "<dsl program>")
        return prog
