"""Claims crasp-retrieval-size and crasp-softmax-width on the suite's kv_retrieval task:
the communication rows, the fooling set, the size bound, the softmax side, and a wrong
variant of each rejected."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from theorybench import constructions
from theorybench.proofs import claims as C
from theorybench.proofs.claims import retrieval as R


def test_the_claims_use_the_suite_task():
    t = R.kv_task(2)
    assert t.name == "kv_retrieval" and t.n == 4 and t.input_length() == 14
    assert R.cut(2) == 12


def test_rows_at_the_cut_exact_and_independent():
    assert [R.distinct_rows(m) for m in (1, 2)] == [4, 16]
    assert [R.rows_by_communication(m) for m in (1, 2)] == [4, 16]

    def first_query_bit_ignored(tokens):
        t = np.array(tokens)
        t[:, -2] = 0           # m = 2: the lookup reads only the query's last bit
        keys, values, query = R.kv_task(2).split(t)
        hit = np.argmax(keys == query[:, None], axis=1)
        return values[np.arange(len(t)), hit]
    assert R.distinct_rows(2, label=first_query_bit_ignored) < 16


def test_fooling_set_and_a_collision():
    assert [R.fooling_set_z3(m) for m in (1, 2, 3)] == ["proved"] * 3
    # keys compared on their last 2 of 3 bits only: two value vectors collide
    assert R.fooling_set_z3(3, key_bits=2) == "refuted"


def test_size_bound_is_exact():
    for m in range(1, 9):
        b = R.size_bound(m)
        k, s = R.cut(m), b["s >="]
        assert (k + 1) ** s >= 2 ** (2 ** m) > (k + 1) ** (s - 1)
        assert s == math.ceil((2 ** m) / math.log2(k + 1))
    assert [R.size_bound(m)["s >="] for m in (1, 2, 3, 4)] == [1, 2, 2, 3]


def test_softmax_step_reports_width_and_rejects_a_broken_weight():
    step = R.softmax_step(2)
    assert step.ok and step.up_to == 2
    assert "width 9 (m + 7)" in step.details["m=2 (n = 2^m = 4, length 14)"]
    real = constructions.BUILDERS["kv_retrieval"]

    def bad_builder(task):
        c = real(task)
        w = c.weights.copy()
        w.layers[1].wk[0, w.channels.index("isval"), -1] = 0.0   # no value-position bonus
        return dataclasses.replace(c, weights=w)
    with constructions.CONSTRUCTIONS.scoped():
        constructions.CONSTRUCTIONS.add(bad_builder, "kv_retrieval", first=True)
        bad = R.softmax_step(2)
    assert not bad.ok and bad.status == "failed"
    assert constructions.BUILDERS["kv_retrieval"] is real


@pytest.mark.parametrize("name", ["crasp-retrieval-size", "crasp-softmax-width"])
def test_certificates_name_the_by_hand_steps(name):
    cert = C.certificate(name, 2)
    assert cert.ok and cert.status == "verified ≤ 2" and not cert.conditions
    kinds = {s.name: s.kind for s in cert.steps}
    assert "softmax construction for every m" in kinds
    assert kinds["softmax construction for every m"] == "by_hand"
    assert any(k == "by_hand" for k in kinds.values())
    if name == "crasp-softmax-width":
        ratio = next(s for s in cert.steps if s.name.startswith("ratio"))
        assert "softmax width w = 19" in ratio.details["m=12"]
        assert "not verified at this m" in ratio.details["m=12"]
        assert kinds["asymptotic separation"] == "by_hand"
