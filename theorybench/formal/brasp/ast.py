"""The B-RASP abstract syntax tree, pretty-printing and resource measures.

B-RASP (Yang, Chiang & Angluin, "Masked hard-attention transformers recognize exactly the
star-free languages", NeurIPS 2024, arXiv 2310.13897, section 3) computes Boolean vectors
over positions 1..n.  Our nodes:

* Boolean expressions: :class:`Tok` (the token test Q_a at i or j), :class:`Ref` (a
  defined vector at i or j), :class:`Const`, :class:`Not`, :class:`And`, :class:`Or`, and
  for B-RASP[pos] :class:`PosCmp` (a comparison of position terms).
* Position terms (B-RASP[pos] only): :class:`Var` (i, j, n), :class:`Int`, :class:`Arith`
  (+, -), :class:`Mod` (t % p), :class:`Div` (t / p, rounded down) and :class:`TokPos` (the position a token names, see
  ``interpret``).
* Statements: :class:`Assign` (position-wise) and :class:`Attend` (leftmost/rightmost
  attention with a strict mask j<i, j>i or none, score, value and default).

``at`` is "i" (the query / current position) or "j" (the attended position).  Source
locations (line, column) ride along but are ignored by equality, so that a parsed and a
built program compare equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

Loc = tuple  # (line, column) or ()


@dataclass(frozen=True)
class Tok:
    symbol: str
    at: str = "i"
    explicit: bool = True  # written "a"(i)/"a"(j) rather than bare "a"
    loc: Loc = field(default=(), compare=False)


@dataclass(frozen=True)
class Ref:
    name: str
    at: str = "i"
    explicit: bool = True  # written P(i)/P(j) rather than bare P
    loc: Loc = field(default=(), compare=False)


@dataclass(frozen=True)
class Const:
    value: bool


@dataclass(frozen=True)
class Not:
    arg: "Expr"


@dataclass(frozen=True)
class And:
    args: tuple


@dataclass(frozen=True)
class Or:
    args: tuple


@dataclass(frozen=True)
class Var:
    name: str  # "i", "j" or "n"
    loc: Loc = field(default=(), compare=False)


@dataclass(frozen=True)
class Int:
    value: int


@dataclass(frozen=True)
class Arith:
    op: str  # "+" or "-"
    left: "Term"
    right: "Term"


@dataclass(frozen=True)
class Mod:
    arg: "Term"
    modulus: int


@dataclass(frozen=True)
class Div:
    arg: "Term"
    divisor: int


@dataclass(frozen=True)
class TokPos:
    at: str
    loc: Loc = field(default=(), compare=False)


@dataclass(frozen=True)
class PosCmp:
    op: str  # == != < <= > >=
    left: "Term"
    right: "Term"
    loc: Loc = field(default=(), compare=False)


Expr = Union[Tok, Ref, Const, Not, And, Or, PosCmp]
Term = Union[Var, Int, Arith, Mod, Div, TokPos]


@dataclass(frozen=True)
class Assign:
    name: str
    expr: Expr
    loc: Loc = field(default=(), compare=False)


@dataclass(frozen=True)
class Attend:
    name: str
    direction: str  # "leftmost" or "rightmost"
    mask: str  # "<" (j < i), ">" (j > i) or "" (none)
    score: Expr
    value: Expr
    default: Expr
    loc: Loc = field(default=(), compare=False)


Stmt = Union[Assign, Attend]


@dataclass(frozen=True)
class Program:
    """A straight-line B-RASP program; ``output`` names the accepted vector (default: the
    last statement); ``alphabet`` (optional) is the declared token set."""

    stmts: tuple
    output: str | None = None
    alphabet: tuple | None = None
    output_loc: Loc = field(default=(), compare=False)
    #: multi-valued output: ((label, name), ...) - the label of the first listed vector
    #: true at the last position - and the label when none is (``classes`` then replaces
    #: ``output``)
    classes: tuple | None = None
    otherwise: str | None = None

    @property
    def multi(self) -> bool:
        return self.classes is not None

    @property
    def output_name(self) -> str | None:
        if self.output is not None:
            return self.output
        if self.classes:
            return self.classes[0][1]
        return self.stmts[-1].name if self.stmts else None

    def definitions(self) -> dict[str, Stmt]:
        return {s.name: s for s in self.stmts}


# ---- traversal ------------------------------------------------------------------------

def children(node) -> tuple:
    if isinstance(node, Not):
        return (node.arg,)
    if isinstance(node, (And, Or)):
        return node.args
    if isinstance(node, (PosCmp, Arith)):
        return (node.left, node.right)
    if isinstance(node, (Mod, Div)):
        return (node.arg,)
    return ()


def walk(node) -> Iterator:
    yield node
    for c in children(node):
        yield from walk(c)


def stmt_exprs(stmt: Stmt) -> tuple:
    if isinstance(stmt, Assign):
        return (stmt.expr,)
    return (stmt.score, stmt.value, stmt.default)


def uses_positions(node) -> bool:
    """True if an expression or statement or program uses B-RASP[pos] features."""
    if isinstance(node, Program):
        return any(uses_positions(s) for s in node.stmts)
    if isinstance(node, (Assign, Attend)):
        return any(uses_positions(e) for e in stmt_exprs(node))
    return any(isinstance(x, PosCmp) for x in walk(node))


def tokens_used(program: Program) -> list[str]:
    seen: list[str] = []
    for s in program.stmts:
        for e in stmt_exprs(s):
            for x in walk(e):
                if isinstance(x, Tok) and x.symbol not in seen:
                    seen.append(x.symbol)
    return seen


def depth(program: Program) -> int:
    """Attention depth of the output: nesting of attention operations (0 = position-wise)."""
    d: dict[str, int] = {}
    for s in program.stmts:
        refs = [x.name for e in stmt_exprs(s) for x in walk(e) if isinstance(x, Ref)]
        base = max((d.get(r, 0) for r in refs), default=0)
        d[s.name] = base + (1 if isinstance(s, Attend) else 0)
    outs = [n for _, n in program.classes] if program.classes else [program.output_name]
    return max((d.get(o, 0) for o in outs if o), default=0)


def size(program: Program) -> dict[str, int]:
    """Number of operations, of attention operations and of expression nodes."""
    nodes = sum(1 for s in program.stmts for e in stmt_exprs(s) for _ in walk(e))
    return {"operations": len(program.stmts),
            "attention": sum(isinstance(s, Attend) for s in program.stmts),
            "nodes": nodes}


# ---- printing -------------------------------------------------------------------------

_PREC = {Or: 1, And: 2, Not: 3}


def _quote(sym: str) -> str:
    return '"' + sym.replace("\\", "\\\\").replace('"', '\\"') + '"'


def term_text(t: Term) -> str:
    if isinstance(t, Var):
        return t.name
    if isinstance(t, Int):
        return str(t.value)
    if isinstance(t, TokPos):
        return f"tokpos({t.at})"
    if isinstance(t, (Mod, Div)):
        if isinstance(t.arg, (Arith, Mod, Div)):
            raise ValueError("% and / apply to i, j, n, a constant or tokpos() only (the text "
                             "syntax has no parentheses in position terms)")
        return (f"{term_text(t.arg)} % {t.modulus}" if isinstance(t, Mod)
                else f"{term_text(t.arg)} / {t.divisor}")
    if isinstance(t, Arith):
        right = term_text(t.right)
        if isinstance(t.right, Arith):
            right = f"({right})"
        return f"{term_text(t.left)} {t.op} {right}"
    raise TypeError(f"not a position term: {t!r}")


def expr_text(e: Expr, context: int = 0) -> str:
    """Text of an expression; parentheses only where precedence or nesting needs them."""
    if isinstance(e, Tok):
        return _quote(e.symbol) + (f"({e.at})" if e.explicit or e.at != "i" else "")
    if isinstance(e, Ref):
        return e.name + (f"({e.at})" if e.explicit or e.at != "i" else "")
    if isinstance(e, Const):
        return "true" if e.value else "false"
    if isinstance(e, PosCmp):
        return f"{term_text(e.left)} {e.op} {term_text(e.right)}"
    if isinstance(e, Not):
        return "!" + expr_text(e.arg, 3)
    if isinstance(e, (And, Or)):
        prec = _PREC[type(e)]
        sep = " && " if isinstance(e, And) else " || "
        # a nested node of the same kind keeps its own parentheses (exact round trip)
        text = sep.join(expr_text(a, prec + 1 if type(a) is type(e) else prec) for a in e.args)
        return f"({text})" if prec < context else text
    raise TypeError(f"not an expression: {e!r}")


def stmt_text(s: Stmt) -> str:
    if isinstance(s, Assign):
        return f"{s.name} = {expr_text(s.expr)}"
    mask = {"<": " < i", ">": " > i", "": ""}[s.mask]
    return (f"{s.name} = {s.direction} j{mask} [{expr_text(s.score)}] "
            f"{expr_text(s.value)} : {expr_text(s.default)}")


def to_text(program: Program) -> str:
    """The program in the ``.br`` text syntax (parses back to an equal program)."""
    lines = []
    if program.alphabet is not None:
        lines.append("alphabet " + " ".join(_quote(a) for a in program.alphabet))
    lines.extend(stmt_text(s) for s in program.stmts)
    if program.classes is not None:
        pairs = ", ".join(f"{_quote(lab)}: {name}" for lab, name in program.classes)
        lines.append(f"output {pairs}, else {_quote(program.otherwise)}")
    elif program.output is not None:
        lines.append(f"output {program.output}")
    return "\n".join(lines) + "\n"
