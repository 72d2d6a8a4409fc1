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
