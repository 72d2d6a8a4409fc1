"""index_any: x in {0,1}^n then k distinct query tokens; label = OR of the queried bits.

Definition: index_any(x, q_1..q_k) = 1 iff x_{q_j} = 1 for some j. Default k = 3,
1 <= k <= n; queries distinct.
Default distribution ``balanced``: labels balanced exactly, uniform conditioned on the
label; ``uniform``: no conditioning (label 0 with probability 2^-k).
Variants (parameters): k; ``mode="mask"`` (x then a bit mask y with exactly k ones).
Sources: generalizations of Index (communication complexity; BAPO of Schnabel et al.,
NeurIPS 2025); docs/theories.md §9.
"""

from ..registry import register
from .query import QueryTask


@register
class IndexAny(QueryTask):
    name = "index_any"
    order = 2
    op = "any"
    summary = "x in {0,1}^n then k distinct query tokens; label OR of the queried bits"
