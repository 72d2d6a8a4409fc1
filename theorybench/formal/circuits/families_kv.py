"""Circuit builder for kv_retrieval (binary-key retrieval): AND/OR/NOT only, AC0.

eq_b = AND_r (k_(b,r) XNOR q_r) says that pair b's key is the query (XNOR of two bits as
(k AND q) OR (NOT k AND NOT q)); the output is OR_b (eq_b AND v_b): on a valid input
exactly one pair matches, so this is the value stored under the query. Depth 4 (literals,
XNOR, AND over the m key bits, OR over the n pairs), size O(n m) gates. The key length m
is about log2 n, so the same formula is a polynomial-size constant-depth family.
"""

from __future__ import annotations

from .builders import builder


@builder("kv_retrieval", "ac0",
         "OR_b (AND_r (k_(b,r) XNOR q_r) AND v_b): the pair whose key equals the query")
def _kv(task, df, enc):
    c = enc.circuit()
    n, m = task.n, task.key_bits
    one = task.index["1"]
    B = m + 1

    def bit(i):
        return enc.is_(c, i, one)

    query = [bit(n * B + r) for r in range(m)]
    terms = []
    for b in range(n):
        same = []
        for r in range(m):
            k, q = bit(b * B + r), query[r]
            same.append(c.or_(c.and_(k, q), c.and_(c.not_(k), c.not_(q))))
        terms.append(c.and_(*same, bit(b * B + m)))
    return c.set_outputs(c.or_(*terms))
