"""The built-in positional predicates that ``#import NAME`` makes available.

C-RASP[periodic, local] (Huang et al., "A formal framework for understanding length
generalization in transformers", ICLR 2025, Def. 8) adds unary predicates phi(i) that are
periodic in the position, and binary predicates psi(i, j) that are local (true only for
j = i - c) and guard counts: ``#[psi] phi`` at position i counts the j <= i with psi(i, j)
and phi(j).

Positions are 1-based, as in Huang et al. (the public interpreter counts from 0; its
``pos_even`` therefore means "odd" here - write ``pos_odd`` for its meaning). With
end-of-string acceptance the appended EOS position is n + 1 and predicates see it too.

Table (``NAME``: meaning, i = current position, j = counted position):

* ``first``: i = 1
* ``pos_even`` / ``pos_odd``: i is even / odd
* ``mod_P_R`` (e.g. ``mod_3_1``): i mod P = R, for P >= 1, 0 <= R < P (periodic)
* ``prev`` (alias ``pred``, as in the public tool's examples): j = i - 1 (local)
* ``prev_K`` (alias ``predK``, e.g. ``pred4``): j = i - K for K >= 0 (local)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class UnaryPredicate:
    name: str
    doc: str
    fn: Callable[[np.ndarray], np.ndarray]  # 1-based positions -> bool

    arity = 1

    def __call__(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(self.fn(np.asarray(positions)), dtype=bool)


@dataclass(frozen=True)
class BinaryPredicate:
    """A local predicate psi(i, j) = [j = i - offset]."""

    name: str
    doc: str
    offset: int

    arity = 2

    def holds(self, i: int, j: int) -> bool:
        return j == i - self.offset

    def guarded_count(self, values: np.ndarray) -> np.ndarray:
        """(B, T) bool/int at positions j -> (B, T) counts at i: sum_j psi(i, j) * values[j]."""
        out = np.zeros(values.shape, dtype=np.int64)
        k = self.offset
        if k < values.shape[1]:
            out[:, k:] = values[:, : values.shape[1] - k]
        return out


_MOD = re.compile(r"^mod_(\d+)_(\d+)$")
_PREV = re.compile(r"^(?:prev_|pred)(\d+)$")


def lookup(name: str) -> UnaryPredicate | BinaryPredicate | None:
    """The predicate called ``name``, or None if there is no such built-in."""
    if name == "first":
        return UnaryPredicate(name, "i = 1", lambda i: i == 1)
    if name == "pos_even":
        return UnaryPredicate(name, "i even (1-based)", lambda i: i % 2 == 0)
    if name == "pos_odd":
        return UnaryPredicate(name, "i odd (1-based)", lambda i: i % 2 == 1)
    m = _MOD.match(name)
    if m:
        p, r = int(m.group(1)), int(m.group(2))
        if p >= 1 and r < p:
            if p > 1 << 62:  # positions (int64) are all below p: i mod p = i, exactly
                return UnaryPredicate(name, f"i mod {p} = {r}", lambda i, r=r: i == r)
            return UnaryPredicate(name, f"i mod {p} = {r}", lambda i, p=p, r=r: i % p == r)
        return None
    if name in ("prev", "pred"):
        return BinaryPredicate(name, "j = i - 1", 1)
    m = _PREV.match(name)
    if m:
        k = int(m.group(1))
        return BinaryPredicate(name, f"j = i - {k}", k)
    return None


KNOWN = ("first", "pos_even", "pos_odd", "mod_P_R", "prev", "pred", "prev_K", "predK")
