"""The matrix read cell by cell (issue 29, "a test walks the whole matrix"): every
``proven`` cell names an all-n argument, every cell decided by an inclusion between
theories names its edges and a source cell the matrix really has, and no two columns
contradict each other through an inclusion.

``status_problem`` on every cell of the whole matrix is tested by test_matrix_evidence.py
(default suite); this module adds what that test does not read. The whole matrix is
walked once, in the slow suite (about a minute idle, several under load); the default
suite walks two rows on which the inclusions decide cells both ways.
"""

import re

import pytest

from theorybench.theories import lattice
from theorybench.theories.base import Context, Status, Verdict
from theorybench.theories.runner import predict_matrix, predict_one

#: khop:k=2: Easy comes up from B-RASP[pos] to AC0 and TC0; reach_undirected: Hard comes
#: down from AC0 to B-RASP[pos] and B-RASP.
SMALL_ROWS = ("khop:k=2", "reach_undirected")

#: What an all-n argument says about itself; a proof that says none of these (e.g. only
#: "checked on every input up to n = 12") is a finite check, which is `verified ≤ N`.
ALL_N = re.compile(r"for (every|all|each) (n|m|length|word|input length)\b|at every length|"
                   r"\bevery (n|m|length)\b|\ball n\b|induction|closed form|by definition|"
                   r"\b(any|all) (n|lengths?)\b|\btheorem\b|\bclaim\b", re.I)
#: ... unless it says the opposite ("checked for n <= 7, not for all n").
NOT_ALL_N = re.compile(r"\bnot (proved |proven |shown )?(for|at) (all|every) (n|lengths?)\b", re.I)
EDGE_NAMES = {e.name: e for e in lattice.EDGES}


def problems(cells) -> list[str]:
    by = {(p.theory, str(p.task)): p for p in cells}
    bad = []
    for p in cells:
        where = f"{p.theory} on {p.task}"
        ev = p.evidence or {}
        proof = str(ev.get("proof", ""))
        if p.status == Status.PROVEN and (not ALL_N.search(proof) or NOT_ALL_N.search(proof)):
            bad.append(f"{where}: proven, but its proof names no all-n argument: "
                       f"{str(ev.get('proof'))[:200]!r}")
        if ev.get("lattice_conflict"):
            bad.append(f"{where}: lattice conflict: {ev['lattice_conflict']}")
        if p.rule != lattice.RULE_NAME:
            continue
        lat = ev.get("lattice") or {}
        edges = [EDGE_NAMES.get(name) for name in lat.get("edges", [])]
        src = lat.get("source_cell") or {}
        if not edges or None in edges:
            bad.append(f"{where}: transferred without naming declared edges: {lat}")
            continue
        chain = [edges[0].lower] + [e.upper for e in edges]
        up = p.verdict == Verdict.EASY
        ends = (src.get("theory"), p.theory) if up else (p.theory, src.get("theory"))
        if (chain[0], chain[-1]) != ends or any(a.upper != b.lower
                                                for a, b in zip(edges, edges[1:])):
            bad.append(f"{where}: the path {chain} does not lead from the source cell "
                       f"{src.get('theory')} in the direction of a {p.verdict.value} verdict")
        other = by.get((src.get("theory"), str(p.task)))
        if other is None or other.verdict != p.verdict or other.status.value != src["status"]:
            bad.append(f"{where}: its source cell {src} is not the matrix's "
                       f"({other and (other.verdict.value, other.status.value)})")
    return bad


@pytest.fixture(scope="module")
def small():
    ctx = Context(cache={})
    return ctx, predict_matrix(families=list(SMALL_ROWS), ctx=ctx, progress=False)


def test_small_rows_have_justified_statuses_and_transfers(small):
    _, cells = small
    assert not problems(cells)
    by = {(p.theory, str(p.task)): p for p in cells}
    moved = {k for k, p in by.items() if p.rule == lattice.RULE_NAME}
    # the rows were chosen so that both directions are exercised
    assert ("ac0", "khop:k=2") in moved and by[("ac0", "khop:k=2")].verdict == Verdict.EASY
    assert ("star_free", "reach_undirected") in moved
    assert by[("star_free", "reach_undirected")].verdict == Verdict.HARD


def test_a_single_cell_is_the_matrix_cell(small):
    ctx, cells = small
    for p in cells:
        if p.rule == lattice.RULE_NAME or p.evidence.get("lattice_conflict"):
            one = predict_one(p.theory, p.task, ctx)
            assert (one.verdict, one.status, one.rule, one.evidence.get("lattice")) == \
                (p.verdict, p.status, p.rule, p.evidence.get("lattice")), (p.theory, p.task)


def test_the_check_fails_on_wrong_cells(small):
    import copy
    _, cells = small
    moved = next(p for p in cells if p.rule == lattice.RULE_NAME)
    wrong = copy.deepcopy(moved)
    wrong.evidence["lattice"]["edges"] = ["ac0 ⊆ star_free"]
    assert any("declared edges" in b for b in problems([wrong]))
    wrong = copy.deepcopy(moved)
    wrong.evidence["lattice"]["source_cell"]["status"] = "proven"
    assert any("source cell" in b for b in problems(cells + [wrong]))
    finite = copy.deepcopy(moved)
    finite.status, finite.evidence["proof"] = Status.PROVEN, "checked on every input up to n=12"
    assert any("no all-n argument" in b for b in problems([finite]))
    finite.evidence["proof"] = "a projection checked for n <= 7, not for all n"
    assert any("no all-n argument" in b for b in problems([finite]))
    finite.evidence["proof"] = "z3 induction: equal at every length"
    assert not any("no all-n argument" in b for b in problems([finite]))


@pytest.mark.slow
def test_whole_matrix_statuses_and_transfers():
    cells = predict_matrix(progress=False)
    assert not problems(cells)
    assert any(p.rule == lattice.RULE_NAME for p in cells)
