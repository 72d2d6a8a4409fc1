"""Problems with known circuit lower bounds, and checked projections from them to tasks.

A :class:`KnownProblem` is a :class:`~theorybench.formal.reductions.Problem` together
with the theorems about it: ``ac0`` - it is not in AC0 (unconditional); ``tc0`` - it is
complete for a class believed larger than TC0 (so it is outside TC0 conditionally).
The theorems are data (:mod:`.theorems`); what attaches one to a task family is a
:class:`~theorybench.formal.reductions.Reduction` of kind ``projection`` that
``Reduction.check`` verifies by running it (labels preserved on all small instances,
images valid target instances, every output token depending on at most one input
position). AC0 and TC0 are closed under projections (Skyum & Valiant 1985), so the
target inherits the lower bound.

The reductions (all verified by the rules before they are used):

* parity -> reach_directed / reach_undirected: the layered graph of Furst-Saxe-Sipser
  style lower bounds: nodes a_0..a_m, b_0..b_m; bit i = 0 gives edges a_i-a_(i+1),
  b_i-b_(i+1), bit i = 1 the crossing edges a_i-b_(i+1), b_i-a_(i+1); the graph is two
  disjoint paths and b_m is reachable from a_0 iff the parity is odd. Two edge tokens per
  bit, each a function of that bit only.
* majority -> dyck (using one bracket type, for any k): for n odd, the word
  "("^n  s(x)  ")"^(n+1)  "("^(2n+1)  s'(x)  ")"^(2n), with s(x_i) = "(" if x_i = 1 else
  ")" and s' the opposite map. It is always balanced; its lowest prefix height is
  2 * sum(x) - n - 1 (reached just before the "("-block), so it is a Dyck word iff
  sum(x) >= (n+1)/2, i.e. iff majority(x) = 1. Length 8n + 2.
* GAP (directed s-t reachability on an adjacency matrix over V0 nodes, s = node 1,
  t = node V0) -> reach_directed: one edge slot per ordered pair, the edge itself when
  its bit is 1, else a filler edge between two spare nodes; the undirected version
  likewise (UGAP -> reach_undirected).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ... import tasks
from ..reductions import Problem, Reduction, task_problem
from .theorems import (GAP_NL_COMPLETE, MAJORITY_NOT_AC0, PARITY_NOT_AC0, UGAP_L_COMPLETE,
                       Theorem)


@dataclass(frozen=True)
class KnownProblem:
    problem: Problem
    ac0: Theorem | None = None
    tc0: Theorem | None = None
    n_for_check: tuple[int, ...] = ()


# ---- graph problems given by adjacency bits ---------------------------------------------
def _pairs(v: int, directed: bool) -> tuple[np.ndarray, np.ndarray]:
    if directed:
        u, w = np.nonzero(~np.eye(v, dtype=bool))
    else:
        u, w = np.triu_indices(v, 1)
    return u.astype(np.int64), w.astype(np.int64)


def _closure_label(directed: bool):
    """Reachability 0 -> V0-1 by repeated boolean matrix squaring (independent of the
    task's frontier search)."""
    def fn(tokens: np.ndarray, v: int) -> np.ndarray:
        u, w = _pairs(v, directed)
        adj = np.zeros((len(tokens), v, v), dtype=bool)
        adj[:, u, w] = tokens.astype(bool)
        if not directed:
            adj |= adj.transpose(0, 2, 1)
        reach = adj | np.eye(v, dtype=bool)[None]
        for _ in range(max(1, int(np.ceil(np.log2(max(v, 2)))))):
            reach = reach | (np.einsum("bij,bjk->bik", reach.astype(np.int32),
                                       reach.astype(np.int32)) > 0)
        return reach[:, 0, v - 1].astype(np.int64)
    return fn


def gap_problem(directed: bool) -> Problem:
    name = "GAP (directed s-t reachability)" if directed else "UGAP (undirected s-t connectivity)"
    return Problem(
        name=name, fn=_closure_label(directed),
        choices=lambda v: [(0, 1)] * len(_pairs(v, directed)[0]),
        doc=f"{name} on an adjacency bit per {'ordered' if directed else 'unordered'} pair of "
            f"V0 = n nodes; s = node 1, t = node V0")


def _slots(v: int, directed: bool) -> int:
    m = len(_pairs(v, directed)[0])
    return m + (m % 2)  # reach tasks need an even number of edge tokens


def _gap_to_reach(directed: bool):
    family = "reach_directed" if directed else "reach_undirected"

    def target_params(v: int) -> dict[str, Any]:
        return {"n": _slots(v, directed)}

    def fmap(x: np.ndarray, v: int) -> np.ndarray:
        task = tasks.get(family, **target_params(v))
        u, w = _pairs(v, directed)
        edge = task.edge_ids(u, w)
        filler = task.edge_ids(np.array([v]), np.array([v + 1]))[0]  # spare nodes
        edges = np.where(x == 1, edge[None, :], filler)
        if edges.shape[1] < task.n:
            edges = np.concatenate([edges, np.full((len(x), task.n - edges.shape[1]), filler)], 1)
        q = np.tile(np.array([0, v - 1]), (len(x), 1))
        return task.assemble(edges, q)

    return Reduction(f"{'GAP' if directed else 'UGAP'} -> {family} (adjacency bits to edge slots)",
                     gap_problem(directed), family, target_params, fmap, kind="projection",
                     doc="one edge slot per pair: the edge if its bit is 1, else a filler edge "
                         "between two spare nodes")


# ---- parity -> reachability (layered graph) ---------------------------------------------
def _parity_to_reach(directed: bool):
    family = "reach_directed" if directed else "reach_undirected"

    def fmap(x: np.ndarray, m: int) -> np.ndarray:
        task = tasks.get(family, n=2 * m)
        i = np.arange(m)
        a0, a1, b0, b1 = i, i + 1, m + 1 + i, m + 2 + i
        bit = x.astype(bool)
        e1 = task.edge_ids(np.broadcast_to(a0, x.shape), np.where(bit, b1, a1))
        e2 = task.edge_ids(np.broadcast_to(b0, x.shape), np.where(bit, a1, b1))
        edges = np.stack([e1, e2], axis=2).reshape(len(x), 2 * m)
        q = np.tile(np.array([0, 2 * m + 1]), (len(x), 1))  # s = a_0, t = b_m
        return task.assemble(edges, q)

    return Reduction(f"parity -> {family} (layered two-path graph)", task_problem("parity"),
                     family, lambda m: {"n": 2 * m}, fmap, kind="projection",
                     doc="bit i chooses straight or crossing edges between layers i and i+1; "
                         "b_m is reachable from a_0 iff the parity is odd")


# ---- majority -> dyck ---------------------------------------------------------------------
def majority_to_dyck_word(x: np.ndarray, n: int, open_id: int, close_id: int) -> np.ndarray:
    """The projection of the module docstring, as token ids (length 8n + 2)."""
    cnt = len(x)
    s = np.where(x == 1, open_id, close_id)
    s2 = np.where(x == 1, close_id, open_id)

    def block(tok, k):
        return np.full((cnt, k), tok, dtype=np.int64)

    return np.concatenate([block(open_id, n), s, block(close_id, n + 1),
                           block(open_id, 2 * n + 1), s2, block(close_id, 2 * n)], axis=1)


def _majority_to_dyck(params: dict[str, Any]):
    """The projection into the dyck variant with ``params`` (any k: only the type-0
    brackets "(" and ")" are written, so the same words serve Dyck-1 and Dyck-k)."""
    def target_params(n: int) -> dict[str, Any]:
        return {**params, "n": 8 * n + 2}

    def fmap(x: np.ndarray, n: int) -> np.ndarray:
        task = tasks.get("dyck", **target_params(n))
        return majority_to_dyck_word(x, n, task.index["("], task.index[")"])

    target = str(tasks.TaskRef("dyck", params))
    return Reduction(f"majority -> {target} (one bracket type; padded two-copy word)",
                     task_problem("majority"), "dyck", target_params, fmap, kind="projection",
                     doc="always balanced; the lowest prefix height is 2 sum(x) - n - 1")


# ---- the catalogue -------------------------------------------------------------------------
def _catalogue() -> list[tuple[KnownProblem, Callable[[dict], Reduction | None]]]:
    """(known problem, make): ``make(params)`` builds the reduction into the target variant
    with those non-default parameters, or None where it has none for them."""
    parity = KnownProblem(task_problem("parity"), ac0=PARITY_NOT_AC0, n_for_check=(1, 2, 3, 4, 5, 6))
    majority = KnownProblem(task_problem("majority"), ac0=MAJORITY_NOT_AC0, n_for_check=(1, 3, 5, 7))
    gap = KnownProblem(gap_problem(True), tc0=GAP_NL_COMPLETE, n_for_check=(2, 3, 4))
    ugap = KnownProblem(gap_problem(False), tc0=UGAP_L_COMPLETE, n_for_check=(2, 3, 4, 5))
    return [
        (parity, _default_only(lambda: _parity_to_reach(True))),
        (parity, _default_only(lambda: _parity_to_reach(False))),
        (majority, _majority_to_dyck),
        (gap, _default_only(lambda: _gap_to_reach(True))),
        (ugap, _default_only(lambda: _gap_to_reach(False))),
    ]


def _default_only(make: Callable[[], Reduction]) -> Callable[[dict], Reduction | None]:
    """A reduction written for the target's default parameters only."""
    return lambda params: None if params else make()


TARGETS = {"reach_directed", "reach_undirected", "dyck"}


def reductions_to(family: str, basis: str) -> list[tuple[KnownProblem, Reduction]]:
    """Candidate (known problem, reduction) pairs whose target is ``family`` and whose
    source has a lower bound for ``basis`` (ac0: unconditional; tc0: conditional)."""
    try:
        ref = tasks.TaskRef.of(family)
    except Exception:  # not a task this catalogue can target
        return []
    params = {k: v for k, v in ref.params if k != "n"}
    out = []
    for known, make in _catalogue():
        if (known.ac0 if basis == "ac0" else known.tc0) is None:
            continue
        red = make(params)  # a reduction that cannot be built is a bug: the rule records it
        if red is not None and red.target_family == ref.family:
            out.append((known, red))
    return out


@functools.lru_cache(maxsize=64)
def checked(family: str, basis: str, seed: int = 0) -> tuple[tuple[KnownProblem, Reduction, Any], ...]:
    """Run ``Reduction.check`` on each candidate; returns (known, reduction, check) triples."""
    out = []
    for known, red in reductions_to(family, basis):
        chk = red.check(known.n_for_check, rng=np.random.default_rng(seed))
        out.append((known, red, chk))
    return tuple(out)
