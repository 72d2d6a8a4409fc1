"""any: OR of x in {0,1}^n.

Definition: any(x) = 0 iff x = 0^n.
Default distribution ``balanced``: the mirror of ``all`` - half of the rows are 0^n, the
other half have z ~ U{1..n} ones at random places. ``uniform``: x uniform on {0,1}^n
(label 0 with probability 2^-n).
Variants (parameters): n only (1 <= n <= 65536).
Source: the task suite of Hahn & Rofin (ACL 2024) and Bhattamishra et al. (ACL 2023).
"""

import numpy as np

from ..registry import register
from .all import All


@register
class Any(All):
    name = "any"
    order = 1
    summary = "1 iff some bit of x in {0,1}^n is 1 (OR)"
    constant_bit = 0

    def function(self, x):
        return np.any(x == 1, axis=1)

    def automaton(self):
        # state 0: no 1 read yet; state 1: a 1 was read (accepting, absorbing)
        return np.array([[0, 1], [1, 1]]), np.array([0, 1]), 0

    def oracle_row(self, bits):
        for b in bits:
            if b == 1:
                return 1
        return 0
