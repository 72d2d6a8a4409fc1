"""BAPO-hard source problems and split-preserving reductions from them into task families.

Schnabel et al. (NeurIPS 2025, arXiv 2505.08140, Section 3) prove Majority, Reachability
and Match3 BAPO-hard. A reduction transfers that only if it keeps prefixes and suffixes
aligned: here a monotone projection (every output token a constant or a copy of one
input token, positions in non-decreasing order), so that the image of a split of the
source is a split of the target and an (a, b)-BAPO for the target yields an
(a, c*b)-BAPO for the source (c = the largest number of output tokens one input token
feeds). The theory checks label preservation and the projection/monotonicity property
with :class:`~theorybench.theories.reductions.Reduction` before using one.
"""

from __future__ import annotations

import numpy as np

from .. import reductions as R


def majority_problem() -> "R.Problem":
    """Majority on {0,1}^n, n odd: [number of ones > n/2] (defined here, not by a task)."""
    return R.Problem(
        name="majority (BAPO-hard)",
        fn=lambda x, n: (2 * np.asarray(x).sum(axis=1) > n).astype(np.int64),
        choices=lambda n: [(0, 1)] * n,
        doc="Majority; BAPO-hard by Schnabel et al. (NeurIPS 2025), Section 3")


def reachability_problem(directed: bool = True) -> "R.Problem":
    """s-t reachability on an edge list "e_1 .. e_n ? s t" (labels by boolean closure).

    The token space is the reach task's (so the reduction is the identity); the label is
    recomputed here from the token strings by repeated squaring of the adjacency
    matrix, independently of the task's own reference.
    """
    from ... import tasks

    fam = "reach_directed" if directed else "reach_undirected"

    def task(n):
        return tasks.get(fam, n=n)

    def fn(x, n):
        t = task(n)
        x = np.asarray(x, dtype=np.int64)
        V = t.V
        node = {tok: int(tok[1:]) - 1 for tok in t.vocab if tok.startswith("v") and tok[1:].isdigit()}
        sep = ">" if directed else "-"
        ends = np.full((len(t.vocab), 2), -1, dtype=np.int64)
        for i, tok in enumerate(t.vocab):
            if sep in tok:
                u, v = tok.split(sep)
                ends[i] = (int(u[1:]) - 1, int(v[1:]) - 1)
        B = len(x)
        adj = np.zeros((B, V, V), dtype=bool)
        e = ends[x[:, :n]]
        rows = np.repeat(np.arange(B), n)
        adj[rows, e[:, :, 0].ravel(), e[:, :, 1].ravel()] = True
        if not directed:
            adj |= adj.transpose(0, 2, 1)
        reach = adj | np.eye(V, dtype=bool)[None]
        for _ in range(max(1, int(np.ceil(np.log2(V))) + 1)):
            reach = reach | (np.einsum("bij,bjk->bik", reach.astype(np.int64),
                                       reach.astype(np.int64)) > 0)
        s = np.array([node[t.vocab[v]] for v in x[:, n + 1]])
        tt = np.array([node[t.vocab[v]] for v in x[:, n + 2]])
        return reach[np.arange(B), s, tt].astype(np.int64)

    return R.Problem(
        name=f"{'directed' if directed else 'undirected'} reachability (BAPO-hard)",
        fn=fn, choices=lambda n: task(n).decision_view()[0].choices,
        enumerate=lambda n: task(n).decision_view()[0].enumerate(),
        valid=lambda x, n: (task(n).decision_view()[0].valid or (lambda y: np.ones(len(y), bool)))(x),
        sample=lambda rng, n, count: task(n).decision_view()[0].sample(rng, count),
        doc="graph reachability; BAPO-hard by Schnabel et al. (NeurIPS 2025), Section 3")


def reductions_into(family: str) -> list[tuple["R.Reduction", str]]:
    """Candidate (reduction, why the source is hard) pairs into ``family``."""
    out = []
    if family == "majority":
        red = R.Reduction(
            name="majority -> majority (identity)", source=majority_problem(),
            target_family="majority", target_params=lambda n: {"n": n},
            map=lambda x, n: x, kind="projection",
            doc="the task's decision function is Majority itself")
        out.append((red, "Majority is BAPO-hard (Schnabel et al., NeurIPS 2025, Section 3: "
                         "the fooling-set argument over prefix counts)"))
    if family == "reach_directed":
        red = R.Reduction(
            name="reachability -> reach_directed (identity)", source=reachability_problem(True),
            target_family="reach_directed", target_params=lambda n: {"n": n},
            map=lambda x, n: x, kind="projection",
            doc="the task's decision function is directed s-t reachability on an edge list")
        out.append((red, "Reachability is BAPO-hard (Schnabel et al., NeurIPS 2025, Section 3; "
                         "edge list followed by the query, as in the paper)"))
    return out


__all__ = ["majority_problem", "reachability_problem", "reductions_into"]
