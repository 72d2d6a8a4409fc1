"""Circuit builders for dyck (TC0, threshold gates) and dyck_bounded (AC0).

Token ids (tasks/dyck/common.py): type t opens with id 2t and closes with id 2t + 1.

dyck (TC0). With o_p = [w_p opens]: the depth profile is never negative iff for every
prefix j, #open(1..j) >= j/2 (a THR gate with k = ceil(j/2)); the word is balanced iff
exactly n/2 positions open (two THR gates); a depth cap D < n/2 adds NOT THR_(floor((j+D)/2)+1)
per prefix. For k > 1 types: eq(i, j) = [w_i..w_j is balanced] is "exactly (j-i+1)/2
opens" (two THR gates); in a word of valid shape the closing bracket j is matched to the
largest opening i < j with eq(i, j); so matched(i, j) = o_i AND c_j AND eq(i, j) AND NOT
OR_(i<p<j) (o_p AND eq(p, j)), and the word is in Dyck-k iff its shape is valid and no
matched pair has two types. Depth <= 7, size O(n^2) gates, O(n^3) wires.

dyck_bounded (AC0, fixed depth bound D). Write In_d(i, j) for "w_i..w_j is a Dyck word of
depth <= d" and M_d(a, b) for "w_a opens and w_b closes the same type and
In_(d-1)(a+1, b-1)" (a block). Then, for any word,
    In_d(i, j)  <=>  every position p in [i, j] is an endpoint of a block M_d inside [i, j].
(=>) every bracket of a Dyck word is matched, and a matched pair at depth <= d encloses a
word of depth <= d-1. (<=) two blocks never share an endpoint and never cross: if
M_d(a, b) and M_d(a', b') with a < a' < b < b', the inside of (a, b) is a Dyck word, so a'
is matched inside it to some q < b, and then w_(a'+1)..w_(b'-1) would start with the
balanced w_(a'+1)..w_(q-1) followed by the closing w_q - a negative prefix, contradicting
In_(d-1)(a'+1, b'-1). So the blocks form a laminar family whose maximal members tile
[i, j]: the word is a concatenation of blocks, a Dyck word of depth <= d. Each level is
a constant-depth AND/OR circuit over the previous level's intervals (prefix ORs
R_d(p, j) = OR_(p<b<=j) M_d(p, b) and L_d(i, p) = OR_(i<=a<p) M_d(a, p)), so the depth is
O(D) and the size O(D n^3) wires: AC0 for fixed D. This agrees with the theory: bounded-depth Dyck is
star-free, star-free languages are the FO[<]-definable ones (McNaughton & Papert 1971),
and FO[<]-definable languages have constant-depth polynomial-size circuits (Barrington,
Compton, Straubing, Therien, JCSS 44 (1992), characterize exactly which regular languages
are in AC0). The proof above (blocks never share an endpoint or cross, so covering every
position forces a tiling) is checked on every word against the task reference, a stack
oracle and a dynamic-programming count of bounded-depth Dyck words: k = 1, n = 16,
D in {1, 2, 3, 8} and k = 2, n = 8 in the default tests; k = 1, n = 18 for every
D = 1..9, k = 2, n = 10 for D = 1..5 and k = 3, n = 8 for D = 1..4 in the slow tests.
"""

from __future__ import annotations

from .builders import builder, exactly


def _brackets(task, enc, c):
    n, k = task.n, task.k
    op = [[enc.is_(c, p, 2 * t) for t in range(k)] for p in range(n)]
    cl = [[enc.is_(c, p, 2 * t + 1) for t in range(k)] for p in range(n)]
    o = [c.or_(*row) if k > 1 else row[0] for row in op]
    return op, cl, o


@builder("dyck", "tc0", "prefix-count threshold gates, plus nearest-balanced matching "
         "for bracket types (O(n^3) wires, depth <= 7)")
def build_dyck(task, df, enc):
    c = enc.circuit()
    n = task.n
    op, cl, o = _brackets(task, enc, c)
    cap = task.cap
    conds = [exactly(c, o, n // 2)]
    for j in range(1, n + 1):
        conds.append(c.thr(-(-j // 2), *o[:j]))
        if cap < n // 2 and (j + cap) // 2 + 1 <= j:
            conds.append(c.not_(c.thr((j + cap) // 2 + 1, *o[:j])))
    if task.k > 1:
        eq = {}
        for i in range(n):
            for j in range(i + 1, n, 2):
                eq[(i, j)] = exactly(c, o[i: j + 1], (j - i + 1) // 2)
        for j in range(1, n):
            for i in range(j - 1, -1, -2):
                nearer = [c.and_(o[p], eq[(p, j)]) for p in range(i + 2, j, 2)]
                matched = c.and_(o[i], c.not_(o[j]), eq[(i, j)],
                                 *[c.not_(x) for x in nearer])
                same = c.or_(*[c.and_(op[i][t], cl[j][t]) for t in range(task.k)])
                conds.append(c.or_(c.not_(matched), same))
    return c.set_outputs(c.and_(*conds))


@builder("dyck_bounded", "ac0", "laminar blocks: In_d(i,j) = every position is an endpoint of "
         "a depth-<=d block (depth O(D), O(D n^3) wires)")
def build_dyck_bounded(task, df, enc):
    c = enc.circuit()
    n, k = task.n, task.k
    op, cl, _ = _brackets(task, enc, c)
    D = min(task.D, n // 2)
    pair = {(a, b): c.or_(*[c.and_(op[a][t], cl[b][t]) for t in range(k)])
            for a in range(n) for b in range(a + 1, n, 2)}
    inside: dict[tuple[int, int], int] = {}  # In_(d-1)(i, j) for even-length intervals

    def in_prev(i, j):
        return c.const(1) if j < i else inside[(i, j)]

    def level(d_blocks, intervals):
        right = {}  # R(p, j): p opens a block ending at some b <= j
        left = {}   # L(i, p): p closes a block starting at some a >= i
        for p in range(n):
            acc = []
            for j in range(p + 1, n):
                if (p, j) in d_blocks:
                    acc.append(d_blocks[(p, j)])
                right[(p, j)] = c.or_(*acc) if acc else c.const(0)
            acc = []
            for i in range(p - 1, -1, -1):
                if (i, p) in d_blocks:
                    acc.append(d_blocks[(i, p)])
                left[(i, p)] = c.or_(*acc) if acc else c.const(0)
        out = {}
        for (i, j) in intervals:
            out[(i, j)] = c.and_(*[c.or_(right.get((p, j), c.const(0)),
                                         left.get((i, p), c.const(0))) for p in range(i, j + 1)])
        return out

    all_intervals = [(i, j) for i in range(n) for j in range(i + 1, n, 2)]
    for d in range(1, D + 1):
        blocks = {(a, b): c.and_(pair[(a, b)], in_prev(a + 1, b - 1))
                  for (a, b) in pair if d > 1 or b == a + 1}
        wanted = [(0, n - 1)] if d == D else all_intervals
        inside = level(blocks, wanted)
    return c.set_outputs(inside[(0, n - 1)])
