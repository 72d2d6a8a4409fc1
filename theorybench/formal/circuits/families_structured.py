"""Circuit builders for the retrieval and arithmetic families (AND/OR/NOT only: AC0).

Input bits follow :mod:`.encoding`: data bits are one bit each, a query token over n
choices is one-hot (bit "q_p = i"), a k-hop letter over |Sigma| > 2 choices is one-hot.

* index / index_any / index_all (tokens): sel_i = OR_p [q_p = i] (position i is queried);
  index_any = OR_i (x_i AND sel_i), index_all = AND_i (x_i OR NOT sel_i); index = x_q
  is index_any with k = 1. Depth <= 3, size O(n), wires O(k n).
* index_parity (tokens): b_p = OR_i (x_i AND [q_p = i]) is the p-th queried bit, then the
  DNF of XOR of the k bits b_1..b_k (k is a fixed parameter): depth 4, size O(k n + 2^k).
* mask encoding: z_i = x_i AND y_i; any = OR z, all = AND_i (x_i OR NOT y_i); parity of z
  when exactly k of the y are 1: "at least j of z" = OR over j-sets of AND, then the odd
  "exactly j" for j <= k: size O(n^k), polynomial for the fixed k.
* khop (last position, or any position i): same[p][i] = OR_a (X_p = a AND X_i = a);
  [find(i) = j] = same[j-1][i] AND no later j' <= i with same[j'-1][i]; find^k by k-fold
  composition G_(t+1)[j] = OR_m (G_t[m] AND [find(m) = j]); output a = OR_j (G_k[j] AND
  X_j = a), "no hop" = G_k[0]. Depth 3 + 2(k-1) + 2, size O(n^3) wires: AC0 for fixed k
  (Sanford, Hsu, Telgarsky 2024 study the same function's transformer depth).
* binary_add: carry-lookahead. g_i = a_i AND b_i, p_i = a_i OR b_i, carry into bit j:
  c_j = OR_(i<j) (g_i AND AND_(i<l<j) p_l); sum bit j = XOR(a_j, b_j, c_j) as a DNF of
  three literals. Depth 3 (carry-out) / 5 (sum bits), size O(n^2) wires
  (carry-lookahead addition is in AC0: e.g. Vollmer 1999, ch. 1.1).
"""

from __future__ import annotations

from itertools import combinations

from .builders import builder, parity_dnf


# ---- index family ---------------------------------------------------------------------
def _query_parts(task, enc, c):
    n = task.n
    one = task.index["1"]
    x = [enc.is_(c, i, one) for i in range(n)]
    return n, x


def _selected(task, enc, c):
    """sel_i (tokens mode) or y_i (mask mode)."""
    n = task.n
    if task.mode == "mask":
        return [enc.is_(c, n + i, task.index["1"]) for i in range(n)]
    k = task.input_length() - n
    return [c.or_(*[enc.is_(c, n + p, i + 2) for p in range(k)]) for i in range(n)]


def _query_build(op):
    def fn(task, df, enc):
        c = enc.circuit()
        n, x = _query_parts(task, enc, c)
        if op == "any":
            sel = _selected(task, enc, c)
            return c.set_outputs(c.or_(*[c.and_(xi, si) for xi, si in zip(x, sel)]))
        if op == "all":
            sel = _selected(task, enc, c)
            return c.set_outputs(c.and_(*[c.or_(xi, c.not_(si)) for xi, si in zip(x, sel)]))
        k = task.k
        if task.mode == "tokens":
            b = [c.or_(*[c.and_(x[i], enc.is_(c, n + p, i + 2)) for i in range(n)])
                 for p in range(k)]
            return c.set_outputs(parity_dnf(c, b))
        y = _selected(task, enc, c)
        z = [c.and_(xi, yi) for xi, yi in zip(x, y)]
        at_least = [c.const(1)] + [c.or_(*[c.and_(*s) for s in combinations(z, j)])
                                   for j in range(1, k + 1)] + [c.const(0)]
        odd = [c.and_(at_least[j], c.not_(at_least[j + 1])) for j in range(1, k + 1, 2)]
        return c.set_outputs(c.or_(*odd))
    return fn


builder("index", "ac0", "OR_i (x_i AND [q = i])")(_query_build("any"))
builder("index_any", "ac0", "OR_i (x_i AND queried_i)")(_query_build("any"))
builder("index_all", "ac0", "AND_i (x_i OR NOT queried_i)")(_query_build("all"))
builder("index_parity", "ac0",
        "DNF of XOR over the k queried bits b_p = OR_i (x_i AND [q_p = i]) (k fixed)")(
    _query_build("parity"))


# ---- khop -------------------------------------------------------------------------------
def khop_circuit(task, enc, c, target: int):
    """Output nodes (one per label value) of hop_k at 0-based position ``target``."""
    sigma = task.alphabet
    n = task.n
    e = [[enc.is_(c, i, a) for a in range(sigma)] for i in range(n)]
    same = {}

    def s(p, i):  # 0-based positions: X_p == X_i
        if (p, i) not in same:
            same[(p, i)] = c.or_(*[c.and_(e[p][a], e[i][a]) for a in range(sigma)])
        return same[(p, i)]

    def find(i):
        """{j: node [find(i) = j]} with 1-based j (0 = none), for 0-based position i."""
        out = {}
        for j in range(2, i + 2):  # X_(j-1) = X_i with j <= i (1-based), j-1 <= i-1
            later = [c.not_(s(jj - 2, i)) for jj in range(j + 1, i + 2)]
            out[j] = c.and_(s(j - 2, i), *later) if later else s(j - 2, i)
        none = [c.not_(s(p, i)) for p in range(i)]
        out[0] = c.and_(*none) if none else c.const(1)
        return out

    finds: dict[int, dict[int, int]] = {}

    def F(m):  # m is 1-based
        if m not in finds:
            finds[m] = find(m - 1)
        return finds[m]

    g = F(target + 1)
    for _ in range(task.k - 1):
        nxt: dict[int, list[int]] = {0: [g[0]]}
        for m, gm in g.items():
            if m == 0:
                continue
            for j, fj in F(m).items():
                nxt.setdefault(j, []).append(c.and_(gm, fj))
        g = {j: c.or_(*v) for j, v in nxt.items()}
    outs = []
    for a in range(sigma):
        terms = [c.and_(gj, e[j - 1][a]) for j, gj in g.items() if j >= 1]
        outs.append(c.or_(*terms) if terms else c.const(0))
    outs.append(g[0])
    return outs


@builder("khop", "ac0", "last-occurrence by AND/OR over one-hot letters, composed k times "
         "(size O(n^3), depth 2k + 3)")
def build_khop(task, df, enc):
    c = enc.circuit()
    target = task.n - 1 if df.name == "last" else int(df.name.split("@")[1]) - 1
    c.set_outputs(khop_circuit(task, enc, c, target), names=list(task.label_vocab))
    c.output_values = list(range(len(task.label_vocab)))
    return c


# ---- binary_add -------------------------------------------------------------------------
@builder("binary_add", "ac0", "carry-lookahead: c_j = OR_i (g_i AND AND_(i<l<j) p_l)",
         "carry-lookahead addition; Vollmer, Introduction to Circuit Complexity (1999), 1.1")
def build_binary_add(task, df, enc):
    c = enc.circuit()
    pos_a, pos_b, _ = task._positions()
    one = task.index["1"]
    a = [enc.is_(c, int(p), one) for p in pos_a]
    b = [enc.is_(c, int(p), one) for p in pos_b]
    gen = [c.and_(x, y) for x, y in zip(a, b)]
    prop = [c.or_(x, y) for x, y in zip(a, b)]

    def carry(j):
        if j == 0:
            return c.const(0)
        return c.or_(*[c.and_(gen[i], *prop[i + 1: j]) for i in range(j)])

    if df.name == "carry_out":
        return c.set_outputs(carry(task.n))
    j = int(df.name.rsplit("_", 1)[1])
    return c.set_outputs(parity_dnf(c, [a[j], b[j], carry(j)]))


# ---- edge_exists ------------------------------------------------------------------------
@builder("edge_exists", "ac0", "OR over slots i and edge tokens e of ([e_i = e] AND [q = e])")
def build_edge_exists(task, df, enc):
    c = enc.circuit()
    n = task.n
    qpos = n + 1
    terms = [c.and_(enc.is_(c, i, e), enc.is_(c, qpos, e))
             for e in df.choices[qpos] for i in range(n)]
    return c.set_outputs(c.or_(*terms))
