"""BAPO protocols as data: the prefix oracle f, the attention function g, the suffix oracle h.

Definition (Schnabel, Tomlinson, Swaminathan, Neville, "Lost in transmission: when and why
LLMs fail to reason globally", NeurIPS 2025, arXiv 2505.08140, their definition, in our words):
an (a, b)-BAPO for a problem p on inputs x = x_1..x_n is a triple (f, g, h) where

* f (prefix oracle) maps the prefix x_1..x_k to a string of exactly ``a`` bits;
* g (attention function) decides, for every prefix token separately, whether it is
  selected: g(x_(k+1..n), k, x_i, i) in {0, 1} for i <= k - it sees the whole suffix,
  the split, ONE prefix token and its position, never the other prefix tokens;
* h (suffix oracle) sees f's a bits, a set G of (token, position) pairs, the suffix and k.

It solves p when for every input x, every split k and every G that is a subset of the
selected pairs {(x_i, i) : g(...) = 1} of size min(b, number selected), h returns p(x):
when more than b tokens are selected an adversary decides which b arrive.

Conventions here: splits are k = 1..L-1, exactly the definition's "all k < n" over
positive k (prefix and suffix non-empty); positions are 0-based
(i = 0..k-1); G reaches h sorted by position (a set has no order to exploit), padded
with -1 to width b. All three functions are vectorized over a batch:

* ``f(prefix)``: int (B, k) -> 0/1 array (B, a);
* ``g(suffix, k, token, pos)``: suffix int (M, L-k), token (M,), pos (M,) -> bool (M,);
  each row is one (input, prefix position) pair, so g can only see one prefix token;
* ``h(bits, g_tokens, g_pos, suffix, k)``: (B, a), (B, b), (B, b), (B, L-k) -> int (B,).

``a`` and ``b`` are declared per protocol (a protocol is built for one input length);
the verifier enforces them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

F = Callable[[np.ndarray], np.ndarray]
G = Callable[[np.ndarray, int, np.ndarray, np.ndarray], np.ndarray]
H = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]


def no_bits(prefix: np.ndarray) -> np.ndarray:
    """The prefix oracle of a protocol with a = 0."""
    return np.zeros((len(prefix), 0), dtype=np.int64)


def attend_none(suffix: np.ndarray, k: int, token: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The attention function of a protocol with b = 0."""
    return np.zeros(len(token), dtype=bool)


@dataclass
class Protocol:
    """An (a, b)-BAPO for one input length: three vectorized callables and the bandwidth.

    ``splits`` optionally restricts the splits the protocol is meant for (None = all
    1..L-1); ``meta`` carries what built it (for evidence).
    """

    name: str
    a: int
    b: int
    f: F = no_bits
    g: G = attend_none
    h: H | None = None
    description: str = ""
    splits: tuple[int, ...] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def bandwidth(self) -> tuple[int, int]:
        return (self.a, self.b)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "a": self.a, "b": self.b, "description": self.description,
                **({"meta": self.meta} if self.meta else {})}


def split_rows(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(prefix, suffix) of a batch at split k."""
    return x[:, :k], x[:, k:]


def selected_mask(protocol: Protocol, x: np.ndarray, k: int) -> np.ndarray:
    """Bool (B, k): which prefix tokens g selects, calling g one (input, position) per row."""
    B = len(x)
    prefix, suffix = split_rows(x, k)
    if protocol.b == 0:
        return np.zeros((B, k), dtype=bool)
    rows = np.repeat(np.arange(B), k)
    pos = np.tile(np.arange(k), B)
    out = np.asarray(protocol.g(suffix[rows], k, prefix[rows, pos], pos))
    return out.reshape(B, k).astype(bool)


def run(protocol: Protocol, x: np.ndarray, k: int,
        chooser: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Outputs of the protocol on a batch at split k, G chosen by ``chooser``.

    ``chooser(sel)`` maps the (B, k) selection mask to a (B, k) mask of the tokens that
    arrive (at most b per row); the default delivers the first b selected positions.
    """
    x = np.asarray(x, dtype=np.int64)
    sel = selected_mask(protocol, x, k)
    arrive = chooser(sel) if chooser is not None else first_b(sel, protocol.b)
    bits = np.asarray(protocol.f(x[:, :k]))
    gt, gp = pack_g(x[:, :k], arrive, protocol.b)
    return np.asarray(protocol.h(bits, gt, gp, x[:, k:], k)).reshape(-1)


def first_b(sel: np.ndarray, b: int) -> np.ndarray:
    """Keep the first b selected positions of every row."""
    return sel & (np.cumsum(sel, axis=1) <= b)


def pack_g(prefix: np.ndarray, arrive: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(tokens, positions) of the arriving pairs, sorted by position, padded with -1 to b."""
    B, k = arrive.shape
    width = max(b, 0)
    gt = np.full((B, width), -1, dtype=np.int64)
    gp = np.full((B, width), -1, dtype=np.int64)
    if width == 0 or k == 0:
        return gt, gp
    order = np.argsort(~arrive, axis=1, kind="stable")[:, :width]
    ok = np.take_along_axis(arrive, order, axis=1)
    toks = np.take_along_axis(prefix, order, axis=1)
    gt[:, : order.shape[1]] = np.where(ok, toks, -1)
    gp[:, : order.shape[1]] = np.where(ok, order, -1)
    return gt, gp


__all__ = ["Protocol", "no_bits", "attend_none", "selected_mask", "run", "pack_g",
           "first_b", "split_rows"]
