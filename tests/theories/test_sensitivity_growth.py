"""Sensitivity verdicts read growth where the curve is asymptotic (issue 29): 3-hop rises
up to n = 10 and levels off, so it is not Hard; a series that stops early decides nothing."""

import numpy as np

from theorybench import tasks
from theorybench.theories import sensitivity as st
from theorybench.theories.base import Context, Verdict


def test_khop3_is_not_hard_and_says_it_sampled():
    p = st.SensitivityTheory().predict("khop:k=3", Context())
    assert p.verdict is not Verdict.HARD
    ev = p.evidence if "values" in p.evidence else \
        p.evidence["other_rules"]["sublinear average sensitivity"]
    sampled = [r for r in ev["values"] if not r["exact"] and r["n"] > 10]
    assert sampled, "no sampled estimate beyond the exact range"
    # levels off: no sampled value above n = 10 exceeds the n = 16 one by its interval
    assert max(r["average_sensitivity"] for r in sampled) < 8.5
    assert all(r["ci_low"] < r["average_sensitivity"] < r["ci_high"] for r in sampled)
    # rejection sampling is too sparse there: the task's sampler was tested uniform
    assert all("chi-square" in r.get("sampler", "chi-square") for r in sampled)
    assert "sampled estimates" in ev["sampled"]


def test_khop_sampler_is_uniform_and_a_skewed_one_is_not(monkeypatch):
    fam = tasks.family("khop")
    ok, what = st.sampler_is_uniform("khop", fam)
    assert ok, what
    real_get = tasks.get

    def skewed_get(family, **kw):
        task = real_get(family, **kw)
        views = task.decision_view()
        draw = views[0].sample

        def biased(rng, count):  # first token always "a": valid inputs, not uniform
            x = draw(rng, count)
            keep = x[:, 0] == 0
            return np.concatenate([x[keep]] * 8)[:count] if keep.any() else x

        views[0] = type(views[0])(**{**views[0].__dict__, "sample": biased})
        task.decision_view = lambda: views
        return task

    monkeypatch.setattr(tasks, "get", skewed_get)
    ok, what = st.sampler_is_uniform("khop", fam)
    assert not ok and "z =" in what


def test_a_series_that_stops_early_gives_no_verdict(monkeypatch):
    rows = [{"n": n, "free_positions": n, "average_sensitivity": float(n), "ci_low": float(n),
             "ci_high": float(n), "exact": True} for n in (4, 6, 8, 10)]
    prof = {"values": rows, "skipped": [{"n": 16, "reason": "over budget"}],
            "local_exponent": 1.0, "local_exponent_range": [1.0, 1.0],
            "min_ratio_larger_half": 1.0, "larger_half_ns": [6, 8, 10],
            "fit": {"kind": "poly", "exponent": 1.0, "formula": "~ n", "decided": True,
                    "ambiguous_with": [], "candidates": {}}}
    monkeypatch.setattr(st, "sensitivity_profile", lambda family, ctx=None: dict(prof))
    # Dyck matches no closed form, so only the series could decide
    p = st.SensitivityTheory().predict("dyck")
    assert p.verdict is Verdict.UNKNOWN and "stops at 10 free positions" in p.explanation
    # parity's function is checked on every input at n = 4..10 and its closed form as = n
    # holds for every n: the short series no longer matters
    p = st.SensitivityTheory().predict("parity")
    assert p.verdict is Verdict.HARD and p.evidence["closed_form"]["key"] == "parity"
