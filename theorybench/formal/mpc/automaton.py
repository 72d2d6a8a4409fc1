"""The generic MPC algorithm of a regular language: fold the blocks' transition functions up
a tree (every regular language in O(1/delta) rounds; docs/theories.md §5).

Machine m holds its block of b input words.  One local step turns the block into its
transition function t_m : Q -> Q (an array of |Q| words: the state reached from each
state after reading the block); :func:`.scan.tree_fold` then composes the functions in
machine order (a parent receives its children's functions in sender order, and function
composition is associative, so the product is t_0 t_1 ... t_(M-1), the transition
function of the whole input); machine 0 applies it to the start state and outputs that
state's output.  A tree node of fan-in F = s // |Q| receives at most F |Q| <= s words,
so the fold has ceil(log_F M) levels, one communication round each; with s = c N^delta
and M ~ 2 N^(1-delta) / c this tends to (1 - delta) / delta: a constant for fixed delta.
The memory constant must leave room for two functions (s >= 2 |Q|): the rule picks
c >= 2 |Q| / N_min^delta, a constant of the task's automaton, not of n.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import ResourceLimitError, TaskParameterError
from .scan import compose, tree_fold
from .simulator import FILL, MPC, Network, Step

#: Default memory constant (the algorithms' C_DEFAULT): s = ceil(c N^delta).
C_DEFAULT = 4.0


def automaton_program(delta: np.ndarray, start: int, output: np.ndarray,
                      letter_of_token: np.ndarray):
    """``program(net, task)`` deciding the automaton's output on the input (token ids,
    mapped to letters by ``letter_of_token``)."""
    delta = np.asarray(delta, dtype=np.int64)
    out = np.asarray(output, dtype=np.int64)
    lot = np.asarray(letter_of_token, dtype=np.int64)
    Q = len(delta)

    def program(net: Network, task) -> None:
        b = net.block

        def local(ids, mem, inbox):   # every machine's block function, vectorised
            fn = np.broadcast_to(np.arange(Q, dtype=np.int64), ids.shape + (Q,)).copy()
            for j in range(min(b, mem.shape[-1])):
                tok = mem[..., j]
                live = tok != FILL
                if not live.any():
                    break
                step = delta[fn, lot[np.where(live, tok, 0)][..., None]]
                fn = np.where(live[..., None], step, fn)
            return Step(fn)

        net.round(local, "block transition functions")
        tree_fold(net, 0, Q, compose, np.arange(Q), "transition-function fold")
        net.round(lambda ids, mem, inbox: Step(out[mem[..., start]][..., None]), "output")

    return program


def memory_constant(states: int, n_min: int, delta: float, c: float = C_DEFAULT) -> float:
    """The smallest c >= ``c`` with ceil(c N^delta) >= 2 |Q| for every N >= n_min."""
    return max(c, 2.0 * states / max(1, n_min) ** delta)


def fold_rounds(N: int, states: int, delta: float, c: float, share: float = 0.5) -> int:
    """The fold's communication rounds at input length N, from the public sizes alone:
    the number of levels of the tree over M machines with fan-in s // |Q|."""
    mpc = MPC(N, delta=delta, c=c)
    F = mpc.s // states
    if F < 2:
        raise ResourceLimitError(f"s = {mpc.s} words hold fewer than two {states}-word "
                                 f"transition functions (N={N}); raise c")
    machines, levels = mpc.machines_for(mpc.block_for(share)), 0
    while machines > 1:                  # the tree of scan.tree_fold: one round per level
        machines, levels = -(-machines // F), levels + 1
    return levels


def measure_automaton(task, x: np.ndarray, want: np.ndarray, program, states: int,
                      delta: float, c: float, strict: int = 2) -> dict[str, Any]:
    """Run ``program`` on the rows of ``x`` and compare with ``want`` (the task's reference
    labels); the first ``strict`` rows are run again with every machine recomputed alone."""
    x = np.atleast_2d(np.asarray(x, dtype=np.int64))
    if len(x) < 1:
        raise TaskParameterError("measure at least one instance")
    mpc = MPC(x.shape[1], delta=delta, c=c)
    r = mpc.run(program, task, x)
    if strict:
        rs = mpc.run(program, task, x[:strict], strict=True)
        if not (np.array_equal(rs.output, r.output[:strict])
                and np.array_equal(rs.rounds, r.rounds[:strict])):
            raise ResourceLimitError("the strict (machine by machine) run disagrees with the "
                                     "vectorised run")
    want = np.asarray(want).reshape(-1)
    bad = np.flatnonzero(r.output != want)
    return {"N": int(x.shape[1]), "s": r.s, "machines": r.machines, "block": r.block,
            "rounds": int(r.rounds.max()), "rounds_formula": fold_rounds(
                x.shape[1], states, delta, c), "max_memory": r.max_memory,
            "checked": len(x), "wrong_count": int(len(bad)),
            "wrong": [{"input_ids": x[i].tolist(), "expected": int(want[i]),
                       "got": int(r.output[i])} for i in bad[:3]],
            "locality_checked": int(min(strict, len(x)))}


def level_bound(delta: float) -> int:
    """ceil((1 - delta) / delta) + 1: the fold's levels for large N (M ~ N^(1-delta) machines,
    fan-in ~ N^delta), stated beside the measured rounds."""
    return math.ceil((1 - delta) / delta) + 1


__all__ = ["automaton_program", "memory_constant", "fold_rounds", "measure_automaton",
           "level_bound", "C_DEFAULT"]
