"""Shared machinery of the query tasks: index and index_all / index_any / index_parity.

Encoding ``mode="tokens"`` (default): x_1 .. x_n in {0,1}, then k query tokens
"q<j>" naming distinct positions j in 1..n. Vocabulary: "0", "1", "q1", ..., "qn"
(ids 0, 1, 2, ..., n + 1: query token "q<j>" has id j + 1). Input length n + k.

Encoding ``mode="mask"``: x_1 .. x_n, then y_1 .. y_n in {0,1} with y_i = 1 marking the
queried bits; exactly k of the y_i are 1 (``valid_inputs`` enforces it, so both encodings
have the same instances). Vocabulary "0", "1"; input length 2n.

The label combines the queried bits with ``op``: all (AND), any (OR) or parity (XOR).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...errors import TaskInputError, TaskParameterError
from ..balance import balanced_choice
from ..base import Batch, Param, Task
from ..bits import COMBINERS, conditional_bits, distinct_positions, random_bits

N_PARAM = Param("n", int, 16, "number of data bits x_1..x_n", minimum=1, maximum=1 << 14)
K_PARAM = Param("k", int, 3, "number of distinct queried positions (1 <= k <= n)",
                minimum=1, maximum=1 << 14, note="k<=n")
MODE_PARAM = Param("mode", str, "tokens",
                   "query encoding: 'tokens' (k query tokens q1..qn after x) or 'mask' "
                   "(a bit mask y in {0,1}^n after x)", choices=("tokens", "mask"))


class QueryTask(Task):
    """x in {0,1}^n followed by k distinct queries; label = ``op`` of the queried bits."""

    kind = "retrieval"
    output = "final"
    op: ClassVar[str] = "all"
    params = (N_PARAM, K_PARAM, MODE_PARAM)
    distributions = ("balanced", "uniform")
    variants = {"mode": ("tokens", "mask")}
    analysis_ns = (4, 5, 6, 7, 8, 9, 10)
    train_ns = (8, 16, 32, 64)

    def check(self) -> None:
        if self.k > self.n:
            raise TaskParameterError(
                f"parameter k={self.k} is too large for n={self.n}: the k queried positions "
                f"are distinct, so 1 <= k <= n (use k <= {self.n} or n >= {self.k})")

    def build_vocab(self):
        if self.mode == "mask":
            return ("0", "1")
        return ("0", "1") + tuple(f"q{j}" for j in range(1, self.n + 1))

    def input_length(self) -> int:
        return 2 * self.n if self.mode == "mask" else self.n + self.k

    def input_space(self):
        if self.mode == "mask":
            return [(0, 1)] * (2 * self.n)
        queries = tuple(range(2, self.n + 2))
        return [(0, 1)] * self.n + [queries] * self.k

    # ---- structure --------------------------------------------------------------------
    def _query_mask(self, tokens: np.ndarray) -> np.ndarray:
        """Bool (count, n): which data bits the row queries (tokens assumed valid)."""
        t = np.asarray(tokens, dtype=np.int64)
        if self.mode == "mask":
            return t[:, self.n:] == 1
        mask = np.zeros((len(t), self.n), dtype=bool)
        q = np.clip(t[:, self.n:] - 2, 0, self.n - 1)
        np.put_along_axis(mask, q, True, axis=1)
        return mask

    def valid_inputs(self, tokens):
        t = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if t.shape[1] != self.input_length():
            return np.zeros(len(t), dtype=bool)
        ok = np.all((t[:, : self.n] == 0) | (t[:, : self.n] == 1), axis=1)
        if self.mode == "mask":
            y = t[:, self.n:]
            return ok & np.all((y == 0) | (y == 1), axis=1) & (y.sum(axis=1) == self.k)
        q = t[:, self.n:]
        ok &= np.all((q >= 2) & (q <= self.n + 1), axis=1)
        srt = np.sort(q, axis=1)
        return ok & ~np.any(srt[:, 1:] == srt[:, :-1], axis=1)

    def check_input(self, row):
        row = np.asarray(row, dtype=np.int64)
        L = self.input_length()
        what = (f"x_1..x_{self.n} then y_1..y_{self.n}" if self.mode == "mask"
                else f"x_1..x_{self.n} then {self.k} query token(s)")
        if len(row) != L:
            raise TaskInputError(
                f"{self.name} with n={self.n}, k={self.k} expects {L} tokens ({what}), "
                f"got {len(row)}")
        for pos in range(self.n):
            if row[pos] not in (0, 1):
                raise TaskInputError(
                    f"token {pos + 1} is {self.vocab[row[pos]]!r} but the first {self.n} "
                    f"tokens are the data bits x_1..x_{self.n} (0 or 1)")
        if self.mode == "mask":
            ones = int(row[self.n:].sum())
            if ones != self.k:
                raise TaskInputError(
                    f"the mask y_1..y_{self.n} has {ones} ones but must mark exactly "
                    f"k={self.k} queried bits")
            return
        seen: dict[int, int] = {}
        for pos in range(self.n, L):
            tok = int(row[pos])
            if tok < 2:
                raise TaskInputError(
                    f"token {pos + 1} is {self.vocab[tok]!r} but tokens {self.n + 1}..{L} "
                    f"are queries q1..q{self.n}")
            if tok in seen:
                raise TaskInputError(
                    f"query {self.vocab[tok]} is repeated (tokens {seen[tok] + 1} and "
                    f"{pos + 1}); the {self.k} queries must be distinct")
            seen[tok] = pos

    # ---- labels -----------------------------------------------------------------------
    def label(self, tokens):
        t = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        x = t[:, : self.n]
        if self.mode == "tokens":
            bits = np.take_along_axis(x, np.clip(t[:, self.n:] - 2, 0, self.n - 1), axis=1)
            return COMBINERS[self.op](bits).astype(np.int64)
        y = t[:, self.n:] == 1
        if self.op == "all":
            out = np.all((x == 1) | ~y, axis=1)
        elif self.op == "any":
            out = np.any((x == 1) & y, axis=1)
        else:
            out = ((x == 1) & y).sum(axis=1) % 2
        return out.astype(np.int64)

    def oracle(self, tokens):
        out = []
        for row in np.atleast_2d(np.asarray(tokens)):
            words = [self.vocab[int(t)] for t in row]
            data = words[: self.n]
            if self.mode == "tokens":
                picked = [data[int(w[1:]) - 1] for w in words[self.n:]]
            else:
                picked = [d for d, m in zip(data, words[self.n:]) if m == "1"]
            ones = sum(1 for w in picked if w == "1")
            if self.op == "all":
                out.append(int(ones == len(picked)))
            elif self.op == "any":
                out.append(int(ones > 0))
            else:
                out.append(ones % 2)
        return np.array(out, dtype=np.int64)

    # ---- sampling ---------------------------------------------------------------------
    def _draw(self, rng: np.random.Generator, count: int, distribution: str) -> np.ndarray:
        x = random_bits(rng, count, self.n)
        q = distinct_positions(rng, count, self.n, self.k)
        if distribution == "balanced":
            y = balanced_choice(rng, count)
            bits = conditional_bits(rng, y, self.k, self.op)
            np.put_along_axis(x, q, bits, axis=1)
        if self.mode == "tokens":
            return np.concatenate([x, q + 2], axis=1)
        mask = np.zeros((count, self.n), dtype=np.int64)
        np.put_along_axis(mask, q, 1, axis=1)
        return np.concatenate([x, mask], axis=1)

    def sample(self, rng, count, distribution=None):
        dist = self.resolve_distribution(distribution)
        count = self.check_count(count)
        t = self._draw(rng, count, dist)
        return Batch(tokens=t, labels=self.label(t), mask=None,
                     lengths=np.full(count, t.shape[1], dtype=np.int64))

    def decision_view(self):
        default = self.distributions[0]
        return [self.whole_view(
            "output", f"{self.name} of x in {{0,1}}^{self.n} at {self.k} distinct "
                      f"queried position(s), {self.mode} encoding",
            sample=lambda rng, count: self._draw(rng, count, default), valid=self.valid_inputs)]
