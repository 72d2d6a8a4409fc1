"""The star_free and star_free_pos theories: every rule exercised on families whose
status is known."""

import pytest

from theorybench.theories.base import (Basis, Context, Prediction, RuleSkip, Status, Verdict,
                                       check_json)
from theorybench.theories.registry import theory
from theorybench.theories.star_free import StarFreeTheory, StarFreePosTheory

CTX = Context(max_n=8)


def test_registered_as_two_columns():
    assert theory("star_free").name == "star_free"
    assert theory("star_free_pos").name == "star_free_pos"


def test_program_rule_all():
    p = StarFreeTheory().predict("all", CTX)
    assert p.verdict is Verdict.EASY and p.rule == "verified B-RASP program"
    ev = p.evidence
    assert ev["constant"] and all(r["depth"] == 1 for r in ev["by_n"])
    assert any(r["exhaustive"] for r in ev["by_n"])
    check_json(p.evidence)


def test_aperiodic_automaton_rule_directly():
    out = StarFreeTheory().r_aperiodic("any", CTX)
    assert isinstance(out, Prediction) and out.verdict is Verdict.EASY
    assert out.evidence["learned"]["dfa_states"] == 2
    out = StarFreeTheory().r_aperiodic("parity", CTX)
    assert isinstance(out, RuleSkip) and "not aperiodic" in out.reason


def test_group_rule_parity():
    p = StarFreeTheory().predict("parity", CTX)
    assert p.verdict is Verdict.HARD and p.rule == "group in the syntactic monoid"
    wit = p.evidence["witness"]
    assert wit["word"] == "1" and wit["period"] == 2
    assert wit["reference_agrees"]  # u w^i z recomputed by the task's reference
    check_json(p.evidence)


def test_nonregular_rule_majority():
    p = StarFreeTheory().predict("majority", CTX)
    assert p.verdict is Verdict.HARD and p.rule == "residual classes grow"
    assert p.basis is Basis.LOWER_BOUND
    classes = p.evidence["learned"]["growth"]["classes"]
    assert classes == sorted(classes) and classes[-1] > classes[0]
    # the Hard rests on a checked pumping certificate, not on the counts above
    assert p.status is Status.VERIFIED and p.evidence["certificate"]["relation"]
    assert p.evidence["verified_up_to"] == p.evidence["certificate"]["verified_up_to"] >= 1024


@pytest.mark.parametrize("task", ["dyck_bounded:D=6", "dyck_bounded:D=8",
                                  "dyck_bounded:D=4096"])
def test_bounded_dyck_is_never_hard_from_residual_counts(task):
    # star-free (depth <= D), yet the old rule called it "not star-free" from residual
    # classes that grow up to the check bound
    p = StarFreeTheory().predict(task, CTX)
    assert p.verdict is not Verdict.HARD
    tried = [t for t in p.tried if t["rule"] == "residual classes grow"]
    assert tried and "no proof of non-regularity" in tried[0]["outcome"]


def test_not_a_language_skips_the_automaton_rules_and_counts_symbols():
    # the automaton rules do not apply to a growing alphabet; the symbols a fixed program
    # must tell apart decide instead (tests/theories/test_token_classes.py)
    p = StarFreeTheory().predict("index", CTX)
    aut = [t for t in p.tried if t["rule"] == "aperiodic minimal automaton"]
    assert aut and "grows with n" in aut[0]["outcome"]
    assert p.verdict is Verdict.HARD and p.rule == "symbols a fixed program cannot tell apart"


@pytest.mark.parametrize("family", ["index", "index_all", "index_parity", "sparse_parity"])
def test_positions_make_retrieval_easy(family):
    p = StarFreePosTheory().predict(family, CTX)
    assert p.verdict is Verdict.EASY and p.rule == "verified B-RASP program"


def test_khop_easy_without_positions():
    p = StarFreeTheory().predict("khop", CTX)
    assert p.verdict is Verdict.EASY and "khop" in p.evidence["program"]


def test_pos_column_rules():
    p = StarFreePosTheory().predict("parity", CTX)
    assert p.verdict is Verdict.HARD and p.rule == "not quasi-aperiodic"
    out = StarFreePosTheory().r_quasi("all", CTX)
    assert isinstance(out, Prediction) and out.verdict is Verdict.EASY
    p = StarFreePosTheory().predict("majority", CTX)
    dropped = [t for t in p.tried if t["rule"] == "residual classes grow"]
    assert dropped and "not applied by this variant" in dropped[0]["outcome"] and "numerical" in dropped[0]["outcome"]
    assert p.verdict is Verdict.HARD and p.rule == "average sensitivity above polylog"
    assert p.evidence["growth"]["kind"] == "poly" and 0.3 < p.evidence["growth"]["exponent"] < 0.7
    skip = StarFreePosTheory().r_sensitivity("all", CTX)
    assert isinstance(skip, RuleSkip) and "not like" in skip.reason
    skip = StarFreePosTheory().r_sensitivity("khop", CTX)
    assert isinstance(skip, RuleSkip) and "domain restriction" in skip.reason


def test_binary_add_easy_with_positions_only():
    p = StarFreePosTheory().predict("binary_add", CTX)
    assert p.verdict is Verdict.EASY and p.evidence["program"] == "binary_add_pos"
    p = StarFreeTheory().predict("binary_add", CTX)
    # no pumping proof: only the residual-class fit decides it, and says it is a fit
    assert p.verdict is Verdict.HARD and p.status is Status.EXTRAPOLATED
    assert p.rule == "residual classes keep growing (fit)" and p.evidence["growth"]["kind"] == "poly"


def test_residual_fit_ignores_a_window_language(tmp_path):
    # "the 9th letter from the end is a" is star-free, yet shows 2^m residual classes up
    # to the bound: the exponential growth of a look-back window is no evidence
    from theorybench.tasks.registry import FAMILIES, load_task_file
    f = tmp_path / "ninth_last_a.py"
    f.write_text('NAME = "ninth_last_a"\nALPHABET = ("a", "b")\nLENGTHS = (9, 40)\n'
                 'def label(x):\n    return x[:, -9] == 0\n')
    with FAMILIES.scoped():
        load_task_file(f, export=False)
        out = StarFreeTheory().r_residual_fit("ninth_last_a", CTX)
    assert isinstance(out, RuleSkip) and "residual classes by bound" in out.reason, out


def test_no_certificate_no_lower_bound():
    # binary_add's residual classes grow, but no pumping family proves it non-regular
    out = StarFreeTheory().r_nonregular("binary_add", CTX)
    assert isinstance(out, RuleSkip) and "no proof of non-regularity" in out.reason


def test_every_family_predicts_quickly():
    from theorybench import tasks
    for fam in tasks.families():
        for cls in (StarFreeTheory, StarFreePosTheory):
            p = cls().predict(fam, Context())
            check_json(p.evidence)
            # not "the verdict is one of the enum values" (it always is): no rule crashed
            assert not any(t["outcome"].startswith("rule failed") for t in p.tried), p.tried


def test_dyck_two_types_hard_through_a_two_letter_restriction():
    # Dyck-2 over 4 letters is too big to learn at the bound; restricted to "(" ")" it is
    # Dyck-1, whose residual classes grow linearly
    p = StarFreeTheory().predict("dyck", CTX)
    assert p.verdict is Verdict.HARD and p.rule == "residual classes grow"
    assert p.evidence["restricted_to"] == "letters {(, )}"
    classes = p.evidence["learned"]["growth"]["classes"]
    assert classes[-1] - classes[-2] == 1


def test_dyck_bounded_program_and_automaton():
    p = StarFreeTheory().predict("dyck_bounded", CTX)
    assert p.verdict is Verdict.EASY and p.evidence["program"] == "dyck_bounded_D2"
    out = StarFreeTheory().r_aperiodic("dyck_bounded", CTX)
    assert isinstance(out, Prediction) and out.verdict is Verdict.EASY
