"""One growth classification of a measured sensitivity series, read by every column that
uses it (docs/theories.md §8): the Sensitivity column and the Boppana rules of AC0 and
Star-free[pos] see the same series of #a = #b and give it the same class."""

from math import comb, pi, sqrt

import numpy as np
import pytest

from theorybench.formal.growth import classify_measured
from theorybench.theories.ac0 import AC0Theory
from theorybench.theories.base import Context, Verdict
from theorybench.theories.sensitivity import SensitivityTheory
from theorybench.theories.star_free import StarFreePosTheory

EQ_AB = ('NAME = "{name}"\nALPHABET = ("{a}", "{b}")\nLENGTHS = (2, 64)\n'
         'def label(x):\n    return (x == 0).sum(1) == (x == 1).sum(1)\n')


def _fit(p):
    ev = p.evidence
    if "growth" in ev:
        return ev["growth"]
    if "fit" in ev:
        return ev["fit"]
    for sub in (ev.get("other_rules") or {}).values():
        if isinstance(sub, dict) and "fit" in sub:
            return sub["fit"]
    raise AssertionError(f"no growth fit in the {p.theory} cell")


@pytest.fixture(scope="module")
def eq_ab(tmp_path_factory):
    d = tmp_path_factory.mktemp("shared_growth")
    paths = []
    for name, a, b in (("eq_ab_shared", "a", "b"), ("eq_xy_renamed", "y", "x")):
        path = d / f"{name}.py"
        path.write_text(EQ_AB.format(name=name, a=a, b=b))
        paths.append(str(path))
    return paths


def test_one_series_one_class_in_every_column(eq_ab):
    path = eq_ab[0]
    cells = [T().predict(path, Context()) for T in (AC0Theory, StarFreePosTheory,
                                                     SensitivityTheory)]
    fits = [_fit(p) for p in cells]
    keys = ("kind", "formula", "window", "ns", "values", "ambiguous_with", "constant_at")
    assert all({k: f[k] for k in keys} == {k: fits[0][k] for k in keys} for f in fits)
    fit = fits[0]
    # sqrt(8m/pi) at even m: a power law of exponent 1/2, the odd (constant) lengths left out
    assert fit["kind"] == "poly" and 0.35 <= fit["exponent"] <= 0.65
    assert fit["constant_at"] and all(m % 2 == 1 for m in fit["constant_at"])
    assert all(m % 2 == 0 for m in fit["ns"])
    exact = {m: 2 * m * comb(m, m // 2) / 2 ** m for m in fit["ns"]}
    for m, v in zip(fit["ns"], fit["values"]):
        assert abs(v - exact[m]) <= 0.12 * exact[m] + 1e-9, (m, v, exact[m], sqrt(8 * m / pi))
    # the Boppana rules read that class: a power of m -> Hard (a fit: extrapolated)
    assert [p.verdict for p in cells[:2]] == [Verdict.HARD, Verdict.HARD]
    assert all(p.status.value == "extrapolated" for p in cells[:2])


def test_a_renamed_copy_gets_the_same_cells(eq_ab):
    for T in (AC0Theory, SensitivityTheory):
        one, two = (T().predict(p, Context()) for p in eq_ab)
        assert (one.verdict, one.status) == (two.verdict, two.status)
        assert _fit(one)["kind"] == _fit(two)["kind"]


def test_classify_measured_leaves_out_exact_zeros_only_with_three_others():
    xs = [4, 5, 6, 7, 8, 9, 10]
    ys = [4.0, 0.0, 6.0, 0.0, 8.0, 0.0, 10.0]
    got = classify_measured(xs, ys)
    assert got.constant_at == [5, 7, 9] and got.fit.kind == "poly"
    assert [xs[i] for i in got.kept] == [4, 6, 8, 10]
    # a sampled zero is an estimate, not a constant function: kept
    sampled = classify_measured(xs, ys, sigma=[0, 0.1, 0, 0.1, 0, 0.1, 0],
                                exact=[True, False, True, False, True, False, True])
    assert sampled.constant_at == [] and len(sampled.kept) == 7
    # fewer than three others: nothing is left out
    few = classify_measured([4, 5, 6, 7], [4.0, 0.0, 6.0, 0.0])
    assert few.constant_at == [] and len(few.kept) == 4
    assert np.isfinite(few.fit.rel_rmse)
