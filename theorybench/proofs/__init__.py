"""New theoretical results as ``Claim`` objects: statement, assumptions, proof text and an
executable ``check(max_n) -> Certificate`` of everything in the proof a computer can check."""

from .induction import InductionResult, prove as prove_crasp

__all__ = ["InductionResult", "prove_crasp"]
