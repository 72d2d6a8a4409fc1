"""Every regular language with a small minimal automaton, each once.

A language is named by its canonical minimal DFA: complete, every state reachable, no two
states equivalent, states numbered breadth-first from the start (letters in alphabet
order). Two languages are equal exactly when their canonical forms are, so enumerating the
canonical tables with s states enumerates the languages whose minimal DFA has s states,
each exactly once - the dedup is exact, for every length, not a comparison at tested
lengths.

A table is canonical when its breadth-first renumbering is itself (which implies every
state is reachable) and minimization keeps every state. The number of tables grows as
s^(s k) 2^s (5,832 for s = 3 over two letters, 157,464 over three), so the defaults stay
small; languages are yielded in order of state count, then table, so a prefix of the
enumeration is deterministic.
"""

from __future__ import annotations

import itertools
from typing import Iterator, Sequence

import numpy as np

from .dfa import DFA


def is_bfs_canonical(delta: np.ndarray) -> bool:
    """Whether breadth-first numbering from state 0 (letters in order) leaves ``delta``'s
    states as they are and reaches all of them."""
    s, k = delta.shape
    order, seen = [0], {0}
    i = 0
    while i < len(order):
        for a in range(k):
            t = int(delta[order[i], a])
            if t not in seen:
                if t != len(order):   # the next new state must carry the next number
                    return False
                seen.add(t)
                order.append(t)
        i += 1
    return len(order) == s


def minimal_languages(alphabet: Sequence[str], max_states: int,
                      include_trivial: bool = False) -> Iterator[DFA]:
    """The canonical minimal DFA of every language over ``alphabet`` whose minimal
    automaton has at most ``max_states`` states (the empty and the full language - one
    state - only with ``include_trivial``)."""
    k = len(alphabet)
    if k < 1 or max_states < 1:
        raise ValueError("need at least one letter and one state")
    alphabet = tuple(alphabet)
    for s in range(1, max_states + 1):
        if s == 1:
            if include_trivial:
                for out in (0, 1):
                    yield DFA(alphabet, np.zeros((1, k), dtype=np.int64),
                              np.array([out], dtype=np.int64), 0)
            continue
        for flat in itertools.product(range(s), repeat=s * k):
            delta = np.array(flat, dtype=np.int64).reshape(s, k)
            if not is_bfs_canonical(delta):
                continue
            for out in itertools.product((0, 1), repeat=s):
                dfa = DFA(alphabet, delta, np.array(out, dtype=np.int64), 0)
                if dfa.minimize().size == s:
                    yield dfa


def count_tables(k: int, s: int) -> int:
    """How many tables the enumeration walks for ``s`` states over ``k`` letters (a Python
    int: the count is exact, never a float or an int64)."""
    return s ** (s * k) * 2 ** s


def words_upto(k: int, max_len: int) -> list[np.ndarray]:
    """All words of each length 0..max_len over k letters, one (k^L, L) array per length."""
    out = []
    for length in range(max_len + 1):
        if length == 0:
            out.append(np.zeros((1, 0), dtype=np.int64))
            continue
        idx = np.arange(k ** length, dtype=np.int64)
        digits = (idx[:, None] // (k ** np.arange(length - 1, -1, -1, dtype=np.int64))) % k
        out.append(digits.astype(np.int64))
    return out


__all__ = ["minimal_languages", "is_bfs_canonical", "count_tables", "words_upto"]
