"""Claim: k-hop induction is not in C-RASP, for any k >= 1 (already for k = 1).

The proof reduces the flip-flop language to the hop at the last position. For k = 1 the
reduction is :data:`~theorybench.formal.crasp.flipflop.FLIP_FLOP_TO_KHOP`; for k >= 2
:func:`flip_flop_to_khop` ends the word with an alternating tail d a d ... that walks the extra
hops back to the same place (below); the alphabet stays {a, b, c, d}.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from ... import tasks
from ...formal.crasp.flipflop import (FLIP_FLOP, R, S0, S1, FLIP_FLOP_TO_KHOP, flip_flop_labels,
                                      flip_flop_oracle)
from ...formal.reductions import Reduction
from .base import Claim, Step
from .common import reduction_step

_A, _B, _C, _D = 0, 1, 2, 3
#: images of s0, s1, r (as in formal/crasp/flipflop.py)
IMAGES = ((_A, _B), (_A, _C), (_D, _C))


def tail(k: int) -> list[int]:
    """The k-hop tail: "a" for k = 1; for k >= 2 the alternation d a d a ... of length
    k + 1 (starting with d). Four letters for every k."""
    if k == 1:
        return [_A]
    return [_D if i % 2 == 0 else _A for i in range(k + 1)]


def flip_flop_to_khop(k: int, images=IMAGES) -> Reduction:
    """flip-flop (words of length m) -> khop(k) at the last position: h(s0 w) tail(k)."""
    img = np.array(images, dtype=np.int64)
    t = np.array(tail(k), dtype=np.int64)
    head = img[0]

    def map_(w, m):
        w = np.asarray(w, dtype=np.int64)
        body = img[w].reshape(len(w), 2 * w.shape[1])
        return np.concatenate([np.tile(head, (len(w), 1)), body,
                               np.tile(t, (len(w), 1))], axis=1)

    return Reduction(
        name=f"flip_flop -> khop(k={k}): s0 -> a b, s1 -> a c, r -> d c, framed by a b "
             f"... {' '.join(chr(97 + i) for i in t)}",
        source=FLIP_FLOP, target_family="khop",
        target_params=lambda m: {"n": 2 * m + 2 + len(t), "k": k, "alphabet": 4},
        map=map_, kind="projection",
        label_map=lambda y: np.where(np.asarray(y) == 1, _C, _B))


# ---- every m at once: a finite-state abstraction, explored to a fixed point -------------

_NONE, _LAST = "none", "last"


def _append(occ: tuple, last: int | None, t: int) -> tuple[tuple, int]:
    """Abstract state after appending letter t: occ[s] is the letter that follows the
    latest occurrence of s, or "last" (s is the last letter so far), or "none"."""
    occ = list(occ)
    if last is not None:
        occ[last] = t
    occ[t] = _LAST
    return tuple(occ), t


def abstract_hop(occ: tuple, T: list[int], k: int):
    """hop_k at the last position of u T from u's abstract state alone: the find chain is
    followed inside T; a jump into u lands on the letter after the latest occurrence there,
    which is known (occ) but its position is not - allowed only as the last hop.
    Returns a letter id, "no hop", or None if the abstraction cannot decide."""
    pos = ("T", len(T) - 1)
    for hop in range(k):
        if pos[0] != "T":
            return None
        i = pos[1]
        sym = T[i]
        earlier = [j for j in range(i) if T[j] == sym]
        if earlier:
            pos = ("T", earlier[-1] + 1)
        elif occ[sym] == _NONE:
            return "no hop"
        elif occ[sym] == _LAST:
            pos = ("T", 0)
        else:
            pos = ("u", occ[sym])
    return T[pos[1]] if pos[0] == "T" else pos[1]


def reduction_proof_all_m(k: int, images=IMAGES, max_states: int = 1 << 16) -> dict:
    """Proof for every m: explore every abstract state (flip-flop state, occ) reachable by
    h(s0 w), w of any length (a finite set, so the search reaches a fixed point), and
    check that hop_k at the end of h(s0 w) T_k is c iff the flip-flop state is s1.
    Returns {"status": "proved" | "refuted" | "unknown", "states": count, ...}."""
    T = tail(k)
    occ0, last = (_NONE,) * 4, None
    for t in images[0]:
        occ0, last = _append(occ0, last, t)
    start = (0, occ0, last)
    seen, todo = {start}, [start]
    while todo:
        if len(seen) > max_states:
            return {"status": "unknown", "states": len(seen)}
        ff, occ, last = todo.pop()
        got = abstract_hop(occ, T, k)
        if got is None:
            return {"status": "unknown", "states": len(seen),
                    "why": "the find chain enters the body before the last hop"}
        if got != (_C if ff else _B) or (last is not None and T[0] == last):
            return {"status": "refuted", "states": len(seen),
                    "state": {"flip_flop": ff, "follows": occ, "hop": got}}
        for letter in (S0, S1, R):
            o, l = occ, last
            if images[letter][0] == l or images[letter][0] == images[letter][1]:
                return {"status": "refuted", "why": "an immediate repeat in an image"}
            for t in images[letter]:
                o, l = _append(o, l, t)
            nf = 0 if letter == S0 else (1 if letter == S1 else ff)
            nxt = (nf, o, l)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return {"status": "proved", "states": len(seen)}


def abstraction_agrees(k: int, max_m: int, images=IMAGES) -> int:
    """The largest m up to which the abstract hop equals the khop task's label at the last
    position on every image (raises on a disagreement)."""
    red = flip_flop_to_khop(k, images)
    done = 0
    for m in range(1, max_m + 1):
        w = np.array(list(itertools.product(range(3), repeat=m)), dtype=np.int64)
        x = red.apply(w, m)
        label = tasks.get("khop", **red.target_params(m)).label(x)[:, -1]
        T = tail(k)
        for row, want in zip(x, label):
            occ, last = (_NONE,) * 4, None
            for t in row[: len(row) - len(T)]:
                occ, last = _append(occ, last, int(t))
            got = abstract_hop(occ, T, k)
            got = 4 if got == "no hop" else got
            if got != int(want):
                raise AssertionError(f"the abstraction disagrees with khop at {row.tolist()}")
        done = m
    return done


def _flip_flop_premise(max_m: int) -> Step:
    t0 = time.perf_counter()
    done = 0
    for m in range(1, max_m + 1):
        if 3 ** m > 1 << 16:
            break
        w = np.array(list(itertools.product(range(3), repeat=m)), dtype=np.int64)
        want = np.array([flip_flop_oracle(r) for r in w])
        if not np.array_equal(flip_flop_labels(w), want):
            return Step("flip-flop source", "machine", _PREMISE, ok=False, up_to=m,
                        tool="enumeration against the one-state-at-a-time definition",
                        seconds=time.perf_counter() - t0)
        done = m
    return Step("flip-flop source", "machine", _PREMISE, up_to=done,
                tool="enumeration against the one-state-at-a-time definition",
                details={"words": sum(3 ** m for m in range(1, done + 1))},
                seconds=time.perf_counter() - t0)


_PREMISE = ("The source problem of the reductions is the flip-flop language over "
            "{s0, s1, r}: the vectorised labels equal the definition (last set-letter is "
            "s1) on every word.")


def homomorphic_layout(dependency: dict[int, list[int]], k: int) -> bool:
    """The image is h(s0 w) T_k: output tokens 2 + 2i and 3 + 2i depend on w_i (or on
    nothing), every other token is a constant - the form inverse homomorphism plus
    quotients needs."""
    for m, dep in dependency.items():
        want_len = 2 * m + 2 + len(tail(k))
        if len(dep) != want_len:
            return False
        for j, d in enumerate(dep):
            inside = 2 <= j < 2 * m + 2
            if (inside and d not in (-1, (j - 2) // 2)) or (not inside and d != -1):
                return False
    return True


def steps(max_m: int, ks=(1, 2, 3)) -> list[Step]:
    ms = list(range(1, max_m + 1))
    out = [_flip_flop_premise(max_m)]
    layouts = []
    for k in ks:
        red = FLIP_FLOP_TO_KHOP if k == 1 else flip_flop_to_khop(k)
        out.append(reduction_step(
            f"reduction flip-flop -> {k}-hop", red, ms,
            f"For every flip-flop word w of length m, hop_{k} at the last position of "
            f"h(s0 w) {' '.join(chr(97 + i) for i in tail(k))} is c iff w is in "
            f"flip-flop (b otherwise); the image is a valid k-hop input (no immediate "
            f"repeats) and each output letter is a constant or a function of one letter "
            f"of w.", samples=3 ** min(max_m, 10)))
        layouts.append(homomorphic_layout(out[-1].details.get("_dependency", {}), k))
    for k in ks:
        t0 = time.perf_counter()
        r = reduction_proof_all_m(k)
        agree = abstraction_agrees(k, min(max_m, 6))  # a row loop: keep it small
        out.append(Step(
            f"reduction flip-flop -> {k}-hop for every m", "machine",
            f"For every m, hop_{k} at the last position of h(s0 w) T_{k} is c iff w is in "
            f"flip-flop: the abstract state after h(s0 w) (flip-flop state, and for each "
            f"letter the letter after its latest occurrence) takes finitely many values; "
            f"all reachable ones are enumerated to a fixed point and each gives the right "
            f"hop (the tail's chain reaches the body only at the last hop).",
            ok=r["status"] == "proved", all_n=True,
            tool="reachability to a fixed point over the finite abstraction (breadth-first)",
            details={"reachable abstract states": r.get("states"),
                     "abstraction = task label on every image up to m": agree,
                     "result": r["status"], **({"why": r["why"]} if "why" in r else {})},
            seconds=time.perf_counter() - t0))
    out.append(Step(
        "the abstraction is exact", "by_hand",
        "find at a tail position depends only on the tail and, when the chain leaves the "
        "tail, on the letter after the latest occurrence of one letter in the body - "
        "which the abstract state records (also checked: the abstract hop equals the "
        "task's label on every image up to the m stated in each all-m step)."))
    out.append(Step(
        "closure of C-RASP", "cited",
        "C-RASP is closed under inverse homomorphisms and left/right quotients by fixed "
        "words, so hop_k(.)_last = c in C-RASP would put flip-flop in C-RASP.",
        cite="Yang, Veseli et al. (closure properties of C-RASP, as in docs/theories.md "
             "§4; the proposition number was not checked against the paper)",
        premise_checked=all(layouts) and bool(layouts),
        details={"premise": "each reduction's image is h(s0 w) T_k: tokens 2 + 2i, 3 + 2i "
                            "depend on w_i only, the rest are constants (from the "
                            "dependency maps of the reduction checks)",
                 "premise holds": all(layouts) and bool(layouts)}))
    out.append(Step(
        "flip-flop is not in C-RASP", "cited",
        "The flip-flop language (syntactic monoid U_2) is not definable in C-RASP.",
        cite="the C-RASP literature as summarised in docs/theories.md §4 (Huang et al., "
             "ICLR 2025; Yang, Veseli et al.); no theorem number: the exact statement "
             "could not be located with the search tool",
        premise_checked=True, reference_checked=False,
        details={"premise": "the source is literally the flip-flop language (step "
                            "'flip-flop source')"}))
    return out


PROOF = r"""
**Reduction for k = 1.** Map a flip-flop word w = w_1..w_m over {s0, s1, r} to
X = h(s0 w) a with h(s0) = a b, h(s1) = a c, h(r) = d c. The letter a occurs only as the
first letter of the image of a set-letter and at the very end. At the last position
find(L) is one past the latest earlier a, i.e. the bit letter (b or c) of the image of
the last set-letter (the prepended s0 guarantees one): hop_1 = c iff the last
set-letter is s1. Images start with a or d and end with b or c, so X has no immediate
repeats. Each output letter is a constant or a function of one w_i.

**Reduction for k >= 2.** End the word with the tail T_k = d a d a ... (k + 1 letters,
alternating, starting with d) instead of the final a. Number the tail positions
L - k .. L. Follow find from the last position: its letter occurred last two positions
earlier (the tail alternates, and an a or d two back is the latest occurrence), so
find(L) = L - 1; in the same way find(L - 1) = L - 2, ..., find(L - k + 2) = L - k + 1,
which is the first a of the tail, reached after k - 1 hops. The latest a before it is the
first letter of the last set-letter's image (the tail's first letter is d, and a occurs
in no other image), so the k-th hop lands on that image's bit letter, as for k = 1:
hop_k(X)_last = c iff w is in flip-flop. The d of an r-image is never the latest d seen
from the tail, because the tail's own d comes later. The tail starts with d after a b or
c, and alternates, so X has no immediate repeats; the alphabet is {a, b, c, d} for every k
(the task's default).

**Hardness.** Suppose a C-RASP program computed hop_k at the last position (one
program per output value, here the test "= c"). The set
{X : hop_k(X)_last = c} would be in C-RASP, and flip-flop is its inverse image under the
homomorphism h after the left quotient by h(s0) and the right quotient by T_k. C-RASP is
closed under these operations (cited), so flip-flop would be in C-RASP, contradicting the
cited non-membership of flip-flop. The argument is the same for every k.

**What is checked.** The source labels against the definition; each reduction on every
flip-flop word up to the given length (labels, validity of the images, the projection
property, and the layout h(s0 w) T_k that the closure properties need). For every m at
once: the state after h(s0 w) that matters for the hop at the end - the flip-flop state,
and for each letter the letter after its latest occurrence - has finitely many values;
all reachable values are enumerated to a fixed point and each gives the right hop at the
end of the tail (7 states for k = 1, 2, 3). That this abstraction is exact is the
position argument above (by hand), and is also checked against the task's label on every
image up to a small m. The two facts about C-RASP are cited, the non-membership without
a theorem number.
"""

CLAIM = Claim(
    name="khop-not-crasp",
    title="k-hop induction is not in C-RASP, already for k = 1",
    statement="For every k >= 1, no C-RASP program (over the alphabet {a, b, c, d}, or any "
              "larger one) computes the k-hop induction head's output at the last "
              "position on all inputs of all lengths.",
    assumptions=["C-RASP as in Yang & Chiang (COLM 2024), without positional predicates",
                 "the flip-flop language is not in C-RASP (cited)",
                 "C-RASP is closed under inverse homomorphisms and quotients (cited)"],
    proof=PROOF.strip(), steps=steps, min_n=1, default_n=5, max_allowed_n=12,
    settles=(("crasp", "khop:k=1", "Hard"), ("crasp", "khop:k=2", "Hard"),
             ("crasp", "khop:k=3", "Hard")))
