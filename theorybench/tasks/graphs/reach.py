"""Shared part of reach_directed and reach_undirected: generators, labels and the oracle.

Input ``e_1 ... e_n ? s t``: n single-token edges (see :mod:`.common`), the marker, then
two node tokens; the label is [there is a path from s to t] (s = t counts as reachable).
n must be even and >= 2 (the default generator splits the n edges into two paths of n/2
edges). Automatic number of nodes: V = n + 2, exactly the nodes of the two paths.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...errors import TaskParameterError
from ..balance import balanced_choice, rejection_balance
from ..base import Param
from .common import (BLOCK_ROWS, MAX_NODES, GraphTask, nodes_param, random_subsets, reachable,
                     shuffle_rows)


def reach_params() -> tuple[Param, ...]:
    return (
        Param("n", int, 16, "number of edge tokens in the list (even)", minimum=2,
              maximum=MAX_NODES - 2, note="even"),
        nodes_param("number of nodes V (0: V = n + 2, the nodes of the two-path generator)"),
    )


class ReachTask(GraphTask):
    """Reachability between two query nodes after an edge list."""

    query_kind = "nodes"
    #: edges per node for the ``random`` distribution (density where about half of the
    #: pairs are connected, from the giant-component fixed point theta = 1 - exp(-c theta))
    random_density: ClassVar[float] = 1.0
    analysis_ns = (2,)
    train_ns = (8, 16, 32, 64)
    #: the n the MPC theory measures at: label propagation needs as many iterations as the
    #: longest path, so larger graphs only cost time (theories.mpc.mpc_ns)
    mpc_ns = (8, 16, 32)

    def check(self) -> None:
        if self.n % 2:
            raise TaskParameterError(
                f"parameter n={self.n} is odd: {self.name} needs an even n >= 2 (its "
                f"generator splits the n edges into two paths of n/2 edges); use "
                f"n={self.n - 1 if self.n > 2 else 2} or n={self.n + 1}")
        super().check()

    def auto_nodes(self) -> int:
        return self.n + 2

    def min_nodes(self) -> int:
        return self.n + 2

    # ---- reference and oracle ----------------------------------------------------------
    def label(self, tokens):
        x = self.require_valid(tokens)
        src, dst = self.decode(x)
        n = self.n
        return reachable(src, dst, x[:, n + 1], x[:, n + 2], self.V,
                         self.directed).astype(np.int64)

    def oracle(self, tokens):
        import networkx as nx

        sep = ">" if self.directed else "-"
        out = []
        for row in np.asarray(tokens).tolist():
            g = nx.DiGraph() if self.directed else nx.Graph()
            g.add_nodes_from(self.vocab[: self.V])          # nodes by name, from the text
            g.add_edges_from(tuple(self.vocab[t].split(sep)) for t in row[: self.n])
            s, t = self.vocab[row[self.n + 1]], self.vocab[row[self.n + 2]]
            out.append(int(nx.has_path(g, s, t)))
        return np.array(out, dtype=np.int64)

    # ---- generators ----------------------------------------------------------------------
    def relabel(self, rng: np.random.Generator, count: int, used: int) -> np.ndarray:
        """(count, used) distinct node ids per row: a random injective relabelling."""
        return random_subsets(rng, count, self.V, used)

    def finish(self, rng, u: np.ndarray, w: np.ndarray, s: np.ndarray, t: np.ndarray,
               out: np.ndarray | None = None):
        """Rows from edge endpoints (count, n) in shuffled order and the query (s, t)."""
        return self.finish_ids(rng, self.edge_ids(u, w), s, t, out)

    def finish_ids(self, rng, edges: np.ndarray, s: np.ndarray, t: np.ndarray,
                   out: np.ndarray | None = None):
        """Rows from edge ids (count, n), shuffled within each row, and the query (s, t)
        (written to ``out``, an int64 (count, n + 3) array, when given)."""
        x = np.empty((len(edges), self.input_length()), dtype=np.int64) if out is None else out
        shuffle_rows(rng, edges, out=x[:, : self.n])
        x[:, self.n] = self.query_id
        x[:, self.n + 1] = s
        x[:, self.n + 2] = t
        return x

    def sample_paths(self, rng, count, out=None):
        """Two node-disjoint paths of n/2 edges; positives on one path (s before t),
        negatives across the paths; labels balanced."""
        L = self.n // 2
        nodes = self.relabel(rng, count, 2 * (L + 1))
        # consecutive nodes of the row form the two paths; the pair straddling the paths
        # (column L) is not an edge and is dropped
        flat = np.empty((count, self.n), dtype=np.int64)
        np.multiply(nodes[:, :L], self.V, out=flat[:, :L])
        np.multiply(nodes[:, L + 1: 2 * L + 1], self.V, out=flat[:, L:])
        flat[:, :L] += nodes[:, 1: L + 1]
        flat[:, L:] += nodes[:, L + 2:]
        edges = self.pair_table().take(flat)
        del flat
        y = balanced_choice(rng, count)
        rows = np.arange(count)
        path = rng.integers(0, 2, size=count) * (L + 1)          # offset of the chosen path
        i = rng.integers(0, L + 1, size=count)
        j = rng.integers(0, L, size=count)
        j = j + (j >= i)                                          # j != i, uniform
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        other = (L + 1) - path
        s = np.where(y == 1, nodes[rows, path + lo], nodes[rows, path + i])
        t = np.where(y == 1, nodes[rows, path + hi],
                     nodes[rows, other + rng.integers(0, L + 1, size=count)])
        return self.finish_ids(rng, edges, s, t, out), y

    def sample_random(self, rng, count):
        """n independent random edges (no self-loops) among m = max(3, n / density) random
        chosen nodes, s != t among them; balanced by rejection."""
        m = int(min(self.V, max(3, round(self.n / self.random_density))))

        def draw(k):
            # a graph on local nodes 0..m-1 (labels computed there: relabelling does not
            # change reachability), then mapped to m random node names; the edges are
            # independent, so their order is already uniformly random
            a = rng.integers(0, m, size=(k, self.n))
            b = rng.integers(0, m - 1, size=(k, self.n))
            b += b >= a
            q = rng.integers(0, m, size=k)
            r = rng.integers(0, m - 1, size=k)
            r += r >= q
            y = reachable(a, b, q, r, m, self.directed).astype(np.int64)
            names = self.relabel(rng, k, m).reshape(-1)
            offset = np.arange(k, dtype=np.int64) * m
            a += offset[:, None]
            b += offset[:, None]
            edges = self.edge_ids(names.take(a), names.take(b))
            return self.assemble(edges, np.stack([names.take(q + offset),
                                                  names.take(r + offset)], axis=1)), y

        return rejection_balance(draw, count, rng)

    def sample_uniform(self, rng, count):
        """Every edge token and both query nodes independent and uniform."""
        edges = rng.integers(self.V, self.V + self.M, size=(count, self.n))
        query = rng.integers(0, self.V, size=(count, 2))
        x = self.assemble(edges, query)
        return x, self.label(x)

    def sample(self, rng, count, distribution=None):
        dist = self.resolve_distribution(distribution)
        count = self.check_count(count)
        fn = getattr(self, f"sample_{dist}")
        if dist in ("random", "uniform"):
            x, y = fn(rng, count)
            return self.batch(x, y)
        # the constructive generators run in blocks of rows (an even number, so that each
        # full block is exactly balanced): temporaries stay small and cache-friendly
        x = np.empty((count, self.input_length()), dtype=np.int64)
        y = np.empty(count, dtype=np.int64)
        for lo in range(0, count, BLOCK_ROWS):
            hi = min(count, lo + BLOCK_ROWS)
            y[lo:hi] = fn(rng, hi - lo, out=x[lo:hi])[1]
        return self.batch(x, y)
