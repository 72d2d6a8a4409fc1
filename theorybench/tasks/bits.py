"""Shared machinery for tasks whose input is a bit string x in {0,1}^n (boolean, sparse).

Token ids: "0" -> 0, "1" -> 1, so a token array is the bit array itself.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .base import Batch, DecisionFunction, Param, Task

N_PARAM = Param("n", int, 16, "input length in bits", minimum=1, maximum=1 << 16)


def random_positions_mask(rng: np.random.Generator, count: int, n: int,
                          how_many: np.ndarray) -> np.ndarray:
    """Bool (count, n): row r has exactly ``how_many[r]`` True entries at uniform places."""
    keys = rng.random((count, n))
    ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
    return ranks < how_many[:, None]


class BitTask(Task):
    """A final-output task on {0,1}^n. Subclasses define ``function(x)`` (vectorized)
    and ``oracle_row(bits)`` (a plain Python loop over one input, for the oracle)."""

    output: ClassVar[str] = "final"
    analysis_ns = (4, 6, 8, 10, 12, 14, 16)
    train_ns = (8, 16, 32, 64)

    def build_vocab(self):
        return ("0", "1")

    def input_space(self):
        return [(0, 1)] * self.n

    def function(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def oracle_row(self, bits: list[int]) -> int:
        raise NotImplementedError

    def label(self, tokens: np.ndarray) -> np.ndarray:
        x = np.asarray(tokens, dtype=np.int64)
        return self.function(x).astype(np.int64)

    def oracle(self, tokens: np.ndarray) -> np.ndarray:
        return np.array([self.oracle_row([int(b) for b in row]) for row in tokens], dtype=np.int64)

    def draw(self, rng: np.random.Generator, count: int, distribution: str) -> np.ndarray:
        """Bits (count, n) from ``distribution``; the default is uniform."""
        return rng.integers(0, 2, size=(count, self.n), dtype=np.int64)

    def sample(self, rng, count, distribution=None):
        dist = self.resolve_distribution(distribution)
        count = self.check_count(count)
        x = self.draw(rng, count, dist)
        return Batch(tokens=x, labels=self.label(x), mask=None,
                     lengths=np.full(count, self.n, dtype=np.int64))

    def decision_view(self):
        default = self.distributions[0]
        return [DecisionFunction(
            task=self, name="output", choices=tuple((0, 1) for _ in range(self.n)),
            evaluate=self.label,
            sample=lambda rng, count: self.draw(rng, count, default),
            description=f"{self.name} of the {self.n} input bits")]
