"""Repeat copy: copy a string over {a, b} after a separator

Huang et al. (ICLR 2025)'s algorithmic task "repeat copy": a string over {a, b}, then "|";
the answer is the same string. Inputs are drawn as the authors draw them: each token
uniform and independent. A separator inside the string is copied as "a".
"""

import numpy as np

NAME = "repeat_copy"
DESCRIPTION = "Repeat copy: repeat a string over {a, b} after a separator"
ALPHABET = ("a", "b", "|")
ANSWER = ("a", "b")
OUTPUT = "answer"
LENGTHS = (2, 400)


def label(x):
    body = x[:, :-1]
    return np.where(body == 2, 0, body)


def sample(rng, count, n):
    x = rng.integers(0, 2, size=(count, n))
    x[:, -1] = 2
    return x
