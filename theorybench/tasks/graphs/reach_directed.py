"""reach_directed: is there a directed path from s to t?

Definition. Input ``e_1 ... e_n ? s t`` with directed edge tokens ``"vi>vj"`` (an edge from
vi to vj) and node tokens s, t; the label is 1 iff the graph with edge set {e_1, .., e_n}
on the nodes v1 .. vV has a directed path from s to t (s = t counts: the empty path).
Variants (parameters): n (even, >= 2) and V = ``nodes`` (0: V = n + 2). Rows all have
n + 3 tokens.

Distributions:

* ``paths`` (default; after the reachability generator of Schnabel, Tomlinson,
  Swaminathan, Neville, "Lost in transmission: when and why LLMs fail to reason
  globally", NeurIPS 2025, arXiv 2505.08140): two node-disjoint directed paths of n/2 edges
  each on 2(n/2 + 1) distinct, randomly chosen node names (a random relabelling), the n
  edges listed in random order. Positives (half, fair coin for odd counts): s and t on the
  same path with s before t, the pair of places uniform; negatives: s on one path and t on
  the other, both uniform. The positive case needs chasing up to n/2 edges through the
  shuffled list.
* ``random``: n independent random edges (no self-loops) among m = round(n / 1.75)
  randomly chosen nodes (about 1.75 edges per node, where roughly half of the ordered pairs
  are connected), s != t uniform among those m; label-balanced by rejection.
* ``uniform``: every edge token and s, t independent and uniform (the natural input space).

Sources: docs/theories.md §9; Schnabel et al. (NeurIPS 2025) above, who show
reachability is BAPO-hard; Sanford, Hsu, Telgarsky, "Transformers, parallel computation,
and logarithmic depth" (ICML 2024, arXiv 2402.09268), where connectivity needs depth
Omega(log n) under the 1-cycle vs 2-cycle conjecture of MPC.
"""

from ..registry import register
from .reach import ReachTask, reach_params


@register
class ReachDirected(ReachTask):
    name = "reach_directed"
    order = 1
    summary = "1 iff the directed graph of the n listed edges has a path from s to t"
    params = reach_params()
    directed = True
    distributions = ("paths", "random", "uniform")
    random_density = 1.75
    analysis_ns = (2,)  # (V(V-1))^n * V^2 inputs with V = n + 2: only n = 2 fits 2^22
