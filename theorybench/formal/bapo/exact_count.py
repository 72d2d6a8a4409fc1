"""EXACT-HALF ("is the number of ones exactly n/2?") against BAPOs: the fooling construction
of its lower bound, executable, and small-n SAT certificates.

The lower bound (the proof is the text of the claim ``bapo-dyck`` in
``theorybench/proofs/claims/bapo.py``): fix an (a, b)-BAPO (f, g, h) for EXACT-HALF at
even length n and look at the split k = n/2. Let m = 2^a, M = m + 1 and W = M * b.

1. Suffixes, fixed first: S_s = 1^(d_s) 0^(k - d_s) with d_s = n/2 - W - s, s = 0..m.
2. Types: position i < k has the type (g(S_s, k, 0, i), g(S_s, k, 1, i)) for s = 0..m, one
   of 4^M. By pigeonhole some type T has at least ceil(k / 4^M) positions.
3. Inside T: a block B of m positions, and for every s whose pattern T_s is not (0, 0) b
   more positions R_s holding a value v_s that g selects under S_s. The other prefix
   positions (free) are set so that the filler (all but B) has exactly W ones.
4. Prefixes P_t (t = 0..m): the first t block positions 1, the rest 0, the filler as above;
   #1(P_t) = W + t. f takes m = 2^a values on M = m + 1 prefixes: f(P_s) = f(P_t), s < t.
5. P_s S_s has n/2 ones (yes), P_t S_s has n/2 + t - s (no). Under S_s either T_s = (0, 0):
   no block position is ever selected, the selected sets of both inputs are the same filler
   tokens; or the R_s tokens (b of them, equal in both inputs) are selected and the
   adversary delivers exactly those. Either way h sees the same (f bits, G, suffix, k) on a
   yes and a no instance.

Room for steps 2-3 (:func:`min_prefix_length`): k >= 4^M (m + M b - 1) + 1 positions give a
type with m + M b positions; the free positions can then absorb the W - (ones among R)
ones, and d_s stays in 0..k (proved for every a, b by :func:`size_arithmetic_all_ab`).

:func:`fooling_witness` runs steps 1-5 against a concrete protocol (it needs only f and
g: the witness makes the two views of h identical, so every h fails);
:func:`check_witness` re-checks a witness independently (labels recomputed, selections
recomputed from g, legality of the delivered set, identical views).
"""

from __future__ import annotations

from types import SimpleNamespace
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ConfigError
from ...tasks.base import DecisionFunction
from .frontier import solve_split
from .protocol import Protocol, selected_mask


def exact_half_labels(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    return (2 * x.sum(axis=1) == x.shape[1]).astype(np.int64)


def greater_than_labels(x: np.ndarray) -> np.ndarray:
    """[a > c] on rows a_(n-1)..a_0 c_(n-1)..c_0 (MSB first), n = half the row length."""
    x = np.asarray(x, dtype=np.int64)
    n = x.shape[1] // 2
    # lexicographic comparison without 2^n weights (exact for every n): the first
    # differing position decides
    diff = x[:, :n] != x[:, n:]
    first = np.where(diff.any(axis=1), diff.argmax(axis=1), n)
    rows = np.arange(len(x))
    return np.where(first < n, x[rows, np.minimum(first, n - 1)], 0).astype(np.int64)


def _binary_df(L: int, fn, name: str, description: str) -> DecisionFunction:
    def sample(rng, count):
        return rng.integers(0, 2, size=(count, L), dtype=np.int64)

    return DecisionFunction(task=SimpleNamespace(name=name.split("(")[0]), name=name, choices=tuple((0, 1) for _ in range(L)),
                            evaluate=fn, sample=sample, description=description)


def exact_half_df(n: int) -> DecisionFunction:
    if not (isinstance(n, int) and n >= 2 and n % 2 == 0):
        raise ConfigError(f"EXACT-HALF needs an even length n >= 2, got {n!r}")
    return _binary_df(n, exact_half_labels, f"exact_half(n={n})",
                      "1 iff exactly n/2 of the n bits are 1")


def greater_than_df(n: int) -> DecisionFunction:
    if not (isinstance(n, int) and n >= 1):
        raise ConfigError(f"Greater-Than needs n >= 1 bits per number, got {n!r}")
    return _binary_df(2 * n, greater_than_labels, f"greater_than(n={n})",
                      "a (first n bits, MSB first) > c (last n bits)")


# ---- the construction ----------------------------------------------------------------

def min_prefix_length(a: int, b: int) -> int:
    """k0(a, b) = 4^M (m + M b - 1) + 1 with m = 2^a, M = m + 1: from this prefix length
    on, the construction always finds its type (pigeonhole), so no (a, b)-BAPO solves
    EXACT-HALF at any even n >= 2 k0."""
    m = 1 << a
    M = m + 1
    return 4 ** M * (m + M * b - 1) + 1


@dataclass
class Witness:
    """Two inputs x_yes, x_no (same suffix, split k) and the delivered set G (positions) on
    which h sees the same view; ``s``, ``t`` index the colliding prefixes."""

    n: int
    k: int
    s: int
    t: int
    x_yes: np.ndarray
    x_no: np.ndarray
    G: list[int]
    details: dict[str, Any] = field(default_factory=dict)


def _selection_table(g, suffixes: np.ndarray, k: int, chunk: int = 1 << 22) -> np.ndarray:
    """sel[s, i, v] = g(S_s, k, v, i), g called one (suffix, token, position) per row, in
    chunks so that at most ``chunk`` suffix copies are in memory at once."""
    M = len(suffixes)
    s_idx, i_idx, v_idx = (a.ravel() for a in np.meshgrid(
        np.arange(M), np.arange(k), np.arange(2), indexing="ij"))
    out = np.zeros(len(s_idx), dtype=bool)
    step = max(1, chunk // max(1, suffixes.shape[1]))
    for lo in range(0, len(s_idx), step):
        sl = slice(lo, lo + step)
        out[sl] = np.asarray(g(suffixes[s_idx[sl]], k, v_idx[sl], i_idx[sl])).astype(bool)
    return out.reshape(M, k, 2)


def fooling_witness(protocol: Protocol, n: int, homogeneous: bool = True) -> Witness | None:
    """Steps 1-5 of the module docstring against ``protocol`` at length n (split n/2).

    Returns None when no type has room for the block and the R_s at this n (never at
    n >= 2 * min_prefix_length(a, b)). ``homogeneous=False`` is a deliberately wrong
    variant: it puts the block on the first m positions whatever their type (a test shows
    its witness is rejected by :func:`check_witness` for a protocol that looks at them).
    """
    if n % 2 or n < 2:
        raise ConfigError(f"EXACT-HALF needs an even n >= 2, got {n}")
    a, b = protocol.a, protocol.b
    k = n // 2
    m = 1 << a
    M = m + 1
    W = M * b
    if W + m > k:
        return None
    d = [n // 2 - W - s for s in range(M)]
    suffixes = np.array([[1] * ds + [0] * (k - ds) for ds in d], dtype=np.int64)
    sel = _selection_table(protocol.g, suffixes, k) if b > 0 else np.zeros((M, k, 2), bool)
    # a type key per position: exact tuples (M may exceed 31, so no packed integer)
    keys = [tuple(row) for row in sel.transpose(1, 0, 2).reshape(k, 2 * M).tolist()]
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    chosen = None
    for key, pos in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        need = m + b * sum(1 for s in range(M) if key[2 * s] or key[2 * s + 1])
        if len(pos) >= need:
            chosen = (key, pos)
            break
    if chosen is None:
        return None
    key, pos = chosen
    if homogeneous:
        block = pos[:m]
        rest = pos[m:]
    else:
        block = list(range(m))
        rest = [p for p in pos if p not in block]
    prefix = np.full(k, -1, dtype=np.int64)
    designated: dict[int, list[int]] = {}
    for s in range(M):
        pat = (key[2 * s], key[2 * s + 1])
        if pat == (False, False) or b == 0:
            continue
        v = 1 if pat[1] else 0
        take, rest = rest[:b], rest[b:]
        if len(take) < b:
            return None
        prefix[take] = v
        designated[s] = take
    free = [i for i in range(k) if prefix[i] < 0 and i not in set(block)]
    ones_needed = W - int((prefix == 1).sum())
    if not (0 <= ones_needed <= len(free)):
        return None
    prefix[free[:ones_needed]] = 1
    prefix[free[ones_needed:]] = 0
    P = np.tile(prefix, (M, 1))
    for t in range(M):
        P[t, block] = (np.arange(m) < t).astype(np.int64)
    bits = np.asarray(protocol.f(P)).astype(np.int64).reshape(M, a)
    seen: dict[tuple, int] = {}
    pair = None
    for t in range(M):
        key_f = tuple(bits[t].tolist())
        if key_f in seen:
            pair = (seen[key_f], t)
            break
        seen[key_f] = t
    if pair is None:  # impossible: M = 2^a + 1 prefixes, 2^a messages
        raise AssertionError("pigeonhole failed: f returned more than 2^a messages")
    s, t = pair
    x_yes = np.concatenate([P[s], suffixes[s]])
    x_no = np.concatenate([P[t], suffixes[s]])
    pat = (key[2 * s], key[2 * s + 1])
    if pat == (False, False) or b == 0:
        selected = np.flatnonzero(sel[s, np.arange(k), P[s]])
        G = sorted(selected[:b].tolist())
    else:
        G = sorted(designated[s])
    return Witness(n, k, s, t, x_yes, x_no, G,
                   details={"type size": len(pos), "types": len(groups), "W": W,
                            "block": list(block), "pattern under S_s": pat})


def check_witness(protocol: Protocol, w: Witness) -> dict[str, Any]:
    """Independent re-check: labels differ (recomputed from the rows), both inputs share the
    suffix, G is a legal adversarial choice for both (every position selected by g with
    the input's token, |G| = min(b, |selected|)), the G tokens are equal, and f agrees.
    Then every h gives the same output on a yes and a no instance."""
    x = np.stack([w.x_yes, w.x_no])
    k = w.k
    labels = exact_half_labels(x)
    sel = selected_mask(protocol, x, k)
    G = np.array(w.G, dtype=np.int64)
    legal = [bool(sel[r, G].all()) and len(G) == min(protocol.b, int(sel[r].sum()))
             for r in range(2)]
    same_tokens = bool(np.array_equal(x[0, G], x[1, G])) if len(G) else True
    bits = np.asarray(protocol.f(x[:, :k])).reshape(2, protocol.a)
    out = {"labels": labels.tolist(), "labels differ": bool(labels[0] != labels[1]),
           "same suffix": bool(np.array_equal(x[0, k:], x[1, k:])),
           "G legal for both": all(legal), "same G tokens": same_tokens,
           "same f bits": bool(np.array_equal(bits[0], bits[1]))}
    out["ok"] = all(v for kk, v in out.items() if kk != "labels")
    return out


# ---- concrete protocols the construction is run against --------------------------------

def _mix(*arrs: np.ndarray, salt: int) -> np.ndarray:
    """A deterministic 62-bit mix of integer arrays (no randomness from global state)."""
    h = np.full(np.broadcast(*arrs).shape, salt & ((1 << 61) - 1), dtype=np.uint64)
    for arr in arrs:
        h = (h ^ np.asarray(arr, dtype=np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
        h ^= h >> np.uint64(29)
    return h


def sample_protocols(a: int, b: int, rng: np.random.Generator) -> list[Protocol]:
    """Protocols of bandwidth (a, b) for EXACT-HALF (all wrong at large n, as the lemma says;
    some are the natural attempts): counting f (#1 mod 2^a, #1 capped), attention to ones,
    to zeros, to ones at positions chosen by the suffix count, to all tokens, and random
    tables seeded from ``rng``."""
    out = []
    m = 1 << a

    def f_mod(prefix):
        c = prefix.sum(axis=1) % m
        return (c[:, None] >> np.arange(a)[None, :]) & 1

    def f_cap(prefix):
        c = np.minimum(prefix.sum(axis=1), m - 1)
        return (c[:, None] >> np.arange(a)[None, :]) & 1

    def h0(bits, gt, gp, suffix, k):
        return np.zeros(len(bits), dtype=np.int64)

    gs = {
        "ones": lambda S, k, tok, pos: tok == 1,
        "zeros": lambda S, k, tok, pos: tok == 0,
        "all": lambda S, k, tok, pos: np.ones(len(tok), dtype=bool),
        "ones where pos < suffix count":
            lambda S, k, tok, pos: (tok == 1) & (pos < S.sum(axis=1)),
        "zeros at pos = suffix count mod 7":
            lambda S, k, tok, pos: (tok == 0) & (pos % 7 == S.sum(axis=1) % 7),
        "nothing": lambda S, k, tok, pos: np.zeros(len(tok), dtype=bool),
        "ones in the window pos < 2^a": lambda S, k, tok, pos: (tok == 1) & (pos < m),
    }
    for fname, f in (("#1 mod 2^a", f_mod), ("#1 capped at 2^a - 1", f_cap)):
        for gname, g in gs.items():
            out.append(Protocol(f"f: {fname}; g: {gname}", a, b, f=f, g=g, h=h0))
    for r in range(3):
        salt_f, salt_g = (int(v) for v in rng.integers(0, 1 << 62, size=2))

        def f_rand(prefix, salt=salt_f):
            ids = (prefix * (np.arange(prefix.shape[1]) + 1)).sum(axis=1)
            hv = _mix(ids, prefix.sum(axis=1), salt=salt)
            return ((hv[:, None] >> np.arange(a, dtype=np.uint64)[None, :])
                    & np.uint64(1)).astype(np.int64)

        def g_rand(S, k, tok, pos, salt=salt_g):
            return (_mix(S.sum(axis=1), pos, tok, salt=salt) & np.uint64(3)) == 0

        out.append(Protocol(f"random tables #{r}", a, b, f=f_rand, g=g_rand, h=h0))
    return out


def run_construction(a: int, b: int, n: int | None = None,
                     rng: np.random.Generator | None = None,
                     homogeneous: bool = True) -> dict[str, Any]:
    """Run the construction against every protocol of :func:`sample_protocols` at length n
    (default 2 * min_prefix_length(a, b)); each witness is re-checked."""
    rng = np.random.default_rng(0) if rng is None else rng
    n = 2 * min_prefix_length(a, b) if n is None else n
    rows, ok = [], True
    for p in sample_protocols(a, b, rng):
        w = fooling_witness(p, n, homogeneous=homogeneous)
        if w is None:
            rows.append({"protocol": p.name, "witness": None})
            ok = False
            continue
        c = check_witness(p, w)
        ok &= c["ok"]
        rows.append({"protocol": p.name, "s": w.s, "t": w.t, "|G|": len(w.G),
                     "check": "ok" if c["ok"] else c})
    return {"a": a, "b": b, "n": n, "ok": ok, "protocols": len(rows), "rows": rows}


def size_arithmetic_all_ab(timeout_ms: int = 20000) -> dict[str, Any]:
    """z3, for all a, b >= 0 (m = 2^a >= 1 a symbol, Q = 4^M >= 16): k >= Q (m + M b - 1) + 1
    implies (i) a type has >= m + M b positions (pigeonhole: Q types), (ii) W + m <= k
    (every d_s = k - W - s in 0..k) and (iii) the free positions can take the missing ones:
    0 <= W - r1 <= k - m - r with r = the number of designated positions (r <= M b) and
    r1 <= r of them set to 1."""
    import z3

    m, b, Q, k, r, r1, W, M = z3.Ints("m b Q k r r1 W M")
    hyp = z3.And(m >= 1, b >= 0, M == m + 1, Q >= 16, k >= Q * (m + M * b - 1) + 1,
                 W == M * b, r >= 0, r <= M * b, r1 >= 0, r1 <= r)
    goals = {
        "pigeonhole: Q * (m + M b - 1) < k": Q * (m + M * b - 1) < k,
        "suffix counts in range: W + m <= k": W + m <= k,
        "free positions absorb the ones: 0 <= W - r1 <= k - m - r":
            z3.And(W - r1 >= 0, W - r1 <= k - m - r),
    }
    out, status = [], "proved"
    for name, goal in goals.items():
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(hyp, z3.Not(goal))
        res = s.check()
        verdict = "valid" if res == z3.unsat else ("invalid" if res == z3.sat else "unknown")
        out.append(f"{name}: {verdict}")
        if verdict != "valid":
            status = "refuted" if verdict == "invalid" else "unknown"
    return {"status": status, "obligations": out}


def split_min_a(df: DecisionFunction, k: int, max_a: int, max_b: int,
                timeout_s: float = 30.0) -> dict[int, str]:
    """At split k alone: per b <= max_b, the minimal a (every smaller a UNSAT) or why not.
    One split's UNSAT already means no (a, b)-BAPO at this length."""
    X = df.enumerate(limit=1 << 14)
    out: dict[int, str] = {}
    for b in range(max_b + 1):
        res = f"every a <= {max_a} UNSAT"
        for a in range(max_a + 1):
            o = solve_split(df, k, a, b, timeout_s, X)
            if o.status == "sat":
                res = f"min a = {a}" + (f" (a = {a - 1} UNSAT)" if a else "")
                break
            if o.status != "unsat":
                res = f"a = {a}: {o.status}"
                break
        out[b] = res
    return out


__all__ = ["exact_half_df", "greater_than_df", "exact_half_labels", "greater_than_labels",
           "min_prefix_length", "Witness", "fooling_witness", "check_witness",
           "sample_protocols", "run_construction", "size_arithmetic_all_ab", "split_min_a"]
