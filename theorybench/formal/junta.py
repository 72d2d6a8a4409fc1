"""Juntas on positions fixed from the ends: a label that reads a bounded set of positions,
counted from the start or from the end of the input, by the same function at every n
(docs/theories.md §1, §2, "Juntas").

:func:`find_junta` detects one from the task's reference function alone (never its name):
at every n whose input space has at most :data:`MAX_INPUTS` inputs it enumerates every
input, finds the positions the label depends on (a position is relevant iff the label
changes along it somewhere: the axis of the input table it does not vary along is
irrelevant), writes each relevant position as an offset from the nearer end (``s >= 0``:
the s-th position from the start, 0-based; ``-e``: the e-th from the end, -1 the last),
and checks that one set of offsets and one truth table ``g`` over them give the label at
every such n: f_n(x) = g(x[pos(c_1, n)], ..., x[pos(c_k, n)]). Lengths too short for the
offsets to fit (a start offset past the end) are kept as exceptions with their own table;
there are finitely many of them. Status of everything built on it: ``verified <= N``, N the
largest n checked - the structure is seen at finite n only.

Built on a junta: its constant-size circuit (depth 2 over the one-hot tokens,
:func:`circuit_builder`), and a B-RASP program (:func:`brasp_program`) - the language is a
finite Boolean combination of u Sigma* and Sigma* v (a generalized definite language,
Ginzburg 1966; Brzozowski 1969 calls the class "definite events" and their reverses), up to
finitely many short words, so it is star-free by the definition of star-free expressions
(Sigma* is the complement of the empty set; McNaughton & Papert 1971).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import tasks
from ..errors import TaskParameterError, TheorybenchError
from .brasp import ast as A
from .circuits.builders import Builder

#: Largest input space enumerated at one n.
MAX_INPUTS = 1 << 14
#: Most relevant positions a junta may have.
MAX_COORDS = 8
#: Lengths tried (the first MAX_N where the family is defined and the space fits).
MAX_N = 24
#: Lengths at which the offsets must all fit and the table be the same, at least.
MIN_NS = 3
#: Lengths checked on samples beyond enumeration, and the samples per length.
SAMPLED_NS = (32, 64)
SAMPLES = 2000


@dataclass(frozen=True)
class Junta:
    """A junta: ``coords`` (offsets from the start, >= 0, or from the end, < 0), the
    ``letters`` (token ids of the one alphabet), ``accept`` (the accepted tuples of
    letters at the coordinates, in order), ``exceptions`` ((n, accepted words) for lengths
    where some offset does not fit), the lengths checked on every input and on samples."""

    coords: tuple[int, ...]
    letters: tuple[int, ...]
    symbols: tuple[str, ...]
    accept: tuple[tuple[int, ...], ...]
    exceptions: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]
    checked_ns: tuple[int, ...]
    sampled_ns: tuple[int, ...] = ()

    def fits(self, n: int) -> bool:
        """Every offset names a position of a length-n input."""
        return all((c < n) if c >= 0 else (-c <= n) for c in self.coords)

    def positions(self, n: int) -> list[int]:
        return [c if c >= 0 else n + c for c in self.coords]

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        """g at the coordinates of each row (rows of one length that fits)."""
        n = x.shape[1]
        sub = x[:, self.positions(n)] if self.coords else np.zeros((len(x), 0), dtype=np.int64)
        acc = np.zeros(len(x), dtype=bool)
        for t in self.accept:
            acc |= np.all(sub == np.array(t, dtype=np.int64)[None, :], axis=1)
        return acc

    def describe(self) -> str:
        names = [f"x[{c}]" if c >= 0 else f"x[n{c}]" for c in self.coords]
        return (f"a function of {', '.join(names) or 'no position'} (0-based; n-1 is the last "
                f"position), {len(self.accept)} of {len(self.letters) ** len(self.coords)} "
                f"letter tuples accepted")

    def to_dict(self) -> dict[str, Any]:
        sym = self.symbols
        return {"coords": list(self.coords), "positions": self.describe(),
                "alphabet": list(sym),
                "accepted_tuples": [[sym[self.letters.index(t)] for t in tup]
                                    for tup in self.accept[:64]],
                "accepted_count": len(self.accept),
                "exception_lengths": [n for n, _ in self.exceptions],
                "checked_ns": list(self.checked_ns), "sampled_ns": list(self.sampled_ns),
                "verified_up_to": max(self.checked_ns + self.sampled_ns)}


def _instance(family: str, n: int):
    try:
        return tasks.get(family, n=n)
    except (TaskParameterError, TheorybenchError, ValueError):
        return None


def _table(df) -> tuple[np.ndarray, np.ndarray] | None:
    """(inputs, labels as bool) of every input, or None when not a Boolean function."""
    x = np.asarray(df.enumerate(limit=MAX_INPUTS), dtype=np.int64)
    y = np.asarray(df.evaluate(x)).reshape(len(x))
    if not np.isin(y, (0, 1)).all():
        return None
    return x, y.astype(bool)


def relevant_positions(x: np.ndarray, y: np.ndarray, letters: tuple[int, ...]) -> list[int]:
    """The positions the labels depend on, from every input of one length over ``letters``
    (rows ``x``, labels ``y``): position i is relevant iff the label table varies along
    axis i of the k^n array it fills."""
    k, n = len(letters), x.shape[1]
    lookup = np.zeros(max(letters) + 1, dtype=np.int64)
    lookup[list(letters)] = np.arange(k)
    digit = lookup[x]
    index = np.zeros(len(x), dtype=np.int64)
    for i in range(n):
        index = index * k + digit[:, i]
    table = np.zeros(k ** n, dtype=np.int8)
    table[index] = y
    table = table.reshape((k,) * n) if n else table
    return [i for i in range(n) if np.ptp(table, axis=i).any()]


def _anchor(pos: list[int], n: int) -> tuple[int, ...]:
    """Offsets from the nearer end: i for i < n / 2, i - n (from the end) otherwise."""
    return tuple(sorted((i if 2 * i < n else i - n) for i in pos))


@functools.lru_cache(maxsize=128)
def find_junta(family: str) -> Junta | str:
    """The junta of ``family`` (a :class:`Junta`), or why it is none."""
    views = []
    for n in range(1, MAX_N + 1):
        inst = _instance(family, n)
        if inst is None:
            continue
        df = inst.decision_view()[0]
        if df.valid is not None:
            return "its input space has a domain restriction"
        letters = tuple(df.choices[0]) if df.choices else ()
        if any(tuple(c) != letters for c in df.choices):
            return "its positions do not share one alphabet"
        if views and letters != views[0][2]:
            return "its alphabet changes with n"
        if df.space_size() > MAX_INPUTS:
            break
        got = _table(df)
        if got is None:
            return "its decision function is not Boolean"
        views.append((n, got, letters, inst))
    if not views:
        return f"no length has at most {MAX_INPUTS:,} inputs to check"
    n_top, (x_top, y_top), letters, inst = views[-1]
    rel = relevant_positions(x_top, y_top, letters)
    if len(rel) == n_top and n_top > 1:
        return f"its label depends on every position at n = {n_top}"
    if len(rel) > MAX_COORDS:
        return (f"its label depends on {len(rel)} positions at n = {n_top} (more than "
                f"{MAX_COORDS})")
    coords = _anchor(rel, n_top)
    k = len(letters)
    accept: tuple | None = None
    fit_ns, exceptions = [], []
    for n, (x, y), _, _ in views:
        probe = Junta(coords, letters, (), (), (), ())
        if not probe.fits(n) or len(set(probe.positions(n))) < len(coords):
            # too short for the offsets to name distinct positions: an exception length
            exceptions.append((n, tuple(tuple(int(v) for v in r) for r in x[y])))
            continue
        rp = set(relevant_positions(x, y, letters))
        if not rp <= set(probe.positions(n)):
            return (f"at n = {n} its label depends on positions {sorted(rp)}, not only on "
                    f"the offsets {list(coords)} found at n = {n_top}")
        sub = x[:, probe.positions(n)]
        tups = {}
        for t, lab in zip(map(tuple, sub.tolist()), y.tolist()):
            if tups.setdefault(t, lab) != lab:
                return f"at n = {n} the label is not a function of the offsets {list(coords)}"
        acc = tuple(sorted(t for t, lab in tups.items() if lab))
        if len(tups) < k ** len(coords):
            return f"at n = {n} not every letter tuple occurs at the offsets"
        if accept is None:
            accept = acc
        elif acc != accept:
            return (f"the function of the offsets {list(coords)} at n = {n} differs from "
                    f"the one at n = {fit_ns[0]}: not the same function at every n")
        fit_ns.append(n)
    if len(fit_ns) < MIN_NS:
        return (f"the offsets {list(coords)} fit at {len(fit_ns)} checked lengths "
                f"({fit_ns}); at least {MIN_NS} are needed to see one function across n")
    symbols = tuple(inst.vocab[t] for t in letters)
    junta = Junta(coords, letters, symbols, accept or (), tuple(exceptions), tuple(fit_ns))
    sampled = []
    rng = np.random.default_rng(0)
    for want in SAMPLED_NS:
        inst = next((i for m in (want, want + 1, want + 2)
                     if m > fit_ns[-1] and (i := _instance(family, m)) is not None), None)
        if inst is None:
            continue
        df = inst.decision_view()[0]
        if any(tuple(c) != letters for c in df.choices):
            return f"its positions do not share the alphabet at n = {inst.n}"
        radices = len(letters)
        draws = np.array(letters, dtype=np.int64)[rng.integers(0, radices, (SAMPLES, df.length))]
        try:
            draws = np.concatenate([draws, np.asarray(df.sample(rng, SAMPLES // 4),
                                                      dtype=np.int64)])
        except TheorybenchError:
            pass
        y = np.asarray(df.evaluate(draws)).reshape(len(draws)).astype(bool)
        if not np.array_equal(junta.evaluate(draws), y):
            return (f"the junta found on n <= {fit_ns[-1]} disagrees with the label on "
                    f"sampled inputs at n = {inst.n}")
        sampled.append(int(inst.n))
    return Junta(coords, letters, symbols, accept or (), tuple(exceptions), tuple(fit_ns),
                 tuple(sampled))


# ---- the objects built on a junta ---------------------------------------------------------
def circuit_builder(family: str, junta: Junta):
    """A circuit builder (:class:`..circuits.builders.Builder`, AND/OR/NOT): at each n the
    OR over accepted tuples of the AND of "position pos(c, n) holds letter a" - depth 2
    over the one-hot tokens, size at most k^|coords| + 1, the same at every n where the
    offsets fit; at an exception length the OR over its accepted words."""
    exc = dict(junta.exceptions)

    def build(task, df, enc):
        c = enc.circuit()
        n = df.length
        if n in exc or not junta.fits(n):
            words, pos = exc.get(n, ()), list(range(n))
        else:
            words, pos = junta.accept, junta.positions(n)
        terms = [c.and_(*[enc.is_(c, p, t) for p, t in zip(pos, w)]) if w else c.const(1)
                 for w in words]
        c.set_outputs(c.or_(*terms) if terms else c.const(0))
        return c

    return Builder(family, "ac0", build,
                   f"junta circuit: {junta.describe()}, an OR of ANDs of one-hot token bits "
                   f"(depth 2, the same size at every n where the offsets fit)",
                   "formal/junta.py")


def brasp_program(junta: Junta):
    """A plain B-RASP program (no positions) accepting exactly the junta's words, by the
    translation of a Boolean combination of u Sigma* and Sigma* v: ``p_k`` (position k+1,
    1-based) by a chain of rightmost attentions from ``p_0`` = "no position before";
    the letter at start offset s read by a leftmost attention to p_s (or at i itself);
    the letter e places before the last read by a chain of rightmost attentions; the
    output the OR over accepted tuples (and over the words of each exception length,
    guarded by the length test p_{n-1} at the last position)."""
    stmts: list = []
    sym = dict(zip(junta.letters, junta.symbols))
    exc = dict(junta.exceptions)
    starts = sorted({c for c in junta.coords if c >= 0} |
                    {s for n, _ in junta.exceptions for s in range(n)})
    top = max([*starts, *[n for n, _ in junta.exceptions]], default=0)
    tt = A.Const(True)

    def attend(name, direction, score, value, default):
        stmts.append(A.Attend(name, direction, "<", score, value, A.Const(default)))

    attend("p0", "leftmost", tt, A.Const(False), True)
    for k in range(1, top + 1):
        attend(f"p{k}", "rightmost", tt, A.Ref(f"p{k - 1}", "j"), False)

    def start_letter(s: int, a: int):
        name = f"s{s}_{a}"
        if name not in {st.name for st in stmts}:
            attend(f"{name}_before", "leftmost", A.Ref(f"p{s}", "j"), A.Tok(sym[a], "j"), False)
            stmts.append(A.Assign(name, A.Or((A.Ref(f"{name}_before", "i"),
                                               A.And((A.Ref(f"p{s}", "i"),
                                                      A.Tok(sym[a], "i")))))))
        return A.Ref(name, "i")

    def end_letter(e: int, a: int):  # e = 1: the last position (i itself)
        if e == 1:
            return A.Tok(sym[a], "i")
        for d in range(1, e):
            name = f"e{d + 1}_{a}"
            if name not in {st.name for st in stmts}:
                prev = A.Tok(sym[a], "j") if d == 1 else A.Ref(f"e{d}_{a}", "j")
                attend(name, "rightmost", tt, prev, False)
        return A.Ref(f"e{e}_{a}", "i")

    def literal(c: int, a: int):
        return start_letter(c, a) if c >= 0 else end_letter(-c, a)

    def conj(lits):
        return lits[0] if len(lits) == 1 else (A.And(tuple(lits)) if lits else A.Const(True))

    def disj(terms):
        return terms[0] if len(terms) == 1 else (A.Or(tuple(terms)) if terms else A.Const(False))

    main = disj([conj([literal(c, a) for c, a in zip(junta.coords, t)]) for t in junta.accept])
    short = [n for n in exc]
    parts = []
    for n, words in exc.items():
        body = disj([conj([literal(s, a) for s, a in enumerate(w)]) for w in words])
        parts.append(A.And((A.Ref(f"p{n - 1}", "i"), body)))
    if short:
        is_short = A.Or(tuple(A.Ref(f"p{n - 1}", "i") for n in short)) if len(short) > 1 \
            else A.Ref(f"p{short[0] - 1}", "i")
        parts.append(A.And((A.Not(is_short), main)))
        out = A.Or(tuple(parts)) if len(parts) > 1 else parts[0]
    else:
        out = main
    stmts.append(A.Assign("out", out))
    return A.Program(tuple(stmts), output="out", alphabet=tuple(junta.symbols))


__all__ = ["Junta", "find_junta", "relevant_positions", "circuit_builder", "brasp_program",
           "MAX_INPUTS", "MAX_COORDS"]
