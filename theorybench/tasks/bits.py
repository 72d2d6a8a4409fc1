"""Shared machinery for tasks whose input is a bit string x in {0,1}^n (boolean, sparse).

Token ids: "0" -> 0, "1" -> 1, so a token array is the bit array itself.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..errors import TaskInputError
from .base import Batch, Param, Task

N_PARAM = Param("n", int, 16, "input length in bits", minimum=1, maximum=1 << 16)


def random_bits(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    """Uniform bits, int64 (count, n): one random byte gives 8 bits (fast for large batches)."""
    nbytes = (n + 7) // 8
    raw = rng.integers(0, 256, size=(count, nbytes), dtype=np.uint8)
    return np.unpackbits(raw, axis=1)[:, :n].astype(np.int64)


def random_positions_mask(rng: np.random.Generator, count: int, n: int,
                          how_many: np.ndarray) -> np.ndarray:
    """Bool (count, n): row r has exactly ``how_many[r]`` True entries at uniform places.

    Each row marks the positions of its ``how_many[r]`` smallest random keys (32-bit
    keys, one sort per row; the rare rows with a tie at the threshold are redrawn with
    continuous keys, so every count is exact and every placement equally likely).
    """
    z = np.clip(np.asarray(how_many, dtype=np.int64).reshape(-1), 0, n)
    if n == 0 or count == 0:
        return np.zeros((count, n), dtype=bool)
    keys = rng.integers(0, 1 << 32, size=(count, n), dtype=np.uint32)
    thr = np.sort(keys, axis=1)[np.arange(count), np.maximum(z - 1, 0)]
    mask = keys <= thr[:, None]
    mask[z == 0] = False
    bad = np.flatnonzero(mask.sum(axis=1) != z)
    if len(bad):
        ranks = np.argsort(np.argsort(rng.random((len(bad), n)), axis=1), axis=1)
        mask[bad] = ranks < z[bad, None]
    return mask


def distinct_positions(rng: np.random.Generator, count: int, n: int, k: int) -> np.ndarray:
    """Int64 (count, k): k distinct positions in 0..n-1 per row, uniform over ordered tuples.

    Small k (k*k <= n): independent draws, rows with a repeat drawn again. Otherwise the
    first k entries of a uniform random permutation per row.
    """
    if k > n:
        raise ValueError(f"cannot choose {k} distinct positions out of {n}")
    if k * k <= n:
        out = rng.integers(0, n, size=(count, k), dtype=np.int64)
        todo = np.arange(count)
        while True:
            srt = np.sort(out[todo], axis=1)
            todo = todo[(srt[:, 1:] == srt[:, :-1]).any(axis=1)]
            if len(todo) == 0:
                return out
            out[todo] = rng.integers(0, n, size=(len(todo), k), dtype=np.int64)
    return np.argsort(rng.random((count, n)), axis=1)[:, :k].astype(np.int64)


#: Boolean combiners of a bit pattern (count, k) -> (count,) used by sparse/retrieval tasks.
COMBINERS = {
    "all": lambda b: np.all(b == 1, axis=1),
    "any": lambda b: np.any(b == 1, axis=1),
    "parity": lambda b: np.sum(b, axis=1) % 2,
}


def conditional_bits(rng: np.random.Generator, labels: np.ndarray, k: int,
                     op: str) -> np.ndarray:
    """Int64 (count, k) bit patterns b with ``COMBINERS[op](b) == labels``, each drawn
    uniformly among the patterns of its class.

    This is the distribution of uniform patterns conditioned on the label, i.e. exactly
    what rejection sampling from the uniform distribution gives, without the rejection
    (so it also works when one class is exponentially rare, e.g. AND of many bits).
    """
    labels = np.asarray(labels, dtype=np.int64).reshape(-1)
    count = len(labels)
    b = random_bits(rng, count, k)
    if op == "parity":
        b[:, 0] ^= (b.sum(axis=1) % 2) != labels
        return b
    if op not in ("all", "any"):
        raise ValueError(f"unknown combiner {op!r}")
    forced = 1 if op == "all" else 0   # all: label 1 <=> pattern 1^k; any: label 0 <=> 0^k
    special = labels == (1 if op == "all" else 0)
    b[special] = forced
    redo = np.flatnonzero(~special & np.all(b == forced, axis=1))
    while len(redo):
        b[redo] = random_bits(rng, len(redo), k)
        redo = redo[np.all(b[redo] == forced, axis=1)]
    return b


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
        """Labels (count,) of rows of n bits (one row may be given as a 1-d array)."""
        x = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if x.ndim != 2 or x.shape[1] != self.n:
            raise TaskInputError(
                f"{self.name} with n={self.n} labels rows of {self.n} bits, got an array of "
                f"shape {np.shape(tokens)}")
        return self.function(x).astype(np.int64)

    def oracle(self, tokens: np.ndarray) -> np.ndarray:
        return np.array([self.oracle_row([int(b) for b in row]) for row in tokens], dtype=np.int64)

    def draw(self, rng: np.random.Generator, count: int, distribution: str) -> np.ndarray:
        """Bits (count, n) from ``distribution``; the default is uniform."""
        return random_bits(rng, count, self.n)

    def sample(self, rng, count, distribution=None):
        dist = self.resolve_distribution(distribution)
        count = self.check_count(count)
        x = self.draw(rng, count, dist)
        return Batch(tokens=x, labels=self.label(x), mask=None,
                     lengths=np.full(count, self.n, dtype=np.int64))

    def decision_view(self):
        default = self.distributions[0]
        return [self.whole_view(
            "output", f"{self.name} of the {self.n} input bits",
            sample=lambda rng, count: self.draw(rng, count, default))]
