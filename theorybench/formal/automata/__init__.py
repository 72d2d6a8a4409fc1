"""Finite automata of task languages: learning, minimization, transition monoid, aperiodicity.

Public API (used by the Star-free and C-RASP theories):

* ``learn_dfa(family, params=None, learn_len=None, check_len=None) -> LearnResult`` - learn
  the minimal DFA (Moore machine: outputs per state) of a family's language view
  (:mod:`.language`) from Myhill-Nerode residuals of prefixes up to ``learn_len``, then
  check it against the reference on *all* words up to ``check_len``.  The result's
  ``status`` is ``"regular"`` (``.dfa`` verified), ``"nonregular"`` (proved by
  ``.certificate``, a pumping family x y^i v^j w checked against the reference, see
  :mod:`.nonregular`) or ``"inconclusive"`` (neither at this bound, with the reason; no
  lower bound may be drawn from it).
* ``DFA`` with ``evaluate(words)``, ``minimize()``, ``access_words()``, ``separating_suffix``.
* ``transition_monoid(dfa, limit) -> Monoid`` (closure of the letter maps under
  composition; :class:`ResourceLimitError` past ``limit`` elements).
* ``aperiodicity(dfa, limit, view=None) -> (bool, witness | None)``: every element m has
  m^k = m^(k+1) for some k, else a word w, a state q (with its access word) on a cycle of
  q -> q.w -> ... of length p > 1, and a suffix telling the cycle's states apart.
* ``residual_growth(view_or_family, ms) -> (counts, GrowthFit)`` (descriptive).
* ``find_certificate(view) -> (PumpCertificate | None, why)``: the proof of non-regularity.
* ``domain_problem(domain_view, need, check_len) -> str | None``: the side condition of a
  lower bound on a view with invalid words (the domain must be star-free / regular).

Theory: a regular language is star-free iff its syntactic monoid (the transition monoid of
its minimal DFA) is aperiodic (Schutzenberger 1965); star-free = FO[<] (McNaughton & Papert
1971) = LTL (Kamp 1968) = B-RASP = masked hard-attention transformers (Yang, Chiang &
Angluin, NeurIPS 2024, arXiv 2310.13897).  A language is regular iff it has finitely many
Myhill-Nerode classes; residual classes counted up to a bound can only *suggest*
non-regularity (a regular language with many states shows as many), so ``nonregular``
needs a certificate: a reduction from {a^i b^j : i = j} (or >=, <=) checked far beyond
the enumeration bound and past every integer parameter of the task.
"""

from __future__ import annotations

from .dfa import DFA, from_table
from .domain import domain_problem, find_failing_view, views
from .learning import (DEFAULT_CHECK, LearnResult, check_dfa, hypothesis, learn_dfa,
                       learn_view, learn_view_cached, residual_counts, residual_growth)
from .nonregular import PumpCertificate, find_certificate
from .monoid import MONOID_LIMIT, Monoid, aperiodicity, quasi_aperiodicity, transition_monoid

__all__ = ["DFA", "Monoid", "LearnResult", "MONOID_LIMIT", "DEFAULT_CHECK", "from_table",
           "transition_monoid", "aperiodicity", "quasi_aperiodicity", "residual_counts",
           "residual_growth", "hypothesis", "check_dfa", "learn_view", "learn_view_cached",
           "learn_dfa", "domain_problem", "PumpCertificate", "find_certificate",
           "find_failing_view", "views"]
