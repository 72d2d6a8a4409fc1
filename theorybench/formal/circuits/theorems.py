"""Theorems the AC0/TC0 rules rest on, as data with their sources.

A :class:`Theorem` is never a verdict by itself: a rule attaches it to a task family only
after a computation (a verified circuit, a measured sensitivity growth, a checked
reduction from the problem the theorem is about) makes it apply.
``condition`` is empty for unconditional results and names the open separation otherwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Theorem:
    name: str
    statement: str
    source: str
    condition: str = ""

    @property
    def conditional(self) -> bool:
        return bool(self.condition)

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


PARITY_NOT_AC0 = Theorem(
    "parity not in AC0",
    "Parity of n bits has no constant-depth polynomial-size circuit of unbounded fan-in "
    "AND/OR/NOT gates; depth d+1 needs size 2^(Omega(n^(1/d))).",
    "Furst, Saxe, Sipser, 'Parity, circuits, and the polynomial-time hierarchy', Math. "
    "Systems Theory 17 (1984); Ajtai, Sigma-1-1 formulae on finite structures, APAL 24 "
    "(1983); Hastad, 'Almost optimal lower bounds for small depth circuits', STOC 1986")

MAJORITY_NOT_AC0 = Theorem(
    "majority not in AC0",
    "Majority of n bits has no constant-depth polynomial-size AND/OR/NOT circuit (parity "
    "reduces to majority by constant-depth reductions, and directly: its average "
    "sensitivity is Theta(sqrt n), above Boppana's polylog bound).",
    "Furst, Saxe, Sipser (1984); Hastad (1986); Boppana, 'The average sensitivity of "
    "bounded-depth circuits', IPL 63(5) (1997)")

BOPPANA = Theorem(
    "Boppana's sensitivity bound",
    "A depth-d, size-s circuit of unbounded fan-in AND/OR/NOT gates has average "
    "sensitivity O((log s)^(d-1)) under the uniform distribution; so a family whose "
    "average sensitivity grows like n^c for some c > 0 has no constant-depth "
    "polynomial-size circuits.",
    "Boppana, 'The average sensitivity of bounded-depth circuits', Information Processing "
    "Letters 63(5):257-261 (1997); Linial, Mansour, Nisan, JACM 40(3) (1993)")

PROJECTION_CLOSURE = Theorem(
    "AC0 is closed under projections",
    "If A reduces to B by a projection (each output bit a constant or a literal of one "
    "input bit) and B has constant-depth polynomial-size circuits, so does A; so B "
    "inherits every AC0 (and TC0) lower bound of A.",
    "Skyum, Valiant, 'A complexity theory based on Boolean algebra', JACM 32(2) (1985); "
    "Furst, Saxe, Sipser (1984)")

AC0_IN_TC0 = Theorem(
    "AC0 is contained in TC0",
    "An AND/OR/NOT circuit is a threshold circuit (AND = THR_m, OR = THR_1).",
    "Vollmer, Introduction to Circuit Complexity (Springer 1999), ch. 4")

GAP_NL_COMPLETE = Theorem(
    "directed reachability is NL-complete",
    "s-t reachability in directed graphs (GAP) is complete for NL under first-order "
    "(hence AC0) projections; so if GAP is in TC0 then NL is contained in TC0.",
    "Jones, 'Space-bounded reducibility among combinatorial problems', JCSS 11 (1975); "
    "Immerman, 'Languages that capture complexity classes', SIAM J. Comput. 16 (1987)",
    condition="TC0 != NL")

UGAP_L_COMPLETE = Theorem(
    "undirected reachability is L-complete under first-order reductions",
    "s-t connectivity in undirected graphs is in L (Reingold 2008, the main theorem) and "
    "L-hard under first-order (hence AC0) reductions: s-t reachability in directed graphs "
    "of out-degree <= 1 is L-complete under first-order reductions (Immerman 1987; Cook & "
    "McKenzie 1987), and it reduces to undirected connectivity by deleting t's out-edge "
    "(t's component is then a tree in which every edge points towards t, so s is "
    "connected to t iff s reaches t). Completeness is thus the combination of Reingold's "
    "upper bound with the older hardness result, not a theorem of Reingold's paper alone. "
    "So if undirected connectivity is in TC0 then L is contained in TC0.",
    "Reingold, 'Undirected connectivity in log-space', JACM 55(4) (2008) (membership in L); "
    "Immerman, 'Languages that capture complexity classes', SIAM J. Comput. 16(4) (1987) "
    "and Descriptive Complexity (Springer 1999), ch. 3; Cook & McKenzie, 'Problems "
    "complete for deterministic logarithmic space', J. Algorithms 8 (1987) (L-hardness); "
    "stated together in Allender, Barrington, Chakraborty, Datta, Roy, 'Planar and grid "
    "graph reachability problems' (2009), introduction",
    condition="TC0 != L")
