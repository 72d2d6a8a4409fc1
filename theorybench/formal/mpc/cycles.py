"""1-cycle vs 2-cycles and its reductions to the reachability tasks.

The problem: an undirected graph on N vertices (N = 2 mod 4) that is either one N-cycle
or two disjoint N/2-cycles, given as a list of its N edges; label 1 iff two cycles.
Conjecture (Ghaffari, Kuhn, Uitto, FOCS 2019; used by Sanford, Hsu, Telgarsky, ICML 2024,
arXiv 2402.09268, and Sanford et al., NeurIPS 2024, arXiv 2405.18512): with memory
s = O(N^delta), delta < 1, MPC needs Omega(log N) rounds to tell the two apart.

Reduction (bipartite double cover, a projection with fan-out 2 or 4): map every edge
{a, b} to {a0, b1} and {a1, b0} over vertices v0 = v, v1 = N + v, and query s = 0_0,
t = 0_1. The double cover of an odd cycle is one cycle through both copies, of an even
cycle two copies. One N-cycle (N even) -> 0_0 and 0_1 disconnected (label 0); two
N/2-cycles (N/2 odd) -> connected (label 1). For reach_directed each undirected edge
becomes both directed edges, so reachability is connectivity. The output has 2N (or 4N)
edges over 2N nodes, so O(1) extra rounds and the same N up to constants.
"""

from __future__ import annotations

import numpy as np

from ... import tasks
from ...errors import TaskParameterError
from ...registry import BUILTIN, artifact_library
from .. import reductions as R


def _tok(a, b, N):
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo * N + hi


def sample_cycles(rng: np.random.Generator, N: int, count: int) -> np.ndarray:
    """Half one N-cycle, half two N/2-cycles; random vertex labels and edge order."""
    two = np.arange(count) % 2 == 1
    rows = []
    for t in two:
        perm = rng.permutation(N)
        if t:
            h = N // 2
            nxt = np.r_[np.arange(1, h), 0, np.arange(h + 1, N), h]
        else:
            nxt = np.r_[np.arange(1, N), 0]
        a, b = perm[np.arange(N)], perm[nxt]
        e = _tok(a, b, N)
        rows.append(e[rng.permutation(N)])
    return np.array(rows, dtype=np.int64)


def two_cycles_label(x: np.ndarray, N: int) -> np.ndarray:
    """1 iff vertex 0's component has N/2 vertices (boolean closure; independent of tasks)."""
    x = np.asarray(x, dtype=np.int64)
    B = len(x)
    a, b = x // N, x % N
    adj = np.zeros((B, N, N), dtype=bool)
    r = np.repeat(np.arange(B), x.shape[1])
    adj[r, a.ravel(), b.ravel()] = True
    adj |= adj.transpose(0, 2, 1)
    reach = adj | np.eye(N, dtype=bool)[None]
    for _ in range(int(np.ceil(np.log2(N))) + 1):
        reach = np.einsum("bij,bjk->bik", reach.astype(np.int64), reach.astype(np.int64)) > 0
    return (reach[:, 0].sum(axis=1) < N).astype(np.int64)


def cycles_problem() -> "R.Problem":
    return R.Problem(
        name="1-cycle vs 2-cycles", fn=lambda x, n: two_cycles_label(x, n),
        choices=lambda n: [tuple(range(n * n))] * n,
        valid=lambda x, n: np.ones(len(x), dtype=bool),
        sample=lambda rng, n, count: sample_cycles(rng, n, count),
        doc="one N-cycle vs two N/2-cycles (Ghaffari-Kuhn-Uitto 2019 conjecture)")


def double_cover_reduction(family: str) -> "R.Reduction":
    """The reduction into a reachability family: an undirected one (fan-out 2) or a
    directed one (fan-out 4), told apart by the family's declared ``directed``, not by its
    name (a family without that attribute is refused)."""
    directed = getattr(tasks.family(family), "directed", None)
    if not isinstance(directed, bool):
        raise TaskParameterError(f"the double-cover reduction targets a reachability family "
                                 f"over an edge list; {family} declares no 'directed'")
    per_edge = 4 if directed else 2

    def params(N):
        return {"n": per_edge * N, "nodes": per_edge * N + 2}  # the task's minimum; extra nodes isolated

    def map_(x, N):
        t = tasks.get(family, **params(N))
        a, b = x // N, x % N
        pairs = [(a, N + b), (N + a, b)]
        if directed:
            pairs += [(N + b, a), (b, N + a)]
        cols = []
        sep = ">" if directed else "-"
        lookup = {tok: i for i, tok in enumerate(t.vocab)}
        V = t.V
        ids = np.full((V, V), -1, dtype=np.int64)
        for tok, i in lookup.items():
            if sep in tok:
                u, v = tok.split(sep)
                ids[int(u[1:]) - 1, int(v[1:]) - 1] = i
                if not directed:
                    ids[int(v[1:]) - 1, int(u[1:]) - 1] = i
        for u, v in pairs:
            cols.append(ids[u, v])
        edges = np.stack(cols, axis=2).reshape(len(x), -1)
        q = np.array([lookup["?"], lookup["v1"], lookup[f"v{N + 1}"]], dtype=np.int64)
        return np.concatenate([edges, np.broadcast_to(q, (len(x), 3))], axis=1)

    return R.Reduction(name=f"1-cycle vs 2-cycles -> {family} (double cover)",
                       source=cycles_problem(), target_family=family, target_params=params,
                       map=map_, kind="projection",
                       doc="bipartite double cover; query (v_0 copy 0, v_0 copy 1)")


#: Reductions from 1-cycle vs 2-cycles per task family (the registry idiom of
#: :mod:`theorybench.registry`): each is ``make(family) -> Reduction``.
CYCLE_REDUCTIONS = artifact_library("1-vs-2-cycles reduction", column="MPC reduction")
CYCLE_REDUCTIONS.add(double_cover_reduction, "reach_directed", "reach_undirected", origin=BUILTIN)


__all__ = ["CYCLE_REDUCTIONS", "cycles_problem", "double_cover_reduction", "sample_cycles", "two_cycles_label"]
