"""BAPO (bounded attention prefix oracle) as an executable model (docs/theories.md §6).

Source: Schnabel, Tomlinson, Swaminathan, Neville, "Lost in transmission: when and why
LLMs fail to reason globally", NeurIPS 2025 (arXiv 2505.08140).

* :mod:`.protocol` - protocols (f, g, h) with declared (a, b), the paper's definition;
* :mod:`.verify` - run a protocol on all inputs, splits and adversarial choices of G;
* :mod:`.frontier` - the minimal (a, b) frontier at small n by SAT (z3);
* :mod:`.library` - constant- and growing-bandwidth protocols for the task families;
* :mod:`.hardness` - BAPO-hard sources (Reachability, Majority; cited) and split-preserving
  reductions.

The b = 0 bandwidth (exact one-way communication complexity) lives in
:mod:`theorybench.formal.communication`.
"""

from .protocol import Protocol, run
from .verify import VerifyResult, verify

__all__ = ["Protocol", "run", "verify", "VerifyResult"]
