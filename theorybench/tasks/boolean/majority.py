"""majority: [sum(x) > n/2] for x in {0,1}^n, n odd.

Definition: majority(x) = 1 iff x_1 + ... + x_n > n/2.
n must be odd so that there are no ties; under the uniform distribution the labels are
then exactly balanced. Distributions: ``uniform`` (default) and ``near_threshold``
(sum(x) is (n-1)/2 or (n+1)/2 with equal probability, placed at random: the hardest
inputs, every one of which has sensitivity about n/2).
Variants (parameters): n only (odd, 1 <= n <= 65536); near_threshold is a distribution.
Source: Hahn & Rofin (ACL 2024); Yang & Chiang (COLM 2024) give the C-RASP program.
"""

from dataclasses import replace

import numpy as np

from ...errors import TaskParameterError
from ..bits import N_PARAM, BitTask, random_positions_mask
from ..registry import register


@register
class Majority(BitTask):
    name = "majority"
    kind = "boolean"
    order = 2
    summary = "1 iff more than half of the bits of x in {0,1}^n are 1 (n odd)"
    params = (replace(N_PARAM, default=15, note="odd"),)
    distributions = ("uniform", "near_threshold")
    analysis_ns = (3, 5, 7, 9, 11, 13, 15)
    train_ns = (7, 15, 31, 63)

    def check(self):
        if self.n % 2 == 0:
            raise TaskParameterError(
                f"parameter n={self.n} is even: majority needs odd n so that there are no "
                f"ties (use n={self.n - 1} or n={self.n + 1})")

    def function(self, x):
        return 2 * x.sum(axis=1) > self.n

    def oracle_row(self, bits):
        ones = zeros = 0
        for b in bits:
            if b:
                ones += 1
            else:
                zeros += 1
        return int(ones > zeros)

    def draw(self, rng, count, distribution):
        if distribution == "uniform":
            return super().draw(rng, count, distribution)
        ones = (self.n - 1) // 2 + rng.integers(0, 2, size=count)
        return random_positions_mask(rng, count, self.n, ones).astype(np.int64)
