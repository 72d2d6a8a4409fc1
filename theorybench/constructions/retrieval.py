"""Constructions by peaked attention (retrieval): Index, the 1-hop induction head and
binary-key retrieval (kv_retrieval).

Both retrieve a position by quadratic maximisation: a query that wants position t scores
key j by 2 t j - j^2 = t^2 - (j - t)^2 (+ a constant the softmax ignores), so the wanted
key beats every other by (j - t)^2 >= 1: a score gap of 1 before the inverse temperature
beta. With gap g and at most L keys the softmax puts mass at most (L - 1) e^(-beta g) off
the argmax; beta(n) is chosen so that this error, propagated to the logits, stays below
the hard model's margin (the verifier computes the bound from the weights; the formulas
below are the design targets).
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


def index(task: Task) -> Construction:
    """Index (``index``, token encoding): x_1..x_n then a query token "q<t>" (id t + 1).

    One layer, one head. The query token carries t, every position j carries j and j^2;
    the last position scores key j by beta (2 t j - j^2) and reads the bit there (the
    query's own position has bit 0 and loses by (n + 1 - t)^2 >= 1). Logit = bit - 1/2:
    hard margin 1/2. beta = ln(2n) + 2 puts mass <= n e^(-beta) = 1/(2 e^2) < 0.07 off
    the queried bit. Width 6. Retrieval by position as in the BAPO/communication account
    of Index (Schnabel et al., NeurIPS 2025); quadratic scores as in Sanford, Hsu,
    Telgarsky (ICML 2024) positional retrieval.
    """
    import z3
    n = task.n
    if task.mode != "tokens" or task.k != 1:
        raise TaskParameterError(
            f"the index construction takes the token encoding with one query "
            f"(index, mode=tokens); got mode={task.mode}, k={task.k}")
    ch = ("bit", "t", "one", "j", "j2", "read")
    c = _index(ch)
    d, V, L = len(ch), n + 2, n + 1
    E = np.zeros((V, d))
    E[1, c["bit"]] = 1.0
    E[2:, c["t"]] = np.arange(1, n + 1)
    P = np.zeros((L, d))
    pos = np.arange(1, L + 1, dtype=np.float64)
    P[:, c["one"]], P[:, c["j"]], P[:, c["j2"]] = 1.0, pos, pos * pos
    layer = empty_layer(d, dk=2)
    layer.wq[0, c["t"], 0] = 2.0
    layer.wq[0, c["one"], 1] = -1.0
    layer.wk[0, c["j"], 0] = 1.0
    layer.wk[0, c["j2"], 1] = 1.0
    layer.wv[0, c["bit"], 0] = 1.0
    layer.wo[0, 0, c["read"]] = 1.0
    layer.beta[:] = math.log(2 * n) + 2.0
    w_out = np.zeros((d, 1))
    w_out[c["read"], 0] = 1.0
    weights = Weights(E, P, [layer], w_out, np.array([-0.5]), "last", ch)

    def spec(xs):
        q = xs[n]
        return z3.Sum([z3.If(q == t + 2, xs[t], 0) for t in range(n)]) == 1

    return Construction(
        name="index", task=task, weights=weights,
        summary="one head at the last position: score 2tj - j^2 peaks at the queried j; "
                "logit = bit - 1/2",
        temperature="beta = ln(2n) + 2", margin_formula="1/2 - n e^(-beta) = 1/2 - 1/(2e^2)",
        hard_margin=Fraction(1, 2), gaps=[Fraction(1)], spec=spec,
        source="quadratic-maximisation retrieval (Sanford, Hsu, Telgarsky, ICML 2024)")


def induction(task: Task) -> Construction:
    """1-hop induction head (``khop`` with k = 1): at every position i, the symbol after
    the latest earlier occurrence of X_i, or "_" when there is none.

    Channels: tok (one-hot X_i), prev (one-hot X_(i-1), written by layer 1), att (written
    by layer 2), positions j, j^2, a constant and first = [i = 1]. Width 3|Sigma| + 4.

    1. Previous-token head: query i scores key j by 2 (i - 1) j - j^2 (peak at j = i - 1,
       gap 1; position 1 only sees itself), copies tok into prev.
    2. Matching head: query i scores key j by M [prev_j = X_i] - M first_j + j with M = n:
       a key whose previous token is X_i beats every non-match, the latest match beats
       earlier ones, and with no match the latest key, i itself, wins; every gap >= 1.
       It copies tok_j into att.
    Readout: logit_a = att_a - tok_a, logit_"_" = 1/2. A match at j gives X_j != X_i (no
    immediate repeats), so logit X_j = 1; with no match att = tok and "_" wins. Hard
    margin 1/2. beta_1 = ln(8n^2 + 4n) + 2 keeps the copied prev within about 1/(8n) of
    one-hot so the matching scores move by less than 1/4; beta_2 = 2 ln(16n) + 2.
    Elhage et al. (2021), Olsson et al. (2022); Sanford, Hsu, Telgarsky (ICML 2024, Sec. 4).
    """
    import z3
    n, A = task.n, task.alphabet
    if task.k != 1:
        raise TaskParameterError(
            f"the induction-head construction is 1-hop (khop:k=1); k={task.k} needs "
            f"log2(k)+2 layers (Sanford, Hsu, Telgarsky), not built")
    ch = (tuple(f"tok{a}" for a in range(A)) + tuple(f"prev{a}" for a in range(A))
          + tuple(f"att{a}" for a in range(A)) + ("one", "j", "j2", "first"))
    c = _index(ch)
    d, M = len(ch), float(n)
    E = np.zeros((A, d))
    for a in range(A):
        E[a, c[f"tok{a}"]] = 1.0
    P = np.zeros((n, d))
    pos = np.arange(1, n + 1, dtype=np.float64)
    P[:, c["one"]], P[:, c["j"]], P[:, c["j2"]] = 1.0, pos, pos * pos
    P[0, c["first"]] = 1.0
    l1 = empty_layer(d, dk=2, dv=A)
    l1.wq[0, c["j"], 0], l1.wq[0, c["one"], 0] = 2.0, -2.0
    l1.wq[0, c["one"], 1] = -1.0
    l1.wk[0, c["j"], 0] = 1.0
    l1.wk[0, c["j2"], 1] = 1.0
    l2 = empty_layer(d, dk=A + 2, dv=A)
    for a in range(A):
        l1.wv[0, c[f"tok{a}"], a] = 1.0
        l1.wo[0, a, c[f"prev{a}"]] = 1.0
        l2.wq[0, c[f"tok{a}"], a] = M
        l2.wk[0, c[f"prev{a}"], a] = 1.0
        l2.wv[0, c[f"tok{a}"], a] = 1.0
        l2.wo[0, a, c[f"att{a}"]] = 1.0
    l2.wq[0, c["one"], A] = -M
    l2.wk[0, c["first"], A] = 1.0
    l2.wq[0, c["one"], A + 1] = 1.0
    l2.wk[0, c["j"], A + 1] = 1.0
    l1.beta[:] = math.log(8 * n * n + 4 * n) + 2.0
    l2.beta[:] = 2 * math.log(16 * n) + 2.0
    w_out = np.zeros((d, A + 1))
    for a in range(A):
        w_out[c[f"att{a}"], a] = 1.0
        w_out[c[f"tok{a}"], a] = -1.0
    b_out = np.zeros(A + 1)
    b_out[A] = 0.5
    weights = Weights(E, P, [l1, l2], w_out, b_out, "all", ch)

    def spec(xs):
        out = []
        for i in range(n):          # 0-based i; find: latest p < i - 0 with X_p = X_i
            y = z3.IntVal(A)
            for p in range(0, i - 1):      # p + 1 <= i - 1 (p + 1 = i would repeat X_i)
                y = z3.If(xs[p] == xs[i], xs[p + 1], y)
            out.append(y)
        return out

    def valid(xs):
        return z3.And(*[xs[i] != xs[i - 1] for i in range(1, n)]) if n > 1 else z3.BoolVal(True)

    return Construction(
        name="induction", task=task, weights=weights,
        summary="previous-token head (peak at i-1) then matching head (latest j with "
                "prev_j = X_i); logit att - tok, '_' at 1/2",
        temperature="beta_1 = ln(8n^2 + 4n) + 2, beta_2 = 2 ln(16n) + 2",
        margin_formula="1/2 minus the propagated softmax error (certified per n)",
        hard_margin=Fraction(1, 2), gaps=[Fraction(1), Fraction(1)], spec=spec, valid=valid,
        source="Elhage et al. (2021); Olsson et al. (2022); Sanford, Hsu, Telgarsky (ICML 2024)")


def kv_retrieval(task: Task) -> Construction:
    """Binary-key retrieval (``kv_retrieval``): n pairs "k_b v_b" of m key bits and a
    value bit, then the m query bits; the label is the value under the query key.

    Two layers, width m + 7 (linear in the key length m, whatever n <= 2^m):
    channels pm (the token as -1/+1), one, j, j^2, last = [i = L], isval = [i is a value
    position], key_1..key_m (written by layer 1) and read (written by layer 2).

    1. m positional heads. Head r at position i scores key j by 2 t j - j^2 with
       t = i - (m + 1) + r + last: at a value position it peaks at the r-th bit of that
       pair's key, at the last position at the r-th query bit (gap (j - t)^2 >= 1). It
       copies pm there into key_r, so every value position holds its key and the last
       position the query as +-1 vectors.
    2. One matching head at the last position: score(j) = key(L) . key(j) + 2m isval_j.
       The matching value position scores m + 2m = 3m, another value position at most
       3m - 2 (one differing bit costs 2), any other position at most m <= 3m - 2: gap 2.
       It copies pm of the matched value position into read.
    Readout: logit = read (= +1 for value 1, -1 for value 0): hard margin 1.
    Temperatures: beta_1 = ln(8 m (L - 1)) + 2 puts mass <= 1/(8 m e^2) off each bit, so
    each key_r is within 1/(4 m e^2) of +-1 and the matching scores move by about
    1/(2 e^2) < 0.07 (the gap stays above 1.8); beta_2 = ln(4 (L - 1)) + 2 then leaves
    mass <= (L - 1) e^(-1.8 beta_2) < 0.01 off the match. The verifier recomputes these
    bounds from the weights (solver.prove_peaked).
    Key-query matching by dot products of +-1 codes as in associative recall with
    attention (Ba et al., NeurIPS 2016); positional gathering by quadratic scores as in
    :func:`index`.
    """
    import z3
    n, m = task.n, _kv_layout(task)
    B, L = m + 1, task.input_length()
    ch = ("pm", "one", "j", "j2", "last", "isval") + tuple(f"key{r}" for r in range(1, m + 1)) \
        + ("read",)
    c = _index(ch)
    d = len(ch)
    E = np.zeros((2, d))
    E[0, c["pm"]], E[1, c["pm"]] = -1.0, 1.0
    P = np.zeros((L, d))
    pos = np.arange(1, L + 1, dtype=np.float64)
    P[:, c["one"]], P[:, c["j"]], P[:, c["j2"]] = 1.0, pos, pos * pos
    P[L - 1, c["last"]] = 1.0
    P[np.arange(n) * B + m, c["isval"]] = 1.0
    l1 = empty_layer(d, heads=m, dk=2, dv=1)
    for h in range(m):
        r = h + 1
        l1.wq[h, c["j"], 0] = 2.0
        l1.wq[h, c["one"], 0] = -2.0 * (m + 1 - r)
        l1.wq[h, c["last"], 0] = 2.0
        l1.wq[h, c["one"], 1] = -1.0
        l1.wk[h, c["j"], 0] = 1.0
        l1.wk[h, c["j2"], 1] = 1.0
        l1.wv[h, c["pm"], 0] = 1.0
        l1.wo[h, 0, c[f"key{r}"]] = 1.0
    l1.beta[:] = math.log(8 * m * max(L - 1, 1)) + 2.0
    l2 = empty_layer(d, heads=1, dk=m + 1, dv=1)
    for h in range(m):
        l2.wq[0, c[f"key{h + 1}"], h] = 1.0
        l2.wk[0, c[f"key{h + 1}"], h] = 1.0
    l2.wq[0, c["one"], m] = 2.0 * m
    l2.wk[0, c["isval"], m] = 1.0
    l2.wv[0, c["pm"], 0] = 1.0
    l2.wo[0, 0, c["read"]] = 1.0
    l2.beta[:] = math.log(4 * max(L - 1, 1)) + 2.0
    w_out = np.zeros((d, 1))
    w_out[c["read"], 0] = 1.0
    weights = Weights(E, P, [l1, l2], w_out, np.zeros(1), "last", ch)

    return Construction(
        name="kv_retrieval", task=task, weights=weights,
        summary="m positional heads gather each pair's key (and the query) as +-1 codes at "
                "one position; one head matches query . key + 2m [value position] (gap 2); "
                "logit = the matched value as +-1",
        temperature="beta_1 = ln(8 m (L - 1)) + 2, beta_2 = ln(4 (L - 1)) + 2, "
                    "L = n (m + 1) + m",
        margin_formula="1 minus the propagated softmax error (certified per n, m)",
        hard_margin=Fraction(1), gaps=[Fraction(1), Fraction(2)],
        spec=lambda xs: kv_spec(xs, n, m), valid=lambda xs: kv_valid(xs, n, m),
        source="+-1 key codes matched by dot product (associative recall, Ba et al., "
               "NeurIPS 2016); quadratic positional scores (Sanford, Hsu, Telgarsky, "
               "ICML 2024)",
        notes=[f"width {d} = m + 7 with m = {m}; it does not depend on n"])


def _kv_layout(task: Task) -> int:
    """The key length m of a task laid out as kv_retrieval declares it (binary tokens, n
    blocks of m key bits and a value bit, then m query bits), read from what the task
    declares rather than its name. Whether the task's label is the lookup is left to the
    numerical checks of the built model against the task's label (constructions.check),
    which every use of a construction as evidence runs."""
    m = getattr(task, "key_bits", None)
    vocab = tuple(getattr(task, "vocab", ()))
    try:
        length = int(task.input_length())
    except (TypeError, ValueError, AttributeError, NotImplementedError):
        length = None
    if not isinstance(m, int) or isinstance(m, bool) or m < 0 or \
            getattr(task, "block", None) != m + 1 or vocab != ("0", "1") or \
            length != task.n * (m + 1) + m:
        raise TaskParameterError(
            f"the kv_retrieval construction takes a task laid out as kv_retrieval: tokens "
            f"0/1, n pairs of key_bits key bits and a value bit, then key_bits query bits "
            f"(attributes key_bits and block = key_bits + 1); {task.name} is not")
    return m


def _kv_parts(xs, n: int, m: int):
    B = m + 1
    keys = [[xs[b * B + r] for r in range(m)] for b in range(n)]
    values = [xs[b * B + m] for b in range(n)]
    query = [xs[n * B + r] for r in range(m)]
    return keys, values, query


def kv_spec(xs, n: int, m: int):
    """z3: the kv_retrieval label is 1 (the value of a pair whose key equals the query),
    written from the definition over the token variables (one Int per position)."""
    import z3
    keys, values, query = _kv_parts(xs, n, m)
    return z3.Or(*[z3.And(*[k == q for k, q in zip(key, query)], v == 1)
                   for key, v in zip(keys, values)])


def kv_valid(xs, n: int, m: int):
    """z3: the n keys are pairwise distinct and the query equals one of them."""
    import z3
    keys, _, query = _kv_parts(xs, n, m)
    distinct = [z3.Or(*[a != b for a, b in zip(keys[i], keys[j])])
                for i in range(n) for j in range(i + 1, n)]
    present = z3.Or(*[z3.And(*[k == q for k, q in zip(key, query)]) for key in keys])
    return z3.And(*distinct, present)
