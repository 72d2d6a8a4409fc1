"""The flip-flop language and its checked reduction to 1-hop induction (khop, k = 1).

Flip-flop: words over {s0, s1, r} (ids 0, 1, 2) whose last
set-letter is s1 (a word with no set-letter is rejected). Its syntactic monoid is U_2
(the flip-flop monoid), and it is not in C-RASP (Huang et al., ICLR 2025;
Yang, Veseli et al.; check the exact statement before quoting a number).

The reduction maps a word w of length m to the k-hop input
    h(s0 w) a      with h(s0) = "a b", h(s1) = "a c", h(r) = "d c"
of length 2m + 3 over {a, b, c, d}. "a" occurs only as the first letter of an image of a
set-letter and at the very end, so at the last position find(i) points just past the
latest earlier "a", i.e. at the bit token of the last set-letter: hop_1 at the last
position is "c" iff the last set-letter is s1, else "b" (the prepended s0 guarantees a
set-letter). Images never repeat a letter immediately (images start with a or d and end
with b or c), so they are valid k-hop inputs. Each output token is a constant or a
function of one input letter: a projection.

Why this proves hardness: if C-RASP computed hop_1 at the last position (one program per
output value), the language {x : hop_1(x)_last = c} would be in C-RASP; flip-flop is its
inverse image under the homomorphism h after a left quotient by h(s0) and a right quotient
by "a", and C-RASP is closed under inverse homomorphisms and quotients (Yang, Veseli et
al., Prop. 41 as cited in docs/theories.md §4) - so flip-flop would be in C-RASP.
"""

from __future__ import annotations

import numpy as np

from ..reductions import Problem, Reduction

S0, S1, R = 0, 1, 2
#: khop token ids (letters a, b, c, d) for the images.
_A, _B, _C, _D = 0, 1, 2, 3
_IMAGE = np.array([[_A, _B], [_A, _C], [_D, _C]], dtype=np.int64)


def flip_flop_labels(words: np.ndarray) -> np.ndarray:
    """1 iff the last set-letter (s0 or s1) of each row is s1 (vectorized)."""
    w = np.asarray(words, dtype=np.int64)
    if w.shape[1] == 0:
        return np.zeros(len(w), dtype=np.int64)
    pos = np.arange(w.shape[1])
    last0 = np.where(w == S0, pos, -1).max(axis=1)
    last1 = np.where(w == S1, pos, -1).max(axis=1)
    return (last1 > last0).astype(np.int64)


def flip_flop_oracle(word) -> int:
    """The definition, one word at a time (for tests)."""
    state = 0
    for letter in word:
        if letter == S0:
            state = 0
        elif letter == S1:
            state = 1
    return state


FLIP_FLOP = Problem(
    name="flip_flop",
    fn=flip_flop_labels,
    choices=lambda m: [(S0, S1, R)] * m,
    doc="words over {s0, s1, r}; 1 iff the last set-letter is s1 (monoid U_2)")


def to_khop(words: np.ndarray, m: int) -> np.ndarray:
    """h(s0 w) a for each row w (ids of khop letters a b c d)."""
    w = np.asarray(words, dtype=np.int64)
    body = _IMAGE[w].reshape(len(w), 2 * w.shape[1])
    head = np.tile(np.array([[_A, _B]], dtype=np.int64), (len(w), 1))
    tail = np.full((len(w), 1), _A, dtype=np.int64)
    return np.concatenate([head, body, tail], axis=1)


FLIP_FLOP_TO_KHOP = Reduction(
    name="flip_flop -> khop(k=1): s0 -> a b, s1 -> a c, r -> d c, framed by a b ... a",
    source=FLIP_FLOP,
    target_family="khop",
    target_params=lambda m: {"n": 2 * m + 3, "k": 1, "alphabet": 4},
    map=to_khop,
    kind="projection",
    label_map=lambda y: np.where(np.asarray(y) == 1, _C, _B),
    doc=__doc__.split("\n\n")[1])
