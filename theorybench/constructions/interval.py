"""Rigorous interval arithmetic over every input of length n: an enclosure of the
real-arithmetic model's logits, vectorized over the batch.

Every quantity is a pair (lo, hi) of float64 arrays with lo <= true value <= hi.
Soundness rests on IEEE-754 round-to-nearest for + - * / (each result is within one ulp,
so one ``nextafter`` step outward encloses it), the classical bound
|fl(sum of k terms) - sum| <= k u sum|terms| (u = 2^-53, any summation order, so BLAS is
fine), and ``np.exp`` being within 8 ulp (numpy documents < 4 ulp). The weights are
the float64 values of the model, taken as exact. Softmax is enclosed weight by weight:
w_j = e_j / (e_j + sum_(m != j) e_m) is increasing in e_j and decreasing in the others.
"""

from __future__ import annotations

import time

import numpy as np

from ..tasks.base import count_text
from .base import Certificate, Construction
from .check import all_inputs
from .model import Weights

U = 2.0 ** -53
TINY = 1e-300          # absorbs underflow in error bounds


def _dn(x):
    return np.nextafter(x, -np.inf)


def _up(x):
    return np.nextafter(x, np.inf)


def _sum_err(terms_abs_sum, k):
    """Upper bound of the rounding error of a k-term float sum with sum|terms| given."""
    return _up(_up((k + 2) * U * 1.01 * terms_abs_sum) + k * TINY)


def point_matmul(lo, hi, W):
    """[lo, hi] @ W for a point matrix W (..., d) x (d, e)."""
    Wp, Wn = np.maximum(W, 0), np.minimum(W, 0)
    ylo = lo @ Wp + hi @ Wn
    yhi = hi @ Wp + lo @ Wn
    err = _sum_err(np.maximum(np.abs(lo), np.abs(hi)) @ np.abs(W), 2 * W.shape[0])
    return _dn(ylo - err), _up(yhi + err)


def _mul(alo, ahi, blo, bhi):
    c = np.stack([alo * blo, alo * bhi, ahi * blo, ahi * bhi])
    return _dn(c.min(axis=0)), _up(c.max(axis=0))


def _isum(lo, hi, axis):
    k = lo.shape[axis]
    err = _sum_err(np.maximum(np.abs(lo), np.abs(hi)).sum(axis=axis), k)
    return _dn(lo.sum(axis=axis) - err), _up(hi.sum(axis=axis) + err)


def _exp_lo(x):
    return _dn(np.exp(x) * (1 - 8 * U))


def _exp_hi(x):
    return _up(np.exp(x) * (1 + 8 * U))


def softmax_enclosure(slo, shi, causal):
    """Weights' enclosure (lo, hi) for scores (..., L, L); keys j > i get exactly 0."""
    big = np.where(causal, shi, -np.inf).max(axis=-1, keepdims=True)
    elo = np.where(causal, _exp_lo(_dn(slo - big)), 0.0)
    ehi = np.where(causal, _exp_hi(_up(shi - big)), 0.0)
    k = slo.shape[-1]
    s_hi = _up(ehi.sum(axis=-1, keepdims=True) + _sum_err(ehi.sum(axis=-1, keepdims=True), k))
    s_lo = np.maximum(_dn(elo.sum(axis=-1, keepdims=True)
                          - _sum_err(elo.sum(axis=-1, keepdims=True), k)), 0.0)
    others_hi = _up(s_hi - elo)          # >= sum of the other keys' upper values
    others_lo = np.maximum(_dn(s_lo - ehi), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        wlo = np.where(causal, _dn(elo / _up(elo + others_hi)), 0.0)
        whi = np.where(causal, np.minimum(_up(ehi / _dn(ehi + others_lo)), 1.0), 0.0)
    return np.nan_to_num(wlo, nan=0.0), np.nan_to_num(whi, nan=1.0)


def enclose(weights: Weights, tokens: np.ndarray):
    """Enclosure (lo, hi) of the real-arithmetic logits: (B, C) or (B, L, C)."""
    L = tokens.shape[1]
    lo = _dn(weights.embed[tokens] + weights.pos[:L])
    hi = _up(weights.embed[tokens] + weights.pos[:L])
    causal = np.tril(np.ones((L, L), dtype=bool))
    for layer in weights.layers:
        add_lo, add_hi = np.zeros_like(lo), np.zeros_like(hi)
        for h in range(layer.heads):
            vlo, vhi = point_matmul(lo, hi, layer.wv[h])              # (B, L, dv)
            if not layer.wq[h].any() or not layer.wk[h].any():
                slo = shi = np.zeros((len(tokens), L, L))             # exactly uniform
            else:
                qlo, qhi = point_matmul(lo, hi, layer.wq[h])
                klo, khi = point_matmul(lo, hi, layer.wk[h])
                plo, phi = _mul(qlo[:, :, None, :], qhi[:, :, None, :],
                                klo[:, None, :, :], khi[:, None, :, :])
                slo, shi = _isum(plo, phi, axis=-1)
                b = float(layer.beta[h])
                slo, shi = _dn(slo * b), _up(shi * b)
            wlo, whi = softmax_enclosure(slo, shi, causal)
            # w >= 0: w v lies between the products with the ends of w
            c = np.stack([wlo[..., None] * vlo[:, None], whi[..., None] * vlo[:, None],
                          wlo[..., None] * vhi[:, None], whi[..., None] * vhi[:, None]])
            olo, ohi = _isum(_dn(c.min(axis=0)), _up(c.max(axis=0)), axis=2)  # (B, L, dv)
            olo, ohi = point_matmul(olo, ohi, layer.wo[h])
            add_lo, add_hi = _dn(add_lo + olo), _up(add_hi + ohi)
        lo, hi = _dn(lo + add_lo), _up(hi + add_hi)
        if layer.w1.shape[1]:
            ulo, uhi = point_matmul(lo, hi, layer.w1)
            ulo, uhi = _dn(ulo + layer.b1), _up(uhi + layer.b1)
            ulo, uhi = np.maximum(ulo, 0), np.maximum(uhi, 0)
            rlo, rhi = point_matmul(ulo, uhi, layer.w2)
            lo, hi = _dn(lo + _dn(rlo + layer.b2)), _up(hi + _up(rhi + layer.b2))
    if weights.output == "last":
        lo, hi = lo[:, -1], hi[:, -1]
    zlo, zhi = point_matmul(lo, hi, weights.w_out)
    return _dn(zlo + weights.b_out), _up(zhi + weights.b_out)


def margin_lower(zlo, zhi, labels):
    """Lower bound of the signed margin (see :func:`.model.margins`) from logit bounds."""
    y = np.asarray(labels, dtype=np.int64)
    if zlo.shape[-1] == 1:
        return np.where(y == 1, zlo[..., 0], -zhi[..., 0])
    own = np.take_along_axis(zlo, y[..., None], axis=-1)[..., 0]
    other = zhi.copy()
    np.put_along_axis(other, y[..., None], -np.inf, axis=-1)
    return _dn(own - other.max(axis=-1))


#: Largest number of inputs the interval method encloses.
MAX_INTERVAL = 1 << 18


def verify(c: Construction, limit: int = MAX_INTERVAL) -> Certificate:
    """``proved`` for this n iff the enclosure of every input's margin is > 0."""
    t0 = time.perf_counter()
    x = all_inputs(c, limit)
    L = x.shape[1]
    dmax = max([c.weights.width] + [int(l.wv.shape[2]) for l in c.weights.layers])
    step = max(1, (1 << 21) // (L * L * dmax))
    worst, bad = np.inf, None
    for lo in range(0, len(x), step):
        xb = x[lo: lo + step]
        m = margin_lower(*enclose(c.weights, xb), c.labels(xb))
        if m.ndim == 2:
            m = m.min(axis=1)
        worst = min(worst, float(m.min()))
        if bad is None and (m <= 0).any():
            bad = [int(v) for v in xb[int(np.argmax(m <= 0))]]
    ok = bad is None
    return Certificate(
        construction=c.name, n=c.n, method="interval",
        status="proved" if ok else "unknown",
        claim=(f"in real arithmetic the model's decision equals {c.task.name}'s label on all "
               f"{count_text(len(x))} inputs of n={c.n}, every logit enclosed by "
               f"outward-rounded interval arithmetic (margin >= {worst:.6g})" if ok else
               f"the interval enclosure could not separate the decision on some input of "
               f"n={c.n} (an enclosure too wide, or a wrong decision: run the exhaustive "
               f"check on the counter-example)"),
        seconds=time.perf_counter() - t0, inputs=int(len(x)),
        margin=f"{worst:.6g}" if ok else None, counterexample=bad,
        details={"assumes": "IEEE-754 round-to-nearest for + - * /; np.exp within 8 ulp"})
