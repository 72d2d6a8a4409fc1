"""BAPO protocols that carry a left-to-right state across the split (b = 0).

Source: Schnabel, Tomlinson, Swaminathan, Neville, "Lost in transmission", NeurIPS 2025
(arXiv 2505.08140; cited, theorem number not checked): a regular language with a
|Q|-state automaton has a (ceil(log2 |Q|), 0)-BAPO - f runs the automaton over the prefix
and sends the state, h runs it on over the suffix. Under the BAPO definition this is legitimate: f sees only the
prefix, h only f's bits, the suffix and the split.

* :func:`automaton_protocol` - that protocol for any DFA given as a transition table;
  a constant a for a regular task (e.g. dyck_bounded by its stack automaton, or by the
  minimal DFA learned and checked by :mod:`theorybench.formal.automata`).
* :func:`stack_protocol` - Dyck-k without a depth bound: f sends the prefix's stack of
  open bracket types (or "already invalid"); a = ceil(log2(1 + sum t^d)) over the depths d <= min(k, L-k)
  of the parity of k, for t types, which grows with n (log n for one type, linear for more). It is the
  best b = 0 protocol in the sense that distinct stacks are distinct rows of the
  communication matrix (each is told apart by the suffix that closes it); it proves no
  lower bound for b > 0.

All functions are vectorized over the batch; the scan over positions is a loop of
length at most n (these protocols are verified at small n only).
"""

from __future__ import annotations

import numpy as np

from ...errors import ResourceLimitError
from ..communication import bits as log2_bits
from .protocol import Protocol


def _to_bits(v: np.ndarray, a: int) -> np.ndarray:
    return (np.asarray(v, dtype=np.int64)[:, None] >> np.arange(a)[None, :]) & 1


def _from_bits(bits: np.ndarray, a: int) -> np.ndarray:
    return (np.asarray(bits, dtype=np.int64) << np.arange(a)[None, :]).sum(axis=1)


def automaton_protocol(delta: np.ndarray, start: int, accept: np.ndarray,
                       letter_of_token: np.ndarray, name: str, source: str = "") -> Protocol:
    """(ceil(log2 Q), 0): f sends the automaton's state after the prefix.

    ``delta`` (Q, letters) transition table, ``accept`` (Q,) outputs, ``letter_of_token``
    maps task token ids to the automaton's letter indices.
    """
    delta = np.asarray(delta, dtype=np.int64)
    out = np.asarray(accept).astype(np.int64)
    Q = len(delta)
    a = log2_bits(Q) if Q > 1 else 0
    lot = np.asarray(letter_of_token, dtype=np.int64)

    def run(state, x):
        for j in range(x.shape[1]):
            state = delta[state, lot[x[:, j]]]
        return state

    def f(prefix):
        return _to_bits(run(np.full(len(prefix), start, dtype=np.int64), prefix), a)

    def h(bits, gt, gp, suffix, k):
        state = np.minimum(_from_bits(bits, a), Q - 1)
        return out[run(state, suffix)]

    return Protocol(name, a, 0, f=f, h=h,
                    description=f"f sends the state of a {Q}-state automaton after the "
                                f"prefix ({a} bits); h runs it over the suffix",
                    meta={"states": Q, **({"automaton": source} if source else {})})


def stack_protocol(L: int, types: int, name: str = "dyck-stack") -> Protocol:
    """(a(L), 0) for Dyck-``types``: f sends the prefix's stack of open types or 'invalid'.

    Message index 0 = invalid (a closer without opener, a type mismatch, or more open
    brackets than the suffix can close); else 1 + sum_(e < d, e = d mod 2) t^e + value, value the
    stack's types as base-t digits (bottom = lowest digit).
    """
    t = types

    def count(k):  # the depth after k brackets has the parity of k
        return 1 + sum(t ** d for d in range(k % 2, min(k, L - k) + 1, 2))

    a = max(log2_bits(count(k)) for k in range(1, L))
    if a > 62:
        raise ResourceLimitError(f"the stack protocol at length {L} needs {a} bits, more than "
                                 f"fit in one int64; use a smaller n")
    Dmax = L // 2                      # min(k, L - k) never exceeds L / 2
    offs = [np.r_[0, np.cumsum([t ** d for d in range(par, Dmax + 1, 2)])].astype(np.int64)
            for par in (0, 1)]
    pw = np.array([t ** d for d in range(Dmax + 1)], dtype=np.int64)

    def scan(stack, depth, ok, x):
        rows = np.arange(len(x))
        for j in range(x.shape[1]):
            tok = x[:, j]
            typ, closing = tok >> 1, (tok & 1).astype(bool)
            top = stack[rows, np.maximum(depth - 1, 0)]
            ok &= ~closing | ((depth > 0) & (top == typ))
            stack[rows, np.minimum(depth, L)] = np.where(closing, top, typ)
            depth = np.maximum(depth + np.where(closing, -1, 1), 0)
        return stack, depth, ok

    def f(prefix):
        B, k = prefix.shape
        stack = np.zeros((B, L + 1), dtype=np.int64)
        stack, depth, ok = scan(stack, np.zeros(B, dtype=np.int64), np.ones(B, bool), prefix)
        ok &= depth <= L - k
        d = np.minimum(depth, Dmax)
        live = np.arange(Dmax + 1)[None, :] < d[:, None]
        value = (stack[:, : Dmax + 1] * pw[None, :] * live).sum(axis=1)
        start = offs[k % 2][np.maximum(d - k % 2, 0) // 2]
        return _to_bits(np.where(ok, 1 + start + value, 0), a)

    def h(bits, gt, gp, suffix, k):
        B = len(suffix)
        idx = _from_bits(bits, a)
        ok = idx > 0
        v = np.maximum(idx - 1, 0)
        off = offs[k % 2]
        pos = np.minimum(np.searchsorted(off, v, side="right") - 1, len(off) - 2)
        depth = k % 2 + 2 * pos
        value = v - off[pos]
        stack = np.zeros((B, L + 1), dtype=np.int64)
        live = np.arange(Dmax + 1)[None, :] < depth[:, None]
        stack[:, : Dmax + 1] = np.where(live, (value[:, None] // pw[None, :]) % t, 0)
        stack, depth, ok = scan(stack, depth, ok, suffix)
        return (ok & (depth == 0)).astype(np.int64)

    return Protocol(name, a, 0, f=f, h=h,
                    description=f"f sends the prefix's stack of open bracket types ({a} bits "
                                f"at length {L}; grows with n)",
                    meta={"types": t})


__all__ = ["automaton_protocol", "stack_protocol"]
