"""The AC0 theory (docs/theories.md §2): hard-attention transformers and AC0 circuits.

Model: constant-depth, polynomial-size circuits of unbounded fan-in AND/OR and NOT
(:mod:`theorybench.formal.circuits`). Unique and generalized unique hard attention
transformers compute only AC0 functions (Hao, Angluin, Frank, TACL 2022); Hahn (TACL 2020)
shows hard attention cannot do Parity or Dyck-2.

Rules, in basis order (construction, lower bound, reduction, theorem) (each runs code; none reads a verdict from a table):

1. ``verified AC0 circuit family`` (construction): an AND/OR/NOT builder for the family is
   built for many n (the family's analysis_ns and larger n up to 128, within a wire
   budget), verified against the task reference (all inputs while there are at most 2^16,
   task and uniform samples beyond), and its depth must be bounded and its size
   polynomial (growth fits) -> Easy, verified. Beyond enumeration, z3 then proves the
   circuit equal to the task's specification at each n of ``PROOF_NS`` (32 and 64; each n
   separately, :mod:`theorybench.proofs.circuits`); the cell names the n proved. A z3
   counterexample withdraws the cell; a z3 timeout only leaves the n out. Larger n:
   ``theorybench circuit prove FAMILY --n N``.
2. ``exact automaton: quasi-aperiodicity`` (construction), for a task that gives its
   automaton, and ``searched AC0 circuit family`` (construction): where the library has no
   builder, a uniform template family (a formula over positions naming one constant-depth,
   polynomial-size circuit per length) found by :mod:`theorybench.formal.search.circuits`
   and checked on every input up to N, then built and verified as in rule 1 -> Easy,
   verified <= N.
   ``junta circuit`` (construction): a label that reads a bounded set of positions fixed
   from the start and the end, by the same function at every n (found on every input at
   small n, :mod:`theorybench.formal.junta`), is an OR of ANDs of one-hot token bits,
   depth 2 and constant size, built and verified as in rule 1 -> Easy, verified <= N.
3. ``Boppana sensitivity bound`` (lower bound): for a family on {0,1}^m, the exact average
   sensitivity (uniform distribution) grows like m^c with c >= 0.3 -> Hard, proven by
   Boppana (1997) given the measured growth (the fit is in the evidence).
4. ``projection from parity or majority`` (reduction): a projection from Parity
   (Furst-Saxe-Sipser 1984, Ajtai 1983, Hastad 1986) or Majority, verified by
   ``Reduction.check`` -> Hard, proven.
"""

from __future__ import annotations

from typing import Any

from .base import Basis, Context, Prediction, RuleSkip, Theory, Verdict, rule
from .juntas import circuit_rule as junta_circuit_rule
from .regular import quasi_rule
from .rules import boppana_rule, construction_rule, reduction_rule

#: The n at which the construction rules (AC0 and TC0) prove their circuit with z3, and
#: the budget of one n: z3 resource units (deterministic, so a cell does not depend on
#: the machine's load; the proofs of the suite's circuits at n = 64 take at most about
#: 0.3 M; dyck_bounded at n = 32 needs about 10 M, about 3 s, so the rule leaves it to
#: `theorybench circuit prove`), circuit wires, and a time limit that is only a safety net. Kept small so that the rule stays cheap (each proof is cached in the
#: process); `theorybench circuit prove` and the tests go further.
PROOF_NS = (32, 64)
PROOF_RLIMIT = 2_000_000
PROOF_MAX_WIRES = 10_000
PROOF_TIMEOUT_S = 60.0


def with_z3_proofs(family: str, out: Prediction | RuleSkip) -> Prediction | RuleSkip:
    """Attach z3 proofs of the construction's circuits at ``PROOF_NS`` to an Easy cell.

    The status stays what the construction rule gave (``verified <= N``): a circuit proved
    for each of finitely many n is not a proof for every n. A counterexample found by z3
    (and confirmed by the task's reference) turns the cell into a skipped rule."""
    from ..proofs.circuits import SPECS, prove_each

    if not isinstance(out, Prediction) or out.verdict != Verdict.EASY:
        return out
    basis = out.evidence.get("construction", {}).get("builder", {}).get("basis")
    if family not in SPECS or basis not in ("ac0", "tc0"):
        out.evidence["z3_proof"] = {"proved_ns": [], "reason": (
            f"no z3 specification of {family} is written (theorybench/proofs/circuits.py), "
            f"so its circuits are checked only by enumeration and samples")}
        return out
    results = []
    for n in PROOF_NS:
        res = prove_each(family, [n], basis=basis, timeout_s=PROOF_TIMEOUT_S,
                         rlimit=PROOF_RLIMIT, max_wires=PROOF_MAX_WIRES)
        results.extend(res)
        if not res or res[-1].status != "proved":
            break  # a larger n would not be cheaper
    cex = next((r for r in results if r.status == "counterexample"), None)
    summary: dict[str, Any] = {
        "proved_ns": [r.n for r in results if r.proved],
        "results": [{"n": r.n, "status": r.status, "seconds": round(r.seconds, 3),
                     "method": r.extra.get("method", ""), "reason": r.reason,
                     "counterexample": r.counterexample_text} for r in results],
        "spec": results[0].spec if results else SPECS[family].text,
        "scope": "each listed n separately (not all n)",
        "command": f"theorybench circuit prove {family} --n 64"}
    out.evidence["z3_proof"] = summary
    if cex is not None:
        return RuleSkip(f"z3 refutes the {basis} circuit for {family} at n={cex.n}: on "
                        f"{cex.counterexample_text} it gives {cex.circuit_value}, the task's "
                        f"reference {cex.reference_value}", out.evidence)
    ns = summary["proved_ns"]
    if ns:
        out.explanation += (f"; circuit family proved equal to the reference by z3 for "
                            f"n = {', '.join(map(str, ns))} (each n separately, against "
                            f"the specification {summary['spec']!r}, itself checked against "
                            f"the reference on samples)")
    else:
        first = results[0] if results else None
        out.explanation += (f"; z3 proved no n beyond enumeration"
                            + (f" (n={first.n}: {first.reason})" if first else ""))
    return out


class AC0Theory(Theory):
    name = "ac0"
    title = "AC0 (hard attention)"
    summary = ("Transformers with unique or generalized unique hard attention compute only "
               "AC0: constant-depth, polynomial-size circuits of AND/OR/NOT gates (Hao, Angluin, "
               "Frank 2022). Easy = a verified constant-depth circuit family; Hard = average "
               "sensitivity growing like a power of n (Boppana 1997) or a checked projection "
               "from Parity or Majority.")
    assumptions = (
        "unique or generalized unique hard attention (Hao, Angluin, Frank 2022)",
        "fixed model size; input length n grows",
        "tokens read as bits: one bit per binary position, one-hot for larger alphabets",
    )
    sources = (
        "Hao, Angluin, Frank, 'Formal language recognition by hard attention transformers', TACL 2022",
        "Hahn, 'Theoretical limitations of self-attention in neural sequence models', TACL 2020",
        "Furst, Saxe, Sipser 1984; Ajtai 1983; Hastad 1986 (parity not in AC0)",
        "Boppana, 'The average sensitivity of bounded-depth circuits', IPL 1997",
    )

    @rule("verified AC0 circuit family", Basis.CONSTRUCTION)
    def construction(self, family: str, ctx: Context):
        """AND/OR/NOT builder verified, depth bounded, size polynomial -> Easy."""
        return with_z3_proofs(family, construction_rule(self, family, "ac0", ctx))

    @rule("exact automaton: quasi-aperiodicity", Basis.CONSTRUCTION)
    def exact_automaton(self, family: str, ctx: Context):
        """A task that gives its automaton (REGEX or DFA): quasi-aperiodic syntactic
        morphism -> Easy, else Hard (Barrington, Compton, Straubing & Therien 1992)."""
        return quasi_rule(self, family, ctx, model=_AC0_MODEL)

    @rule("searched AC0 circuit family", Basis.CONSTRUCTION)
    def searched_circuit(self, family: str, ctx: Context):
        """No builder in the library: a uniform AND/OR/NOT family found by the circuit
        template search (formal/search/circuits.py), built and verified like a builder's
        -> Easy, verified <= N."""
        return construction_rule(self, family, "ac0", ctx, searched=True)

    @rule("junta circuit", Basis.CONSTRUCTION)
    def junta_circuit(self, family: str, ctx: Context):
        """The label reads a bounded set of positions fixed from the start and the end, by
        the same function at every n (found on every input at small n, formal/junta.py):
        an OR of ANDs of one-hot token bits, depth 2 and constant size, built and verified
        like a builder's circuits -> Easy, verified <= N (docs/theories.md, "Juntas")."""
        return junta_circuit_rule(self, family, "ac0", ctx)

    @rule("Boppana sensitivity bound", Basis.LOWER_BOUND)
    def sensitivity(self, family: str, ctx: Context):
        """Average sensitivity ~ m^c, c > 0 -> Hard (Boppana 1997)."""
        return boppana_rule(self, family, ctx)

    @rule("projection from parity or majority", Basis.REDUCTION)
    def reduction(self, family: str, ctx: Context):
        """Checked projection from Parity or Majority -> Hard."""
        return reduction_rule(self, family, "ac0", ctx)

    @rule("learned automaton: quasi-aperiodicity", Basis.THEOREM)
    def learned_automaton(self, family: str, ctx: Context):
        """The minimal automaton learned and checked up to L: quasi-aperiodic -> Easy; a
        group among the images of words of the stable length (in a view whose domain is
        quasi-aperiodic) -> Hard (Barrington, Compton, Straubing & Therien 1992). Last, so
        that it only decides cells the other rules leave open."""
        return quasi_rule(self, family, ctx, model=_AC0_MODEL, exact=False)


_AC0_MODEL = "the regular languages in AC0 are exactly those with a quasi-aperiodic morphism"


#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (AC0Theory,)
