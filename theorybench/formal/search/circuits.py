"""Uniform circuit families that agree with a task on every input up to N, found by
enumerating a small template language (issue 29, item 3: circuit synthesis feeding a
verdict).

Exact synthesis (:mod:`theorybench.formal.circuits.synth`) finds the smallest circuit for
ONE n; a row of such circuits says nothing about the family, and a size fit over n <= 10
cannot tell polynomial from exponential growth. Here every candidate is a *uniform* family
by construction: a formula over the positions 0..L-1 of a string over one alphabet A,
which names one constant-depth circuit at every length L, of size polynomial in L. So the
only thing left to check is agreement with the task, and that is checked on every input
of every n whose space has at most :data:`MAX_INPUTS` members - the same footing as a
program found by :mod:`.programs` (at best ``verified <= N``).

The templates (R a set of letter pairs, S, S' sets of letters, # counts positions):

=========  ==============================================  ================  =======
kind       formula                                         circuit           depth
=========  ==============================================  ================  =======
first      x_0 in S                                        OR of one-hot     <= 1
last       x_(L-1) in S                                    OR                <= 1
ends       (x_0, x_(L-1)) in R                             OR of ANDs        <= 2
unary      all / some i: x_i in S                          AND / OR over i   <= 2
next       all / some i < L-1: (x_i, x_(i+1)) in R         AND-OR-AND        <= 3
mirror     all / some i: (x_i, x_(L-1-i)) in R             AND-OR-AND        <= 3
half       all / some i < L/2: (x_i, x_(i+L/2)) in R       AND-OR-AND        <= 3
before     all / some i < j: (x_i, x_j) in R               O(L^2) gates      <= 3
count      #S > #S', #S >= #S', #S = #S', #S != #S'        THR gates (TC0)   <= 4
=========  ==============================================  ================  =======

and a conjunction or disjunction of two of them. Every kind but ``count`` is AND/OR/NOT
(AC0); ``count`` needs threshold gates (#S > #S' is THR_(L+1) over the indicators of S and
the negated indicators of S'), so it is offered only to TC0. ``half`` reads "L is even and
...": at an odd L both of its quantifiers are false (a constant gate), which is how copies
ww, rejected at every odd n, are written. Letter
pairs are searched for alphabets of at most 7 letters (every relation for at most 3
letters; equality, inequality, single pairs and their complements beyond); counts compare
any two disjoint letter sets for at most 4 letters, single letters and their complements
beyond.

Search. Each candidate's truth on every checked input is computed at once per kind (a
relation is a bitmask over the |A|^2 letter pairs; each input's mask of the pairs it
contains decides every relation of a kind in one table lookup), identical truth vectors
keep only their first (simplest) formula, and a single formula is tried before pairs,
AC0 kinds before counts. Pairs: a conjunction must be true on every positive input, so
only formulas true there are paired, and a pair is right when no negative input makes
both true (one integer matrix product over the negative inputs); dually for a
disjunction. The work is bounded in advance (:data:`MAX_POOL` formulas per pairing), not
in seconds, so every machine finds the same formula.

A found formula is returned with a circuit builder (:func:`builder_of`) that the AC0 and
TC0 construction rules run exactly like a hand-written one: built at the family's
analysis lengths and beyond, each circuit evaluated by :mod:`theorybench.formal.circuits`
against the task's reference (every input where enumerable, samples beyond), its depth
and size measured.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import tasks
from ...errors import EnumerationTooLarge, TaskParameterError
from ...tasks.digest import task_identity
from ..circuits.builders import Builder
from ..circuits.ir import CircuitError
from .programs import instance

#: Largest input space of one n checked exhaustively (and so the N of a found formula).
MAX_INPUTS = 1 << 14
#: Largest n tried, whatever the alphabet; fewest lengths a formula must be checked at.
MAX_N = 16
MIN_NS = 3
#: Largest alphabet whose letter-pair relations are all enumerated (2^(|A|^2) - 2 of
#: them); larger alphabets get equality, inequality and single pairs only.
FULL_PAIRS = 3
#: Largest alphabet searched at all (letter sets: 2^|A| - 2 of them), and the largest
#: whose letter pairs are searched (a relation is a bitmask of |A|^2 bits in one int64).
MAX_LETTERS = 8
MAX_PAIR_LETTERS = 7
#: Largest alphabet whose count atoms compare every two disjoint letter sets.
FULL_COUNTS = 4
#: Most formulas paired in a conjunction or a disjunction (the first in enumeration order).
MAX_POOL = 512
#: Most inputs over all checked n together.
MAX_TOTAL = 1 << 16

PAIR_KINDS = ("next", "mirror", "half", "before")
OPS = (">", ">=", "=", "!=")


@dataclass(frozen=True)
class Atom:
    """One template formula; ``rel`` a frozenset of letter indices (first, last, unary) or
    of letter-index pairs (ends and the pair kinds); ``left``/``right`` the letter sets of
    a count."""

    kind: str
    quant: str = ""                    # "all" | "some" (unary and pair kinds)
    rel: frozenset = frozenset()
    left: frozenset = frozenset()      # count: #left op #right
    right: frozenset = frozenset()
    op: str = ""

    @property
    def basis(self) -> str:
        return "tc0" if self.kind == "count" else "ac0"

    def text(self, letters: tuple[str, ...]) -> str:
        def lset(s):
            return "{" + ", ".join(letters[a] for a in sorted(s)) + "}"

        def rset(a: str, b: str) -> str:
            k = len(letters)
            same = frozenset((i, i) for i in range(k))
            if self.rel == same:
                return f"{a} = {b}"
            if self.rel == frozenset(itertools.product(range(k), repeat=2)) - same:
                return f"{a} != {b}"
            return f"({a}, {b}) in {{" + ", ".join(f"{letters[p]}{letters[q]}"
                                                   for p, q in sorted(self.rel)) + "}"
        q = "for all" if self.quant == "all" else "for some"
        if self.kind == "first":
            return f"x_0 in {lset(self.rel)}"
        if self.kind == "last":
            return f"x_(L-1) in {lset(self.rel)}"
        if self.kind == "ends":
            return rset("x_0", "x_(L-1)")
        if self.kind == "unary":
            return f"{q} i: x_i in {lset(self.rel)}"
        if self.kind == "next":
            return f"{q} i < L-1: " + rset("x_i", "x_(i+1)")
        if self.kind == "mirror":
            return f"{q} i: " + rset("x_i", "x_(L-1-i)")
        if self.kind == "half":
            return f"L even and {q} i < L/2: " + rset("x_i", "x_(i+L/2)")
        if self.kind == "before":
            return f"{q} i < j: " + rset("x_i", "x_j")
        return f"#{lset(self.left)} {self.op} #{lset(self.right)}"


@dataclass(frozen=True)
class Formula:
    """One atom, or two joined by ``join`` ("and" / "or")."""

    atoms: tuple[Atom, ...]
    join: str = ""

    @property
    def basis(self) -> str:
        return "tc0" if any(a.basis == "tc0" for a in self.atoms) else "ac0"

    def text(self, letters: tuple[str, ...]) -> str:
        if len(self.atoms) == 1:
            return self.atoms[0].text(letters)
        word = " AND " if self.join == "and" else " OR "
        return word.join(f"({a.text(letters)})" for a in self.atoms)


@dataclass(frozen=True)
class SearchResult:
    """A formula or None with the reason; ``checked_ns`` the lengths n whose every input
    was checked, ``letters`` the alphabet (token strings) the formula's indices name."""

    formula: Formula | None
    letters: tuple[str, ...]
    checked_ns: tuple[int, ...]
    candidates: int
    reason: str = ""
    basis: str = "ac0"
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def checked_n(self) -> int:
        return max(self.checked_ns) if self.checked_ns else 0

    @property
    def text(self) -> str:
        return "" if self.formula is None else self.formula.text(self.letters)

    def to_dict(self) -> dict[str, Any]:
        return {"formula": self.text or None,
                "basis": None if self.formula is None else self.formula.basis,
                "letters": list(self.letters), "checked_ns": list(self.checked_ns),
                "checked": "every input at each n", "candidates": self.candidates,
                "searched_basis": self.basis, "reason": self.reason, **self.stats}


# ---- inputs ------------------------------------------------------------------------------
def _inputs(task) -> tuple[list[tuple[int, np.ndarray, np.ndarray]], tuple[str, ...]] | str:
    """[(n, letter-index rows (count, L), Boolean labels)] for n = 1..MAX_N while the space
    is small enough, and the alphabet; or why the task takes no part."""
    if getattr(task, "output", "final") != "final":
        return "a per-position task: a circuit with one output decides one position"
    out, letters, total = [], None, 0
    for n in range(1, MAX_N + 1):
        inst = instance(task, n)
        if inst is None:
            continue
        view = inst.decision_view()[0]
        first = tuple(view.choices[0]) if view.choices else ()
        if len(first) < 2:
            return ("a position with a single possible token: the templates read a string "
                    "over an alphabet of at least two letters")
        if any(tuple(c) != first for c in view.choices):
            return ("the positions do not share one alphabet (a query, a separator or "
                    "positions with their own tokens); the templates read a string over one "
                    "alphabet")
        names = tuple(inst.vocab[t] for t in first)
        if letters is None:
            letters = names
        elif names != letters:
            return "the alphabet changes with n; a circuit family reads one alphabet"
        if len(letters) > MAX_LETTERS:
            return f"{len(letters)} letters (the search takes at most {MAX_LETTERS})"
        size = view.space_size()
        if size > MAX_INPUTS or total + size > MAX_TOTAL:
            break
        try:
            x = np.asarray(view.enumerate(limit=MAX_INPUTS), dtype=np.int64)
        except EnumerationTooLarge:
            break
        if len(x) == 0:
            continue
        y = np.asarray(view.evaluate(x)).reshape(len(x))
        if not np.isin(y, (0, 1)).all():
            return "the decision function is not Boolean; a one-output circuit decides a language"
        lut = np.full(int(max(first)) + 1, -1, dtype=np.int64)
        lut[list(first)] = np.arange(len(first))
        out.append((inst.n, lut[x], y.astype(bool)))
        total += len(x)
    if letters is None:
        return "the task is defined at no n <= 16"
    if len(out) < MIN_NS:
        return (f"fewer than {MIN_NS} lengths n <= {MAX_N} with at most {MAX_INPUTS:,} inputs "
                f"each (found {len(out)})")
    return out, letters


# ---- truth of every atom of a kind, on every checked input --------------------------------
def pairs(kind: str, L: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Position pairs (i, p(i)) a pair kind quantifies over at length L, or None where the
    kind is undefined (half at odd L)."""
    i = np.arange(L)
    if kind == "next":
        return i[:-1], i[1:]
    if kind == "mirror":
        return i, L - 1 - i
    if kind == "half":
        if L % 2:
            return None
        return i[: L // 2], i[: L // 2] + L // 2
    if kind == "before":
        a, b = np.triu_indices(L, k=1)
        return a, b
    if kind == "ends":
        return np.array([0]), np.array([L - 1])
    raise ValueError(kind)


def _masks(x: np.ndarray, k: int, kind: str) -> np.ndarray | None:
    """Per input, the bitmask of the letters (unary kinds) or letter pairs (pair kinds) it
    shows at the positions the kind reads."""
    L = x.shape[1]
    if kind in ("first", "last", "unary"):
        cols = x[:, :1] if kind == "first" else x[:, -1:] if kind == "last" else x
        if cols.shape[1] == 0:
            return None
        return np.bitwise_or.reduce(np.left_shift(1, cols), axis=1)
    pr = pairs(kind, L)
    if pr is None:
        return None
    a, b = pr
    if len(a) == 0:
        return np.zeros(len(x), dtype=np.int64)   # an empty quantifier range
    codes = x[:, a] * k + x[:, b]
    return np.bitwise_or.reduce(np.left_shift(1, codes), axis=1)


def _relations(kind: str, k: int) -> list[int]:
    """Relations tried for a kind, as bitmasks (letters, or pairs p*k+q), simplest first."""
    if kind in ("first", "last", "unary"):
        return sorted(range(1, (1 << k) - 1), key=lambda r: (bin(r).count("1"), r))
    if k <= FULL_PAIRS:
        full = (1 << (k * k)) - 1
        return sorted(range(1, full), key=lambda r: (min(bin(r).count("1"),
                                                         k * k - bin(r).count("1")), r))
    same = sum(1 << (p * k + p) for p in range(k))
    full = (1 << (k * k)) - 1
    singles = [1 << c for c in range(k * k)]
    return [same, full & ~same] + singles + [full & ~s for s in singles]


def _rel_set(kind: str, r: int, k: int) -> frozenset:
    if kind in ("first", "last", "unary"):
        return frozenset(a for a in range(k) if r >> a & 1)
    return frozenset((c // k, c % k) for c in range(k * k) if r >> c & 1)


class _Pool:
    """Candidate atoms and their truth vectors (bool, concatenated over the checked n),
    each distinct vector once (the first atom that gives it)."""

    def __init__(self, data, k: int):
        self.data, self.k = data, k
        self.atoms: list[Atom] = []
        self.truth: list[np.ndarray] = []
        self.seen: set[bytes] = set()
        self.evaluated = 0

    def add(self, atom: Atom, t: np.ndarray) -> None:
        self.evaluated += 1
        key = np.packbits(t).tobytes()
        if key in self.seen:
            return
        self.seen.add(key)
        self.atoms.append(atom)
        self.truth.append(t)

    def add_kind(self, kind: str) -> None:
        k = self.k
        per_n = [_masks(x, k, kind) for _, x, _ in self.data]
        # half at an odd length: the atom says "L is even and ...", so it is false there
        # (both quantifiers): copies ww, false at every odd n, are in the language
        off = np.concatenate([np.full(len(x), m is None) for m, (_, x, _) in
                              zip(per_n, self.data)])
        if off.all():
            return
        masks = np.concatenate([m if m is not None else np.zeros(len(x), dtype=np.int64)
                                for m, (_, x, _) in zip(per_n, self.data)])
        uniq, inv = np.unique(masks, return_inverse=True)
        width = k if kind in ("first", "last", "unary") else k * k
        full = (1 << width) - 1
        rels = np.array(_relations(kind, k), dtype=np.int64)
        some = (uniq[None, :] & rels[:, None]) != 0           # (relations, masks)
        every = (uniq[None, :] & (full & ~rels)[:, None]) == 0
        quants = ("",) if kind in ("first", "last", "ends") else ("all", "some")
        for q in quants:
            table = every if q == "all" else some
            for j, r in enumerate(rels.tolist()):
                self.add(Atom(kind, q, _rel_set(kind, r, k)), table[j][inv] & ~off)

    def add_counts(self) -> None:
        k = self.k
        counts = np.concatenate([np.stack([(x == a).sum(axis=1) for a in range(k)], axis=1)
                                 for _, x, _ in self.data])
        full = (1 << k) - 1
        if k <= FULL_COUNTS:
            subsets = sorted(range(1, full), key=lambda r: (bin(r).count("1"), r))
        else:   # single letters and their complements (3^|A| pairs of sets grow too fast)
            subsets = [1 << a for a in range(k)] + [full & ~(1 << a) for a in range(k)]
        for s, t in itertools.product(subsets, repeat=2):
            if s & t:
                continue
            cs = counts[:, [a for a in range(k) if s >> a & 1]].sum(axis=1)
            ct = counts[:, [a for a in range(k) if t >> a & 1]].sum(axis=1)
            fs, ft = (frozenset(a for a in range(k) if m >> a & 1) for m in (s, t))
            for op, v in zip(OPS, (cs > ct, cs >= ct, cs == ct, cs != ct)):
                self.add(Atom("count", left=fs, right=ft, op=op), v)


def _pair_search(pool: _Pool, y: np.ndarray, join: str) -> tuple[int, int] | None:
    """Two atoms whose conjunction (or disjunction) equals ``y`` on every checked input."""
    T = np.array(pool.truth) if pool.truth else np.zeros((0, len(y)), dtype=bool)
    if join == "and":     # each conjunct true on every positive input
        ok = np.flatnonzero(~(~T & y[None, :]).any(axis=1))[:MAX_POOL]
        rows = T[np.ix_(ok, ~y)]                  # truth on the negative inputs
    else:                 # each disjunct false on every negative input
        ok = np.flatnonzero(~(T & ~y[None, :]).any(axis=1))[:MAX_POOL]
        rows = ~T[np.ix_(ok, y)]                  # falsity on the positive inputs
    if len(ok) < 2:
        return None
    m = rows.astype(np.float32)
    # both true on a negative (both false on a positive) input: a nonzero product entry;
    # exact in float32 while a count stays below 2^24 (MAX_TOTAL = 2^16 inputs)
    clash = m @ m.T
    i, j = np.nonzero(np.triu(clash == 0, k=1))
    if len(i) == 0:
        return None
    best = np.lexsort((j, i))[0]
    return int(ok[i[best]]), int(ok[j[best]])


def search(task, basis: str = "ac0") -> SearchResult:
    """The first template formula (single atoms before pairs, AC0 kinds before counts;
    ``basis`` "ac0" leaves counts out) that agrees with ``task``'s decision function on
    every input of every checked n; a result without a formula says why."""
    if basis not in ("ac0", "tc0"):
        raise ValueError(f"basis must be ac0 or tc0, got {basis!r}")
    got = _inputs(task)
    if isinstance(got, str):
        return SearchResult(None, (), (), 0, got, basis)
    data, letters = got
    k = len(letters)
    y = np.concatenate([lab for _, _, lab in data])
    ns = tuple(n for n, _, _ in data)
    if y.all() or not y.any():
        return SearchResult(None, letters, ns, 0, "the task is constant on every checked input "
                            "(a constant circuit; no template needed)", basis)
    pool = _Pool(data, k)
    kinds = ["first", "last", "unary"]
    if k <= MAX_PAIR_LETTERS:
        kinds += ["ends", *PAIR_KINDS]
    stages: list[list[str]] = [kinds] + ([["count"]] if basis == "tc0" else [])
    size_seen = 0
    for stage in stages:
        for kind in stage:
            pool.add_counts() if kind == "count" else pool.add_kind(kind)
        for idx in range(size_seen, len(pool.atoms)):
            if np.array_equal(pool.truth[idx], y):
                return SearchResult(Formula((pool.atoms[idx],)), letters, ns, pool.evaluated,
                                    "", basis, {"distinct_atoms": len(pool.atoms)})
        size_seen = len(pool.atoms)
        for join in ("and", "or"):
            hit = _pair_search(pool, y, join)
            if hit is not None:
                f = Formula((pool.atoms[hit[0]], pool.atoms[hit[1]]), join)
                return SearchResult(f, letters, ns, pool.evaluated, "", basis,
                                    {"distinct_atoms": len(pool.atoms)})
    gates = "AND/OR/NOT" if basis == "ac0" else "with threshold counts"
    return SearchResult(None, letters, ns, pool.evaluated,
                        f"no template formula ({gates}; one atom or two joined by AND/OR, "
                        f"{len(pool.atoms):,} distinct atoms) agrees with the task on every "
                        f"input at n = {list(ns)}", basis, {"distinct_atoms": len(pool.atoms)})


# ---- the circuit a formula names -----------------------------------------------------------
def _node(c, enc, atom: Atom, ids: tuple[int, ...], L: int) -> int:
    """The circuit node of one atom at length L over the one-hot encoding ``enc``."""
    def in_set(i: int, s) -> int:
        return enc.is_any(c, i, [ids[a] for a in sorted(s)])

    def pair(i: int, j: int) -> int:
        return c.or_(*[c.and_(enc.is_(c, i, ids[p]), enc.is_(c, j, ids[q]))
                       for p, q in sorted(atom.rel)]) if atom.rel else c.const(0)

    if atom.kind == "first":
        return in_set(0, atom.rel)
    if atom.kind == "last":
        return in_set(L - 1, atom.rel)
    if atom.kind == "count":
        ys = [in_set(i, atom.left) for i in range(L)]
        zs = [c.not_(in_set(i, atom.right)) for i in range(L)]
        # #S + (L - #S') = L + (#S - #S'): #S > #S' iff that sum >= L + 1
        gt, ge = c.thr(L + 1, *ys, *zs), c.thr(L, *ys, *zs)
        if atom.op == ">":
            return gt
        if atom.op == ">=":
            return ge
        eq = c.and_(ge, c.not_(gt))
        return eq if atom.op == "=" else c.not_(eq)
    if atom.kind == "unary":
        lits = [in_set(i, atom.rel) for i in range(L)]
    else:
        pr = pairs(atom.kind, L)
        if pr is None:                 # half at odd L: "L even and ..." is false
            return c.const(0)
        lits = [pair(int(i), int(j)) for i, j in zip(*pr)]
    if atom.kind == "ends":
        return lits[0]
    if not lits:                       # empty range: for all is true, for some false
        return c.const(1 if atom.quant == "all" else 0)
    return c.and_(*lits) if atom.quant == "all" else c.or_(*lits)


def circuit_fn(formula: Formula, letters: tuple[str, ...]):
    """``fn(task, df, enc) -> Circuit``: the formula's circuit at the task's length."""
    def build(task, df, enc):
        vocab = list(task.vocab)
        ids = tuple(vocab.index(s) for s in letters)
        c = enc.circuit()
        nodes = [_node(c, enc, a, ids, df.length) for a in formula.atoms]
        out = nodes[0] if len(nodes) == 1 else (c.and_(*nodes) if formula.join == "and"
                                                else c.or_(*nodes))
        c.set_outputs(out)
        return c
    return build


_CACHE: dict[tuple, tuple[SearchResult, Any]] = {}
_LOCK = threading.Lock()


def _probe(family: str):
    """An instance of ``family`` at its first analysis length that it accepts, or None."""
    cls = tasks.family(family)
    for n in list(cls.analysis_ns) + list(range(1, MAX_N + 1)):
        try:
            return tasks.get(family, n=n)
        except TaskParameterError:
            continue
    return None


def cached_search(task, basis: str = "ac0") -> tuple[SearchResult, Any]:
    """(:func:`search`, the found formula's circuit builder or None), once per task
    identity (family, parameters but n, definition digest) and basis."""
    ident = task_identity(type(task), task.values)
    key = (basis, ident["family"], repr(sorted(ident["params"].items())), ident["digest"])
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        res = search(task, basis)
        b = None
        if res.formula is not None:
            b = Builder(task.name, res.formula.basis, circuit_fn(res.formula, res.letters),
                        f"template formula {res.text}, found by the circuit template search "
                        f"(every input checked at n = {list(res.checked_ns)})",
                        "formal/search/circuits.py")
        hit = (res, b)
        with _LOCK:
            _CACHE[key] = hit
    return hit


def builder_for(family: str, basis: str = "ac0") -> tuple[SearchResult, Any]:
    """:func:`cached_search` for the family's default parameters (its instance at the
    first analysis length it accepts)."""
    task = _probe(family)
    if task is None:
        return SearchResult(None, (), (), 0, f"{family} accepts none of its analysis lengths",
                            basis), None
    return cached_search(task, basis)


__all__ = ["Atom", "Formula", "SearchResult", "search", "cached_search", "builder_for",
           "circuit_fn", "pairs",
           "MAX_INPUTS", "MAX_N", "MIN_NS"]
