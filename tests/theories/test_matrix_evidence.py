"""The whole matrix, read as a reviewer would (issue 11): every status justified by its
evidence, no crashed rule, no reduction that is an identity map."""

import pytest

from theorybench.theories.base import Basis, Status
from theorybench.theories.runner import predict_matrix


@pytest.fixture(scope="module")
def matrix():
    return predict_matrix(progress=False)


def test_every_status_is_justified_by_its_evidence(matrix):
    from theorybench.theories.base import status_problem
    bad = [(p.theory, p.task, p.status.value, status_problem(p)) for p in matrix
           if status_problem(p)]
    assert not bad, bad
    # the vocabulary is used: a finite check is not proof, a fit not a check
    used = {p.status for p in matrix}
    assert {Status.PROVEN, Status.VERIFIED, Status.EXTRAPOLATED, Status.CONDITIONAL} <= used


def test_no_rule_failed_in_the_full_matrix(matrix):
    failed = [(p.theory, p.task, t["rule"], t["outcome"]) for p in matrix for t in p.tried
              if t["outcome"].startswith("rule failed")]
    crashed = [(p.theory, p.task) for p in matrix if "error" in p.evidence]
    assert not failed and not crashed, (failed, crashed)


def _identity(check) -> bool:
    """An identity map, read off the check independently of its own flag: every output
    token copies the input token at the same position, from the task to itself."""
    if check.get("is_identity"):
        return True
    by_n = check.get("by_n") or []
    return bool(by_n) and all(c.get("dependency") == list(range(len(c["dependency"] or [0])))
                              for c in by_n)


def test_no_reduction_verdict_rests_on_an_identity_map(matrix):
    reductions = [p for p in matrix if p.basis == Basis.REDUCTION]
    assert reductions
    ident = [(p.theory, p.task, p.evidence.get("reduction")) for p in reductions
             if _identity(p.evidence.get("check") or {})]
    assert not ident, ident
