"""Task tokens -> circuit input bits.

Circuits read bits; a task's decision function reads token ids, position ``i`` ranging
over ``choices[i]`` (``DecisionFunction.choices``). The encoding used by every builder:

* a position with ONE choice (a fixed separator such as "=" or "+") gets no bit;
* a position with TWO choices (a, b) gets one bit, 1 iff the token is b (for the bit
  tasks, whose choices are ("0", "1") = (0, 1), the bit is the token itself);
* a position with m > 2 choices gets m bits, one-hot: bit (i, c) is 1 iff the token is c.

So the circuit for a family at length n is a function of ``Encoding.n_bits`` bits that
must agree with the task's reference on every encoded valid input (inputs that are not
one-hot encodings are outside the domain). The number of bits is polynomial in n for
every family of the suite (at most length x alphabet size), so polynomial-size circuits
over the encoding are polynomial-size circuits in the usual sense.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...tasks.base import DecisionFunction
from .ir import Circuit, CircuitError


@dataclass
class Encoding:
    """Bit layout: bit j tests ``tokens[:, pos[j]] == tok[j]``."""

    choices: tuple[tuple[int, ...], ...]
    pos: np.ndarray
    tok: np.ndarray
    names: list[str]

    @classmethod
    def of(cls, df: DecisionFunction) -> "Encoding":
        vocab = df.task.vocab
        pos: list[int] = []
        tok: list[int] = []
        names: list[str] = []
        for i, ch in enumerate(df.choices):
            if len(ch) == 1:
                continue
            picks = ch[1:] if len(ch) == 2 else ch
            for t in picks:
                pos.append(i)
                tok.append(int(t))
                names.append(f"x{i}={vocab[int(t)]}")
        return cls(tuple(tuple(int(t) for t in c) for c in df.choices),
                   np.array(pos, dtype=np.int64), np.array(tok, dtype=np.int64), names)

    @property
    def n_bits(self) -> int:
        return len(self.pos)

    @property
    def length(self) -> int:
        return len(self.choices)

    def encode(self, tokens: np.ndarray) -> np.ndarray:
        """(batch, length) token ids -> (batch, n_bits) uint8."""
        tokens = np.asarray(tokens)
        if tokens.ndim != 2 or tokens.shape[1] != self.length:
            raise CircuitError(f"tokens must have shape (batch, {self.length}), got {tokens.shape}")
        out = np.zeros((len(tokens), self.n_bits), dtype=np.uint8)
        for positions, starts, lut in self._plan():
            if lut is None:  # binary positions: one bit, the second choice
                out[:, starts] = tokens[:, positions] == self.tok[starts][None, :]
                continue
            t = tokens[:, positions]
            rank = lut[np.clip(t, 0, len(lut) - 1)]
            rank[(t < 0) | (t >= len(lut))] = -1
            rows, cols = np.nonzero(rank >= 0)
            out[rows, starts[cols] + rank[rows, cols]] = 1
        return out

    def _plan(self):
        """Groups of positions sharing one choice tuple: (positions, bit starts, lut)."""
        plan = getattr(self, "_plan_cache", None)
        if plan is None:
            starts = self._starts()
            groups: dict[tuple[int, ...], list[int]] = {}
            for i, ch in enumerate(self.choices):
                if len(ch) > 1:
                    groups.setdefault(ch if len(ch) > 2 else (), []).append(i)
            plan = []
            for ch, pos in groups.items():
                pos_a = np.array(pos, dtype=np.int64)
                lut = None
                if ch:
                    lut = np.full(max(ch) + 1, -1, dtype=np.int64)
                    lut[list(ch)] = np.arange(len(ch))
                plan.append((pos_a, starts[pos_a], lut))
            self._plan_cache = plan
        return plan

    def circuit(self, name: str = "") -> Circuit:
        return Circuit(self.n_bits, name=name, input_names=self.names)

    def is_(self, c: Circuit, i: int, token: int) -> int:
        """A node that is 1 iff position ``i`` holds token id ``token``."""
        ch = self.choices[i]
        token = int(token)
        if token not in ch:
            return c.const(0)
        if len(ch) == 1:
            return c.const(1)
        if len(ch) == 2:
            start = int(self._starts()[i])
            return c.input(start) if token == ch[1] else c.not_(c.input(start))
        bitmap = getattr(self, "_bitmap", None)
        if bitmap is None:
            bitmap = self._bitmap = {(int(p), int(t)): j for j, (p, t)
                                     in enumerate(zip(self.pos.tolist(), self.tok.tolist()))}
        return c.input(bitmap[(i, token)])

    def _starts(self) -> np.ndarray:
        st = getattr(self, "_start_cache", None)
        if st is None:
            first: dict[int, int] = {}
            for j, p in enumerate(self.pos.tolist()):
                first.setdefault(p, j)
            st = np.full(self.length, -1, dtype=np.int64)
            for p, j in first.items():
                st[p] = j
            self._start_cache = st
        return st

    def is_any(self, c: Circuit, i: int, tokens: Sequence[int]) -> int:
        """1 iff position ``i`` holds one of ``tokens``."""
        ch = self.choices[i]
        hits = [t for t in tokens if t in ch]
        if not hits:
            return c.const(0)
        if len(hits) == len(ch):
            return c.const(1)
        return c.or_(*[self.is_(c, i, t) for t in hits])
