"""The Star-free theory: masked hard attention = B-RASP = LTL = FO[<] = star-free languages.

Two matrix columns:

* ``star_free`` - B-RASP without position information.  Yang, Chiang & Angluin
  ("Masked hard-attention transformers recognize exactly the star-free languages",
  NeurIPS 2024, arXiv 2310.13897) show that masked hard-attention transformers with strict
  masking and no position embeddings, B-RASP and LTL define the same languages; by Kamp
  (1968) LTL = FO[<], by McNaughton & Papert (1971) FO[<] = star-free, and by
  Schutzenberger (1965) a regular language is star-free iff its syntactic monoid is
  aperiodic.
* ``star_free_pos`` - B-RASP[pos]: scores (and position-wise formulas) may also compare
  positions (``j == i - 1``, ``j == 3``, ``i % 2 == 0``, ``j == i - n / 2``, ``tokpos``; see
  ``formal.brasp.interpret``).  Yang et al. treat position embeddings in section 7 of arXiv v3 (the
  NeurIPS version; its overview figure sends "finite-image PEs" and "rational sinusoidal
  PEs" to subsections of section 7): finite-image embeddings add unary numerical
  predicates, rational sinusoidal ones modular predicates.  Our [pos] is
  more liberal: *binary* numerical predicates of (i, j, n) in scores.  It stays inside
  FO[Arb] = non-uniform AC0 (Barrington, Immerman & Straubing 1990), which is what the
  lower bounds of this column use: a regular language is in AC0 iff its syntactic
  morphism is quasi-aperiodic (Barrington, Compton, Straubing & Therien 1992), and AC0
  circuits have polylogarithmic average sensitivity (Boppana 1997).  Non-regularity is
  *not* a lower bound here (numerical predicates recognise non-regular languages), so that
  rule is skipped for this column.  ``tokpos`` (the position a query token names) lets a
  fixed program answer index queries; it goes beyond Yang et al.'s fixed-alphabet setting
  and predictions relying on it say so.  Token-equality between positions (needed by
  edge_exists: is the query edge among the listed ones?) is not a B-RASP predicate: the
  rule on growing alphabets (below) shows that no fixed program decides it.

Rules (in basis order).  Construction: a library program verified against the task at
every analysis n <= ``ctx.max_n`` (exhaustively where the input space has at most 2^16
inputs, on 2,000 samples beyond) whose size and depth do not change with n -> Easy; a junta on positions fixed from the
ends (:mod:`..formal.junta`) -> its plain B-RASP program, verified the same way -> Easy; the
minimal automaton of the language view (``formal.language``), learned from residuals and
checked on all words up to the check bound, is aperiodic -> Easy; for [pos] also, after
the automaton rules, the AND/OR/NOT formula of the circuit template search written as a
B-RASP[pos] program (:mod:`..formal.brasp.from_formula`), verified like a library program
-> Easy.  Lower bound: that
automaton's transition monoid contains a group (witness word and state cycle; for [pos]: a
group among the images of words of the stable length) -> Hard; a checked proof of
non-regularity (a pumping family, :mod:`..formal.automata.nonregular`) -> Hard (plain
column only; residual classes merely counted up to a bound are no lower bound).  The group
rules need the family's input domain (valid words at defined lengths) to be star-free,
since the view marks other words with a separate output; otherwise the rule says so and
skips.
Families whose alphabet grows with n (index family, graphs) are not languages, so the
automaton rules do not apply; for them the lower bound ``symbols a fixed program cannot
tell apart`` counts symbols pairwise separated by a one-token change (with witnesses,
:mod:`..formal.token_classes`): a program reads tokens only through token predicates, so
K such symbols need log2 K of them, and K growing with n rules out a program of fixed size.
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np

from .. import tasks
from ..errors import ResourceLimitError, TaskParameterError
from ..formal.automata import (aperiodicity, find_failing_view, learn_dfa,
                       learn_view_cached, quasi_aperiodicity, views)
from .base import Basis, Context, RuleSkip, Status, Theory, Verdict, rule
from ..formal.brasp import ast as A
from ..formal.brasp.check import check_on_task
from ..formal.brasp.from_formula import formula_program as brasp_formula_program
from ..formal.brasp.programs import for_task
from ..formal.search import circuits as circuit_search
from ..formal.language import is_language
from .juntas import program_rule as junta_program_rule
from ..formal.growth import classify_measured
from ..formal.token_classes import BEYOND_NS, largest_class, separation_series
from .regular import aperiodic_rule, quasi_rule
from .rules import group_witness, sensitivity_lower_bound

SOURCE = ("Yang, Chiang & Angluin, Masked hard-attention transformers recognize exactly the "
          "star-free languages, NeurIPS 2024 (arXiv 2310.13897)")
SCHUTZENBERGER = "Schutzenberger 1965 (star-free iff aperiodic syntactic monoid)"
BCST = ("Barrington, Compton, Straubing & Therien 1992 (regular languages in AC0 = "
        "quasi-aperiodic syntactic morphism)")


def _from_formula(task) -> tuple[str, Any] | str:
    """(name, B-RASP[pos] program) written from the circuit template search's AND/OR/NOT
    formula for ``task``, or why there is none."""
    res, _ = circuit_search.cached_search(task, "ac0")
    if res.formula is None:
        return f"the circuit template search found no AND/OR/NOT formula: {res.reason}"
    return (f"from the template formula {res.text} (found by the circuit template search, "
            f"every input checked at n = {list(res.checked_ns)})",
            brasp_formula_program(res.formula, res.letters))


@functools.lru_cache(maxsize=256)
def _verified_program(family: str, positional: bool, max_n: int, seed: int,
                      from_formula: bool = False) -> dict[str, Any]:
    cls = tasks.family(family)
    ns = [n for n in cls.analysis_ns if n <= max_n] or list(cls.analysis_ns[:2])
    rows, texts, name = [], set(), None
    for n in ns:
        try:
            task = tasks.get(family, n=n)
        except TaskParameterError:
            continue
        got = _from_formula(task) if from_formula else for_task(task, positional)
        if isinstance(got, str):
            return {"skip": got}
        if got is None:
            kind = "B-RASP[pos]" if positional else "plain B-RASP"
            return {"skip": f"the library has no {kind} program for {family}, and the search "
                            f"for a plain B-RASP program found none within its budget"}
        name, prog = got
        info, bad = check_on_task(prog, task, samples=2000, seed=seed)
        if bad is not None:
            what = "the program written" if from_formula else "library program"
            return {"skip": f"{what} {name} fails at n={n}: {bad}", "counterexample": bad}
        texts.add(A.to_text(prog))
        rows.append({**info, "depth": A.depth(prog), **A.size(prog)})
    if not rows:
        return {"skip": f"{family} could not be built at any n <= {max_n}"}
    return {"program": name, "text": sorted(texts)[0], "by_n": rows,
            "constant": len(texts) == 1, "positions": A.uses_positions(prog)}


@functools.lru_cache(maxsize=256)
def _language(family: str) -> tuple[bool, str]:
    return is_language(family)


class _StarFreeBase(Theory):
    positional: ClassVar[bool] = False
    sources = (SOURCE, SCHUTZENBERGER, "McNaughton & Papert 1971 (star-free = FO[<])",
               "Kamp 1968 (LTL = FO[<])")

    # ---- shared steps -----------------------------------------------------------------
    def _check_len(self, ctx: Context):
        check = ctx.options.get("check_len")
        return int(check) if check else None

    def _learn(self, family: str, ctx: Context, undefined: str = "reject"):
        ok, why = _language(family)
        if not ok:
            return None, RuleSkip(f"not a language: {why}; the automaton rules do not apply")
        return learn_dfa(family, check_len=self._check_len(ctx), undefined=undefined), None

    def _find_group(self, family: str, ctx: Context, test, need: str):
        """First view (the whole language, then two-letter restrictions) whose automaton
        fails ``test`` with a domain passing ``need``; (label, result, info) or a skip
        (:func:`automata.find_failing_view`)."""
        ok, why = _language(family)
        if not ok:
            return RuleSkip(f"not a language: {why}; the automaton rules do not apply")
        found = find_failing_view(family, test, need, self._check_len(ctx))
        return RuleSkip(found) if isinstance(found, str) else found

    def _automaton_evidence(self, res) -> dict[str, Any]:
        # a DFA learned from words up to the check length is verified up to that length
        ev = {"learned": res.to_dict(), "verified_up_to": int(res.check_len)}
        if res.dfa is not None and res.dfa.size <= 40:
            ev["automaton"] = res.dfa.to_dict()
        return ev

    # ---- rules --------------------------------------------------------------------------
    @rule("exact automaton of the task", Basis.CONSTRUCTION)
    def r_exact(self, family: str, ctx: Context):
        """A task that gives its automaton (REGEX or DFA; docs/theories.md, "Regular
        tasks"): without positions, aperiodic <=> star-free <=> B-RASP (Schutzenberger
        1965; Yang et al. 2024); with positions, quasi-aperiodic <=> AC0 (Barrington,
        Compton, Straubing & Therien 1992), and quasi-aperiodic languages are FO[<, MOD],
        expressible with modular position predicates (Yang et al., section 7)."""
        if self.positional:
            return quasi_rule(self, family, ctx, model=(
                "FO[<, MOD]-definable, so B-RASP with modular position predicates expresses "
                "it, while B-RASP[pos] programs only define AC0 languages"))
        return aperiodic_rule(self, family, ctx)

    @rule("verified B-RASP program", Basis.CONSTRUCTION)
    def r_program(self, family: str, ctx: Context):
        """A library program, verified against the task at every analysis n, with size and
        depth independent of n (Yang et al. 2024: B-RASP programs compile to masked
        hard-attention transformers)."""
        return self._program_cell(family, ctx, False)

    def _program_cell(self, family: str, ctx: Context, from_formula: bool):
        got = _verified_program(family, self.positional, ctx.max_n, ctx.seed, from_formula)
        if "skip" in got:
            return RuleSkip(got["skip"], {k: v for k, v in got.items() if k != "skip"})
        if not got["constant"]:
            return RuleSkip("the library program changes with n", got)
        last = got["by_n"][-1]
        ext = (" It reads query tokens with tokpos (our B-RASP[pos] extension for "
               "alphabets that name positions, see formal.brasp.interpret)." if "tokpos" in got["text"]
               else "")
        ev = {**got, "verified_up_to": max(r["n"] for r in got["by_n"]),
              "extensions": _extensions(got["text"])}
        return self.prediction(
            family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
            f"the {'B-RASP[pos]' if self.positional else 'B-RASP'} program {got['program']} "
            f"({last['operations']} operations, depth {last['depth']}, the same for every n) "
            f"agrees with the reference at n = {[r['n'] for r in got['by_n']]} "
            f"(exhaustively where marked in the evidence).{ext}")

    @rule("B-RASP program of a junta", Basis.CONSTRUCTION)
    def r_junta(self, family: str, ctx: Context):
        """The label reads a bounded set of positions fixed from the start and the end, by
        the same function at every n (found on every input at small n, formal/junta.py):
        a finite Boolean combination of u Sigma* and Sigma* v, star-free (Perles, Rabin &
        Shamir 1963; Ginzburg 1966; McNaughton & Papert 1971); its plain B-RASP program is
        checked like a library program (docs/theories.md, "Juntas")."""
        return junta_program_rule(self, family, ctx)

    @rule("aperiodic minimal automaton", Basis.CONSTRUCTION)
    def r_aperiodic(self, family: str, ctx: Context):
        """Minimal DFA learned and checked; aperiodic transition monoid -> star-free
        (Schutzenberger 1965) -> B-RASP (Yang et al. 2024)."""
        res, skip = self._learn(family, ctx)
        if skip:
            return skip
        if res.status != "regular":
            return RuleSkip(f"no automaton: {res.reason}", {"learned": res.to_dict()})
        try:
            aper, wit = aperiodicity(res.dfa, int(ctx.options.get("monoid_limit", 20000)))
        except ResourceLimitError as exc:
            return RuleSkip(str(exc))
        if not aper:
            return RuleSkip("the minimal automaton is not aperiodic", {"witness": wit})
        ev = self._automaton_evidence(res)
        ev["theorem"] = SCHUTZENBERGER
        return self.prediction(
            family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
            f"the minimal automaton ({res.dfa.size} states, checked on all words up to length "
            f"{res.check_len}) has an aperiodic transition monoid, so the language is "
            f"star-free and a B-RASP program exists (Schutzenberger; Yang et al. 2024)")

    @rule("group in the syntactic monoid", Basis.LOWER_BOUND)
    def r_group(self, family: str, ctx: Context):
        """Non-aperiodic minimal DFA (of the language, or of its restriction to two letters,
        since star-free languages are closed under intersection with Sigma'*): not
        star-free, so no B-RASP program / masked hard-attention transformer without
        positions (Schutzenberger; Yang et al.)."""
        found = group_witness(family, ctx, "star-free")
        if isinstance(found, RuleSkip):
            return found
        label, res, wit = found
        ev = {**self._automaton_evidence(res), "witness": wit, "restricted_to": label,
              "theorem": SCHUTZENBERGER}
        return self.prediction(
            family, Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED, ev,
            f"the minimal automaton ({res.dfa.size} states, {label}) is not aperiodic: "
            f"{wit['explanation']}; the language is not star-free, so no masked hard-attention "
            f"transformer without positions recognizes it")

    @rule("residual classes grow", Basis.LOWER_BOUND)
    def r_nonregular(self, family: str, ctx: Context):
        """Non-regular, proved by a pumping family (:mod:`..formal.automata.nonregular`):
        prefixes x y^i pairwise distinguished by suffixes v^j w, the language (or its
        restriction to two letters; regular languages are closed under intersection with
        Sigma'*) reducing to {a^i b^j : i = j} (or >=, <=) by quotients and the inverse
        homomorphism a -> y, b -> v (Myhill-Nerode: Nerode 1958, Thm 1; closure: Hopcroft
        & Ullman 1979, Thms 3.5-3.7), so its residual classes grow linearly with the
        length bound; not regular, hence not star-free.  Every word of the family is in
        the task's domain, so no condition on the domain is needed.  An ``inconclusive``
        learning result (residual classes counted up to a bound, no certificate) is no
        lower bound: a regular language with more states than the bound shows looks the
        same.  Status ``verified <= N``: the relation is checked on words up to length N."""
        ok, why = _language(family)
        if not ok:
            return RuleSkip(f"not a language: {why}; the automaton rules do not apply")
        reasons = []
        for label, view, _dom in views(family, restrict=True):
            res = learn_view_cached(view, None, self._check_len(ctx))
            if res.status == "regular" and label == "all letters":
                return RuleSkip("the language's automaton was learned and checked (regular)")
            if res.status != "nonregular" or not res.certificate:
                reasons.append(f"{label}: {res.status}"
                               + (f" ({res.reason[:160]})" if res.status == "inconclusive"
                                  and label == "all letters" else ""))
                continue
            cert = res.certificate
            return self.prediction(
                family, Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED,
                {"learned": res.to_dict(), "restricted_to": label,
                 "theorem": "Myhill-Nerode (Nerode 1958, Thm 1); closure of regular "
                            "languages under quotient and inverse homomorphism (Hopcroft & "
                            "Ullman 1979, Thms 3.5-3.7)",
                 "certificate": cert, "verified_up_to": int(cert["verified_up_to"])},
                f"{label}: {res.reason}; a non-regular language is not star-free (the "
                f"pumping relation is checked on words up to length "
                f"{cert['verified_up_to']}, not proved for every length)")
        return RuleSkip("no proof of non-regularity; residual classes counted up to a bound "
                        "are no lower bound (" + "; ".join(reasons)[:500] + ")")

    @rule("residual classes keep growing (fit)", Basis.LOWER_BOUND)
    def r_residual_fit(self, family: str, ctx: Context):
        """Not star-free, extrapolated from the residual classes measured for the
        automaton learner: a star-free language is regular, so its residual (Myhill-Nerode)
        classes are at most the states of its minimal automaton at every bound m (Nerode
        1958, Thm 1). Where no automaton was found up to the check length and no pumping
        proof either, the counts of classes by bound m are fitted (formal/growth.py); a
        decided sub-exponential unbounded fit (logarithmic, linear or power; never bounded,
        exponential or ambiguous with either: a regular language reading a window of w letters
        back shows 2^m classes up to m = w) with counts rising up to the last bound gives Hard,
        ``extrapolated``: a regular language with more states than the bounds reach shows the
        same rising counts (a threshold count, "at least 100 a's", is star-free and shows
        m + 1 classes up to m = 100), so this is a fit, not a proof."""
        ok, why = _language(family)
        if not ok:
            return RuleSkip(f"not a language: {why}; the automaton rules do not apply")
        view = next((v for label, v, _d in views(family, restrict=True)
                     if label == "all letters"), None)
        if view is None:
            return RuleSkip("no view of the whole language")
        res = learn_view_cached(view, None, self._check_len(ctx))
        if res.status != "inconclusive":
            return RuleSkip(f"the learner's outcome is {res.status}; a fit is needed only "
                            f"when it is inconclusive")
        ms, counts = res.growth.get("m") or [], res.growth.get("classes") or []
        fit = res.growth.get("fit") or {}
        ev = {"learned": res.to_dict(), "residual_classes": dict(zip(ms, counts)),
              "growth": fit, "theorem": "Myhill-Nerode (Nerode 1958, Thm 1): a regular "
                                        "language has finitely many residual classes"}
        rising = len(counts) >= 3 and counts[-1] > counts[-2] > counts[-3]
        # every prefix its own class: what any language that looks m letters back shows
        # (the m-th letter from the end is a: regular, even star-free), so no evidence
        every = sum(view.k ** length for length in range(ms[-1] + 1)) if ms else 0
        if rising and counts[-1] >= every:
            return RuleSkip(f"residual classes by bound m = {ms}: {counts}: every prefix of "
                            f"length <= {ms[-1]} is its own class, as in any language that "
                            f"reads {ms[-1]} letters back (regular ones too); no evidence", ev)
        # exponential growth up to a small bound is what a regular language that reads a
        # window of letters back shows (the 9th letter from the end is a: 2^m classes up to
        # m = 9, then flat), so only a sub-exponential unbounded fit counts
        unbounded = (fit.get("kind") in ("log", "linear", "poly") and fit.get("decided", True)
                     and not {"bounded", "exponential"} & set(fit.get("ambiguous_with") or ()))
        if not (rising and unbounded):
            return RuleSkip(f"residual classes by bound m = {ms}: {counts} "
                            f"({fit.get('kind', 'no fit')}); not a decided unbounded growth "
                            f"rising to the last bound", ev)
        return self.prediction(
            family, Verdict.HARD, Basis.LOWER_BOUND, Status.EXTRAPOLATED, ev,
            f"residual classes by bound m = {ms}: {counts}, growing as {fit.get('formula')} "
            f"({fit.get('kind')}); a star-free language is regular and has at most as many "
            f"classes as its automaton's states at every bound (extrapolated: no automaton "
            f"was found up to length {res.check_len} and no pumping proof either)")


    @rule("symbols a fixed program cannot tell apart", Basis.LOWER_BOUND)
    def r_token_classes(self, family: str, ctx: Context):
        """For an alphabet that grows with n: a B-RASP program reads a token only through
        its initial vectors Q_s(i) = [w_i = s] (Yang, Chiang & Angluin 2024, the
        definition of B-RASP), so one with P token predicates - or any P fixed sets of
        symbols - computes the same on x and on x with one symbol s replaced by t whenever
        s and t lie in the same sets; K symbols pairwise separated by such a replacement
        (some valid input changes its label) need P >= log2 K. With B-RASP[pos] a program
        also reads the number a token spells (``tokpos``), so only symbols spelling the same
        number are compared. K(n) is measured with witnesses (formal/token_classes.py);
        growing with n (a fit: ``extrapolated``) it rules out every program of fixed size
        (docs/theories.md §1, "Growing alphabets")."""
        return token_class_rule(self, family, ctx)


class StarFreeTheory(_StarFreeBase):
    name = "star_free"
    title = "Star-free (masked hard attention, B-RASP, no positions)"
    summary = ("Masked hard-attention transformers without positions recognize exactly the "
               "star-free languages, those with an aperiodic syntactic monoid (Yang, Chiang, "
               "Angluin 2024). Easy = a verified B-RASP program or an aperiodic learned DFA; "
               "Hard = a group in the transition monoid or a non-regular language.")
    assumptions = ("unique hard attention", "strict future/past masking",
                   "no position embeddings", "finite alphabet; accept at the last position")


class StarFreePosTheory(_StarFreeBase):
    name = "star_free_pos"
    title = "Star-free with positions (B-RASP[pos])"
    summary = ("The same model with position information (B-RASP[pos]): programs may test "
               "positions, so languages such as index with query tokens become expressible. "
               "Easy = a verified B-RASP[pos] program of fixed size; Hard = AC0 lower bounds "
               "(a non-quasi-aperiodic regular language, or sensitivity growing like a power "
               "of n), since such programs stay within AC0.")
    positional = True
    assumptions = ("unique hard attention", "strict masking",
                   "position predicates in scores (B-RASP[pos]); tokpos for query tokens",
                   "accept at the last position")
    sources = _StarFreeBase.sources + (BCST,)
    dropped_rules = {
        "r_group": "with positions a group alone is no lower bound ((aa)* needs only i % 2); "
                   "the quasi-aperiodicity rules replace it",
        "r_nonregular": "non-regularity is no lower bound with positions: numerical "
                        "predicates recognize non-regular languages (e.g. a^m b^m)",
        "r_residual_fit": "non-regularity is no lower bound with positions (see "
                          "r_nonregular)",
    }

    @rule("quasi-aperiodic minimal automaton", Basis.CONSTRUCTION)
    def r_quasi(self, family: str, ctx: Context):
        """Quasi-aperiodic syntactic morphism -> FO[<, MOD] (Barrington et al. 1992),
        expressible with modular position predicates (Yang et al. 2024, section 7 of arXiv
        v3: rational sinusoidal position embeddings give modular predicates)."""
        res, skip = self._learn(family, ctx)
        if skip:
            return skip
        if res.status != "regular":
            return RuleSkip(f"no automaton: {res.reason}")
        ok, info = quasi_aperiodicity(res.dfa)
        if not ok:
            return RuleSkip("the syntactic morphism is not quasi-aperiodic", {"witness": info})
        return self.prediction(
            family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED,
            {**self._automaton_evidence(res), "quasi_aperiodicity": info, "theorem": BCST},
            f"the minimal automaton ({res.dfa.size} states) has a quasi-aperiodic morphism "
            f"(stability index {info['stability_index']}): FO[<, MOD]-definable, hence "
            f"B-RASP with modular position predicates")

    @rule("B-RASP[pos] program from the template formula", Basis.CONSTRUCTION)
    def r_formula(self, family: str, ctx: Context):
        """The AND/OR/NOT formula of the circuit template search (formal/search/circuits.py)
        written as a B-RASP[pos] program (formal/brasp/from_formula.py: attentions at
        j == 1, j == n, j == i + 1, j == n + 1 - i, j == i + n / 2), then verified like a
        library program. After the automaton rules, so that a regular task keeps them."""
        return self._program_cell(family, ctx, True)

    @rule("not quasi-aperiodic", Basis.LOWER_BOUND)
    def r_not_quasi(self, family: str, ctx: Context):
        """A group among the images of words of the stable length (in the language or a
        two-letter restriction): the regular language is not in AC0 (Barrington et al.
        1992), while B-RASP[pos] programs (numerical predicates) define FO[Arb] languages,
        which are in non-uniform AC0."""
        found = self._find_group(family, ctx, lambda d, v: quasi_aperiodicity(d),
                                 "quasi-aperiodic")
        if isinstance(found, RuleSkip):
            return found
        label, res, info = found
        return self.prediction(
            family, Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED,
            {**self._automaton_evidence(res), "witness": info, "restricted_to": label,
             "theorem": BCST},
            f"{label}: {info['explanation']}: the language is not in AC0, and B-RASP[pos] "
            f"programs only define AC0 languages")

    @rule("average sensitivity above polylog", Basis.LOWER_BOUND)
    def r_sensitivity(self, family: str, ctx: Context):
        """B-RASP[pos] programs define FO[Arb] languages, i.e. non-uniform AC0 (Barrington,
        Immerman & Straubing 1990); depth-d size-s circuits have average sensitivity
        O((log s)^(d-1)) (Boppana 1997).  Exact average sensitivity (uniform inputs)
        growing like a power of n therefore rules out a fixed program. The computation,
        threshold and status rule are the AC0 theory's (:func:`._rules.sensitivity_lower_bound`)."""
        got = sensitivity_lower_bound(self, family, ctx,
                                      model="a fixed B-RASP[pos] program (an FO[Arb], hence "
                                            "non-uniform AC0, family; Barrington, Immerman "
                                            "& Straubing 1990)")
        if not isinstance(got, RuleSkip):
            got.evidence["fo_arb"] = "Barrington, Immerman & Straubing 1990"
        return got


def token_class_rule(theory: _StarFreeBase, family: str, ctx: Context):
    """Body of ``r_token_classes`` (see there)."""
    ok, _why = _language(family)
    if ok:
        return RuleSkip("the alphabet is the same at every n: a fixed program can name every "
                        "symbol, so no count of symbols bounds its size")
    series = separation_series(str(family), theory.positional, ctx.seed)
    rows = [s.to_dict() for s in series]
    ns = [s.n for s in series]
    ks = [len(s.clique) for s in series]
    ev: dict[str, Any] = {"separated_symbols": rows, "clique_size_by_n": dict(zip(ns, ks)),
                          "theorem": TOKENS}
    if len({s.alphabet_size for s in series}) < 3:
        return RuleSkip(f"the alphabet takes fewer than three sizes at the measured n = {ns} "
                        f"(analysis lengths within the budget); too few to read growth", ev)
    ev["predicates_needed"] = {n: int(np.ceil(np.log2(k))) if k > 1 else 0
                               for n, k in zip(ns, ks)}
    where = (" spelling the same number (tokpos reads the number, so only those need token "
             "predicates)" if theory.positional else "")
    model = "B-RASP[pos]" if theory.positional else "B-RASP"
    head = (f"K(n) symbols{where} are pairwise separated by replacing one token (a valid input "
            f"whose label changes; witnesses in the evidence): K = {ks} at n = {ns}, e.g. "
            f"{', '.join(series[-1].clique[:6])}{' ...' if len(series[-1].clique) > 6 else ''}"
            f" at n = {ns[-1]}. A {model} program reads tokens only through token predicates, "
            f"so one with P of them tells at most 2^P symbols apart and needs P >= log2 K(n)")
    if all(s.full_class for s in series):
        # K(n) is the largest class (a position's choices), which the task defines at every
        # n: read beyond the measured n without labels; the identity is checked up to N
        more = [(n, largest_class(str(family), n, theory.positional))
                for n in BEYOND_NS if n > ns[-1]]
        pts = [(s.n, s.class_size) for s in series] + [(n, k) for n, k in more if k is not None]
        growth = classify_measured([p[0] for p in pts], [float(p[1]) for p in pts])
        ev.update(growth=growth.to_dict(), largest_class_by_n=dict(pts))
        fit = growth.fit
        grows = (fit.decided and fit.kind in ("log", "poly", "exponential")
                 and "bounded" not in fit.ambiguous_with and pts[-1][1] > pts[0][1])
        if not grows:
            return RuleSkip(f"the largest class of symbols by n = {[p[0] for p in pts]}: "
                            f"{[p[1] for p in pts]} ({fit.kind}); it does not grow", ev)
        exhaustive = [s.n for s in series if s.exhaustive]
        sampled = [s.n for s in series if not s.exhaustive]
        ev.update(verified_up_to=int(ns[-1]), verified_how=(
            f"witnesses on every input up to n = {max(exhaustive) if exhaustive else 'none'}"
            + (f", on samples at n = {sampled}" if sampled else "")),
            identity={"object": "K(n) = the largest class of symbols (all the symbols one "
                                "position allows" + (", spelling one number" if
                                                     theory.positional else "") + ")",
                      "all_n": False, "checked_up_to": int(ns[-1]),
                      "how": "every pair of the class separated by a witness at each "
                             "measured n"})
        return theory.prediction(
            family, Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED, ev,
            f"{head}. At every measured n the separated symbols are a whole class, all the "
            f"symbols one position allows{where and ' with one number'}, whose size the task "
            f"defines at every n: {[p[1] for p in pts]} at n = {[p[0] for p in pts]} "
            f"({fit.kind}), so no program of fixed size works for every n (the identity of "
            f"K(n) with the class size is checked up to n = {ns[-1]})")
    growth = classify_measured(ns, [float(k) for k in ks])
    fit = growth.fit
    ev["growth"] = growth.to_dict()
    unbounded = (fit.decided and fit.kind in ("log", "poly", "exponential")
                 and "bounded" not in fit.ambiguous_with and ks[-1] > ks[0])
    if not unbounded:
        return RuleSkip(f"pairwise separated symbols by n = {ns}: {ks} ({fit.kind}, "
                        f"{fit.formula}); not a decided unbounded growth", ev)
    return theory.prediction(
        family, Verdict.HARD, Basis.LOWER_BOUND, Status.EXTRAPOLATED, ev,
        f"{head}; K grows as {fit.formula} ({fit.kind}), so no program of fixed size works "
        f"for every n (extrapolated from n <= {ns[-1]})")


TOKENS = ("a B-RASP program reads the input only through its initial vectors Q_s(i) = "
          "[w_i = s] (Yang, Chiang & Angluin 2024, the definition of B-RASP); position tests "
          "and masks do not read tokens, so a program with P token predicates (or P fixed "
          "sets of symbols) computes the same on two inputs that differ in one symbol lying "
          "in the same sets: K pairwise separated symbols need 2^P >= K (a fooling-set "
          "argument, proved in docs/theories.md §1)")


def _extensions(text: str) -> list[str]:
    """B-RASP[pos] extensions a program relies on, marked in its cell (issue 11 item 10):
    ``tokpos`` (positions named by query tokens) and binary length predicates (``n`` in a
    score, e.g. ``j == i - n / 2``), both beyond Yang et al.'s finite-image embeddings."""
    import re
    out = []
    if "tokpos" in text:
        out.append("tokpos")
    if re.search(r"\bn\b", text):
        out.append("lenpred")
    return out



#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (StarFreeTheory, StarFreePosTheory)
