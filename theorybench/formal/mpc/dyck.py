"""MPC algorithms for dyck and dyck_bounded, run in the simulator and checked by the caller.

Input: one bracket per word, machine m holding positions m*s .. m*s + s - 1. Token ids
follow the tasks: type t opens with id 2t and closes with id 2t + 1. P_i is the depth
after position i (P_-1 = 0).

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
  more than s words. Rounds: 3 per tree level for the scan, 3 for the coordinator
  step, 1 per level for the fold: O(1/delta). Limit: the coordinator needs
  6M <= s words (M = N/s machines), i.e. N^(1 - 2 delta) <= c^2/6 - true for every N at
  delta >= 1/2 with the default c = 4; below that the algorithm raises
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
from .scan import BIG, add, compose, depth_combine, tree_fold, tree_scan
from .simulator import MPC

#: Largest automaton dyck_automaton builds.
MAX_STATES = 1 << 16


def _blocks(mpc: MPC, L: int) -> tuple[np.ndarray, np.ndarray]:
    """(owner of every position, first position of every machine's block)."""
    d = mpc.distribute(np.zeros(L, dtype=np.int64))
    per = mpc.s
    return d.owner, np.arange(mpc.machines, dtype=np.int64) * per


def _local_depth(x: np.ndarray, owner: np.ndarray, starts: np.ndarray, M: int):
    """Steps, block sums and depths relative to the block start (local computation)."""
    step = np.where(x & 1, -1, 1).astype(np.int64)
    c = np.cumsum(step)
    base = np.zeros(M, dtype=np.int64)
    has = starts < len(x)
    base[has] = c[starts[has]] - step[starts[has]]
    rel = c - base[owner]
    sums = np.bincount(owner, weights=step, minlength=M).astype(np.int64)
    return step, rel, sums


def dyck_depth(task, x: np.ndarray, mpc: MPC) -> int:
    """Dyck-1: fold (sum, smallest prefix sum) over the blocks."""
    if task.k > 1:
        raise ResourceLimitError("dyck_depth decides Dyck-1 only; use dyck_match for k > 1")
    owner, starts = _blocks(mpc, len(x))
    M = mpc.machines
    step, rel, sums = _local_depth(x, owner, starts, M)
    lo = np.full(M, BIG, dtype=np.int64)
    np.minimum.at(lo, owner, rel)
    total, low = tree_fold(mpc, np.stack([sums, lo], axis=1), depth_combine,
                           np.array([0, BIG]), "Dyck-1 depth fold")
    return int(total == 0 and low >= 0)


def _local_matching(x, owner, P, step, k):
    """In-block matched pairs (type mismatches per machine) and the unmatched brackets.

    Positions sorted by (machine, level, position), level = depth after an opener or
    before a closer: in a valid profile the brackets of one level alternate opener /
    closer, so an opener followed by a closer of the same (machine, level) is a pair
    inside the block; a group's leading closer and trailing opener are unmatched.
    """
    closing = step < 0
    level = np.where(closing, P + 1, P)
    order = np.lexsort((np.arange(len(x)), level, owner))
    o, lv, cl = owner[order], level[order], closing[order]
    same_next = np.r_[(o[1:] == o[:-1]) & (lv[1:] == lv[:-1]), False]
    pair = same_next & ~cl & np.r_[cl[1:], False]
    typ = x[order] >> 1
    bad = pair & np.r_[typ[1:] != typ[:-1], False]
    mism = np.bincount(o[bad], minlength=owner.max() + 1 if len(owner) else 0) > 0
    in_pair = pair | np.r_[False, pair[:-1]]
    un_open = ~cl & ~in_pair
    un_close = cl & ~in_pair
    return mism, (o[un_open], lv[un_open], typ[un_open]), (o[un_close], lv[un_close],
                                                          typ[un_close])


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


def dyck_match(task, x: np.ndarray, mpc: MPC) -> int:
    """Dyck-k: depth scan, local matching, coordinator step over block summaries."""
    k = task.k
    L = len(x)
    M = mpc.machines
    if 6 * M > mpc.s and M > 1:
        raise ResourceLimitError(
            f"dyck_match gathers 3 words per machine on one coordinator and sends back up to "
            f"6 per machine: {M} machines need {6 * M} words, more than s = {mpc.s} "
            f"(N={mpc.N}, delta={mpc.delta}); use delta >= 0.5 or a larger memory constant")
    owner, starts = _blocks(mpc, L)
    step, rel, sums = _local_depth(x, owner, starts, M)
    off, _ = tree_scan(mpc, sums[:, None], add, np.array([0]), "depth scan")
    P = off[owner, 0] + rel                              # depth after every position
    p = off[:, 0]
    mu = p.copy()
    np.minimum.at(mu, owner, P)
    q = p + sums
    summ = mpc.exchange(np.arange(M), np.zeros(M, dtype=np.int64),
                        np.stack([p, mu, q], axis=1)).data   # gather on machine 0
    if summ[:, 1].min() < 0 or summ[-1, 2] != 0:
        return 0                                            # depth condition fails
    mism, (bo, bl, bt), (ao, al, at) = _local_matching(x, owner, P, step, k)
    runs = _match_runs(summ[:, 0], summ[:, 1], summ[:, 2])
    got = mpc.exchange(np.zeros(len(runs), dtype=np.int64), runs[:, 0], runs[:, 1:]).data
    # each opener block expands its (A, lo, hi) rows into one word per level
    B = runs[:, 0][np.argsort(runs[:, 0], kind="stable")]
    width = got[:, 2] - got[:, 1] + 1
    src = np.repeat(B, width)
    dst = np.repeat(got[:, 0], width)
    lev = np.repeat(got[:, 1], width) + (np.arange(width.sum())
                                         - np.repeat(np.cumsum(width) - width, width))
    span = L + 2
    okey = bo * span + bl
    oi = np.searchsorted(okey, src * span + lev)      # (bo, bl) are sorted by construction
    if len(oi) and (oi.max() >= len(okey) or (okey[oi] != src * span + lev).any()):
        raise AssertionError("run bookkeeping disagrees with the unmatched openers")
    sent = mpc.exchange(src, dst, lev * k + bt[oi])
    ckey = ao * span + al
    cord = np.argsort(ckey, kind="stable")
    ci = cord[np.searchsorted(ckey[cord], sent.owner * span + sent.data[:, 0] // k)]
    wrong = at[ci] != sent.data[:, 0] % k
    flag = mism.astype(np.int64)
    flag = np.r_[flag, np.zeros(M - len(flag), dtype=np.int64)]
    np.maximum.at(flag, sent.owner[wrong], 1)
    anybad = tree_fold(mpc, flag[:, None], np.maximum, np.array([0]), "mismatch fold")[0]
    return int(anybad == 0)


def dyck_algorithm(task, x: np.ndarray, mpc: MPC) -> int:
    """dyck: the Dyck-1 fold for k = 1, the matching algorithm for k > 1."""
    return dyck_depth(task, x, mpc) if task.k == 1 else dyck_match(task, x, mpc)


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


def automaton_fold(task, x: np.ndarray, mpc: MPC) -> int:
    """dyck_bounded: compose the blocks' transition functions up the tree."""
    delta, start, accept = dyck_automaton(task.k, task.D)
    Q = len(delta)
    if 2 * Q > mpc.s and mpc.machines > 1:
        raise ResourceLimitError(
            f"a transition function of the {Q}-state automaton is {Q} words; a tree node "
            f"needs two of them, more than s = {mpc.s} (N={mpc.N}, delta={mpc.delta}); use a "
            f"larger delta or smaller k, D")
    owner, starts = _blocks(mpc, len(x))
    M, per = mpc.machines, mpc.s
    grid = np.full(M * per, -1, dtype=np.int64)
    grid[: len(x)] = x
    grid = grid.reshape(M, per)
    fn = np.repeat(np.arange(Q, dtype=np.int64)[None, :], M, axis=0)
    for j in range(per):  # local: every machine runs its block (vectorized over machines)
        tok = grid[:, j]
        live = tok >= 0
        if not live.any():
            break
        fn[live] = delta[fn[live], tok[live][:, None]]
    total = tree_fold(mpc, fn, compose, np.arange(Q), "transition-function fold")
    return int(accept[total[start]])


__all__ = ["dyck_depth", "dyck_match", "dyck_algorithm", "automaton_fold", "dyck_automaton"]
