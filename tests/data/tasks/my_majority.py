"""Majority re-written as a task file: the built-in ``majority`` under another name.

The same function ([number of 1s > n/2]), tokens "0", "1" (ids 0, 1, as the built-in's),
odd n from 1 to 65536 (the built-in's range and its rule against ties) and the uniform
distribution (the built-in's default; labels are exactly balanced at odd n).
"""

NAME = "my_majority"
DESCRIPTION = "1 iff more than half of the bits of x in {0,1}^n are 1, n odd (majority)"
ALPHABET = ("0", "1")
LENGTHS = (1, 65536)


def VALID(n):
    return n % 2 == 1


def label(x):
    return 2 * x.sum(axis=1) > x.shape[1]


def oracle(x):
    return [int(sum(int(b) for b in row) * 2 > len(row)) for row in x]
