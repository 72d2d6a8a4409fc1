"""The z3 encoding of a construction's real-arithmetic model, and the sound softmax error
bounds, shared by the z3 methods (:mod:`.solver`: all-uniform, all-peaked, all n;
:mod:`.solver_mixed`: uniform and peaked heads mixed).

Weights enter as exact rationals: each float64 weight is the rational it is
(:func:`exact`), so the formula is the model the torch module runs, in real arithmetic.
The input is one integer variable per position (``x1 .. xL``) restricted to the task's
token choices and its validity constraint; every hidden quantity is a z3 term or a z3
real variable bound to its term, layer by layer (``s{layer}_{position}_{channel}``):

* embedding: ``x_i = E[token_i] + P[i]`` (:func:`embedding_state`);
* a uniform head: the exact average of the values over the causal prefix
  (:func:`uniform_average`); a peaked head in the hard model: an integer argmax variable
  that selects a key whose score is maximal (:func:`argmax_index`), its claimed score gap
  refuted by :func:`gap_violation`;
* the ReLU MLP as ``If(p > 0, p, 0)`` case splits (:func:`relu_mlp`), added to the residual;
* the readout and the claim "every scored output has margin >= hard_margin", negated
  (:func:`margin_violation`): unsat proves the claim.

The softmax model differs from the hard model by at most a propagated bound: with score
gap g and L keys the mass off the argmax is <= (L - 1) e^(-beta g) <= (L - 1) / T_K(beta g)
(T_K the degree-K Taylor polynomial of e^x, T_K(x) <= e^x for x >= 0, so the bound is a
rational; :func:`off_argmax_mass`), carried channel by channel through later weights by
|W|^T (:func:`abs_bound`; ReLU is 1-Lipschitz, :func:`mlp_error`) to the logits
(:func:`readout_error`). Every bound is rounded up (:func:`round_up`), never down.

z3 is imported lazily (:func:`load_z3`): it is an optional, heavy dependency that only the
z3 verification method needs.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .base import Construction
from .model import Layer, Weights


def load_z3():
    """The z3 module, imported on first use (only ``--verify z3`` needs it)."""
    import z3
    return z3


# ---- exact rationals and terms --------------------------------------------------------------
def exact(x) -> Fraction:
    """The float64 value of ``x`` as the exact rational it is (no rounding)."""
    return Fraction(float(x))


def rational(f: Fraction):
    """z3 real constant equal to the rational ``f``."""
    z3 = load_z3()
    return z3.Q(f.numerator, f.denominator) if f.denominator != 1 else z3.RealVal(f.numerator)


def solve(solver, timeout_ms) -> str:
    """Run ``solver`` with a timeout: ``"unsat"``, ``"sat"`` or ``"unknown"`` (timeout or
    incomplete); callers turn only ``unsat`` of a negated claim into ``proved``."""
    z3 = load_z3()
    solver.set("timeout", int(timeout_ms))
    r = solver.check()
    if r == z3.unsat:
        return "unsat"
    return "sat" if r == z3.sat else "unknown"


def token_variables(c: Construction):
    """One integer variable per input position (``x1 .. xL``), the token ids each may take
    (from the task's input space), and the domain: each variable among its choices, plus
    the construction's validity constraint. Returns (xs, choices, domain constraints)."""
    z3 = load_z3()
    choices = [tuple(ch) for ch in c.task.input_space()]
    xs = [z3.Int(f"x{i + 1}") for i in range(len(choices))]
    dom = [z3.Or(*[x == t for t in ch]) for x, ch in zip(xs, choices)]
    if c.valid is not None:
        dom.append(c.valid(xs))
    return xs, choices, dom


def select(x, choices, values):
    """z3 term: values[k] where x == choices[k] (the last is the default)."""
    z3 = load_z3()
    term = values[-1]
    for t, v in zip(choices[-2::-1], values[-2::-1]):
        term = z3.If(x == t, v, term)
    return term


def counterexample(model, xs) -> list[int]:
    """The input (token ids) a satisfying ``model`` assigns to the variables ``xs``."""
    return [model.eval(x, model_completion=True).as_long() for x in xs]


def affine(state, W, b=None):
    """Terms of ``state @ W (+ b)``: ``state`` is a list of terms (or Fractions); zero
    weights add no term, so the formula stays as sparse as the weights."""
    z3 = load_z3()
    out = []
    for col in range(W.shape[1]):
        terms = [state[k] * rational(exact(W[k, col])) for k in range(W.shape[0])
                 if W[k, col] != 0]
        if b is not None and b[col] != 0:
            terms.append(rational(exact(b[col])))
        out.append(z3.Sum(terms) if terms else z3.RealVal(0))
    return out


# ---- the model, layer by layer --------------------------------------------------------------
def embedding_state(solver, w: Weights, xs, choices):
    """Real variables ``s0_i_k`` bound in ``solver`` to ``E[x_i] + P[i]``, channel k:
    one row per position."""
    z3 = load_z3()
    state = []
    for i in range(len(xs)):
        row = []
        for k in range(w.width):
            v = z3.Real(f"s0_{i}_{k}")
            vals = [rational(exact(w.embed[t, k]) + exact(w.pos[i, k])) for t in choices[i]]
            solver.add(v == select(xs[i], list(choices[i]), vals))
            row.append(v)
        state.append(row)
    return state


def encode_inputs(c: Construction):
    """A z3 solver holding the input domain (:func:`token_variables`) and the embedding
    (:func:`embedding_state`). Returns (solver, xs, state)."""
    z3 = load_z3()
    xs, choices, dom = token_variables(c)
    solver = z3.Solver()
    solver.add(*dom)
    return solver, xs, embedding_state(solver, c.weights, xs, choices)


def bind_state(solver, rows, layer: int):
    """Real variables ``s{layer}_i_k`` bound in ``solver`` to the terms ``rows[i][k]`` (the
    residual stream after a layer), so later layers refer to a variable, not a tree."""
    z3 = load_z3()
    state = []
    for i, terms in enumerate(rows):
        row = []
        for k, term in enumerate(terms):
            v = z3.Real(f"s{layer}_{i}_{k}")
            solver.add(v == term)
            row.append(v)
        state.append(row)
    return state


def uniform_average(vals, width: int):
    """A uniform head's output before Wo at every position i: the exact average of the
    values ``vals[j]`` over the causal prefix j <= i (softmax of equal scores is 1/(i+1))."""
    z3 = load_z3()
    return [[z3.Sum([vals[j][k] for j in range(i + 1)]) / (i + 1) for k in range(width)]
            for i in range(len(vals))]


def relu_mlp(row, layer: Layer):
    """The residual row after the layer's ReLU MLP: ``row + relu(row W1 + b1) W2 + b2``."""
    z3 = load_z3()
    pre = affine(row, layer.w1, layer.b1)
    hid = [z3.If(p > 0, p, 0) for p in pre]
    return [a + b for a, b in zip(row, affine(hid, layer.w2, layer.b2))]


def scored_positions(w: Weights, length: int) -> list[int]:
    """The positions whose output is scored: the last, or all (``w.output``)."""
    return [length - 1] if w.output == "last" else list(range(length))


def gap_violation(scores, i: int, gamma: Fraction):
    """z3 formula: at query i no key's score beats every other key's by >= gamma
    (``scores[i, j]`` for the keys j <= i); unsat proves the head's claimed score gap."""
    z3 = load_z3()
    keys = range(i + 1)
    return z3.And(*[z3.Or(*[scores[i, j] - scores[i, k] < rational(gamma)
                            for k in keys if k != j] or [z3.BoolVal(False)])
                    for j in keys])


def argmax_index(solver, scores, i: int, name: str):
    """Integer variable ``name`` in 0..i, constrained in ``solver`` to a key whose score at
    query i is maximal: the hard (argmax) attention of a peaked head."""
    z3 = load_z3()
    a = z3.Int(name)
    solver.add(a >= 0, a <= i)
    keys = range(i + 1)
    for j in keys:
        solver.add(z3.Implies(a == j, z3.And(*[scores[i, j] >= scores[i, k] for k in keys])))
    return a


def margin_violation(c: Construction, xs, rows):
    """z3 formula: some scored output has margin < ``c.hard_margin``. ``rows``: the final
    residual rows at the scored positions, in order; the label is ``c.spec(xs)`` (a Bool for
    one logit, an Int class otherwise)."""
    z3 = load_z3()
    w = c.weights
    logits = [affine(r, w.w_out, w.b_out) for r in rows]
    spec = c.spec(xs)
    ys = [spec] if w.output == "last" else list(spec)
    mu = c.hard_margin
    out = []
    for z, y in zip(logits, ys):
        if len(z) == 1:
            out.append(z3.If(y, z[0], -z[0]) < rational(mu))
        else:
            zy = select(y, list(range(len(z))), z)
            out += [z3.And(y != k, zy - z[k] < rational(mu)) for k in range(len(z))]
    return z3.Or(*out)


# ---- sound bounds on the softmax model's distance from the hard model ------------------------
def exp_neg_upper(x: Fraction, K: int = 80) -> Fraction:
    """A rational >= e^(-x) for x >= 0: 1 / T_K(x') with x' <= x on a 2^-20 grid."""
    if x <= 0:
        return Fraction(1)
    xd = Fraction(math.floor(x * 2**20), 2**20)
    term, total = Fraction(1), Fraction(1)
    for k in range(1, K + 1):
        term = term * xd / k
        total += term
    return 1 / total


def round_up(f: Fraction) -> Fraction:
    """f rounded up to a 2^-64 grid (keeps the propagated bounds small and sound)."""
    return Fraction(math.ceil(f * 2**64), 2**64)


def off_argmax_mass(beta: Fraction, gap: Fraction, keys: int) -> Fraction:
    """Bound on the softmax mass off the argmax with score gap ``gap`` (before ``beta``)
    among ``keys`` keys: min(1, (keys - 1) e^(-beta gap)), e^(-x) bounded by
    :func:`exp_neg_upper`."""
    return min(Fraction(1), (keys - 1) * exp_neg_upper(beta * gap))


def abs_bound(W, delta):
    """|W|^T delta, exact (W: (d, e), delta: d Fractions) -> e Fractions, rounded up: a
    bound on how far ``x W`` moves when each ``x_k`` moves by at most ``delta[k]``."""
    A = np.abs(np.asarray(W, dtype=np.float64))
    return [round_up(sum((exact(A[k, col]) * delta[k] for k in range(A.shape[0])
                          if A[k, col]), Fraction(0))) for col in range(A.shape[1])]


def mlp_error(layer: Layer, delta):
    """The per-channel error bound after the layer's ReLU MLP (residual; ReLU is
    1-Lipschitz): delta + |W2|^T |W1|^T delta."""
    return [a + b for a, b in zip(delta, abs_bound(layer.w2, abs_bound(layer.w1, delta)))]


def readout_error(w: Weights, delta) -> Fraction:
    """Bound on how far the margin moves under per-channel errors ``delta``: the one
    logit's shift, or the largest shift of a difference of two logits."""
    C = w.w_out.shape[1]
    if C == 1:
        return abs_bound(w.w_out, delta)[0]
    return max(abs_bound(w.w_out[:, [y]] - w.w_out[:, [k]], delta)[0]
               for y in range(C) for k in range(C) if y != k)


def softmax_proof(c: Construction, err: Fraction, proved: str) -> dict:
    """The claim and margin of a proved certificate: z3 proved ``proved`` (gaps, the hard
    margin, ...) and the softmax model is within ``err`` (< hard_margin) of the hard
    model, so its margin is >= hard_margin - err on every valid input of this n."""
    soft = c.hard_margin - err
    return {"claim": (f"in real arithmetic, on every valid input of n={c.n}, the softmax "
                      f"model's margin is >= {float(soft):.6g}: z3 proved {proved}; the "
                      f"softmax error is <= {float(err):.3g} (rational bound on e^(-beta "
                      f"gap), propagated)"),
            "margin": f"{float(soft):.6g}"}
