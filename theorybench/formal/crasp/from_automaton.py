"""A C-RASP program for the language of a partially ordered automaton.

A minimal automaton is *partially ordered* when its only cycles are self-loops: once the
run leaves a state it never comes back. These are exactly the regular languages whose
syntactic monoid is R-trivial (Brzozowski & Fich, "Languages of R-trivial monoids", JCSS
20, 1980). For such an automaton the run is a chain of states, each entered at most once
and left at most once, and C-RASP's prefix counts can follow it without reading the
previous position, state by state in topological order:

* ``exitq`` holds at a letter outside q's self-loop set (token tests, so false at the end
  marker);
* ``inq`` (q is entered at i): the state before i is a predecessor p != q and the letter at
  i leads from p to q;
* ``eq`` (q was entered strictly before i): ``#[inq] == 1 && !inq`` (entered at most once);
* ``xq`` (i holds an exit letter after q was entered): ``eq && exitq``; q was left strictly
  before i iff some earlier position satisfied ``xq`` (the first such one is where the run
  left): ``#[xq] >= 2 || (#[xq] == 1 && !xq)``;
* ``atq`` (the state after x_1 .. x_(i-1) is q): entered before i and not left before i
  (for the start state: not left before i).

At the appended end marker the state after the whole word is the q with ``atq``, so the
output is the OR of ``atq`` over the accepting states. The program has O(|Q| + |delta|)
definitions whatever the length: one fixed program for every n. Correct by the argument
above for every length; :mod:`..crasp.check` checks it against the task all the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..automata import DFA
from . import ast as A


def partially_ordered(dfa: DFA) -> tuple[bool, list[int] | tuple[int, ...]]:
    """(True, states in topological order) when every cycle of the reachable part is a
    self-loop, else (False, a cycle through distinct states). Kahn's algorithm (no
    recursion, whatever the number of states)."""
    reach = _reachable(dfa)
    succ = {q: sorted({int(t) for t in dfa.delta[q] if int(t) != q}) for q in reach}
    indeg = {q: 0 for q in reach}
    for q in reach:
        for t in succ[q]:
            indeg[t] += 1
    ready = sorted((q for q in reach if indeg[q] == 0), key=lambda s: s != dfa.start)
    order: list[int] = []
    while ready:
        q = ready.pop(0)
        order.append(q)
        for t in succ[q]:
            indeg[t] -= 1
            if indeg[t] == 0:
                ready.append(t)
    if len(order) == len(reach):
        return True, order
    # every state left over has a predecessor left over: walk back to a repeat
    left = {q for q in reach if indeg[q] > 0}
    pred = {t: q for q in sorted(left) for t in succ[q] if t in left}
    q, seen = min(left), []
    while q not in seen:
        seen.append(q)
        q = pred[q]
    cycle = seen[seen.index(q):][::-1]
    return False, tuple(cycle + [cycle[0]])


def _reachable(dfa: DFA) -> set[int]:
    seen, todo = {dfa.start}, [dfa.start]
    while todo:
        q = todo.pop()
        for t in dfa.delta[q]:
            if int(t) not in seen:
                seen.add(int(t))
                todo.append(int(t))
    return seen


def _any(tokens: list[str]) -> A.Expr:
    if not tokens:
        return A.FALSE
    expr: A.Expr = A.Token(tokens[0])
    for t in tokens[1:]:
        expr = A.Or(expr, A.Token(t))
    return expr


def _or(parts: list[A.Expr]) -> A.Expr:
    if not parts:
        return A.FALSE
    expr = parts[0]
    for p in parts[1:]:
        expr = A.Or(expr, p)
    return expr


def program_for(dfa: DFA, accept: Any = 1) -> A.Program | str:
    """The C-RASP program of the module docstring for ``dfa`` (outputs equal to ``accept``
    are accepted), or why there is none (a cycle through two states or more)."""
    ok, order = partially_ordered(dfa)
    if not ok:
        cyc = " -> ".join(str(q) for q in order)
        return (f"the automaton is not partially ordered (the cycle {cyc} passes through "
                "more than one state), so its monoid is not R-trivial")
    letters = list(dfa.alphabet)
    one, zero = A.IntConst(1), A.IntConst(0)
    stmts: list[A.Assign] = []

    def define(name: str, expr: A.Expr) -> A.Ref:
        stmts.append(A.Assign(name, expr))
        return A.Ref(name)

    def left_before(x: A.Ref) -> A.Expr:
        c = A.Count(x)
        return A.Or(A.Compare("<", one, c), A.And(A.Compare("==", c, one), A.Not(x)))

    at: dict[int, A.Ref] = {}
    for q in order:
        exit_ = [letters[a] for a in range(dfa.k) if int(dfa.delta[q, a]) != q]
        exit_q = define(f"exit{q}", _any(exit_)) if exit_ else None
        if q == dfa.start:
            if exit_q is None:
                at[q] = define(f"at{q}", A.TRUE)
                continue
            at[q] = define(f"at{q}", A.Not(left_before(exit_q)))
            continue
        enters = [A.And(at[p], A.Token(letters[a])) for p in order if p in at and p != q
                  for a in range(dfa.k) if int(dfa.delta[p, a]) == q]
        in_q = define(f"in{q}", _or(enters))
        entered = define(f"e{q}", A.And(A.Compare("==", A.Count(in_q), one), A.Not(in_q)))
        if exit_q is None:
            at[q] = define(f"at{q}", entered)
            continue
        x_q = define(f"x{q}", A.And(entered, exit_q))
        at[q] = define(f"at{q}", A.And(entered, A.Not(left_before(x_q))))
    final = [at[q] for q in order if int(dfa.output[q]) == accept]
    define("out", _or(final) if final else A.Compare("<", one, zero))
    return A.Program(tuple(stmts), alphabet=tuple(letters))


__all__ = ["partially_ordered", "program_for"]
