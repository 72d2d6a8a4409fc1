"""A task's own sensitivity oracle (reach_undirected), checked against trying every
replacement before the Sensitivity column uses it to measure the series up to n = 1022,
and the label as control variate (docs/theories.md §7, "Measurement")."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.sensitivity import average_sensitivity, sensitive_positions
from theorybench.tasks.graphs.reach_undirected import ReachUndirected
from theorybench.theories import sensitivity_sampling as S
from theorybench.theories.base import Basis, Context, Status, Verdict, status_problem
from theorybench.theories.prediction import find_fit
from theorybench.theories.sensitivity import SensitivityTheory


@pytest.mark.parametrize("n", [2, 4, 6, 10, 14])
def test_reach_oracle_equals_every_replacement_tried(n):
    df = tasks.get("reach_undirected", n=n).decision_view()[0]
    rng = np.random.default_rng(n)
    x = np.concatenate([np.asarray(df.sample(rng, 150), dtype=np.int64),
                        np.stack([np.asarray(c)[rng.integers(0, len(c), 150)]
                                  for c in df.choices], axis=1)])
    assert np.array_equal(df.sensitive_positions(x), sensitive_positions(df, x))


def test_the_control_variate_estimate_covers_the_exact_value():
    df = tasks.get("reach_undirected", n=2).decision_view()[0]
    exact = average_sensitivity(df, method="exact").value
    res = average_sensitivity(df, method="monte_carlo", samples=400,
                              rng=np.random.default_rng(5), oracle=True)
    assert "control variate" in res.method
    assert res.ci_low - 0.5 * (res.ci_high - res.ci_low) <= exact <= \
        res.ci_high + 0.5 * (res.ci_high - res.ci_low)
    plain = average_sensitivity(df, method="monte_carlo", samples=400,
                                rng=np.random.default_rng(5))
    assert res.ci_high - res.ci_low < plain.ci_high - plain.ci_low


def test_reach_undirected_is_decided_from_the_longer_series():
    p = SensitivityTheory().predict("reach_undirected", Context())
    assert (p.verdict, p.basis, p.status) == (Verdict.HARD, Basis.LOWER_BOUND,
                                              Status.CONDITIONAL)
    assert status_problem(p) is None and find_fit(p.evidence) is not None
    rows = p.evidence["values"]
    assert max(r["n"] for r in rows) >= 512
    assert all("oracle" in r for r in rows if r["n"] >= 16 and not r["exact"])
    assert p.evidence["fit"]["kind"] == "poly" and p.evidence["fit"]["exponent"] >= 0.9
    assert p.evidence["min_ratio_larger_half"] >= 0.3


def test_a_wrong_oracle_is_never_used(monkeypatch):
    monkeypatch.setattr(ReachUndirected, "sensitive_positions",
                        lambda self, tokens: np.zeros((len(tokens), self.n + 3), dtype=bool))
    S.oracle_check.cache_clear()
    try:
        got = S.oracle_check("reach_undirected")
        assert not got["ok"] and "disagrees" in got["what"]
    finally:
        S.oracle_check.cache_clear()
