"""Tree-structured folds and scans over the machines, for any associative operation.

Machine m holds one aggregate of its input block (a record of w words). The nodes of
level l of an F-ary tree (F = s // w, so a parent can receive all its children's
records) are numbered 0, 1, ... and node j lives on machine j; its parent is node j // F
of level l + 1. With M machines the tree has depth ceil(log_F M) ~ (1 - delta) / delta,
a constant for fixed delta (Goodrich, Sitchinava, Zhang, "Sorting, searching, and
simulation in the MapReduce framework", ISAAC 2011, prefix sums in O(log_s N) rounds;
in our words).

* :func:`tree_fold` - the product of all blocks in order: one round per level.
* :func:`tree_scan` - every machine's exclusive prefix (the product of the blocks before
  it): the fold up the tree, then offsets down. A node keeps only its own aggregate
  between the two passes (O(1) words per level it hosts); on the way down the children
  re-send their aggregates, so a parent never holds more than one round's F records:
  one round per level up, two per level down.

The operation need not be commutative (the DFA transition functions of
:mod:`.dyck` compose in order): records arrive sorted by child id, because
:meth:`MPC.exchange` keeps the senders' order.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import ResourceLimitError
from .simulator import MPC

Combine = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _fanin(mpc: MPC, w: int, what: str) -> int:
    F = mpc.s // w
    if F < 2:
        raise ResourceLimitError(
            f"{what}: a record of {w} words leaves room for fewer than 2 children per tree "
            f"node with s = {mpc.s} words (N={mpc.N}, delta={mpc.delta}); use a larger "
            f"delta or memory constant c")
    return F


def _sibling_prefix(vals: np.ndarray, F: int, combine: Combine,
                    identity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Children records in child order -> (exclusive prefix per child, total per parent).

    Local computation on every parent at once: a loop over the child slot (at most F),
    vectorized over the parents.
    """
    R, w = vals.shape
    P = -(-R // F)
    pad = np.empty((P * F, w), dtype=np.int64)
    pad[:] = identity
    pad[:R] = vals
    pad = pad.reshape(P, F, w)
    excl = np.empty_like(pad)
    acc = np.repeat(identity[None, :], P, axis=0)
    for j in range(min(F, R)):
        excl[:, j] = acc
        acc = combine(acc, pad[:, j])
    return excl.reshape(P * F, w)[:R], acc


def tree_fold(mpc: MPC, vals: np.ndarray, combine: Combine, identity: np.ndarray,
              what: str = "tree fold") -> np.ndarray:
    """The ordered product of the per-machine records ``vals`` (M, w), on machine 0."""
    vals = np.asarray(vals, dtype=np.int64)
    identity = np.asarray(identity, dtype=np.int64)
    cur = vals
    while len(cur) > 1:
        F = _fanin(mpc, vals.shape[1], what)
        nodes = np.arange(len(cur), dtype=np.int64)
        got = mpc.exchange(nodes, nodes // F, cur)
        _, cur = _sibling_prefix(got.data, F, combine, identity)
    return cur[0] if len(cur) else identity


def tree_scan(mpc: MPC, vals: np.ndarray, combine: Combine, identity: np.ndarray,
              what: str = "tree scan") -> tuple[np.ndarray, np.ndarray]:
    """(exclusive prefix of every machine (M, w), the total (w,)) for records ``vals``."""
    vals = np.asarray(vals, dtype=np.int64)
    identity = np.asarray(identity, dtype=np.int64)
    F = _fanin(mpc, vals.shape[1], what) if len(vals) > 1 else 2
    levels = [vals]                     # node aggregates per level (each node keeps its own)
    while len(levels[-1]) > 1:
        cur = levels[-1]
        nodes = np.arange(len(cur), dtype=np.int64)
        got = mpc.exchange(nodes, nodes // F, cur)          # up: one round per level
        _, tot = _sibling_prefix(got.data, F, combine, identity)
        levels.append(tot)
    offset = identity[None, :].copy()   # the root's offset
    for lev in range(len(levels) - 1, 0, -1):
        kids = levels[lev - 1]
        nodes = np.arange(len(kids), dtype=np.int64)
        got = mpc.exchange(nodes, nodes // F, kids)          # down 1: children re-send
        excl, _ = _sibling_prefix(got.data, F, combine, identity)
        parent_off = offset[nodes // F]
        child_off = combine(parent_off, excl)
        offset = mpc.exchange(nodes // F, nodes, child_off).data  # down 2: offsets
    return offset, levels[-1][0]


# ------------------------------------------------------------------ monoids
def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a + b


#: Identity of the (sum, smallest prefix sum) monoid: the empty block (no prefix: +inf).
BIG = np.int64(1) << 40


def depth_combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(sum, min prefix) of block a followed by block b."""
    return np.stack([a[:, 0] + b[:, 0], np.minimum(a[:, 1], a[:, 0] + b[:, 1])], axis=1)


def compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Transition functions as arrays over the states: first a, then b."""
    return np.take_along_axis(b, a, axis=1)


__all__ = ["tree_fold", "tree_scan", "add", "depth_combine", "compose", "BIG"]
