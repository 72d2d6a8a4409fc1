"""Closed forms of average sensitivity (formal/sensitivity_closed.py): each formula against
exact computation, the exhaustive identity check that matches a task to a form by its
function, a planted wrong formula rejected, the limits by sympy, the binary encoding."""

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal import sensitivity_closed as sc
from theorybench.formal.sensitivity import average_sensitivity
from theorybench.tasks.base import DecisionFunction


def bits_df(m, fn, name="toy"):
    """A decision function on {0,1}^m from a row-wise numpy rule, for the formulas."""
    task = tasks.get("parity", n=max(m, 1))
    return DecisionFunction(task, name, ((0, 1),) * m, lambda x: fn(np.asarray(x)),
                            lambda rng, count: rng.integers(0, 2, (count, m)))


SYMMETRIC_CASES = [
    (sc.PARITY, lambda x: x.sum(1) % 2),
    (sc.AND_OR, lambda x: x.all(1)),
    (sc.AND_OR, lambda x: x.any(1)),                      # OR: the same form
    (sc.MAJORITY, lambda x: 2 * x.sum(1) > x.shape[1]),
    (sc.MAJORITY, lambda x: 2 * x.sum(1) >= x.shape[1]),  # the other tie rule
    (sc.mod_form(3, 0), lambda x: x.sum(1) % 3 == 0),
    (sc.mod_form(5, 2), lambda x: x.sum(1) % 5 == 2),
]


@pytest.mark.parametrize("case", range(len(SYMMETRIC_CASES)))
@pytest.mark.parametrize("m", [1, 2, 5, 8, 11])
def test_each_formula_equals_the_exact_average_sensitivity(case, m):
    form, fn = SYMMETRIC_CASES[case]
    exact = average_sensitivity(bits_df(m, fn), method="exact").value
    assert float(form.at(m)) == pytest.approx(exact, rel=1e-12, abs=1e-12), (form.key, m)


@pytest.mark.parametrize("m", [3, 6, 9])
def test_the_symmetric_identity_holds_for_any_profile(m):
    # (*) as = m P[g(W) != g(W+1)], W ~ Bin(m-1, 1/2), for random g
    rng = np.random.default_rng(m)
    for _ in range(5):
        g = rng.integers(0, 2, m + 1)
        exact = average_sensitivity(bits_df(m, lambda x: g[x.sum(1)]), method="exact").value
        formula = m * sum(math.comb(m - 1, w) for w in range(m) if g[w] != g[w + 1]) \
            / 2 ** (m - 1)
        assert formula == pytest.approx(exact, rel=1e-12)


def test_index_formulas_token_query_and_binary_address():
    for n in (4, 6, 8):
        df = tasks.get("index", n=n).decision_view()[0]
        assert average_sensitivity(df, method="exact").value == \
            pytest.approx(float(sc.INDEX.at(n)))
    # the multiplexer: the query token written on m = log2 N address bits, 1 + m/2
    for n, m in ((4, 2), (8, 3), (16, 4)):
        enc = sc.binary_encoding(tasks.get("index", n=n).decision_view()[0])
        assert enc.length == n + m
        assert average_sensitivity(enc, method="auto").value == \
            pytest.approx(float(sc.INDEX_BINARY.at(m)))


def views(family, ns):
    return [(n, tasks.get(family, n=n).decision_view()[0]) for n in ns]


@pytest.mark.parametrize("family,key,shape,sublinear", [
    ("parity", "parity", "all", False), ("all", "and_or", "all", True),
    ("any", "and_or", "all", True), ("majority", "majority", "all", True),
    ("index", "index", "all", True), ("sparse_parity", "parity", "fixed", True),
    ("sparse_all", "and_or", "fixed", True),
    # user task files, found by their function: MOD-3 counts a's, first = last is the
    # complement of the XOR of two positions that move with n
    ("examples/tasks/mod3.py", "mod3", "all", False),
    ("examples/tasks/first_eq_last.py", "parity", "fixed", True),
])
def test_tasks_are_matched_by_their_function(family, key, shape, sublinear):
    ns = [n for n in tasks.family(family).analysis_ns
          if tasks.get(family, n=n).decision_view()[0].space_size() <= sc.CHECK_LIMIT][:5]
    match = sc.match_closed_form(views(family, ns))
    assert not isinstance(match, str), match
    assert (match.form.key, match.shape, match.sublinear) == (key, shape, sublinear)
    assert match.checked_ns == ns


def test_a_function_off_by_one_input_matches_no_form():
    # majority with one input's label flipped: the exhaustive check sees it
    out = []
    for n, df in views("majority", [5, 7, 9]):
        def wrong(x, f=df.evaluate):
            y = np.asarray(f(x)).copy()
            y[(np.asarray(x) == 1).all(1)] ^= 1
            return y
        out.append((n, dataclasses.replace(df, evaluate=wrong)))
    match = sc.match_closed_form(out)
    assert isinstance(match, str) and "none of" in match


def test_no_form_for_a_restricted_domain_or_an_unknown_function():
    assert "domain restriction" in sc.match_closed_form(views("khop", [4, 5, 6]))
    assert "none of" in sc.match_closed_form(views("dyck", [2, 4, 6]))


def test_a_planted_wrong_closed_form_is_rejected(monkeypatch):
    rows = [{"n": n, "free_positions": n, "exact": True, "ci_low": 0, "ci_high": 0,
             "average_sensitivity": average_sensitivity(df, method="exact").value}
            for n, df in views("majority", [3, 5, 7, 9])]
    sc._match_family.cache_clear()
    good = sc.closed_form_for("majority", rows)
    assert good["key"] == "majority" and good["agrees"]
    # the same function, a wrong formula (sqrt(2m/pi), only the asymptote)
    wrong = dataclasses.replace(sc.MAJORITY, value=lambda m: Fraction(math.sqrt(2 * m / math.pi)))
    monkeypatch.setattr(sc, "SYMMETRIC", (sc.PARITY, sc.AND_OR, wrong))
    sc._match_family.cache_clear()
    try:
        bad = sc.closed_form_for("majority", rows)
    finally:
        sc._match_family.cache_clear()
    assert bad["key"] == "majority" and not bad["agrees"]
    assert [c["agrees"] for c in bad["check"]] == [False] * 4


def test_sampled_rows_are_checked_within_their_intervals():
    match = sc.match_closed_form(views("parity", [4, 6, 8]))
    row = {"n": 40, "free_positions": 40, "exact": False, "samples": 400}
    ok, _ = sc.check_against(match, [{**row, "average_sensitivity": 40.0, "ci_low": 40.0,
                                      "ci_high": 40.0}])
    assert ok
    ok, _ = sc.check_against(match, [{**row, "average_sensitivity": 20.0, "ci_low": 19.0,
                                      "ci_high": 21.0}])
    assert not ok


def test_limits_by_sympy():
    sympy = pytest.importorskip("sympy")
    m = sympy.Symbol("m", integer=True, positive=True)
    for form, free in ((sc.PARITY, m), (sc.AND_OR, m), (sc.INDEX, m + 1)):
        expr = sympy.sympify(form.formula, locals={"m": m})
        assert sympy.limit(expr / free, m, sympy.oo) == form.ratio_limit, form.key
    assert sympy.limit(sympy.sympify(sc.INDEX_BINARY.formula, locals={"m": m}) / 2 ** m,
                       m, sympy.oo) == 0
    # majority: as/m at m = 2j+1 is C(2j, j)/4^j <= 1/sqrt(2j+1) (the induction in the
    # docstring, checked exactly here), and the bound tends to 0
    j = sympy.Symbol("j", integer=True, positive=True)
    assert sympy.limit(1 / sympy.sqrt(2 * j + 1), j, sympy.oo) == 0 == sc.MAJORITY.ratio_limit
    for jj in range(1, 400):
        a = Fraction(math.comb(2 * jj, jj), 4 ** jj)
        assert a * a <= Fraction(1, 2 * jj + 1)
        assert sc.MAJORITY.at(2 * jj + 1) / (2 * jj + 1) == a
    # MOD_k: as/m -> 2/k (exact value at a large m)
    for k, r in ((3, 0), (5, 2)):
        form = sc.mod_form(k, r)
        assert float(form.at(3001) / 3001) == pytest.approx(float(form.ratio_limit), abs=1e-6)


def test_binary_encoding_of_three_and_four_letters():
    # {a, b, c}: two bits per position, code 3 reads as the last letter
    task = tasks.get("examples/tasks/contains_ab.py", n=5)
    df = task.decision_view()[0]
    enc = sc.binary_encoding(df)
    assert enc.binary and enc.length == 10 and enc.valid is None
    rng = np.random.default_rng(0)
    x = np.asarray(df.sample(rng, 200))
    b = enc.sample(np.random.default_rng(0), 200)
    assert np.array_equal(np.asarray(enc.evaluate(b)), np.asarray(df.evaluate(x)))
    # the clamped code 11 reads as c: "11 00 01 00 00" is "c a b a a"
    row = np.array([[1, 1, 0, 0, 0, 1, 0, 0, 0, 0]])
    assert enc.evaluate(row)[0] == df.evaluate(np.array([[2, 0, 1, 0, 0]]))[0]
    # a figure for the three-letter task (total influence by FWHT)
    assert average_sensitivity(enc).method == "fwht"
    dyck = sc.binary_encoding(tasks.get("dyck", n=4).decision_view()[0])
    assert dyck.length == 8
