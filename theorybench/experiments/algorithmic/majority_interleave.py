"""Binary majority interleaved with period 3: the majority bit of each residue class

Huang et al. (ICLR 2025)'s algorithmic task "binary_majority_interleave": three bit strings
of length m interleaved (position i belongs to string i mod 3), then "|"; the answer is
the three majority bits in order. n = 3m + 1. Inputs are drawn as the authors draw them:
for each string the number of zeros uniform in 0..m, drawn again on a tie, the positions
shuffled. On a tie (outside that distribution) the bit is 0.
"""

import numpy as np

NAME = "majority_interleave"
DESCRIPTION = "Binary majority, three strings interleaved: the three majority bits"
ALPHABET = ("0", "1", "|")
ANSWER = ("0", "1")
OUTPUT = "answer"
LENGTHS = (4, 400)
PERIOD = 3


def VALID(n):
    return (n - 1) % PERIOD == 0


def label(x):
    body = x[:, :-1]
    m = body.shape[1] // PERIOD
    parts = body[:, :m * PERIOD].reshape(len(x), m, PERIOD)
    ones = (parts == 1).sum(axis=1)
    return (2 * ones > m).astype(np.int64)                  # (count, 3)


def sample(rng, count, n):
    m = (n - 1) // PERIOD
    ranks = rng.random((count, PERIOD, m)).argsort(axis=2)  # a random order of positions
    zeros = np.empty((count, PERIOD), dtype=np.int64)
    todo = np.ones((count, PERIOD), dtype=bool)
    while todo.any():
        z = rng.integers(0, m + 1, size=(count, PERIOD))
        zeros = np.where(todo, z, zeros)
        todo = 2 * zeros == m                               # a tie: draw again
    bits = (ranks >= zeros[:, :, None]).astype(np.int64)    # (count, 3, m), `zeros` zeros each
    x = np.empty((count, n), dtype=np.int64)
    x[:, :-1] = bits.transpose(0, 2, 1).reshape(count, m * PERIOD)
    x[:, -1] = 2
    return x
