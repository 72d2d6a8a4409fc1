"""Prefix oracles: the next-symbol sets of a task's language, for the next-symbol objective.

The formal-language experiments of Bhattamishra, Ahuja & Goyal (EMNLP 2020, §3 "character
prediction task") and of Huang et al. (ICLR 2025, formal-language suite) do not train a
membership label. They train on *members* of the language and ask, at every prefix, for
the set of symbols that can come next - end of string included - and count a string right
only when every one of its sets is predicted exactly.

Definition used here. A task family with a letter alphabet Sigma (its tokens, without the
pad) defines the language L = union over valid n of {w in Sigma^n : label(w) = 1}. Given
the longest length ``hi`` of a run, let L' = {w in L : |w| <= hi}. For a prefix p:

* letter a is *allowed* after p iff p a is a prefix of some word of L';
* end of string is allowed after p iff p itself is in L'.

A set is a bitmask: bit j for letter j (the task's token id j), bit K = :data:`EOS` for end
of string (K = |Sigma|). Position t of :meth:`PrefixOracle.next_sets` is the set after the
first t letters (t = 0: the empty prefix), so a word of length n has n + 1 sets.

The oracles come from the task's own machinery, never from a per-task table:

* :class:`AutomatonOracle` - a complete DFA (a REGEX/DFA task file's automaton, a regular
  built-in's): the states after every prefix (a doubling scan of transition functions,
  no loop over positions) and, per (length, state), whether an accepting state is reachable
  at a valid total length <= hi (dynamic programming over lengths).
* :class:`DyckOracle` - the counter (and, for k > 1 bracket types, the stack top) of Dyck-k
  and bounded-depth Dyck: depth by cumulative sum, the top of the stack by a sorted search,
  completion lengths by parity.

A task with neither raises :class:`~theorybench.errors.NoPrefixOracle` saying why.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import NoPrefixOracle

EOS = "<eos>"
#: Entries (rows x positions x states) one scan chunk may hold.
SCAN_CELLS = 1 << 22


def lengths_mask(valid: Callable[[int], bool] | list[int], hi: int) -> np.ndarray:
    """Bool (hi + 1,): entry m is True when length m is a valid length of the family."""
    ok = np.zeros(hi + 1, dtype=bool)
    ns = [n for n in range(hi + 1) if valid(n)] if callable(valid) else list(valid)
    ok[[n for n in ns if 0 <= n <= hi]] = True
    return ok


class PrefixOracle:
    """The next-symbol sets of a language restricted to the lengths ``lengths_ok``."""

    def __init__(self, letters: int, lengths_ok: np.ndarray):
        if letters < 1 or letters > 62:
            raise NoPrefixOracle(f"a prefix oracle needs 1..62 letters (a set is an int64 "
                                 f"bitmask with one bit for end of string), got {letters}")
        self.letters = int(letters)
        self.ok = np.asarray(lengths_ok, dtype=bool)
        self.hi = len(self.ok) - 1

    @property
    def eos_bit(self) -> int:
        return self.letters

    def next_sets(self, x: np.ndarray) -> np.ndarray:
        """Int64 (count, n + 1): the allowed set after each prefix of each row of ``x``
        (letter ids, (count, n)). Rows need not be members; a prefix that is not a prefix
        of any word of the language gets the empty set 0."""
        raise NotImplementedError

    def has_members(self, n: int) -> bool:
        raise NotImplementedError

    def members(self, rng: np.random.Generator, count: int, n: int) -> np.ndarray:
        """Int64 (count, n): members of length n, uniform among them."""
        raise NotImplementedError

    def member_lengths(self, lo: int, hi: int) -> list[int]:
        return [n for n in range(max(lo, 0), min(hi, self.hi) + 1) if self.has_members(n)]

    def _need(self, n: int) -> None:
        if not self.has_members(n):
            raise NoPrefixOracle(f"the language has no word of length {n} (within lengths "
                                 f"<= {self.hi}); pick lengths where it has members")


def pack(bits: np.ndarray) -> np.ndarray:
    """(..., K + 1) bool -> (...) int64 bitmask (bit j from bits[..., j])."""
    weights = np.left_shift(np.int64(1), np.arange(bits.shape[-1], dtype=np.int64))
    return (bits.astype(np.int64) * weights).sum(axis=-1)


def unpack(sets: np.ndarray, width: int) -> np.ndarray:
    """(...) int64 bitmask -> (..., width) bool."""
    return (np.asarray(sets, dtype=np.int64)[..., None] >> np.arange(width, dtype=np.int64)) & 1 == 1


class AutomatonOracle(PrefixOracle):
    """Next-symbol sets of a complete DFA (``delta[q, a]``, ``accept[q]``, ``start``)."""

    def __init__(self, delta: np.ndarray, accept: np.ndarray, start: int,
                 lengths_ok: np.ndarray):
        delta = np.asarray(delta, dtype=np.int64)
        super().__init__(delta.shape[1], lengths_ok)
        self.delta, self.accept, self.start = delta, np.asarray(accept, dtype=bool), int(start)
        states, hi = delta.shape[0], self.hi
        # reach[r, q]: some word of length exactly r leads from q to an accepting state
        reach = np.zeros((hi + 1, states), dtype=bool)
        reach[0] = self.accept
        for r in range(1, hi + 1):
            reach[r] = reach[r - 1][delta].any(axis=1)
        self.reach = reach
        # extend[t, q]: after t letters in state q, some completion ends in L at a valid
        # total length m in [t, hi] (m - t more letters)
        extend = np.zeros((hi + 2, states), dtype=bool)
        for t in range(hi + 1):
            extend[t] = (reach[: hi - t + 1] & self.ok[t:, None]).any(axis=0)
        self.extend = extend  # row hi + 1 stays False: no letter past the longest length

    def states(self, x: np.ndarray) -> np.ndarray:
        """Int64 (count, n + 1): the state after each prefix (column 0: the start).

        Transition functions composed by a doubling (Hillis-Steele) scan: log2(n) gathers
        over (rows, positions, states), in row chunks of at most :data:`SCAN_CELLS`."""
        x = np.asarray(x, dtype=np.int64)
        count, n = x.shape
        out = np.full((count, n + 1), self.start, dtype=np.int64)
        if n == 0 or count == 0:
            return out
        s = self.delta.shape[0]
        step = max(1, SCAN_CELLS // max(1, n * s))
        table = self.delta.T  # table[a] = the function q -> delta[q, a]
        for lo in range(0, count, step):
            g = table[x[lo:lo + step]]           # (rows, n, s): g[:, t] = f_t
            d = 1
            while d < n:
                g[:, d:] = np.take_along_axis(g[:, d:], g[:, :-d], axis=2)
                d *= 2
            out[lo:lo + step, 1:] = g[:, :, self.start]
        return out

    def next_sets(self, x):
        x = np.asarray(x, dtype=np.int64)
        q = self.states(x)                                       # (count, n + 1)
        t = np.minimum(np.arange(q.shape[1]), self.hi + 1)
        nxt = self.delta[q]                                      # (count, n + 1, K)
        letters = self.extend[np.minimum(t + 1, self.hi + 1)[None, :, None], nxt]
        alive = self.extend[t[None, :], q]                       # the prefix is extendable
        eos = self.accept[q] & self.ok[np.minimum(t, self.hi)][None, :] & (t <= self.hi)
        bits = np.concatenate([letters & alive[..., None], eos[..., None]], axis=-1)
        return pack(bits)

    def has_members(self, n):
        return 0 <= n <= self.hi and bool(self.ok[n] and self.reach[n, self.start])

    def members(self, rng, count, n):
        self._need(n)
        # letter by letter, each weighted by the share of its completions of length n
        p = share_table(self.delta, self.accept, n)
        q = np.full(count, self.start, dtype=np.int64)
        x = np.empty((count, n), dtype=np.int64)
        for i in range(n):  # sampling is sequential by nature; vectorized over the rows
            w = p[n - i - 1][self.delta[q]]
            w = w / w.sum(axis=1, keepdims=True)
            pick = (rng.random(count)[:, None] > np.cumsum(w, axis=1)).sum(axis=1)
            x[:, i] = np.minimum(pick, w.shape[1] - 1)
            q = self.delta[q, x[:, i]]
        return x


def share_table(delta: np.ndarray, accept: np.ndarray, n: int) -> np.ndarray:
    """``p[r, q]``: the share of words of length r accepted from q (shares, not counts, so
    long words over big alphabets do not overflow)."""
    p = np.empty((n + 1, delta.shape[0]))
    p[0] = accept
    for r in range(1, n + 1):
        p[r] = p[r - 1][delta].mean(axis=1)
    return p


class DyckOracle(PrefixOracle):
    """Next-symbol sets of Dyck-k, optionally with depth at most ``cap``.

    Letters: type t opens with id 2t and closes with id 2t + 1. After a prefix of length t
    at depth d (a prefix of a member never goes below 0), a completion ending at depth 0
    has length m = t + d + 2j (j >= 0 extra matched pairs), so:

    * an opening bracket (any type) is allowed iff d + 1 <= cap and some valid m >= t + d + 2
      with m = t + d (mod 2) exists below hi;
    * only the closing bracket of the top of the stack is allowed, iff d > 0 and some valid
      m >= t + d with that parity exists;
    * end of string iff d = 0 and t is a valid length.
    (A depth bound never blocks a completion: closing at once never exceeds it.)
    """

    def __init__(self, k: int, cap: int | None, lengths_ok: np.ndarray,
                 sampler: Callable[[np.random.Generator, int, int], np.ndarray]):
        super().__init__(2 * k, lengths_ok)
        self.k, self.cap, self.sampler = int(k), cap, sampler
        hi = self.hi
        # later[j]: some valid length m >= j with m = j (mod 2), m <= hi
        later = np.zeros(hi + 3, dtype=bool)
        for j in range(hi, -1, -1):
            later[j] = self.ok[j] or later[j + 2]
        self.later = later

    def _later(self, j: np.ndarray) -> np.ndarray:
        return self.later[np.clip(j, 0, self.hi + 2)] & (j <= self.hi)

    def next_sets(self, x):
        x = np.asarray(x, dtype=np.int64)
        count, n = x.shape
        step = np.where(x & 1, -1, 1)
        depth = np.zeros((count, n + 1), dtype=np.int64)
        np.cumsum(step, axis=1, out=depth[:, 1:])
        # a prefix that went below 0, or above the cap, or closed the wrong type is dead
        dead = np.zeros((count, n + 1), dtype=bool)
        dead[:, 1:] = np.maximum.accumulate(depth[:, 1:] < 0, axis=1)
        if self.cap is not None:
            dead[:, 1:] |= np.maximum.accumulate(depth[:, 1:] > self.cap, axis=1)
        t = np.arange(n + 1)[None, :]
        top = self.top_types(x, depth) if self.k > 1 else np.zeros_like(depth)
        if self.k > 1 and n:
            # a closing bracket must match the top before it (types of the row's letters)
            wrong = np.zeros((count, n + 1), dtype=bool)
            wrong[:, 1:] = (x & 1).astype(bool) & (x // 2 != top[:, :-1]) & (depth[:, :-1] > 0)
            dead |= np.maximum.accumulate(wrong, axis=1)
        can_open = self._later(t + depth + 2)
        if self.cap is not None:
            can_open &= depth + 1 <= self.cap
        can_close = (depth > 0) & self._later(t + depth)
        bits = np.zeros((count, n + 1, self.letters + 1), dtype=bool)
        bits[..., 0:2 * self.k:2] = can_open[..., None]
        close_id = 2 * top + 1
        np.put_along_axis(bits, close_id[..., None], can_close[..., None], axis=2)
        bits[..., self.letters] = (depth == 0) & self.ok[np.minimum(t, self.hi)] & (t <= self.hi)
        bits &= ~dead[..., None]
        return pack(bits)

    @staticmethod
    def top_types(x: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """Int64 (count, n + 1): the type of the innermost open bracket after each prefix
        (0 where the stack is empty). It is the last opening bracket before t that brought
        the depth to the current depth: any later drop below that level would need a later
        opening to come back, which would be the last one instead. Found for every prefix
        at once by one sort of the opening events and a search."""
        count, n = x.shape
        levels = n + 2
        opens = (x & 1) == 0
        if not opens.any():
            return np.zeros_like(depth)
        r, j = np.nonzero(opens)
        lev = depth[r, j + 1]
        keys = (r * levels + lev) * (n + 1) + j
        order = np.argsort(keys, kind="stable")
        keys, types = keys[order], (x[r, j] // 2)[order]
        rows = np.arange(count)[:, None]
        tt = np.arange(n + 1)[None, :]
        d = np.clip(depth, 0, levels - 1)
        query = (rows * levels + d) * (n + 1) + tt
        at = np.searchsorted(keys, query, side="left") - 1
        hit = at >= 0
        found = np.where(hit, keys[np.maximum(at, 0)], -1)
        same = hit & (found // (n + 1) == rows * levels + d) & (depth > 0)
        return np.where(same, types[np.maximum(at, 0)], 0)

    def has_members(self, n):
        return 0 <= n <= self.hi and n % 2 == 0 and bool(self.ok[n])

    def members(self, rng, count, n):
        self._need(n)
        return np.asarray(self.sampler(rng, count, n), dtype=np.int64)


def no_oracle(task_name: str, why: str) -> NoPrefixOracle:
    return NoPrefixOracle(f"task {task_name} has no prefix oracle for the next-symbol "
                          f"objective: {why}")


__all__ = ["EOS", "PrefixOracle", "AutomatonOracle", "DyckOracle", "lengths_mask", "pack",
           "unpack", "no_oracle", "share_table"]
