"""kv_retrieval: n key:value pairs with distinct m-bit binary keys, then a query key; the
label is the value stored under the query key.

Definition. The input is the bit string

    k_1 v_1  k_2 v_2  ...  k_n v_n  q

where each key k_b in {0,1}^m (m bits, most significant first) is followed by its value
bit v_b, the n keys are pairwise distinct, and the query q in {0,1}^m equals one of them.
kv_retrieval(input) = v_b for the (unique) b with k_b = q. Tokens "0", "1" (ids 0, 1);
input length n (m + 1) + m; position roles are fixed (pair b holds positions
b (m + 1) + 1 .. b (m + 1) + m + 1, 1-based, the query the last m positions).
Inputs with a repeated key or a query that names no key are not instances
(``valid_inputs``).

Parameters: n (number of pairs) and m (key length). The default m = 0 means
ceil(log2 n) (at least 1): the fewest bits that give n distinct keys, so the suite's
family grows with n; n <= 2^m is required. At n = 2^m every key occurs and the query
ranges over all 2^m keys: the instances behind the claims of theorybench/proofs/claims/
retrieval.py, where the one-way communication at the cut after the pairs is 2^m bits
while log2 of the length n (m + 1) + m is about m.

Default distribution ``uniform``: an ordered n-tuple of distinct keys uniform among all
such tuples, values uniform bits, the query uniform among the n keys (labels balanced in
expectation).

Sources: associative recall / multi-query associative recall as a probe of attention
(Ba et al., NeurIPS 2016; Arora et al., "Zoology", ICLR 2024) - here with binary keys so
that the key length m is a parameter of the task; the communication argument as in the
Index problem (Kremer, Nisan, Ron 1999).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import EnumerationTooLarge, TaskInputError, TaskParameterError
from ..base import MAX_ENUMERATE, Batch, Param, Task, count_text
from ..bits import distinct_positions, random_bits
from ..registry import register

#: Rows x 2^m entries per block when sampling distinct keys (the permutation fallback).
_SAMPLE_BLOCK = 1 << 22


def key_bits_for(n: int) -> int:
    """ceil(log2 n), at least 1: the default key length for n pairs."""
    return max(1, (int(n) - 1).bit_length())


@register
class KVRetrieval(Task):
    name = "kv_retrieval"
    kind = "retrieval"
    order = 5
    summary = ("n key:value pairs (distinct m-bit binary keys, one value bit each) then a "
               "query key; label the value stored under the query")
    params = (
        Param("n", int, 8, "number of key:value pairs", minimum=1, maximum=1 << 14),
        Param("m", int, 0, "key length in bits; 0 = ceil(log2 n) (at least 1), the fewest "
              "bits that give n distinct keys", minimum=0, maximum=14,
              shown="ceil(log2 n)", note="n<=2^m"),
    )
    distributions = ("uniform",)
    variants = {}
    #: the natural input space 2^(n (m + 1) + m) fits enumeration (2^22) up to n = 4 (m = 2);
    #: n = 5 already has length 23
    analysis_ns = (1, 2, 3, 4)
    train_ns = (4, 8, 16, 32)

    def check(self) -> None:
        bits = self.values["m"] or key_bits_for(self.n)
        if self.n > (1 << bits):
            raise TaskParameterError(
                f"parameter n={self.n} is too large for m={bits}: the n keys are distinct "
                f"m-bit strings, so n <= 2^m = {1 << bits} (use m >= {key_bits_for(self.n)}"
                f" or m=0 for the smallest fitting m)")
        self.key_bits = bits

    def build_vocab(self):
        return ("0", "1")

    @property
    def block(self) -> int:
        """Tokens per pair: m key bits and one value bit."""
        return self.key_bits + 1

    def input_length(self) -> int:
        return self.n * self.block + self.key_bits

    def input_space(self):
        return [(0, 1)] * self.input_length()

    # ---- structure --------------------------------------------------------------------
    def split(self, tokens: np.ndarray):
        """(keys, values, query) of token rows: keys int64 (count, n) as integers (most
        significant bit first), values (count, n), query (count,)."""
        t = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        m, n = self.key_bits, self.n
        pairs = t[:, : n * self.block].reshape(len(t), n, self.block)
        weights = 1 << np.arange(m - 1, -1, -1, dtype=np.int64)
        keys = pairs[:, :, :m] @ weights
        query = t[:, n * self.block:] @ weights
        return keys, pairs[:, :, m], query

    def valid_inputs(self, tokens):
        t = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if t.shape[1] != self.input_length():
            return np.zeros(len(t), dtype=bool)
        ok = np.all((t == 0) | (t == 1), axis=1)
        keys, _, query = self.split(np.where(ok[:, None], t, 0))
        srt = np.sort(keys, axis=1)
        distinct = ~np.any(srt[:, 1:] == srt[:, :-1], axis=1)
        return ok & distinct & np.any(keys == query[:, None], axis=1)

    def check_input(self, row):
        row = np.asarray(row, dtype=np.int64)
        L = self.input_length()
        if len(row) != L:
            raise TaskInputError(
                f"kv_retrieval with n={self.n}, m={self.key_bits} expects {L} tokens "
                f"({self.n} pairs of {self.key_bits} key bits and a value bit, then "
                f"{self.key_bits} query bits), got {len(row)}")
        keys, _, query = self.split(row[None, :])
        seen: dict[int, int] = {}
        for b, key in enumerate(keys[0].tolist()):
            if key in seen:
                text = format(key, f"0{self.key_bits}b")
                raise TaskInputError(
                    f"key {text} occurs in pairs {seen[key] + 1} and {b + 1}; the "
                    f"{self.n} keys must be distinct")
            seen[key] = b
        if int(query[0]) not in seen:
            raise TaskInputError(
                f"the query key {format(int(query[0]), f'0{self.key_bits}b')} is none of "
                f"the {self.n} keys; the query must name one of them")

    # ---- labels -----------------------------------------------------------------------
    def label(self, tokens):
        keys, values, query = self.split(tokens)
        at = np.argmax(keys == query[:, None], axis=1)
        return values[np.arange(len(values)), at].astype(np.int64)

    def oracle(self, tokens):
        """The definition, literally: read the pairs into a dict, look the query up."""
        out = []
        m, n = self.key_bits, self.n
        for row in np.atleast_2d(np.asarray(tokens)):
            words = [self.vocab[int(t)] for t in row]
            table = {}
            for b in range(n):
                chunk = words[b * (m + 1): (b + 1) * (m + 1)]
                table["".join(chunk[:m])] = chunk[m]
            out.append(int(table["".join(words[n * (m + 1):])]))
        return np.array(out, dtype=np.int64)

    # ---- enumeration and sampling ------------------------------------------------------
    def space_size(self) -> int:
        """Number of valid inputs: ordered n-tuples of distinct keys x values x queries."""
        return math.perm(1 << self.key_bits, self.n) * (1 << self.n) * self.n

    def enumerate(self, limit: int = MAX_ENUMERATE) -> np.ndarray:
        """Every valid input, in lexicographic order, built directly from the ordered key
        tuples (the product space 2^length is far larger than the valid inputs)."""
        size = self.space_size()
        if size > limit:
            raise EnumerationTooLarge(
                f"cannot enumerate inputs of {self!r}: there are {count_text(size)}, more "
                f"than the enumeration limit {limit:,}; use sample() or a smaller n")
        m, n = self.key_bits, self.n
        keys = np.array(list(itertools.permutations(range(1 << m), n)),
                        dtype=np.int64).reshape(-1, n)
        vals = ((np.arange(1 << n, dtype=np.int64)[:, None]
                 >> np.arange(n - 1, -1, -1, dtype=np.int64)) & 1)
        K = np.repeat(keys, len(vals) * n, axis=0)
        V = np.tile(np.repeat(vals, n, axis=0), (len(keys), 1))
        Q = K[np.arange(len(K)), np.tile(np.arange(n), len(keys) * len(vals))]
        out = self.assemble(K, V, Q)
        order = np.lexsort(out.T[::-1])
        return out[order]

    def assemble(self, keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Token rows from keys (count, n) as integers, value bits (count, n), query (count,)."""
        m = self.key_bits
        shifts = np.arange(m - 1, -1, -1, dtype=np.int64)
        kb = (np.asarray(keys, dtype=np.int64)[:, :, None] >> shifts) & 1
        pairs = np.concatenate([kb, np.asarray(values, dtype=np.int64)[:, :, None]], axis=2)
        qb = (np.asarray(query, dtype=np.int64)[:, None] >> shifts) & 1
        return np.concatenate([pairs.reshape(len(pairs), self.n * self.block), qb], axis=1)

    def _draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        m, n = self.key_bits, self.n
        step = max(1, _SAMPLE_BLOCK // (1 << m))
        blocks = [distinct_positions(rng, min(step, count - lo), 1 << m, n)
                  for lo in range(0, count, step)]
        keys = np.concatenate(blocks) if blocks else np.zeros((0, n), dtype=np.int64)
        values = random_bits(rng, count, n)
        pick = rng.integers(0, n, size=count)
        return self.assemble(keys, values, keys[np.arange(count), pick])

    def sample(self, rng, count, distribution=None):
        self.resolve_distribution(distribution)
        count = self.check_count(count)
        t = self._draw(rng, count)
        return Batch(tokens=t, labels=self.label(t), mask=None,
                     lengths=np.full(count, t.shape[1], dtype=np.int64))

    def decision_view(self):
        return [self.whole_view(
            "output", f"the value under the query key among {self.n} pairs with distinct "
                      f"{self.key_bits}-bit keys",
            sample=self._draw, valid=self.valid_inputs)]
