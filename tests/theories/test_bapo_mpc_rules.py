"""Each rule of the bapo and mpc theories fires where it should."""

import numpy as np

from theorybench.theories.base import Basis, Context, Status, Verdict, check_json
from theorybench.theories.registry import theory
from theorybench.formal.mpc.cycles import double_cover_reduction


def pred(th, fam):
    p = theory(th).predict(fam, Context())
    check_json(p.evidence)
    return p


def test_bapo_construction_easy():
    p = pred("bapo", "index")
    assert p.verdict == Verdict.EASY and p.rule == "verified constant-bandwidth protocol"
    assert p.evidence["a"] == 0 and p.evidence["b"] == 1
    assert "b0_bandwidth_by_n" in p.evidence  # grows, yet the verdict is Easy
    sat = p.evidence["sat_frontier_by_n"]
    assert sat and all(v["min_a_by_b"][1] == 0 for v in sat.values())  # (0, 1) found by SAT


def test_bapo_reduction_hard():
    # majority and reach_directed ARE the theorems' problems: the identity "reduction" is a
    # premise check of a cited theorem (basis theorem), not a checked reduction (issue 11.1)
    for fam in ("majority", "reach_directed"):
        p = pred("bapo", fam)
        assert p.verdict == Verdict.HARD and p.basis == Basis.THEOREM
        assert p.evidence["check"]["is_identity"] and "premise checked" in p.evidence["proof"]
    p = pred("bapo", "reach_undirected")
    assert p.verdict == Verdict.HARD and p.basis == Basis.REDUCTION
    assert not p.evidence["check"]["is_identity"]


def test_bapo_row_class_rule_skips_on_growth():
    # the rule must have been tried and skipped (the old test also passed had it fired)
    p = pred("bapo", "binary_add")
    (t,) = [t for t in p.tried if t["rule"] == "exact b=0 protocol with flat bandwidth"]
    assert t["outcome"] != "fired" and "grows" in t["outcome"]
    out = theory("bapo").row_class("binary_add", Context())
    pts = out.evidence["b0_bandwidth_by_n"]
    assert len(set(pts.values())) > 1


def test_mpc_rules():
    p = pred("mpc", "parity")
    assert p.verdict == Verdict.EASY and p.basis == Basis.CONSTRUCTION
    p = pred("mpc", "reach_undirected")
    assert p.verdict == Verdict.HARD and p.status == Status.CONDITIONAL
    assert "conjecture" in p.evidence


def test_cycles_reduction_preserves_labels():
    chk = double_cover_reduction("reach_undirected").check([6, 10], samples=60,
                                                            rng=np.random.default_rng(3))
    assert chk.ok and chk.is_projection


def test_bapo_row_class_rule_fires_on_flat_b0():
    # parity: exact b=0 bandwidth is 1 bit at every n -> Easy, extrapolated (measured only)
    p = theory("bapo").row_class("parity", Context())
    assert p.verdict == Verdict.EASY and p.status == Status.EXTRAPOLATED
    assert p.evidence["fit"]["kind"] == "bounded"
    assert set(p.evidence["b0_bandwidth_by_n"].values()) == {1}


def test_bapo_binary_add_is_hard_only_conditionally_through_its_claim():
    # no rule of its own decides it; the claim of proofs/ settles it, conditionally on the
    # missing Greater-Than hardness lemma, and the cell says so
    p = pred("bapo", "binary_add")
    assert p.verdict == Verdict.HARD and p.status == Status.CONDITIONAL
    assert p.basis == Basis.THEOREM and p.evidence["claim"] == "bapo-binary-add"
    assert "greater-than" in p.evidence["condition"].lower()
    assert any("greater-than" in t["outcome"].lower() for t in p.tried)


def test_a_sampled_mpc_check_says_so_in_its_status():
    """'verified <= 1024' alone would read as every input up to 1024; the MPC rule checks
    K sampled instances at four sizes, and the label says that."""
    from theorybench.theories.registry import theory
    p = theory("mpc").predict("majority")
    assert p.status.value == "verified"
    assert "sampled: " in p.status_label and "per n at n = " in p.status_label
