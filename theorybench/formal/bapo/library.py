"""A library of BAPO protocols for the task families (all vectorized, any n).

Constant bandwidth (BAPO-easy; Schnabel et al., NeurIPS 2025, arXiv 2505.08140):

* parity, all, any, sparse_* - (1, 0): f sends the XOR / AND / OR of the relevant prefix
  bits (a regular language with |Q| states has a (ceil(log2 |Q|), 0)-BAPO, a result of
  the paper, cited: here |Q| = 2); sparse_* also (0, k) by attending to the k hidden positions;
* index - (0, 1): g selects the queried position (the paper's Index protocol);
  index_* with k queries - (1, k): g selects the positions named by the queries in the
  suffix, f folds the queries that fall into the prefix (splits inside the query block);
* edge_exists - (0, 1): g selects the listed edges equal to the query edge token;
* khop (fixed alphabet, k hops) - (ceil(log2 A) + A k ceil(log2(A+1)), 0): f sends where
  a chase entering the prefix ends, per symbol and remaining hops (:mod:`.khop`); constant
  in n only because the alphabet is fixed - the paper notes (cited) that
  multi-hop induction heads appears BAPO-Sigma-hard (bandwidth growing with |Sigma|);
* dyck_bounded - (ceil(log2 |Q|), 0) by the state of its stack automaton, and by the
  minimal DFA learned and checked by :mod:`theorybench.formal.automata`
  (:func:`.sequential.automaton_protocol`, the paper's regular-language protocol).

Growing bandwidth (the best protocols known here):

* majority - (ceil(log2 n), 0): f sends the prefix count of ones (0..k with k <= n-1, so
  n values; the paper's tight upper bound for Majority, cited);
* dyck - f sends the prefix's stack of open types (:func:`.sequential.stack_protocol`):
  log n bits for one type, linear for more;
* binary_add, reach_* - the trivial (0, L-1) protocol (:func:`trivial_protocol`: attend
  to the whole prefix);
* every other function at small n - :func:`row_class_protocol`, the exact optimal
  (a, 0) protocol: f sends the index of the prefix's row class of the communication
  matrix (``communication.class_ids_by_split``), h looks the answer up. It is built
  from enumeration, so only for small n; its a is the exact b = 0 bandwidth.
"""

from __future__ import annotations

import numpy as np

from ...registry import artifact_library
from ..automata import learn_dfa
from ..communication import bits as log2_bits
from ..communication import class_ids_by_split, evaluate_all
from ..mpc.dyck import dyck_automaton
from .khop import khop_protocol
from .protocol import Protocol, attend_none, no_bits
from .sequential import automaton_protocol, stack_protocol

_IDENTITY = {"all": 1, "any": 0, "parity": 0}


def _fold(op: str, vals: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """op over the entries of ``vals`` (B, m) where ``mask`` is set (identity if none)."""
    vals = np.asarray(vals, dtype=np.int64)
    if op == "all":
        return np.all((vals == 1) | ~mask, axis=1).astype(np.int64)
    if op == "any":
        return np.any((vals == 1) & mask, axis=1).astype(np.int64)
    return (np.sum((vals == 1) & mask, axis=1) % 2).astype(np.int64)


def _join(op: str, *parts: np.ndarray) -> np.ndarray:
    out = parts[0]
    for p in parts[1:]:
        out = (out & p) if op == "all" else (out | p) if op == "any" else (out ^ p)
    return out


def fold_protocol(op: str, support: tuple[int, ...], L: int, name: str) -> Protocol:
    """(1, 0): f sends op of the prefix bits in ``support``; h folds in the suffix's."""
    sup = np.zeros(L, dtype=bool)
    sup[list(support)] = True

    def f(prefix):
        k = prefix.shape[1]
        return _fold(op, prefix, np.broadcast_to(sup[:k], prefix.shape))[:, None]

    def h(bits, gt, gp, suffix, k):
        rest = _fold(op, suffix, np.broadcast_to(sup[k:], suffix.shape))
        return _join(op, bits[:, 0].astype(np.int64), rest)

    return Protocol(name, 1, 0, f=f, h=h,
                    description=f"f sends the {op} of the relevant prefix bits (1 bit)")


def attend_support_protocol(op: str, support: tuple[int, ...], L: int, name: str) -> Protocol:
    """(0, |support|): g selects the relevant positions, h folds them with the suffix's."""
    sup = np.zeros(L, dtype=bool)
    sup[list(support)] = True
    b = len(support)

    def g(suffix, k, token, pos):
        return sup[pos]

    def h(bits, gt, gp, suffix, k):
        got = _fold(op, gt, gp >= 0)
        return _join(op, got, _fold(op, suffix, np.broadcast_to(sup[k:], suffix.shape)))

    return Protocol(name, 0, b, g=g, h=h,
                    description=f"g selects the {b} relevant positions (no prefix bits)")


def majority_protocol(n: int) -> Protocol:
    """(ceil(log2 n), 0): f sends the number of ones in the prefix (the paper's Majority protocol).

    Splits are k = 1..n-1, so the count takes one of the n values 0..n-1.
    """
    a = log2_bits(n)

    def f(prefix):
        c = prefix.sum(axis=1).astype(np.int64)
        return (c[:, None] >> np.arange(a)[None, :]) & 1

    def h(bits, gt, gp, suffix, k):
        c = (bits.astype(np.int64) << np.arange(a)[None, :]).sum(axis=1)
        return (2 * (c + suffix.sum(axis=1)) > n).astype(np.int64)

    return Protocol("majority-count", a, 0, f=f, h=h,
                    description=f"f sends the prefix count of ones ({a} bits = ceil(log2 n))")


def query_protocol(task) -> Protocol:
    """index / index_* : attend to the queried data bits named in the suffix.

    tokens mode: x_1..x_n then kq query tokens ("q<j>" has id j+1). mask mode: x then y.
    f folds the queried bits whose query lies in the prefix (1 bit, only needed when a
    split can fall inside the query block, i.e. kq > 1 or mask mode).
    """
    n, op = task.n, task.op
    kq = int(getattr(task, "k", 1))
    mask_mode = getattr(task, "mode", "tokens") == "mask"
    L = task.input_length()
    a = 1 if (kq > 1 or mask_mode) else 0

    def prefix_queried(prefix):
        """(B, min(k,n)) mask of prefix data bits queried by prefix queries."""
        k = prefix.shape[1]
        d = min(k, n)
        m = np.zeros((len(prefix), d), dtype=bool)
        if k > n:
            if mask_mode:
                m[:, : k - n] = prefix[:, n:k] == 1
            else:
                qpos = prefix[:, n:k] - 2
                m = np.any(qpos[:, :, None] == np.arange(d)[None, None, :], axis=1)
        return m

    def suffix_queried(suffix, k):
        """(B, n) mask of data positions queried by suffix queries."""
        B = len(suffix)
        m = np.zeros((B, n), dtype=bool)
        start = max(0, n - k)  # first query column inside the suffix
        if mask_mode:
            lo = max(0, k - n)  # y index of the first suffix y
            m[:, lo:] = suffix[:, start:] == 1
        else:
            qpos = suffix[:, start:] - 2
            m = np.any(qpos[:, :, None] == np.arange(n)[None, None, :], axis=1)
        return m

    def f(prefix):
        if a == 0:
            return no_bits(prefix)
        k = prefix.shape[1]
        d = min(k, n)
        return _fold(op, prefix[:, :d], prefix_queried(prefix))[:, None]

    def g(suffix, k, token, pos):
        m = suffix_queried(suffix, k)
        return (pos < n) & m[np.arange(len(pos)), np.minimum(pos, n - 1)]

    def h(bits, gt, gp, suffix, k):
        B = len(suffix)
        parts = [_fold(op, gt, gp >= 0)]
        if a:
            parts.append(bits[:, 0].astype(np.int64))
        if k < n:  # data bits k..n-1 sit in the suffix
            m = suffix_queried(suffix, k)[:, k:]
            parts.append(_fold(op, suffix[:, : n - k], m))
        return _join(op, *parts) if len(parts) > 1 else parts[0].reshape(B)

    return Protocol(f"{task.name}-attend", a, kq, f=f, g=g if kq else attend_none, h=h,
                    description=f"g selects the {kq} queried bit(s) named in the suffix"
                                + ("; f folds queries inside the prefix (1 bit)" if a else ""))


def edge_exists_protocol(task) -> Protocol:
    """(0, 1): g selects prefix edge tokens equal to the query edge (the last token).

    Any arriving token equals the query, so the adversary's choice does not matter.
    """
    qsep = task.index["?"]

    def g(suffix, k, token, pos):
        return (token == suffix[:, -1]) & (token != qsep)

    def h(bits, gt, gp, suffix, k):
        seen = gp[:, 0] >= 0
        edges = suffix[:, :-1]
        in_suffix = np.any((edges == suffix[:, -1:]) & (edges != qsep), axis=1)
        return (seen | in_suffix).astype(np.int64)

    return Protocol("edge_exists-attend", 0, 1, g=g, h=h,
                    description="g selects the listed edge tokens equal to the query")


def row_class_protocol(df, limit: int = 1 << 20) -> Protocol:
    """The exact optimal (a, 0)-BAPO at this n: f sends the prefix's row class.

    a = max over splits of ceil(log2 distinct rows) (the b = 0 bandwidth). Needs the whole
    input space (``limit``); invalid inputs are 'don't care'.
    """
    radices = [len(c) for c in df.choices]
    values = evaluate_all(df, limit)
    table = class_ids_by_split(values, radices)
    L = len(radices)
    vocab = max(max(c) for c in df.choices) + 1
    tok2idx = np.full((L, vocab), 0, dtype=np.int64)
    for i, c in enumerate(df.choices):
        tok2idx[i, list(c)] = np.arange(len(c))
    a = max((log2_bits(int(table[k][0].max()) + 1) for k in range(1, L)), default=0)

    def ids(x, lo):
        out = np.zeros(len(x), dtype=np.int64)
        for c in range(x.shape[1]):
            out = out * radices[lo + c] + tok2idx[lo + c, x[:, c]]
        return out

    reps = {}
    for k in range(1, L):
        cls = table[k][0]
        rep = np.zeros(int(cls.max()) + 1, dtype=np.int64)
        rep[cls[::-1]] = np.arange(len(cls))[::-1]  # first prefix of each class
        reps[k] = rep
    S = {k: int(np.prod(radices[k:])) for k in range(1, L)}

    def f(prefix):
        c = table[prefix.shape[1]][0][ids(prefix, 0)]
        return (c[:, None] >> np.arange(a)[None, :]) & 1

    def h(bits, gt, gp, suffix, k):
        c = (bits.astype(np.int64) << np.arange(a)[None, :]).sum(axis=1)
        c = np.minimum(c, len(reps[k]) - 1)
        v = values[reps[k][c] * S[k] + ids(suffix, k)]
        return np.maximum(v, 0)

    return Protocol("row-class", a, 0, f=f, h=h,
                    description="f sends the prefix's class of the communication matrix "
                                "(exact optimal b=0 protocol at this n)")


def trivial_protocol(df) -> Protocol:
    """(0, L-1): g selects every prefix token, h rebuilds the input and evaluates it.

    The paper's trivial upper bound (Schnabel et al., after their definition: any
    problem has a (0, n)-BAPO; cited). With b = L-1 >= k no adversary can withhold a
    token, so h sees the whole input. The best protocol known here for families with no
    other (reachability - the paper's lower bound leaves the gap to it open - and binary_add).
    """
    L = df.length

    def g(suffix, k, token, pos):
        return np.ones(len(token), dtype=bool)

    def h(bits, gt, gp, suffix, k):
        x = np.empty((len(suffix), L), dtype=np.int64)
        order = np.argsort(gp[:, :k], axis=1)  # G arrives sorted; stay safe
        x[:, :k] = np.take_along_axis(gt[:, :k], order, axis=1)
        x[:, k:] = suffix
        return np.asarray(df.evaluate(x), dtype=np.int64).reshape(-1)

    return Protocol("attend-all", 0, L - 1, g=g, h=h,
                    description="g selects every prefix token (the trivial (0, n)-BAPO)")


#: BAPO protocol makers per task family (the registry idiom of :mod:`theorybench.registry`):
#: each is ``make(df) -> list[Protocol]`` for the task's main decision function ``df``.
PROTOCOLS = artifact_library("BAPO protocol", column="BAPO")


@PROTOCOLS.provides("parity", "all", "any")
def _fold_all(df) -> list[Protocol]:
    name = df.task.name
    return [fold_protocol(name, tuple(range(df.length)), df.length, f"{name}-fold")]


@PROTOCOLS.provides("sparse_all", "sparse_any", "sparse_parity")
def _sparse(df) -> list[Protocol]:
    task, L = df.task, df.length
    sup = tuple(task.support)
    return [fold_protocol(task.op, sup, L, f"{task.name}-fold"),
            attend_support_protocol(task.op, sup, L, f"{task.name}-attend")]


@PROTOCOLS.provides("index", "index_all", "index_any", "index_parity")
def _query(df) -> list[Protocol]:
    return [query_protocol(df.task)]


@PROTOCOLS.provides("edge_exists")
def _edge(df) -> list[Protocol]:
    return [edge_exists_protocol(df.task)]


@PROTOCOLS.provides("majority")
def _majority(df) -> list[Protocol]:
    return [majority_protocol(df.task.n)]


@PROTOCOLS.provides("khop")
def _khop(df) -> list[Protocol]:
    return [khop_protocol(df.length, df.task.k, df.task.alphabet)]


@PROTOCOLS.provides("dyck")
def _dyck(df) -> list[Protocol]:
    return [stack_protocol(df.length, df.task.k)]


@PROTOCOLS.provides("dyck_bounded")
def _dyck_bounded(df) -> list[Protocol]:
    return _dyck_bounded_protocols(df.task)


@PROTOCOLS.provides("binary_add", "reach_directed", "reach_undirected")
def _trivial(df) -> list[Protocol]:
    return [trivial_protocol(df)]


def protocols_for(df) -> list[Protocol]:
    """Library protocols for a task's main decision function, best (smallest a+b) first."""
    out: list[Protocol] = []
    if getattr(df.task, "name", ""):
        for _origin, make in PROTOCOLS.for_task(df.task):
            out.extend(make(df))
    out.sort(key=lambda p: (p.a + p.b, p.b))
    return out


def _dyck_bounded_protocols(task) -> list[Protocol]:
    """The stack automaton's protocol, and the learned minimal DFA's when learning works."""
    delta, start, accept = dyck_automaton(task.k, task.D)
    out = [automaton_protocol(delta, start, accept, np.arange(2 * task.k), "stack-automaton",
                              f"stack automaton of Dyck-{task.k}, depth <= {task.D}")]
    try:
        res = learn_dfa(task.name, {"k": task.k, "D": task.D})
        if res.status == "regular" and res.dfa is not None:
            dfa = res.dfa
            letter = {c: i for i, c in enumerate(dfa.alphabet)}
            lot = np.array([letter.get(v, 0) for v in task.vocab], dtype=np.int64)
            out.append(automaton_protocol(dfa.delta, dfa.start, dfa.output, lot,
                                          "learned-dfa", f"minimal DFA learned from the "
                                          f"reference ({res.reason})"))
    except Exception:  # noqa: BLE001 - an extra protocol; the stack automaton stands alone
        pass
    return out


__all__ = ["PROTOCOLS", "protocols_for", "row_class_protocol", "fold_protocol",
           "attend_support_protocol", "majority_protocol", "query_protocol", "trivial_protocol"]
