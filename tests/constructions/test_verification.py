"""The verification methods: each proves the correct constructions, and each catches a
deliberately broken weight (one entry changed); solver timeouts are ``unknown``; the z3
specifications agree with the tasks' labels."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from theorybench import constructions
from theorybench.constructions import check, interval, solver, verify as cverify


def broken(c, edit):
    w = c.weights.copy()
    edit(w)
    return dataclasses.replace(c, weights=w)


def _pm(c):
    return c.weights.channels.index("pm")


#: (construction, one weight changed): each change makes some decision wrong
BROKEN = {
    # "1" counts half: (0.5c - (n - c))/n < 0 at c = (n + 1)/2
    "majority": (lambda: constructions.build("majority", 5),
                 lambda w: w.embed.__setitem__((1, 0), 0.5)),
    # the flag average no longer enters the decision: ")(" accepted
    "dyck": (lambda: constructions.build("dyck", 6, k=1),
             lambda w: w.w_out.__setitem__((w.channels.index("m"), 0), 0.0)),
    # 2tj - j^2 -> tj - j^2: peaks at t/2
    "index": (lambda: constructions.build("index", 5),
              lambda w: w.layers[0].wq.__setitem__((0, w.channels.index("t"), 0), 1.0)),
    # the matching head no longer sees symbol 0 in prev
    "induction": (lambda: constructions.build("khop", 5, k=1, alphabet=2),
                  lambda w: w.layers[1].wk.__setitem__((0, w.channels.index("prev0"), 0), 0.0)),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_weight_caught_by_exhaustive(name):
    make, edit = BROKEN[name]
    assert check.exhaustive(make()).status == "verified"
    cert = check.exhaustive(broken(make(), edit))
    assert cert.status == "refuted"
    c = make()
    x = np.array([cert.counterexample])
    with torch.no_grad():
        z = broken(c, edit).module()(torch.as_tensor(x)).numpy()
    assert (constructions.margins(z, c.labels(x)) <= 0).any()


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_weight_caught_by_interval(name):
    make, edit = BROKEN[name]
    assert interval.verify(make()).status == "proved"
    cert = interval.verify(broken(make(), edit))
    assert cert.status != "proved" and cert.counterexample is not None


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_weight_caught_by_z3(name):
    make, edit = BROKEN[name]
    good = cverify.verify(make(), "z3")
    assert [ct.status for ct in good] == ["proved"]
    bad = cverify.verify(broken(make(), edit), "z3")
    assert bad[0].status == "refuted"


def test_majority_all_n_and_its_counterexample():
    cert = solver.prove_all_n(constructions.build("majority", 3))
    assert cert.status == "proved" and cert.details["scope"] == "all n"
    make, edit = BROKEN["majority"]
    bad = solver.prove_all_n(broken(make(), edit))
    counts = bad.details["counterexample_counts"]
    n, ones = counts["n"], counts["count1"]
    # the counter-example really is one: n * logit = 0.5 ones - zeros, and the claimed
    # margin 1/n fails (n * signed logit < 1)
    assert counts["count0"] + ones == n and n % 2 == 1
    n_logit = 0.5 * ones - (n - ones)
    assert (n_logit if 2 * ones > n else -n_logit) < 1


def test_all_n_refuses_positional_models():
    cert = solver.prove_all_n(constructions.build("dyck", 4, k=1))
    assert cert.status == "unknown" and "not one layer" in cert.claim


@pytest.mark.parametrize("task,params,n", [
    ("majority", {}, 9), ("dyck", {"k": 1}, 10), ("dyck_bounded", {"k": 1, "D": 2}, 10),
    ("index", {}, 6), ("khop", {"k": 1, "alphabet": 3}, 6)])
def test_per_n_proofs(task, params, n):
    c = constructions.build(task, n, **params)
    kind = cverify.z3_kind(c)
    cert = solver.prove_peaked(c) if kind == "peaked" else solver.prove_uniform(c)
    assert cert.status == "proved", cert.claim
    if kind == "peaked":   # the softmax error stays below the hard margin 1/2
        assert 0 < float(cert.margin) < 0.5
    assert interval.verify(c).status == "proved"


def test_timeout_is_unknown_never_proved():
    c = constructions.build("dyck", 16, k=1)
    cert = solver.prove_uniform(c, timeout_ms=1)
    assert cert.status == "unknown" and cert.margin is None


def test_float64_and_float32_reported_separately():
    certs = cverify.verify(constructions.build("index", 6), "exhaustive")
    assert [ct.method for ct in certs] == ["exhaustive-float64", "exhaustive-float32"]
    assert all(ct.ok for ct in certs)


def test_evidence_status():
    make = lambda n: cverify.verify(constructions.build("dyck", n, k=1), "interval")
    certs = make(2) + make(4) + make(6)
    assert cverify.evidence_status(certs, [2, 4, 6]) == "verified <= 6"
    assert cverify.evidence_status(certs, [2, 4, 6, 8]) == "verified <= 6"
    assert cverify.evidence_status(certs[:1]) == "verified at n=2"
    assert cverify.evidence_status(cverify.verify(
        constructions.build("majority", 3), "z3")) == "proven"


def test_too_long_for_z3_says_cost_and_alternative():
    from theorybench.errors import EnumerationTooLarge
    with pytest.raises(EnumerationTooLarge, match="--verify interval"):
        solver.prove_peaked(constructions.build("index", 40))


@pytest.mark.parametrize("task,params,n", [
    ("majority", {}, 5), ("dyck", {"k": 1}, 6), ("dyck_bounded", {"k": 1, "D": 1}, 6),
    ("index", {}, 3), ("khop", {"k": 1, "alphabet": 3}, 5)])
def test_z3_specs_agree_with_task_labels(task, params, n):
    import z3
    c = constructions.build(task, n, **params)
    xs = [z3.Int(f"x{i + 1}") for i in range(c.length)]
    spec = c.spec(xs)
    x = c.task.enumerate()
    want = c.labels(x)
    for row, lab in zip(x, want):
        sub = [(v, z3.IntVal(int(t))) for v, t in zip(xs, row)]
        if isinstance(spec, list):
            got = [z3.simplify(z3.substitute(s, *sub)).as_long() for s in spec]
            assert got == list(lab)
        else:
            assert z3.is_true(z3.simplify(z3.substitute(spec, *sub))) == bool(lab)
