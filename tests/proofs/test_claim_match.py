"""A claim settles the cells of the tasks whose function is its reference's - checked on
every input up to a size, never read off the task's name (issue 28 "Correctness")."""

from __future__ import annotations

import pytest

from theorybench import tasks
from theorybench.proofs import claims as C
from theorybench.proofs.claims.base import Certificate, Step
from theorybench.tasks.registry import FAMILIES
from theorybench.theories.base import Context, RuleSkip, Status, Verdict
from theorybench.theories.bapo import BAPOTheory
from theorybench.theories.prediction import status_problem
from theorybench.theories.rules import claim_rule


def _subclass(family: str, name: str, **body) -> type:
    return type(name.capitalize(), (tasks.family(family),),
                {"name": name, "__module__": __name__, **body})


@pytest.fixture
def renamed():
    with FAMILIES.scoped():
        FAMILIES.register(_subclass("dyck", "brackets"), name="brackets")
        base = tasks.family("dyck")
        FAMILIES.register(_subclass("dyck", "anti_dyck",
                                    label=lambda self, x: 1 - base.label(self, x)),
                          name="anti_dyck")
        yield


def test_the_reference_itself_holds_for_every_n():
    m = C.same_function("dyck:k=1", "dyck:k=1")
    assert m.all_n and m.ns[0] == 2 and m.inputs == sum(2 ** n for n in m.ns)
    assert "for every n" in m.to_dict()["why"]


def test_a_renamed_task_is_matched_by_its_function(renamed):
    assert [c.name for c in C.settling("bapo", "brackets:k=1")] == ["bapo-dyck"]
    (_, verdict, m), = C.settled_by("bapo", "brackets:k=1")
    assert verdict == "Hard" and not m.all_n and m.reference == "dyck:k=1"
    assert f"at most verified <= {m.up_to}" in m.to_dict()["why"]
    # the same instance space with another function, or another space: nothing
    assert C.settling("bapo", "anti_dyck:k=1") == []
    assert C.settling("bapo", "majority") == [] and C.settling("crasp", "brackets") == []


def test_depth_bounds_match_only_where_no_size_tells_them_apart():
    # depth <= 2 differs from Dyck-1 at n = 6 (exhaustive); depth <= 8 only above n = 16,
    # where the sampled comparison at the training sizes turns it away
    assert C.same_function("dyck_bounded", "dyck:k=1") is None
    assert C.same_function("dyck_bounded:D=8", "dyck:k=1") is None
    # a bound above every size the family has: Dyck-1 on its whole domain
    m = C.same_function("dyck_bounded:D=4096", "dyck:k=1")
    assert m is not None and not m.all_n and m.sampled


def test_the_claim_rule_caps_a_matched_task_at_verified(renamed, monkeypatch):
    theory, ctx = BAPOTheory(), Context(max_n=8)
    own, other = claim_rule(theory, "dyck:k=1", ctx), claim_rule(theory, "brackets:k=1", ctx)
    assert own.verdict == other.verdict == Verdict.HARD
    assert own.evidence["function_match"]["all_n"] and not other.evidence["function_match"]["all_n"]
    assert other.status == Status.VERIFIED and status_problem(other) is None
    assert other.evidence["verified_up_to"] <= C.same_function("brackets:k=1", "dyck:k=1").up_to
    assert isinstance(claim_rule(theory, "anti_dyck:k=1", ctx), RuleSkip)
    # a claim proved for every n: its reference keeps "proven", a matched task gets
    # verified <= N with N the largest size compared
    proved = Certificate("bapo-dyck", "t", 4, [Step("z3", "machine", "s", all_n=True,
                                                    tool="z3")])
    monkeypatch.setattr(C, "certificate", lambda name, max_n=None: proved)
    own, other = claim_rule(theory, "dyck:k=1", ctx), claim_rule(theory, "brackets:k=1", ctx)
    assert own.status == Status.PROVEN and "proof" in own.evidence
    m = C.same_function("brackets:k=1", "dyck:k=1")
    assert other.status == Status.VERIFIED and other.evidence["verified_up_to"] == m.up_to
    assert "proof" not in other.evidence and status_problem(other) is None
