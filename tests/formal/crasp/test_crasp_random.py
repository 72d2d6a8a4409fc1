"""Random C-RASP programs (hypothesis): print -> parse round trips, and the vectorized
interpreter against the naive per-position one."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from theorybench.formal.crasp import ast as A
from theorybench.formal.crasp.interpret import Interpreter
from theorybench.formal.crasp.naive import naive_values
from theorybench.formal.crasp.parser import parse
from theorybench.formal.crasp.validate import problems

ALPHABET = ("a", "b", "c")
CMP = st.sampled_from(A.CMP_OPS)


def expr(draw, kind: str, depth: int, env: dict[str, list[str]], guards: list[str]):
    """A random well-typed expression of ``kind`` ("bool" or "count")."""
    leaf = depth <= 0 or draw(st.integers(0, 3)) == 0
    if kind == "bool":
        if leaf:
            choice = draw(st.integers(0, 3))
            if choice == 0 and env["bool"]:
                return A.Ref(draw(st.sampled_from(env["bool"])))
            if choice == 1:
                return A.BoolConst(draw(st.booleans()))
            return A.Token(draw(st.sampled_from(ALPHABET + (A.EOS,))))
        op = draw(st.integers(0, 3))
        if op == 0:
            return A.Not(expr(draw, "bool", depth - 1, env, guards))
        if op == 1:
            return A.And(expr(draw, "bool", depth - 1, env, guards),
                         expr(draw, "bool", depth - 1, env, guards))
        if op == 2:
            return A.Or(expr(draw, "bool", depth - 1, env, guards),
                        expr(draw, "bool", depth - 1, env, guards))
        return A.Compare(draw(CMP), expr(draw, "count", depth - 1, env, guards),
                         expr(draw, "count", depth - 1, env, guards))
    if leaf:
        if env["count"] and draw(st.booleans()):
            return A.Ref(draw(st.sampled_from(env["count"])))
        if draw(st.booleans()):
            return A.IntConst(draw(st.integers(0, 5)))
        return A.Count(A.Token(draw(st.sampled_from(ALPHABET))))
    op = draw(st.integers(0, 6))
    sub = lambda k: expr(draw, k, depth - 1, env, guards)  # noqa: E731
    if op == 0:
        guard = draw(st.sampled_from([None] + guards))
        return A.Count(sub("bool"), guard)
    if op == 1:
        return A.Add(sub("count"), sub("count"))
    if op == 2:
        return A.Sub(sub("count"), sub("count"))
    if op == 3:
        return A.Scale(draw(st.integers(0, 4)), sub("count"))
    if op == 4:
        return A.Min(sub("count"), sub("count"))
    if op == 5:
        return A.Max(sub("count"), sub("count"))
    return A.Cond(sub("count"), sub("bool"), sub("count"))


@st.composite
def programs(draw):
    statements = []
    guards = []
    env = {"bool": [], "count": []}
    if draw(st.booleans()):
        statements.append(A.Import("prev"))
        guards.append("prev")
    if draw(st.booleans()):
        statements.append(A.Import("mod_2_1"))
        env["bool"].append("mod_2_1")
    for i in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["bool", "count"]))
        statements.append(A.Assign(f"d{i}", expr(draw, kind, 3, env, guards)))
        env[kind].append(f"d{i}")
    statements.append(A.Assign("out", expr(draw, "bool", 3, env, guards)))
    return A.Program(tuple(statements))


words = st.lists(st.lists(st.sampled_from(ALPHABET), max_size=7), min_size=1, max_size=6)
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(programs())
def test_generated_programs_are_valid(program):
    assert problems(program) == []


@SETTINGS
@given(programs())
def test_print_parse_round_trip(program):
    text = A.to_text(program)
    again = parse(text)
    assert again == program, text
    assert A.to_text(again) == text


@SETTINGS
@given(programs(), words, st.sampled_from(["eos", "last"]))
def test_vectorized_equals_naive(program, inputs, mode):
    if mode == "last":
        inputs = [w for w in inputs if w] or [["a"]]
    result = Interpreter(program, ALPHABET).run_strings(inputs, accept=mode)
    for b, w in enumerate(inputs):
        slow = naive_values(program, w, accept=mode)
        fast = result.row_values(b)
        for name, values in slow.items():
            got = fast[name]
            assert [int(v) for v in got] == [int(v) for v in values], (A.to_text(program), w, name)
        assert bool(result.accept[b]) == bool(slow["out"][-1])


def test_vectorized_equals_naive_on_long_inputs():
    """One fixed nested program on longer random inputs (seeded)."""
    prog = parse('#import prev\n'
                 'x = # ("a" && # "b" > # "c")\n'
                 'y = #[prev] ("c" || x > 2)\n'
                 'out = 2 * x - # "a" >= y + 1 || min(x, y) == 1\n')
    rng = np.random.default_rng(0)
    inputs = [[ALPHABET[t] for t in rng.integers(0, 3, size=int(rng.integers(0, 40)))]
              for _ in range(30)]
    run = Interpreter(prog, ALPHABET).run_strings(inputs)
    for b, w in enumerate(inputs):
        slow = naive_values(prog, w)
        assert [int(v) for v in run.row_values(b)["out"]] == [int(v) for v in slow["out"]]
