"""Issue 11: every status means what was computed (regression tests of its defects)."""

from math import comb, log2

import numpy as np
import pytest

from theorybench.theories import rules
from theorybench.theories.base import Basis, Context, Prediction, RuleSkip, Status, Verdict
from theorybench.theories.crasp import CRASPTheory
from theorybench.theories.registry import theory
from theorybench.theories.star_free import StarFreePosTheory


# ---- defect 2: the C-RASP communication rule ---------------------------------------------

@pytest.mark.parametrize("ns", [[1, 2, 3, 4], [2, 3, 4, 5, 6, 7, 8], [2, 4, 6, 8]])
def test_three_count_program_rows_are_not_hard(ns):
    # C(L+3, 3) rows is exactly what a 3-count program produces: no lower bound on P
    prof = {"ns": ns, "lengths": ns, "max_rows": [comb(n + 3, 3) for n in ns],
            "argmax_split": ns, "method": "exact, max over splits"}
    out = CRASPTheory()._judge_communication("dyck", prof, 1 << 18)
    assert isinstance(out, RuleSkip), out.explanation


def test_communication_bound_uses_the_sequence_length():
    p = theory("crasp").predict("binary_add")
    assert p.rule == "one-way communication" and p.verdict == Verdict.HARD
    ns, lengths = p.evidence["ns"], p.evidence["lengths"]
    assert lengths == [2 * n + 2 for n in ns]  # "a + b =": L = 2n + 2, not n
    assert p.status == Status.EXTRAPOLATED and "proof" not in p.evidence
    bound = p.evidence["program_counts_lower_bound"]
    rows = p.evidence["max_rows"]
    assert all(abs(bound[n] - round(log2(r) / log2(L + 1), 3)) < 1e-9
               for n, r, L in zip(ns, rows, lengths))
    # Index: exactly 2^n rows at its split, a closed form for every n once the task is
    # Index - an identity checked at the measured n only -> verified to the largest
    p = theory("crasp").predict("index")
    assert p.status == Status.VERIFIED and "2^n" in p.evidence["closed_form"]
    assert p.evidence["identity"]["all_n"] is False
    assert p.evidence["verified_up_to"] == p.evidence["identity"]["checked_up_to"]
    assert p.evidence["max_rows"] == [2 ** n for n in p.evidence["ns"]]


# ---- defect 3: Boppana fits are extrapolated; one function for AC0 and Star-free[pos] ------

def test_polylog_growth_fitted_as_a_power_is_not_proven(monkeypatch):
    ms = tuple(range(6, 19, 2))
    vals = tuple(float(np.log2(m) ** 3) for m in ms)  # depth-4 AC0 behaviour
    monkeypatch.setattr(rules, "_sensitivity_series", lambda fam: (ms, vals, "uniform"))
    ac0 = rules.boppana_rule(theory("ac0"), "parity", Context())
    pos = StarFreePosTheory().r_sensitivity("parity", Context())
    for p in (ac0, pos):
        assert isinstance(p, Prediction) and p.verdict == Verdict.HARD
        assert p.status == Status.EXTRAPOLATED, p.status
        assert p.evidence["growth"]["kind"] == "poly"  # the fit is kept in the evidence
    assert pos.evidence["min_exponent"] == ac0.evidence["min_exponent"]


@pytest.mark.parametrize("family", ["parity", "majority"])
def test_closed_form_sensitivity_is_verified_by_the_function(family):
    # the formula holds for every m, but the task's identity with the form's function is
    # checked on every input only up to N: verified <= N (issue 29 item 5), not proven -
    # and the form is found by the function, not by matching values
    p = theory("ac0").predict(family)
    assert p.status == Status.VERIFIED and p.evidence["verified_how"] == "exhaustive"
    assert p.evidence["closed_form"]["key"] == family
    assert p.evidence["verified_up_to"] == max(p.evidence["closed_form"]["checked_ns"])


# ---- defect 4: sensitivity of Dyck under two distributions ----------------------------------

@pytest.mark.parametrize("family", ["dyck", "dyck_bounded"])
def test_dyck_sensitivity_names_the_distribution(family):
    # the uniform distribution decides (issue 29: it is the primary figure); the cell
    # names it and reports the task's balanced distribution beside it, disagreeing by class
    p = theory("sensitivity").predict(family)
    assert p.verdict == Verdict.EASY and "under the uniform distribution" in p.explanation
    side = p.evidence["secondary"]
    assert side["distribution"] == "balanced" and not side["agrees_by_class"]
    assert "disagrees by class" in p.explanation
    # an Easy verdict from sublinear sensitivity is never basis lower-bound
    q = theory("sensitivity").predict("majority")
    assert q.verdict == Verdict.EASY and q.basis == Basis.THEOREM


# ---- defect 5: the projection check samples uniformly ----------------------------------------

def test_projection_check_sees_dependencies_beyond_the_first_instances():
    from theorybench.formal.reductions import Problem, Reduction
    n = 14
    src = Problem("cube", fn=lambda x, n: x.sum(axis=1) % 2,
                  choices=lambda n: [[0, 1]] * n)

    def fold(x, n):  # y0 = x0 AND x1: depends on two positions
        y = x.copy()
        y[:, 0] = x[:, 0] & x[:, 1]
        return y

    red = Reduction("and-fold", src, "parity", lambda n: {"n": n}, fold, kind="projection")
    chk = red.check([n], rng=np.random.default_rng(0))
    assert not chk.is_projection
    assert chk.by_n[0].projection_violations[0]["input_positions"] == [0, 1]


# ---- defect 6: automaton witnesses are required and tested beyond the check length ----------

def test_group_witness_must_agree_with_the_reference(monkeypatch):
    from theorybench.formal import automata
    real = automata.aperiodicity

    def lying(dfa, limit=20000, view=None):
        ok, wit = real(dfa, limit, view=view)
        if wit is not None:
            wit = {**wit, "reference_agrees": False}
        return ok, wit

    monkeypatch.setattr(automata, "aperiodicity", lying)
    from theorybench.theories import rules  # group_witness (both theories' rule) reads it there
    monkeypatch.setattr(rules, "aperiodicity", lying)
    automata.learn_view_cached.cache_clear() if hasattr(automata.learn_view_cached,
                                                        "cache_clear") else None
    for th in ("crasp", "star_free"):
        p = theory(th).predict("parity")
        assert p.rule not in ("non-aperiodic regular language",
                              "group in the syntactic monoid"), (th, p.rule)


def test_group_witness_is_tested_beyond_the_check_length():
    p = theory("star_free").predict("parity")
    beyond = p.evidence["witness"]["beyond_check_len"]
    assert beyond["agrees"] and beyond["tested"] > 0
    assert min(beyond["lengths"]) > p.evidence["learned"]["check_len"]
    assert p.status == Status.VERIFIED
    assert p.evidence["verified_up_to"] == p.evidence["learned"]["check_len"]


# ---- defect 10: Star-free[pos] extensions are marked in the cell ------------------------------

def test_pos_extensions_are_marked_in_the_cell():
    from theorybench.theories.runner import LEGEND, cell
    p = StarFreePosTheory().predict("index")
    assert "tokpos" in p.evidence["extensions"] and "[tokpos]" in cell(p)
    p = StarFreePosTheory().predict("binary_add")
    assert "lenpred" in p.evidence["extensions"] and "[lenpred]" in cell(p)
    assert "[tokpos]" in LEGEND and "[lenpred]" in LEGEND


# ---- status_problem itself -------------------------------------------------------------------

def test_status_problem_rejects_unjustified_statuses():
    from theorybench.theories.base import status_problem
    mk = lambda st, ev: Prediction("t", "parity", Verdict.HARD, Basis.LOWER_BOUND, st, ev, "")
    assert status_problem(mk(Status.PROVEN, {})) is not None
    # proven needs the task identified with the argument's object for every n
    assert status_problem(mk(Status.PROVEN, {"proof": "z3 induction"})) is not None
    finite = {"object": "a machine", "all_n": False, "checked_up_to": 12, "how": "checked"}
    assert status_problem(mk(Status.PROVEN, {"proof": "z3 induction",
                                             "identity": finite})) is not None
    exact = {"object": "the task's automaton", "all_n": True, "how": "its definition"}
    assert status_problem(mk(Status.PROVEN, {"proof": "z3 induction",
                                             "identity": exact})) is None
    assert status_problem(mk(Status.VERIFIED, {"verified_up_to": "12"})) is not None
    assert status_problem(mk(Status.VERIFIED, {"verified_up_to": 12})) is None
    assert status_problem(mk(Status.EXTRAPOLATED, {"values": [1, 2]})) is not None
    fit = {"kind": "poly", "formula": "n^1", "candidates": {}}
    assert status_problem(mk(Status.EXTRAPOLATED, {"growth": fit})) is None
    assert status_problem(mk(Status.CONDITIONAL, {})) is not None
    assert status_problem(mk(Status.CITED, {"why_cited": "no premise check"})) is None
