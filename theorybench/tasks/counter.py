"""Deterministic counter automata: languages such as a^n b^n c^n, the shuffle of Dyck-1
languages or Boolean expressions in prefix notation, with their membership label and their
prefix oracle for the next-symbol objective.

A machine has a finite control (``delta[q, a]``, a dead state that absorbs) and k counters
that start at ``init``. Reading letter a in state q requires every counter i to be at least
``need[q, a, i]`` (by default what keeps it non-negative, ``max(0, -inc)``), then adds
``inc[q, a, i]`` and moves to ``delta[q, a]``; a move whose requirement fails leads to the
dead state. A word is a member iff it ends in an accepting state with every counter at 0.
This is the one-way deterministic counter automaton with an end-of-word zero test (Fischer,
Meyer & Rosenberg 1968, "Counter machines and counter languages"), the class the formal-
language length-generalization studies call counter languages (Bhattamishra, Ahuja & Goyal,
EMNLP 2020, section 4).

The prefix oracle is exact for lengths up to ``hi``: every configuration (state, counters)
a word of length at most ``hi`` can reach is enumerated breadth first, one vectorized step
per length; those configurations with the dead state are the states of a complete DFA that
accepts exactly the members of length at most ``hi``, and :class:`CounterOracle` is the
automaton oracle of that DFA, whose state after each prefix is found without a scan over
configurations: the control state by a doubling scan of the small control automaton, the
counters by a cumulative sum, the configuration's index by a sorted search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import NoPrefixOracle
from .prefix import AutomatonOracle

#: Configurations the explicit automaton may hold before the oracle gives up (memory: the
#: oracle keeps one row of lengths x configurations of booleans).
MAX_CONFIGS = 200_000


class CounterError(ValueError):
    """A COUNTER definition that is not a well-formed counter automaton (the message says
    which entry and how to fix it)."""


@dataclass(frozen=True)
class CounterAutomaton:
    delta: np.ndarray    # (S + 1, K) int64; state S is the dead state
    inc: np.ndarray      # (S + 1, K, k) int64
    need: np.ndarray     # (S + 1, K, k) int64
    accept: np.ndarray   # (S + 1,) bool
    start: int
    init: np.ndarray     # (k,) int64

    @property
    def dead(self) -> int:
        return self.delta.shape[0] - 1

    @property
    def counters(self) -> int:
        return self.init.shape[0]

    def run(self, x: np.ndarray) -> np.ndarray:
        """Membership labels (count,) of rows of letter ids: one vectorized step per
        position."""
        x = np.asarray(x, dtype=np.int64)
        q = np.full(x.shape[0], self.start, dtype=np.int64)
        c = np.broadcast_to(self.init, (x.shape[0], self.counters)).copy()
        for col in range(x.shape[1]):
            a = x[:, col]
            ok = (c >= self.need[q, a]).all(axis=1)
            c = c + self.inc[q, a]
            q = np.where(ok, self.delta[q, a], self.dead)
        return (self.accept[q] & (c == 0).all(axis=1)).astype(np.int64)

    def configurations(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The configuration after every prefix of every row: control states (count, n + 1)
        (the dead state once a requirement failed) and counters (count, n + 1, k). No loop
        over positions: the control states by a doubling scan of transition functions, the
        counters by a cumulative sum, the requirement failures by a running maximum."""
        x = np.asarray(x, dtype=np.int64)
        count, n = x.shape
        free = AutomatonOracle(self.delta, self.accept, self.start, np.ones(1, dtype=bool))
        q = free.states(x)                              # the control ignoring requirements
        k = self.counters
        c = np.empty((count, n + 1, k), dtype=np.int64)
        c[:, 0] = self.init
        if n:
            step = self.inc[q[:, :-1], x]               # (count, n, k)
            np.cumsum(step, axis=1, out=c[:, 1:])
            c[:, 1:] += self.init
            fail = ~(c[:, :-1] >= self.need[q[:, :-1], x]).all(axis=2)
            dead = np.zeros((count, n + 1), dtype=bool)
            dead[:, 1:] = np.maximum.accumulate(fail, axis=1)
            q = np.where(dead, self.dead, q)
        return q, c

    def explicit(self, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The configurations reachable by words of length at most ``hi``, as a complete
        DFA: ``(keys, delta, accept, bound)`` with ``keys`` the sorted keys of the
        configurations from which a member is reachable (index i is DFA state i; the last
        state is dead, standing for every other configuration), ``bound`` the counter radix
        of the keys. Raises :class:`NoPrefixOracle` when there are more than :data:`MAX_CONFIGS`."""
        k, letters = self.counters, self.delta.shape[1]
        bound = int(self.init.max(initial=0) + hi * max(0, int(self.inc.max(initial=0))) + 1)
        if (self.delta.shape[0]) * bound ** k >= 1 << 62:
            raise NoPrefixOracle(f"a counter automaton with {k} counters up to {bound} at "
                                 f"lengths <= {hi} has more configurations than int64 keys "
                                 f"hold; use shorter lengths")
        radix = bound ** np.arange(k, dtype=np.int64)

        def key(q, c):
            return q * bound ** k + (c * radix).sum(axis=-1)

        layer_q = np.array([self.start], dtype=np.int64)
        layer_c = self.init[None, :].copy()
        seen = [key(layer_q, layer_c)]
        total = 1
        for _ in range(hi):  # breadth first, one vectorized step per length
            qs = np.repeat(layer_q, letters)
            cs = np.repeat(layer_c, letters, axis=0)
            a = np.tile(np.arange(letters), len(layer_q))
            ok = (cs >= self.need[qs, a]).all(axis=1) & (self.delta[qs, a] != self.dead)
            nq, nc = self.delta[qs, a][ok], (cs + self.inc[qs, a])[ok]
            keys, first = np.unique(key(nq, nc), return_index=True)
            layer_q, layer_c = nq[first], nc[first]
            seen.append(keys)
            total += len(keys)
            if total > 4 * MAX_CONFIGS:
                break
            if not len(keys):
                break
        keys = np.unique(np.concatenate(seen))
        if len(keys) > MAX_CONFIGS:
            raise NoPrefixOracle(f"the counter automaton reaches more than {MAX_CONFIGS:,} "
                                 f"configurations at lengths <= {hi}; use shorter lengths")
        q = keys // bound ** k
        c = (keys[:, None] // radix) % bound
        dead = len(keys)
        delta = np.full((dead + 1, letters), dead, dtype=np.int64)
        for a in range(letters):  # a handful of letters; each a vectorized move
            ok = (c >= self.need[q, a]).all(axis=1) & (self.delta[q, a] != self.dead)
            nc = c + self.inc[q, a]
            ok &= (nc < bound).all(axis=1)
            nk = key(self.delta[q, a], nc)
            at = np.clip(np.searchsorted(keys, nk), 0, dead - 1)
            ok &= keys[at] == nk
            delta[:dead, a] = np.where(ok, at, dead)
        accept = np.zeros(dead + 1, dtype=bool)
        accept[:dead] = self.accept[q] & (c == 0).all(axis=1)
        # keep only the configurations from which some member is reachable within hi
        # letters (a^n b^n c^n: a b read too early leads where no word is accepted); the
        # others join the dead state, so the DFA stays small
        useful, cur = accept.copy(), accept.copy()
        for _ in range(hi):
            cur = cur[delta].any(axis=1)
            if not (cur & ~useful).any():
                break
            useful |= cur
        keep = np.flatnonzero(useful[:dead])
        new = np.full(dead + 1, len(keep), dtype=np.int64)
        new[keep] = np.arange(len(keep))
        delta = np.concatenate([new[delta[keep]],
                                np.full((1, letters), len(keep), dtype=np.int64)])
        return keys[keep], delta, np.concatenate([accept[keep], [False]]), bound


class CounterOracle(AutomatonOracle):
    """The next-symbol sets of a counter automaton's language at lengths ``lengths_ok``:
    the automaton oracle of its explicit configuration DFA (:meth:`CounterAutomaton.explicit`)."""

    def __init__(self, machine: CounterAutomaton, lengths_ok: np.ndarray):
        hi = len(lengths_ok) - 1
        keys, delta, accept, bound = machine.explicit(hi)
        k = machine.counters
        start_key = machine.start * bound ** k + int(
            (machine.init * bound ** np.arange(k, dtype=np.int64)).sum())
        at = int(np.searchsorted(keys, start_key))
        # the start is pruned when no member is that short: every prefix is then dead
        start = at if at < len(keys) and keys[at] == start_key else len(keys)
        super().__init__(delta, accept, start, lengths_ok)
        self.machine, self.keys, self.bound = machine, keys, bound

    def states(self, x: np.ndarray) -> np.ndarray:
        q, c = self.machine.configurations(x)
        k = self.machine.counters
        dead = len(self.keys)
        inside = (q != self.machine.dead) & (c >= 0).all(axis=2) & (c < self.bound).all(axis=2)
        radix = self.bound ** np.arange(k, dtype=np.int64)
        cc = np.clip(c, 0, self.bound - 1)
        nk = q * self.bound ** k + (cc * radix).sum(axis=-1)
        at = np.clip(np.searchsorted(self.keys, nk), 0, dead - 1)
        found = inside & (self.keys[at] == nk)
        # once outside the reachable configurations, a prefix stays dead
        lost = np.maximum.accumulate(~found, axis=1)
        return np.where(lost, dead, at)


def from_dict(spec, alphabet) -> CounterAutomaton:
    """``{"start": q0, "accept": [...], "init": (c_1, ..., c_k), "delta": {q: {symbol:
    (q', (inc_1, ..., inc_k)) or (q', incs, needs)}}}`` -> :class:`CounterAutomaton`.
    A symbol missing from a state's row leads to the dead state (no word continues that
    way)."""
    try:
        return _from_dict(spec, tuple(alphabet))
    except TypeError as exc:
        raise CounterError(f"COUNTER states must be hashable values such as ints or strings "
                           f"({exc}); name each state by an int or a string") from None


def _ints(value, k: int, what: str) -> np.ndarray:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and k == 1:
        value = (value,)
    if not isinstance(value, (tuple, list)) or len(value) != k or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise CounterError(f"{what} must be {k} integer(s) (one per counter), got {value!r:.60}")
    return np.asarray(value, dtype=np.int64)


def _from_dict(spec, alphabet) -> CounterAutomaton:
    example = ('{"start": 0, "accept": [1], "init": (0,), "delta": {0: {"a": (0, (1,)), '
               '"b": (1, (-1,))}, 1: {"b": (1, (-1,))}}}')
    if not isinstance(spec, dict) or not {"start", "accept", "init", "delta"} <= set(spec):
        raise CounterError(f'COUNTER must be a dict with keys "start", "accept", "init" and '
                           f'"delta", e.g. {example}')
    extra = set(spec) - {"start", "accept", "init", "delta"}
    if extra:
        raise CounterError(f"COUNTER has unknown key(s) {sorted(map(str, extra))}; its keys "
                           f'are "start", "accept", "init" and "delta"')
    init = spec["init"]
    if isinstance(init, (int, np.integer)) and not isinstance(init, bool):
        init = (init,)
    if not isinstance(init, (tuple, list)) or not 1 <= len(init) <= 8:
        raise CounterError(f'COUNTER["init"] must be a tuple of 1 to 8 start values, one per '
                           f'counter, e.g. (0,) or (0, 0), not {spec["init"]!r:.60}')
    k = len(init)
    init = _ints(init, k, 'COUNTER["init"]')
    if (init < 0).any():
        raise CounterError(f'COUNTER["init"] = {tuple(init)}: counters start at 0 or more')
    delta = spec["delta"]
    if not isinstance(delta, dict) or not delta:
        raise CounterError('COUNTER["delta"] must be a non-empty dict state -> {symbol: '
                           '(state, increments)}')
    states = list(delta)
    index = {q: i for i, q in enumerate(states)}
    dead = len(states)
    letters = len(alphabet)
    table = np.full((dead + 1, letters), dead, dtype=np.int64)
    inc = np.zeros((dead + 1, letters, k), dtype=np.int64)
    need = np.zeros((dead + 1, letters, k), dtype=np.int64)
    for q, row in delta.items():
        if not isinstance(row, dict):
            raise CounterError(f'COUNTER["delta"][{q!r}] must be a dict symbol -> (state, '
                               f'increments)')
        for sym, move in row.items():
            if sym not in alphabet:
                raise CounterError(f'COUNTER["delta"][{q!r}] has symbol {sym!r}, which is not '
                                   f'in ALPHABET {alphabet}; use the alphabet\'s tokens')
            where = f'COUNTER["delta"][{q!r}][{sym!r}]'
            if not isinstance(move, (tuple, list)) or len(move) not in (2, 3):
                raise CounterError(f"{where} must be (state, increments) or (state, "
                                   f"increments, needs), got {move!r:.60}")
            if move[0] not in index:
                raise CounterError(f"{where} goes to {move[0]!r}, which is not a state; the "
                                   f'states are the keys of COUNTER["delta"]: '
                                   f"{', '.join(map(repr, states))}")
            a = alphabet.index(sym)
            table[index[q], a] = index[move[0]]
            inc[index[q], a] = _ints(move[1], k, f"{where}'s increments")
            need[index[q], a] = np.maximum(0, -inc[index[q], a])
            if len(move) == 3:
                wanted = _ints(move[2], k, f"{where}'s needs")
                if (wanted < need[index[q], a]).any():
                    raise CounterError(f"{where}: needs {tuple(wanted)} would let a counter "
                                       f"fall below 0 (increments {tuple(inc[index[q], a])}); "
                                       f"each need must be at least minus its increment")
                need[index[q], a] = wanted
    if spec["start"] not in index:
        raise CounterError(f'COUNTER start state {spec["start"]!r} is not a key of '
                           f'COUNTER["delta"]')
    if not isinstance(spec["accept"], (list, tuple, set, frozenset)):
        raise CounterError(f'COUNTER["accept"] must be a list of states, e.g. [1], not '
                           f'{spec["accept"]!r:.60}')
    accept = np.zeros(dead + 1, dtype=bool)
    for q in spec["accept"]:
        if q not in index:
            raise CounterError(f"COUNTER accepting state {q!r} is not a key of "
                               f'COUNTER["delta"]')
        accept[index[q]] = True
    return CounterAutomaton(table, inc, need, accept, index[spec["start"]], init)


def reference_member(spec, alphabet, word) -> bool:
    """Membership of one word (a sequence of symbols) read straight off the COUNTER dict,
    symbol by symbol: an independent reference for :meth:`CounterAutomaton.run`."""
    init = spec["init"]
    counters = list((init,) if isinstance(init, int) else init)
    q = spec["start"]
    for sym in word:
        move = spec["delta"].get(q, {}).get(sym)
        if move is None:
            return False
        incs = move[1] if isinstance(move[1], (tuple, list)) else (move[1],)
        needs = (move[2] if isinstance(move[2], (tuple, list)) else (move[2],)) \
            if len(move) == 3 else tuple(max(0, -d) for d in incs)
        if any(c < m for c, m in zip(counters, needs)):
            return False
        counters = [c + d for c, d in zip(counters, incs)]
        q = move[0]
    return q in spec["accept"] and all(c == 0 for c in counters)


__all__ = ["CounterAutomaton", "CounterOracle", "CounterError", "MAX_CONFIGS", "from_dict",
           "reference_member"]
