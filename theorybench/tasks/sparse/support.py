"""Shared machinery of the sparse families: a Boolean combiner of a hidden fixed set S.

Input x in {0,1}^n (tokens "0", "1"). The hidden set S is fixed for the whole task (it
is not part of the input): by default S = the first k positions {1, ..., k} (1-based),
so that longer inputs keep the same S (docs/theories.md §9); the parameter ``positions``
("1,4,7", 1-based, comma-separated) chooses another S, in which case it must list exactly
k distinct positions in 1..n.

Distributions: ``balanced`` (default) - label-balanced, x uniform conditioned on its
label (the distribution rejection sampling from the uniform one gives, drawn directly:
x_S uniform within its class, every other bit uniform); ``uniform`` - x uniform on
{0,1}^n.
"""

from __future__ import annotations

from typing import ClassVar

from ...errors import TaskParameterError
from ..balance import balanced_choice
from ..base import Param
from ..bits import COMBINERS, N_PARAM, BitTask, conditional_bits, random_bits

SPARSE_PARAMS = (
    N_PARAM,
    Param("k", int, 3, "size of the hidden set S of relevant positions (1 <= k < n)",
          minimum=1, maximum=1 << 16, note="k<n"),
    Param("positions", str, "",
          "the hidden set S as 1-based positions 'i,j,...' (exactly k of them); "
          "empty = the first k positions", shown="first k"),
)


class SparseTask(BitTask):
    """A Boolean combiner (``op``: all, any or parity) of the bits of x at the hidden set S."""

    kind = "sparse"
    op: ClassVar[str] = ""
    params = SPARSE_PARAMS
    distributions = ("balanced", "uniform")

    def check(self) -> None:
        if self.k >= self.n:
            raise TaskParameterError(
                f"parameter k={self.k} is too large for n={self.n}: the hidden set must be a "
                f"proper subset, 1 <= k < n (use k <= {self.n - 1} or n >= {self.k + 1})")
        text = self.positions.strip()
        if not text:
            self.support = tuple(range(self.k))
            return
        try:
            pos = [int(p) for p in text.replace(" ", "").split(",")]
        except ValueError:
            raise TaskParameterError(
                f"parameter positions={self.positions!r} is not a comma-separated list of "
                f"1-based integer positions (e.g. positions=1,4,7)") from None
        if len(pos) != self.k:
            raise TaskParameterError(
                f"parameter positions={self.positions!r} lists {len(pos)} positions but "
                f"k={self.k}; pass k={len(pos)} as well")
        if len(set(pos)) != len(pos):
            raise TaskParameterError(
                f"parameter positions={self.positions!r} repeats a position; S is a set")
        bad = [p for p in pos if not 1 <= p <= self.n]
        if bad:
            raise TaskParameterError(
                f"parameter positions={self.positions!r}: position {bad[0]} is outside "
                f"1..n = 1..{self.n}")
        self.support = tuple(sorted(p - 1 for p in pos))

    def function(self, x):
        return COMBINERS[self.op](x[:, list(self.support)])

    def oracle_row(self, bits):
        chosen = [bits[i] for i in range(len(bits)) if i in self.support]
        if self.op == "all":
            return int(all(b == 1 for b in chosen))
        if self.op == "any":
            return int(any(b == 1 for b in chosen))
        acc = 0
        for b in chosen:
            acc ^= b
        return acc

    def draw(self, rng, count, distribution):
        x = random_bits(rng, count, self.n)
        if distribution == "uniform":
            return x
        y = balanced_choice(rng, count)
        x[:, list(self.support)] = conditional_bits(rng, y, self.k, self.op)
        return x
