"""The minimal (a, b) frontier of BAPOs at small n, by SAT (z3).

Question: for given a and b, is there ANY (f, g, h) that solves the decision function at
this input length (the BAPO definition of Schnabel et al., NeurIPS 2025, arXiv 2505.08140)?

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

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import EnumerationTooLarge, TaskParameterError
from ..communication import bits as log2_bits
from .cnf import Space, dimacs, encode, set_keys, solve_cnf, estimate_clauses
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
    """Minimal a for each listed b (None where not exact, see ``status``); ``n`` is the
    input length (df.length), reported as "length"; ``note`` says what was cut short."""

    n: int
    min_a: dict[int, int | None]
    status: dict[int, str]
    points: list[PointResult] = field(default_factory=list)
    note: str | None = None

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
                "pareto": self.pareto(), "points": [p.to_dict() for p in self.points],
                "note": self.note}


def solve_split(df, k: int, a: int, b: int, timeout_s: float = 60.0,
                X: np.ndarray | None = None, max_clauses: int = MAX_CLAUSES,
                deadline: float | None = None) -> SplitOutcome:
    """Is there an (a, b)-BAPO at split k? (all valid inputs enumerated). ``deadline`` (a
    ``time.perf_counter()`` value) bounds encoding and solving together: past it the
    outcome is 'unknown'."""
    t0 = time.perf_counter()
    deadline = t0 + timeout_s if deadline is None else min(deadline, t0 + timeout_s)
    X = _inputs(df) if X is None else X
    est = estimate_clauses(df, a, b, k, len(X))
    if est > max_clauses:
        raise EnumerationTooLarge(
            f"the SAT instance for (a, b) = ({a}, {b}) at split k={k} would have about "
            f"{est:,} clauses (limit {max_clauses:,}); use a smaller n, a or b")
    values = np.asarray(df.evaluate(X), dtype=np.int64)
    uniq, codes = np.unique(values, return_inverse=True)
    w = max(1, log2_bits(len(uniq)))
    space = Space(df)
    clauses, n_vars, layout = encode(space, X, codes.reshape(-1), w, k, a, b)
    text = dimacs(clauses, n_vars)
    left = deadline - time.perf_counter()
    status, model = solve_cnf(text, left) if left > 0 else ("unknown", {})
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
        key = set_keys(k, sp.radices, gp, tix)
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


def _suffix_ids(sp: Space, suffix: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros(len(suffix), dtype=np.int64)
    for c in range(suffix.shape[1]):
        pos = k + c
        out = out * sp.radices[pos] + sp.tok2idx[pos, suffix[:, c]]
    return out


def solve_point(df, a: int, b: int, timeout_s: float = 60.0, splits=None,
                check: bool = True, stop_at_unsat: bool = True,
                deadline: float | None = None) -> PointResult:
    """Does an (a, b)-BAPO exist at this length? SAT -> verified protocol, UNSAT -> certificate.
    ``timeout_s`` (or an earlier ``deadline``) bounds every split's encoding and solving."""
    X = _inputs(df)
    ks = list(splits) if splits is not None else list(range(1, df.length))
    end = time.perf_counter() + timeout_s
    end = end if deadline is None else min(end, deadline)
    outs: list[SplitOutcome] = []
    for k in ks:
        if time.perf_counter() >= end:
            outs.append(SplitOutcome(k, a, b, "unknown", 0.0, 0, 0))
            continue
        o = solve_split(df, k, a, b, timeout_s, X, deadline=end)
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


#: Frontier rows listed one by one at most; past the saturation b the rest are summarised.
MAX_FRONTIER_ROWS = 64


def saturation_b(df) -> int:
    """The b from which the frontier is flat: at split k every b >= k gives the same CNF
    (the adversary must deliver every selected token, as |selected| <= k <= b), so for
    b >= L - 1 (the largest split) every split's instance is the one at b = L - 1."""
    return max(df.length - 1, 0)


def frontier(df, max_a: int, max_b: int, timeout_s: float = 60.0,
             verify_points: bool = True) -> Frontier:
    """Minimal a for every b <= max_b (a searched upward to max_a), per split then maxed.

    ``timeout_s`` bounds the whole search, verification included. Statuses per b:
    'exact' (every split's minimal a found, every smaller a proved UNSAT), 'above max_a'
    (some split proved UNSAT for every a <= max_a), 'time limit', or 'unknown' (z3 gave
    up, or the instance is too large to build). The b above :func:`saturation_b` are not
    solved again: their row is the saturation row's (same CNF); at most
    ``MAX_FRONTIER_ROWS`` rows are listed and ``Frontier.note`` says so when b is cut.
    With ``verify_points`` every Pareto point is re-solved as a whole protocol and checked
    by the verifier (its PointResult is in ``points``) while time is left.
    """
    if max_a < 0 or max_b < 0 or not (timeout_s > 0 and math.isfinite(timeout_s)):
        raise TaskParameterError(
            f"max_a={max_a} and max_b={max_b} must be >= 0 and the time limit {timeout_s} s "
            f"must be a finite number > 0")
    deadline = time.perf_counter() + timeout_s
    X = _inputs(df)
    ks = list(range(1, df.length))
    bsat = saturation_b(df)
    min_a: dict[int, int | None] = {}
    status: dict[int, str] = {}
    points: list[PointResult] = []
    prev = {k: max_a for k in ks}  # min a at split k for the previous b (monotone in b)
    for b in range(min(max_b, bsat) + 1):
        per_k: dict[int, int | None] = {}
        why = "exact"
        for k in ks:
            found, proved_above = None, True
            for a in range(0, prev[k] + 1):
                if time.perf_counter() >= deadline:
                    proved_above, why = False, "time limit"
                    break
                try:
                    o = solve_split(df, k, a, b, timeout_s, X, deadline=deadline)
                except EnumerationTooLarge:
                    proved_above, why = False, "unknown"
                    break
                if o.status == "sat":
                    found = a
                    break
                if o.status == "unknown":
                    proved_above = False
                    why = "time limit" if time.perf_counter() >= deadline else "unknown"
                    break
            per_k[k] = found
            if found is None and proved_above:
                why = "above max_a"
                break  # one split proves that no (a <= max_a, b)-BAPO exists
            if found is None:
                break
        if ks and all(per_k.get(k) is not None for k in ks):
            min_a[b], status[b] = max(per_k.values()), "exact"
            prev = {k: per_k[k] for k in ks}
        elif not ks:  # length 1: h sees the whole input, no bits needed
            min_a[b], status[b] = 0, "exact"
        else:
            min_a[b], status[b] = None, why
    note = None
    if max_b > bsat:
        last = min(max_b, MAX_FRONTIER_ROWS - 1) if max_b > bsat else bsat
        for b in range(bsat + 1, max(last, bsat) + 1):
            min_a[b], status[b] = min_a[bsat], status[bsat]
        if max_b > last:
            note = (f"b = {last + 1}..{max_b} not listed: every b >= {bsat} (the largest "
                    f"split) gives the instance of b = {bsat} at every split, so min a "
                    f"there is the row of b = {bsat}")
    for a, b in (Frontier(df.length, min_a, status).pareto() if verify_points else []):
        if time.perf_counter() >= deadline:
            note = ((note + "; ") if note else "") + (
                "time limit reached before every Pareto point was re-verified")
            break
        points.append(solve_point(df, a, b, timeout_s=timeout_s, deadline=deadline,
                                  check=True))
    return Frontier(df.length, min_a, status, points, note)


__all__ = ["solve_split", "solve_point", "frontier", "Frontier", "PointResult",
           "SplitOutcome", "table_protocol", "saturation_b", "MAX_SAT_INPUTS", "MAX_CLAUSES",
           "MAX_FRONTIER_ROWS"]
