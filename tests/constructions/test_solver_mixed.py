"""z3 for models mixing uniform and peaked heads (bounded Dyck-k, k >= 2): proved at small
n, a broken weight refuted with a real counter-example, timeouts and oversized value sets
``unknown``, the z3 specification equal to the task's labels."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from theorybench import constructions
from theorybench.constructions import interval, solver_mixed, verify as cverify
from theorybench.errors import EnumerationTooLarge


def _dyck2(n, D=2):
    return constructions.build("dyck_bounded", n, k=2, D=D)


@pytest.mark.parametrize("n,D", [(4, 2), (6, 2), (6, 1)])
def test_dyck_k2_proved_by_z3(n, D):
    c = _dyck2(n, D)
    assert cverify.z3_kind(c) == "mixed"
    [cert] = cverify.verify(c, "z3")
    assert cert.status == "proved", cert.claim
    assert cert.method == "z3-mixed" and cert.details["scope"] == f"n={n}"
    # the proved softmax margin is below the hard margin 1 and above the design target
    # 1 - k (n - 1) / (2 n e^2)
    m = float(cert.margin)
    assert 1 - 2 * (n - 1) / (2 * n * np.e ** 2) - 1e-6 <= m < 1
    # the matching head's query side was linearised by a proved finite value set
    lemma = cert.details["lemmas"][0]
    assert lemma["layer"] == 3 and all(f["values"] for f in lemma["finite_values"])
    # consistent with interval arithmetic on every input
    assert interval.verify(c).status == "proved"


def test_dyck_k2_spec_agrees_with_labels():
    import z3
    for n in (2, 4, 6):
        c = _dyck2(n)
        xs = [z3.Int(f"x{i + 1}") for i in range(c.length)]
        spec = c.spec(xs)
        x = c.task.enumerate()
        for row, lab in zip(x, c.labels(x)):
            sub = [(v, z3.IntVal(int(t))) for v, t in zip(xs, row)]
            assert z3.is_true(z3.simplify(z3.substitute(spec, *sub))) == bool(lab), row


def _broken(c, edit):
    w = c.weights.copy()
    edit(w)
    return dataclasses.replace(c, weights=w)


@pytest.mark.parametrize("edit", [
    # the type-mismatch average no longer enters the decision: "( ]" accepted
    lambda w: w.w_out.__setitem__((w.channels.index("mmavg"), 0), 0.0),
    # the matching head no longer prefers later keys: its gap claim fails
    lambda w: w.layers[2].wk.__setitem__((0, w.channels.index("j"), w.layers[2].wk.shape[2] - 1),
                                         0.0),
])
def test_broken_weight_refuted_with_a_real_counterexample(edit):
    c = _dyck2(4)
    bad = _broken(c, edit)
    [cert] = cverify.verify(bad, "z3")
    assert cert.status == "refuted", cert.claim
    x = np.array([cert.counterexample])
    assert c.task.enumerate().tolist().count(cert.counterexample) == 1
    if "margin" in cert.claim:
        # the hard model errs there; the softmax model, close to it, errs too
        with torch.no_grad():
            z = bad.module()(torch.as_tensor(x)).numpy()
        assert (constructions.margins(z, c.labels(x)) <= 0).any()
    else:
        assert "score gap" in cert.claim


def test_timeout_is_unknown_never_proved(monkeypatch):
    """Every z3 query answering "unknown" (what a timeout returns) gives unknown."""
    monkeypatch.setattr(solver_mixed, "solve", lambda s, t: "unknown")
    cert = solver_mixed.prove_mixed(_dyck2(4))
    assert cert.status == "unknown" and cert.margin is None and "not decided" in cert.claim
    cert = solver_mixed.prove_mixed(_dyck2(4), timeout_ms=1)
    assert cert.status == "unknown"


def test_too_many_values_is_unknown(monkeypatch):
    monkeypatch.setattr(solver_mixed, "MAX_VALUES", 1)
    cert = solver_mixed.prove_mixed(_dyck2(4))
    assert cert.status == "unknown" and "more than 1 values" in cert.claim


def test_too_long_says_cost_and_alternative():
    with pytest.raises(EnumerationTooLarge, match="--verify interval"):
        solver_mixed.prove_mixed(_dyck2(18))
