"""Random B-RASP programs for tests (seeded numpy generator; shared by two test files)."""

from __future__ import annotations

import numpy as np

from theorybench.formal.brasp import ast as A

SYMBOLS = ("a", "b", "q2")


def rand_term(rng, binary: bool, depth: int = 0):
    pos = ("i", "j") if binary else ("i",)
    r = rng.integers(0, 5 if depth < 2 else 3)
    if r == 0:
        return A.Int(int(rng.integers(0, 5)))
    if r == 1:
        return A.Var(str(rng.choice(pos + ("n",))))
    if r == 2:
        return A.TokPos(str(rng.choice(pos)))
    if r == 3:
        right = A.Int(int(rng.integers(0, 3))) if rng.random() < .5 else A.Var(str(rng.choice(pos)))
        return A.Arith(str(rng.choice(["+", "-"])), rand_term(rng, binary, depth + 1), right)
    if rng.random() < 0.5:
        return A.Div(A.Var(str(rng.choice(pos + ("n",)))), int(rng.integers(1, 4)))
    return A.Mod(A.Var(str(rng.choice(pos))), int(rng.integers(1, 4)))


def rand_expr(rng, names, binary: bool, positional: bool, depth: int = 0):
    pos = ("i", "j") if binary else ("i",)
    top = 7 if depth < 3 else 3
    r = rng.integers(0, top)
    if r == 0:
        return A.Const(bool(rng.integers(0, 2)))
    if r == 1 or (r == 2 and not names):
        at = str(rng.choice(pos))
        return A.Tok(str(rng.choice(SYMBOLS)), at, binary or bool(rng.integers(0, 2)))
    if r == 2:
        at = str(rng.choice(pos))
        return A.Ref(str(rng.choice(names)), at, binary or bool(rng.integers(0, 2)))
    if r == 3:
        return A.Not(rand_expr(rng, names, binary, positional, depth + 1))
    if r in (4, 5):
        k = int(rng.integers(2, 4))
        args = tuple(rand_expr(rng, names, binary, positional, depth + 1) for _ in range(k))
        return A.And(args) if r == 4 else A.Or(args)
    if positional:
        return A.PosCmp(str(rng.choice(["==", "!=", "<", "<=", ">", ">="])),
                        rand_term(rng, binary), rand_term(rng, binary))
    return A.Const(True)


def rand_program(rng, positional: bool = True, statements: int = 5) -> A.Program:
    stmts, names = [], []
    for k in range(statements):
        name = f"p{k}"
        if rng.random() < 0.5:
            stmts.append(A.Assign(name, rand_expr(rng, names, False, positional)))
        else:
            stmts.append(A.Attend(
                name, str(rng.choice(["leftmost", "rightmost"])), str(rng.choice(["<", ">", ""])),
                rand_expr(rng, names, True, positional), rand_expr(rng, names, True, positional),
                rand_expr(rng, names, False, positional)))
        names.append(name)
    return A.Program(tuple(stmts))


def rand_words(rng, count: int, max_len: int = 7) -> list[list[str]]:
    return [[str(rng.choice(SYMBOLS)) for _ in range(int(rng.integers(0, max_len + 1)))]
            for _ in range(count)]
