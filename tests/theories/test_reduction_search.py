"""The reduction search (formal/search/reductions.py) and its use by the catalogue rule:
Parity and Majority re-written as task files get every cell the built-ins get."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from theorybench.formal.search import reductions as S
from theorybench.tasks.registry import FAMILIES, load_task_file
from theorybench.theories import closures
from theorybench.theories.prediction import STATUS_ORDER, Status, Verdict, status_problem
from theorybench.theories.runner import predict_matrix

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "tasks"
#: every column, sensitivity included: it admits no map (its verdicts are about a
#: distribution), so the user files get its cells from its own measurement under the
#: uniform distribution and its closed forms matched by the task's function
THEORIES = ["star_free", "star_free_pos", "ac0", "tc0", "crasp", "mpc", "bapo", "sensitivity"]


@pytest.fixture
def user_tasks():
    with FAMILIES.scoped():
        load_task_file(DATA / "my_parity.py", export=False)
        load_task_file(DATA / "my_majority.py", export=False)
        yield


def _write(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text(f'NAME = "{name}"\nALPHABET = ("0", "1")\nLENGTHS = (1, 64)\n{body}')
    return path


def test_the_search_finds_the_identity_both_ways(user_tasks):
    res = S.search("my_parity", ["parity", "majority", "all", "dyck:k=1", "index"])
    names = {(e.source_label, e.target_label) for e in res.entries}
    assert names == {("my_parity", "parity"), ("parity", "my_parity")}
    e = res.out_of("my_parity")[0]
    assert e.letter_map == {"0": "0", "1": "1"} and e.positions == "identity"
    assert e.ns == tuple(range(1, 15)) and e.searched and e.kind == "projection"
    chk = e.check()
    assert not e.problems(chk) and chk.verified_up_to == 14
    assert all(c.exhaustive for c in chk.by_n)
    # the budget is counted in label evaluations and is deterministic
    again = S.search("my_parity", ["parity", "majority", "all", "dyck:k=1", "index"])
    assert again is res and res.evaluations > 0 and not res.exhausted
    assert S.search("my_parity", ["parity"], budget=100).exhausted


def test_a_letter_swap_and_a_reversal_are_found(tmp_path):
    with FAMILIES.scoped():
        # more 0s than 1s at odd n: Majority after swapping the letters
        path = _write(tmp_path, "minority", "def VALID(n):\n    return n % 2 == 1\n"
                      "def label(x):\n    return 2 * (x == 0).sum(axis=1) > x.shape[1]\n")
        load_task_file(path, export=False)
        res = S.search("minority", ["majority", "parity"])
        assert {e.target_label for e in res.entries} | {e.source_label for e in res.entries} \
            == {"minority", "majority"}
        assert all(e.letter_map == {"0": "1", "1": "0"} for e in res.entries)
        path = _write(tmp_path, "first_one", "def label(x):\n    return x[:, 0] == 1\n")
        load_task_file(path, export=False)
        path2 = _write(tmp_path, "last_one", "def label(x):\n    return x[:, -1] == 1\n")
        load_task_file(path2, export=False)
        res = S.search("first_one", ["last_one"])
        assert res.entries and {e.positions for e in res.entries} == {"reversal"}
        chk = res.entries[0].check()
        assert chk.is_projection and not chk.is_split_preserving
        # a reversal is no letter map with identity positions: C-RASP does not admit it
        letter = next(c for c in closures.CLOSURES.get("crasp") if c.maps == "letter")
        assert letter.admits(res.entries[0], chk) is not None


def test_complemented_labels(tmp_path):
    with FAMILIES.scoped():
        path = _write(tmp_path, "even_ones", "def label(x):\n    return x.sum(axis=1) % 2 == 0\n")
        load_task_file(path, export=False)
        res = S.search("even_ones", ["parity", "majority"])
        e = res.out_of("even_ones")[0]
        assert e.negated and e.letter_map == {"0": "0", "1": "1"} and e.target_label == "parity"
        chk = e.check()
        assert chk.labels_preserved and not e.problems(chk)
        # the same map without the complement fails its check on every input
        import dataclasses
        plain = dataclasses.replace(e, negated=False, _checks={})
        assert plain.check().by_n[0].mismatches == plain.check().by_n[0].checked


def test_a_wrong_map_is_rejected_by_the_check(user_tasks):
    e = S.search("my_majority", ["majority"]).out_of("my_majority")[0]
    # the same entry with the letters swapped: Majority(NOT x) = NOT Majority(x)
    swap = np.array([1, 0])
    import dataclasses
    wrong = dataclasses.replace(e, name="swapped letters", map=lambda x, n: swap[x], _checks={})
    chk = wrong.check()
    assert not chk.labels_preserved and wrong.problems(chk)
    assert chk.counterexample["why"] == "label changed"
    # and the search itself rejects a near miss: majority vs the strict-majority of 0s
    assert not S.search("my_majority", ["all", "any", "parity"]).entries


def test_lengths_the_other_task_lacks(tmp_path):
    with FAMILIES.scoped():
        # parity defined on every n, its built-in too: covered both ways
        path = _write(tmp_path, "short_parity", "def label(x):\n    return x.sum(axis=1) % 2\n")
        load_task_file(path, export=False)
        res = S.search("short_parity", ["parity"])
        assert res.out_of("short_parity") and res.into("short_parity")
        # majority with ties counted as 0 at even n: the built-in has no even n, so T -> S
        # (Easy for T) does not cover T's even lengths; S -> T covers majority's odd n
        path = _write(tmp_path, "maj_ties", "def label(x):\n    return 2 * x.sum(axis=1) > "
                                            "x.shape[1]\n")
        load_task_file(path, export=False)
        res = S.search("maj_ties", ["majority"])
        assert not res.out_of("maj_ties") and res.into("maj_ties")
        assert any("not covered" in t["outcome"] for t in res.tried)


def _cells(preds):
    return {(str(p.task), p.theory): p for p in preds}


def test_user_parity_and_majority_get_every_cell_of_the_builtins(user_tasks):
    fams = ["parity", "majority", "my_parity", "my_majority"]
    cells = _cells(predict_matrix(THEORIES, fams, progress=False))
    for builtin in ("parity", "majority"):
        mine = "my_" + builtin
        for th in THEORIES:
            b, u = cells[builtin, th], cells[mine, th]
            if b.verdict == Verdict.UNKNOWN:
                continue
            assert u.verdict == b.verdict, (mine, th, u.explanation)
            ib, iu = STATUS_ORDER.index(b.status), STATUS_ORDER.index(u.status)
            if iu > ib:  # weaker: the cell says why
                # its evidence carries what its status needs, and a searched map its note
                assert status_problem(u) is None, (mine, th)
                if u.rule == closures.RULE_NAME:
                    assert "status_note" in u.evidence["search"], (mine, th)
    # the cells the search supplies (other rules may decide some first: my_majority's TC0
    # and MPC cells come from the circuit template search's count formula) name the map and N
    found = [p for (t, th), p in cells.items() if t.startswith("my_")
             and p.rule == closures.RULE_NAME and "search" in p.evidence]
    assert ("my_parity", "tc0") in {(str(p.task), p.theory) for p in found}, \
        sorted((str(p.task), p.theory, p.rule) for p in cells.values())
    assert cells["my_majority", "tc0"].rule == "searched TC0 circuit family"
    for p in found:
        assert p.status == Status.VERIFIED
        assert p.evidence["verified_up_to"] <= max(p.evidence["reduction"]["ns"])
        assert p.evidence["search"]["letter_map"] == {"0": "0", "1": "1"}
        assert "found by search" in p.evidence["reduction"]["name"]
        assert "status_note" in p.evidence["search"]


def test_shipped_rows_run_no_search():
    assert closures.searched("parity") is None and closures.shipped("dyck:k=1")
