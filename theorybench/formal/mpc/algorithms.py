"""MPC programs for the task families, run in the simulator on real instances.

Every program has the signature ``program(net, task)``: it gets the network handle and the
task's public parameters (n, k, the vocabulary, the sparse support...), never the input.
Machine m starts with its block of b input words (positions m*b .. m*b + b - 1; a machine
knows its id, so positions are implicit) and all further data travel in messages; every
round function computes each machine's result from that machine's memory and inbox only
(checked by ``MPC.run(strict=True)``). Round counts are the simulator's, not formulas.
With fan-in F = s / w a tree over the machines has depth ceil(log_F M) ~ 1/delta - 1:

* tree aggregation (all, any, parity, majority, sparse_*): O(1/delta) rounds;
* direct lookups (index family: request + reply, then the answers meet on machine 0;
  edge_exists: broadcast the query edge, every machine checks its edges, OR-fold):
  O(1/delta);
* carry of binary_add: b_i is sent to a_i's machine, then a max-fold over the positions
  that do not propagate a carry: O(1/delta);
* khop (last position): k hops, each a broadcast of (position, symbol) and a max-fold of
  the latest match: O(k/delta);
* dyck / dyck_bounded (:mod:`.dyck`): depth fold or scan plus block-summary matching, and
  the stack automaton's transition functions composed up a tree: O(1/delta);
* reach_* by label propagation (requests for the endpoint states, replies, updates to the
  node machines, a fold of the "changed" flags): a constant number of rounds per iteration
  and as many iterations as the graph needs - rounds grow with n on the path instances.

:func:`measure` runs a batch of sampled instances and compares every output with the task's
reference; a few of them (``strict``) are run with every machine also recomputed alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...errors import ResourceLimitError, TaskParameterError
from ...registry import BUILTIN, artifact_library
from .dyck import automaton_fold, automaton_limit, dyck_program, match_limit
from .scan import broadcast, put, tree_fold
from .simulator import FILL, MPC, Network, RunResult, Step

_OPS = {"sum": (np.add, 0), "and": (np.minimum, 1), "or": (np.maximum, 0),
        "xor": (lambda a, b: (a + b) % 2, 0), "max": (np.maximum, -1)}


def _fold(net: Network, col: int, op: str, what: str) -> None:
    combine, ident = _OPS[op]
    tree_fold(net, col, 1, combine, [ident], what)


def _positions(net: Network, ids: np.ndarray) -> np.ndarray:
    """Global positions of a machine's memory words 0 .. b-1 (..., b)."""
    return ids[..., None] * net.block + np.arange(net.block)


def _answer(ids: np.ndarray, mem: np.ndarray, value: np.ndarray) -> Step:
    """The output in word 0 of machine 0 (one word kept per machine)."""
    return Step(np.asarray(value, dtype=np.int64).reshape(mem.shape[:-1] + (1,)))


# ------------------------------------------------------------------ per family
def aggregate(net: Network, task) -> None:
    """sparse_*: the task's declared ``op`` of its support bits, tree-folded."""
    _aggregate(net, task, getattr(task, "op", None))


def _aggregate(net: Network, task, op: str | None) -> None:
    """all / any / parity / majority / sparse_*: one value per machine, tree-folded.

    ``op`` ("sum": majority; "all", "any", "parity") is fixed where the algorithm is
    registered (:func:`_aggregate_with`), or read from the task's declared ``op`` (the
    sparse tasks): never from the task's name."""
    N, b = net.N, net.block
    sup = np.zeros(N + b, dtype=bool)
    sup[list(getattr(task, "support", range(N)))] = True
    if op not in ("sum", "all", "any", "parity"):
        raise TaskParameterError(f"tree aggregation needs an operation (sum, all, any or "
                                 f"parity); {getattr(task, 'name', task)} declares {op!r}")

    def local(ids, mem, inbox):
        tok = mem[..., :b]
        live = tok != FILL
        bit = np.where(live, tok, 0)
        ins = live & sup[_positions(net, ids)]
        if op == "sum":
            v = bit.sum(axis=-1)
        elif op == "all":
            v = np.all(~ins | (bit == 1), axis=-1)
        elif op == "any":
            v = np.any(ins & (bit == 1), axis=-1)
        else:
            v = (bit * ins).sum(axis=-1) % 2
        return Step(v.astype(np.int64)[..., None])

    net.round(local, "local aggregate")
    fold_op = {"sum": "sum", "all": "and", "any": "or", "parity": "xor"}[op]
    _fold(net, 0, fold_op, "aggregate fold")
    if op == "sum":
        net.round(lambda ids, mem, inbox: _answer(ids, mem, 2 * mem[..., 0] > N), "majority")


def lookup(net: Network, task) -> None:
    """index / index_*: each query asks the machine holding its bit; answers go to machine 0."""
    n, b, op = task.n, net.block, task.op
    mask_mode = getattr(task, "mode", "tokens") == "mask"

    def request(ids, mem, inbox):
        pos, tok = _positions(net, ids), mem[..., :b]
        live = tok != FILL
        if mask_mode:
            q, target = live & (pos >= n) & (tok == 1), pos - n
        else:
            q, target = live & (pos >= n), tok - 2
        return Step(mem, np.where(q, target // b, -1), np.where(q, target, 0)[..., None])

    def reply(ids, mem, inbox):
        t = inbox.data[..., 0]                                  # requested positions
        local = np.where(inbox.valid, t - ids[..., None] * b, 0)
        bit = np.take_along_axis(mem[..., :b], local, axis=-1)
        return Step(mem[..., :0], np.where(inbox.valid, 0, -1), bit[..., None])

    def combine(ids, mem, inbox):
        got, ok = inbox.data[..., 0], inbox.valid
        if op == "all":
            v = np.all(~ok | (got == 1), axis=-1)
        elif op == "any":
            v = np.any(ok & (got == 1), axis=-1)
        else:
            v = np.where(ok, got, 0).sum(axis=-1) % 2
        return _answer(ids, mem, v)

    net.round(request, "requests")
    net.round(reply, "replies")
    net.round(combine, "combine on machine 0")


def edge_lookup(net: Network, task) -> None:
    """edge_exists: broadcast the query edge (the last token), every machine checks, OR-fold."""
    n, b, N = task.n, net.block, net.N
    root = (N - 1) // b

    def query(ids, mem, inbox):
        q = np.where(ids == root, mem[..., (N - 1) - root * b], FILL)
        return Step(put(mem, b, q[..., None]))

    def check(ids, mem, inbox):
        pos, tok = _positions(net, ids), mem[..., :b]
        hit = np.any((tok == mem[..., b:b + 1]) & (pos < n) & (tok != FILL), axis=-1)
        return Step(hit.astype(np.int64)[..., None])

    net.round(query, "query token")
    broadcast(net, root, b, 1, "broadcast the query")
    net.round(check, "local check")
    _fold(net, 0, "or", "OR fold")


def carry_out(net: Network, task) -> None:
    """binary_add carry-out: route b_i to a_i's machine, max-fold the top non-propagate."""
    n, b, N = task.n, net.block, net.N
    i = np.arange(n)
    if getattr(task, "layout", "msb") == "interleaved":
        a_pos, b_pos, weight = 2 * i, 2 * i + 1, i
    else:
        a_pos, b_pos, weight = i, n + 1 + i, n - 1 - i
    pair_of_b = np.full(N + b, -1, dtype=np.int64)
    pair_of_b[b_pos] = i

    def send(ids, mem, inbox):
        pos, tok = _positions(net, ids), mem[..., :b]
        pr = pair_of_b[pos]
        ok = (pr >= 0) & (tok != FILL)
        # one word per message: (pair index, bit) packed as 2 i + bit
        return Step(mem, np.where(ok, a_pos[np.maximum(pr, 0)] // b, -1),
                    np.where(ok, 2 * pr + tok, 0)[..., None])

    def local(ids, mem, inbox):
        w = inbox.data[..., 0]
        pr, bb = np.where(inbox.valid, w // 2, 0), w % 2
        a = np.take_along_axis(mem[..., :b], np.where(inbox.valid, a_pos[pr] - ids[..., None]
                                                       * b, 0), axis=-1)
        key = np.where(inbox.valid & (a == bb), weight[pr] * 2 + a, -1)
        top = key.max(axis=-1, initial=-1)
        return Step(top[..., None])

    net.round(send, "b bits to the a bits")
    net.round(local, "local carry keys")
    _fold(net, 0, "max", "max fold")
    net.round(lambda ids, mem, inbox: _answer(
        ids, mem, (mem[..., 0] >= 0) & ((mem[..., 0] & 1) == 1)), "carry")


def khop_last(net: Network, task) -> None:
    """hop_k at the last position: k rounds of (broadcast position and symbol, max-fold)."""
    N, b, A = net.N, net.block, task.alphabet
    bottom = task.no_hop_id
    P0, C, R = b, b + 1, b + 3            # prev of word 0; (cur pos, cur sym); fold record
    last = (N - 1) // b

    def shift(ids, mem, inbox):           # each machine passes its last token on
        lastpos = np.minimum(N - 1 - ids * b, b - 1)
        tok = np.take_along_axis(mem[..., :b], lastpos[..., None], axis=-1)
        dest = np.where(ids + 1 < net.M, ids + 1, -1)[..., None]
        return Step(mem, dest, tok[..., None])

    def start(ids, mem, inbox):
        if inbox.data.shape[-2]:
            prev = np.where(inbox.valid[..., 0], inbox.data[..., 0, 0], FILL)
        else:
            prev = np.full(ids.shape, FILL, dtype=np.int64)
        m = put(mem, P0, prev[..., None])
        cur = np.stack([np.full(ids.shape, N - 1), mem[..., (N - 1) - last * b]], axis=-1)
        m = put(m, C, np.where((ids == last)[..., None], cur, FILL))
        return Step(put(m, R, np.full(ids.shape + (1,), FILL)))

    def match(ids, mem, inbox):
        pos, tok = _positions(net, ids), mem[..., :b]
        prev = np.concatenate([mem[..., P0:P0 + 1], tok[..., :-1]], axis=-1)
        cur, sym = mem[..., C:C + 1], mem[..., C + 1:C + 2]
        ok = (tok != FILL) & (pos >= 1) & (pos <= cur) & (prev == sym) & (cur >= 0)
        key = np.where(ok, pos * A + tok, -1).max(axis=-1)
        return Step(put(mem, R, key[..., None]))

    def hop(ids, mem, inbox):             # machine 0: the new (position, symbol)
        key = mem[..., R]
        cur = np.stack([np.where(key >= 0, key // A, -1), np.where(key >= 0, key % A, -1)],
                       axis=-1)
        return Step(put(mem, C, cur, ids == 0))

    net.round(shift, "previous tokens")
    net.round(start, "start")
    root = last
    for h in range(task.k):
        broadcast(net, root, C, 2, f"hop {h + 1}: broadcast")
        net.round(match, f"hop {h + 1}: local matches")
        _fold(net, R, "max", f"hop {h + 1}: max fold")
        net.round(hop, f"hop {h + 1}: new position")
        root = 0
    net.round(lambda ids, mem, inbox: _answer(
        ids, mem, np.where(mem[..., C] >= 0, mem[..., C + 1], bottom)), "answer")


def _graph_tables(task):
    sep = ">" if task.directed else "-"
    ends = np.full((len(task.vocab), 2), -1, dtype=np.int64)
    node = np.full(len(task.vocab), -1, dtype=np.int64)
    for i, tok in enumerate(task.vocab):
        if sep in tok:
            u, v = tok.split(sep)
            ends[i] = (int(u[1:]) - 1, int(v[1:]) - 1)
        elif tok.startswith("v"):
            node[i] = int(tok[1:]) - 1
    return ends, node


#: The graph program gives the input a quarter of the memory (the node states need room).
GRAPH_SHARE = 0.25


def _row_unique(vals: np.ndarray) -> np.ndarray:
    """Per row (last axis): the distinct values >= 0, duplicates and negatives set to -1."""
    srt = np.sort(vals, axis=-1)
    dup = np.concatenate([np.zeros(srt.shape[:-1] + (1,), dtype=bool),
                          srt[..., 1:] == srt[..., :-1]], axis=-1)
    return np.where(dup | (srt < 0), -1, srt)


def _row_lookup(keys, vals, valid, query, span):
    """Per row: the value stored under each query key (-1 where none). keys/vals/valid
    (..., R), query (..., Q); keys and queries in 0 .. span-1 (row-local: every row is
    offset by its own index, so rows never meet)."""
    lead = keys.shape[:-1]
    rows = np.arange(int(np.prod(lead))).reshape(lead)
    k = np.where(valid, rows[..., None] * span + keys, -1).reshape(-1)
    v = vals.reshape(-1)
    order = np.argsort(k, kind="stable")
    ks, vs = k[order], v[order]
    q = np.where(query >= 0, rows[..., None] * span + query, -2).reshape(-1)
    at = np.clip(np.searchsorted(ks, q), 0, max(len(ks) - 1, 0))
    if len(ks) == 0:
        return np.full(query.shape, -1, dtype=np.int64)
    hit = (ks[at] == q) & (q >= 0)
    return np.where(hit, vs[at], -1).reshape(query.shape)


def label_propagation(net: Network, task) -> None:
    """reach_*: label propagation over the edges until no state changes, then compare s, t.

    Node v's state lives on machine v // nb (nb = ceil(V / M)). An iteration: every machine
    requests the states of its edges' distinct endpoints; the node machines reply; the edge
    machines send each distinct endpoint the best candidate (undirected: min label; directed:
    "reached" along u -> v); the node machines update; the (changed, state of s, state of t)
    records are max-folded to machine 0, which halts when nothing changed.
    """
    n, b, V, M = task.n, net.block, task.V, net.M
    directed = task.directed
    ends, node = _graph_tables(task)
    nb = -(-V // M)
    ST, SQ, REC = b, b + nb, b + nb + 2   # node states; (s, t) node ids; fold record (3)
    if REC + 3 > net.s:
        raise ResourceLimitError(
            f"label propagation keeps {b} input words, {nb} node states and 5 more words per "
            f"machine: {REC + 3} > s = {net.s} (N={net.N}); raise --c or --delta")

    def endpoints(ids, mem):
        pos, tok = _positions(net, ids), mem[..., :b]
        ok = (tok != FILL) & (pos < n)
        e = ends[np.where(ok, tok, 0)]
        return np.where(ok[..., None], e, -1)          # (..., b, 2)

    def query(ids, mem, inbox):           # the machines of s (pos n+1) and t (pos n+2)
        pos, tok = _positions(net, ids), mem[..., :b]
        isq = (tok != FILL) & ((pos == n + 1) | (pos == n + 2))
        v = node[np.where(isq, tok, 0)]
        return Step(mem, np.where(isq, v // nb, -1), np.stack([pos - n - 1, v], axis=-1))

    def init(ids, mem, inbox):
        role, v = inbox.data[..., 0], inbox.data[..., 1]
        s_id = np.where(inbox.valid & (role == 0), v, -1).max(axis=-1, initial=-1)
        t_id = np.where(inbox.valid & (role == 1), v, -1).max(axis=-1, initial=-1)
        mine = ids[..., None] * nb + np.arange(nb)
        st = (mine == s_id[..., None]).astype(np.int64) if directed else mine
        m = put(mem[..., :b], ST, np.where(mine < V, st, FILL))
        m = put(m, SQ, np.stack([s_id, t_id], axis=-1))
        return Step(put(m, REC, np.full(ids.shape + (3,), FILL)))

    def request(ids, mem, inbox):
        e = endpoints(ids, mem)
        want = e[..., 0] if directed else e.reshape(e.shape[:-2] + (-1,))
        u = _row_unique(want)
        return Step(mem, np.where(u >= 0, u // nb, -1), np.maximum(u, 0)[..., None])

    def reply(ids, mem, inbox):
        v = inbox.data[..., 0]
        j = np.where(inbox.valid, v - ids[..., None] * nb, 0)
        st = np.take_along_axis(mem[..., ST:ST + nb], j, axis=-1)
        return Step(mem, np.where(inbox.valid, inbox.src, -1), (v * (V + 1) + st)[..., None])

    def update(ids, mem, inbox):
        e = endpoints(ids, mem)
        key = np.where(inbox.valid, inbox.data[..., 0], -1)      # node * (V + 1) + state

        def state(x):                     # (..., b) states of endpoints x, -1 if unknown
            return _row_lookup(key // (V + 1), key % (V + 1), key >= 0, x, V + 1)
        if directed:
            live = (e[..., 0] >= 0) & (state(e[..., 0]) == 1)
            tgt = _row_unique(np.where(live, e[..., 1], -1))
            return Step(mem, np.where(tgt >= 0, tgt // nb, -1),
                        (np.maximum(tgt, 0) * (V + 1) + 1)[..., None])
        lab = np.minimum(state(e[..., 0]), state(e[..., 1]))
        both = e.reshape(e.shape[:-2] + (-1,))
        labs = np.repeat(lab, 2, axis=-1)
        # the smallest candidate per distinct endpoint: sort (endpoint, label) pairs per row
        srt = np.sort(np.where(both >= 0, both * (V + 1) + labs, -1), axis=-1)
        d = srt // (V + 1)
        first = np.concatenate([np.ones(d.shape[:-1] + (1,), dtype=bool),
                                d[..., 1:] != d[..., :-1]], axis=-1) & (srt >= 0)
        return Step(mem, np.where(first, d // nb, -1), np.maximum(srt, 0)[..., None])

    def apply(ids, mem, inbox):
        v = inbox.data[..., 0] // (V + 1)
        c = inbox.data[..., 0] % (V + 1)
        j = np.where(inbox.valid, v - ids[..., None] * nb, -1)
        old = mem[..., ST:ST + nb]
        rows = np.arange(old.size // max(nb, 1)).reshape(old.shape[:-1])
        best = np.full(old.shape, V, dtype=np.int64)       # min candidate per own node
        ok = j >= 0
        r = np.broadcast_to(rows[..., None], j.shape)[ok]
        np.minimum.at(best.reshape(-1), r * nb + j[ok], c[ok])
        if directed:
            new = np.where(best < V, 1, old)
        else:
            new = np.where(old != FILL, np.minimum(old, best), old)
        changed = np.any(new != old, axis=-1)
        mine = ids[..., None] * nb + np.arange(nb)

        def at(x):
            sel = mine == mem[..., x][..., None]
            return np.where(sel, new, -1).max(axis=-1)
        rec = np.stack([changed.astype(np.int64), at(SQ), at(SQ + 1)], axis=-1)
        return Step(put(put(mem, ST, new), REC, rec))

    def decide(ids, mem, inbox):
        changed, ls, lt = mem[..., REC], mem[..., REC + 1], mem[..., REC + 2]
        ans = lt == 1 if directed else ls == lt
        m = put(mem, 0, np.where(changed == 0, ans, mem[..., 0])[..., None], ids == 0)
        return Step(m, halt=(changed == 0) & (ids == 0))

    net.round(query, "query to the node machines")
    net.round(init, "initial states")
    while not net.done:
        net.round(request, "request endpoint states")
        net.round(reply, "reply")
        net.round(update, "candidates to the node machines")
        net.round(apply, "update")
        tree_fold(net, REC, 3, np.maximum, [-1, -1, -1], "changed / s / t fold")
        net.round(decide, "halt?")


Program = Callable[[Network, object], None]

@dataclass(frozen=True)
class Algorithm:
    """One MPC algorithm: what it does, its program, the share of a machine's memory its
    input block takes, and an optional check of whether it fits before it runs
    (``limit(task, mpc, block, machines) -> reason or None``)."""

    description: str
    program: Program
    share: float = 0.5
    limit: Callable[[Any, MPC, int, int], str | None] | None = None

    def __iter__(self):  # (description, program), the shape of the former ALGORITHMS values
        return iter((self.description, self.program))

    def __getitem__(self, i: int):
        return (self.description, self.program)[i]


def _label_propagation_limit(task, mpc: MPC, b: int, M: int) -> str | None:
    need = b + -(-task.V // M) + 5
    if need > mpc.s:
        return (f"label propagation needs {need} words per machine ({b} input words, "
                f"{-(-task.V // M)} node states, 5 more) but s = {mpc.s} (N={mpc.N}, "
                f"delta={mpc.delta}, c={mpc.c}); raise --c or --delta")
    return None


def _match_limit(task, mpc: MPC, b: int, M: int) -> str | None:
    return match_limit(task, mpc.s, M)


def _automaton_limit(task, mpc: MPC, b: int, M: int) -> str | None:
    return automaton_limit(task, mpc.s, M)


def _aggregate_with(op: str) -> Program:
    """:func:`aggregate` with its operation fixed (a named function, for messages)."""
    def program(net: Network, task) -> None:
        _aggregate(net, task, op)
    program.__name__ = program.__qualname__ = f"aggregate_{op}"
    return program


#: MPC algorithms per task family (the registry idiom of :mod:`theorybench.registry`).
MPC_ALGORITHMS = artifact_library("MPC algorithm", column="MPC")

for _fams, _alg in (
        (("all",), Algorithm("tree aggregation", _aggregate_with("all"))),
        (("any",), Algorithm("tree aggregation", _aggregate_with("any"))),
        (("parity",), Algorithm("tree aggregation", _aggregate_with("parity"))),
        (("sparse_all", "sparse_any", "sparse_parity"), Algorithm("tree aggregation", aggregate)),
        (("majority",), Algorithm("tree aggregation (sum)", _aggregate_with("sum"))),
        (("index", "index_all", "index_any", "index_parity"), Algorithm("direct lookup", lookup)),
        (("edge_exists",), Algorithm("broadcast + OR", edge_lookup)),
        (("binary_add",), Algorithm("carry by max-fold", carry_out)),
        (("khop",), Algorithm("hop chasing (broadcast + max-fold per hop)", khop_last)),
        (("reach_directed", "reach_undirected"),
         Algorithm("label propagation", label_propagation, GRAPH_SHARE,
                   _label_propagation_limit)),
        (("dyck",), Algorithm("depth fold (k=1) / depth scan + block-summary bracket matching "
                              "(k>1)", dyck_program, limit=_match_limit)),
        (("dyck_bounded",), Algorithm("stack-automaton transition functions composed up a "
                                      "tree", automaton_fold, limit=_automaton_limit))):
    MPC_ALGORITHMS.add(_alg, *_fams, origin=BUILTIN)


#: family -> (description, program) of its algorithm (a view of :data:`MPC_ALGORITHMS`).
ALGORITHMS: Mapping[str, Algorithm] = MPC_ALGORITHMS.by_family()

#: Default memory constant: s = ceil(C * N^delta).
C_DEFAULT = 4.0


def algorithm_for(task) -> Algorithm:
    """The task's algorithm (``TaskParameterError`` naming the families that have one)."""
    found = MPC_ALGORITHMS.for_task(task)
    if not found:
        name = getattr(task, "name", task)
        raise TaskParameterError(f"no MPC algorithm for {name}; algorithms exist for: "
                                 f"{', '.join(MPC_ALGORITHMS.families())}")
    return found[0][1]


def base_name(family: str) -> str:
    """``khop:k=2`` -> ``khop`` (a matrix variant label names its family first)."""
    return family.split(":", 1)[0]


def run_algorithm(task, X: np.ndarray, delta: float = 0.5, c: float = C_DEFAULT,
                  algorithm: Program | None = None, strict: bool = False) -> RunResult:
    """Run the family's program on the rows of ``X`` (one row or a batch)."""
    found = MPC_ALGORITHMS.for_task(task)
    alg = found[0][1] if found else None
    fn = algorithm or algorithm_for(task).program
    X = np.atleast_2d(np.asarray(X, dtype=np.int64))
    mpc = MPC(X.shape[1], delta=delta, c=c)
    return mpc.run(fn, task, X, share=alg.share if alg else 0.5, strict=strict)


def limit_reason(task, delta: float = 0.5, c: float = C_DEFAULT) -> str | None:
    """Why the family's program cannot run on ``task`` with these (delta, c), or None:
    checked before any run from the public sizes only."""
    if not MPC_ALGORITHMS.for_task(task):
        return f"no MPC algorithm for {task.name}"
    alg = algorithm_for(task)
    N = int(task.decision_view()[0].length)
    mpc = MPC(N, delta=delta, c=c)  # TaskParameterError for a bad delta / N
    b = mpc.block_for(alg.share)
    M = mpc.machines_for(b)
    return alg.limit(task, mpc, b, M) if alg.limit is not None else None


def measure(task, rng: np.random.Generator, delta: float = 0.5, instances: int = 1000,
            c: float = C_DEFAULT, strict: int = 2, algorithm: Program | None = None) -> dict:
    """Run on ``instances`` sampled inputs (one batch) and check each against the task's
    reference; the first ``strict`` of them are run again with every machine of every
    round recomputed alone (:class:`~.simulator.LocalityError` if any result differs).
    ``algorithm``: a program to run instead of the family's (e.g. one built from a
    searched formula, :mod:`.formula`)."""
    if instances < 1:
        raise TaskParameterError(f"instances={instances}: measure at least 1 instance")
    df = task.decision_view()[0]
    x = np.asarray(df.sample(rng, instances), dtype=np.int64)
    want = np.asarray(df.evaluate(x)).reshape(-1)
    r = run_algorithm(task, x, delta, c, algorithm)
    if strict:
        rs = run_algorithm(task, x[:strict], delta, c, algorithm, strict=True)
        if not (np.array_equal(rs.output, r.output[:strict])
                and np.array_equal(rs.rounds, r.rounds[:strict])):
            raise ResourceLimitError("the strict (machine by machine) run disagrees with the "
                                     "vectorised run")
    bad = np.nonzero(r.output != want)[0]
    wrong = [{"input": task.render(x[i]), "expected": int(want[i]), "got": int(r.output[i])}
             for i in bad[:5]]
    return {"n": task.n, "N": int(x.shape[1]), "s": r.s, "machines": r.machines,
            "block": r.block, "rounds": int(r.rounds.max()), "min_rounds": int(r.rounds.min()),
            "max_memory": r.max_memory, "max_traffic": r.max_traffic,
            "communication": int(r.communication.max()), "checked": len(x),
            "wrong_count": int(len(bad)), "wrong": wrong,
            "locality_checked": int(min(strict, len(x)))}


__all__ = ["ALGORITHMS", "MPC_ALGORITHMS", "Algorithm", "algorithm_for", "run_algorithm",
           "measure", "limit_reason", "base_name", "C_DEFAULT"]
