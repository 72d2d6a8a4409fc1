"""The EXACT-HALF lemma's checks (formal/bapo/exact_count.py) and the two BAPO claims:
each check passes on the right object and rejects a deliberately wrong one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from theorybench.formal.bapo import exact_count as E
from theorybench.formal.bapo.protocol import Protocol
from theorybench.proofs import claims as C
from theorybench.proofs.claims import bapo


def test_labels_against_definitions():
    x = np.array(list(itertools.product((0, 1), repeat=6)), dtype=np.int64)
    assert E.exact_half_labels(x).tolist() == [int(sum(r) == 3) for r in x.tolist()]
    want = [int(int("".join(map(str, r[:3])), 2) > int("".join(map(str, r[3:])), 2))
            for r in x.tolist()]
    assert E.greater_than_labels(x).tolist() == want


@pytest.mark.parametrize("a,b", [(0, 0), (0, 1), (1, 0), (1, 1), (0, 2)])
def test_construction_defeats_every_sample_protocol(a, b):
    r = E.run_construction(a, b, rng=np.random.default_rng(1))
    assert r["ok"] and r["protocols"] >= 10
    assert all(row["check"] == "ok" for row in r["rows"])


def test_construction_threshold_matches_the_proof():
    assert E.min_prefix_length(0, 1) == 16 * 2 + 1
    assert E.min_prefix_length(1, 1) == 64 * 4 + 1
    assert E.size_arithmetic_all_ab()["status"] == "proved"


def test_non_homogeneous_block_is_rejected():
    """Wrong variant: the block on the first m positions whatever their type. A protocol
    that attends to the ones of exactly those positions separates the pair, and the
    re-check rejects the witness (the delivered set is not legal for both inputs)."""
    r = E.run_construction(1, 1, homogeneous=False)
    assert not r["ok"]
    bad = [row for row in r["rows"] if row["check"] != "ok"]
    assert bad and all(not row["check"]["G legal for both"] for row in bad)
    step = bapo._construction_step(3, homogeneous=False)
    assert not step.ok and step.status == "failed"


def _window_protocol(a, b):
    m = 1 << a
    return Protocol("window", a, b,
                    f=lambda p: np.zeros((len(p), a), dtype=np.int64),
                    g=lambda S, k, tok, pos: (tok == 1) & (pos < m),
                    h=lambda bits, gt, gp, s, k: np.zeros(len(bits), dtype=np.int64))


def test_check_witness_rejects_a_collision_of_labels_and_of_views():
    p = _window_protocol(1, 1)
    w = E.fooling_witness(p, 2 * E.min_prefix_length(1, 1))
    assert w is not None and E.check_witness(p, w)["ok"]
    # a "fooling pair" whose two inputs have the same label (the suffix count moved by
    # t - s for the no-instance): rejected
    same = E.Witness(w.n, w.k, w.s, w.t, w.x_yes, w.x_yes.copy(), w.G)
    assert not E.check_witness(p, same)["labels differ"]
    # a delivered set the adversary may not choose (a position g does not select)
    unselected = [i for i in range(w.k) if i >= 2][:1]
    bad = E.Witness(w.n, w.k, w.s, w.t, w.x_yes, w.x_no, unselected)
    c = E.check_witness(p, bad)
    assert not c["ok"] and not c["G legal for both"]


def test_split_sat_certificates_and_an_easy_function_is_not_refuted():
    res = E.split_min_a(E.exact_half_df(4), 2, max_a=4, max_b=1)
    assert res[0].startswith("min a = 2") and res[1].startswith("min a = 1")
    res = E.split_min_a(E.greater_than_df(3), 3, max_a=4, max_b=2)
    assert res == {0: "min a = 3 (a = 2 UNSAT)", 1: "min a = 1 (a = 0 UNSAT)",
                   2: "min a = 0"}
    # parity is a (1, 0)-BAPO: the SAT step must find it, not claim a lower bound
    par = E._binary_df(6, lambda x: np.asarray(x).sum(axis=1) % 2, "parity(n=6)", "")
    assert E.split_min_a(par, 3, max_a=3, max_b=0) == {0: "min a = 1 (a = 0 UNSAT)"}


def test_the_two_claims_and_their_cells():
    dyck = C.certificate("bapo-dyck")
    assert dyck.ok and dyck.status.startswith("verified") and not dyck.conditions
    kinds = {s.name: s.kind for s in dyck.steps}
    assert kinds["EXACT-HALF is BAPO-hard"] == "by_hand"  # never "proven" by a finite check
    badd = C.certificate("bapo-binary-add")
    assert badd.ok and badd.status == "conditional"
    assert badd.conditions == ["Greater-Than is BAPO-hard"]
    assert [c.name for c in C.settling("bapo", "dyck:k=1")] == ["bapo-dyck"]
    assert [c.name for c in C.settling("bapo", "binary_add")] == ["bapo-binary-add"]
