"""all: AND of x in {0,1}^n.

Definition: all(x) = 1 iff x = 1^n.
Default distribution ``balanced``: half of the rows are 1^n, the other half have
z ~ U{1..n} zeros at uniformly random places (docs/theories.md §9). ``uniform``: x uniform
on {0,1}^n (label 1 with probability 2^-n).
Variants (parameters): n only (1 <= n <= 65536).
Source: the task suite of Hahn & Rofin (ACL 2024) and Bhattamishra et al. (ACL 2023).
"""

import numpy as np

from ..balance import balanced_choice
from ..bits import N_PARAM, BitTask, random_positions_mask
from ..registry import register


@register
class All(BitTask):
    name = "all"
    kind = "boolean"
    order = 0
    summary = "1 iff every bit of x in {0,1}^n is 1 (AND)"
    params = (N_PARAM,)
    distributions = ("balanced", "uniform")
    constant_bit = 1  # the bit whose all-n string is the odd one out

    def function(self, x):
        return np.all(x == self.constant_bit, axis=1)

    def automaton(self):
        # state 0: every bit so far is 1 (accepting); state 1: a 0 was read (dead)
        return np.array([[1, 0], [1, 1]]), np.array([1, 0]), 0

    def oracle_row(self, bits):
        for b in bits:
            if b != 1:
                return 0
        return 1

    def draw(self, rng, count, distribution):
        if distribution == "uniform":
            return super().draw(rng, count, distribution)
        special = balanced_choice(rng, count).astype(bool)
        flips = rng.integers(1, self.n + 1, size=count)
        flips[special] = 0
        mask = random_positions_mask(rng, count, self.n, flips)
        # marked positions get 1 - c, the others c
        return (mask ^ bool(self.constant_bit)).astype(np.int64)
