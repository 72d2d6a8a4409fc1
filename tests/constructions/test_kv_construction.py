"""The kv_retrieval construction (binary-key retrieval, width m + 7): against the task on
every small input, its z3 specification against the task's label, each verification
method, and broken weights rejected."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import z3

from theorybench import constructions, tasks
from theorybench.constructions import check, interval, solver
from theorybench.constructions.retrieval import kv_spec, kv_valid
from theorybench.errors import TaskParameterError
from theorybench.tasks.base import product_space

SMALL = [(1, 0), (2, 0), (3, 0), (4, 0), (1, 2), (2, 2), (3, 3)]


def broken(c, edit):
    w = c.weights.copy()
    edit(w)
    return dataclasses.replace(c, weights=w)


def _ch(w, name):
    return w.channels.index(name)


#: one weight changed, each makes some decision wrong
BROKEN = {
    # head 1 of layer 1 aims one position too late: key_1 holds key bit 2
    "offset": lambda w: w.layers[0].wq.__setitem__((0, _ch(w, "one"), 0),
                                                   w.layers[0].wq[0, _ch(w, "one"), 0] + 2.0),
    # the value-position bonus is gone: the query's own position ties with the match
    "no-bonus": lambda w: w.layers[1].wq.__setitem__((0, _ch(w, "one"), w.layers[1].wq.shape[2] - 1),
                                                     0.0),
}


@pytest.mark.parametrize("n,m", SMALL)
def test_construction_decides_every_small_input(n, m):
    c = constructions.build("kv_retrieval", n=n, m=m)
    task = tasks.get("kv_retrieval", n=n, m=m)
    assert c.shape()["width"] == task.key_bits + 7
    x = task.enumerate()
    with torch.no_grad():
        z = c.module()(torch.as_tensor(x)).numpy()
    # the decision [logit > 0] is the task's label and the oracle's, on every input
    assert np.array_equal((z[:, 0] > 0).astype(int), task.oracle(x))
    for dtype in (torch.float64, torch.float32):
        cert = check.exhaustive(c, dtype)
        assert cert.status == "verified" and cert.inputs == len(x)
        assert cert.observed_margin > 0.9


@pytest.mark.parametrize("n,m", [(2, 0), (3, 0), (2, 2)])
def test_z3_specification_equals_the_label(n, m):
    task = tasks.get("kv_retrieval", n=n, m=m)
    everything = product_space(task.input_space(), 1 << 16)
    xs = [z3.Int(f"x{i}") for i in range(task.input_length())]
    spec, valid = kv_spec(xs, n, task.key_bits), kv_valid(xs, n, task.key_bits)
    ok = task.valid_inputs(everything)
    labels = task.label(everything)
    for row, good, lab in zip(everything, ok, labels):
        sub = [(v, z3.IntVal(int(t))) for v, t in zip(xs, row)]
        assert z3.is_true(z3.simplify(z3.substitute(valid, *sub))) == bool(good)
        if good:
            assert z3.is_true(z3.simplify(z3.substitute(spec, *sub))) == bool(lab)


def test_width_is_linear_in_m_and_independent_of_n():
    widths = {m: constructions.build("kv_retrieval", n=1 << m, m=m).shape()["width"]
              for m in range(1, 9)}
    assert widths == {m: m + 7 for m in range(1, 9)}
    assert constructions.build("kv_retrieval", n=2, m=6).shape()["width"] == 13


def test_proofs_in_real_arithmetic():
    c = constructions.build("kv_retrieval", n=4, m=2)
    z = solver.prove_peaked(c)
    assert z.status == "proved" and float(z.margin) > 0.99
    assert interval.verify(c).status == "proved"
    # length 35 (n = 8, m = 3) is past the default z3 guard; max_len lifts it
    with pytest.raises(Exception, match="length <= 24"):
        solver.prove_peaked(constructions.build("kv_retrieval", n=8, m=3))


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_weight_rejected(name):
    c = constructions.build("kv_retrieval", n=4, m=2)
    bad = broken(c, BROKEN[name])
    assert check.exhaustive(bad).status == "refuted"
    assert solver.prove_peaked(bad).status == "refuted"
    assert interval.verify(bad).status != "proved"


def test_wrong_task_refused():
    with pytest.raises(TaskParameterError, match="takes a task laid out as kv_retrieval"):
        constructions.retrieval.kv_retrieval(tasks.get("index", n=4))


def test_a_renamed_kv_task_gets_the_construction():
    """The layout the task declares, not its name, admits it (issue 28 "Correctness"): the
    kv_retrieval class under another name is built and verified on every input."""
    base = tasks.family("kv_retrieval")
    renamed = type("Lookup", (base,), {"name": "kv_lookup", "__module__": __name__})
    c = constructions.retrieval.kv_retrieval(renamed(n=3, m=2))
    assert c.task.name == "kv_lookup"
    assert check.exhaustive(c).status == "verified"
    # the same layout with another label is built, and the check against the label fails
    negated = type("NotKv", (base,), {"name": "kv_not", "__module__": __name__,
                                      "label": lambda self, t: 1 - base.label(self, t)})
    assert check.exhaustive(constructions.retrieval.kv_retrieval(
        negated(n=3, m=2))).status == "refuted"
