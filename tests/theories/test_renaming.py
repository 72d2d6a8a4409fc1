"""Renaming a built-in family changes no verdict (issue 28 "Correctness", issue 29): the
same class registered under another name, in a scoped registry, is decided like the
original on a few rows, and the rules that used to read a family's name now check the
task's function or its declared attributes."""

from __future__ import annotations

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError
from theorybench.formal.bapo import hardness as H
from theorybench.formal.mpc import cycles, dyck
from theorybench.formal.mpc.algorithms import measure, run_algorithm, _aggregate_with
from theorybench.tasks.registry import FAMILIES
from theorybench.theories.crasp import _closed_form_rows
from theorybench.theories import closures
from theorybench.theories.prediction import STATUS_ORDER, Verdict, status_problem
from theorybench.theories.runner import predict_matrix

#: built-in row -> (its family, the new name, the row of the renamed family)
RENAMED = {"majority": ("majority", "vote", "vote"),
           "dyck:k=1": ("dyck", "brackets", "brackets:k=1"),
           "index": ("index", "lookup", "lookup"),
           "kv_retrieval": ("kv_retrieval", "kv_lookup", "kv_lookup"),
           "dyck_bounded": ("dyck_bounded", "nest", "nest")}
THEORIES = ["star_free", "star_free_pos", "ac0", "tc0", "crasp", "mpc", "bapo"]


def _renamed(family: str, name: str) -> type:
    base = tasks.family(family)
    return type(name.capitalize(), (base,), {"name": name, "__module__": __name__})


@pytest.fixture
def renamed():
    with FAMILIES.scoped():
        for fam, name, _ in RENAMED.values():
            FAMILIES.register(_renamed(fam, name), name=name)
        FAMILIES.register(_renamed("khop", "hops"), name="hops")
        yield


def test_renaming_a_builtin_changes_no_verdict(renamed):
    rows = list(RENAMED) + [r for _, _, r in RENAMED.values()]
    cells = {(str(p.task), p.theory): p for p in predict_matrix(THEORIES, rows, progress=False)}
    for old, (_, _, new) in RENAMED.items():
        for th in THEORIES:
            a, b = cells[old, th], cells[new, th]
            assert b.verdict == a.verdict, (old, new, th, b.explanation)
            if a.verdict != Verdict.UNKNOWN and \
                    STATUS_ORDER.index(b.status) > STATUS_ORDER.index(a.status):
                # weaker only where the cell says why: its evidence carries what its
                # status needs (a fit, an N), and a searched map its note
                assert status_problem(b) is None, (new, th)
                if b.rule == closures.RULE_NAME:
                    assert "status_note" in b.evidence["search"], (new, th)


def test_bapo_hardness_is_matched_by_the_function(renamed):
    assert [r.source.name for r, *_ in H.reductions_into("vote")] == ["majority (BAPO-hard)"]
    assert H.reductions_into("parity") == [] and H.reductions_into("dyck") == []
    # a task with Majority's instance space but another function is not offered it
    assert not H.computes("parity", H.majority_problem(), (3, 5, 7))


def test_mpc_aggregation_and_limits_read_no_name(renamed):
    rng = np.random.default_rng(0)
    vote = tasks.get("vote", n=17)
    # the majority program, run on the renamed task, sums (it used to read task.name)
    x = vote.decision_view()[0].sample(rng, 64)
    out = run_algorithm(vote, x, algorithm=_aggregate_with("sum")).output
    assert np.array_equal(out, vote.label(x))
    assert measure(tasks.get("majority", n=17), rng, instances=50)["wrong_count"] == 0
    # a dyck-shaped task: the limit follows from k and the declared depth bound D
    class T:
        k, D = 2, 3
    assert dyck.dyck_limit(T, s=4, M=4) == dyck.automaton_limit(T, 4, 4) is not None
    T.D = None
    assert dyck.dyck_limit(T, s=4, M=4) == dyck.match_limit(T, 4, 4) is not None


def test_cycles_reduction_reads_directed_not_the_name():
    assert cycles.double_cover_reduction("reach_directed").map(
        np.array([[1, 2, 3, 0]]), 4).shape[1] == 4 * 4 + 3
    assert cycles.double_cover_reduction("reach_undirected").map(
        np.array([[1, 2, 3, 0]]), 4).shape[1] == 2 * 4 + 3
    with pytest.raises(TaskParameterError, match="declares no 'directed'"):
        cycles.double_cover_reduction("parity")


def test_the_index_closed_form_checks_the_function(renamed):
    ns, rows = [4, 6], [16, 64]
    prof = {"method": "exact"}
    assert _closed_form_rows("index", ns, rows, prof) is not None
    # index_any at k = 1 is Index too (checked, not named)
    assert _closed_form_rows("index_any:k=1", ns, rows, prof) is not None
    # the renamed one is checked only at the measured n: no all-n closed form
    assert _closed_form_rows("lookup", ns, rows, prof) is None
    # a function that is not Index (k = 2 queries) or rows that are not 2^n: none
    assert _closed_form_rows("index_any", ns, rows, prof) is None
    assert _closed_form_rows("index", ns, [16, 63], prof) is None


def test_a_claim_settles_a_renamed_task_by_its_function(renamed):
    """bapo-dyck settles Dyck-1 under another name: matched on every input up to N, so the
    cell is Hard with at most verified <= N, and its evidence says how it was matched."""
    cells = {str(p.task): p for p in predict_matrix(["bapo"], ["dyck:k=1", "brackets:k=1"],
                                                    progress=False)}
    a, b = cells["dyck:k=1"], cells["brackets:k=1"]
    assert a.rule == b.rule == "checked claim of proofs/" and a.verdict == b.verdict
    assert a.evidence["function_match"]["all_n"] and not b.evidence["function_match"]["all_n"]
    assert b.evidence["verified_up_to"] <= b.evidence["function_match"]["ns"][-1]


def test_renamed_khop_keeps_its_crasp_cell(renamed):
    """The flip-flop reduction (the cell's rule) is checked on the renamed task's labels."""
    cells = {str(p.task): p for p in predict_matrix(["crasp"], ["khop", "hops"],
                                                    progress=False)}
    a, b = cells["khop"], cells["hops"]
    assert (b.verdict, b.status, b.rule) == (a.verdict, a.status, a.rule)
    assert b.evidence["reduction"]["target"] == "hops"


# khop's B-RASP program, circuit builders, MPC algorithm and BAPO protocol are registered
# for the family name; the subclass that renames it inherits its definition, so the
# libraries offer them (registry.lineage) and each rule checks them against the task
def test_renamed_khop_changes_no_verdict(renamed):
    cells = {(str(p.task), p.theory): p
             for p in predict_matrix(THEORIES, ["khop", "hops"], progress=False)}
    assert [cells["hops", th].verdict for th in THEORIES] == \
        [cells["khop", th].verdict for th in THEORIES]


def test_a_renamed_family_keeps_its_induction_proof(renamed):
    # the specification machine is offered to the subclass (and checked against its
    # reference by the prover), so the renamed family keeps the induction; both cells are
    # verified to the identity's n (the machine equals the task only as far as checked)
    cells = {str(p.task): p for p in predict_matrix(["crasp"], ["majority", "vote"],
                                                    progress=False)}
    assert cells["majority"].status_label.startswith("verified ≤ ")
    assert cells["vote"].verdict == cells["majority"].verdict
    assert cells["vote"].status_label == cells["majority"].status_label
    assert cells["vote"].evidence["induction"]["status"] == "proved", cells["vote"].explanation
