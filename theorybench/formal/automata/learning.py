"""Myhill-Nerode learning of a language view's minimal automaton, checked on all words up
to a bound; residual-class counts (described, never a verdict); non-regularity only from a
checked pumping certificate (:mod:`.nonregular`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ...errors import TheoryError
from ..growth import GrowthFit, classify_growth
from ..language import INVALID, LanguageView, domain_view, language_view
from .dfa import DFA
from .nonregular import find_certificate

#: Default check bound (all words up to this length; fewer for larger alphabets).
DEFAULT_CHECK = 14


def _rows(view: LanguageView, plen: int, slen: int) -> tuple[np.ndarray, np.ndarray]:
    """Residual rows of every prefix of length <= plen on every suffix of length <= slen.
    Returns (rows as int8, prefix_lengths); prefixes of one length are in lexicographic
    order."""
    k = view.k
    blocks, lens = [], []
    for a in range(plen + 1):
        parts = [view.table(a + b).reshape(k ** a, k ** b) for b in range(slen + 1)]
        blocks.append(np.concatenate(parts, axis=1))
        lens.append(np.full(k ** a, a))
    rows = np.concatenate(blocks)
    small = rows.astype(np.int8)
    if not np.array_equal(small, rows):  # outputs beyond int8: keep them exact
        small = rows
    return small, np.concatenate(lens)


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, class of each row), fast: each row viewed as one opaque item."""
    rows = np.ascontiguousarray(rows)
    flat = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1])))[:, 0]
    _, first, cls = np.unique(flat, return_index=True, return_inverse=True)
    return rows[first], cls.reshape(-1)


def _prefix_words(k: int, plen: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for a in range(plen + 1):
        for code in range(k ** a):
            digits = []
            for _ in range(a):
                digits.append(code % k)
                code //= k
            out.append(tuple(reversed(digits)))
    return out


def residual_counts(view: LanguageView, ms: Sequence[int]) -> list[int]:
    """Number of residual classes of prefixes of length <= m, told apart by suffixes of
    length <= m, for each m."""
    out = []
    for m in ms:
        rows, _ = _rows(view, m, m)
        out.append(int(_unique_rows(rows)[0].shape[0]))
    return out


def residual_growth(view_or_family, ms: Sequence[int] | None = None,
                    params: dict | None = None) -> tuple[list[int], GrowthFit]:
    """(counts, fit): residual classes by bound m (see :func:`residual_counts`)."""
    view = view_or_family if isinstance(view_or_family, LanguageView) \
        else language_view(view_or_family, params)
    if ms is None:
        top = max(3, view.max_length() // 2)
        ms = list(range(1, top + 1))
    counts = residual_counts(view, ms)
    return counts, classify_growth(list(ms), counts)


@dataclass
class LearnResult:
    """Outcome of :func:`learn_dfa`.

    ``status``: ``regular`` (``dfa`` checked on all words up to ``check_len``),
    ``nonregular`` (proved by ``certificate``, a checked pumping family) or
    ``inconclusive`` (neither at this bound: no lower bound may be drawn from it)."""

    family: str
    params: dict[str, Any]
    status: str
    dfa: DFA | None
    learn_len: int
    check_len: int
    growth: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    counterexample: str | None = None
    has_invalid: bool = False
    #: the proof of a ``nonregular`` status (:class:`.nonregular.PumpCertificate` as a dict)
    certificate: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"family": self.family, "params": self.params, "status": self.status,
             "learn_len": self.learn_len, "check_len": self.check_len, "growth": self.growth,
             "reason": self.reason, "counterexample": self.counterexample}
        if self.certificate is not None:
            d["certificate"] = self.certificate
        if self.dfa is not None:
            d["dfa_states"] = self.dfa.size
        return d


def hypothesis(view: LanguageView, learn_len: int) -> tuple[DFA | None, str]:
    """The DFA of residual classes (prefixes <= p, suffixes <= s, p + 1 + s = learn_len)."""
    slen = learn_len // 2
    plen = learn_len - slen - 1
    rows, lens = _rows(view, plen + 1, slen)
    uniq, cls = _unique_rows(rows)
    short = lens <= plen
    states = np.unique(cls[short])
    if not np.isin(cls[~short], states).all():
        return None, (f"not closed: a prefix of length {plen + 1} has a residual unlike every "
                      f"prefix of length <= {plen} (more states than the bound can show)")
    words = _prefix_words(view.k, plen + 1)
    code_of = {w: i for i, w in enumerate(words)}
    rep: dict[int, int] = {}
    for i in np.flatnonzero(short):
        rep.setdefault(int(cls[i]), int(i))
    number = {c: j for j, c in enumerate(sorted(rep, key=lambda c: rep[c]))}
    delta = np.zeros((len(number), view.k), dtype=np.int64)
    output = np.zeros(len(number), dtype=np.int64)
    for c, i in rep.items():
        output[number[c]] = uniq[c, 0]  # the empty suffix comes first in every row
        for a in range(view.k):
            delta[number[c], a] = number[int(cls[code_of[words[i] + (a,)]])]
    return DFA(view.alphabet, delta, output, number[int(cls[0])]).minimize(), ""


def check_dfa(dfa: DFA, view: LanguageView, check_len: int) -> str | None:
    """The first word (shortest, lexicographic) up to ``check_len`` where ``dfa`` and the
    reference differ, spelled out with both outputs, or None."""
    for length in range(check_len + 1):
        got = dfa.output[dfa.states_of_length(length)]
        want = view.table(length)
        bad = np.flatnonzero(got != want)
        if len(bad):
            word = view.words(length)[bad[0]]
            return (f"{view.spell(word)}: automaton gives {int(got[bad[0]])}, reference "
                    f"gives {int(want[bad[0]])}")
    return None


def learn_view(view: LanguageView, learn_len: int | None = None,
               check_len: int | None = None) -> LearnResult:
    """:func:`learn_dfa` on a ready :class:`LanguageView`."""
    top = view.max_length()
    check_len = min(top, DEFAULT_CHECK) if check_len is None else check_len
    learn_len = max(2, check_len - 2) if learn_len is None else learn_len
    if learn_len > check_len:
        raise TheoryError(f"learning bound {learn_len} exceeds the check bound {check_len}: "
                          f"the check bound must be at least the learning bound")
    if check_len > top:
        raise TheoryError(f"the check bound {check_len} (check_len, --n) needs {view.k}^"
                          f"{check_len} words of one length, above the limit; use a bound "
                          f"of at most {top}")
    ms = list(range(1, max(3, check_len // 2) + 1))
    counts, fit = residual_growth(view, ms)
    growth = {"m": ms, "classes": counts, "fit": fit.to_dict()}
    has_invalid = any((view.table(L) == INVALID).any() for L in range(check_len + 1))
    res = dict(family=view.family, params=view.params, learn_len=learn_len,
               check_len=check_len, growth=growth, has_invalid=has_invalid)
    dfa, why = hypothesis(view, learn_len)
    if dfa is not None:
        bad = check_dfa(dfa, view, check_len)
        if bad is None:
            return LearnResult(status="regular", dfa=dfa, reason=(
                f"{dfa.size}-state automaton learned from words up to length {learn_len} "
                f"agrees with the reference on all words up to length {check_len}"), **res)
        why = f"the learned automaton ({dfa.size} states) disagrees with the reference: {bad}"
    # no automaton at this bound; "non-regular" needs a proof, not a residual count
    cert, no_proof = find_certificate(view)
    if cert is not None:
        return LearnResult(status="nonregular", dfa=None, counterexample=why,
                           certificate=cert.to_dict(), reason=cert.explanation(), **res)
    return LearnResult(status="inconclusive", dfa=None, counterexample=why, reason=(
        f"no automaton checked up to length {check_len} ({why}), "
        f"and no proof of non-regularity ({no_proof}); residual classes by bound m = "
        f"{ms[0]}..{ms[-1]}: {counts}, which a regular language with more states shows too "
        f"(a larger check bound may find its automaton)"), **res)


@functools.lru_cache(maxsize=512)
def learn_view_cached(view: LanguageView, learn_len: int | None = None,
                      check_len: int | None = None) -> LearnResult:
    """:func:`learn_view`, cached per process by the view's identity (family, parameters,
    convention, restriction)."""
    return learn_view(view, learn_len, check_len)


@functools.lru_cache(maxsize=128)
def _learn_cached(family: str, params_key: tuple, learn_len, check_len, undefined: str,
                  domain: bool) -> LearnResult:
    view = language_view(family, dict(params_key), undefined)
    if domain:
        view = domain_view(view)
    return learn_view(view, learn_len, check_len)


def learn_dfa(family: str, params: dict[str, Any] | None = None, learn_len: int | None = None,
              check_len: int | None = None, undefined: str = "reject",
              domain: bool = False) -> LearnResult:
    """Learn and check the minimal automaton of ``family``'s language view (cached per
    process).  ``undefined`` is the language view's convention for lengths where the
    family is undefined; ``domain=True`` learns the automaton of the input domain (valid
    words at defined lengths) instead."""
    key = tuple(sorted((params or {}).items()))
    return _learn_cached(family, key, learn_len, check_len, undefined, domain)
