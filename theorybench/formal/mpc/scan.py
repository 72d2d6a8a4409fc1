"""Tree folds, scans and broadcasts over the machines, as round functions.

Every helper drives rounds on a :class:`~.simulator.Network` and touches only the words
``mem[..., col:col + w]`` of every machine (a record of w words; the caller chooses the
column); all other words are kept. With fan-in F = s // w (a parent receives at most s
words per round) the tree over M machines has depth ceil(log_F M) ~ (1 - delta) / delta,
a constant for fixed delta (Goodrich, Sitchinava, Zhang, "Sorting, searching, and
simulation in the MapReduce framework", ISAAC 2011: prefix sums in O(log_s N) rounds; in
our words). Node j of a level lives on machine j; its parent is node j // F.

* :func:`tree_fold` - the ordered product of all records, left on machine 0: one round per
  level.
* :func:`tree_scan` - every machine's exclusive prefix (the product of the records of the
  machines before it): the fold up (a machine keeps its aggregate of every level it hosts,
  w words per level), then the children re-send their aggregates and the parents send each
  child its offset: one round per level up, two per level down.
* :func:`broadcast` - a record of one machine copied to all machines: after t rounds the
  first (F + 1)^t machines (counted from the root) have it.

The operation need not be commutative (DFA transition functions compose in order): a
parent receives its children's records in child order because the network delivers in
sender order. ``combine(a, b)`` works on arrays (..., w) - "a, then b".
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...errors import ResourceLimitError
from .simulator import FILL, Inbox, Network, Step

Combine = Callable[[np.ndarray, np.ndarray], np.ndarray]


def fanin(net: Network, w: int, what: str) -> int:
    F = net.s // w
    if F < 2:
        raise ResourceLimitError(
            f"{what}: a record of {w} words leaves room for fewer than 2 children per tree "
            f"node with s = {net.s} words (N={net.N}); use a larger delta or memory constant c")
    return F


def put(mem: np.ndarray, col: int, vals: np.ndarray, where: np.ndarray | None = None
        ) -> np.ndarray:
    """A copy of ``mem`` with words col.. set to ``vals`` (..., w) (widened with FILL if
    needed); only on the machines where ``where`` (..., ) is True when given."""
    vals = np.asarray(vals, dtype=np.int64)
    w = vals.shape[-1]
    width = max(mem.shape[-1], col + w)
    out = np.full(mem.shape[:-1] + (width,), FILL, dtype=np.int64)
    out[..., : mem.shape[-1]] = mem
    if where is None:
        out[..., col:col + w] = vals
    else:
        out[..., col:col + w] = np.where(where[..., None], vals, out[..., col:col + w])
    return out


def ordered_reduce(inbox: Inbox, combine: Combine, identity: np.ndarray) -> np.ndarray:
    """Every machine's received records combined in arrival order (..., w): a loop over the
    inbox slots (at most F), vectorised over machines."""
    acc = np.broadcast_to(np.asarray(identity, dtype=np.int64), inbox.data.shape[:-2]
                          + (len(identity),)).copy()
    for j in range(inbox.data.shape[-2]):
        ok = inbox.valid[..., j]
        acc = np.where(ok[..., None], combine(acc, inbox.data[..., j, :]), acc)
    return acc


def sibling_prefix(inbox: Inbox, combine: Combine, identity: np.ndarray) -> np.ndarray:
    """Exclusive prefixes of the received records (..., R, w) in arrival order."""
    acc = np.broadcast_to(np.asarray(identity, dtype=np.int64), inbox.data.shape[:-2]
                          + (len(identity),)).copy()
    out = np.empty(inbox.data.shape, dtype=np.int64)
    for j in range(inbox.data.shape[-2]):
        out[..., j, :] = acc
        ok = inbox.valid[..., j]
        acc = np.where(ok[..., None], combine(acc, inbox.data[..., j, :]), acc)
    return out


def _levels(M: int, F: int) -> list[int]:
    counts = [M]
    while counts[-1] > 1:
        counts.append(-(-counts[-1] // F))
    return counts


def tree_fold(net: Network, col: int, w: int, combine: Combine, identity,
              what: str = "tree fold") -> None:
    """Fold the records at ``col`` in machine order; the total lands at ``col`` on machine 0."""
    identity = np.asarray(identity, dtype=np.int64)
    F = fanin(net, w, what)
    counts = _levels(net.M, F)
    for c, p in zip(counts[:-1], counts[1:]):
        def send(ids, mem, inbox, c=c):
            dest = np.where(ids < c, ids // F, -1)[..., None]
            return Step(mem, dest, mem[..., None, col:col + w])

        def recv(ids, mem, inbox, p=p):
            return Step(put(mem, col, ordered_reduce(inbox, combine, identity), ids < p))

        net.round(send, f"{what}: up")
        net.round(recv, f"{what}: combine")


def tree_scan(net: Network, col: int, w: int, combine: Combine, identity, out: int,
              what: str = "tree scan") -> None:
    """Exclusive prefix of the records at ``col`` written at ``out`` on every machine
    (machine 0 gets the identity); machine 0 also gets the total at ``col``. The level
    aggregates use the words after the memory's current width (and after ``out``) and are
    dropped at the end."""
    identity = np.asarray(identity, dtype=np.int64)
    F = fanin(net, w, what) if net.M > 1 else 2
    counts = _levels(net.M, F)
    L = len(counts) - 1
    base: list[int] = []

    def start(ids, mem, inbox):
        m = put(mem, out, np.broadcast_to(identity, mem.shape[:-1] + (w,)))
        if not base:
            base.append(m.shape[-1])    # public: the layout, the same on every machine
        return Step(put(m, base[0], m[..., col:col + w]))     # level-0 aggregate

    net.round(start, f"{what}: start")
    agg = lambda lev: base[0] + lev * w  # noqa: E731 - the column of level lev's aggregate
    for lev in range(L):                 # up: one round per level
        c, p = counts[lev], counts[lev + 1]

        def send(ids, mem, inbox, c=c, lev=lev):
            dest = np.where(ids < c, ids // F, -1)[..., None]
            return Step(mem, dest, mem[..., None, agg(lev):agg(lev) + w])

        def recv(ids, mem, inbox, p=p, lev=lev):
            tot = ordered_reduce(inbox, combine, identity)
            m = put(mem, agg(lev + 1), np.full(mem.shape[:-1] + (w,), FILL, dtype=np.int64))
            return Step(put(m, agg(lev + 1), tot, ids < p))

        net.round(send, f"{what}: up")
        net.round(recv, f"{what}: combine")
    for lev in range(L, 0, -1):          # down: two rounds per level
        c, p = counts[lev - 1], counts[lev]

        def resend(ids, mem, inbox, c=c, lev=lev):
            dest = np.where(ids < c, ids // F, -1)[..., None]
            return Step(mem, dest, mem[..., None, agg(lev - 1):agg(lev - 1) + w])

        def offsets(ids, mem, inbox, p=p):
            excl = sibling_prefix(inbox, combine, identity)          # (..., R, w)
            mine = np.broadcast_to(mem[..., None, out:out + w], excl.shape)
            child = combine(mine.reshape(-1, w), excl.reshape(-1, w)).reshape(excl.shape)
            dest = np.where(inbox.valid & (ids < p)[..., None], inbox.src, -1)
            return Step(mem, dest, child)

        def store(ids, mem, inbox, c=c):
            got = inbox.data[..., 0, :] if inbox.data.shape[-2] else None
            if got is None:
                return Step(mem)
            return Step(put(mem, out, got, inbox.valid[..., 0] & (ids < c)))

        net.round(resend, f"{what}: down (children re-send)")
        net.round(offsets, f"{what}: down (offsets)")
        net.round(store, f"{what}: store offset")

    def finish(ids, mem, inbox):
        tot = mem[..., agg(L):agg(L) + w]
        m = put(mem, col, tot, ids == 0)
        return Step(m[..., : base[0]].copy())

    net.round(finish, f"{what}: finish")


def broadcast(net: Network, root: int, col: int, w: int, what: str = "broadcast") -> None:
    """Copy machine ``root``'s record at ``col`` to every machine (same columns)."""
    F = fanin(net, w, what)
    M = net.M
    have = 1
    while have < M:
        h = have

        def send(ids, mem, inbox, h=h):
            v = (ids - root) % M                                   # virtual id
            kids = v[..., None] + h * np.arange(1, F + 1)          # (..., F)
            ok = (v[..., None] < h) & (kids < min(M, h * (F + 1)))
            dest = np.where(ok, (kids + root) % M, -1)
            rec = np.broadcast_to(mem[..., None, col:col + w], dest.shape + (w,))
            return Step(mem, dest, rec)

        def recv(ids, mem, inbox):
            if inbox.data.shape[-2] == 0:
                return Step(mem)
            return Step(put(mem, col, inbox.data[..., 0, :], inbox.valid[..., 0]))

        net.round(send, f"{what}: send")
        net.round(recv, f"{what}: store")
        have = min(M, h * (F + 1))


# ------------------------------------------------------------------ monoids
def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a + b


#: Identity of the (sum, smallest prefix sum) monoid: the empty block (no prefix: +inf).
BIG = np.int64(1) << 40


def depth_combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(sum, min prefix) of block a followed by block b."""
    return np.stack([a[..., 0] + b[..., 0], np.minimum(a[..., 1], a[..., 0] + b[..., 1])],
                    axis=-1)


def compose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Transition functions as arrays over the states: first a, then b."""
    return np.take_along_axis(b, a, axis=-1)


__all__ = ["tree_fold", "tree_scan", "broadcast", "put", "ordered_reduce", "fanin", "add",
           "depth_combine", "compose", "BIG"]
