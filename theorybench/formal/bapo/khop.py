"""A constant-bandwidth BAPO for k-hop induction at the last position (fixed alphabet).

Task (:mod:`theorybench.tasks.retrieval.khop`, 0-based): find(i) = 1 + the last q < i with
x_q = x_i (none: no hop); the output is x at find^K(L-1), or the no-hop symbol.
find(i) < i, so the chase only moves left, and a chase that enters the prefix stays there.

Protocol at split s (prefix x_0..x_(s-1), suffix x_s..x_(L-1); the last position is in
the suffix). f sends, with A = |Sigma|:

* x_(s-1), the last prefix symbol (ceil(log2 A) bits);
* for every symbol c and every m = 1..K, T[c][m]: the result of m more hops when a hop
  from the suffix lands in the prefix by symbol c - i.e. start at r = 1 + the last
  q <= s-2 with x_q = c, hop m-1 more times inside the prefix, output the symbol there
  (or no-hop, also when c does not occur) - A + 1 values, ceil(log2(A+1)) bits each.

h chases from L-1 inside the suffix: for the current position p (in the suffix) with
symbol c, the last occurrence of c at q in s..p-1 gives p' = q + 1 (still in the
suffix); otherwise if x_(s-1) = c then p' = s (the first suffix token); otherwise the
hop lands in the prefix at 1 + (last q <= s-2 with x_q = c) and T[c][remaining hops] is
the answer. Inputs have no immediate repeats, so after p' = s the next hop (symbol
x_s != x_(s-1)) goes into the prefix through T.

a = ceil(log2 A) + A K ceil(log2(A+1)), b = 0: constant in n for a fixed alphabet and K
(14 bits for A = 4, K = 1). It grows with A: Schnabel et al. note (cited; no section
number checked) that multi-hop induction heads appears BAPO-Sigma-hard, so "Easy" here is
for the task's fixed alphabet only. The BAPO definition of Schnabel et al. (NeurIPS 2025, arXiv
2505.08140) holds: f reads only the prefix, h only f's bits, the suffix and s. The
protocol is verified, not assumed: :func:`.verify.verify` on every split.
"""

from __future__ import annotations

import numpy as np

from ..communication import bits as log2_bits
from .protocol import Protocol


def _prefix_find(x: np.ndarray, A: int) -> np.ndarray:
    """find() inside the rows of x (0-based, -1 for none): a scan over positions."""
    B, s = x.shape
    last = np.full((B, A), -1, dtype=np.int64)
    out = np.empty((B, s), dtype=np.int64)
    rows = np.arange(B)
    for i in range(s):
        q = last[rows, x[:, i]]
        out[:, i] = np.where(q >= 0, q + 1, -1)
        last[rows, x[:, i]] = i
    return out, last


def khop_protocol(L: int, K: int, A: int, name: str = "khop-table") -> Protocol:
    """The (a, 0)-BAPO above for length L, K hops, alphabet size A (no-hop id = A)."""
    wl = log2_bits(A)
    wt = log2_bits(A + 1)
    a = wl + A * K * wt
    none = A

    def f(prefix):
        x = np.asarray(prefix, dtype=np.int64)
        B, s = x.shape
        fp, _ = _prefix_find(x, A)
        _, last = _prefix_find(x[:, : s - 1], A)  # last q <= s-2 per symbol
        rows = np.arange(B)
        fields = [(x[:, s - 1], wl)]
        for c in range(A):
            q = last[:, c]
            p = np.where(q >= 0, q + 1, -1)
            for m in range(1, K + 1):
                if m > 1:
                    p = np.where(p >= 0, fp[rows, np.maximum(p, 0)], -1)
                fields.append((np.where(p >= 0, x[rows, np.maximum(p, 0)], none), wt))
        return np.concatenate([(v[:, None] >> np.arange(w)[None, :]) & 1
                               for v, w in fields], axis=1).astype(np.int64)

    def h(bits, gt, gp, suffix, s):
        bits = np.asarray(bits, dtype=np.int64)
        y = np.asarray(suffix, dtype=np.int64)
        B, Ls = y.shape

        def field(start, w):
            return (bits[:, start: start + w] << np.arange(w)[None, :]).sum(axis=1)

        prev = field(0, wl)
        table = np.stack([np.stack([field(wl + (c * K + m - 1) * wt, wt)
                                    for m in range(1, K + 1)], axis=1)
                          for c in range(A)], axis=1)  # (B, A, K)
        rows = np.arange(B)
        cur = np.full(B, Ls - 1, dtype=np.int64)  # suffix index of the current position
        ans = np.full(B, -1, dtype=np.int64)      # -1: not resolved yet
        cols = np.arange(Ls)[None, :]
        for hop in range(K):
            open_ = ans < 0
            c = y[rows, cur]
            hit = (y == c[:, None]) & (cols < cur[:, None])
            q = np.where(hit.any(axis=1), Ls - 1 - np.argmax(hit[:, ::-1], axis=1), -1)
            in_suffix = q >= 0
            at_first = ~in_suffix & (prev == c)
            into_prefix = open_ & ~in_suffix & ~at_first
            ans = np.where(into_prefix, table[rows, c, K - hop - 1], ans)
            cur = np.where(open_ & in_suffix, q + 1, np.where(open_ & at_first, 0, cur))
        return np.where(ans >= 0, ans, y[rows, cur])

    return Protocol(name, a, 0, f=f, h=h,
                    description=f"f sends the last prefix symbol and, per symbol and number "
                                f"of remaining hops, where a chase entering the prefix ends "
                                f"({a} bits; |Sigma|={A}, k={K}, independent of n)",
                    meta={"alphabet": A, "hops": K})


__all__ = ["khop_protocol"]
