"""edge_exists: is the query edge one of the n listed edges?

Definition. The input is ``e_1 ... e_n ? q`` where every e_i and q are single edge tokens
over V nodes (see :mod:`.common` for the vocabulary); the label is [q in {e_1, ..., e_n}].
Edges are undirected (``"vi-vj"``, i < j) by default; ``directed=true`` uses ordered edges
``"vi>vj"``, where q = "v1>v2" is not matched by "v2>v1".

Variants (parameters): n; ``directed``; the number of nodes ``nodes`` (V) or, when 0,
the smallest V >= 3 with M(V) >= 2n edge tokens (M = V(V-1)/2 undirected, V(V-1)
directed), so that about half of all possible edges are listed. With ``nodes`` given it must leave at least one non-edge (M(V) >= n + 1).

Distributions:

* ``balanced`` (default): the edge set is a uniformly random set of n distinct edges
  (a random graph G(V, n); node labels are exchangeable, so it is randomly relabelled), in
  uniformly random order; half of the queries (rounded by a fair coin) are a uniformly
  chosen listed edge, the other half a uniformly chosen non-edge.
* ``uniform``: every edge token and the query independent and uniform over all M edge
  tokens (repeats possible; label 1 with probability 1 - (1 - 1/M)^n).

Sources: docs/theories.md §9; edge existence as a retrieval task in Sanford et al.,
"Understanding transformer reasoning capabilities via graph algorithms" (NeurIPS 2024,
arXiv 2405.18512), and Fatemi, Halcrow, Perozzi, "Talk like a graph" (ICLR 2024).
"""

from __future__ import annotations

import numpy as np

from ..balance import balanced_choice
from ..base import Param
from ..registry import register
from .common import (BLOCK_ROWS, MAX_NODES, GraphTask, edge_count, nodes_param,
                     random_subsets)


@register
class EdgeExists(GraphTask):
    name = "edge_exists"
    order = 0
    summary = "1 iff the query edge token q is among the n listed edge tokens"
    params = (
        Param("n", int, 16, "number of edge tokens in the list", minimum=1,
              maximum=edge_count(MAX_NODES, False) - 1),
        nodes_param("number of nodes V (0: the smallest V >= 3 with at least 2n edge tokens)"),
        Param("directed", bool, False, "ordered edges 'vi>vj' instead of unordered 'vi-vj'"),
    )
    query_kind = "edge"
    distributions = ("balanced", "uniform")
    analysis_ns = (1, 2, 3, 4, 5)  # M^(n+1) inputs fit 2^22 for the automatic V
    train_ns = (8, 16, 32, 64)

    def auto_nodes(self) -> int:
        V = 3
        while edge_count(V, self.directed) < 2 * self.n:
            V += 1
        return V

    def min_nodes(self) -> int:
        V = 2
        while edge_count(V, self.directed) < self.n + 1:
            V += 1
        return V

    def label(self, tokens):
        x = self.require_valid(tokens)
        return (x[:, : self.n] == x[:, self.n + 1][:, None]).any(axis=1).astype(np.int64)

    def oracle(self, tokens):
        import networkx as nx

        out = []
        for row in np.asarray(tokens).tolist():
            g = nx.DiGraph() if self.directed else nx.Graph()
            g.add_nodes_from(range(self.V))
            ends = [self._ends(tok) for tok in row[: self.n]]
            g.add_edges_from(ends)
            out.append(int(g.has_edge(*self._ends(row[self.n + 1]))))
        return np.array(out, dtype=np.int64)

    def _ends(self, tok: int) -> tuple[int, int]:
        """Endpoints read back from the token's text (independent of the id formula)."""
        a, b = self.vocab[tok].split(">" if self.directed else "-")
        return int(a[1:]) - 1, int(b[1:]) - 1

    def sample(self, rng, count, distribution=None):
        dist = self.resolve_distribution(distribution)
        count = self.check_count(count)
        n, V, M = self.n, self.V, self.M
        if dist == "uniform":
            ids = rng.integers(V, V + M, size=(count, n + 1))
            x = self.assemble(ids[:, :n], ids[:, n:])
            return self.batch(x, self.label(x))
        x = np.empty((count, self.input_length()), dtype=np.int64)
        y = np.empty(count, dtype=np.int64)
        for lo in range(0, count, BLOCK_ROWS):      # blocks of rows: small temporaries
            hi = min(count, lo + BLOCK_ROWS)
            y[lo:hi] = self._balanced(rng, x[lo:hi])
        return self.batch(x, y)

    def _balanced(self, rng, x):
        """Fill the rows of ``x`` in place (n edges, '?', the query); return their labels."""
        n, count = self.n, len(x)
        # n listed edges, then a non-edge in the column of the marker (overwritten below)
        random_subsets(rng, count, self.M, n, extra=1, out=x[:, : n + 1])
        x[:, : n + 1] += self.V
        y = balanced_choice(rng, count)
        present = x[np.arange(count), rng.integers(0, n, size=count)]
        x[:, n + 1] = np.where(y == 1, present, x[:, n])
        x[:, n] = self.query_id
        return y
