"""Constructions by uniform attention (counting): Majority, Dyck-1, bounded-depth Dyck-1.

Every head here has Wq = 0, so every score is 0 and the softmax is exactly uniform over
the causal prefix: position i reads the average of its prefix's values. Everything after
that is affine or ReLU, so the model is exact rational arithmetic of the input counts.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..errors import TaskParameterError
from ..tasks.base import Task
from .base import Construction
from .model import Weights, empty_layer


def _index(channels):
    return {c: i for i, c in enumerate(channels)}


def majority(task: Task) -> Construction:
    """Majority by one uniform head: the last position reads mean(2x - 1) = (2c - n)/n.

    Tokens "0", "1" (ids 0, 1). Width 2 (channels pm = 2x - 1 and avg), one layer, one
    head, no MLP, no positional information; the logit is (2c - n)/n, whose sign is the
    label and whose size is at least 1/n for odd n (|2c - n| >= 1). The weights do not
    depend on n. Construction in the spirit of Yang & Chiang (COLM 2024), C-RASP's
    counting operator realised by uniform causal attention.
    """
    import z3
    n = task.n
    ch = ("pm", "avg")
    c = _index(ch)
    d = len(ch)
    E = np.zeros((2, d))
    E[0, c["pm"]], E[1, c["pm"]] = -1.0, 1.0
    layer = empty_layer(d)
    layer.wv[0, c["pm"], 0] = 1.0
    layer.wo[0, 0, c["avg"]] = 1.0
    w_out = np.zeros((d, 1))
    w_out[c["avg"], 0] = 1.0
    weights = Weights(E, np.zeros((n, d)), [layer], w_out, np.zeros(1), "last", ch)

    def spec(xs):
        return 2 * z3.Sum(xs) > n

    return Construction(
        name="majority", task=task, weights=weights,
        summary="one uniform causal head averages 2x-1; logit (2c-n)/n",
        temperature="none: the head is uniform (Wq = 0), any beta",
        margin_formula="1/n (|2c - n| >= 1 for odd n)", hard_margin=Fraction(1, n),
        gaps=[None], spec=spec,
        count_spec=lambda cs, m: 2 * cs[1] > m, n_ok=lambda m: m % 2 == 1,
        source="Yang & Chiang (COLM 2024): majority in C-RASP; counts by uniform attention")


def dyck1(task: Task) -> Construction:
    """Dyck-1 (task ``dyck`` with k = 1) or bounded-depth Dyck-1 (``dyck_bounded``, k = 1).

    Tokens "(" (id 0) and ")" (id 1); n is even. Two layers, one uniform head each:

    1. a_i = h_i / i (h_i = #( - #) in the prefix) by averaging pm = +1/-1; the MLP writes
       z_i = ReLU(-a_i) + ReLU(a_i - (D + 1/2) inv_i) (>= 1/(2i) iff the prefix dips
       below 0 or rises above D; exactly 0 otherwise; inv_i = 1/i is a positional
       feature, only used for the depth bound) and |a_i| = ReLU(a_i) + ReLU(-a_i).
    2. m = mean_i z_i at the last position (>= 1/(2 n^2) iff some prefix is bad).

    One accept decision: logit = 1 - n |a_n| - 4 n^2 m, which is exactly 1 on members;
    on non-members n |a_n| = |h_n| >= 2 (n even) or 4 n^2 m >= 2, so the logit is <= -1.
    Margin 1 for every n; the readout weights grow like n^2 (O(log n) bits).
    Counting construction of Bhattamishra, Ahuja, Goyal (EMNLP 2020), Dyck-1 via depth
    ratios; the bound D as in Yao et al. (ACL 2021) for k = 1.
    """
    import z3
    n = task.n
    # a declared depth bound D (not the family's name) selects the k >= 2 construction,
    # whose width grows with D: an unbounded Dyck-k would need one growing with n
    if task.k != 1 and getattr(task, "D", None) is not None:
        return dyck_k_bounded(task)
    if task.k != 1:
        raise TaskParameterError(
            f"the {task.name} construction handles k=1 only (one bracket type: counting); "
            f"k={task.k} needs a head that finds each bracket's match (not built); use "
            f"{task.name}:k=1")
    bound = getattr(task, "D", None)
    ch = ("pm", "inv", "a", "z", "absa", "m")
    c = _index(ch)
    d = len(ch)
    E = np.zeros((2, d))
    E[0, c["pm"]], E[1, c["pm"]] = 1.0, -1.0
    P = np.zeros((n, d))
    P[:, c["inv"]] = 1.0 / np.arange(1, n + 1)
    l1 = empty_layer(d, mlp=3)
    l1.wv[0, c["pm"], 0] = 1.0
    l1.wo[0, 0, c["a"]] = 1.0
    # hidden: u0 = ReLU(-a), u1 = ReLU(a - (D+1/2) inv), u2 = ReLU(a)
    l1.w1[c["a"], 0] = -1.0
    l1.w1[c["a"], 1] = 1.0
    upper = task.cap + 0.5     # the task's own bound: min(D, n/2), n/2 when unbounded
    l1.w1[c["inv"], 1] = -upper
    l1.w1[c["a"], 2] = 1.0
    l1.w2[0, c["z"]] = 1.0
    l1.w2[1, c["z"]] = 1.0
    l1.w2[0, c["absa"]] = 1.0
    l1.w2[2, c["absa"]] = 1.0
    l2 = empty_layer(d)
    l2.wv[0, c["z"], 0] = 1.0
    l2.wo[0, 0, c["m"]] = 1.0
    w_out = np.zeros((d, 1))
    w_out[c["absa"], 0] = -float(n)
    w_out[c["m"], 0] = -4.0 * n * n
    weights = Weights(E, P, [l1, l2], w_out, np.ones(1), "last", ch)
    cap = task.cap

    def spec(xs):
        h, conds = 0, []
        for x in xs:
            h = h + 1 - 2 * x
            conds += [h >= 0, h <= cap]
        return z3.And(*conds, h == 0)

    what = f"depth <= {bound}" if bound is not None else "any depth"
    return Construction(
        name=task.name, task=task, weights=weights,
        summary=f"Dyck-1 ({what}): layer 1 averages +-1 (depth ratio), MLP flags bad "
                "prefixes; layer 2 averages the flags; one accept decision",
        temperature="none: both heads uniform (Wq = 0), any beta",
        margin_formula="1 for every n (logit 1 on members, <= -1 otherwise)",
        hard_margin=Fraction(1), gaps=[None, None], spec=spec,
        source="Bhattamishra, Ahuja, Goyal (EMNLP 2020); Yao et al. (ACL 2021) for the bound")


def dyck_k_bounded(task: Task) -> Construction:
    """Bounded-depth Dyck-k (``dyck_bounded`` with k >= 2): Dyck-1 counting plus a matching
    head that checks every closing bracket's type.

    Tokens: type t opens with id 2t and closes with id 2t + 1; D' = min(D, n/2).

    1. Uniform head: a_i = h_i / i. MLP: the Dyck-1 flags z_i and |a_i| (as in
       :func:`dyck1`) and exact depth steps b_d = [h_i >= d], d = 0..D'+1, as
       ReLU(2n x) - ReLU(2n x - 1) of x = a_i - (d - 1/2)/i (|x| >= 1/(2i) >= 1/(2n)).
    2. Uniform head: m = mean z. MLP: od_d = [opening, depth after = d] and cd_d =
       [closing, depth before = d] for d = 1..D' (ReLU of b_d - b_(d+1) + open - 1 ...).
    3. Matching head: query i scores key j by M sum_d cd_d(i) od_d(j) + j with M = n + 1:
       the latest opening bracket at the level the closing one leaves, i.e. its match
       (gap 1), and copies its type; the MLP flags a type mismatch,
       mm_i = sum_t ReLU(att_t - type_t(i) - open_i).
    4. Uniform head: mean mm.

    Logit = 1 - n |a_n| - 4 n^2 m - 2n mean(mm): about 1 on members (>= 1 - 2n e_3, e_3 =
    (n - 1) e^(-beta_3) <= 1/(4 e^2 n)), <= -1 + 2 e_3 otherwise. beta_3 = ln(4n^2) + 2.
    Width 2k + 6 + 3D' + 4 + ... (see ``shape()``); four layers. Yao, Peng, Papadimitriou,
    Narasimhan (ACL 2021) build bounded-depth Dyck-k recognisers; this one uses their
    idea of reading the depth and attending to the matching bracket.
    """
    import z3
    n, k = task.n, task.k
    Dc = task.cap
    ch = (["open", "pm", "inv", "one", "j"] + [f"typ{t}" for t in range(k)]
          + ["a", "z", "absa", "m"] + [f"b{d}" for d in range(Dc + 2)]
          + [f"od{d}" for d in range(1, Dc + 1)] + [f"cd{d}" for d in range(1, Dc + 1)]
          + [f"att{t}" for t in range(k)] + ["mm", "mmavg"])
    c = _index(ch)
    d = len(ch)
    E = np.zeros((2 * k, d))
    for t in range(k):
        E[2 * t, c["open"]], E[2 * t, c["pm"]] = 1.0, 1.0
        E[2 * t + 1, c["pm"]] = -1.0
        E[2 * t, c[f"typ{t}"]] = E[2 * t + 1, c[f"typ{t}"]] = 1.0
    P = np.zeros((n, d))
    pos = np.arange(1, n + 1, dtype=np.float64)
    P[:, c["inv"]], P[:, c["one"]], P[:, c["j"]] = 1.0 / pos, 1.0, pos
    # layer 1: a = mean pm; MLP: z, |a|, steps b_d
    l1 = empty_layer(d, mlp=3 + 2 * (Dc + 2))
    l1.wv[0, c["pm"], 0] = 1.0
    l1.wo[0, 0, c["a"]] = 1.0
    l1.w1[c["a"], 0] = -1.0
    l1.w1[c["a"], 1], l1.w1[c["inv"], 1] = 1.0, -(Dc + 0.5)
    l1.w1[c["a"], 2] = 1.0
    l1.w2[0, c["z"]] = l1.w2[1, c["z"]] = 1.0
    l1.w2[0, c["absa"]] = l1.w2[2, c["absa"]] = 1.0
    for dd in range(Dc + 2):
        u = 3 + 2 * dd
        for off in (0, 1):
            l1.w1[c["a"], u + off] = 2.0 * n
            l1.w1[c["inv"], u + off] = -2.0 * n * (dd - 0.5)
        l1.b1[u + 1] = -1.0
        l1.w2[u, c[f"b{dd}"]], l1.w2[u + 1, c[f"b{dd}"]] = 1.0, -1.0
    # layer 2: m = mean z; MLP: od_d, cd_d
    l2 = empty_layer(d, mlp=2 * Dc)
    l2.wv[0, c["z"], 0] = 1.0
    l2.wo[0, 0, c["m"]] = 1.0
    for dd in range(1, Dc + 1):
        u = 2 * (dd - 1)
        l2.w1[c[f"b{dd}"], u], l2.w1[c[f"b{dd + 1}"], u], l2.w1[c["open"], u] = 1.0, -1.0, 1.0
        l2.b1[u] = -1.0
        l2.w2[u, c[f"od{dd}"]] = 1.0
        l2.w1[c[f"b{dd - 1}"], u + 1], l2.w1[c[f"b{dd}"], u + 1] = 1.0, -1.0
        l2.w1[c["open"], u + 1] = -1.0
        l2.w2[u + 1, c[f"cd{dd}"]] = 1.0
    # layer 3: matching head; MLP: mismatch flag
    l3 = empty_layer(d, dk=Dc + 1, dv=k, mlp=k)
    M = float(n + 1)
    for dd in range(1, Dc + 1):
        l3.wq[0, c[f"cd{dd}"], dd - 1] = M
        l3.wk[0, c[f"od{dd}"], dd - 1] = 1.0
    l3.wq[0, c["one"], Dc] = 1.0
    l3.wk[0, c["j"], Dc] = 1.0
    l3.beta[:] = math.log(4.0 * n * n) + 2.0
    for t in range(k):
        l3.wv[0, c[f"typ{t}"], t] = 1.0
        l3.wo[0, t, c[f"att{t}"]] = 1.0
        l3.w1[c[f"att{t}"], t], l3.w1[c[f"typ{t}"], t], l3.w1[c["open"], t] = 1.0, -1.0, -1.0
        l3.w2[t, c["mm"]] = 1.0
    # layer 4: mean mismatch
    l4 = empty_layer(d)
    l4.wv[0, c["mm"], 0] = 1.0
    l4.wo[0, 0, c["mmavg"]] = 1.0
    w_out = np.zeros((d, 1))
    w_out[c["absa"], 0] = -float(n)
    w_out[c["m"], 0] = -4.0 * n * n
    w_out[c["mmavg"], 0] = -2.0 * n
    weights = Weights(E, P, [l1, l2, l3, l4], w_out, np.ones(1), "last", tuple(ch))

    def spec(xs):
        # the task's stack automaton: depth h and the open types st[1..Dc], one step per
        # token (type t opens with id 2t, closes with id 2t + 1)
        h = z3.IntVal(0)
        st = [z3.IntVal(-1)] * (Dc + 1)
        conds = []
        for x in xs:
            opening = z3.Or(*[x == 2 * t for t in range(k)])
            typ = z3.IntVal(k - 1)
            for t in range(k - 2, -1, -1):
                typ = z3.If(z3.Or(x == 2 * t, x == 2 * t + 1), t, typ)
            top = z3.IntVal(-1)
            for dd in range(1, Dc + 1):
                top = z3.If(h == dd, st[dd], top)
            conds.append(z3.If(opening, h + 1 <= Dc, z3.And(h >= 1, top == typ)))
            st = [st[0]] + [z3.If(z3.And(opening, h + 1 == dd), typ, st[dd])
                            for dd in range(1, Dc + 1)]
            h = z3.If(opening, h + 1, h - 1)
        return z3.And(*conds, h == 0)

    return Construction(
        name="dyck_bounded_k", task=task, weights=weights,
        summary=f"Dyck-{k} with depth <= {task.D}: counting (layers 1-2), exact depth "
                "one-hots, a matching head to each closing bracket's partner (layer 3), "
                "the mean type mismatch (layer 4)",
        temperature="uniform heads except the matching head: beta_3 = ln(4n^2) + 2",
        margin_formula="1 - 2n(n-1)e^(-beta_3) >= 1 - 1/(2e^2) (about 0.93)",
        hard_margin=Fraction(1), gaps=[None, None, Fraction(1), None], spec=spec,
        source="Yao, Peng, Papadimitriou, Narasimhan (ACL 2021): depth + matching attention",
        notes=["z3: uniform and peaked layers mixed, MLPs between them: proved by "
               "solver_mixed (linearised scores, gap, softmax bound), lengths <= 16"])
