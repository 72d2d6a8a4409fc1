"""sparse_any: OR of the bits of x in {0,1}^n at a hidden fixed set S of k positions.

Definition: sparse_any(x) = 1 iff x_i = 1 for some i in S. S is fixed for the task
(default S = the first k positions, k = 3; parameter ``positions`` picks another S).
Default distribution ``balanced``: labels balanced exactly, x uniform conditioned on its
label; ``uniform``: x uniform (label 0 with probability 2^-k).
Variants (parameters): k (1 <= k < n), positions.
Sources: Edelman, Goel, Kakade, Zhang (ICML 2022); Hahn & Rofin (ACL 2024);
docs/theories.md §9.
"""

from ..registry import register
from .support import SparseTask


@register
class SparseAny(SparseTask):
    name = "sparse_any"
    order = 1
    op = "any"
    summary = "1 iff some bit of x in {0,1}^n at a hidden fixed set S of k positions is 1"
