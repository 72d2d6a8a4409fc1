"""A deliberately naive B-RASP interpreter: one row, one position, one j at a time.

It shares nothing with :mod:`.interpret` but the AST, and exists so that tests can compare
the vectorized interpreter against a direct transcription of the definition.
"""

from __future__ import annotations

from . import ast as A
from .interpret import token_position


def _term(t, row, i, j, n):
    if isinstance(t, A.Int):
        return t.value
    if isinstance(t, A.Var):
        return {"i": i, "j": j, "n": n}[t.name]
    if isinstance(t, A.TokPos):
        return token_position(row[(i if t.at == "i" else j) - 1])
    if isinstance(t, A.Arith):
        a, b = _term(t.left, row, i, j, n), _term(t.right, row, i, j, n)
        return a + b if t.op == "+" else a - b
    if isinstance(t, A.Mod):
        return _term(t.arg, row, i, j, n) % t.modulus
    if isinstance(t, A.Div):
        return _term(t.arg, row, i, j, n) // t.divisor
    raise TypeError(t)


def _expr(e, row, vals, i, j, n) -> bool:
    if isinstance(e, A.Const):
        return e.value
    if isinstance(e, A.Tok):
        return row[(i if e.at == "i" else j) - 1] == e.symbol
    if isinstance(e, A.Ref):
        return vals[e.name][(i if e.at == "i" else j) - 1]
    if isinstance(e, A.Not):
        return not _expr(e.arg, row, vals, i, j, n)
    if isinstance(e, A.And):
        return all(_expr(a, row, vals, i, j, n) for a in e.args)
    if isinstance(e, A.Or):
        return any(_expr(a, row, vals, i, j, n) for a in e.args)
    if isinstance(e, A.PosCmp):
        a, b = _term(e.left, row, i, j, n), _term(e.right, row, i, j, n)
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                ">=": a >= b}[e.op]
    raise TypeError(e)


def run_row(program: A.Program, row: list[str]) -> dict[str, list[bool]]:
    n = len(row)
    vals: dict[str, list[bool]] = {}
    for s in program.stmts:
        out = []
        for i in range(1, n + 1):
            if isinstance(s, A.Assign):
                out.append(_expr(s.expr, row, vals, i, None, n))
                continue
            if s.mask == "<":
                cands = range(1, i)
            elif s.mask == ">":
                cands = range(i + 1, n + 1)
            else:
                cands = range(1, n + 1)
            chosen = None
            for j in cands:
                if _expr(s.score, row, vals, i, j, n):
                    if s.direction == "rightmost" or chosen is None:
                        chosen = j
            if chosen is None:
                out.append(_expr(s.default, row, vals, i, None, n))
            else:
                out.append(_expr(s.value, row, vals, i, chosen, n))
        vals[s.name] = out
    return vals


def accept_row(program: A.Program, row: list[str]) -> bool:
    if not row:
        return False
    return bool(run_row(program, row)[program.output_name][-1])
