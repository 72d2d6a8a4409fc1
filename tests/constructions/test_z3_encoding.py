"""The shared z3 encoding: the encoded model equals the torch module on every input, and
each softmax error bound is sound (never below what it bounds) and tight where it says."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
import torch
import z3

from theorybench import constructions
from theorybench.constructions import z3_encoding as enc
from theorybench.constructions.model import Weights


def _hard_logits(c):
    """The encoded uniform-head model's logits at the scored positions, on every input of
    ``c.task.enumerate()``, read off z3 models (exact rationals, as floats)."""
    w = c.weights
    s, xs, state = enc.encode_inputs(c)
    L = len(xs)
    for li, layer in enumerate(w.layers):
        new = [list(r) for r in state]
        for h in range(layer.heads):
            vals = [enc.affine(state[j], layer.wv[h]) for j in range(L)]
            for i, avg in enumerate(enc.uniform_average(vals, layer.wv.shape[2])):
                new[i] = [a + b for a, b in zip(new[i], enc.affine(avg, layer.wo[h]))]
        if layer.w1.shape[1]:
            new = [enc.relu_mlp(row, layer) for row in new]
        state = enc.bind_state(s, new, li + 1)
    logits = [enc.affine(state[i], w.w_out, w.b_out) for i in enc.scored_positions(w, L)]
    x = c.task.enumerate()
    out = []
    for row in x:
        s.push()
        s.add(*[v == int(t) for v, t in zip(xs, row)])
        assert enc.solve(s, 60_000) == "sat", row
        m = s.model()
        out.append([[float(m.eval(t, model_completion=True).as_fraction()) for t in z]
                    for z in logits])
        s.pop()
    return x, np.array(out)


@pytest.mark.parametrize("task,n,params", [("dyck", 4, {"k": 1}),
                                           ("dyck_bounded", 4, {"D": 2})])
def test_uniform_encoding_is_the_module(task, n, params):
    c = constructions.build(task, n, **params)
    assert all(all(layer.uniform_heads()) for layer in c.weights.layers)
    assert any(layer.w1.shape[1] for layer in c.weights.layers)   # the MLP is encoded too
    x, got = _hard_logits(c)
    with torch.no_grad():
        want = c.module()(torch.as_tensor(x)).numpy()
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=0, atol=1e-9)


def test_exp_neg_upper_is_a_tight_upper_bound():
    assert enc.exp_neg_upper(Fraction(0)) == 1 and enc.exp_neg_upper(Fraction(-3)) == 1
    for x in (Fraction(1, 1000), Fraction(1, 2), Fraction(3), Fraction(41, 2)):
        b = enc.exp_neg_upper(x)
        # the Taylor bound sits above e^-x by as little as 1e-120 here: compare with e^-x
        # to 300 digits, not with a float
        with decimal.localcontext() as ctx:
            ctx.prec = 300
            assert b >= Fraction((-decimal.Decimal(x.numerator) / x.denominator).exp())
        assert float(b) <= math.exp(-float(x)) * (1 + 1e-5)


def test_round_up_never_rounds_down():
    for f in (Fraction(1, 3), Fraction(-1, 3), Fraction(2**-70), Fraction(5)):
        r = enc.round_up(f)
        assert f <= r < f + Fraction(1, 2**64) and (r * 2**64).denominator == 1


def test_off_argmax_mass_bounds_the_softmax():
    rng = np.random.default_rng(7)
    for keys, gap, beta in [(2, Fraction(1), Fraction(3)), (9, Fraction(1, 2), Fraction(20)),
                            (30, Fraction(2), Fraction(1, 4))]:
        bound = enc.off_argmax_mass(beta, gap, keys)
        # the argmax at 0, every other key at least `gap` below it; the worst case is all
        # of them exactly `gap` below, which the first row is
        others = -float(gap) - rng.uniform(0, 3, size=(2000, keys - 1))
        others[0] = -float(gap)
        scores = np.concatenate([np.zeros((2000, 1)), others], axis=1) * float(beta)
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        off = 1 - p[:, 0] / p.sum(axis=1)
        assert (off <= float(bound) * (1 + 1e-12)).all()
        assert off[0] >= float(bound) / (1 + keys * math.exp(-float(beta * gap))) * 0.999


def test_abs_bound_and_readout_error_bound_every_perturbation():
    rng = np.random.default_rng(11)
    W = rng.normal(size=(5, 3))
    W[1, 2] = 0.0
    delta = [Fraction(int(k), 64) for k in rng.integers(0, 64, size=5)]
    b = enc.abs_bound(W, delta)
    exact = [sum((abs(Fraction(float(W[k, j]))) * delta[k] for k in range(5)), Fraction(0))
             for j in range(3)]
    assert all(e <= v <= e + Fraction(1, 2**64) for e, v in zip(exact, b))
    e = rng.uniform(-1, 1, size=(4000, 5)) * np.array([float(d) for d in delta])
    assert (np.abs(e @ W) <= np.array([float(v) for v in b]) + 1e-12).all()
    w_out = rng.normal(size=(5, 3))
    w = Weights(np.zeros((1, 5)), np.zeros((1, 5)), [], w_out, np.zeros(3))
    err = float(enc.readout_error(w, delta))
    z = e @ w_out
    diffs = np.abs(z[:, :, None] - z[:, None, :])          # every logit difference's shift
    assert diffs.max() <= err + 1e-12


def test_gap_violation_and_argmax_index():
    sc = {(2, 0): z3.RealVal(0), (2, 1): z3.RealVal(3), (2, 2): z3.RealVal(1)}
    # key 1 beats the others by 2: a claimed gap of 2 holds, 5/2 fails
    assert z3.is_false(z3.simplify(enc.gap_violation(sc, 2, Fraction(2))))
    assert z3.is_true(z3.simplify(enc.gap_violation(sc, 2, Fraction(5, 2))))
    s = z3.Solver()
    a = enc.argmax_index(s, sc, 2, "a")
    assert s.check() == z3.sat and s.model().eval(a).as_long() == 1
    s.add(a != 1)
    assert s.check() == z3.unsat


def test_select_and_token_variables():
    c = constructions.build("majority", 5)
    xs, choices, dom = enc.token_variables(c)
    assert [str(x) for x in xs] == [f"x{i + 1}" for i in range(c.length)]
    assert len(choices) == c.length
    s = z3.Solver()
    s.add(*dom, xs[0] == max(choices[0]) + 1)
    assert s.check() == z3.unsat                      # outside the token choices
    term = enc.select(xs[0], [4, 7, 9], [z3.RealVal(1), z3.RealVal(2), z3.RealVal(3)])
    for t, v in [(4, 1), (7, 2), (9, 3)]:
        assert z3.simplify(z3.substitute(term, (xs[0], z3.IntVal(t)))) == z3.RealVal(v)
