"""The catalogue of checked task-to-task reductions and its use by every theory (issue 11,
defect 8): maps checked on all small instances (or K samples), wrong maps rejected,
identity maps never counted as reductions, Hard carried along S -> T, Easy back only
where the theory's class is closed under the map, statuses never stronger than the cell
and the check they rest on."""

import dataclasses

import numpy as np
import pytest

from theorybench.formal import reduction_catalogue as RC
from theorybench.theories import closures
from theorybench.theories.base import STATUS_ORDER, Basis, Context, Status, Verdict
from theorybench.theories.runner import predict_matrix, predict_one


@pytest.fixture(scope="module")
def matrix():
    return predict_matrix(progress=False)


# ---- the catalogue itself ----------------------------------------------------------------

def test_every_entry_passes_its_check_and_records_size_and_samples():
    names = [e.name for e in RC.catalogue()]
    assert len(names) == len(set(names)) >= 10
    for e in RC.catalogue():
        chk = e.check()
        assert chk.ok and not e.problems(chk), (e.name, e.problems(chk))
        assert [c.n for c in chk.by_n] == list(e.ns)
        for c in chk.by_n:
            assert c.target_n == e.size(c.n)            # the declared blow-up n -> n'
            assert c.checked > 0
            if not c.exhaustive:                       # sampled n say how many: K
                assert chk.sampled[c.n] == c.checked >= 2000
        assert chk.verified_up_to == max(e.ns)
        d = e.to_dict(chk)
        assert d["verified_up_to"] == max(e.ns) and d["size"].startswith("n' =")


def test_reach_doubling_is_exhaustive_at_n2_and_sampled_beyond():
    e = RC.into("reach_directed")[0]
    chk = e.check()
    assert chk.by_n[0].exhaustive and chk.by_n[0].checked == 6 ** 2 * 4 ** 2
    assert set(chk.sampled) == {4, 6, 8}
    assert chk.is_split_preserving and chk.max_fanout == 2 and not chk.is_identity


def test_a_wrong_map_is_rejected_by_its_check():
    e = RC.into("reach_directed")[0]
    one_way = dataclasses.replace(e, name="one-way edges", map=RC.one_way_edges)
    chk = one_way.reduction().check(one_way.ns)
    assert not chk.ok and chk.counterexample["why"] == "label changed"
    assert one_way.problems(chk)
    # index -> index_all padded with zeros: the AND sees a 0 and the label flips
    e = next(x for x in RC.into("index_all"))
    zeros = dataclasses.replace(e, name="zero padding", map=RC.index_padding("any", 3, "tokens"))
    assert not zeros.reduction().check(zeros.ns).ok
    # k-hop: a tail that does not walk back to position n
    e = next(x for x in RC.into("khop:k=2"))

    def bad_tail(x, n):
        return np.concatenate([x, (x[:, n - 1:n] + 1) % 4], axis=1)
    wrong = dataclasses.replace(e, name="bad tail", map=bad_tail)
    assert not wrong.reduction().check(wrong.ns).ok


def test_an_identity_on_the_same_problem_is_not_a_reduction():
    # index -> index_all with k = 1 has the same tokens and the same instance space
    same = RC.Entry(name="index -> index_all:k=1 (identity)", source_family="index",
                    source_params={}, target_family="index_all", target_params={"k": 1},
                    map=RC.identity,
                    size=lambda n: n, size_formula="n' = n", blowup="identity",
                    ns=(1, 2, 3, 4))
    chk = same.reduction().check(same.ns)
    assert chk.labels_preserved and chk.is_identity and not chk.is_inclusion
    assert any("identity" in p for p in same.problems(chk))
    # declaring it an inclusion does not help: the check must confirm a proper subset
    declared = dataclasses.replace(same, inclusion=True)
    assert any("identity" in p for p in declared.problems(chk))


def test_dyck1_into_dyck2_is_a_checked_proper_inclusion():
    e = RC.into("dyck")[0]
    chk = e.check()
    assert e.inclusion and chk.is_identity and chk.is_inclusion
    assert all(c.proper_inclusion for c in chk.by_n) and not e.problems(chk)


# ---- closures --------------------------------------------------------------------------

def test_closures_admit_by_map_kind():
    reach = RC.into("reach_directed")[0]
    khop = RC.into("khop:k=2")[0]
    mask = next(e for e in RC.catalogue() if e.target_label == "index_all:mode=mask")
    c_bapo, = closures.CLOSURES.get("bapo")
    assert c_bapo.admits(reach, reach.check()) is None
    assert "split-preserving" in c_bapo.admits(khop, khop.check())   # the tail reads back
    c_mpc, = closures.CLOSURES.get("mpc")
    assert "fan-out" in c_mpc.admits(mask, mask.check())              # y_j = [q = j]: fan-out n
    incl = closures.CLOSURES.get("crasp")[0]
    assert incl.admits(reach, reach.check()) is not None         # not an inclusion
    assert closures.CLOSURES.get("sensitivity") == ()


def test_crasp_reach_directed_follows_from_reach_undirected():
    ctx = Context()
    und = predict_one("crasp", "reach_undirected", ctx)
    dire = predict_one("crasp", "reach_directed", ctx)
    assert und.verdict == Verdict.HARD
    assert dire.verdict != Verdict.UNKNOWN
    assert dire.verdict == Verdict.HARD and dire.basis == Basis.REDUCTION
    src = dire.evidence["source_cell"]
    assert src["task"] == "reach_undirected" and src["verdict"] == "hard"
    assert src["rule"] == und.rule
    assert dire.evidence["reduction"]["name"].startswith("reach_undirected -> reach_directed")
    assert not dire.evidence["reduction"]["check"]["is_identity"]
    # no stronger than the source cell, nor than the reduction's finite check
    assert STATUS_ORDER.index(dire.status) >= STATUS_ORDER.index(und.status)
    assert STATUS_ORDER.index(dire.status) >= STATUS_ORDER.index(Status.VERIFIED)


def test_crasp_does_not_carry_easy_nor_flip_flop_hardness_through_projections():
    # C-RASP is not known to be closed under these maps: khop:k=2 is not derived from
    # khop (k=1, Hard by flip-flop), and index's Easy neighbours give it nothing
    p = predict_one("crasp", "khop:k=2")
    assert p.rule != closures.RULE_NAME
    outcome = next(t["outcome"] for t in p.tried if t["rule"] == closures.RULE_NAME)
    assert "per-position" in outcome or "not admitted" in outcome


def test_sensitivity_applies_no_reduction():
    p = predict_one("sensitivity", "edge_exists")  # Unknown by its own rules
    outcome = next(t["outcome"] for t in p.tried if t["rule"] == closures.RULE_NAME)
    assert outcome.startswith("no reduction is applied")


def test_catalogue_runs_after_own_reductions_and_before_theorems(matrix):
    order = {b.value: i for i, b in enumerate((Basis.CONSTRUCTION, Basis.LOWER_BOUND,
                                               Basis.REDUCTION, Basis.THEOREM))}
    for p in matrix:
        idx = [i for i, t in enumerate(p.tried) if t["rule"] == closures.RULE_NAME]
        if not idx:
            # an own rule before its place fired
            assert p.tried and p.tried[-1]["basis"] in ("construction", "lower-bound",
                                                         "reduction"), (p.theory, p.task)
            continue
        i, = idx
        assert all(order[t["basis"]] <= order["reduction"] for t in p.tried[:i])
        assert all(t["basis"] == "theorem" for t in p.tried[i + 1:]), (p.theory, p.task)


# ---- the whole matrix ------------------------------------------------------------------

def _checks(ev, depth=0):
    """Every reduction check (a dict with is_identity) anywhere in a cell's evidence."""
    if isinstance(ev, dict):
        if "is_identity" in ev:
            yield ev
        if depth < 5:
            for k, v in ev.items():
                if k != "other_rules":
                    yield from _checks(v, depth + 1)
    elif isinstance(ev, list) and depth < 5:
        for v in ev:
            yield from _checks(v, depth + 1)


def test_no_reduction_verdict_rests_on_an_identity_map_anywhere_in_its_evidence(matrix):
    from theorybench.theories.base import to_jsonable
    bad = []
    for p in matrix:
        if p.basis != Basis.REDUCTION:
            continue
        ev = to_jsonable(p.evidence)
        for chk in _checks(ev):
            if chk["is_identity"] and not (chk.get("is_inclusion") and "inclusion" in
                                           p.explanation and ev.get("map")):
                bad.append((p.theory, p.task, chk.get("reduction")))
    assert not bad, bad


def test_catalogue_cells_are_no_stronger_than_what_they_rest_on(matrix):
    by = {(p.theory, p.task): p for p in matrix}
    cells = [p for p in matrix if p.rule == closures.RULE_NAME]
    assert cells
    for p in cells:
        other = p.evidence.get("source_cell") or p.evidence.get("target_cell")
        o = by[(p.theory, other["task"])]
        assert o.verdict == p.verdict
        assert STATUS_ORDER.index(p.status) >= STATUS_ORDER.index(Status(other["status"]))
        assert STATUS_ORDER.index(p.status) >= STATUS_ORDER.index(Status.VERIFIED)
        if p.status == Status.VERIFIED:
            assert p.evidence["verified_up_to"] <= p.evidence["reduction"]["verified_up_to"]


def test_the_matrix_is_consistent_along_admitted_reductions(matrix):
    """Derived, not listed: for every catalogue entry S -> T between matrix rows and every
    theory whose closure admits it, Hard on S gives Hard on T (for the admitted source
    arguments) and, where Easy transfers, Easy on T gives Easy on S; never the opposite
    verdict on the other end."""
    by = {(p.theory, p.task): p for p in matrix}
    rows = {p.task for p in matrix}
    theories = {p.theory for p in matrix}
    from theorybench import tasks
    checked = 0
    for e in RC.catalogue():
        if e.source_label not in rows or e.target_label not in rows:
            continue
        if e.main_only and any(tasks.family(f).output != "final"
                               for f in (e.source_family, e.target_family)):
            continue
        chk = e.check()
        for th in theories:
            s, t = by[(th, e.source_label)], by[(th, e.target_label)]
            for c in (closures.CLOSURES.get(th) if th in closures.CLOSURES else ()):
                if c.admits(e, chk) is not None:
                    continue
                if c.hard_arguments is None:   # a closure: the two cells cannot disagree
                    assert not (s.verdict == Verdict.HARD and t.verdict == Verdict.EASY), \
                        (th, e.name)
                if (s.verdict == Verdict.HARD and s.rule != closures.RULE_NAME
                        and (c.hard_arguments is None or s.rule in c.hard_arguments)):
                    assert t.verdict == Verdict.HARD, (th, e.name, t.verdict)
                    checked += 1
                if c.easy and t.verdict == Verdict.EASY and t.rule != closures.RULE_NAME:
                    assert s.verdict == Verdict.EASY, (th, e.name, s.verdict)
                    checked += 1
    assert checked >= 5


def test_single_cell_agrees_with_the_matrix(matrix):
    by = {(p.theory, p.task): p for p in matrix}
    for th, task in (("crasp", "index_all"), ("tc0", "dyck:k=1")):
        one = predict_one(th, task)
        cell = by[(th, task)]
        assert (one.verdict, one.basis, one.status) == (cell.verdict, cell.basis, cell.status)
