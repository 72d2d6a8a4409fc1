"""index_all: x in {0,1}^n then k distinct query tokens; label = AND of the queried bits.

Definition: index_all(x, q_1..q_k) = 1 iff x_{q_j} = 1 for every j. Default k = 3,
1 <= k <= n; queries must be distinct (``parse`` and ``valid_inputs`` enforce it).
Default distribution ``balanced``: labels balanced exactly; x uniform and the ordered
queries uniform, conditioned on the label (the distribution of rejection sampling from
the uniform one, drawn directly); ``uniform``: no conditioning (label 1 with probability
2^-k).
Variants (parameters): k; ``mode="mask"`` encodes the queries as a bit mask
y in {0,1}^n with exactly k ones after x (docs/theories.md §9).
Sources: generalizations of Index (communication complexity; BAPO of Schnabel et al.,
NeurIPS 2025); docs/theories.md §9.
"""

from ..registry import register
from .query import QueryTask


@register
class IndexAll(QueryTask):
    name = "index_all"
    order = 1
    op = "all"
    summary = "x in {0,1}^n then k distinct query tokens; label AND of the queried bits"
