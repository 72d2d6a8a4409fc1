"""Sort: the distinct tokens of the input in increasing order, after a separator

Huang et al. (ICLR 2025)'s algorithmic task "sort": up to 150 distinct tokens of an ordered
vocabulary of 150, then "|"; the answer is the tokens sorted. Inputs are drawn as the
authors draw them: a uniform sample without repetition. A separator inside the string
(outside that distribution) sorts as token 0.
"""

import numpy as np

NAME = "sort_tokens"
DESCRIPTION = "Sort: the distinct input tokens (vocabulary 150) in increasing order"
TOKENS = tuple(f"t{i}" for i in range(150))
ALPHABET = TOKENS + ("|",)
ANSWER = TOKENS
OUTPUT = "answer"
LENGTHS = (2, len(TOKENS) + 1)
SEP = len(TOKENS)


def label(x):
    body = x[:, :-1]
    return np.sort(np.where(body == SEP, 0, body), axis=1)


def sample(rng, count, n):
    x = np.empty((count, n), dtype=np.int64)
    x[:, :-1] = rng.random((count, len(TOKENS))).argsort(axis=1)[:, :n - 1]
    x[:, -1] = SEP
    return x
