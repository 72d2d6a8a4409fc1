"""parity: XOR of x in {0,1}^n.

Definition: parity(x) = sum(x) mod 2.
Default (and only) distribution ``uniform``: x uniform on {0,1}^n (P(label 1) = 1/2
exactly: for n >= 1 half of {0,1}^n has odd weight).
Variants (parameters): n only (1 <= n <= 65536).
Parity is the canonical maximally sensitive function (every input has sensitivity n).
Sources: Hahn (TACL 2020); Hahn & Rofin (ACL 2024); Furst, Saxe, Sipser (1984).
"""

import numpy as np

from ..bits import N_PARAM, BitTask
from ..registry import register


@register
class Parity(BitTask):
    name = "parity"
    kind = "boolean"
    order = 3
    summary = "sum of the bits of x in {0,1}^n mod 2 (XOR)"
    params = (N_PARAM,)
    distributions = ("uniform",)

    def function(self, x):
        return x.sum(axis=1) % 2

    def automaton(self):
        # the state is the parity of the 1s read so far; odd accepts
        return np.array([[0, 1], [1, 0]]), np.array([0, 1]), 0

    def oracle_row(self, bits):
        acc = 0
        for b in bits:
            acc ^= b
        return acc
