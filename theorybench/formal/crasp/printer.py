"""Pretty printer of C-RASP ASTs back to the text syntax, and the size/depth counter.

The printer writes the fewest parentheses that parse back to the same tree under the
precedence of :mod:`.grammar` (``parse(to_text(p)) == p``, tested on random programs).
"""

from __future__ import annotations

from .ast import (Add, And, BoolConst, Cond, Compare, Count, Expr, Import, IntConst, Max, Min,
                  Not, Or, Program, Ref, Scale, Sub, Token)

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
