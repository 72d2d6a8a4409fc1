"""Shared machinery of the graph tasks: single-token edges, vocabulary, decoding, reachability.

Vocabulary (ids in this order, V nodes, M edge tokens):

* ids 0 .. V-1: node tokens ``"v1" .. "vV"`` (node u has id u - 1);
* ids V .. V+M-1: edge tokens. Directed: ``"vi>vj"`` for every ordered pair i != j
  (M = V(V-1)); undirected: ``"vi-vj"`` for every pair i < j (M = V(V-1)/2). Row-major
  order: the edge (u, w) (0-based) has id V + u(V-1) + w - [w > u] when directed and
  V + uV - u(u+1)/2 + (w - u - 1) when undirected;
* id V+M: the query marker ``"?"``.

Every instance has exactly n edge tokens, so all rows of a batch have the same length and
there is no padding (``pad_id`` is None; ``Batch.lengths`` is constant).

The number of nodes V is the parameter ``nodes``; ``nodes=0`` (the default) picks it from n
as the family documents, small enough to keep the vocabulary modest (O(n) tokens for
edge_exists, O(n^2) for reachability, whose generator needs n + 2 distinct nodes).
"""

from __future__ import annotations

from typing import ClassVar, Sequence

import numpy as np

from ...errors import TaskInputError, TaskParameterError
from ..base import Batch, Param, Task

QUERY = "?"
#: Largest number of nodes a graph task accepts (keeps the vocabulary below ~1M tokens).
MAX_NODES = 1024
#: Rows x columns of random keys drawn at once when sampling edge sets (memory bound).
CHUNK_CELLS = 1 << 21
#: Rows generated at once by the constructive samplers (even: each block is balanced).
BLOCK_ROWS = 8192


def nodes_param(doc: str) -> Param:
    return Param("nodes", int, 0, doc, minimum=0, maximum=MAX_NODES, note="0=auto")


def edge_count(nodes: int, directed: bool) -> int:
    """Number of edge tokens M over ``nodes`` nodes."""
    return nodes * (nodes - 1) if directed else nodes * (nodes - 1) // 2


class GraphTask(Task):
    """A final-output task on an edge list of n single-token edges, then ``?`` and a query.

    Subclasses set ``directed`` (or a parameter of that name), ``query_kind`` ("edge" or
    "nodes": one edge token or two node tokens after the marker), ``auto_nodes()`` and
    ``min_nodes()``.
    """

    kind: ClassVar[str] = "graphs"
    output: ClassVar[str] = "final"
    query_kind: ClassVar[str] = "nodes"
    directed: bool = True

    # ---- size ------------------------------------------------------------------------
    def auto_nodes(self) -> int:
        raise NotImplementedError

    def min_nodes(self) -> int:
        raise NotImplementedError

    def check(self) -> None:
        need = self.min_nodes()
        if self.nodes == 0:
            self.V = max(self.auto_nodes(), need)
            if self.V > MAX_NODES:
                raise TaskParameterError(
                    f"parameter n={self.n} is too large for {self.name}: it needs "
                    f"{self.V} nodes, more than the limit {MAX_NODES}")
        else:
            if self.nodes < need:
                raise TaskParameterError(
                    f"parameter nodes={self.nodes} is too small for {self.name} with n={self.n}:"
                    f" it must be >= {need} (or 0 for the automatic choice)")
            self.V = self.nodes
        self.M = edge_count(self.V, self.directed)

    def build_vocab(self) -> Sequence[str]:
        V = self.V
        names = [f"v{i}" for i in range(1, V + 1)]
        src, dst = self._edge_table()
        sep = ">" if self.directed else "-"
        edges = [f"{names[u]}{sep}{names[w]}" for u, w in zip(src.tolist(), dst.tolist())]
        return (*names, *edges, QUERY)

    def _edge_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Endpoints (0-based) of every edge token, in id order."""
        if not hasattr(self, "_src"):
            V = self.V
            if self.directed:
                u, w = np.nonzero(~np.eye(V, dtype=bool))
            else:
                u, w = np.triu_indices(V, 1)
            self._src, self._dst = u.astype(np.int64), w.astype(np.int64)
        return self._src, self._dst

    @property
    def query_id(self) -> int:
        return self.V + self.M

    def edge_ids(self, u: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Token ids of the edges (u, w), 0-based nodes, vectorized (undirected: any order).

        Row-major formula: V + u(V-1) + w - [w > u] (directed), V + uV - u(u+1)/2 +
        (w - u - 1) for u < w (undirected); read from a (V, V) table built once."""
        flat = np.multiply(u, self.V, dtype=np.int64)
        flat += w
        return self.pair_table().take(flat)

    def pair_table(self) -> np.ndarray:
        """Flat (V * V,) int64 table: the edge id of (u, w) at u * V + w (-1 on the diagonal)."""
        if not hasattr(self, "_pairs"):
            V = self.V
            src, dst = self._edge_table()
            table = np.full((V, V), -1, dtype=np.int64)
            ids = np.arange(V, V + self.M, dtype=np.int64)
            table[src, dst] = ids
            if not self.directed:
                table[dst, src] = ids
            self._pairs = table.reshape(-1)
        return self._pairs

    # ---- layout ------------------------------------------------------------------------
    def input_length(self) -> int:
        return self.n + (2 if self.query_kind == "edge" else 3)

    def input_space(self):
        edges = tuple(range(self.V, self.V + self.M))
        space: list[tuple[int, ...]] = [edges] * self.n + [(self.query_id,)]
        if self.query_kind == "edge":
            space.append(edges)
        else:
            nodes = tuple(range(self.V))
            space += [nodes, nodes]
        return space

    def valid_inputs(self, tokens):
        x = np.asarray(tokens)
        if x.ndim != 2 or x.shape[1] != self.input_length():
            return np.zeros(len(x), dtype=bool)
        n, V, M = self.n, self.V, self.M
        ok = ((x[:, :n] >= V) & (x[:, :n] < V + M)).all(axis=1) & (x[:, n] == self.query_id)
        q = x[:, n + 1:]
        if self.query_kind == "edge":
            ok &= ((q >= V) & (q < V + M)).all(axis=1)
        else:
            ok &= ((q >= 0) & (q < V)).all(axis=1)
        return ok

    def check_input(self, row):
        n = self.n
        what = "one query edge token" if self.query_kind == "edge" else "two node tokens s t"
        if len(row) != self.input_length():
            raise TaskInputError(
                f"{self.name} with n={n} expects {self.input_length()} tokens: {n} edge tokens, "
                f"then '?', then {what}; got {len(row)}")
        sep = ">" if self.directed else "-"
        for p, tok in enumerate(row.tolist()):
            shown = self.vocab[tok]
            if p < n and not self.V <= tok < self.V + self.M:
                raise TaskInputError(
                    f"token {p + 1} of the {self.name} input is {shown!r}; the first {n} tokens "
                    f"must be edge tokens like 'v1{sep}v2'")
            if p == n and tok != self.query_id:
                raise TaskInputError(
                    f"token {p + 1} of the {self.name} input is {shown!r}; after the {n} edges "
                    f"comes the query marker '?'")
            if p > n and self.query_kind == "edge" and not self.V <= tok < self.V + self.M:
                raise TaskInputError(
                    f"the query of {self.name} must be an edge token like 'v1{sep}v2', "
                    f"got {shown!r}")
            if p > n and self.query_kind == "nodes" and not 0 <= tok < self.V:
                raise TaskInputError(
                    f"the query of {self.name} must be two node tokens like 'v1 v2', "
                    f"got {shown!r} at token {p + 1}")

    def require_valid(self, tokens: np.ndarray) -> np.ndarray:
        x = np.asarray(tokens, dtype=np.int64)
        if x.ndim == 1:
            x = x[None, :]
        bad = ~self.valid_inputs(x)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise TaskInputError(
                f"row {r} is not a valid {self.name} input with n={self.n}, V={self.V} "
                f"(expected {self.input_length()} tokens: edges, '?', query)")
        return x

    def decode(self, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Endpoints (count, n) of the listed edges of each (valid) row."""
        src, dst = self._edge_table()
        e = tokens[:, : self.n] - self.V
        return src[e], dst[e]

    # ---- batches -------------------------------------------------------------------------
    def batch(self, tokens: np.ndarray, labels: np.ndarray) -> Batch:
        return Batch(tokens=tokens, labels=labels.astype(np.int64), mask=None,
                     lengths=np.full(len(tokens), self.input_length(), dtype=np.int64))

    def assemble(self, edge_tokens: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Rows ``edges ? query`` from (count, n) edge ids and (count, q) query ids."""
        count = len(edge_tokens)
        x = np.empty((count, self.input_length()), dtype=np.int64)
        x[:, : self.n] = edge_tokens
        x[:, self.n] = self.query_id
        x[:, self.n + 1:] = query
        return x

    def decision_view(self):
        return [self.whole_view(
            "output", f"{self.name} on {self.n} edge tokens over {self.V} nodes")]


def random_keys(rng: np.random.Generator, shape, values: np.ndarray, bits: int,
                out: np.ndarray | None = None) -> np.ndarray:
    """uint64 sort keys: uniform random high bits, ``values`` (< 2^bits) in the low bits.

    The bits of a float64 in [0, 1) order like the floats, so the 52-bit mantissa of
    ``rng.random`` serves as the random part (ties have probability about 2^(bits - 52)
    per pair, negligible). Sorting the keys orders the values uniformly at random.
    ``out`` (a C-contiguous uint64 array of ``shape``) is filled instead of a new array.
    """
    if out is None:
        keys = rng.random(shape).view(np.uint64)
    else:
        rng.random(shape, out=out.view(np.float64))
        keys = out
    keys &= ~np.uint64((1 << bits) - 1)
    values = np.asarray(values)
    keys |= values.view(np.uint64) if values.dtype == np.int64 else values.astype(np.uint64)
    return keys


def shuffle_rows(rng: np.random.Generator, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Each row of the non-negative int64 array ``x`` in an independent uniform random order
    (written to ``out`` when given, which may be a column slice of a larger array)."""
    bits = max(1, int(x.max(initial=0)).bit_length())
    keys = random_keys(rng, x.shape, x, bits)
    keys.sort(axis=1)
    low = np.uint64((1 << bits) - 1)
    if out is None:
        keys &= low
        return keys.view(np.int64)
    np.bitwise_and(keys, low, out=out.view(np.uint64))
    return out


def random_subsets(rng: np.random.Generator, count: int, universe: int, size: int,
                   extra: int = 0, out: np.ndarray | None = None) -> np.ndarray:
    """(count, size + extra) distinct elements of range(universe) per row (written to
    ``out``, an int64 array of that shape, possibly a column slice, when given).

    The first ``size`` columns are a uniform random ``size``-subset in uniformly random
    order; each further column is uniform among the elements not taken before it.
    Method: each element gets a random key (:func:`random_keys`, the element in the low
    bits); the ``size + extra`` smallest keys are partitioned off, sorted and decoded.
    Chunked over rows to bound memory.
    """
    take = size + extra
    if take > universe:
        raise ValueError(f"cannot take {take} distinct elements of {universe}")
    if universe >= 8 * take:
        if out is None:
            return _sparse_distinct(rng, count, universe, take)
        out[...] = _sparse_distinct(rng, count, universe, take)
        return out
    bits = max(1, int(universe - 1).bit_length())
    low = np.uint64((1 << bits) - 1)
    ids = np.arange(universe, dtype=np.uint64)
    if out is None:
        out = np.empty((count, take), dtype=np.int64)
    rows = max(1, min(count, CHUNK_CELLS // max(universe, 1)))
    buf = np.empty((rows, universe), dtype=np.uint64)   # one buffer: no fresh pages per chunk
    for lo in range(0, count, rows):
        hi = min(count, lo + rows)
        keys = random_keys(rng, (hi - lo, universe), ids[None, :], bits, out=buf[: hi - lo])
        if take < universe:
            keys.partition(take - 1, axis=1)
        keys = keys[:, :take]
        keys.sort(axis=1)
        np.bitwise_and(keys, low, out=out[lo:hi].view(np.uint64))
    return out


def _sparse_distinct(rng: np.random.Generator, count: int, universe: int,
                     take: int) -> np.ndarray:
    """(count, take) distinct elements per row when universe >= 8 take: draw with
    replacement, then redraw every entry equal to an earlier one in its row until none is.

    The procedure commutes with any relabelling of the universe, and the symmetric group
    acts transitively on tuples of distinct elements, so each row is a uniform random
    tuple of ``take`` distinct elements (a uniform subset in uniform order).
    """
    x = rng.integers(0, universe, size=(count, take))
    rows = np.arange(count)
    while rows.size:
        sub = x[rows]
        order = np.argsort(sub, axis=1, kind="stable")
        ranked = np.take_along_axis(sub, order, axis=1)
        dup_sorted = np.zeros_like(ranked, dtype=bool)
        dup_sorted[:, 1:] = ranked[:, 1:] == ranked[:, :-1]   # later copy (stable order)
        dup = np.zeros_like(dup_sorted)
        np.put_along_axis(dup, order, dup_sorted, axis=1)
        has = dup.any(axis=1)
        rows, sub, dup = rows[has], sub[has], dup[has]
        sub[dup] = rng.integers(0, universe, size=int(dup.sum()))
        x[rows] = sub
    return x


def reachable(src: np.ndarray, dst: np.ndarray, s: np.ndarray, t: np.ndarray, nodes: int,
              directed: bool, cells: int = 1 << 18) -> np.ndarray:
    """Bool (count,): is t reachable from s along the edges (src[r, e] -> dst[r, e])?

    (Undirected: edges go both ways.) s = t counts as reachable (the empty path).
    Breadth-first search run on a whole block of rows at once (:func:`_bfs_block`); the
    blocks of about ``cells`` nodes keep the working arrays in cache.
    """
    count = len(s)
    out = np.empty(count, dtype=bool)
    rows = max(1, cells // max(nodes, 2 * src.shape[1], 1))
    for lo in range(0, count, rows):
        hi = min(count, lo + rows)
        out[lo:hi] = _bfs_block(src[lo:hi], dst[lo:hi], s[lo:hi], t[lo:hi], nodes, directed)
    return out


def _bfs_block(src, dst, s, t, nodes: int, directed: bool) -> np.ndarray:
    """Vectorized BFS over all rows of a block, with the graphs stored as one CSR array.

    Node u of row r gets the global id r * nodes + u. Each row's edges are sorted by tail
    (sorting keys tail * 2^b + head), which lays out the out-neighbours of every global
    node contiguously; ``np.bincount`` and a cumulative sum give where each node's list
    starts. A BFS step gathers the lists of all frontier nodes of all rows at once
    (``np.repeat`` of the start offsets), keeps the unvisited heads, and removes
    duplicates with a scatter (``owner[v] = i`` and keep i where it won). The number of
    steps is the largest BFS depth in the block; the work is linear in the edges.
    """
    count = len(s)
    vbits = max(1, int(nodes - 1).bit_length())
    key = np.left_shift(src, vbits, dtype=np.int64)
    key |= dst
    if not directed:
        rev = np.left_shift(dst, vbits, dtype=np.int64)
        rev |= src
        key = np.concatenate([key, rev], axis=1)
    key.sort(axis=1)
    base = np.arange(count, dtype=np.int64)[:, None] * nodes
    heads = (key & ((1 << vbits) - 1)) + base
    heads = heads.reshape(-1)
    key >>= vbits
    key += base
    size = count * nodes
    degree = np.bincount(key.reshape(-1), minlength=size)
    start = np.zeros(size, dtype=np.int64)
    np.cumsum(degree[:-1], out=start[1:])
    visited = np.zeros(size, dtype=bool)
    owner = np.empty(size, dtype=np.int64)
    frontier = base[:, 0] + s
    visited[frontier] = True
    while frontier.size:
        length = degree[frontier]
        total = int(length.sum())
        if total == 0:
            break
        before = np.cumsum(length) - length
        idx = np.repeat(start[frontier] - before, length)
        idx += np.arange(total, dtype=np.int64)
        nb = heads[idx]
        nb = nb[~visited[nb]]
        if not nb.size:
            break
        visited[nb] = True
        mark = np.arange(nb.size, dtype=np.int64)
        owner[nb] = mark
        frontier = nb[owner[nb] == mark]
    return visited[base[:, 0] + t]
