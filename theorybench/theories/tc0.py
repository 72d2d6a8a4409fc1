"""The TC0 theory (docs/theories.md §3): softmax / average-hard attention and TC0.

Model: constant-depth, polynomial-size circuits of unbounded fan-in AND/OR/NOT and
MAJORITY/THRESHOLD gates. Log-precision softmax transformers are in log-space-uniform
TC0 (Merrill & Sabharwal, "The parallelism tradeoff", TACL 2023, their main theorem);
average-hard attention and polynomial-precision softmax are in DLOGTIME-uniform TC0
(Chiang, TMLR 2025).

Rules, in basis order (construction, lower bound, reduction, theorem):

1. ``verified TC0 circuit family`` (construction): a threshold (or AND/OR/NOT) builder,
   verified and measured as for AC0 -> Easy, verified; z3 proves the circuit at n = 32 and
   64 as for AC0 (:func:`theorybench.theories.ac0.with_z3_proofs`).
   Where no builder exists, ``searched TC0 circuit family``: a uniform template family
   with threshold counts (:mod:`theorybench.formal.search.circuits`), found, checked on
   every input up to N and verified the same way -> Easy, verified <= N (after the
   exact-automaton rule).
2. ``projection from a complete problem`` (reduction): no unconditional TC0 lower bound is
   known for any problem in the suite, so hardness is only conditional: a verified
   projection from directed s-t reachability (NL-complete under first-order reductions;
   Jones 1975, Immerman 1987) or undirected s-t connectivity (L-complete under
   first-order reductions: in L by Reingold, JACM 2008; L-hard since out-degree-1
   reachability is, Immerman 1987 / Cook & McKenzie 1987) -> Hard, *conditional* on
   TC0 != NL resp. TC0 != L. The completeness theorem is attached to the source problem
   (:mod:`.circuits.theorems`); the projection is checked by running it.

Families with neither a builder nor a checked reduction stay Unknown.
"""

from __future__ import annotations

from .base import Basis, Context, Theory, rule
from .regular import solvable_rule
from .rules import construction_rule, reduction_rule
from .ac0 import with_z3_proofs
from .juntas import circuit_rule as junta_circuit_rule


class TC0Theory(Theory):
    name = "tc0"
    title = "TC0 (softmax / average-hard attention)"
    summary = ("Log-precision softmax and average-hard attention transformers lie in uniform "
               "TC0, which adds threshold gates to AC0 (Merrill & Sabharwal 2023; Chiang 2025). "
               "Easy = a verified constant-depth threshold circuit; TC0 lower bounds are open, "
               "so Hard is only conditional (TC0 != NC1, L or NL) via completeness.")
    assumptions = (
        "log-precision softmax or average-hard attention (Merrill & Sabharwal 2023; Chiang 2025)",
        "fixed model size; input length n grows",
        "tokens read as bits: one bit per binary position, one-hot for larger alphabets",
    )
    sources = (
        "Merrill & Sabharwal, 'The parallelism tradeoff: limitations of log-precision transformers', TACL 2023",
        "Chiang, 'Transformers in DLOGTIME-uniform TC0', TMLR 2025",
        "Reingold, 'Undirected connectivity in log-space', JACM 2008",
        "Immerman, 'Descriptive Complexity', Springer 1999 (first-order completeness)",
        "Cook & McKenzie, 'Problems complete for deterministic logarithmic space', "
        "J. Algorithms 8 (1987)",
    )

    @rule("verified TC0 circuit family", Basis.CONSTRUCTION)
    def construction(self, family: str, ctx: Context):
        """Threshold or AND/OR/NOT builder verified, depth bounded, size polynomial -> Easy."""
        return with_z3_proofs(family, construction_rule(self, family, "tc0", ctx))

    @rule("exact automaton: solvable groups", Basis.CONSTRUCTION)
    def exact_automaton(self, family: str, ctx: Context):
        """A task that gives its automaton (REGEX or DFA): only solvable groups in its
        syntactic monoid -> Easy (ACC0, Barrington & Therien 1988); a non-solvable group ->
        Hard, conditional on TC0 != NC1 (Barrington 1989)."""
        return solvable_rule(self, family, ctx)

    @rule("searched TC0 circuit family", Basis.CONSTRUCTION)
    def searched_circuit(self, family: str, ctx: Context):
        """No builder in the library: a uniform threshold (or AND/OR/NOT) family found by
        the circuit template search, built and verified like a builder's -> Easy,
        verified <= N."""
        return construction_rule(self, family, "tc0", ctx, searched=True)

    @rule("junta circuit", Basis.CONSTRUCTION)
    def junta_circuit(self, family: str, ctx: Context):
        """A junta on positions fixed from the ends (formal/junta.py): its depth-2 AND/OR
        circuit, an AC0 circuit and so a TC0 one -> Easy, verified <= N."""
        return junta_circuit_rule(self, family, "tc0", ctx)

    @rule("projection from a complete problem", Basis.REDUCTION)
    def reduction(self, family: str, ctx: Context):
        """Checked projection from an NL- or L-complete problem -> Hard, conditional."""
        return reduction_rule(self, family, "tc0", ctx)

    @rule("learned automaton: solvable groups", Basis.THEOREM)
    def learned_automaton(self, family: str, ctx: Context):
        """The minimal automaton learned and checked up to L has only solvable groups ->
        Easy (ACC0 inside TC0; Barrington & Therien 1988). Last, so that it only decides
        cells the other rules leave open."""
        return solvable_rule(self, family, ctx, exact=False)


#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (TC0Theory,)
