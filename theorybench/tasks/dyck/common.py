"""Shared machinery of the Dyck tasks: bracket vocabulary, walk sampler, labels, oracle.

Vocabulary: the 2k brackets ``( ) [ ] { } < >`` (first k types); type t has the opening
bracket id 2t and the closing bracket id 2t + 1. A word w in {brackets}^n belongs to
Dyck-k iff it reduces to the empty word by deleting adjacent matched pairs; its depth
profile is h_i = #opening - #closing among w_1 .. w_i. Bounded depth D additionally
requires h_i <= D for all i.

Positives are sampled as a depth walk with the exact probability of going up given the
position and depth (so that the walk is uniform over its allowed set), then every matched
pair gets an independent uniform type. Negatives are one corruption of a fresh positive:
the direction of one uniformly chosen bracket is flipped (opening <-> closing, same type),
or, when k > 1 and with probability 1/2, its type is changed to another uniform type.
Both always give a non-member: a flip changes #opening - #closing by 2, so the word is not
balanced; a type change keeps the depth profile, hence the matching, and leaves that pair
mismatched.

n must be even: no word of odd length is balanced, so a label-balanced sample would not
exist (use n - 1 or n + 1).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...errors import TaskInputError, TaskParameterError
from ..balance import balanced_choice
from ..base import Batch, Param, Task
from ..prefix import DyckOracle, lengths_mask

BRACKETS = ("(", ")", "[", "]", "{", "}", "<", ">")
MAX_TYPES = len(BRACKETS) // 2


def n_param(default: int) -> Param:
    return Param("n", int, default, "word length (even)", minimum=2, maximum=4096, note="even")


def k_param(default: int) -> Param:
    return Param("k", int, default, "number of bracket types", minimum=1, maximum=MAX_TYPES)


class DyckTask(Task):
    """Membership of a length-n bracket word in Dyck-k with depth at most ``cap``."""

    kind: ClassVar[str] = "dyck"
    output: ClassVar[str] = "final"
    distributions = ("balanced", "uniform")

    @property
    def cap(self) -> int:
        """The depth bound in force (n/2 means unbounded at this length)."""
        return self.n // 2

    def check(self) -> None:
        if self.n % 2:
            raise TaskParameterError(
                f"parameter n={self.n} is odd: {self.name} needs an even n >= 2 (no word of odd "
                f"length is balanced, so there are no positives); use n={self.n - 1} or "
                f"n={self.n + 1}")

    def build_vocab(self):
        return BRACKETS[: 2 * self.k]

    def input_space(self):
        return [tuple(range(2 * self.k))] * self.n

    # ---- reference and oracle ----------------------------------------------------------
    def label(self, tokens):
        x = np.asarray(tokens, dtype=np.int64)
        if x.ndim == 1:
            x = x[None, :]
        if x.shape[1] != self.n or (x.size and (x.min() < 0 or x.max() >= 2 * self.k)):
            raise TaskInputError(
                f"{self.name} expects token ids in 0..{2 * self.k - 1} and rows of length "
                f"{self.n}, got shape {x.shape}")
        closing = (x & 1).astype(bool)
        step = np.where(closing, np.int32(-1), np.int32(1))
        h = np.cumsum(step, axis=1, dtype=np.int32)         # depth after each token
        ok = (h.min(axis=1) >= 0) & (h[:, -1] == 0) & (h.max(axis=1) <= self.cap)
        if self.k > 1:
            ok &= types_match(x, h, closing)
        return ok.astype(np.int64)

    def oracle(self, tokens):
        pairs = {BRACKETS[2 * t]: BRACKETS[2 * t + 1] for t in range(self.k)}
        out = []
        for row in np.asarray(tokens).tolist():
            stack: list[str] = []
            good = True
            for tok in (self.vocab[t] for t in row):
                if tok in pairs:
                    stack.append(pairs[tok])
                    if len(stack) > self.cap:
                        good = False
                        break
                elif not stack or stack.pop() != tok:
                    good = False
                    break
            out.append(int(good and not stack))
        return np.array(out, dtype=np.int64)

    # ---- the language: next-symbol sets --------------------------------------------------
    def depth_bound(self) -> int | None:
        """The depth bound of the language at every length (None: unbounded)."""
        return None

    def prefix_oracle(self, max_len: int):
        """The counter (and stack top) of Dyck-k up to length ``max_len``; members of
        length n are this family's own uniform positives (:meth:`positives`)."""
        others = {k: v for k, v in self.values.items() if k != "n"}

        def sampler(rng, count, n):
            return type(self)(n=n, **others).positives(rng, count)
        return DyckOracle(self.k, self.depth_bound(),
                          lengths_mask(self.language_lengths(max_len), max_len), sampler)

    # ---- sampling ------------------------------------------------------------------------
    def up_probabilities(self) -> np.ndarray:
        """(n, cap + 2) table: P(next step goes up | position i, depth d)."""
        raise NotImplementedError

    def positives(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """Uniform depth walks (one step per position) with uniform types per pair.

        A loop over the n positions, vectorized over the batch (arrays laid out position
        by row so every step touches contiguous memory). For k > 1 a per-row stack of
        types by level: an opening bracket stores its type at its level (depth after it),
        a closing bracket reads the type stored at its depth before it.
        """
        n, cap, k = self.n, self.cap, self.k
        table = self.up_probabilities().astype(np.float32)
        u = rng.random((n, count), dtype=np.float32)
        depth = np.zeros(count, dtype=np.int64)
        xt = np.empty((n, count), dtype=np.int8)           # token ids, position-major
        if k > 1:
            types = rng.integers(0, k, size=(n, count), dtype=np.int8)
            stack = np.zeros((cap + 2) * count, dtype=np.int8)  # level-major; cap+1: dummy
            col = np.arange(count, dtype=np.int64)
            dummy = (cap + 1) * count + col
        up = np.empty(count, dtype=bool)
        for i in range(n):
            np.less(u[i], table[i][depth], out=up)
            if k == 1:
                np.logical_not(up, out=xt[i].view(bool))
                depth += up
                depth += up
                depth -= 1
                continue
            read = stack[depth * count + col]
            depth += up
            depth += up
            depth -= 1
            stack[np.where(up, depth * count + col, dummy)] = types[i]
            xt[i] = 2 * np.where(up, types[i], read) + ~up
        return xt.T.astype(np.int64)

    def corrupt(self, rng: np.random.Generator, x: np.ndarray, rows: np.ndarray) -> None:
        """Corrupt the given rows of ``x`` in place, one bracket each (see the module
        docstring): the result is always a non-member."""
        count = len(rows)
        pos = rng.integers(0, self.n, size=count)
        tok = x[rows, pos]
        if self.k > 1:
            retype = rng.random(count) < 0.5
            shift = rng.integers(1, self.k, size=count)
            new_type = (tok // 2 + shift) % self.k
            new = np.where(retype, 2 * new_type + (tok & 1), tok ^ 1)
        else:
            new = tok ^ 1
        x[rows, pos] = new

    def sample(self, rng, count, distribution=None):
        dist = self.resolve_distribution(distribution)
        count = self.check_count(count)
        if dist == "uniform":
            x = rng.integers(0, 2 * self.k, size=(count, self.n))
            y = self.label(x)
        else:
            y = balanced_choice(rng, count)
            x = self.positives(rng, count)
            self.corrupt(rng, x, np.flatnonzero(y == 0))
        return Batch(tokens=x, labels=y, mask=None,
                     lengths=np.full(count, self.n, dtype=np.int64))

    def check_input(self, row):
        if len(row) != self.n:
            raise TaskInputError(
                f"{self.name} with n={self.n} expects {self.n} brackets, got {len(row)} "
                f"(tokens are separated by spaces, e.g. '( [ ] )')")

    def decision_view(self):
        return [self.whole_view(
            "membership", f"membership of a length-{self.n} word in {self.describe()}")]

    def describe(self) -> str:
        return f"Dyck-{self.k}"


def types_match(x: np.ndarray, h: np.ndarray, closing: np.ndarray) -> np.ndarray:
    """Bool (count,): do matched brackets have equal types, given a valid depth profile?

    An opening bracket at depth h (after it) is matched by the next closing bracket that
    starts at depth h. Sorting positions by (level, position), with level = depth after an
    opening bracket and depth before a closing one, puts each matched pair next to each
    other: (0th, 1st), (2nd, 3rd), ... The type rides along in the low digits of the sort
    key. Rows whose profile is invalid give arbitrary values.
    """
    count, n = x.shape
    k = int(x.max(initial=1)) // 2 + 1
    level = h + closing
    dt = np.int32 if (n + 2) * (n + 1) * k < 2**31 else np.int64
    key = level.astype(dt)
    key *= n + 1
    key += np.arange(n, dtype=dt)[None, :]
    key *= k
    key += (x >> 1).astype(dt)
    key.sort(axis=1)
    key %= k
    return (key[:, 0::2] == key[:, 1::2]).all(axis=1)


def bounded_up_table(n: int, cap: int) -> np.ndarray:
    """P(up | position i, depth d) for uniform walks of n steps in [0, cap] from 0 to 0.

    f_r(d) = number of ways to finish from depth d with r steps left (f_0 = [d = 0],
    f_r(d) = f_(r-1)(d+1) + f_(r-1)(d-1) inside [0, cap]); P(up) = f_(r-1)(d+1) /
    f_r(d). Each f_r is rescaled to max 1 (the ratio only involves one f), so no overflow.
    """
    f = np.zeros(cap + 3)              # index d + 1; sentinels at d = -1 and d = cap + 1
    f[1] = 1.0
    table = np.zeros((n, cap + 2))
    for r in range(1, n + 1):
        up, down = f[2: cap + 3].copy(), f[0: cap + 1].copy()   # f_(r-1)(d+1), f_(r-1)(d-1)
        up[cap] = 0.0                                            # cannot go above cap
        total = up + down
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(total > 0, up / np.where(total > 0, total, 1), 0.0)
        table[n - r, : cap + 1] = p
        g = np.zeros_like(f)
        g[1: cap + 2] = total
        f = g / g.max()
    return table
