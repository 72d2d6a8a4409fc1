"""Reductions from a small catalogue of languages, found in a task's syntactic monoid.

The catalogue holds languages whose place in a theory is known, each with its exact
automaton and a vectorized label:

* ``flip_flop`` over {s0, s1, r}: the last set-letter is s1 (no set-letter: rejected). Its
  syntactic monoid is U_2 = {1, s0, s1} with x y = y for x, y in {s0, s1}. It is not in
  C-RASP (Huang et al., ICLR 2025, arXiv 2410.02140; cited without a lemma number).
* ``last_b`` = Sigma* b over {a, b}: the last letter is b. It is flip-flop without its
  neutral letter: flip-flop is its inverse image under the erasing homomorphism
  s0 -> a, s1 -> b, r -> (empty word). That map is proved here for every length (the
  product check below), so ``last_b`` is not in C-RASP either, by C-RASP's closure under
  inverse homomorphisms (Yang, Veseli et al., App. F, Prop. 41).

A reduction is a map w -> p h(w) s: a homomorphism h (each source letter to a word over
the target's letters, possibly empty) between a fixed prefix p and suffix s, reading the
target's output value ``value`` as "in the source language". C-RASP (with acceptance at
an appended end marker) is closed under inverse homomorphisms, left and right quotients
and Boolean operations (Yang, Veseli et al., Prop. 41), so a Hard source carries to the
target through such a map.

The search (:func:`embed_last_b`): Sigma* b reduces to a regular task T exactly when the
map can send a and b to words e and f whose classes in T's syntactic monoid form a
right-zero pair of distinct idempotents (e e = e, f f = f, e f = f, f e = e): then every
nonempty product of e's and f's equals its last factor, so p h(w) s has T's output at
p f s when w ends in b and at p e s when it ends in a, and a context (p, s) where those
two differ (and are both defined) exists because e != f in the *syntactic* monoid (the
transition monoid of the minimal automaton). The search enumerates the right-zero pairs
of the transition monoid (shortest words first) and, for each, the reachable states q
(access word p) whose images q.e and q.f are separated by a suffix s with defined
outputs; the prefix is padded with copies of e when short images fall on lengths where
the task is undefined (e x = x for x in {e, f}, so the padding changes no label).

Every candidate is checked twice before it is used:

* :func:`prove_map` - the product of the source's automaton with T's, run from every
  one-letter source word: every reachable pair must give the same answer. With T's exact
  automaton this holds for every length (a proof); with a learned one, as far as that
  automaton was checked.
* :func:`check_map` - the images of every source word up to a length are labelled by the
  task itself (its language view, independent of the automaton), grouped by length.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..automata import DFA
from ..automata.monoid import Monoid, transition_monoid
from ..crasp.flipflop import flip_flop_labels
from ..language import INVALID

HUANG25 = ("Huang et al., 'A formal framework for understanding length generalization in "
           "transformers', ICLR 2025 (arXiv 2410.02140)")
YV41 = ("Yang, Veseli et al., 'Algebraic decomposition theory for transformer length "
        "generalization', App. F, Prop. 41: C-RASP is closed under Boolean operations, "
        "inverse homomorphisms and quotients")
#: Right-zero pairs tried, shortest words first.
MAX_PAIRS = 64
#: Idempotents (shortest words first) among which right-zero pairs are looked for.
MAX_IDEMPOTENTS = 2048
#: Copies of e appended to the prefix to lift short images onto defined lengths.
MAX_PAD = 6
#: Source words per length the direct check labels (all words up to the length they fill).
CHECK_WORDS = 1 << 12


@dataclass(frozen=True)
class Language:
    """A catalogue language: its letters, exact minimal automaton (outputs 0/1) and label."""

    name: str
    alphabet: tuple[str, ...]
    dfa: DFA
    label: Callable[[np.ndarray], np.ndarray]
    doc: str


def _last_b_labels(words: np.ndarray) -> np.ndarray:
    w = np.asarray(words, dtype=np.int64)
    if w.shape[1] == 0:
        return np.zeros(len(w), dtype=np.int64)
    return (w[:, -1] == 1).astype(np.int64)


FLIP_FLOP = Language(
    "flip_flop", ("s0", "s1", "r"),
    DFA(("s0", "s1", "r"), np.array([[0, 1, 0], [0, 1, 1]]), np.array([0, 1]), 0),
    flip_flop_labels,
    "words over {s0, s1, r} whose last set-letter is s1 (monoid U_2); not in C-RASP "
    f"({HUANG25})")
LAST_B = Language(
    "last_b", ("a", "b"),
    DFA(("a", "b"), np.array([[0, 1], [0, 1]]), np.array([0, 1]), 0),
    _last_b_labels,
    "Sigma* b over {a, b}: the last letter is b (monoid U_2, flip-flop without r)")
CATALOGUE = (FLIP_FLOP, LAST_B)


@dataclass(frozen=True)
class Morphism:
    """w -> prefix h(w) suffix over the target's letters; ``value`` is the target output
    read as "in the source language"."""

    prefix: tuple[int, ...]
    images: tuple[tuple[int, ...], ...]
    suffix: tuple[int, ...]
    value: int

    def spell(self, source: Sequence[str], target: Sequence[str]) -> dict[str, Any]:
        word = (lambda w: " ".join(target[a] for a in w) or "(empty)")
        return {"prefix": word(self.prefix), "suffix": word(self.suffix),
                "images": {source[i]: word(im) for i, im in enumerate(self.images)},
                "value": int(self.value)}

    def apply(self, words: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Images of a batch of equal-length source words, grouped by image length:
        {length: (row indices, images)} (vectorized: padded images, then a stable sort
        moves the padding of each row to its end)."""
        words = np.asarray(words, dtype=np.int64)
        count, m = words.shape
        width = max((len(im) for im in self.images), default=0)
        table = np.full((len(self.images), max(width, 1)), -1, dtype=np.int64)
        for i, im in enumerate(self.images):
            table[i, :len(im)] = im
        body = table[words].reshape(count, -1) if m else np.zeros((count, 0), np.int64)
        full = np.concatenate([np.broadcast_to(np.array(self.prefix, dtype=np.int64),
                                               (count, len(self.prefix))), body,
                               np.broadcast_to(np.array(self.suffix, dtype=np.int64),
                                               (count, len(self.suffix)))], axis=1)
        keep = full >= 0
        order = np.argsort(~keep, axis=1, kind="stable")
        packed = np.take_along_axis(full, order, axis=1)
        lengths = keep.sum(axis=1)
        return {int(L): (np.flatnonzero(lengths == L), packed[lengths == L, :L])
                for L in np.unique(lengths)}


def _run(dfa: DFA, states: np.ndarray, word: Sequence[int]) -> np.ndarray:
    for a in word:
        states = dfa.delta[states, a]
    return states


def prove_map(source: Language, target: DFA, mor: Morphism) -> dict[str, Any]:
    """The product of the source's automaton with the target's under ``mor``, explored
    from every one-letter source word (so it speaks of every nonempty word of every
    length): ok iff every reachable pair agrees, with the target's output defined."""
    allq = np.arange(target.size)
    step = [_run(target, allq, im) for im in mor.images]
    close = _run(target, allq, mor.suffix)
    q0 = int(_run(target, np.array([target.start]), mor.prefix)[0])
    seen: dict[tuple[int, int], tuple[int, ...]] = {}
    queue: deque = deque()
    for a in range(source.dfa.k):
        pair = (int(source.dfa.delta[source.dfa.start, a]), int(step[a][q0]))
        if pair not in seen:
            seen[pair] = (a,)
            queue.append(pair)
    while queue:
        qs, qt = queue.popleft()
        out = int(target.output[close[qt]])
        want = int(source.dfa.output[qs])
        if out == INVALID or (out == mor.value) != bool(want):
            word = seen[(qs, qt)]
            return {"ok": False, "pairs": len(seen),
                    "counterexample": {"source_word": " ".join(source.alphabet[a] for a in word),
                                       "source_label": want, "target_output": out,
                                       "why": ("the image falls where the task is undefined"
                                               if out == INVALID else "labels differ")}}
        for a in range(source.dfa.k):
            pair = (int(source.dfa.delta[qs, a]), int(step[a][qt]))
            if pair not in seen:
                seen[pair] = seen[(qs, qt)] + (a,)
                queue.append(pair)
    return {"ok": True, "pairs": len(seen)}


def check_map(source: Language, mor: Morphism, membership: Callable[[np.ndarray], np.ndarray],
              max_len: int, max_image: int) -> dict[str, Any]:
    """Label the images of every nonempty source word of length 1..L with ``membership``
    (the task's own outputs on words of the target's letters) and compare; L is the
    largest length with at most CHECK_WORDS words, at most ``max_len``, and whose images
    stay within ``max_image`` letters."""
    k = source.dfa.k
    done, words_checked = 0, 0
    for m in range(1, max_len + 1):
        if k ** m > CHECK_WORDS:
            break
        words = np.indices((k,) * m).reshape(m, -1).T
        groups = mor.apply(words)
        if max(groups) > max_image:
            break
        want = np.asarray(source.label(words), dtype=np.int64)
        for length, (rows, images) in sorted(groups.items()):
            out = np.asarray(membership(images), dtype=np.int64)
            bad = np.flatnonzero((out == INVALID) | ((out == mor.value) != (want[rows] == 1)))
            if len(bad):
                r = int(rows[bad[0]])
                return {"ok": False, "checked_up_to": done, "words": words_checked,
                        "counterexample": {"source_word": " ".join(source.alphabet[a]
                                                                    for a in words[r]),
                                           "source_label": int(want[r]),
                                           "target_output": int(out[bad[0]])}}
        done, words_checked = m, words_checked + len(words)
    return {"ok": done > 0, "checked_up_to": done, "words": words_checked,
            **({} if done else {"why": "no source length could be checked"})}


def right_zero_pairs(mon: Monoid, limit: int = MAX_PAIRS) -> list[tuple[int, int]]:
    """Pairs (e, f) of distinct idempotents of the transition monoid with e f = f and
    f e = e (the word of e, then of f, acts as f; and conversely), shortest words first.
    Elements act on states, so "e then f" is the state map ``E[f][E[e]]``. Only the first
    MAX_IDEMPOTENTS idempotents (by shortest word) are paired."""
    E = mon.elements
    idem = np.flatnonzero((np.take_along_axis(E, E, axis=1) == E).all(axis=1))
    idem = idem[idem != 0]          # the identity is in no right-zero pair
    # elements come in breadth-first order (shortest words first): the first ones are
    # the ones a map would use; the cap bounds the pairwise test (I^2 |Q| comparisons)
    idem = idem[:MAX_IDEMPOTENTS]
    if len(idem) < 2:
        return []
    A = E[idem]
    out: list[tuple[int, int]] = []
    for i in range(len(A)):
        then = A[:, A[i]]      # then[j, q] = A[j][A[i][q]]: the word e_i, then e_j
        back = A[i][A]         # back[j, q] = A[i][A[j][q]]: the word e_j, then e_i
        ok = (then == A).all(axis=1) & (back == A[i]).all(axis=1)
        ok[i] = False
        out += [(int(idem[i]), int(idem[j])) for j in np.flatnonzero(ok)]
    out = [(e, f) for e, f in out if e < f]       # each unordered pair once
    out.sort(key=lambda ef: (len(mon.words[ef[0]]) + len(mon.words[ef[1]]), ef))
    return out[:limit]


@dataclass
class Embedding:
    """A map from a catalogue language into a task, with how it was found and proved."""

    source: Language
    morphism: Morphism
    target_alphabet: tuple[str, ...]
    pair: dict[str, Any]
    proof: dict[str, Any]
    tried: int = 0
    check: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source.name, "source_doc": self.source.doc,
                "map": self.morphism.spell(self.source.alphabet, self.target_alphabet),
                "right_zero_pair": self.pair, "product_check": self.proof,
                "pairs_tried": self.tried, "direct_check": self.check}


def embed_last_b(dfa: DFA, limit: int = 20000) -> Embedding | str:
    """A map Sigma* b -> the language of ``dfa`` (minimal; outputs 0/1, other values, or
    INVALID where undefined) proved by :func:`prove_map`, or why there is none: the
    monoid has no right-zero pair of distinct idempotents (then U_2 does not occur this
    way), or no pair gives a context with defined outputs that passes the product check."""
    mon = transition_monoid(dfa, limit)
    pairs = right_zero_pairs(mon)
    if not pairs:
        return (f"the {mon.size}-element syntactic monoid has no right-zero pair of distinct "
                "idempotents (e f = f, f e = e), so Sigma* b does not map into it this way")
    access = dfa.access_words()
    order = sorted(range(dfa.size), key=lambda q: (len(access[q]), access[q]))
    failed: list[str] = []
    for tried, (e, f) in enumerate(pairs, 1):
        we, wf = mon.words[e], mon.words[f]
        for q in order:
            z = dfa.separating_suffix(int(mon.elements[e][q]), int(mon.elements[f][q]),
                                      undefined=INVALID)
            if z is None:
                continue
            at_f = int(dfa.output[_run(dfa, np.array([q]), tuple(wf) + z)[0]])
            for pad in range(MAX_PAD + 1):
                mor = Morphism(tuple(access[q]) + tuple(we) * pad, (tuple(we), tuple(wf)),
                               tuple(z), at_f)
                proof = prove_map(LAST_B, dfa, mor)
                if proof["ok"]:
                    pair = {"e": dfa.spell(we), "f": dfa.spell(wf),
                            "state": q, "monoid_size": mon.size,
                            "identities": "e e = e, f f = f, e f = f, f e = e (state maps)"}
                    return Embedding(LAST_B, mor, dfa.alphabet, pair, proof, tried)
                if proof["counterexample"]["target_output"] != INVALID:
                    failed.append(f"{dfa.spell(we)} / {dfa.spell(wf)}: "
                                  f"{proof['counterexample']}")
                    break
    return (f"none of the {len(pairs)} right-zero pairs of the {mon.size}-element monoid gives "
            "a context whose images stay where the task is defined"
            + (f" ({failed[0]})" if failed else ""))


def flip_flop_to_last_b() -> tuple[Morphism, dict[str, Any]]:
    """s0 -> a, s1 -> b, r -> (empty), no context: flip-flop is the inverse image of
    Sigma* b (a word without a set-letter maps to the empty word, rejected by both);
    proved for every length by the product check."""
    mor = Morphism((), ((0,), (1,), ()), (), 1)
    return mor, prove_map(FLIP_FLOP, LAST_B.dfa, mor)


__all__ = ["CATALOGUE", "FLIP_FLOP", "LAST_B", "Language", "Morphism", "Embedding",
           "prove_map", "check_map", "right_zero_pairs", "embed_last_b", "flip_flop_to_last_b",
           "HUANG25", "YV41"]
