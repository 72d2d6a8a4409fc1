"""Reduction search: letter and position maps between a task and the rows of a matrix.

For a task T and each row S, the search tries every map of the form

    x_1 .. x_n  ->  phi(x_pi(1)) .. phi(x_pi(n))

where phi is any function from one task's alphabet to the other's (all |B|^|A| of them)
and pi is the identity or the reversal, in both directions: T -> S (then an Easy cell of S
carries to T where the theory's class is closed under the map) and S -> T (then a Hard cell
of S carries to T); each also with the labels complemented (0/1 labels; every class the
closures name is closed under complement). A task whose positions do not share one alphabet (index, reach: a
query token after the data) is tried only against a row with the same instance space, by
the identity map (the same function under another name or definition). A map is kept only if the labels agree on EVERY input at every n both
tasks accept from 1 up to the largest n whose input space has at most ``max_inputs``
members (and at least :data:`MIN_NS` such n); the check is vectorized, one batch per n,
and candidates are dropped at the first n where they fail, so most cost one tiny batch.

The work is bounded by a deterministic budget counted in label evaluations (rows passed to
a task's reference function), never in seconds; when it runs out the search stops and says
so, and keeps only maps checked at every planned n.

Lengths. A map checked up to N says nothing about lengths the other task lacks, so it is
kept only where it covers them: T -> S (Easy for T) needs every valid n of T to be a valid
n of S; S -> T (Hard for T) needs only that S restricted to T's range of n is a sub-family
of T (every valid n of S up to T's largest n is valid for T); T's other lengths do not
matter for a Hard verdict.

A kept map is a :class:`~theorybench.formal.reduction_catalogue.Entry` like the static ones
(kind projection, blow-up identity, ``searched``), so the theories' closures
(:mod:`theorybench.theories.closures`) decide per theory which direction transfers; a cell
resting on it is at best ``verified <= N``. Results are cached by the identity (family,
parameters and definition digest, :mod:`theorybench.tasks.digest`) of T and of the rows.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ... import tasks
from ...errors import TaskParameterError, TheorybenchError
from ...tasks import TaskRef
from ...tasks.digest import task_identity
from ..reduction_catalogue import Entry

#: Label evaluations one search may spend (rows passed to a reference function).
DEFAULT_BUDGET = 3_000_000
#: Largest input space checked exhaustively at one n (and so the bound N of a map).
MAX_INPUTS = 1 << 14
#: Largest n tried (a bound on the check, whatever the alphabet).
MAX_N = 16
#: Fewest lengths a kept map must have been checked at.
MIN_NS = 3
#: Largest number of letter maps tried for one pair and direction (|B|^|A|).
MAX_LETTER_MAPS = 4096
#: Lengths compared for coverage (the built-in families stop at 2^16).
COVER_LIMIT = 1 << 16
POSITIONS = ("identity", "reversal")


@dataclass
class SearchResult:
    """What one search found and tried."""

    task: str
    rows: list[str]
    entries: list[Entry]
    tried: list[dict[str, Any]]
    evaluations: int
    budget: int
    exhausted: bool = False
    settings: dict[str, Any] = field(default_factory=dict)

    def into(self, task: str) -> list[Entry]:
        """Kept maps whose target is ``task`` (S -> T: Hard carries to T)."""
        return [e for e in self.entries if e.target_label == str(task)]

    def out_of(self, task: str) -> list[Entry]:
        """Kept maps whose source is ``task`` (T -> S: Easy carries to T)."""
        return [e for e in self.entries if e.source_label == str(task)]

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "rows": self.rows, "found": [e.name for e in self.entries],
                "evaluations": self.evaluations, "budget": self.budget,
                "exhausted": self.exhausted, "settings": self.settings, "tried": self.tried}


class _Budget:
    def __init__(self, total: int):
        self.total, self.used = int(total), 0

    def spend(self, rows: int) -> bool:
        if self.used + rows > self.total:
            return False
        self.used += rows
        return True


@dataclass
class _Side:
    """One task at one n: its alphabet (token ids allowed at every position), the batch
    of all its inputs and their labels (computed once, when the side is enumerated)."""

    ref: TaskRef
    n: int
    letters: tuple[int, ...] | None   # None: positions with different token sets
    length: int
    df: Any
    x: np.ndarray | None = None
    y: np.ndarray | None = None


def _side(ref: TaskRef, n: int, sides: dict) -> _Side | str | None:
    """The side of ``ref`` at n (shared through ``sides``), None where n is not valid, or
    why the task takes no part (not final, not one alphabet at every position)."""
    if (ref, n) in sides:
        return sides[ref, n]
    out: _Side | str | None
    if not ref.variant().accepts(n=n):
        out = None
    else:
        task = ref.build(n=n)
        df = task.decision_view()[0]
        first = tuple(df.choices[0]) if df.choices else ()
        if task.output != "final":
            out = "a per-position task (cells are about every position)"
        elif not first or any(tuple(c) != first for c in df.choices):
            # not a string over one alphabet: only the identity map to a task with the
            # same instance space is tried (a built-in re-registered under another name)
            out = _Side(ref, n, None, df.length, df)
        else:
            out = _Side(ref, n, first, df.length, df)
    sides[ref, n] = out
    return out


def _labels(df, x: np.ndarray) -> np.ndarray:
    return np.asarray(df.evaluate(x)).reshape(len(x)).astype(np.int64)


@functools.lru_cache(maxsize=256)
def _valid_set(ref: TaskRef, hi: int) -> frozenset[int]:
    fam = ref.variant()
    return frozenset(fam.valid_ns(1, hi))


def _n_max(ref: TaskRef) -> int:
    p = ref.variant().param("n")
    return min(COVER_LIMIT, p.maximum if p.maximum is not None else COVER_LIMIT)


def coverage(source: TaskRef, target: TaskRef, task: TaskRef) -> tuple[bool, str]:
    """Whether an n -> n map from ``source`` to ``target`` covers the lengths it must:
    every valid n of the source when the source is ``task`` (Easy for it), else the
    source's valid n up to the target's largest n (a sub-family of the target)."""
    hi_s, hi_t = _n_max(source), _n_max(target)
    src = _valid_set(source, hi_s)
    tgt = _valid_set(target, hi_t)
    if source == task:
        missing = sorted(src - tgt)
        what = f"every valid n of {source} (n <= {hi_s}) is a valid n of {target}"
    else:
        missing = sorted(n for n in src if n <= hi_t and n not in tgt)
        what = (f"every valid n of {source} up to {target}'s largest n {hi_t} is a valid n of "
                f"{target} ({source} there is a sub-family of {target})")
        if not any(n in tgt for n in src):
            return False, f"no length of {source} is a length of {target}"
    if missing:
        return False, f"not covered: n = {missing[:5]}{' ...' if len(missing) > 5 else ''} " \
                      f"of {source} is not a valid n of {target}"
    return True, what


def _plan(a: TaskRef, b: TaskRef, max_inputs: int, sides: dict
          ) -> tuple[list[tuple[_Side, _Side]], str]:
    """The (source side, target side) pairs to check, n ascending, or why none."""
    out, why = [], ""
    for n in range(1, MAX_N + 1):
        sa = _side(a, n, sides)
        if isinstance(sa, str):
            return [], f"{a}: {sa}"
        if sa is None:
            continue
        if sa.df.space_size() > max_inputs:
            break
        sb = _side(b, n, sides)
        if isinstance(sb, str):
            return [], f"{b}: {sb}"
        if sb is None:
            continue
        if sb.length != sa.length:
            why = f"input lengths differ at n={n} ({sa.length} vs {sb.length})"
            continue
        if (sa.letters is None or sb.letters is None) and sa.df.choices != sb.df.choices:
            why = (f"at n={n} {a if sa.letters is None else b}'s positions do not share one "
                   "alphabet and the two instance spaces differ")
            continue
        out.append((sa, sb))
    if len(out) < MIN_NS:
        return [], why or (f"fewer than {MIN_NS} lengths n <= {MAX_N} that both accept with "
                           f"at most {max_inputs:,} inputs")
    return out, ""


def _spell(letters_a, letters_b, phi, vocab_a, vocab_b) -> dict[str, str]:
    return {vocab_a[a]: vocab_b[phi[i]] for i, a in enumerate(letters_a)}


def _search_pair(a: TaskRef, b: TaskRef, task: TaskRef, budget: _Budget, max_inputs: int,
                 tried: list, sides: dict) -> Entry | None:
    """The first map a -> b (identity positions before reversal) that agrees at every
    planned n and covers the lengths it must; every outcome goes to ``tried``."""
    rec = {"source": str(a), "target": str(b)}
    plan, why = _plan(a, b, max_inputs, sides)
    if not plan:
        tried.append({**rec, "outcome": f"skipped: {why}"})
        return None
    la, lb = plan[0][0].letters, plan[0][1].letters
    same_space = la is None or lb is None
    if not same_space and any(s.letters != la or t.letters != lb for s, t in plan):
        tried.append({**rec, "outcome": "skipped: the alphabet changes with n"})
        return None
    if not same_space and len(lb) ** len(la) > MAX_LETTER_MAPS:
        tried.append({**rec, "outcome": f"skipped: {len(lb)}^{len(la)} letter maps exceed "
                                        f"{MAX_LETTER_MAPS}"})
        return None
    # candidates: (positions, letter map as a lookup table indexed by a's token ids); on
    # an instance space that is no string over one alphabet, only the identity
    cands = []
    if same_space:
        cands.append(("identity", None, None))
    else:
        for pos in POSITIONS:
            for phi in itertools.product(lb, repeat=len(la)):
                lut = np.zeros(max(la) + 1, dtype=np.int64)
                lut[list(la)] = phi
                cands.append((pos, phi, lut))
    # per live candidate, the label relations still possible: equal, and complemented
    # (where both tasks' labels are 0/1 on the first n)
    alive = {i: {False, True} for i in range(len(cands))}
    dead_at: dict[int, int] = {}
    for sa, sb in plan:
        if sa.x is None:
            x = sa.df.enumerate(limit=max_inputs)
            if not budget.spend(len(x)):
                tried.append({**rec, "outcome": f"budget exhausted at n={sa.n} "
                                                f"({budget.used:,} of {budget.total:,})"})
                return None
            sa.x, sa.y = x, _labels(sa.df, x)
        keep = {}
        for i, modes in alive.items():
            pos, phi, lut = cands[i]
            img = sa.x if lut is None else lut[sa.x]
            if pos == "reversal":
                img = img[:, ::-1]
            ok = np.ones(len(img), dtype=bool)
            if sb.df.valid is not None:
                ok = np.asarray(sb.df.valid(img), dtype=bool)
            if not budget.spend(int(ok.sum())):
                tried.append({**rec, "outcome": f"budget exhausted at n={sa.n} "
                                                f"({budget.used:,} of {budget.total:,})"})
                return None
            left = set()
            if ok.all():
                yb = _labels(sb.df, img)
                binary = bool(np.isin(yb, (0, 1)).all() and np.isin(sa.y, (0, 1)).all())
                left = {m for m in modes if np.array_equal(yb, 1 - sa.y if m else sa.y)
                        and (binary or not m)}
            if left:
                keep[i] = left
            else:
                dead_at[sa.n] = dead_at.get(sa.n, 0) + 1
        alive = keep
        if not alive:
            tried.append({**rec, "outcome": f"no map: all {len(cands)} candidates fail "
                                            f"(first failures by n: {dead_at})"})
            return None
    ns = tuple(sa.n for sa, _ in plan)
    # identity positions first, then labels equal before complemented
    first = next((i for i, m in alive.items() if False in m), next(iter(alive)))
    pos, phi, lut = cands[first]
    negated = False not in alive[first]
    ok, cover = coverage(a, b, task)
    va, vb = plan[0][0].df.task.vocab, plan[0][1].df.task.vocab
    # {} : the identity on every token (the same instance space on both sides)
    letters = {} if phi is None else _spell(la, lb, phi, va, vb)
    if not ok:
        neg = ", labels complemented" if negated else ""
        tried.append({**rec, "outcome": f"map {letters} ({pos}{neg}) agrees at n = {list(ns)} "
                                        f"but is not kept: {cover}"})
        return None
    tried.append({**rec, "outcome": f"found: letters {letters}, positions {pos}"
                                    f"{', labels complemented' if negated else ''}, checked on "
                                    f"every input at n = {list(ns)}"})
    return _entry(a, b, pos, lut, letters, ns, cover, negated)


def _entry(a: TaskRef, b: TaskRef, pos: str, lut: np.ndarray | None,
           letters: dict[str, str], ns: tuple[int, ...], cover: str,
           negated: bool = False) -> Entry:
    def map_(x: np.ndarray, n: int) -> np.ndarray:
        x = np.asarray(x, dtype=np.int64)
        img = x if lut is None else lut[x]
        return img[:, ::-1] if pos == "reversal" else img

    text = ", ".join(f"{k}->{v}" for k, v in letters.items()) or "the identity on every token"
    return Entry(
        name=f"{a} -> {b} (found by search: letters {text}; positions {pos}"
             f"{'; labels complemented' if negated else ''})",
        source_family=a.family, source_params=dict(a.params),
        target_family=b.family, target_params=dict(b.params),
        map=map_, size=lambda n: n, size_formula="n' = n", blowup="identity", ns=ns,
        kind="projection", searched=True, letter_map=letters, positions=pos,
        coverage=cover, negated=negated,
        doc=f"token j of the image is the letter map of token "
            f"{'j' if pos == 'identity' else 'n+1-j'} of the input; labels "
            f"{'complementary' if negated else 'equal'} on every input at n = {list(ns)}")


_CACHE: dict[tuple, SearchResult] = {}


def _identity(ref: TaskRef) -> tuple:
    ident = task_identity(ref.family, dict(ref.params))
    return (str(ref), ident["digest"])


def search(task: "TaskRef | str", rows: Sequence["TaskRef | str"],
           budget: int = DEFAULT_BUDGET, max_inputs: int = MAX_INPUTS) -> SearchResult:
    """Maps between ``task`` and each of ``rows`` (both directions; see the module
    docstring), cached by the identities of the task and the rows."""
    if budget < 0 or max_inputs < 1:
        raise TaskParameterError(f"a reduction search needs budget >= 0 and max_inputs >= 1 "
                                 f"(got {budget}, {max_inputs})")
    t = TaskRef.of(task)
    others = [r for r in dict.fromkeys(TaskRef.of(r) for r in rows) if r != t]
    key = (_identity(t), tuple(_identity(r) for r in others), int(budget), int(max_inputs))
    if key in _CACHE:
        return _CACHE[key]
    bud = _Budget(budget)
    tried: list[dict[str, Any]] = []
    found: list[Entry] = []
    sides: dict = {}
    for s in others:
        for a, b in ((t, s), (s, t)):
            try:
                e = _search_pair(a, b, t, bud, max_inputs, tried, sides)
            except TheorybenchError as exc:  # a row that cannot be built is skipped, said
                tried.append({"source": str(a), "target": str(b),
                              "outcome": f"skipped: {type(exc).__name__}: {exc}"})
                continue
            if e is not None:
                found.append(e)
    res = SearchResult(str(t), [str(r) for r in others], found, tried, bud.used, bud.total,
                       exhausted=any("budget exhausted" in x["outcome"] for x in tried),
                       settings={"max_inputs": max_inputs, "max_n": MAX_N, "min_ns": MIN_NS,
                                 "positions": list(POSITIONS)})
    _CACHE[key] = res
    return res


__all__ = ["search", "coverage", "SearchResult", "DEFAULT_BUDGET", "MAX_INPUTS", "MAX_N",
           "MIN_NS"]
