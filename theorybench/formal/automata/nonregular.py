"""A checked proof of non-regularity: a pumping family of pairwise distinguishable prefixes.

Residual (Myhill-Nerode) classes counted up to a length bound can only *suggest*
non-regularity: a regular language with many states (Dyck with depth at most D, a sparse
support with a large position) has as many classes as the bound can show and looks the
same.  A :class:`PumpCertificate` is a reduction from a language known to be non-regular:

    words x, y, v, w and a relation P(i, j) in {i = j, i >= j, i <= j} (or a complement)
    with  [output(x y^i v^j w) = a]  =  P(i, j)  for all i, j >= 0.

Argument, valid for every length: if a DFA computed the task, then
L'' = {a^i b^j : the DFA gives output a on x y^i v^j w} would be regular (regular languages
are closed under quotients by words, inverse homomorphisms - here a -> y, b -> v - and
intersection with a*b*; Hopcroft & Ullman 1979, Theorems 3.5-3.7), but L'' = {a^i b^j :
P(i, j)}, which is not: the prefixes a^i are pairwise inequivalent (for i < i' the suffix
b^{i'} separates them under = and >=, b^i under <=), so it has infinitely many
Myhill-Nerode classes (Nerode 1958, Theorem 1).  The words x y^i v^j w must all be in the
task's domain (their output is never INVALID), so the argument needs nothing about words
outside it.  The prefixes x y^0, ..., x y^i are pairwise distinguishable, so the number of
residual classes of prefixes of length <= m grows at least linearly in m.

The premise "for all i, j" is checked, not proved: on every i, j <= ``grid`` and, far
beyond the enumeration bound, on the pairs around the diagonal (where the relations
change) at i ~ 16, 32, 64, ... up to the family's longest word (at most
:data:`FAR_MAX_LEN`).  Because a numeric parameter of the task can bound a counter (a
depth bound D makes Dyck regular yet indistinguishable from Dyck below depth D), the
far check must pass sizes above every integer parameter of the task; where the family's
lengths or the time budget stop it earlier, there is no certificate and the verdict is
*inconclusive at this bound*.  A certificate is therefore ``verified <= N`` with N the
longest checked word.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..language import INVALID, LanguageView

#: All pairs i, j <= GRID are checked (after a first pass with i, j <= 3).
GRID = 10
#: Longest word of the far check.
FAR_MAX_LEN = 4096
#: The far check must reach i >= FAR_MIN (and above every integer parameter).
FAR_MIN = 64
#: CPU seconds one search may take (CPU time, not wall-clock: the same on a busy machine).
BUDGET_S = 6.0

_RELATIONS = {
    "i = j": lambda i, j: i == j,
    "i >= j": lambda i, j: i >= j,
    "i <= j": lambda i, j: i <= j,
}
_COMPLEMENT = {"i = j": "i != j", "i >= j": "i < j", "i <= j": "i > j"}


def _relation(name: str):
    for base, fn in _RELATIONS.items():
        if name == base:
            return fn
        if name == _COMPLEMENT[base]:
            return lambda i, j, fn=fn: not fn(i, j)
    raise ValueError(f"unknown relation {name!r}")


@dataclass
class PumpCertificate:
    """x y^i v^j w has output ``accept`` iff ``relation``(i, j) (letter-index words)."""

    x: tuple[int, ...]
    y: tuple[int, ...]
    v: tuple[int, ...]
    w: tuple[int, ...]
    relation: str
    accept: int
    grid: int
    far: list[int] = field(default_factory=list)
    max_length: int = 0
    spelled: dict[str, str] = field(default_factory=dict)

    def word(self, i: int, j: int) -> tuple[int, ...]:
        return self.x + self.y * i + self.v * j + self.w

    def explanation(self) -> str:
        s = self.spelled
        return (f"the prefixes x y^i (x = {s['x']}, y = {s['y']}) are pairwise "
                f"distinguishable: x y^i v^j w (v = {s['v']}, w = {s['w']}) has output "
                f"{self.accept} exactly when {self.relation}, checked for all i, j <= "
                f"{self.grid} and around the diagonal at i = {self.far} (words up to length "
                f"{self.max_length}); by quotients and the inverse homomorphism a -> y, "
                f"b -> v a DFA would make {{a^i b^j : {self.relation}}} regular, which it is "
                f"not (Myhill-Nerode), so no finite automaton computes the task")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "pumping family", **self.spelled, "relation": self.relation,
                "output": self.accept, "checked_grid": self.grid, "far_sizes": self.far,
                "verified_up_to": self.max_length,
                "argument": ("Myhill-Nerode (Nerode 1958, Thm 1) with closure of regular "
                             "languages under quotient, inverse homomorphism and "
                             "intersection (Hopcroft & Ullman 1979, Thms 3.5-3.7); the "
                             "relation is checked on the listed sizes, not proved")}


def _words_up_to(k: int, lo: int, hi: int) -> list[tuple[int, ...]]:
    return [w for L in range(lo, hi + 1) for w in itertools.product(range(k), repeat=L)]


def _outputs(view: LanguageView, words: list[tuple[int, ...]]) -> np.ndarray:
    """Outputs of ``words`` (any lengths), one membership call per length."""
    out = np.empty(len(words), dtype=np.int64)
    by_len: dict[int, list[int]] = {}
    for idx, wd in enumerate(words):
        by_len.setdefault(len(wd), []).append(idx)
    for length, idxs in by_len.items():
        arr = np.array([words[i] for i in idxs], dtype=np.int64).reshape(len(idxs), length)
        out[idxs] = view.membership(arr)
    return out


def _match(M: np.ndarray) -> tuple[str, int] | None:
    """(relation, output) with [M == output] equal to the relation on the grid, or None."""
    if (M == INVALID).any():
        return None
    i, j = np.indices(M.shape)
    for a in sorted(np.unique(M).tolist(), reverse=True):  # output 1 before 0
        hit = M == a
        for base, fn in _RELATIONS.items():
            rel = fn(i, j)
            if np.array_equal(hit, rel):
                return base, int(a)
            if np.array_equal(hit, ~rel):
                return _COMPLEMENT[base], int(a)
    return None


def _int_params(view: LanguageView) -> list[int]:
    """The task's integer parameters other than n, defaults included."""
    for length in range(1, 64):
        task = view.instance(length)
        if task is not None:
            break
    else:
        return []
    vals = [getattr(task, p.name, None) for p in type(task).params if p.name != "n"]
    return [int(v) for v in vals if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]


def find_certificate(view: LanguageView, grid: int = GRID, far_max_len: int = FAR_MAX_LEN,
                     budget_s: float = BUDGET_S) -> tuple[PumpCertificate | None, str]:
    """The shortest pumping certificate of non-regularity for ``view`` (x, w of length
    <= 2 and y, v of length 1..2 on two letters; <= 1 and 1 beyond), or (None, why)."""
    started = time.process_time()
    k = view.k
    ends = _words_up_to(k, 0, 2 if k <= 2 else 1)
    pumps = _words_up_to(k, 1, 2 if k <= 2 else 1)
    cands = sorted(((x, y, v, w) for x in ends for y in pumps for v in pumps for w in ends
                    if y != v), key=lambda c: (sum(map(len, c)), c))
    small = 3
    words = [x + y * i + v * j + w for x, y, v, w in cands
             for i in range(small + 1) for j in range(small + 1)]
    out = _outputs(view, words).reshape(len(cands), small + 1, small + 1)
    alive = [c for c, M in zip(cands, out) if _match(M) is not None]
    why = (f"no pumping family x y^i v^j w ({len(cands)} tried) shows a relation "
           f"i = j, i >= j or i <= j (or a complement) on i, j <= {small}")
    for x, y, v, w in alive:
        if time.process_time() - started > budget_s:
            return None, f"the search for a pumping family ran out of its {budget_s:.0f} s budget"
        grid_words = [x + y * i + v * j + w for i in range(grid + 1) for j in range(grid + 1)]
        M = _outputs(view, grid_words).reshape(grid + 1, grid + 1)
        got = _match(M)
        if got is None:
            why = f"the pumping families that fit i, j <= {small} fail on i, j <= {grid}"
            continue
        relation, accept = got
        cert = PumpCertificate(x, y, v, w, relation, accept, grid,
                               spelled={k_: view.spell(s) for k_, s in
                                        zip("xyvw", (x, y, v, w))})
        ok, why = _far_check(view, cert, far_max_len, started, budget_s)
        if ok:
            return cert, ""
    return None, why


def _far_check(view: LanguageView, cert: PumpCertificate, far_max_len: int,
               started: float, budget_s: float) -> tuple[bool, str]:
    """Check the relation around the diagonal at sizes 16, 32, ... (words up to the family's
    longest length, at most ``far_max_len``); the sizes must pass FAR_MIN and every integer
    parameter of the task."""
    rel = _relation(cert.relation)
    step = max(len(cert.y), len(cert.v))
    fixed = len(cert.x) + len(cert.w)
    need = max([FAR_MIN] + [p + 1 for p in _int_params(view)])
    a, stop = 16, f"the family's longest words (at most {far_max_len})"
    reachable = 0
    while fixed + step * (2 * (2 * reachable or 16) + 1) <= far_max_len:
        reachable = 2 * reachable or 16
    if reachable < need:  # known before evaluating a single far word
        return False, (f"the pumping family x = {cert.spelled['x']}, y = {cert.spelled['y']}, "
                       f"v = {cert.spelled['v']}, w = {cert.spelled['w']} follows "
                       f"{cert.relation} for i, j <= {cert.grid}, but words up to length "
                       f"{far_max_len} reach only i = {reachable}, below i = {need}, the size "
                       f"the check must pass (above {FAR_MIN} and every integer parameter of "
                       f"the task, which could bound a counter)")
    # a view not backed by task instances (a predicate) is defined at every length
    backed = any(view.instance(L) is not None for L in range(1, 9))
    while True:
        pairs = [(a, a), (a, a - 1), (a - 1, a), (a, a + 1), (a + 1, a), (a, 0), (0, a),
                 (a, a // 2), (a // 2, a)]
        words = [cert.word(i, j) for i, j in pairs]
        longest = max(map(len, words))
        if longest > far_max_len:
            break
        if time.process_time() - started > budget_s:
            stop = "its time budget"
            break
        ended = [L for L in sorted({len(wd) for wd in words})
                 if backed and all(view.instance(L + d) is None for d in range(3))]
        if ended:
            # undefined at three lengths in a row: past the family's largest n
            stop = f"the family's lengths (none defined at {ended[0]}..{ended[0] + 2})"
            break
        got = _outputs(view, words)
        for (i, j), o in zip(pairs, got.tolist()):
            if o == INVALID or (o == cert.accept) != bool(rel(i, j)):
                return False, (f"the pumping family x = {cert.spelled['x']}, y = "
                               f"{cert.spelled['y']}, v = {cert.spelled['v']}, w = "
                               f"{cert.spelled['w']} follows {cert.relation} for i, j <= "
                               f"{cert.grid} but not at i = {i}, j = {j} (output {o}): the "
                               f"language can be regular with more states than small bounds "
                               f"show")
        cert.far.append(a)
        cert.max_length = max(cert.max_length, longest)
        a *= 2
    reached = cert.far[-1] if cert.far else 0
    if reached < need:
        return False, (f"the pumping family x = {cert.spelled['x']}, y = {cert.spelled['y']}, "
                       f"v = {cert.spelled['v']}, w = {cert.spelled['w']} follows "
                       f"{cert.relation} up to i = {reached or cert.grid}; the check was "
                       f"stopped by {stop} below i = {need}, the size it must pass (above "
                       f"{FAR_MIN} and every integer parameter of the task, which could bound "
                       f"a counter)")
    return True, ""


__all__ = ["PumpCertificate", "find_certificate", "GRID", "FAR_MAX_LEN", "FAR_MIN"]
