"""A deliberately naive C-RASP interpreter: one input, one position at a time, by the
definition (a count at i loops over every j <= i and re-evaluates its body there).

It shares nothing with :mod:`.interpret` except the AST and the predicate table, so tests
can compare the two; the benchmark measures how much the vectorized one gains.
"""

from __future__ import annotations

from typing import Sequence

from . import ast as A
from .predicates import lookup
from .validate import check


def naive_values(program: A.Program, tokens: Sequence[str], accept: str = "eos"):
    """Values of every definition at positions 1..T of one input (lists, by name)."""
    check(program)
    word = list(tokens) + ([A.EOS] if accept == "eos" else [])
    defs = {d.name: d.expr for d in program.definitions}
    preds = {name: lookup(name) for name in program.imports}
    cache: dict[tuple[str, int], object] = {}

    def value(e: A.Expr, i: int):  # i is 1-based
        if isinstance(e, A.Token):
            return word[i - 1] == e.symbol
        if isinstance(e, A.BoolConst):
            return e.value
        if isinstance(e, A.IntConst):
            return e.value
        if isinstance(e, A.Ref):
            if e.name in defs:
                key = (e.name, i)
                if key not in cache:
                    cache[key] = value(defs[e.name], i)
                return cache[key]
            return bool(preds[e.name]([i])[0])
        if isinstance(e, A.Not):
            return not value(e.arg, i)
        if isinstance(e, A.And):
            return value(e.left, i) and value(e.right, i)
        if isinstance(e, A.Or):
            return value(e.left, i) or value(e.right, i)
        if isinstance(e, A.Compare):
            a, b = value(e.left, i), value(e.right, i)
            if e.op == "==":
                return a == b
            if e.op == "!=":
                return a != b
            if e.op == "<":
                return a < b
            if e.op == ">":
                return a > b
            if e.op == "<=":
                return a <= b
            return a >= b
        if isinstance(e, A.Count):
            total = 0
            for j in range(1, i + 1):
                if e.guard is not None and not preds[e.guard].holds(i, j):
                    continue
                if value(e.body, j):
                    total += 1
            return total
        if isinstance(e, A.Add):
            return value(e.left, i) + value(e.right, i)
        if isinstance(e, A.Sub):
            return value(e.left, i) - value(e.right, i)
        if isinstance(e, A.Scale):
            return e.factor * value(e.arg, i)
        if isinstance(e, A.Min):
            return min(value(e.left, i), value(e.right, i))
        if isinstance(e, A.Max):
            return max(value(e.left, i), value(e.right, i))
        if isinstance(e, A.Cond):
            return value(e.then, i) if value(e.cond, i) else value(e.otherwise, i)
        raise TypeError(f"not an expression: {e!r}")

    return {name: [value(expr, i) for i in range(1, len(word) + 1)]
            for name, expr in defs.items()}


def naive_accepts(program: A.Program, tokens: Sequence[str], accept: str = "eos") -> bool:
    """Accept iff the output is true at the EOS position (or the last, for "last")."""
    if accept == "last" and not tokens:
        raise ValueError("an empty input has no last position")
    vals = naive_values(program, tokens, accept)[program.output]
    return bool(vals[-1])
