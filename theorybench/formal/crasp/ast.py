"""C-RASP abstract syntax: expression and statement nodes and an embedded Python DSL that
builds the same nodes (:mod:`.dsl`); the pretty printer back to the text syntax (round trip)
and the size/depth counter are at the end of this module.

C-RASP (Yang & Chiang, "Counting like transformers", COLM 2024, Def. of C-RASP; Huang et
al., ICLR 2025, Def. 8 for the positional extension) has Boolean expressions
(token tests, !, &&, ||, comparisons of counts) and count expressions (#[phi], +, -,
constants, constant multiples, min, max, conditional). The AST is untyped: one
:class:`Expr` hierarchy; :mod:`.validate` infers and checks the types.

Operator precedence of the text syntax (loosest first; see ``grammar.py``)::

    1  A if C else B        conditional, right-associative (A, C are level 2)
    2  ||                   left-associative
    3  &&                   left-associative
    4  == != < > <= >=      non-associative (a < b < c is a syntax error)
    5  + -                  left-associative
    6  *                    right-associative; one side must be an integer literal
    7  !  #  #[guard]       prefix operators (bind tightest: # "a" == 0 is (# "a") == 0)
    8  atoms: "tok" INT true false NAME (expr) min(a, b) max(a, b)

DSL (for programs written in code)::

    b = Builder()
    ones = b.let("ones", count(tok("1")))
    zeros = b.let("zeros", count(tok("0")))
    b.let("maj", ones > zeros)
    program = b.program()

Python's ``==`` stays structural equality of nodes, so the DSL writes equality tests as
``x.eq(y)`` / ``x.ne(y)``; ``&``, ``|``, ``~`` are &&, ||, !; ``k * x`` with an int k is
a constant multiple; ``where(c, a, b)`` is ``a if c else b``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

Pos = Union[tuple[int, int], None]
CMP_OPS = ("==", "!=", "<", ">", "<=", ">=")
EOS = "<eos>"  #: the token literal that is true exactly at the appended end position


@dataclass(frozen=True)
class Expr:
    """Base of every expression node. ``pos`` (line, column) is not part of equality."""

    # DSL operators ---------------------------------------------------------------
    def __and__(self, other): return And(self, lift(other))
    def __rand__(self, other): return And(lift(other), self)
    def __or__(self, other): return Or(self, lift(other))
    def __ror__(self, other): return Or(lift(other), self)
    def __invert__(self): return Not(self)
    def __add__(self, other): return Add(self, lift(other))
    def __radd__(self, other): return Add(lift(other), self)
    def __sub__(self, other): return Sub(self, lift(other))
    def __rsub__(self, other): return Sub(lift(other), self)

    def __mul__(self, k):
        return scale(k, self)

    __rmul__ = __mul__

    def __lt__(self, other): return Compare("<", self, lift(other))
    def __gt__(self, other): return Compare(">", self, lift(other))
    def __le__(self, other): return Compare("<=", self, lift(other))
    def __ge__(self, other): return Compare(">=", self, lift(other))
    def eq(self, other) -> "Compare": return Compare("==", self, lift(other))
    def ne(self, other) -> "Compare": return Compare("!=", self, lift(other))

    def children(self) -> tuple["Expr", ...]:
        return ()

    def walk(self) -> Iterator["Expr"]:
        """This node and all its descendants, pre-order."""
        yield self
        for c in self.children():
            yield from c.walk()

    def __str__(self) -> str:
        return expr_text(self)


def _pos_field():
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True, eq=True)
class Token(Expr):
    """Q_sigma: true at positions holding token ``symbol`` (written "symbol")."""
    symbol: str
    pos: Pos = _pos_field()


@dataclass(frozen=True, eq=True)
class BoolConst(Expr):
    value: bool
    pos: Pos = _pos_field()


@dataclass(frozen=True, eq=True)
class IntConst(Expr):
    value: int
    pos: Pos = _pos_field()

    def __post_init__(self):
        if not isinstance(self.value, int) or isinstance(self.value, bool) or self.value < 0:
            raise ValueError(f"IntConst needs a non-negative int, got {self.value!r} "
                             f"(write 0 - k for a negative constant)")


@dataclass(frozen=True, eq=True)
class Ref(Expr):
    """A defined name, or an imported unary predicate."""
    name: str
    pos: Pos = _pos_field()


@dataclass(frozen=True, eq=True)
class Not(Expr):
    arg: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.arg,)


@dataclass(frozen=True, eq=True)
class And(Expr):
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Or(Expr):
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def __post_init__(self):
        if self.op not in CMP_OPS:
            raise ValueError(f"unknown comparison {self.op!r}; use one of {CMP_OPS}")

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Count(Expr):
    """#[guard] body: number of j <= i with guard(i, j) and body(j); guard None = all j <= i."""
    body: Expr
    guard: str | None = None
    pos: Pos = _pos_field()

    def children(self): return (self.body,)


@dataclass(frozen=True, eq=True)
class Add(Expr):
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Sub(Expr):
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Scale(Expr):
    """k * arg for a non-negative integer literal k."""
    factor: int
    arg: Expr
    pos: Pos = _pos_field()

    def __post_init__(self):
        if not isinstance(self.factor, int) or isinstance(self.factor, bool) or self.factor < 0:
            raise ValueError(f"Scale needs a non-negative int factor, got {self.factor!r}")

    def children(self): return (self.arg,)


@dataclass(frozen=True, eq=True)
class Min(Expr):
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Max(Expr):
    left: Expr
    right: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.left, self.right)


@dataclass(frozen=True, eq=True)
class Cond(Expr):
    """then if cond else otherwise (C-RASP's conditional count; Booleans allowed too)."""
    then: Expr
    cond: Expr
    otherwise: Expr
    pos: Pos = _pos_field()

    def children(self): return (self.then, self.cond, self.otherwise)


# ---- statements and programs ---------------------------------------------------------

@dataclass(frozen=True, eq=True)
class Assign:
    name: str
    expr: Expr
    pos: Pos = _pos_field()


@dataclass(frozen=True, eq=True)
class Import:
    name: str
    pos: Pos = _pos_field()


@dataclass(frozen=True, eq=True)
class Program:
    """A straight-line program; the last definition is the output.

    ``alphabet`` (optional) is the declared input alphabet (``// alphabet: a b`` in text);
    ``source_name`` names the file in messages. Neither takes part in equality.
    """

    statements: tuple[Assign | Import, ...]
    alphabet: tuple[str, ...] | None = field(default=None, compare=False)
    source_name: str = field(default="<program>", compare=False)

    @property
    def definitions(self) -> list[Assign]:
        return [s for s in self.statements if isinstance(s, Assign)]

    @property
    def imports(self) -> list[str]:
        return [s.name for s in self.statements if isinstance(s, Import)]

    @property
    def output(self) -> str | None:
        defs = self.definitions
        return defs[-1].name if defs else None

    def definition(self, name: str) -> Expr:
        for s in self.statements:
            if isinstance(s, Assign) and s.name == name:
                return s.expr
        raise KeyError(name)

    def tokens(self) -> list[str]:
        """Token literals the program tests, in order of first use (EOS excluded)."""
        seen: dict[str, None] = {}
        for d in self.definitions:
            for node in d.expr.walk():
                if isinstance(node, Token) and node.symbol != EOS:
                    seen.setdefault(node.symbol)
        return list(seen)

    def with_alphabet(self, alphabet) -> "Program":
        return Program(self.statements, tuple(alphabet), self.source_name)

    def replace_definition(self, name: str, expr: Expr) -> "Program":
        stmts = tuple(Assign(s.name, expr, s.pos) if isinstance(s, Assign) and s.name == name
                      else s for s in self.statements)
        return Program(stmts, self.alphabet, self.source_name)

    def __str__(self) -> str:
        return to_text(self)


def lift(x) -> Expr:
    """A Python value as a node: a node as is, bool/int constants, a str as a reference."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool):
        return BoolConst(x)
    if isinstance(x, int):
        return IntConst(x) if x >= 0 else Sub(IntConst(0), IntConst(-x))
    if isinstance(x, str):
        return Ref(x)
    raise TypeError(f"cannot use {x!r} in a C-RASP expression")


def scale(k, x: Expr) -> Expr:
    """k * x for an integer constant k (either order)."""
    if isinstance(k, Expr) and not isinstance(x, Expr):
        k, x = x, k
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError("C-RASP multiplies only by an integer constant: write k * expr")
    return Scale(k, x) if k >= 0 else Sub(IntConst(0), Scale(-k, x))


TRUE, FALSE = BoolConst(True), BoolConst(False)


# ---- the text form: printer (round trip) and size counter ----------------------------
# The printer writes the fewest parentheses that parse back to the same tree under the
# precedence of .grammar (parse(to_text(p)) == p, tested on random programs).

_LEVEL = {Cond: 1, Or: 2, And: 3, Compare: 4, Add: 5, Sub: 5, Scale: 6,
          Not: 7, Count: 7}
_ATOM = 8


def _level(e: Expr) -> int:
    return _LEVEL.get(type(e), _ATOM)


def _wrap(e: Expr, need: int) -> str:
    s = expr_text(e)
    return f"({s})" if _level(e) < need else s


def quote(symbol: str) -> str:
    if '"' in symbol or "\n" in symbol:
        raise ValueError(f"token {symbol!r} cannot be written as a C-RASP literal")
    return f'"{symbol}"'


def expr_text(e: Expr) -> str:
    """Text of an expression with the fewest parentheses that parse back to it."""
    if isinstance(e, Token):
        return quote(e.symbol)
    if isinstance(e, BoolConst):
        return "true" if e.value else "false"
    if isinstance(e, IntConst):
        return str(e.value)
    if isinstance(e, Ref):
        return e.name
    if isinstance(e, Not):
        return "!" + _wrap(e.arg, 7)
    if isinstance(e, Count):
        guard = f"[{e.guard}]" if e.guard else ""
        return f"#{guard} " + _wrap(e.body, 7)
    if isinstance(e, Or):
        return f"{_wrap(e.left, 2)} || {_wrap(e.right, 3)}"
    if isinstance(e, And):
        return f"{_wrap(e.left, 3)} && {_wrap(e.right, 4)}"
    if isinstance(e, Compare):
        return f"{_wrap(e.left, 5)} {e.op} {_wrap(e.right, 5)}"
    if isinstance(e, (Add, Sub)):
        op = "+" if isinstance(e, Add) else "-"
        return f"{_wrap(e.left, 5)} {op} {_wrap(e.right, 6)}"
    if isinstance(e, Scale):
        return f"{e.factor} * {_wrap(e.arg, 6)}"
    if isinstance(e, (Min, Max)):
        fn = "min" if isinstance(e, Min) else "max"
        return f"{fn}({expr_text(e.left)}, {expr_text(e.right)})"
    if isinstance(e, Cond):
        return f"{_wrap(e.then, 2)} if {_wrap(e.cond, 2)} else {_wrap(e.otherwise, 1)}"
    raise TypeError(f"not a C-RASP expression: {e!r}")


def to_text(program: Program) -> str:
    """The program in the text syntax (one statement per line)."""
    lines = []
    if program.alphabet is not None:
        lines.append("// alphabet: " + " ".join(program.alphabet))
    for s in program.statements:
        if isinstance(s, Import):
            lines.append(f"#import {s.name}")
        else:
            lines.append(f"{s.name} = {expr_text(s.expr)}")
    return "\n".join(lines) + "\n"


def size(program: Program) -> dict[str, int]:
    """Resources: AST nodes, count operators (P of the communication bound), definitions,
    and depth = the deepest nesting of counts, following references (Yang & Chiang 2024
    relate count depth to transformer depth)."""
    defs = {d.name: d.expr for d in program.definitions}
    memo: dict[str, int] = {}

    def depth(e: Expr, active: frozenset) -> int:
        if isinstance(e, Ref):
            if e.name not in defs or e.name in active:
                return 0
            if e.name not in memo:
                memo[e.name] = depth(defs[e.name], active | {e.name})
            return memo[e.name]
        inner = max((depth(c, active) for c in e.children()), default=0)
        return inner + 1 if isinstance(e, Count) else inner

    nodes = sum(1 for d in program.definitions for _ in d.expr.walk())
    counts = sum(1 for d in program.definitions for n in d.expr.walk() if isinstance(n, Count))
    out = program.output
    return {"nodes": nodes, "counts": counts, "definitions": len(defs),
            "depth": max((depth(ex, frozenset({n})) for n, ex in defs.items()), default=0),
            "output_depth": depth(defs[out], frozenset({out})) if out else 0}
