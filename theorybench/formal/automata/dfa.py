"""Complete deterministic automata with outputs on states: run, minimize, access words."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np


@dataclass
class DFA:
    """A complete deterministic automaton with outputs on states (Moore machine).

    ``delta[q, a]`` is the successor of state q on letter index a; ``output[q]`` the value
    of a word ending in q (1/0 for a language; other ints for multi-valued tasks).
    """

    alphabet: tuple[str, ...]
    delta: np.ndarray
    output: np.ndarray
    start: int = 0

    @property
    def size(self) -> int:
        return int(self.delta.shape[0])

    @property
    def k(self) -> int:
        return len(self.alphabet)

    def states_after(self, words: np.ndarray) -> np.ndarray:
        """The state reached by each row of ``words`` (letter indices)."""
        words = np.asarray(words, dtype=np.int64)
        state = np.full(words.shape[0], self.start, dtype=np.int64)
        for col in range(words.shape[1]):
            state = self.delta[state, words[:, col]]
        return state

    def evaluate(self, words: np.ndarray) -> np.ndarray:
        return self.output[self.states_after(words)]

    def states_of_length(self, length: int) -> np.ndarray:
        """States of all k^length words in lexicographic (base-k code) order."""
        state = np.array([self.start], dtype=np.int64)
        for _ in range(length):
            state = self.delta[state].reshape(-1)
        return state

    def minimize(self) -> "DFA":
        """The minimal equivalent DFA (reachable part, Moore partition refinement),
        states numbered in breadth-first order from the start (a canonical form)."""
        reach = self._reachable()
        remap = -np.ones(self.size, dtype=np.int64)
        remap[reach] = np.arange(len(reach))
        delta = remap[self.delta[reach]]
        out = self.output[reach]
        _, part = np.unique(out, return_inverse=True)
        part = part.reshape(-1)
        while True:
            sig = np.concatenate([part[:, None], part[delta]], axis=1)
            _, new = np.unique(sig, axis=0, return_inverse=True)
            new = new.reshape(-1)
            if new.max() == part.max():
                part = new
                break
            part = new
        q = int(part.max()) + 1
        rep = np.zeros(q, dtype=np.int64)
        rep[part[::-1]] = np.arange(len(part))[::-1]
        small = DFA(self.alphabet, part[delta[rep]], out[rep], int(part[remap[self.start]]))
        return small._bfs_numbered()

    def _reachable(self) -> np.ndarray:
        seen = np.zeros(self.size, dtype=bool)
        seen[self.start] = True
        frontier = np.array([self.start])
        while len(frontier):
            nxt = np.unique(self.delta[frontier].reshape(-1))
            nxt = nxt[~seen[nxt]]
            seen[nxt] = True
            frontier = nxt
        return np.flatnonzero(seen)

    def _bfs_numbered(self) -> "DFA":
        order, seen = [self.start], {self.start}
        i = 0
        while i < len(order):
            for a in range(self.k):
                t = int(self.delta[order[i], a])
                if t not in seen:
                    seen.add(t)
                    order.append(t)
            i += 1
        new = -np.ones(self.size, dtype=np.int64)
        new[order] = np.arange(len(order))
        return DFA(self.alphabet, new[self.delta[order]], self.output[order], 0)

    def access_words(self) -> list[tuple[int, ...]]:
        """A shortest (then lexicographically first) word reaching each state."""
        words: list[tuple[int, ...] | None] = [None] * self.size
        words[self.start] = ()
        queue = deque([self.start])
        while queue:
            q = queue.popleft()
            for a in range(self.k):
                t = int(self.delta[q, a])
                if words[t] is None:
                    words[t] = words[q] + (a,)
                    queue.append(t)
        return [w if w is not None else () for w in words]

    def separating_suffix(self, p: int, q: int, undefined: int | None = None
                          ) -> tuple[int, ...] | None:
        """A shortest z with output(p.z) != output(q.z), or None if there is none; with
        ``undefined``, only a z where neither output is that value counts."""
        seen = {(p, q): ()}
        queue = deque([(p, q)])
        while queue:
            a_, b_ = queue.popleft()
            z = seen[(a_, b_)]
            oa, ob = int(self.output[a_]), int(self.output[b_])
            if oa != ob and undefined not in (oa, ob):
                return z
            for a in range(self.k):
                pair = (int(self.delta[a_, a]), int(self.delta[b_, a]))
                if pair not in seen:
                    seen[pair] = z + (a,)
                    queue.append(pair)
        return None

    def spell(self, word: Sequence[int]) -> str:
        return " ".join(self.alphabet[a] for a in word) or "(empty word)"

    def to_dict(self) -> dict[str, Any]:
        return {"states": self.size, "alphabet": list(self.alphabet), "start": self.start,
                "delta": self.delta.tolist(), "output": self.output.tolist()}

    def render(self) -> str:
        """A text transition table (one row per state)."""
        head = "state  out  " + "  ".join(f"{a:>4}" for a in self.alphabet)
        rows = [head]
        for q in range(self.size):
            mark = ">" if q == self.start else " "
            rows.append(f"{mark}{q:<5} {int(self.output[q]):>3}  "
                        + "  ".join(f"{int(t):>4}" for t in self.delta[q]))
        return "\n".join(rows)


def from_table(alphabet: Sequence[str], delta, output, start: int = 0) -> DFA:
    """A DFA from plain lists (for tests and hand-written automata)."""
    return DFA(tuple(alphabet), np.asarray(delta, dtype=np.int64),
               np.asarray(output, dtype=np.int64), start)
