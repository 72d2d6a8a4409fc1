"""Symbols a program must tell apart, for tasks whose alphabet grows with n
(docs/theories.md §1, "Growing alphabets").

Two symbols s, t are *separated* at length n when some valid input x has s at a position
i where t is also allowed, x with t at i is valid too, and the two inputs get different
labels. A program that reads each token only through Boolean token predicates - the
initial vectors Q_s(i) = [w_i = s] of B-RASP (Yang, Chiang & Angluin 2024, their
definition), or any fixed sets of symbols - computes the same on x and on x[i := t]
whenever s and t satisfy the same predicates, since nothing else in the program depends on
the token (position tests and attention masks depend on positions only). So a program with
P predicates gives each symbol one of at most 2^P patterns, and symbols that are pairwise
separated need pairwise different patterns: K pairwise separated symbols force P >= log2 K.
With B-RASP[pos]'s ``tokpos`` (the number a token spells, compared with positions) a
program also reads that number, so only symbols spelling the same number count together.

:func:`separated_clique` finds, at one n, separated pairs on every valid input (or on
samples where the space is large: a witness found on a sample is a witness all the same,
so the count is a lower bound) and a set of pairwise separated symbols by a greedy clique,
each pair with its witness available. A count that grows with n then says that no program
of fixed size exists - read from a growth fit over the measured n, so ``extrapolated``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import tasks
from ..errors import TaskParameterError, TheorybenchError
from .brasp.interpret import token_position

#: Label evaluations spent on one n (inputs x replacement symbols); past it inputs are sampled.
MAX_WORK = 1 << 21
#: Inputs drawn when the space is too large to enumerate within MAX_WORK.
SAMPLES = 2048


@dataclass
class Separation:
    """One n: a set of pairwise separated symbols (``clique``), the number of separated
    pairs, whether the clique is a whole *class* (every symbol one position allows - for
    ``tokpos``: every such symbol spelling one number), the largest class at this n, and
    witnesses (input, position, the other symbol, both labels) for consecutive clique
    members."""

    n: int
    alphabet_size: int
    clique: list[str]
    pairs: int
    exhaustive: bool
    inputs: int
    evaluations: int
    full_class: bool
    class_size: int
    witnesses: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "alphabet_size": self.alphabet_size, "clique": self.clique,
                "clique_size": len(self.clique), "separated_pairs": self.pairs,
                "whole_class": self.full_class, "largest_class": self.class_size,
                "exhaustive": self.exhaustive, "inputs": self.inputs,
                "label_evaluations": self.evaluations, "witnesses": self.witnesses[:4]}


def _inputs(df, rng) -> tuple[np.ndarray, bool]:
    per_input = max(1, sum(len(c) - 1 for c in df.choices))
    if df.space_size() * per_input <= MAX_WORK:
        x = np.asarray(df.enumerate(limit=1 << 22), dtype=np.int64)
        exhaustive = True
    else:
        radices = np.array([len(c) for c in df.choices])
        table = np.zeros((len(radices), int(radices.max())), dtype=np.int64)
        for i, c in enumerate(df.choices):
            table[i, :len(c)] = c
        count = max(1, min(SAMPLES, MAX_WORK // per_input))
        idx = (rng.random((count, len(radices))) * radices).astype(np.int64)
        x = table[np.arange(len(radices))[None, :], idx]
        try:
            x = np.concatenate([x, np.asarray(df.sample(rng, count), dtype=np.int64)])
        except TheorybenchError:
            pass
        exhaustive = False
    if df.valid is not None and len(x):
        x = x[np.asarray(df.valid(x), dtype=bool)]
    return x, exhaustive


@functools.lru_cache(maxsize=64)
def _pairs(family: str, n: int, seed: int):
    """(separated pairs with one witness each, the decision function, exhaustive, inputs,
    label evaluations) of ``family`` at n."""
    df = tasks.get(family, n=n).decision_view()[0]
    rng = np.random.default_rng(seed)
    x, exhaustive = _inputs(df, rng)
    vocab = df.task.vocab
    fx = np.asarray(df.evaluate(x)).reshape(len(x))
    seen: dict[tuple[int, int], dict[str, Any]] = {}
    evaluations = len(x)
    for i, choice in enumerate(df.choices):
        if len(choice) < 2:
            continue
        for t in choice:
            rows = np.flatnonzero(x[:, i] != t)
            if not len(rows):
                continue
            y = x[rows].copy()
            y[:, i] = t
            ok = np.ones(len(rows), dtype=bool) if df.valid is None else \
                np.asarray(df.valid(y), dtype=bool)
            fy = np.asarray(df.evaluate(y[ok])).reshape(-1) if ok.any() else np.zeros(0)
            evaluations += int(ok.sum())
            changed = rows[ok][fy != fx[rows[ok]]]
            for s in np.unique(x[changed, i]).tolist():
                key = (min(s, t), max(s, t))
                if key in seen:
                    continue
                r = int(changed[np.flatnonzero(x[changed, i] == s)[0]])
                seen[key] = {"symbols": [vocab[s], vocab[t]], "position": i,
                             "input": df.task.render(x[r]), "label": int(fx[r])}
    return seen, df, exhaustive, int(len(x)), evaluations


def classes(choices, vocab, positional: bool) -> list[frozenset]:
    """The symbol classes a program must separate within: each position's choices (with
    ``tokpos``: split by the number each symbol spells)."""
    out = set()
    for c in choices:
        if len(c) < 2:
            continue
        if positional:
            groups: dict[int, set] = {}
            for s in c:
                groups.setdefault(token_position(vocab[s]), set()).add(s)
            out.update(frozenset(g) for g in groups.values())
        else:
            out.add(frozenset(c))
    return sorted(out, key=lambda g: (-len(g), sorted(g)))


def separated_clique(family: str, n: int, positional: bool = False,
                     seed: int = 0) -> Separation:
    """The separated pairs of ``family`` at n and a greedy clique of pairwise separated
    symbols, built within the largest classes first; ``positional``: only symbols
    spelling the same number (``tokpos``) are compared."""
    seen, df, exhaustive, inputs, evaluations = _pairs(family, n, seed)
    vocab = df.task.vocab
    groups = classes(df.choices, vocab, positional)

    def sep(a, b):
        return (min(a, b), max(a, b)) in seen

    best: list[int] = []
    full = False
    for members in groups:
        if len(members) <= len(best):
            break
        degree = {s: sum(sep(s, t) for t in members if t != s) for s in members}
        clique: list[int] = []
        for s in sorted(members, key=lambda s: (-degree[s], s)):
            if all(sep(s, t) for t in clique):
                clique.append(s)
        if len(clique) > len(best):
            best, full = clique, len(clique) == len(members)
    top = len(groups[0]) if groups else 0
    wit = [seen[(min(a, b), max(a, b))] for a, b in zip(best, best[1:])]
    return Separation(df.task.n, len(vocab), [vocab[s] for s in best], len(seen), exhaustive,
                      inputs, evaluations, full and len(best) == top, top, wit)


def largest_class(family: str, n: int, positional: bool = False) -> int | None:
    """The size of the largest class at n, from the task's definition alone (its choices
    per position; no label is computed), or None where the family is undefined."""
    try:
        df = tasks.get(family, n=n).decision_view()[0]
    except (TaskParameterError, TheorybenchError, ValueError):
        return None
    groups = classes(df.choices, df.task.vocab, positional)
    return len(groups[0]) if groups else 0


#: Lengths at which the largest class is read from the definition, beyond the measured n.
BEYOND_NS = (16, 24, 32, 48, 64)
#: Label evaluations the series may spend on one family, and the alphabet sizes it wants.
SERIES_EVALUATIONS = 3_000_000
SERIES_SIZES = 4


@functools.lru_cache(maxsize=64)
def separation_series(family: str, positional: bool = False,
                      seed: int = 0) -> tuple[Separation, ...]:
    """:func:`separated_clique` at the analysis n of ``family``, in order, until the
    alphabet has taken SERIES_SIZES sizes or SERIES_EVALUATIONS label evaluations are
    spent (at least three sizes when the budget allows)."""
    out: list[Separation] = []
    spent = 0
    for n in tasks.family(family).analysis_ns:
        sizes = {s.alphabet_size for s in out}
        if len(sizes) >= SERIES_SIZES or (len(sizes) >= 3 and spent > SERIES_EVALUATIONS):
            break
        try:
            tasks.get(family, n=n)
        except (TaskParameterError, TheorybenchError, ValueError):
            continue
        sep = separated_clique(family, n, positional, seed)
        spent += sep.evaluations
        out.append(sep)
    return tuple(out)


__all__ = ["Separation", "separated_clique", "separation_series", "largest_class",
           "classes", "MAX_WORK", "BEYOND_NS"]
