"""reach_undirected: are s and t connected?

Definition. Input ``e_1 ... e_n ? s t`` with undirected edge tokens ``"vi-vj"`` (i < j)
and node tokens s, t; the label is 1 iff s and t lie in the same connected component of
the graph with edge set {e_1, .., e_n} on the nodes v1 .. vV (s = t counts).
Variants (parameters): n (even, >= 2) and V = ``nodes`` (0: V = n + 2). Rows all have
n + 3 tokens.

Distributions:

* ``paths`` (default; as reach_directed, after Schnabel et al., "Lost in transmission",
  NeurIPS 2025): two node-disjoint paths of n/2 edges on randomly chosen node names,
  edges in random order; positives: s, t two distinct uniform places on one path;
  negatives: s on one path, t on the other.
* ``cycles`` (the stress distribution; needs n even and >= 6): the n edges form either one
  cycle through n random nodes (label 1) or two disjoint cycles of n/2 nodes each (label 0),
  each with probability 1/2; s is a node and t the node n/2 places further along the
  node order of the construction: antipodal on the single cycle, on the other cycle in
  the two-cycle case. This is the 1-cycle vs 2-cycles problem, conjectured to need
  Omega(log n) rounds of MPC (Ghaffari, Kuhn, Uitto 2019), hence depth Omega(log n) for
  transformers of sublinear width (Sanford, Hsu, Telgarsky, ICML 2024, arXiv 2402.09268).
* ``random``: n independent random edges (no self-loops) among m = round(n / 0.87)
  randomly chosen nodes (mean degree about 1.74, where roughly half of the pairs are
  connected; at most V), s != t among them; balanced by rejection.
* ``uniform``: every edge token and s, t independent and uniform.

Sources: docs/theories.md §9 and the works named above.
"""

import dataclasses

import numpy as np

from ...errors import TaskParameterError
from ..balance import balanced_choice
from ..registry import register
from .reach import ReachTask, reach_params


@register
class ReachUndirected(ReachTask):
    name = "reach_undirected"
    order = 2
    summary = "1 iff s and t are connected in the undirected graph of the n listed edges"
    params = reach_params()
    directed = False
    distributions = ("paths", "cycles", "random", "uniform")
    random_density = 0.87
    analysis_ns = (2, 4)  # (V(V-1)/2)^n * V^2 inputs with V = n + 2 fit 2^22 for n <= 4

    def sample_cycles(self, rng, count, out=None):
        n = self.n
        if n < 6:
            raise TaskParameterError(
                f"distribution 'cycles' of reach_undirected needs n >= 6 (two cycles of at "
                f"least 3 nodes each), got n={n}; use n=6 or more, or distribution 'paths'")
        h = n // 2
        nodes = self.relabel(rng, count, n)
        y = balanced_choice(rng, count)
        i = np.arange(n)
        one = (i + 1) % n                                    # a single n-cycle
        two = np.where(i < h, (i + 1) % h, h + (i - h + 1) % h)  # two h-cycles
        nxt = np.where(y[:, None] == 1, one[None, :], two[None, :])
        u = nodes
        w = np.take_along_axis(nodes, nxt, axis=1)
        return self.finish(rng, u, w, nodes[:, 0], nodes[:, h], out), y

    # ---- sensitivity, from the graph's structure ------------------------------------------
    def decision_view(self):
        view = super().decision_view()[0]
        return [dataclasses.replace(view, sensitive_positions=self.sensitive_positions)]

    def sensitive_positions(self, tokens) -> np.ndarray:
        """Bool (count, n + 3): at which positions some other allowed token changes the
        label - the deterministic sensitivity of docs/theories.md §7 - computed from the
        graph instead of by trying every replacement (the theories check it against that
        brute force before they use it: theories/sensitivity_sampling.py).

        Connected s, t (s != t): an edge position matters iff its edge is a bridge between
        them (found by one depth-first search from s with low-links) and some edge token
        does not join the two sides again, i.e. |side of s| * |side of t| < M (the joining
        tokens are the pairs across; the edge itself is one of them); s (or t) matters iff
        some node lies outside t's (s's) component. s = t: only those two positions can
        matter, the same way. Not connected: every edge position matters (the token s-t
        connects them), and so do s and t (move s into t's component, or t into s's)."""
        x = self.require_valid(tokens)
        src, dst = self.decode(x)
        n, V, M = self.n, self.V, self.M
        out = np.zeros((len(x), n + 3), dtype=bool)
        for r in range(len(x)):
            out[r] = _row_sensitivity(src[r].tolist(), dst[r].tolist(), int(x[r, n + 1]),
                                      int(x[r, n + 2]), V, M)
        return out


def _row_sensitivity(us: list, ws: list, s: int, t: int, V: int, M: int) -> np.ndarray:
    n = len(us)
    adj: list[list[tuple[int, int]]] = [[] for _ in range(V)]
    for e, (u, w) in enumerate(zip(us, ws)):
        adj[u].append((w, e))
        adj[w].append((u, e))
    comp = [-1] * V
    sizes = []
    for root in range(V):
        if comp[root] >= 0:
            continue
        comp[root] = len(sizes)
        stack, size = [root], 0
        while stack:
            u = stack.pop()
            size += 1
            for v, _e in adj[u]:
                if comp[v] < 0:
                    comp[v] = len(sizes)
                    stack.append(v)
        sizes.append(size)
    out = np.zeros(n + 3, dtype=bool)
    if comp[s] != comp[t]:
        out[:n] = True
        out[n + 1] = out[n + 2] = True
        return out
    out[n + 1] = sizes[comp[t]] < V
    out[n + 2] = sizes[comp[s]] < V
    if s == t:
        return out
    # low-links from s (iterative); the edge by id is skipped, not the parent node, so a
    # repeated edge is never a bridge
    tin, low, sub = [-1] * V, [0] * V, [1] * V
    tout = [0] * V
    clock = 0
    tin[s] = low[s] = clock
    stack = [(s, -1, 0)]
    bridges = []
    while stack:
        u, pe, i = stack[-1]
        if i < len(adj[u]):
            stack[-1] = (u, pe, i + 1)
            v, e = adj[u][i]
            if e == pe:
                continue
            if tin[v] < 0:
                clock += 1
                tin[v] = low[v] = clock
                stack.append((v, e, 0))
            else:
                low[u] = min(low[u], tin[v])
            continue
        stack.pop()
        tout[u] = clock
        if stack:
            p = stack[-1][0]
            low[p] = min(low[p], low[u])
            sub[p] += sub[u]
            if low[u] > tin[p]:
                bridges.append((u, pe))
    total = sizes[comp[s]]
    for c, e in bridges:
        if tin[c] <= tin[t] <= tout[c]:          # t below the bridge: it separates s, t
            if sub[c] * (total - sub[c]) < M:
                out[e] = True
    return out
