"""The language view of a task family: its decision function read as a language.

Language theories (Star-free, C-RASP; docs/theories.md §0, §1 and §4) read a decision task
as a (Moore) language over a fixed alphabet: a word w of ANY length gets the output of the
family's main decision function (``tasks.get(family, n=..).decision_view()[0]``) at the
instance whose input length is |w|.  Outputs are the task's own values (0/1 for decision
tasks, token ids for e.g. k-hop), so a "language" here is a map Sigma* -> outputs; it is
regular iff every output class is.

Conventions (documented choices, used by ``automata``):

* Alphabet. The family's vocabulary without the pad token must be the same at every n;
  families whose vocabulary grows with n (position tokens of ``index``, node names of the
  graph tasks) are *not* languages: :func:`language_view` raises :class:`TheoryError`
  saying so (``is_language`` returns the reason without raising).
* Lengths. The instance for a word of length L is the n whose decision-view length is L
  (found by search; e.g. ``binary_add`` has length 2n+2).  A length with no such n, or
  whose n the family refuses (``majority`` with even n), is *undefined*: by default every
  word of that length is rejected (output 0, ``undefined="reject"``) - the natural reading
  for membership tasks (no Dyck word has odd length) - or gets the separate output
  :data:`INVALID` (``undefined="invalid"``).  The empty word is always undefined.
* Domain. Words outside the natural input space at their length (a wrong token at a
  separator position, or rejected by ``valid``, e.g. k-hop's immediate repeats) get the
  output :data:`INVALID` (-1).  When the domain itself is star-free, this extension is
  canonical: the task is star-free on its domain iff the extended language is
  (``automata`` checks the domain separately, see ``domain_view``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import tasks
from ..errors import EnumerationTooLarge, TaskParameterError, TheoryError
from ..tasks.base import PAD, product_space

#: Output of a word outside the family's input space (or of an undefined length, on request).
INVALID = -1
#: Largest number of words of one length :meth:`LanguageView.table` materializes.
MAX_TABLE = 1 << 18
#: Lengths up to this are matched to an n by a scan; longer ones by the linear law
#: length = a n + b, when the scan of n <= _SCAN showed one.
_SCAN = 40


@functools.lru_cache(maxsize=32)
def _all_words(k: int, length: int) -> np.ndarray:
    if length == 0:
        return np.zeros((1, 0), dtype=np.int8)
    words = product_space([range(k)] * length, limit=MAX_TABLE)
    words = words.astype(np.int8 if k <= 127 else np.int64)
    words.setflags(write=False)
    return words


def _vocab_letters(task) -> tuple[str, ...]:
    return tuple(t for t in task.vocab if t != PAD)


def _probe_ns(family: str) -> list[int]:
    cls = tasks.family(family)
    ns = list(getattr(cls, "analysis_ns", ()) or (4, 6, 8))
    top = max(ns)
    return ns + [m for m in (top + 1, top + 2, top + 3, 2 * top + 1) if m not in ns]


def is_language(family: str, params: dict[str, Any] | None = None) -> tuple[bool, str]:
    """(True, "") when the family's alphabet is the same for every n, else (False, why)."""
    params = dict(params or {})
    cls = tasks.family(family)
    unknown = sorted(set(params) - {p.name for p in cls.params})
    if "n" in params or unknown:
        raise TaskParameterError(
            f"parameter(s) {', '.join(unknown or ['n'])} cannot be set for the language view of "
            f"{family} (n is the word length); its parameters are: "
            f"{', '.join(p.describe() for p in cls.params if p.name != 'n')}")
    seen: dict[int, tuple[str, ...]] = {}
    errors: list[TaskParameterError] = []
    for n in _probe_ns(family):
        try:
            seen[n] = _vocab_letters(tasks.get(family, n=n, **params))
        except TaskParameterError as exc:
            errors.append(exc)
            continue
        if len(seen) >= 3:
            break
    if len(seen) < 2:
        if errors:
            raise errors[-1]
        return False, f"could not build {family} at two lengths to compare its alphabet"
    alphabets = set(seen.values())
    if len(alphabets) > 1:
        sizes = ", ".join(f"n={n}: {len(a)} tokens" for n, a in seen.items())
        return False, (f"the alphabet of {family} grows with n ({sizes}): its inputs are not "
                       f"words over one fixed alphabet, so it is not a language")
    return True, ""


@dataclass
class LanguageView:
    """Membership (outputs) of words of any length over a family's fixed alphabet.

    Words are int arrays of *letter indices* 0..k-1 into ``alphabet`` (not task token ids).
    """

    family: str
    params: dict[str, Any]
    alphabet: tuple[str, ...]
    undefined: str = "reject"
    _n_of_len: dict[int, int | None] = field(default_factory=dict, repr=False)

    @property
    def k(self) -> int:
        return len(self.alphabet)

    def instance(self, length: int):
        """The task instance whose decision input has ``length`` tokens, or None."""
        n = self._n_for_length(length)
        if n is None:
            return None
        cache = self.__dict__.setdefault("_tasks", {})
        if n not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[n] = tasks.get(self.family, n=n, **self.params)
        return cache[n]

    def _n_for_length(self, length: int) -> int | None:
        if length in self._n_of_len:
            return self._n_of_len[length]
        found = None
        if length >= 1:
            line = self._length_line()
            if line is not None and length > _SCAN:
                # lengths grow as a n + b (checked on every n <= _SCAN): the one candidate
                # n decides, so a long word costs one task build, not a scan over all n
                a, b = line
                n, rest = divmod(length - b, a)
                found = n if rest == 0 and n >= 1 and self._length_at(n) == length else None
            else:
                for n in range(1, length + 3):
                    got = self._length_at(n)
                    if got == length:
                        found = n
                        break
                    if got is not None and got > length + 2:
                        break
        self._n_of_len[length] = found
        return found

    def _length_at(self, n: int) -> int | None:
        """Decision-view length of the instance at ``n`` (None if the family refuses n)."""
        try:
            task = tasks.get(self.family, n=n, **self.params)
        except TaskParameterError:
            return None
        return task.decision_view()[0].length

    def _length_line(self) -> tuple[int, int] | None:
        """(a, b) with length(n) = a n + b for every accepted n <= _SCAN (at least three
        of them, a >= 1), else None."""
        if "_line" not in self.__dict__:
            pts = [(n, got) for n in range(1, _SCAN + 1)
                   if (got := self._length_at(n)) is not None]
            line = None
            if len(pts) >= 3:
                (n0, l0), (n1, l1) = pts[0], pts[1]
                a, rest = divmod(l1 - l0, n1 - n0)
                b = l0 - a * n0
                if a >= 1 and rest == 0 and all(a * n + b == got for n, got in pts):
                    line = (a, b)
            self.__dict__["_line"] = line
        return self.__dict__["_line"]

    def membership(self, words: np.ndarray) -> np.ndarray:
        """Outputs (int64) of a batch of equal-length words of letter indices."""
        words = np.asarray(words, dtype=np.int64)
        if words.ndim != 2:
            raise TheoryError("membership expects a 2-d array (batch, length) of letter indices")
        count, length = words.shape
        if words.size and (words.min() < 0 or words.max() >= self.k):
            raise TheoryError(f"letter indices must be in 0..{self.k - 1} "
                              f"(alphabet {' '.join(self.alphabet)})")
        task = self.instance(length)
        if task is None:
            fill = 0 if self.undefined == "reject" else INVALID
            return np.full(count, fill, dtype=np.int64)
        view = task.decision_view()[0]
        ids = np.array([task.index[a] for a in self.alphabet], dtype=np.int64)
        tok = ids[words]
        ok = np.ones(count, dtype=bool)
        for pos, allowed in enumerate(view.choices):
            ok &= np.isin(tok[:, pos], np.asarray(allowed, dtype=np.int64))
        if view.valid is not None and ok.any():
            sub = np.zeros(count, dtype=bool)
            sub[ok] = np.asarray(view.valid(tok[ok]), dtype=bool)
            ok &= sub
        out = np.full(count, INVALID, dtype=np.int64)
        if ok.any():
            out[ok] = np.asarray(view.evaluate(tok[ok]), dtype=np.int64).reshape(-1)
        return out

    def words(self, length: int) -> np.ndarray:
        """All words of ``length`` in lexicographic order (row r spells r in base k)."""
        if self.k ** length > MAX_TABLE:
            raise EnumerationTooLarge(
                f"{self.k ** length:,} words of length {length} over {self.k} letters is more "
                f"than {MAX_TABLE:,}; use a smaller length bound (check_len, --n)")
        return _all_words(self.k, length)

    @functools.lru_cache(maxsize=128)
    def table(self, length: int) -> np.ndarray:
        """Outputs of all k^length words of ``length``, indexed by their base-k code
        (stored as int8 when the outputs fit)."""
        out = self.membership(self.words(length))
        if out.size and -128 <= out.min() and out.max() <= 127:
            out = out.astype(np.int8)
        out.setflags(write=False)
        return out

    def max_length(self, budget: int = MAX_TABLE) -> int:
        """Largest L with k^L <= budget."""
        return int(math.floor(math.log(budget) / math.log(max(self.k, 2)) + 1e-9))

    def encode(self, text: str) -> np.ndarray:
        """Letter indices of a space-separated word (TheoryError names a foreign token)."""
        idx = {a: i for i, a in enumerate(self.alphabet)}
        out = []
        for pos, tok in enumerate(text.split(), 1):
            if tok not in idx:
                raise TheoryError(f"token {pos} {tok!r} is not in the alphabet of {self.family}: "
                                  f"{' '.join(self.alphabet)}")
            out.append(idx[tok])
        return np.array(out, dtype=np.int64)

    def spell(self, word) -> str:
        return " ".join(self.alphabet[int(a)] for a in word) or "(empty word)"

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.family, tuple(sorted(self.params.items())),
                     self.undefined))

    def __eq__(self, other) -> bool:
        return (type(other) is type(self) and self.family == other.family
                and self.params == other.params and self.undefined == other.undefined)


class DomainView(LanguageView):
    """The indicator language of a family's input domain: 1 on valid words, 0 elsewhere."""

    def membership(self, words):
        return (super().membership(words) != INVALID).astype(np.int64)


class SubView(LanguageView):
    """``parent`` restricted to the words over a subset of its letters (L & Sigma'*).

    Regular, star-free and AC0 languages are closed under intersection with Sigma'* (itself
    star-free), so a restriction that is non-regular, non-aperiodic or not quasi-aperiodic
    proves the same of the whole language - with a smaller alphabet, hence longer words
    within the same enumeration budget."""

    def __init__(self, parent: LanguageView, letters: tuple[int, ...]):
        super().__init__(parent.family, parent.params,
                         tuple(parent.alphabet[a] for a in letters), parent.undefined)
        self.parent, self.letters = parent, tuple(letters)

    def membership(self, words):
        words = np.asarray(words, dtype=np.int64)
        return self.parent.membership(np.asarray(self.letters, dtype=np.int64)[words])

    def __hash__(self) -> int:
        return hash(("SubView", hash(self.parent), self.letters))

    def __eq__(self, other) -> bool:
        return (type(other) is SubView and self.parent == other.parent
                and self.letters == other.letters)


def restrictions(view: LanguageView, size: int = 2) -> list[SubView]:
    """Every restriction of ``view`` to ``size`` of its letters."""
    import itertools
    if view.k <= size:
        return []
    return [SubView(view, c) for c in itertools.combinations(range(view.k), size)]


def language_view(family: str, params: dict[str, Any] | None = None,
                  undefined: str = "reject") -> LanguageView:
    """The :class:`LanguageView` of a family (TheoryError if its alphabet grows with n)."""
    if undefined not in ("reject", "invalid"):
        raise TheoryError(f"undefined={undefined!r}: use 'reject' or 'invalid'")
    params = dict(params or {})
    ok, why = is_language(family, params)
    if not ok:
        raise TheoryError(why)
    task = None
    for n in _probe_ns(family):
        try:
            task = tasks.get(family, n=n, **params)
            break
        except TaskParameterError:
            continue
    return LanguageView(family, params, _vocab_letters(task), undefined)


def domain_view(view: LanguageView) -> DomainView:
    """The domain indicator of ``view`` (undefined lengths count as outside the domain)."""
    return DomainView(view.family, view.params, view.alphabet, "invalid")


__all__ = ["INVALID", "MAX_TABLE", "LanguageView", "DomainView", "SubView", "is_language",
           "language_view", "domain_view", "restrictions"]
