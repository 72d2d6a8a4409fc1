"""Transition monoids of automata; aperiodicity and quasi-aperiodicity with witnesses.

A regular language is star-free iff its syntactic monoid - the transition monoid of its
minimal automaton - is aperiodic (Schutzenberger 1965); it is in AC0 iff its syntactic
morphism is quasi-aperiodic (Barrington, Compton, Straubing & Therien 1992).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import ResourceLimitError
from ..language import LanguageView
from .dfa import DFA

#: Default limit on the number of transition-monoid elements.
MONOID_LIMIT = 20000


@dataclass
class Monoid:
    """The transition monoid: ``elements[e]`` maps state q to q.w_e (row = a function on
    states); ``words[e]`` is a shortest word inducing it; element 0 is the identity."""

    elements: np.ndarray
    words: list[tuple[int, ...]]

    @property
    def size(self) -> int:
        return int(self.elements.shape[0])


def transition_monoid(dfa: DFA, limit: int = MONOID_LIMIT) -> Monoid:
    """Close the letter maps of ``dfa`` under composition (breadth first, so each element
    comes with a shortest word). :class:`ResourceLimitError` past ``limit`` elements."""
    ident = np.arange(dfa.size, dtype=np.int64)
    index = {ident.tobytes(): 0}
    elements = [ident]
    words: list[tuple[int, ...]] = [()]
    layer = [0]
    while layer:
        cur = np.stack([elements[e] for e in layer])
        nxt_layer = []
        for a in range(dfa.k):
            images = dfa.delta[cur, a]          # apply the element, then letter a
            for row, e in zip(images, layer):
                key = row.tobytes()
                if key not in index:
                    index[key] = len(elements)
                    elements.append(row)
                    words.append(words[e] + (a,))
                    nxt_layer.append(index[key])
                    if len(elements) > limit:
                        raise ResourceLimitError(
                            f"the transition monoid of the {dfa.size}-state automaton has more "
                            f"than {limit:,} elements; raise the limit (monoid_limit=, "
                            f"--monoid-limit) or analyse a smaller parameter setting")
        layer = nxt_layer
    return Monoid(np.stack(elements), words)


def _cycle_entry(elements: np.ndarray) -> np.ndarray:
    """For each element m, m^(2^t) applied to every state with 2^t >= |Q|: states on cycles."""
    q = elements.shape[1]
    power = elements.copy()
    steps = 1
    while steps < q:
        power = np.take_along_axis(power, power, axis=1)
        steps *= 2
    return power


def aperiodicity(dfa: DFA, limit: int = MONOID_LIMIT,
                 view: LanguageView | None = None) -> tuple[bool, dict[str, Any] | None]:
    """(True, None) if every monoid element m has m^k = m^(k+1) for some k (aperiodic),
    else (False, witness).  ``dfa`` should be minimal (then its transition monoid is the
    syntactic monoid).  The witness: word w, a state q (reached by access word u) with the
    cycle q, q.w, ..., of length p > 1, a suffix z separating q from q.w, and the outputs
    of u w^i z for i = 0..2p (recomputed from the reference when ``view`` is given)."""
    mon = transition_monoid(dfa, limit)
    on_cycle = _cycle_entry(mon.elements)
    stepped = np.take_along_axis(mon.elements, on_cycle, axis=1)
    bad = np.flatnonzero((stepped != on_cycle).any(axis=1))
    if len(bad) == 0:
        return True, None
    e = int(bad[0])
    m = mon.elements[e]
    col = int(np.flatnonzero(stepped[e] != on_cycle[e])[0])
    state = int(on_cycle[e, col])
    cycle = [state]
    nxt = int(m[state])
    while nxt != state:
        cycle.append(nxt)
        nxt = int(m[nxt])
    w = mon.words[e]
    u = dfa.access_words()[state]
    z = dfa.separating_suffix(cycle[0], cycle[1]) or ()
    period = len(cycle)
    reps = range(2 * period + 1)
    model = [int(dfa.evaluate(np.array([u + w * i + z]))[0]) for i in reps]
    wit: dict[str, Any] = {
        "word": dfa.spell(w), "state": state, "access": dfa.spell(u),
        "cycle": cycle, "period": period, "suffix": dfa.spell(z),
        "monoid_size": mon.size, "outputs_u_w^i_z": model,
        "explanation": (f"reading w = {dfa.spell(w)} from state {state} cycles through "
                        f"{len(cycle)} states, so w^k never equals w^(k+1): the transition "
                        f"monoid contains a cyclic group of order {period}")}
    if view is not None:
        ref = [int(view.membership(np.array([u + w * i + z], dtype=np.int64))[0]) for i in reps]
        wit["reference_outputs"] = ref
        wit["reference_agrees"] = ref == model
    return False, wit


def quasi_aperiodicity(dfa: DFA, limit: int = MONOID_LIMIT) -> tuple[bool, dict[str, Any]]:
    """Is the morphism Sigma* -> transition monoid quasi-aperiodic?  With P_t the image of
    the words of length t and s the least s >= 1 with P_s = P_2s (then P_s is a
    semigroup), it is quasi-aperiodic iff P_s contains no non-trivial group.  A regular
    language is in AC0 iff its syntactic morphism is quasi-aperiodic (Barrington, Compton,
    Straubing & Therien 1992); it is then FO[<, MOD]-definable.  Returns (answer, info)
    with s and, when not, a word of length divisible by s whose element cycles."""
    mon = transition_monoid(dfa, limit)
    index = {row.tobytes(): e for e, row in enumerate(mon.elements)}
    right = np.array([[index[dfa.delta[row, a].tobytes()] for a in range(dfa.k)]
                      for row in mon.elements], dtype=np.int64)
    layers: list[dict[int, tuple[int, ...]]] = [{0: ()}]
    seen_sets: list[frozenset] = [frozenset({0})]
    stable = None
    for t in range(1, 4 * mon.size + 4):
        nxt: dict[int, tuple[int, ...]] = {}
        for e, w in layers[-1].items():
            for a in range(dfa.k):
                nxt.setdefault(int(right[e, a]), w + (a,))
        layers.append(nxt)
        seen_sets.append(frozenset(nxt))
        half = t // 2
        if t % 2 == 0 and half >= 1 and seen_sets[half] == seen_sets[t]:
            stable = half
            break
    if stable is None:
        raise ResourceLimitError("the length images P_t did not stabilise within the step "
                                 "limit; analyse a smaller automaton")
    elems = sorted(layers[stable])
    on_cycle = _cycle_entry(mon.elements[elems])
    stepped = np.take_along_axis(mon.elements[elems], on_cycle, axis=1)
    bad = np.flatnonzero((stepped != on_cycle).any(axis=1))
    info: dict[str, Any] = {"stability_index": stable, "image_size": len(elems),
                            "monoid_size": mon.size}
    if len(bad) == 0:
        return True, info
    e = elems[int(bad[0])]
    m = mon.elements[e]
    col = int(np.flatnonzero(stepped[bad[0]] != on_cycle[bad[0]])[0])
    state = int(on_cycle[bad[0], col])
    cycle = [state]
    while int(m[cycle[-1]]) != state:
        cycle.append(int(m[cycle[-1]]))
    info.update(word=dfa.spell(layers[stable][e]), state=state, cycle=cycle,
                access=dfa.spell(dfa.access_words()[state]), explanation=(
                    f"words of length {stable} include w = {dfa.spell(layers[stable][e])}, "
                    f"which cycles through {len(cycle)} states from state {state}: a "
                    f"non-trivial group among the images of words of length {stable}"))
    return False, info
