"""The theory framework: rule order, first firing rule, crashes, Unknown, JSON evidence,
growth classification, the runner and the Sensitivity theory's rules."""

import json
from math import comb

import numpy as np
import pytest

from theorybench.errors import ConfigError, EnumerationTooLarge, TaskParameterError, TheoryError
from theorybench.theories import sensitivity as st
from theorybench.theories.base import (Basis, Context, Prediction, RuleSkip, Status, Theory,
                                       Verdict, check_json, rule, to_jsonable)
from theorybench.formal.growth import classify_growth, closed_form_values
from theorybench.theories.runner import (cell, explain_text, matrix_csv, matrix_json,
                                         matrix_markdown, predict_matrix, resolve_families,
                                         resolve_theories)
from theorybench.formal.sensitivity import sensitivity_by_n


class Toy(Theory):
    """Rules defined out of DESIGN order; fires according to ``self.fire``."""

    name = "toy"
    fire: set = set()
    calls: list

    def __init__(self, fire=(), crash=()):
        self.fire, self.crash, self.calls = set(fire), set(crash), []

    def _run(self, name, basis, family):
        self.calls.append(name)
        if name in self.crash:
            raise RuntimeError(f"{name} broke")
        if name in self.fire:
            return self.prediction(family, Verdict.HARD if basis == Basis.LOWER_BOUND
                                   else Verdict.EASY, basis, Status.PROVEN,
                                   {"by": name, "value": np.float64(1.5),
                                    "arr": np.arange(3), "basis": basis}, f"{name} fired")
        return RuleSkip(f"{name} does not apply", {"seen": np.int64(7)})

    @rule("cited", Basis.THEOREM)
    def r_theorem(self, family, ctx):
        return self._run("cited", Basis.THEOREM, family)

    @rule("reduce", Basis.REDUCTION)
    def r_reduction(self, family, ctx):
        return self._run("reduce", Basis.REDUCTION, family)

    @rule("bound", Basis.LOWER_BOUND)
    def r_bound(self, family, ctx):
        return self._run("bound", Basis.LOWER_BOUND, family)

    @rule("build", Basis.CONSTRUCTION)
    def r_build(self, family, ctx):
        return self._run("build", Basis.CONSTRUCTION, family)

    @rule("build again", Basis.CONSTRUCTION)
    def r_build2(self, family, ctx):
        return self._run("build again", Basis.CONSTRUCTION, family)


def test_rule_order_follows_design():
    assert [r.name for r in Toy().rules()] == ["build", "build again", "bound", "reduce",
                                              "cited"]


def test_first_firing_rule_wins_and_tried_is_recorded():
    t = Toy(fire={"bound", "cited"})
    p = t.predict("parity")
    assert p.rule == "bound" and p.basis == Basis.LOWER_BOUND and p.verdict == Verdict.HARD
    assert t.calls == ["build", "build again", "bound"]
    assert [x["outcome"] for x in p.tried] == ["build does not apply",
                                               "build again does not apply", "fired"]
    assert p.evidence["other_rules"]["build"] == {"seen": np.int64(7)}


def test_crashing_rule_is_recorded_not_hidden():
    p = Toy(fire={"reduce"}, crash={"build", "bound"}).predict("parity")
    assert p.rule == "reduce"
    assert p.tried[0]["outcome"] == "rule failed: RuntimeError: build broke"
    assert p.tried[2]["outcome"].startswith("rule failed")


def test_unknown_with_reasons_when_nothing_fires():
    p = Toy().predict("majority")
    assert p.verdict == Verdict.UNKNOWN and p.basis == Basis.NONE and p.status == Status.NONE
    for name in ("build", "bound", "reduce", "cited"):
        assert f"{name}: {name} does not apply" in p.explanation
    # the five rules and, before the theorem rule, the reduction catalogue (closures.py)
    assert len(p.tried) == 6 and p.tried[4]["rule"] == "checked reduction from the catalogue"


def test_evidence_is_json_serializable_and_round_trips():
    p = Toy(fire={"build"}).predict("parity")
    check_json(p.evidence)
    d = json.loads(json.dumps(p.to_dict()))
    assert d["evidence"]["arr"] == [0, 1, 2] and d["evidence"]["basis"] == "construction"
    back = Prediction.from_dict(d)
    assert back.verdict == Verdict.EASY and back.basis == Basis.CONSTRUCTION
    assert to_jsonable({1: (np.bool_(True), None)}) == {"1": [True, None]}


# ---- growth --------------------------------------------------------------------------

NS = [4, 6, 8, 12, 16, 24, 32]


@pytest.mark.parametrize("values,kind", [
    ([3.0] * 7, "bounded"),
    ([2 + 0.001 * (-1) ** i for i in range(7)], "bounded"),
    ([1 + 2 * np.log2(n) for n in NS], "log"),
    ([0.5 * n ** 0.5 for n in NS], "poly"),
    ([2.0 * n for n in NS], "poly"),
    ([0.1 * n ** 2 for n in NS], "poly"),
    ([2.0 ** (0.5 * n) for n in NS], "exponential"),
])
def test_growth_classification_on_synthetic_sequences(values, kind):
    assert classify_growth(NS, values).kind == kind


@pytest.mark.parametrize("c", [0.5, 1.0, 2.0])
def test_growth_exponent_is_estimated(c):
    fit = classify_growth(NS, [3 * n ** c for n in NS])
    assert fit.kind == "poly" and fit.exponent == pytest.approx(c, abs=1e-6)
    assert json.dumps(to_jsonable(fit))


def test_majority_sensitivity_matches_sympy_closed_form_and_grows_like_sqrt_n():
    ns = [3, 5, 7, 9, 11, 13, 15, 17, 19]
    measured = [r.value for r in sensitivity_by_n("majority", ns)]
    closed = closed_form_values("n*binomial(n-1,(n-1)/2)/2**(n-1)", ns)
    assert np.allclose(measured, closed)
    assert [comb(n - 1, (n - 1) // 2) * n / 2 ** (n - 1) for n in ns] == pytest.approx(measured)
    fit = classify_growth(ns, measured)
    assert fit.kind == "poly" and 0.4 < fit.exponent < 0.55
    parity = [r.value for r in sensitivity_by_n("parity", ns)]
    assert np.allclose(parity, closed_form_values("n", ns))


# ---- runner --------------------------------------------------------------------------

def test_name_validation():
    with pytest.raises(TheoryError, match="known theories: .*sensitivity"):
        resolve_theories(["sensitivityy"])
    with pytest.raises(TaskParameterError, match="known tasks"):
        resolve_families(["parity", "parrity"])
    with pytest.raises(TheoryError):
        predict_matrix(["nope"], ["parity"], progress=False)
    assert resolve_families(["parity", "parity"]) == ["parity"]
    assert "sensitivity" in resolve_theories(None)


def test_predict_matrix_and_formats():
    preds = predict_matrix(["sensitivity"], ["parity", "majority", "sparse_parity"],
                           Context(max_n=12), progress=False)
    by_task = {p.task: p for p in preds}
    assert by_task["parity"].verdict == Verdict.HARD
    assert by_task["parity"].status == Status.CONDITIONAL
    assert by_task["majority"].verdict == Verdict.EASY
    assert by_task["sparse_parity"].verdict == Verdict.EASY
    assert cell(by_task["parity"]) == "Hard (lb, conditional)"
    md = matrix_markdown(preds)
    assert "| parity | Hard (lb, conditional) |" in md and "Cells:" in md
    assert matrix_csv(preds).splitlines()[0] == "task,sensitivity"
    js = json.loads(json.dumps(matrix_json(preds)))
    assert {"theory", "task", "verdict", "basis", "status", "evidence"} <= set(js[0])
    text = explain_text(by_task["parity"], st.SensitivityTheory())
    assert "Rules tried" in text and "average_sensitivity" in text and "2402.09963" in text


def test_predictions_are_reproducible():
    a = [p.to_dict() for p in predict_matrix(["sensitivity"], ["khop", "index_all"],
                                              Context(seed=3), progress=False)]
    st._profile.cache_clear()
    b = [p.to_dict() for p in predict_matrix(["sensitivity"], ["khop", "index_all"],
                                              Context(seed=3), progress=False)]
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_rows_computed_in_worker_processes_give_the_same_matrix():
    """Rows are pure functions of their task: forked workers must give the serial matrix
    (index_any consults index's cell through a reduction, so one row reads another's)."""
    theories, fams = ["star_free", "ac0", "crasp", "bapo"], ["index", "index_any", "parity"]
    key = lambda p: (p.theory, str(p.task), p.verdict, p.basis, p.status, p.rule)
    serial = [key(p) for p in predict_matrix(theories, fams, Context(max_n=10),
                                             progress=False, workers=1)]
    forked = [key(p) for p in predict_matrix(theories, fams, Context(max_n=10),
                                             progress=False, workers=2)]
    assert forked == serial and len(serial) == 12
    with pytest.raises(ConfigError, match="workers"):
        predict_matrix(theories, fams, progress=False, workers=0)


# ---- the Sensitivity theory's rules -----------------------------------------------------

def test_sensitivity_rules_evidence():
    p = st.SensitivityTheory().predict("parity", Context(max_n=10))
    ev = p.evidence
    assert p.rule == "linear average sensitivity" and p.basis == Basis.LOWER_BOUND
    exact = [r for r in ev["values"] if r["exact"] and r["n"] <= 10]
    assert [r["n"] for r in exact] == [4, 6, 8, 10]
    # then the extension: n = 16 exactly (2^16 inputs, one pass), sampled estimates beyond
    # (parity: s(x) = n for every x, so exact values)
    ext = [r for r in ev["values"] if r["n"] > 10]
    assert [(r["n"], r["exact"]) for r in ext[:3]] == [(16, True), (24, False), (32, False)]
    assert all(r["average_sensitivity"] == r["n"] for r in ev["values"])
    assert "sampled estimates" in ev["sampled"]
    assert ev["thresholds"]["hard_ratio_floor"] == st.HARD_FLOOR
    assert ev["task_distribution"]["average_sensitivity"] == 10
    check_json(ev)
    # majority: its function checked on every input up to n = 11, its closed form
    # (o(n) for every n) decides - no fit, so verified rather than extrapolated
    p = st.SensitivityTheory().predict("majority")
    assert p.rule == "sublinear average sensitivity" and p.status == Status.VERIFIED
    assert p.evidence["closed_form"]["key"] == "majority" and p.evidence["verified_up_to"] == 11
    assert p.tried[0]["outcome"].startswith("closed form")


def test_sensitivity_monte_carlo_beyond_the_exact_work_limit():
    ctx = Context(max_n=12, options={"sensitivity_exact_work": 1 << 8,
                                     "sensitivity_samples": 400})
    p = st.SensitivityTheory().predict("parity", ctx)
    methods = {r["n"]: r["method"] for r in p.evidence["values"]}
    assert methods[4] == "fwht" and methods[12] == "monte_carlo"
    assert p.verdict == Verdict.HARD


def test_sensitivity_unknown_when_nothing_can_be_computed(monkeypatch):
    def fail(*a, **k):
        raise EnumerationTooLarge("cannot")

    monkeypatch.setattr(st, "average_sensitivity", fail)
    st._profile.cache_clear()
    try:
        p = st.SensitivityTheory().predict("parity", Context(max_n=8))
    finally:
        st._profile.cache_clear()
    assert p.verdict == Verdict.UNKNOWN
    assert "need 3" in p.explanation and "cannot" in p.explanation


@pytest.mark.parametrize("slope,lo,hi,ratio,verdict", [
    (0.85, 0.85, 0.85, 0.5, Verdict.UNKNOWN),   # between the thresholds
    (0.5, 0.3, 0.9, 0.5, Verdict.UNKNOWN),      # sublinear slope, but the CIs allow 0.9
    (1.0, 0.8, 1.2, 0.5, Verdict.UNKNOWN),      # linear slope, but the CIs allow 0.8
    (1.0, 0.95, 1.05, 0.05, Verdict.UNKNOWN),   # slope 1 but as/n below the floor
    (1.0, 0.95, 1.05, 0.5, Verdict.HARD),
    (0.5, 0.45, 0.55, 0.5, Verdict.EASY),
])
def test_sensitivity_thresholds_on_synthetic_profiles(monkeypatch, slope, lo, hi, ratio,
                                                       verdict):
    # the growth classifier's decision agrees with the slope here (its own tests are in
    # tests/formal/test_growth.py); the thresholds on slope and ratio are what varies
    fits = {"poly": {"fits": True, "params": {"c": slope}}}
    prof = {"values": [{"n": 20, "average_sensitivity": 4.0, "free_positions": 20}],
            "skipped": [], "local_exponent": slope,
            "local_exponent_range": [lo, hi], "min_ratio_larger_half": ratio,
            "larger_half_ns": [8, 10],
            "fit": {"kind": "poly", "formula": "~ n^c", "exponent": slope, "decided": True,
                    "ambiguous_with": [], "candidates": fits, "reason": "fitted"}}
    monkeypatch.setattr(st, "sensitivity_profile", lambda family, ctx=None: dict(prof))
    p = st.SensitivityTheory().predict("parity")
    assert p.verdict == verdict
    if verdict == Verdict.UNKNOWN:
        assert f"{slope:.3f}" in p.explanation
        # an Unknown cell still carries the measurements (explain shows them)
        kept = p.evidence["other_rules"]["sublinear average sensitivity"]
        assert kept["values"] == prof["values"] and kept["local_exponent_range"] == [lo, hi]


def test_explain_text_renders_tables_from_evidence():
    p = Prediction("toy", "parity", Verdict.EASY, Basis.CONSTRUCTION, Status.PROVEN,
                   {"theorem": "T1", "source": "Someone 2024",
                    "sizes": {"8": {"depth": 2, "size": 17}, "16": {"depth": 2, "size": 33}},
                    "values": [{"n": 4, "value": 1.25}, {"n": 8, "value": 2.5}]},
                   "because", rule="build", tried=[{"rule": "build", "basis": "construction",
                                                    "outcome": "fired"}])
    text = explain_text(p)
    assert "Theorem: T1" in text and "Source: Someone 2024" in text
    assert "key  depth  size" in text and "16   2      33" in text
    assert "n  value" in text and "8  2.5" in text
    assert "1. [construction] build: fired" in text


def test_explain_text_renders_fits_and_theorem_dicts_compactly():
    fit = classify_growth([4, 8, 16, 32], [2.0, 4.0, 8.0, 16.0]).to_dict()
    thm = {"name": "T2", "statement": "every X is Y", "source": "Z 1999", "condition": "A != B"}
    p = Prediction("toy", "parity", Verdict.HARD, Basis.REDUCTION, Status.CONDITIONAL,
                   {"theorem": thm, "size_growth": fit}, "because")
    text = explain_text(p)
    assert "Theorem: T2" in text and "statement: every X is Y" in text
    assert "condition: A != B" in text and "{'name'" not in text
    assert "size_growth: poly, ~ 0.5 n^1.000" in text
    assert "candidate" in text and "residuals" not in text


def test_a_crashing_theory_becomes_an_unknown_cell(monkeypatch):
    from theorybench.theories import registry

    class Broken(Theory):
        name = "zz_broken"

        def predict(self, family, context=None):
            raise RuntimeError("boom")

    real = registry.theories
    monkeypatch.setattr(registry, "theories", lambda: {**real(), "zz_broken": Broken})
    preds = predict_matrix(["zz_broken", "sensitivity"], ["parity"], progress=False)
    assert preds[0].verdict == Verdict.UNKNOWN and "RuntimeError: boom" in preds[0].explanation
    assert preds[1].verdict == Verdict.HARD
