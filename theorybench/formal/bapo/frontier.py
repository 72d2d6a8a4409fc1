"""The minimal (a, b) frontier of BAPOs at small n, by SAT (z3).

Question: for given a and b, is there ANY (f, g, h) that solves the decision function at
this input length (Definition 1 of Schnabel et al., NeurIPS 2025, arXiv 2505.08140)?

Encoding. f, g and h all receive the split k, so the condition for different splits
shares no unknowns and the instance separates: (a, b) is feasible iff it is feasible at
every split, and each split is its own CNF. At split k the unknowns are

* f[p, t]: bit t of f's message on prefix p (every prefix of length k);
* g[s, i, v]: whether g selects token v at position i for suffix s;
* h[G, m, s, j]: bit j of h's output code for the arriving set G, message m, suffix s
  (only for the G that can occur).

For every valid input x = (p, s), every message m in {0,1}^a and every set G of
positions of size j <= min(b, k) with x's tokens there, one clause per output bit says
"if f(p) = m and G is a legal adversarial choice then h(G, m, s) has x's output bit".
G is legal iff every token of G is selected and either |G| = b, or |G| < b and nothing
else is selected (the adversary must deliver min(b, |selected|) tokens). The CNF is
written in DIMACS and solved by z3's SAT core with a time limit: sat gives tables from
which a :class:`Protocol` is built and then checked by :func:`verify`; unsat is the
certificate that no (a, b)-BAPO exists at this n (for that split); a timeout is
"unknown", never a hang. z3 was the solver asked for; these CNFs are small (n = 8:
thousands of clauses per split) so it answers in well under a second per split.
"""

from __future__ import annotations

import itertools
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import EnumerationTooLarge, TaskParameterError
from ..communication import bits as log2_bits
from .protocol import Protocol
from .verify import verify

#: Largest number of inputs the SAT search enumerates.
MAX_SAT_INPUTS = 1 << 14
#: Largest CNF (clauses per split) it builds.
MAX_CLAUSES = 4_000_000


@dataclass
class SplitOutcome:
    """One split's SAT call: status is 'sat', 'unsat' or 'unknown'."""

    k: int
    a: int
    b: int
    status: str
    seconds: float
    variables: int
    clauses: int
    tables: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"split": self.k, "a": self.a, "b": self.b, "status": self.status,
                "seconds": round(self.seconds, 3), "variables": self.variables,
                "clauses": self.clauses}


@dataclass
class PointResult:
    """Whether an (a, b)-BAPO exists at this input length ``n`` (= df.length): 'sat',
    'unsat' or 'unknown', with evidence."""

    a: int
    b: int
    n: int
    status: str
    splits: list[SplitOutcome]
    protocol: Protocol | None = None
    verification: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"length": self.n, "a": self.a, "b": self.b, "status": self.status,
               "splits": [s.to_dict() for s in self.splits]}
        if self.status == "unsat":
            bad = [s.k for s in self.splits if s.status == "unsat"]
            out["certificate"] = (f"z3 proved the CNF unsatisfiable at split(s) {bad}: no "
                                  f"({self.a}, {self.b})-BAPO solves the task at input "
                                  f"length {self.n}")
        if self.verification is not None:
            out["verification"] = self.verification
        return out


@dataclass
class Frontier:
    """Minimal a for each b in 0..max_b (None where unknown or above max_a); ``n`` is the
    input length (df.length), reported as "length"."""

    n: int
    min_a: dict[int, int | None]
    status: dict[int, str]
    points: list[PointResult] = field(default_factory=list)

    def pareto(self) -> list[tuple[int, int]]:
        out, best = [], None
        for b in sorted(self.min_a):
            a = self.min_a[b]
            if a is not None and (best is None or a < best):
                out.append((a, b))
                best = a
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"length": self.n, "min_a": self.min_a, "status": self.status,
                "pareto": self.pareto(), "points": [p.to_dict() for p in self.points]}


# ---------------------------------------------------------------------------- encoding
class _Space:
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


def _gkey(k: int, b: int, V: int, pos: np.ndarray, tokidx: np.ndarray) -> np.ndarray:
    """Integer key of arriving sets: pos/tokidx (M, b) with -1 padding, sorted by position."""
    key = np.zeros(len(pos), dtype=np.int64)
    for c in range(pos.shape[1]):
        key = key * (k + 1) + (pos[:, c] + 1)
        key = key * (V + 1) + (tokidx[:, c] + 1)
    return key


def estimate_clauses(df, a: int, b: int, k: int, inputs: int) -> int:
    w = 1  # at least one output bit
    return inputs * (2 ** a) * w * sum(math.comb(k, j) for j in range(min(b, k) + 1))


def _encode(space: _Space, X: np.ndarray, codes: np.ndarray, w: int, k: int, a: int, b: int):
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
            pos = np.full((N, b), -1, dtype=np.int64)
            tix = np.full((N, b), -1, dtype=np.int64)
            if j:
                pos[:, :j] = G
                tix[:, :j] = tokidx[:, G]
            groups.append((G, others, _gkey(k, b, V, pos, tix)))
    allkeys = np.concatenate([g[2] for g in groups]) if groups else np.zeros(0, np.int64)
    gkeys = np.unique(allkeys)
    M = 2 ** a
    # h var for (gkey rank, m, suffix, bit)
    n_h = len(gkeys) * M * S * w
    n_vars = h_base - 1 + n_h
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


def _dimacs(clauses: list[np.ndarray], n_vars: int) -> str:
    total = sum(len(c) for c in clauses)
    parts = [f"p cnf {max(n_vars, 1)} {total}\n"]
    for c in clauses:
        if len(c):
            body = "\n".join(" ".join(map(str, row)) + " 0" for row in c.tolist())
            parts.append(body + "\n")
    return "".join(parts)


def _solve_cnf(text: str, timeout_s: float) -> tuple[str, dict[int, bool]]:
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


def solve_split(df, k: int, a: int, b: int, timeout_s: float = 60.0,
                X: np.ndarray | None = None, max_clauses: int = MAX_CLAUSES) -> SplitOutcome:
    """Is there an (a, b)-BAPO at split k? (all valid inputs enumerated)."""
    X = _inputs(df) if X is None else X
    est = estimate_clauses(df, a, b, k, len(X))
    if est > max_clauses:
        raise EnumerationTooLarge(
            f"the SAT instance for (a, b) = ({a}, {b}) at split k={k} would have about "
            f"{est:,} clauses (limit {max_clauses:,}); use a smaller n, a or b")
    values = np.asarray(df.evaluate(X), dtype=np.int64)
    uniq, codes = np.unique(values, return_inverse=True)
    w = max(1, log2_bits(len(uniq)))
    space = _Space(df)
    t0 = time.perf_counter()
    clauses, n_vars, layout = _encode(space, X, codes.reshape(-1), w, k, a, b)
    text = _dimacs(clauses, n_vars)
    status, model = _solve_cnf(text, timeout_s)
    out = SplitOutcome(k, a, b, status, time.perf_counter() - t0, n_vars,
                       sum(len(c) for c in clauses))
    if status == "sat":
        total = n_vars + 1
        assign = np.zeros(total, dtype=bool)
        for v, val in model.items():
            if v < total:
                assign[v] = val
        out.tables = {"assign": assign, "layout": layout, "values": uniq, "space": space}
    return out


def _inputs(df) -> np.ndarray:
    if df.space_size() > MAX_SAT_INPUTS:
        raise EnumerationTooLarge(
            f"the SAT frontier enumerates every input: {df.space_size():,} inputs is more than "
            f"{MAX_SAT_INPUTS:,}; use a smaller n (n <= 12 for binary tasks)")
    return df.enumerate(limit=MAX_SAT_INPUTS)


def table_protocol(df, a: int, b: int, outcomes: dict[int, SplitOutcome]) -> Protocol:
    """A protocol that looks up the SAT model's tables (vectorized), one table per split."""
    L = df.length

    def f(prefix):
        k = prefix.shape[1]
        t = outcomes[k].tables
        lay, asg, sp = t["layout"], t["assign"], t["space"]
        pid = sp.ids(prefix, 0, k)
        idx = lay["f_base"] + pid[:, None] * a + np.arange(a)[None, :]
        return asg[idx].astype(np.int64).reshape(len(prefix), a)

    def g(suffix, k, token, pos):
        t = outcomes[k].tables
        lay, asg, sp = t["layout"], t["assign"], t["space"]
        sid = _suffix_ids(sp, suffix, k)
        tix = sp.tok2idx[pos, token]
        return asg[lay["g_base"] + (sid * k + pos) * lay["V"] + tix]

    def h(bits, gt, gp, suffix, k):
        t = outcomes[k].tables
        lay, asg, sp = t["layout"], t["assign"], t["space"]
        sid = _suffix_ids(sp, suffix, k)
        tix = np.where(gp >= 0, sp.tok2idx[np.maximum(gp, 0), np.maximum(gt, 0)], -1)
        key = _gkey(k, b, lay["V"], gp, tix)
        grank = np.searchsorted(lay["gkeys"], key)
        known = (grank < len(lay["gkeys"])) & (lay["gkeys"][np.minimum(grank, len(lay["gkeys"]) - 1)] == key)
        m = (bits.astype(np.int64) << np.arange(a)[None, :]).sum(axis=1) if a else np.zeros(len(bits), np.int64)
        code = np.zeros(len(bits), dtype=np.int64)
        for j in range(lay["w"]):
            hv = lay["h_base"] + ((grank * lay["M"] + m) * lay["S"] + sid) * lay["w"] + j
            code |= np.where(known, asg[np.where(known, hv, 0)], 0).astype(np.int64) << j
        return t["values"][np.minimum(code, len(t["values"]) - 1)]

    return Protocol(f"sat({a},{b})", a, b, f=f, g=g, h=h,
                    description="tables found by z3", splits=tuple(sorted(outcomes)),
                    meta={"source": "SAT model"})


def _suffix_ids(sp: _Space, suffix: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros(len(suffix), dtype=np.int64)
    for c in range(suffix.shape[1]):
        pos = k + c
        out = out * sp.radices[pos] + sp.tok2idx[pos, suffix[:, c]]
    return out


def solve_point(df, a: int, b: int, timeout_s: float = 60.0, splits=None,
                check: bool = True, stop_at_unsat: bool = True) -> PointResult:
    """Does an (a, b)-BAPO exist at this length? SAT -> verified protocol, UNSAT -> certificate."""
    X = _inputs(df)
    ks = list(splits) if splits is not None else list(range(1, df.length))
    deadline = time.perf_counter() + timeout_s
    outs: list[SplitOutcome] = []
    for k in ks:
        left = deadline - time.perf_counter()
        if left <= 0:
            outs.append(SplitOutcome(k, a, b, "unknown", 0.0, 0, 0))
            continue
        o = solve_split(df, k, a, b, left, X)
        outs.append(o)
        if o.status == "unsat" and stop_at_unsat:
            break
    statuses = {o.status for o in outs}
    status = "unsat" if "unsat" in statuses else ("unknown" if "unknown" in statuses else "sat")
    res = PointResult(a, b, df.length, status, outs)
    if status == "sat":
        res.protocol = table_protocol(df, a, b, {o.k: o for o in outs})
        if check:
            v = verify(res.protocol, df, splits=ks, inputs=X)
            res.verification = v.to_dict()
            v.raise_for_failure()
    return res


def frontier(df, max_a: int, max_b: int, timeout_s: float = 60.0,
             verify_points: bool = True) -> Frontier:
    """Minimal a for every b <= max_b (a searched upward to max_a), per split then maxed.

    With ``verify_points`` every Pareto point is re-solved as a whole protocol and checked
    by the verifier (its PointResult is in ``points``).
    """
    if max_a < 0 or max_b < 0 or timeout_s <= 0:
        raise TaskParameterError(
            f"max_a={max_a} and max_b={max_b} must be >= 0 and the time limit {timeout_s} s "
            f"must be > 0")
    X = _inputs(df)
    deadline = time.perf_counter() + timeout_s
    ks = list(range(1, df.length))
    min_a: dict[int, int | None] = {}
    status: dict[int, str] = {}
    points: list[PointResult] = []
    prev = {k: max_a for k in ks}  # min a at split k for the previous b (monotone in b)
    for b in range(max_b + 1):
        per_k: dict[int, int | None] = {}
        outs_at: dict[int, dict[int, SplitOutcome]] = {}
        for k in ks:
            found = None
            for a in range(0, prev[k] + 1):
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                o = solve_split(df, k, a, b, left, X)
                outs_at.setdefault(a, {})[k] = o
                if o.status == "sat":
                    found = a
                    break
                if o.status == "unknown":
                    break
            per_k[k] = found
        if all(v is not None for v in per_k.values()):
            best = max(per_k.values())
            min_a[b], status[b] = best, "exact"
            prev = {k: per_k[k] for k in ks}
        else:
            min_a[b] = None
            status[b] = "unknown or above max_a" if time.perf_counter() < deadline else "time limit"
    for a, b in (Frontier(df.length, min_a, status).pareto() if verify_points else []):
        if a is not None:
            points.append(solve_point(df, a, b, timeout_s=max(1.0, deadline - time.perf_counter()),
                                      check=True))
    return Frontier(df.length, min_a, status, points)


__all__ = ["solve_split", "solve_point", "frontier", "Frontier", "PointResult",
           "SplitOutcome", "table_protocol", "MAX_SAT_INPUTS", "MAX_CLAUSES"]
