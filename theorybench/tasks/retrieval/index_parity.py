"""index_parity: x in {0,1}^n then k distinct query tokens; label = XOR of queried bits.

Definition: index_parity(x, q_1..q_k) = sum_j x_{q_j} mod 2. Default k = 3,
1 <= k <= n; queries distinct.
Default distribution ``balanced``: labels balanced exactly, uniform conditioned on the
label; ``uniform``: no conditioning (balanced in expectation).
Variants (parameters): k; ``mode="mask"`` (x then a bit mask y with exactly k ones).
Sources: generalizations of Index (communication complexity; BAPO of Schnabel et al.,
NeurIPS 2025); docs/theories.md §9.
"""

from ..registry import register
from .query import QueryTask


@register
class IndexParity(QueryTask):
    name = "index_parity"
    order = 3
    op = "parity"
    summary = "x in {0,1}^n then k distinct query tokens; label XOR of the queried bits"
