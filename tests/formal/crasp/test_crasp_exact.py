"""C-RASP integers are exact: values past int64 are computed on Python ints, never wrapped;
programs whose bounds fit stay on the int64 path."""

import numpy as np
import pytest

from theorybench.formal import crasp
from theorybench.formal.crasp.interpret import INT64_MAX, int_bound

HEAD = "// alphabet: 0 1\nones = # \"1\"\n"


def run(text, inputs):
    return crasp.run(crasp.parse(HEAD + text), inputs)


def test_huge_factor_does_not_overflow():
    # 10^30 * ones used to raise OverflowError (a C long) before any answer
    r = run("big = 1000000000000000000000000000000 * ones\nout = big > 5\n", ["1 0", "0 0"])
    assert r.accept.tolist() == [True, False]
    assert r.values["big"][0].tolist()[:2] == [10 ** 30, 10 ** 30]


def test_nested_scaling_past_2_63_is_exact():
    # 2^40 * (2^40 * ones) = 2^80 at a position with one "1": int64 wrapped to 0 and the
    # program rejected; exactly, b > 0 holds and b - b == 0
    text = ("a = 1099511627776 * ones\nb = 1099511627776 * a\n"
            "c = b - 1208925819614629174706175\nout = b - b == 0 && b > 0 && c == 1\n")
    r = run(text, ["1 0", "0 0"])
    assert r.accept.tolist() == [True, False]
    assert r.values["b"][0, 0] == 1 << 80
    assert r.accept.tolist() == [crasp.naive_accepts(crasp.parse(HEAD + text), w)
                                 for w in (["1", "0"], ["0", "0"])]


def test_huge_constant_in_a_comparison():
    big = "9" * 90
    r = run(f"out = ones < {big} && {big} > ones + {big[:-1]}\n", ["1 1 0"])
    assert r.accept.tolist() == [True]


def test_min_max_and_conditional_keep_exact_values():
    text = ("x = 100000000000000000000 * ones\n"
            "y = max(x, 3) if ones > 0 else min(x, 2)\nout = y == 200000000000000000000\n")
    r = run(text, ["1 1", "1 0", "0"])
    assert r.accept.tolist() == [True, False, False]


def test_common_programs_stay_int64():
    # the fast path: bounds that fit keep int64 arrays
    prog = crasp.parse(HEAD + "zeros = # \"0\"\nd = 3 * ones - zeros\nout = d > 0\n")
    r = crasp.run(prog, ["1 0 1"])
    assert r.values["d"].dtype == np.int64 and r.values["ones"].dtype == np.int64


def test_bounds_are_computed_from_program_and_length():
    prog = crasp.parse(HEAD + "a = 7 * ones + 5\nb = max(a, 2 * a) - ones\nout = b > 0\n")
    defs = {d.name: d.expr for d in prog.definitions}
    assert int_bound(defs["a"], 10, defs) == 75
    assert int_bound(defs["b"], 10, defs) == 160
    assert int_bound(defs["b"], INT64_MAX, defs) > INT64_MAX


@pytest.mark.parametrize("seed", range(3))
def test_random_big_programs_match_naive(seed):
    rng = np.random.default_rng(seed)
    k1, k2 = (int(v) for v in rng.integers(2 ** 30, 2 ** 40, size=2))
    text = (f"a = {k1} * ones\nb = {k2} * a - {k1} * ({k2} * # \"0\")\n"
            f"out = b > 0\n")
    prog = crasp.parse(HEAD + text)
    words = [" ".join(map(str, rng.integers(0, 2, size=int(rng.integers(0, 12)))))
             for _ in range(40)]
    got = crasp.run(prog, words).accept.tolist()
    assert got == [crasp.naive_accepts(prog, w.split()) for w in words]


def test_periodic_predicate_with_a_huge_period():
    big = 10 ** 30
    prog = crasp.parse(f"#import mod_{big}_2\n// alphabet: 0 1\nout = # mod_{big}_2 == 1\n")
    assert crasp.run(prog, ["1", "1 0", "0 1 1"]).accept.tolist() == [True, True, True]
