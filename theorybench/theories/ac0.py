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
   polynomial (growth fits) -> Easy, proven.
2. ``Boppana sensitivity bound`` (lower bound): for a family on {0,1}^m, the exact average
   sensitivity (uniform distribution) grows like m^c with c >= 0.3 -> Hard, proven by
   Boppana (1997) given the measured growth (the fit is in the evidence).
3. ``projection from parity or majority`` (reduction): a projection from Parity
   (Furst-Saxe-Sipser 1984, Ajtai 1983, Hastad 1986) or Majority, verified by
   ``Reduction.check`` -> Hard, proven.
"""

from __future__ import annotations

from .base import Basis, Context, Theory, rule
from ._rules import boppana_rule, construction_rule, reduction_rule


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
        return construction_rule(self, family, "ac0", ctx)

    @rule("Boppana sensitivity bound", Basis.LOWER_BOUND)
    def sensitivity(self, family: str, ctx: Context):
        """Average sensitivity ~ m^c, c > 0 -> Hard (Boppana 1997)."""
        return boppana_rule(self, family, ctx)

    @rule("projection from parity or majority", Basis.REDUCTION)
    def reduction(self, family: str, ctx: Context):
        """Checked projection from Parity or Majority -> Hard."""
        return reduction_rule(self, family, "ac0", ctx)


#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (AC0Theory,)
