"""MPC algorithms for the task families, run on real instances in the simulator.

Each algorithm takes a task instance and one input row, runs on a fresh :class:`MPC`
(N = input length), and returns the output; :func:`run_algorithm` checks it against the
task's reference. Round counts are the simulator's, not formulas. With fan-in
F = s / width a tree over the machines has depth ceil(log_F machines) ~ 1/delta - 1, so:

* tree aggregation (all, any, parity, majority, sparse_*): O(1/delta) rounds;
* direct lookups (index family: request + reply; edge_exists: broadcast the query, OR):
  O(1/delta);
* carry of binary_add by a max-reduce over the non-propagating positions: O(1/delta);
* khop (last position) by chasing k hops, each a broadcast and a max-reduce: O(k/delta);
* dyck / dyck_bounded (:mod:`.dyck`): depth fold or scan plus block-summary matching,
  and the stack automaton's transition functions composed up a tree: O(1/delta);
* reach_* by label propagation: a constant number of rounds per iteration and as many
  iterations as the graph's diameter - rounds grow with n on the path instances.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ...errors import TaskParameterError
from .dyck import automaton_fold, dyck_algorithm
from .simulator import MPC, Dist, exchange_many, segment_reduce

_IDENT = {"and": 1, "or": 0, "xor": 0, "sum": 0, "max": np.iinfo(np.int64).min,
          "min": np.iinfo(np.int64).max}


def tree_reduce(mpc: MPC, d: Dist, op: str) -> np.ndarray:
    """Reduce all records to one on machine 0: local reduce, then fan-in F = s // width."""
    owner, vals = segment_reduce(d.owner, d.data, op)
    F = max(2, mpc.s // d.width)
    while len(owner) > 1 or (len(owner) == 1 and owner[0] != 0):
        dist = mpc.exchange(owner, owner // F, vals)
        owner, vals = segment_reduce(dist.owner, dist.data, op)
    return vals[0] if len(vals) else np.full(d.width, _IDENT[op], dtype=np.int64)


def broadcast(mpc: MPC, root: int, record: np.ndarray) -> None:
    """Send one record from ``root`` to every machine along an F-ary tree (counts rounds)."""
    rec = np.asarray(record, dtype=np.int64).reshape(1, -1)
    F = max(2, mpc.s // rec.shape[1])
    have = np.array([0])  # virtual ids (m - root) mod machines
    while len(have) < mpc.machines:
        kids = (have[:, None] * F + np.arange(1, F + 1)[None, :]).ravel()
        src = np.repeat(have, F)
        ok = kids < mpc.machines
        if not ok.any():
            break
        mpc.exchange((src[ok] + root) % mpc.machines, (kids[ok] + root) % mpc.machines,
                     np.repeat(rec, int(ok.sum()), axis=0))
        have = np.concatenate([have, kids[ok]])


def _positions(mpc: MPC, x: np.ndarray) -> Dist:
    """The input, one word per token, in order: machine m holds positions m*s .. m*s+s-1
    (a machine knows its index, so positions are implicit)."""
    return mpc.distribute(x)


# ------------------------------------------------------------------ per family
def aggregate(task, x, mpc: MPC) -> int:
    """all / any / parity / majority / sparse_*: one value per position, tree-reduced."""
    name = task.name
    d = _positions(mpc, x)
    pos, bit = np.arange(len(x)), d.data[:, 0]
    sup = np.zeros(len(x), dtype=bool)
    sup[list(getattr(task, "support", range(len(x))))] = True
    op = getattr(task, "op", name)
    if name == "majority":
        total = tree_reduce(mpc, Dist(d.owner, bit[:, None]), "sum")[0]
        return int(2 * total > len(x))
    if op == "all":
        return int(tree_reduce(mpc, Dist(d.owner, (bit | ~sup[pos])[:, None] & 1), "and")[0])
    if op == "any":
        return int(tree_reduce(mpc, Dist(d.owner, (bit & sup[pos])[:, None]), "or")[0])
    return int(tree_reduce(mpc, Dist(d.owner, (bit & sup[pos])[:, None]), "xor")[0])


def lookup(task, x, mpc: MPC) -> int:
    """index / index_*: each query asks the machine holding its bit; replies go to machine 0."""
    n, op = task.n, task.op
    d = _positions(mpc, x)
    pos, tok = np.arange(len(x)), x
    per = mpc.s
    if getattr(task, "mode", "tokens") == "mask":
        is_q = (pos >= n) & (tok == 1)
        target = pos[is_q] - n
    else:
        is_q = pos >= n
        target = tok[is_q] - 2
    req = mpc.exchange(d.owner[is_q], target // per, target)  # round 1: requests
    got = x[req.data[:, 0]]  # the owner reads its own bit
    rep = mpc.exchange(req.owner, np.zeros(len(req), dtype=np.int64), got)  # round 2
    vals = rep.data[:, 0]
    if op == "all":
        return int(np.all(vals == 1))
    if op == "any":
        return int(np.any(vals == 1))
    return int(vals.sum() % 2)


def edge_lookup(task, x, mpc: MPC) -> int:
    """edge_exists: broadcast the query edge, every machine checks, OR-reduce."""
    d = _positions(mpc, x)
    q = x[-1]
    broadcast(mpc, int(d.owner[-1]), np.array([q]))
    n = task.n
    hit = ((x == q) & (np.arange(len(x)) < n)).astype(np.int64)
    return int(tree_reduce(mpc, Dist(d.owner, hit[:, None]), "or")[0])


def carry_out(task, x, mpc: MPC) -> int:
    """binary_add carry-out: route b_i to a_i's machine, max-reduce the top non-propagate."""
    n = task.n
    d = _positions(mpc, x)
    if getattr(task, "layout", "msb") == "interleaved":
        a_pos, b_pos, lsb = 2 * np.arange(n), 2 * np.arange(n) + 1, np.arange(n)
    else:
        a_pos, b_pos, lsb = np.arange(n), n + 1 + np.arange(n), n - 1 - np.arange(n)
    per = mpc.s
    # one word per message: (pair index, bit) packed as 2*i + b (a word holds O(log N) bits)
    moved = mpc.exchange(b_pos // per, a_pos // per, 2 * np.arange(n) + x[b_pos])
    i, b = moved.data[:, 0] // 2, moved.data[:, 0] % 2
    a = x[a_pos[i]]
    key = np.where(a == b, lsb[i] * 2 + a, -1)
    top = tree_reduce(mpc, Dist(moved.owner, key[:, None]), "max")[0]
    return int(top >= 0 and (top & 1))


def khop_last(task, x, mpc: MPC) -> int:
    """hop_k at the last position: k rounds of (broadcast symbol, max-reduce match)."""
    L = len(x)
    d = _positions(mpc, x)
    per = mpc.s
    # one round: each machine passes its last token on, so record j also knows x[j-1]
    last = np.r_[np.nonzero(np.diff(d.owner))[0], len(d) - 1]
    nxt = mpc.exchange(d.owner[last], np.minimum(d.owner[last] + 1, mpc.machines - 1),
                       x[last])
    prev = np.r_[-1, x[:-1]]  # what the records now know locally (checked by the exchange)
    bottom = len(task.label_vocab) - 1  # the "no hop" label
    cur = L - 1
    for _ in range(task.k):
        broadcast(mpc, int(cur // per), np.array([x[cur], cur]))
        pos = np.arange(L)
        match = (pos >= 1) & (pos <= cur) & (prev == x[cur])
        key = np.where(match, pos, -1)
        top = int(tree_reduce(mpc, Dist(d.owner, key[:, None]), "max")[0])
        if top <= 0:
            return bottom
        cur = top
    del nxt
    return int(x[cur])


def label_propagation(task, x, mpc: MPC) -> int:
    """reach_*: min-label propagation over the edges until stable, then compare s and t."""
    n = task.n
    sep = ">" if task.directed else "-"
    ends = np.full((len(task.vocab), 2), -1, dtype=np.int64)
    node = np.full(len(task.vocab), -1, dtype=np.int64)
    for i, tok in enumerate(task.vocab):
        if sep in tok:
            u, v = tok.split(sep)
            ends[i] = (int(u[1:]) - 1, int(v[1:]) - 1)
        elif tok.startswith("v"):
            node[i] = int(tok[1:]) - 1
    d = _positions(mpc, x)
    e = ends[x[:n]]
    e_owner = d.owner[:n]
    V = task.V
    per = mpc.s
    node_owner = np.arange(V) // per
    if node_owner[-1] >= mpc.machines:
        raise TaskParameterError(f"{V} nodes do not fit on {mpc.machines} machines")
    label = np.arange(V)
    directed = task.directed
    if directed:  # reach from s: propagate a "reached" flag along edges (u -> v)
        s, t = node[x[n + 1]], node[x[n + 2]]
        reached = np.zeros(V, dtype=bool)
        reached[s] = True
    while True:
        # round 1: node machines push their state to the edge machines (2 words per edge)
        state = reached.astype(np.int64) if directed else label
        # one word per message: (node, state) packed as node * (V + 1) + state
        # (a vertex of high degree needs several rounds: exchange_many counts them)
        exchange_many(mpc, node_owner[e[:, 0]], e_owner, e[:, 0] * (V + 1) + state[e[:, 0]])
        exchange_many(mpc, node_owner[e[:, 1]], e_owner, e[:, 1] * (V + 1) + state[e[:, 1]])
        # round 2: edge machines send the update to the endpoints' machines
        if directed:
            upd = reached[e[:, 0]] & ~reached[e[:, 1]]
            exchange_many(mpc, e_owner[upd], node_owner[e[upd, 1]], e[upd, 1])
            new = reached.copy()
            new[e[upd, 1]] = True
            changed = bool((new != reached).any())
            reached = new
        else:
            m = np.minimum(label[e[:, 0]], label[e[:, 1]])
            for end in (0, 1):  # one exchange per endpoint: at most s words per machine
                exchange_many(mpc, e_owner, node_owner[e[:, end]], e[:, end] * (V + 1) + m)
            new = label.copy()
            np.minimum.at(new, np.r_[e[:, 0], e[:, 1]], np.r_[m, m])
            changed = bool((new != label).any())
            label = new
        flag = np.zeros(V, dtype=np.int64)
        flag[:] = 0
        if changed:
            flag[0] = 1
        any_changed = tree_reduce(mpc, Dist(node_owner, flag[:, None]), "or")[0]
        if not any_changed:
            break
    s, t = node[x[n + 1]], node[x[n + 2]]
    # final: the query's machine asks the machines of s and t (2 rounds)
    q_owner = d.owner[n + 1]
    mpc.exchange(np.array([q_owner, q_owner]), node_owner[[s, t]], np.array([s, t]))
    mpc.exchange(node_owner[[s, t]], np.array([q_owner, q_owner]),
                 (reached[[s, t]] if directed else label[[s, t]]).astype(np.int64))
    return int(reached[t]) if directed else int(label[s] == label[t])


ALGORITHMS: dict[str, tuple[str, Callable]] = {
    "all": ("tree aggregation", aggregate), "any": ("tree aggregation", aggregate),
    "parity": ("tree aggregation", aggregate), "majority": ("tree aggregation (sum)", aggregate),
    "sparse_all": ("tree aggregation", aggregate), "sparse_any": ("tree aggregation", aggregate),
    "sparse_parity": ("tree aggregation", aggregate),
    "index": ("direct lookup", lookup), "index_all": ("direct lookup", lookup),
    "index_any": ("direct lookup", lookup), "index_parity": ("direct lookup", lookup),
    "edge_exists": ("broadcast + OR", edge_lookup),
    "binary_add": ("carry by max-reduce", carry_out),
    "khop": ("hop chasing (broadcast + max-reduce per hop)", khop_last),
    "reach_directed": ("label propagation", label_propagation),
    "reach_undirected": ("label propagation", label_propagation),
    "dyck": ("depth fold (k=1) / depth scan + block-summary bracket matching (k>1)",
             dyck_algorithm),
    "dyck_bounded": ("stack-automaton transition functions composed up a tree",
                     automaton_fold),
}


#: Default memory constant: s = ceil(C * N^delta) (label propagation needs a few words per
#: node for its incident edges).
C_DEFAULT = 4.0


def run_algorithm(task, x: np.ndarray, delta: float = 0.5, c: float = C_DEFAULT,
                  algorithm: Callable | None = None) -> tuple[int, MPC]:
    """Run the family's algorithm on one input row; returns (output, the MPC run)."""
    fn = algorithm or ALGORITHMS[task.name][1]
    mpc = MPC(len(x), delta=delta, c=c)
    return fn(task, np.asarray(x, dtype=np.int64), mpc), mpc


def limit_reason(task, delta: float = 0.5, c: float = C_DEFAULT) -> str | None:
    """Why the family's algorithm cannot run on ``task`` with these (delta, c), or None:
    checked before any run (the simulator's machine and memory sizes, and label
    propagation's one-node-block-per-machine layout)."""
    if task.name not in ALGORITHMS:
        return f"no MPC algorithm for {task.name}"
    N = int(task.decision_view()[0].length)
    mpc = MPC(N, delta=delta, c=c)  # TaskParameterError for a bad delta / N
    if ALGORITHMS[task.name][1] is label_propagation:
        if math.ceil(task.V / mpc.s) > mpc.machines:
            return (f"{task.V} nodes do not fit on {mpc.machines} machines of {mpc.s} words "
                    f"(N={N}, delta={delta}, c={c}); raise --c or --delta")
    return None


def measure(task, rng: np.random.Generator, delta: float = 0.5, instances: int = 4,
            c: float = C_DEFAULT) -> dict:
    """Run on ``instances`` sampled inputs; check each against the task's reference."""
    if instances < 1:
        raise TaskParameterError(f"instances={instances}: measure at least 1 instance")
    df = task.decision_view()[0]
    x = np.asarray(df.sample(rng, instances), dtype=np.int64)
    want = np.asarray(df.evaluate(x)).reshape(-1)
    rounds, mem, comm, wrong = [], [], [], []
    for i, row in enumerate(x):
        out, mpc = run_algorithm(task, row, delta, c)
        rounds.append(mpc.rounds)
        mem.append(mpc.max_memory)
        comm.append(mpc.communication)
        if out != int(want[i]):
            wrong.append({"input": task.render(row), "expected": int(want[i]), "got": out})
    return {"n": task.n, "N": int(x.shape[1]), "s": mpc.s, "machines": mpc.machines,
            "rounds": max(rounds), "max_memory": max(mem), "communication": max(comm),
            "checked": len(x), "wrong": wrong}


__all__ = ["ALGORITHMS", "run_algorithm", "measure", "limit_reason", "tree_reduce", "broadcast"]
