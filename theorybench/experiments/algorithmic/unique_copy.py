"""Unique copy: copy a string of distinct tokens after a separator

Huang et al. (ICLR 2025)'s algorithmic task "unique copy": up to 150 distinct tokens of a
vocabulary of 150, then "|"; the answer is the same tokens in order. Inputs are drawn as
the authors draw them: the tokens a uniform sample without repetition. A separator inside
the string (outside that distribution) is copied as token 0.
"""

import numpy as np

NAME = "unique_copy"
DESCRIPTION = "Unique copy: repeat a string of distinct tokens (vocabulary 150) after a separator"
TOKENS = tuple(f"t{i}" for i in range(150))
ALPHABET = TOKENS + ("|",)
ANSWER = TOKENS
OUTPUT = "answer"
LENGTHS = (2, len(TOKENS) + 1)
SEP = len(TOKENS)


def label(x):
    body = x[:, :-1]
    return np.where(body == SEP, 0, body)


def sample(rng, count, n):
    x = np.empty((count, n), dtype=np.int64)
    x[:, :-1] = rng.random((count, len(TOKENS))).argsort(axis=1)[:, :n - 1]
    x[:, -1] = SEP
    return x
