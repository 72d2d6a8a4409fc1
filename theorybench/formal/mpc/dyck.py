"""MPC programs for dyck and dyck_bounded, run in the simulator and checked by the caller.

Input: one bracket per word, machine m holding positions m*b .. m*b + b - 1 (b = s/2), and
nothing else: every step below is a round function on a machine's own memory and inbox
(see :mod:`.simulator`). Token ids follow the tasks: type t opens with id 2t and closes
with id 2t + 1. P_i is the depth after position i (P_-1 = 0).

* Dyck-1 (:func:`dyck_depth`): every block's (sum of +-1 steps, smallest prefix sum)
  is an element of an associative (non-commutative) monoid; a tree fold with fan-in
  s / 2 gives the word's (final depth, smallest depth): a member iff they are (0, >= 0).
  O(1/delta) rounds.
* Dyck-k, k > 1 (:func:`dyck_match`): the depths P by a tree scan (block sums up, prefix
  offsets down), then the matching condition. Every block reduces, after cancelling
  its inner matched pairs (checked locally), to c closers then o openers at
  consecutive levels; both counts follow from three words per block, (P at the start,
  the smallest P in the block including its start, P at the end) = (p, mu, q): the
  unmatched closers have levels mu+1 .. p, the unmatched openers mu+1 .. q. A
  coordinator (machine 0) receives the 3M words, checks the depth condition
  (min mu >= 0, final depth 0), and matches these runs with a stack of level
  intervals: a list of (opener block B, closer block A, levels lo..hi), at most 2M
  entries (each block pushes one interval and splits at most one). Block B then sends
  each unmatched opener's (level, type) to its A, which compares the type with its own
  unmatched closer at that level; the mismatch flags are OR-folded up the tree. Every
  opener is sent once and every closer receives once, so no machine sends or receives
  more than s words. In-block pairs are found locally: sorted by (level, position), an
  opener followed by a closer of the same level is a pair. Rounds: 3 per tree level for
  the scan, 3 for the coordinator step, 1 per level for the fold: O(1/delta). Limit: the
  coordinator sends up to 6M <= s words (M = N/b = 2N/s machines), i.e.
  N^(1 - 2 delta) <= c^2/12 - true for every N at delta >= 1/2 with the default c = 4;
  below that the program raises
  :class:`ResourceLimitError` rather than exceed memory (recursing on the block
  summaries would lift this; not implemented).
* dyck_bounded (:func:`automaton_fold`): Dyck-k with depth <= D is regular; its stack
  automaton (:func:`dyck_automaton`, |Q| = 1 + k + ... + k^D states plus a dead state)
  turns every block into its transition function (|Q| words), and the functions
  compose in order up a tree of fan-in s / |Q|: O(1/delta) rounds.

The matching condition is the "all nearest smaller values" structure of P (the opener
matched by the closer at j is one past the last t < j with P_t <= P_j); the block
summaries are what makes it need O(1) rounds beyond the scan.
"""

from __future__ import annotations

import functools

import numpy as np

from ...errors import ResourceLimitError
from .scan import BIG, add, compose, depth_combine, put, tree_fold, tree_scan
from .simulator import FILL, Network, Step

#: Largest automaton dyck_automaton builds.
MAX_STATES = 1 << 16


def _steps(mem: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(+1 / -1 per live position, 0 elsewhere; live mask) of a machine's block."""
    tok = mem[..., :b]
    live = tok != FILL
    return np.where(live, np.where(tok & 1, -1, 1), 0).astype(np.int64), live


def dyck_depth(net: Network, task) -> None:
    """Dyck-1: fold (sum, smallest prefix sum) over the blocks."""
    b = net.block

    def local(ids, mem, inbox):
        step, live = _steps(mem, b)
        c = np.cumsum(step, axis=-1)
        low = np.where(live, c, BIG).min(axis=-1)
        return Step(np.stack([c[..., -1], low], axis=-1))

    net.round(local, "block depth summary")
    tree_fold(net, 0, 2, depth_combine, [0, BIG], "Dyck-1 depth fold")
    net.round(lambda ids, mem, inbox: Step(((mem[..., 0] == 0) & (mem[..., 1] >= 0))
                                           .astype(np.int64)[..., None]), "answer")


def _match_runs(p: np.ndarray, mu: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The coordinator's local step: (B, A, lo, hi) rows, openers of B at levels lo..hi
    matched by closers of A (a stack of level intervals; one pass over the blocks)."""
    stack: list[list[int]] = []  # [block, lo, hi], hi on top
    out = []
    for a in range(len(p)):
        top = int(p[a])
        low = int(mu[a]) + 1
        while top >= low:  # closers of a at levels top, top-1, .., low
            if not stack or stack[-1][2] != top:
                raise AssertionError("block summaries do not describe a valid depth profile")
            b, lo, hi = stack[-1]
            take = max(lo, low)
            out.append((b, a, take, hi))
            if take == lo:
                stack.pop()
            else:
                stack[-1][2] = take - 1
            top = take - 1
        if q[a] >= low:
            stack.append([a, low, int(q[a])])
    return np.array(out, dtype=np.int64).reshape(-1, 4)


def match_limit(task, s: int, M: int) -> str | None:
    """Why :func:`dyck_program` cannot run with memory s on M machines, or None (only its
    Dyck-k part, k > 1, gathers block summaries on a coordinator)."""
    if task.k > 1 and M > 1 and 6 * M > s:
        return (f"dyck_match gathers 3 words per machine on one coordinator and sends back up "
                f"to 6 per machine: {M} machines need {6 * M} words, more than s = {s}; use "
                f"delta >= 0.5 or a larger memory constant")
    return None


def automaton_limit(task, s: int, M: int) -> str | None:
    """Why :func:`automaton_fold` cannot run with memory s on M machines, or None."""
    Q = sum(task.k ** d for d in range(task.D + 1)) + 1
    if M > 1 and 2 * Q > s:
        return (f"a transition function of the {Q}-state automaton is {Q} words; a tree "
                f"node needs two of them, more than s = {s}; use a larger delta or "
                f"smaller k, D")
    return None


def dyck_limit(task, s: int, M: int) -> str | None:
    """The limit of the program a Dyck task runs: the automaton fold for a task that
    declares a depth bound ``D``, else :func:`dyck_program` (decided by the task's
    declared parameters, never by its name)."""
    if getattr(task, "D", None) is not None:
        return automaton_limit(task, s, M)
    return match_limit(task, s, M)


def _depths(mem, b, off_col):
    """(step, live, P = depth after every position) from the block and its offset."""
    step, live = _steps(mem, b)
    P = mem[..., off_col:off_col + 1] + np.cumsum(step, axis=-1)
    return step, live, P


def dyck_match(net: Network, task) -> None:
    """Dyck-k: depth scan, local matching, coordinator step over block summaries."""
    k, b, M = task.k, net.block, net.M
    why = match_limit(task, net.s, M)
    if why:
        raise ResourceLimitError(f"{why} (N={net.N})")
    S, S2, O, DOK, BAD = b, b + 1, b + 2, b + 3, b + 4

    def local(ids, mem, inbox):
        step, _ = _steps(mem, b)
        tot = step.sum(axis=-1)[..., None]
        m = put(mem, S, tot)
        m = put(m, S2, tot)
        return Step(put(m, O, np.zeros(ids.shape + (1,), dtype=np.int64)))

    def summary(ids, mem, inbox):
        step, live, P = _depths(mem, b, O)
        p = mem[..., O]
        mu = np.minimum(p, np.where(live, P, BIG).min(axis=-1))
        q = p + mem[..., S]
        rec = np.stack([p, mu, q], axis=-1)[..., None, :]
        return Step(mem, np.zeros(ids.shape + (1,), dtype=np.int64), rec)

    def coordinate(ids, mem, inbox):
        # machine 0 alone has an inbox here: the (p, mu, q) of every block in block order
        d = inbox.data
        ok0 = inbox.valid.sum(axis=-1) == M
        last = d[..., M - 1, 2] if d.shape[-2] >= M else np.zeros(ids.shape, dtype=np.int64)
        low = np.where(inbox.valid, d[..., 1], BIG).min(axis=-1, initial=BIG)
        dok = ok0 & (low >= 0) & (last == 0)
        K = 2 * M
        dest = np.full(ids.shape + (K,), -1, dtype=np.int64)
        data = np.zeros(ids.shape + (K, 3), dtype=np.int64)
        for r, c in zip(*np.nonzero(dok)):       # local work of each coordinator
            runs = _match_runs(d[r, c, :M, 0], d[r, c, :M, 1], d[r, c, :M, 2])
            dest[r, c, :len(runs)] = runs[:, 0]
            data[r, c, :len(runs)] = runs[:, 1:]
        m = put(mem, DOK, dok.astype(np.int64)[..., None])
        return Step(m, dest, data)

    def openers(ids, mem, inbox):
        step, live, P = _depths(mem, b, O)
        big = np.full(P.shape[:-1] + (1,), BIG)
        after = np.minimum.accumulate(np.concatenate([P, big], axis=-1)[..., ::-1],
                                      axis=-1)[..., ::-1][..., 1:]   # min of P after j
        un = live & (step > 0) & (after >= P)
        level = P
        A, lo, hi = inbox.data[..., 0], inbox.data[..., 1], inbox.data[..., 2]
        cover = (inbox.valid[..., None, :] & (lo[..., None, :] <= level[..., :, None])
                 & (level[..., :, None] <= hi[..., None, :]))           # (..., b, R)
        has = un & cover.any(axis=-1)
        to = np.where(cover, A[..., None, :], -1).max(axis=-1, initial=-1)
        typ = mem[..., :b] >> 1
        return Step(mem, np.where(has, to, -1), (level * k + typ)[..., None])

    def closers(ids, mem, inbox):
        step, live, P = _depths(mem, b, O)
        tok = mem[..., :b]
        p = mem[..., O:O + 1]
        before = np.minimum.accumulate(np.concatenate([p, P[..., :-1]], axis=-1), axis=-1)
        un = live & (step < 0) & (P < before)
        level = np.where(step < 0, P + 1, P)
        typ = tok >> 1
        # received (level, type) of the opener matching each unmatched closer
        lv, ty = inbox.data[..., 0] // k, inbox.data[..., 0] % k
        hit = inbox.valid[..., None, :] & (lv[..., None, :] == level[..., :, None])
        hit &= un[..., None]
        cross_bad = np.any(hit & (ty[..., None, :] != typ[..., :, None]), axis=(-2, -1))
        # in-block pairs: positions by (level, position); an opener followed by a closer
        # of the same level is a pair inside the block
        shp = level.shape
        flat_lv = np.where(live, level, BIG).reshape(-1, b)
        order = np.lexsort((np.broadcast_to(np.arange(b), flat_lv.shape), flat_lv), axis=-1)
        lv_s = np.take_along_axis(flat_lv, order, axis=-1)
        cl_s = np.take_along_axis((step < 0).reshape(-1, b), order, axis=-1)
        ty_s = np.take_along_axis(typ.reshape(-1, b), order, axis=-1)
        pair = (lv_s[:, 1:] == lv_s[:, :-1]) & (lv_s[:, 1:] < BIG) & ~cl_s[:, :-1] & cl_s[:, 1:]
        in_bad = np.any(pair & (ty_s[:, 1:] != ty_s[:, :-1]), axis=-1).reshape(shp[:-1])
        return Step(put(mem, BAD, (cross_bad | in_bad).astype(np.int64)[..., None]))

    net.round(local, "block sums")
    tree_scan(net, S2, 1, add, [0], O, "depth scan")
    net.round(summary, "block summaries to the coordinator")
    net.round(coordinate, "coordinator matches the level runs")
    net.round(openers, "unmatched openers to their closers")
    net.round(closers, "type check")
    tree_fold(net, BAD, 1, np.maximum, [0], "mismatch fold")
    net.round(lambda ids, mem, inbox: Step(((mem[..., DOK] == 1) & (mem[..., BAD] == 0))
                                           .astype(np.int64)[..., None]), "answer")


def dyck_program(net: Network, task) -> None:
    """dyck: the Dyck-1 fold for k = 1, the matching program for k > 1."""
    return dyck_depth(net, task) if task.k == 1 else dyck_match(net, task)


@functools.lru_cache(maxsize=32)
def dyck_automaton(k: int, D: int) -> tuple[np.ndarray, int, np.ndarray]:
    """(delta (Q, 2k), start, accepting (Q,)) of the stack automaton of Dyck-k, depth <= D.

    State offset[d] + v is the stack of d open types with base-k value v (top = last
    digit); the last state is dead. Opening type t pushes (dead above D), closing type
    t pops when the top is t (dead otherwise); accept = the empty stack.
    """
    sizes = [k ** d for d in range(D + 1)]
    Q = sum(sizes) + 1
    if Q > MAX_STATES:
        raise ResourceLimitError(
            f"the automaton of Dyck-{k} with depth <= {D} has {Q} states, more than "
            f"{MAX_STATES}; use a smaller k or D")
    offset = np.r_[0, np.cumsum(sizes)][:-1]
    dead = Q - 1
    depth = np.repeat(np.arange(D + 1), sizes)
    val = np.concatenate([np.arange(s) for s in sizes])
    delta = np.full((Q, 2 * k), dead, dtype=np.int64)
    for t in range(k):
        up = depth < D
        delta[:-1, 2 * t] = np.where(up, offset[np.minimum(depth + 1, D)] + val * k + t, dead)
        down = (depth > 0) & (val % k == t)
        delta[:-1, 2 * t + 1] = np.where(down, offset[np.maximum(depth - 1, 0)] + val // k,
                                         dead)
    accept = np.zeros(Q, dtype=bool)
    accept[0] = True
    return delta, 0, accept


def automaton_fold(net: Network, task) -> None:
    """dyck_bounded: compose the blocks' transition functions up the tree."""
    delta, start, accept = dyck_automaton(task.k, task.D)
    Q, b = len(delta), net.block
    why = automaton_limit(task, net.s, net.M)
    if why:
        raise ResourceLimitError(f"{why} (N={net.N})")

    def local(ids, mem, inbox):   # every machine runs its block (vectorised over machines)
        fn = np.broadcast_to(np.arange(Q, dtype=np.int64), ids.shape + (Q,)).copy()
        for j in range(b):
            tok = mem[..., j]
            live = tok != FILL
            if not live.any():
                break
            fn = np.where(live[..., None],
                          delta[fn, np.where(live, tok, 0)[..., None]], fn)
        return Step(fn)

    net.round(local, "block transition functions")
    tree_fold(net, 0, Q, compose, np.arange(Q), "transition-function fold")
    net.round(lambda ids, mem, inbox: Step(accept[mem[..., start]].astype(np.int64)[..., None]),
              "accept?")


__all__ = ["dyck_depth", "dyck_match", "dyck_program", "automaton_fold", "dyck_automaton",
           "dyck_limit", "match_limit", "automaton_limit"]
