"""Parity re-written as a task file: the built-in ``parity`` under another name.

The same function (the XOR of n bits), tokens "0", "1" (ids 0, 1, as the built-in's),
n from 1 to 65536 (the built-in's range) and the uniform distribution (the built-in's only
one; labels are exactly balanced, so nothing is rebalanced).
"""

NAME = "my_parity"
DESCRIPTION = "1 iff the number of 1s in x in {0,1}^n is odd (parity, as a task file)"
ALPHABET = ("0", "1")
LENGTHS = (1, 65536)


def label(x):
    return x.sum(axis=1) % 2


def oracle(x):
    out = []
    for row in x:
        acc = 0
        for b in row:
            acc ^= int(b)
        out.append(acc)
    return out
