"""Majority over 26 letters: the letter that occurs most often, given after a separator

Huang et al. (ICLR 2025)'s algorithmic task "majority": letters a..z, then "|"; the answer
is the most frequent letter. Inputs are drawn as the authors draw them: each letter
uniform and independent, drawn again until the most frequent letter is unique. On a tie
(outside that distribution) the label is the first of the tied letters.
"""

import numpy as np

NAME = "majority_letters"
DESCRIPTION = "Majority over 26 letters: the most frequent letter, after a separator"
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
ALPHABET = LETTERS + ("|",)
ANSWER = LETTERS
OUTPUT = "answer"
LENGTHS = (2, 400)
SEP = len(LETTERS)


def _counts(body):
    k = len(LETTERS)
    return (body[:, :, None] == np.arange(k)[None, None, :]).sum(axis=1)   # (count, 26)


def label(x):
    return _counts(x[:, :-1]).argmax(axis=1)[:, None]   # argmax: the first of a tie


def sample(rng, count, n):
    out = np.empty((0, n), dtype=np.int64)
    while len(out) < count:
        x = rng.integers(0, len(LETTERS), size=(2 * count, n))
        x[:, -1] = SEP
        c = np.sort(_counts(x[:, :-1]), axis=1)
        out = np.concatenate([out, x[c[:, -1] > c[:, -2]]])
    return out[:count]
