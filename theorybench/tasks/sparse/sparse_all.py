"""sparse_all: AND of the bits of x in {0,1}^n at a hidden fixed set S of k positions.

Definition: sparse_all(x) = 1 iff x_i = 1 for every i in S. S is fixed for the task
(default S = the first k positions, k = 3; parameter ``positions`` picks another S);
the other n - k bits are irrelevant noise.
Default distribution ``balanced``: labels balanced exactly, x uniform conditioned on its
label (what rejection from the uniform distribution gives); ``uniform``: x uniform
(label 1 with probability 2^-k).
Variants (parameters): k (1 <= k < n), positions.
Sources: sparse Boolean functions as in Edelman, Goel, Kakade, Zhang, "Inductive biases
and variable creation in self-attention mechanisms" (ICML 2022); sensitivity at most k,
constant in n: Hahn & Rofin (ACL 2024); docs/theories.md §9.
"""

from ..registry import register
from .support import SparseTask


@register
class SparseAll(SparseTask):
    name = "sparse_all"
    order = 0
    op = "all"
    summary = "1 iff every bit of x in {0,1}^n at a hidden fixed set S of k positions is 1"
