"""The CNF of "an (a, b)-BAPO exists at split k" (encoding described in
:mod:`.frontier`), written as DIMACS and solved by z3's SAT core.

Every key and variable id is exact: arriving sets get a bijective key bounded in
advance (Python ints when the bound exceeds int64), and a CNF whose variable ids would
not fit DIMACS is refused before it is built.
"""

from __future__ import annotations

import itertools
import math
import os
import tempfile

import numpy as np

from ...errors import EnumerationTooLarge

class Space:
    """Token -> index per position, mixed-radix ids of prefixes and suffixes."""

    def __init__(self, df):
        self.choices = [tuple(c) for c in df.choices]
        self.radices = [len(c) for c in self.choices]
        vocab = max(max(c) for c in self.choices) + 1
        self.tok2idx = np.full((len(self.choices), vocab), -1, dtype=np.int64)
        for i, c in enumerate(self.choices):
            self.tok2idx[i, list(c)] = np.arange(len(c))
        self.V = max(self.radices)

    def ids(self, x: np.ndarray, lo: int, hi: int) -> np.ndarray:
        out = np.zeros(len(x), dtype=np.int64)
        for pos in range(lo, hi):
            out = out * self.radices[pos] + self.tok2idx[pos, x[:, pos]]
        return out

    def count(self, lo: int, hi: int) -> int:
        return math.prod(self.radices[lo:hi])


def set_keys(k: int, radices: list[int], pos: np.ndarray, tokidx: np.ndarray) -> np.ndarray:
    """Exact key of arriving sets: pos/tokidx (M, c) with -1 padding.

    Bijective: key = mask * R + code, where mask has bit i set iff position i arrives and
    code is the mixed-radix number of the arriving tokens (radices[:k], R their product;
    positions that do not arrive count as digit 0). Keys are < 2^k * R; int64 when that
    bound fits, Python ints (object array) otherwise, so distinct sets never collide.
    """
    R = math.prod(radices[:k])
    dtype = np.int64 if (R << k) < (1 << 62) else object
    weight = [math.prod(radices[i + 1:k]) for i in range(k)]
    wt = np.array(weight + [0], dtype=dtype)      # index -1 (padding) -> weight 0
    bit = np.array([1 << i for i in range(k)] + [0], dtype=dtype)
    mask = np.zeros(len(pos), dtype=dtype)
    code = np.zeros(len(pos), dtype=dtype)
    for c in range(pos.shape[1]):
        p = pos[:, c]
        mask = mask + bit[p]
        code = code + wt[p] * np.where(p >= 0, tokidx[:, c], 0).astype(dtype)
    return mask * R + code


def estimate_clauses(df, a: int, b: int, k: int, inputs: int) -> int:
    w = 1  # at least one output bit
    return inputs * (2 ** a) * w * sum(math.comb(k, j) for j in range(min(b, k) + 1))


def encode(space: Space, X: np.ndarray, codes: np.ndarray, w: int, k: int, a: int, b: int):
    """CNF clauses (list of int arrays, one per width group) and variable layout at split k."""
    L = X.shape[1]
    P, S = space.count(0, k), space.count(k, L)
    pid, sid = space.ids(X, 0, k), space.ids(X, k, L)
    tokidx = np.stack([space.tok2idx[i, X[:, i]] for i in range(k)], axis=1)  # (N, k)
    V = space.V
    f_base = 1
    g_base = f_base + P * a
    h_base = g_base + S * k * V
    N = len(X)
    groups = []
    for j in range(min(b, k) + 1):
        for G in itertools.combinations(range(k), j):
            G = list(G)
            others = [l for l in range(k) if l not in G] if j < b else []
            pos = np.full((N, max(j, 1)), -1, dtype=np.int64)
            tix = np.full((N, max(j, 1)), -1, dtype=np.int64)
            if j:
                pos[:, :j] = G
                tix[:, :j] = tokidx[:, G]
            groups.append((G, others, set_keys(k, space.radices, pos, tix)))
    allkeys = np.concatenate([g[2] for g in groups]) if groups else np.zeros(0, np.int64)
    gkeys = np.unique(allkeys)
    M = 2 ** a
    # h var for (gkey rank, m, suffix, bit)
    n_h = len(gkeys) * M * S * w
    n_vars = h_base - 1 + n_h
    if n_vars >= (1 << 31):  # DIMACS variable ids are signed 32-bit in z3's reader
        raise EnumerationTooLarge(
            f"the SAT instance for (a, b) = ({a}, {b}) at split k={k} would have {n_vars:,} "
            f"variables (limit 2^31 - 1); use a smaller n or a")
    clauses = []
    mbits = ((np.arange(M)[:, None] >> np.arange(a)[None, :]) & 1) if a else np.zeros((M, 0), int)
    gvar = lambda i: g_base + (sid * k + i) * V + tokidx[:, i]  # noqa: E731
    for G, others, key in groups:
        grank = np.searchsorted(gkeys, key)
        lits_g = [-gvar(i) for i in G] + [gvar(l) for l in others]
        for m in range(M):
            f_lits = [np.where(mbits[m, t] == 1, -(f_base + pid * a + t), f_base + pid * a + t)
                      for t in range(a)]
            for j in range(w):
                hv = h_base + ((grank * M + m) * S + sid) * w + j
                bit = (codes >> j) & 1
                h_lit = np.where(bit == 1, hv, -hv)
                clauses.append(np.stack(f_lits + lits_g + [h_lit], axis=1))
    layout = {"P": P, "S": S, "V": V, "f_base": f_base, "g_base": g_base, "h_base": h_base,
              "gkeys": gkeys, "M": M, "w": w}
    return clauses, n_vars, layout


def dimacs(clauses: list[np.ndarray], n_vars: int) -> str:
    total = sum(len(c) for c in clauses)
    parts = [f"p cnf {max(n_vars, 1)} {total}\n"]
    for c in clauses:
        if len(c):
            body = "\n".join(" ".join(map(str, row)) + " 0" for row in c.tolist())
            parts.append(body + "\n")
    return "".join(parts)


def solve_cnf(text: str, timeout_s: float) -> tuple[str, dict[int, bool]]:
    import z3

    fd, path = tempfile.mkstemp(suffix=".cnf")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        s = z3.Solver()
        s.set("timeout", max(1, int(timeout_s * 1000)))
        s.from_file(path)
        res = s.check()
    finally:
        os.unlink(path)
    if res == z3.sat:
        m = s.model()
        vals = {int(d.name().split("!")[1]): z3.is_true(m[d]) for d in m.decls()}
        return "sat", vals
    if res == z3.unsat:
        return "unsat", {}
    return "unknown", {}


__all__ = ["Space", "set_keys", "estimate_clauses", "encode", "dimacs", "solve_cnf"]
