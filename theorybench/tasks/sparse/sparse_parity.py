"""sparse_parity: XOR of the bits of x in {0,1}^n at a hidden fixed set S of k positions.

Definition: sparse_parity(x) = sum_{i in S} x_i mod 2. S is fixed for the task (default
S = the first k positions, k = 3; parameter ``positions`` picks another S).
Default distribution ``balanced``: labels balanced exactly, x uniform conditioned on its
label; ``uniform``: x uniform (balanced in expectation).
Variants (parameters): k (1 <= k < n), positions.
Sources: (n, k)-sparse parity as studied by Barak, Edelman, Goel, Kakade, Malach, Zhang,
"Hidden progress in deep learning: SGD learns parities near the computational limit"
(NeurIPS 2022) and Bhattamishra et al. (ACL 2023); average sensitivity exactly k:
Hahn & Rofin (ACL 2024); docs/theories.md §9.
"""

from ..registry import register
from .support import SparseTask


@register
class SparseParity(SparseTask):
    name = "sparse_parity"
    order = 2
    op = "parity"
    summary = "sum of the bits of x in {0,1}^n at a hidden fixed set S of k positions, mod 2"
