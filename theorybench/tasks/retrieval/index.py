"""index: x in {0,1}^n followed by one query token q in {1..n}; the label is x_q.

Definition: index(x_1 .. x_n, q) = x_q. Tokens "0", "1" (ids 0, 1) then one query token
"q<j>" (id j + 1). Input length n + 1.
Default distribution ``uniform``: x uniform on {0,1}^n, q uniform on {1..n} (labels
balanced in expectation). No variants beyond n (index_all/any/parity generalize it to k
queries and offer the bit-mask encoding).
Sources: the Index problem of communication complexity (one-way cost about n bits from
Alice=x to Bob=q, Kremer, Nisan, Ron 1999); BAPO: a (0, 1)-BAPO solves it (Schnabel et
al., NeurIPS 2025); docs/theories.md §4, §6 and §9.
"""

from ..registry import register
from .query import N_PARAM, QueryTask


@register
class Index(QueryTask):
    name = "index"
    order = 0
    op = "all"  # the AND (= OR = XOR) of the single queried bit
    summary = "x in {0,1}^n then a query token q in {1..n}; label x_q"
    params = (N_PARAM,)
    distributions = ("uniform",)
    variants = {}
    analysis_ns = (4, 6, 8, 10, 12, 14, 16)
    k = 1
    mode = "tokens"
