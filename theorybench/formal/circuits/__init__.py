"""Boolean circuits for the AC0 and TC0 theories (docs/theories.md §2-§3).

``ir`` - the circuit DAG and its measures; ``evaluate`` - the bit-parallel evaluator;
``encoding`` - task tokens to circuit input bits; ``builders`` - a circuit family per task
family that has a constant-depth construction; ``synth`` - exact synthesis with z3.
"""

from .ir import AC0_KINDS, BASES, TC0_KINDS, Circuit, CircuitError
from .evaluate import evaluate, evaluate_packed, pack_bits, unpack_bits

__all__ = ["Circuit", "CircuitError", "AC0_KINDS", "TC0_KINDS", "BASES", "evaluate",
           "evaluate_packed", "pack_bits", "unpack_bits"]
