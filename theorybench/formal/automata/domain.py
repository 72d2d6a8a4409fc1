"""Is a family's input domain star-free / quasi-aperiodic / regular?  The side condition of
every automaton lower bound on a language view with invalid words.

A language view marks words outside the task's domain D (wrong tokens at separator
positions, words rejected by ``valid``, and - with ``undefined="invalid"`` - every word of
a length at which the family is undefined) with the extra output INVALID.  A group in the
monoid of that extended language may come from D alone (a family defined only at odd
lengths has the periodic domain (SS)*S).  When D's own minimal automaton is aperiodic,
membership in D of the witness words u w^m z is eventually constant in m, so the cycle of
outputs that the group produces lies eventually inside D, i.e. in the task itself; the
lower bound then transfers to the task.  The same holds with "quasi-aperiodic" (AC0) and
"regular" in place of "aperiodic".
"""

from __future__ import annotations

from typing import Callable, Iterator

from ..language import LanguageView, SubView, domain_view, language_view, restrictions
from .learning import LearnResult, learn_view_cached
from .monoid import aperiodicity, quasi_aperiodicity

NEEDS = ("star-free", "quasi-aperiodic", "regular")
_PASSES = {"star-free": "its transition monoid is aperiodic",
           "quasi-aperiodic": "its syntactic morphism is quasi-aperiodic",
           "regular": "it is finite"}


def domain_problem(dom_view: LanguageView, need: str = "star-free",
                   check_len: int | None = None) -> str | None:
    """None if the domain indicator ``dom_view`` (see :func:`..language.domain_view`) is
    learned as a checked automaton with the property ``need``, else the reason why a lower
    bound on the extended language cannot be transferred to the task."""
    if need not in NEEDS:
        raise ValueError(f"need={need!r}: use one of {NEEDS}")
    dom = learn_view_cached(dom_view, None, check_len)
    what = f"the input domain of {dom_view.family} (valid words at defined lengths)"
    if dom.status != "regular":
        return (f"{what} is not shown regular ({dom.reason}); a lower bound on the extended "
                f"language would not transfer to the task")
    if need == "star-free" and not aperiodicity(dom.dfa)[0]:
        return (f"{what} is not star-free (its {dom.dfa.size}-state automaton is not "
                f"aperiodic), so the extended language's monoid says nothing about the task")
    if need == "quasi-aperiodic" and not quasi_aperiodicity(dom.dfa)[0]:
        return f"{what} is not quasi-aperiodic"
    return None


def views(family: str, restrict: bool = True
          ) -> Iterator[tuple[str, LanguageView, LanguageView]]:
    """(label, view, domain view): the language view of ``family`` with undefined lengths
    marked invalid, then (when ``restrict``) its restrictions to two letters.  Star-free,
    regular, AC0 and C-RASP languages are closed under intersection with Sigma'* (itself in
    each class), so a lower bound on a restriction is one on the whole language."""
    full = language_view(family, undefined="invalid")
    dom = domain_view(full)
    yield "all letters", full, dom
    if restrict:
        for sub in restrictions(full):
            yield ("letters {" + ", ".join(sub.alphabet) + "}", sub, SubView(dom, sub.letters))


def find_failing_view(family: str, test: Callable, need: str, check_len: int | None = None
                      ) -> tuple[str, LearnResult, object] | str:
    """The first view of :func:`views` (the whole language; its two-letter restrictions
    only when the whole one is not learned or its domain fails) whose checked automaton
    fails ``test(dfa, view) -> (ok, info)`` and whose domain has the property ``need``.

    Returns (label, learn result, info) or, when no view qualifies, the reason (a str)."""
    reasons = []
    for label, view, dom in views(family, restrict=True):
        res = learn_view_cached(view, None, check_len)
        if res.status != "regular":
            reasons.append(f"{label}: {res.status}")
            continue
        good, info = test(res.dfa, view)
        if good:
            if label == "all letters":
                return (f"the {res.dfa.size}-state minimal automaton passes the {need} test "
                        f"({_PASSES[need]})")
            continue
        why = domain_problem(dom, need, check_len)
        if why:
            reasons.append(f"{label}: {why}")
            continue
        return label, res, info
    return ("no automaton of the language or of a two-letter restriction fails the "
                    f"{need} test ({'; '.join(reasons)[:400]})")


__all__ = ["domain_problem", "views", "find_failing_view", "NEEDS"]
