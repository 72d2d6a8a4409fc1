"""Finite automata of task languages: learning, minimization, transition monoid, aperiodicity.

Public API (used by the Star-free and C-RASP theories):

* ``learn_dfa(family, params=None, learn_len=None, check_len=None) -> LearnResult`` - learn
  the minimal DFA (Moore machine: outputs per state) of a family's language view
  (:mod:`.language`) from Myhill-Nerode residuals of prefixes up to ``learn_len``, then
  check it against the reference on *all* words up to ``check_len``.  The result's
  ``status`` is ``"regular"`` (``.dfa`` verified), ``"nonregular"`` (residual classes grow
  with the length bound, ``.growth``) or ``"inconclusive"`` (with the reason).
* ``DFA`` with ``evaluate(words)``, ``minimize()``, ``access_words()``, ``separating_suffix``.
* ``transition_monoid(dfa, limit) -> Monoid`` (closure of the letter maps under
  composition; :class:`ResourceLimitError` past ``limit`` elements).
* ``aperiodicity(dfa, limit, view=None) -> (bool, witness | None)``: every element m has
  m^k = m^(k+1) for some k, else a word w, a state q (with its access word) on a cycle of
  q -> q.w -> ... of length p > 1, and a suffix telling the cycle's states apart.
* ``residual_growth(view_or_family, ms) -> (counts, GrowthFit)``.

Theory: a regular language is star-free iff its syntactic monoid (the transition monoid of
its minimal DFA) is aperiodic (Schutzenberger 1965); star-free = FO[<] (McNaughton & Papert
1971) = LTL (Kamp 1968) = B-RASP = masked hard-attention transformers (Yang, Chiang &
Angluin, NeurIPS 2024, arXiv 2310.13897).  A language is regular iff it has finitely many
Myhill-Nerode classes; residual classes measured up to a bound can only *suggest*
non-regularity, which is why ``nonregular`` results are labelled by their growth fit.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import ResourceLimitError, TheoryError
from .growth import EXP, GrowthFit, classify_growth
from .language import INVALID, LanguageView, domain_view, language_view

#: Default check bound (all words up to this length; fewer for larger alphabets).
DEFAULT_CHECK = 14
#: Default limit on the number of transition-monoid elements.
MONOID_LIMIT = 20000


@dataclass
class DFA:
    """A complete deterministic automaton with outputs on states (Moore machine).

    ``delta[q, a]`` is the successor of state q on letter index a; ``output[q]`` the value
    of a word ending in q (1/0 for a language; other ints for multi-valued tasks).
    """

    alphabet: tuple[str, ...]
    delta: np.ndarray
    output: np.ndarray
    start: int = 0

    @property
    def size(self) -> int:
        return int(self.delta.shape[0])

    @property
    def k(self) -> int:
        return len(self.alphabet)

    def states_after(self, words: np.ndarray) -> np.ndarray:
        """The state reached by each row of ``words`` (letter indices)."""
        words = np.asarray(words, dtype=np.int64)
        state = np.full(words.shape[0], self.start, dtype=np.int64)
        for col in range(words.shape[1]):
            state = self.delta[state, words[:, col]]
        return state

    def evaluate(self, words: np.ndarray) -> np.ndarray:
        return self.output[self.states_after(words)]

    def states_of_length(self, length: int) -> np.ndarray:
        """States of all k^length words in lexicographic (base-k code) order."""
        state = np.array([self.start], dtype=np.int64)
        for _ in range(length):
            state = self.delta[state].reshape(-1)
        return state

    def minimize(self) -> "DFA":
        """The minimal equivalent DFA (reachable part, Moore partition refinement),
        states numbered in breadth-first order from the start (a canonical form)."""
        reach = self._reachable()
        remap = -np.ones(self.size, dtype=np.int64)
        remap[reach] = np.arange(len(reach))
        delta = remap[self.delta[reach]]
        out = self.output[reach]
        _, part = np.unique(out, return_inverse=True)
        part = part.reshape(-1)
        while True:
            sig = np.concatenate([part[:, None], part[delta]], axis=1)
            _, new = np.unique(sig, axis=0, return_inverse=True)
            new = new.reshape(-1)
            if new.max() == part.max():
                part = new
                break
            part = new
        q = int(part.max()) + 1
        rep = np.zeros(q, dtype=np.int64)
        rep[part[::-1]] = np.arange(len(part))[::-1]
        small = DFA(self.alphabet, part[delta[rep]], out[rep], int(part[remap[self.start]]))
        return small._bfs_numbered()

    def _reachable(self) -> np.ndarray:
        seen = np.zeros(self.size, dtype=bool)
        seen[self.start] = True
        frontier = np.array([self.start])
        while len(frontier):
            nxt = np.unique(self.delta[frontier].reshape(-1))
            nxt = nxt[~seen[nxt]]
            seen[nxt] = True
            frontier = nxt
        return np.flatnonzero(seen)

    def _bfs_numbered(self) -> "DFA":
        order, seen = [self.start], {self.start}
        i = 0
        while i < len(order):
            for a in range(self.k):
                t = int(self.delta[order[i], a])
                if t not in seen:
                    seen.add(t)
                    order.append(t)
            i += 1
        new = -np.ones(self.size, dtype=np.int64)
        new[order] = np.arange(len(order))
        return DFA(self.alphabet, new[self.delta[order]], self.output[order], 0)

    def access_words(self) -> list[tuple[int, ...]]:
        """A shortest (then lexicographically first) word reaching each state."""
        words: list[tuple[int, ...] | None] = [None] * self.size
        words[self.start] = ()
        queue = deque([self.start])
        while queue:
            q = queue.popleft()
            for a in range(self.k):
                t = int(self.delta[q, a])
                if words[t] is None:
                    words[t] = words[q] + (a,)
                    queue.append(t)
        return [w if w is not None else () for w in words]

    def separating_suffix(self, p: int, q: int) -> tuple[int, ...] | None:
        """A shortest z with output(p.z) != output(q.z), or None if p and q are equivalent."""
        seen = {(p, q): ()}
        queue = deque([(p, q)])
        while queue:
            a_, b_ = queue.popleft()
            z = seen[(a_, b_)]
            if self.output[a_] != self.output[b_]:
                return z
            for a in range(self.k):
                pair = (int(self.delta[a_, a]), int(self.delta[b_, a]))
                if pair not in seen:
                    seen[pair] = z + (a,)
                    queue.append(pair)
        return None

    def spell(self, word: Sequence[int]) -> str:
        return " ".join(self.alphabet[a] for a in word) or "(empty word)"

    def to_dict(self) -> dict[str, Any]:
        return {"states": self.size, "alphabet": list(self.alphabet), "start": self.start,
                "delta": self.delta.tolist(), "output": self.output.tolist()}

    def render(self) -> str:
        """A text transition table (one row per state)."""
        head = "state  out  " + "  ".join(f"{a:>4}" for a in self.alphabet)
        rows = [head]
        for q in range(self.size):
            mark = ">" if q == self.start else " "
            rows.append(f"{mark}{q:<5} {int(self.output[q]):>3}  "
                        + "  ".join(f"{int(t):>4}" for t in self.delta[q]))
        return "\n".join(rows)


def from_table(alphabet: Sequence[str], delta, output, start: int = 0) -> DFA:
    """A DFA from plain lists (for tests and hand-written automata)."""
    return DFA(tuple(alphabet), np.asarray(delta, dtype=np.int64),
               np.asarray(output, dtype=np.int64), start)


# ---- transition monoid and aperiodicity ---------------------------------------------

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


# ---- Myhill-Nerode learning ------------------------------------------------------------

def _rows(view: LanguageView, plen: int, slen: int) -> tuple[np.ndarray, np.ndarray]:
    """Residual rows of every prefix of length <= plen on every suffix of length <= slen.
    Returns (rows as int8, prefix_lengths); prefixes of one length are in lexicographic
    order."""
    k = view.k
    blocks, lens = [], []
    for a in range(plen + 1):
        parts = [view.table(a + b).reshape(k ** a, k ** b) for b in range(slen + 1)]
        blocks.append(np.concatenate(parts, axis=1))
        lens.append(np.full(k ** a, a))
    rows = np.concatenate(blocks)
    small = rows.astype(np.int8)
    if not np.array_equal(small, rows):  # outputs beyond int8: keep them exact
        small = rows
    return small, np.concatenate(lens)


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, class of each row), fast: each row viewed as one opaque item."""
    rows = np.ascontiguousarray(rows)
    flat = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1])))[:, 0]
    _, first, cls = np.unique(flat, return_index=True, return_inverse=True)
    return rows[first], cls.reshape(-1)


def _prefix_words(k: int, plen: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for a in range(plen + 1):
        for code in range(k ** a):
            digits = []
            for _ in range(a):
                digits.append(code % k)
                code //= k
            out.append(tuple(reversed(digits)))
    return out


def residual_counts(view: LanguageView, ms: Sequence[int]) -> list[int]:
    """Number of residual classes of prefixes of length <= m, told apart by suffixes of
    length <= m, for each m."""
    out = []
    for m in ms:
        rows, _ = _rows(view, m, m)
        out.append(int(_unique_rows(rows)[0].shape[0]))
    return out


def residual_growth(view_or_family, ms: Sequence[int] | None = None,
                    params: dict | None = None) -> tuple[list[int], GrowthFit]:
    """(counts, fit): residual classes by bound m (see :func:`residual_counts`)."""
    view = view_or_family if isinstance(view_or_family, LanguageView) \
        else language_view(view_or_family, params)
    if ms is None:
        top = max(3, view.max_length() // 2)
        ms = list(range(1, top + 1))
    counts = residual_counts(view, ms)
    return counts, classify_growth(list(ms), counts)


@dataclass
class LearnResult:
    """Outcome of :func:`learn_dfa` (``status`` regular / nonregular / inconclusive)."""

    family: str
    params: dict[str, Any]
    status: str
    dfa: DFA | None
    learn_len: int
    check_len: int
    growth: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    counterexample: str | None = None
    has_invalid: bool = False

    def to_dict(self) -> dict[str, Any]:
        d = {"family": self.family, "params": self.params, "status": self.status,
             "learn_len": self.learn_len, "check_len": self.check_len, "growth": self.growth,
             "reason": self.reason, "counterexample": self.counterexample}
        if self.dfa is not None:
            d["dfa_states"] = self.dfa.size
        return d


def hypothesis(view: LanguageView, learn_len: int) -> tuple[DFA | None, str]:
    """The DFA of residual classes (prefixes <= p, suffixes <= s, p + 1 + s = learn_len)."""
    slen = learn_len // 2
    plen = learn_len - slen - 1
    rows, lens = _rows(view, plen + 1, slen)
    uniq, cls = _unique_rows(rows)
    short = lens <= plen
    states = np.unique(cls[short])
    if not np.isin(cls[~short], states).all():
        return None, (f"not closed: a prefix of length {plen + 1} has a residual unlike every "
                      f"prefix of length <= {plen} (more states than the bound can show)")
    words = _prefix_words(view.k, plen + 1)
    code_of = {w: i for i, w in enumerate(words)}
    rep: dict[int, int] = {}
    for i in np.flatnonzero(short):
        rep.setdefault(int(cls[i]), int(i))
    number = {c: j for j, c in enumerate(sorted(rep, key=lambda c: rep[c]))}
    delta = np.zeros((len(number), view.k), dtype=np.int64)
    output = np.zeros(len(number), dtype=np.int64)
    for c, i in rep.items():
        output[number[c]] = uniq[c, 0]  # the empty suffix comes first in every row
        for a in range(view.k):
            delta[number[c], a] = number[int(cls[code_of[words[i] + (a,)]])]
    return DFA(view.alphabet, delta, output, number[int(cls[0])]).minimize(), ""


def check_dfa(dfa: DFA, view: LanguageView, check_len: int) -> str | None:
    """The first word (shortest, lexicographic) up to ``check_len`` where ``dfa`` and the
    reference differ, spelled out with both outputs, or None."""
    for length in range(check_len + 1):
        got = dfa.output[dfa.states_of_length(length)]
        want = view.table(length)
        bad = np.flatnonzero(got != want)
        if len(bad):
            word = view.words(length)[bad[0]]
            return (f"{view.spell(word)}: automaton gives {int(got[bad[0]])}, reference "
                    f"gives {int(want[bad[0]])}")
    return None


def learn_view(view: LanguageView, learn_len: int | None = None,
               check_len: int | None = None) -> LearnResult:
    """:func:`learn_dfa` on a ready :class:`LanguageView`."""
    top = view.max_length()
    check_len = min(top, DEFAULT_CHECK) if check_len is None else check_len
    learn_len = max(2, check_len - 2) if learn_len is None else learn_len
    if learn_len > check_len:
        raise TheoryError(f"learning bound {learn_len} exceeds the check bound {check_len}: "
                          f"the check bound must be at least the learning bound")
    if check_len > top:
        raise TheoryError(f"the check bound {check_len} (check_len, --n) needs {view.k}^"
                          f"{check_len} words of one length, above the limit; use a bound "
                          f"of at most {top}")
    ms = list(range(1, max(3, check_len // 2) + 1))
    counts, fit = residual_growth(view, ms)
    growth = {"m": ms, "classes": counts, "fit": fit.to_dict()}
    has_invalid = any((view.table(L) == INVALID).any() for L in range(check_len + 1))
    res = dict(family=view.family, params=view.params, learn_len=learn_len,
               check_len=check_len, growth=growth, has_invalid=has_invalid)
    dfa, why = hypothesis(view, learn_len)
    if dfa is not None:
        bad = check_dfa(dfa, view, check_len)
        if bad is None:
            return LearnResult(status="regular", dfa=dfa, reason=(
                f"{dfa.size}-state automaton learned from words up to length {learn_len} "
                f"agrees with the reference on all words up to length {check_len}"), **res)
        why = f"the learned automaton ({dfa.size} states) disagrees with the reference: {bad}"
    prefixes = sum(view.k ** a for a in range(ms[-1] + 1))
    if fit.bounded:
        return LearnResult(status="inconclusive", dfa=None, counterexample=why, reason=(
            f"residual classes look bounded ({counts}) but no automaton checked: {why}"), **res)
    if fit.kind == EXP or counts[-1] > prefixes // 2:
        return LearnResult(status="inconclusive", dfa=None, counterexample=why, reason=(
            f"residual classes {counts} grow about as fast as the number of prefixes "
            f"({prefixes} up to length {ms[-1]}): a large regular language cannot be told "
            f"from a non-regular one at this bound"), **res)
    return LearnResult(status="nonregular", dfa=None, counterexample=why, reason=(
        f"the number of residual classes grows with the bound m ({counts} for m = "
        f"{ms[0]}..{ms[-1]}, fit {fit.formula}) while staying far below the {prefixes} "
        f"prefixes: the language has no finite automaton"), **res)


@functools.lru_cache(maxsize=512)
def learn_view_cached(view: LanguageView, learn_len: int | None = None,
                      check_len: int | None = None) -> LearnResult:
    """:func:`learn_view`, cached per process by the view's identity (family, parameters,
    convention, restriction)."""
    return learn_view(view, learn_len, check_len)


@functools.lru_cache(maxsize=128)
def _learn_cached(family: str, params_key: tuple, learn_len, check_len, undefined: str,
                  domain: bool) -> LearnResult:
    view = language_view(family, dict(params_key), undefined)
    if domain:
        view = domain_view(view)
    return learn_view(view, learn_len, check_len)


def learn_dfa(family: str, params: dict[str, Any] | None = None, learn_len: int | None = None,
              check_len: int | None = None, undefined: str = "reject",
              domain: bool = False) -> LearnResult:
    """Learn and check the minimal automaton of ``family``'s language view (cached per
    process).  ``undefined`` is the language view's convention for lengths where the
    family is undefined; ``domain=True`` learns the automaton of the input domain (valid
    words at defined lengths) instead."""
    key = tuple(sorted((params or {}).items()))
    return _learn_cached(family, key, learn_len, check_len, undefined, domain)


__all__ = ["DFA", "Monoid", "LearnResult", "MONOID_LIMIT", "from_table", "transition_monoid",
           "aperiodicity", "quasi_aperiodicity", "residual_counts", "residual_growth", "hypothesis", "check_dfa",
           "learn_view", "learn_view_cached", "learn_dfa"]
