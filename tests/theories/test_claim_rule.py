"""Cells settled by a claim of proofs/: the claim's check runs, the cell takes its verdict
and the certificate's status, and only the cells the claim lists are settled."""

from theorybench.theories.base import Basis, Context, Status, Verdict, status_problem
from theorybench.theories.registry import theory


def test_khop_variants_are_hard_for_crasp_through_the_claim():
    for task in ("khop:k=2", "khop:k=3"):
        p = theory("crasp").predict(task, Context())
        assert p.verdict == Verdict.HARD and p.basis == Basis.THEOREM
        assert p.evidence["claim"] == "khop-not-crasp" and p.status == Status.CITED
        assert status_problem(p) is None


def test_a_cell_no_claim_lists_is_not_settled_by_one():
    # the theory's own rules (reach_directed is settled by the reduction catalogue, before
    # the claim rule's place; predict_own runs the claim rule there)
    p = theory("crasp").predict_own("reach_directed", Context())
    outcome = next(t["outcome"] for t in p.tried if t["rule"] == "checked claim of proofs/")
    assert "no claim of proofs/ settles crasp on reach_directed" in outcome
