"""The automaton protocol of a regular language: an (ceil(log2 |Q|), 0)-BAPO.

At split k the prefix oracle sends the automaton's state after the prefix (ceil(log2 |Q|)
bits), nothing is attended to, and the suffix oracle runs the automaton from that state
over the suffix and outputs the final state's output (Schnabel et al., NeurIPS 2025, arXiv
2505.08140: a regular language with |Q| states has a (ceil(log2 |Q|), 0)-BAPO; cited, and
here also built and verified).  Why it is correct at every n: the state after prefix then
suffix is the state after the whole input, so h returns the automaton's output on x; when
the automaton *is* the task's label function (a REGEX or DFA task), that is the label.
The bandwidth depends on |Q| only, never on n.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .protocol import Protocol
from .sequential import automaton_protocol
from .verify import verify


def dfa_protocol(delta: np.ndarray, start: int, output: np.ndarray,
                 letter_of_token: np.ndarray, source: str) -> Protocol:
    """The protocol of one automaton (``letter_of_token``: task token id -> letter)."""
    return automaton_protocol(delta, start, output, letter_of_token, "automaton-state",
                              source)


def verify_by_n(protocol: Protocol, views: dict[int, Any], rng: np.random.Generator,
                max_inputs: int = 1 << 12) -> dict[int, dict[str, Any]]:
    """{n: verification row} of one protocol on the decision functions ``views`` (all
    splits; every input where there are at most ``max_inputs``, samples beyond)."""
    out = {}
    for n, df in views.items():
        res = verify(protocol, df, rng=rng, max_inputs=max_inputs)
        out[n] = {"a": protocol.a, "b": protocol.b, "ok": res.ok, "inputs": res.inputs_mode,
                  "splits": len(res.splits), "failure": res.failure}
    return out


__all__ = ["dfa_protocol", "verify_by_n"]
