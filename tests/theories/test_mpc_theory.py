"""The mpc theory on the round-function simulator: evidence, variants, citations."""

import inspect

from theorybench.theories import mpc as mpc_theory
from theorybench.theories.base import Basis, Status, Verdict, status_problem
from theorybench.theories.runner import predict_one


def test_easy_cells_carry_samples_and_locality_checks():
    p = predict_one("mpc", "parity")
    assert p.verdict == Verdict.EASY and p.basis == Basis.CONSTRUCTION
    assert p.status == Status.VERIFIED and status_problem(p) is None
    ev = p.evidence
    assert ev["verified_up_to"] == max(ev["rounds_by_n"])
    assert all(k >= 1000 for k in ev["instances_per_n"].values())
    assert all(k >= 1 for k in ev["locality_checked_per_n"].values())


def test_variants_run_the_family_program():
    """Regression: variant labels (khop:k=2, dyck:k=1) were Unknown ("no MPC algorithm for
    khop:k=2") because the program table is keyed by the family name."""
    rounds = {}
    for label in ("khop", "khop:k=2", "khop:k=3", "dyck:k=1"):
        p = predict_one("mpc", label)
        assert p.verdict == Verdict.EASY and p.status == Status.VERIFIED, (label, p.tried)
        rounds[label] = max(p.evidence["rounds_by_n"].values())
    # one broadcast + one fold per hop: more hops, more rounds (a constant for each k)
    assert rounds["khop"] < rounds["khop:k=2"] < rounds["khop:k=3"]


def test_reach_is_conditional_hard_with_growing_rounds():
    p = predict_one("mpc", "reach_undirected")
    assert p.verdict == Verdict.HARD and p.status == Status.CONDITIONAL
    r = p.evidence["label_propagation_rounds_by_n"]
    ns = sorted(r)
    assert r[ns[-1]] > r[ns[0]]


def test_no_unchecked_theorem_numbers():
    """Regression (defect 9): "Theorem 4.2 / Corollary 4.3" of Sanford et al. could not be
    confirmed with the search tool, so the theory cites the results without numbers."""
    src = inspect.getsource(mpc_theory)
    assert "Theorem 4.2" not in src and "Corollary 4.3" not in src
    assert "cited without theorem numbers" in " ".join(src.split())
    assert "cited without theorem number" in predict_one("mpc", "parity").evidence["theorem"]
    hard = predict_one("mpc", "reach_directed")
    assert "cited without theorem number" in hard.evidence["theorem"]
