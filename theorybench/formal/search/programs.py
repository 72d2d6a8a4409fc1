"""The smallest C-RASP or B-RASP program that agrees with a task on every input up to N,
found by enumeration (issue 29, item 3).

Bottom-up enumeration by size with observational-equivalence pruning (Udupa et al.,
"TRANSIT", PLDI 2013; Alur et al., "Search-based program synthesis", CACM 2018): each
candidate is evaluated at once on every position of every input of n = 1, 2, ... (the rows
laid end to end in one array), and only the first candidate of each distinct value array
is kept to build larger ones. A value at a position depends only on its own row, so two
candidates equal everywhere stay equal inside every larger expression: the pruning loses
no program, only spellings, and the first Boolean candidate whose values at the output
positions equal the labels is the smallest in the grammar (ties: enumeration order).

* C-RASP (Yang & Chiang, COLM 2024): token tests and ``true``, counts ``#b`` (no guards or
  imports), multiples 2 and 3 of counts, sums and differences of count terms, comparisons
  of two terms or of a term with 0, 1 or 2, ``!``, ``&&``, ``||``. Acceptance at an
  appended end marker (docs/theories.md §0): each row has one more position, where no
  token test holds, and the output is read there. Size = AST nodes (``crasp.size``).
* B-RASP (Yang, Chiang & Angluin, NeurIPS 2024, section 3): token tests and ``true``,
  ``!``, ``&&``, ``||`` and ``leftmost|rightmost j [< i | > i] [S(j)] V(j) : d`` with a
  constant default d - the form their translation of LTL's since and until takes, so
  (Kamp) every star-free language has a program here. Acceptance at the last position.
  Size = nodes of the expression tree; an attention is one node plus S, V and d.

When the budget runs out without a match, a greedy cover is tried (:meth:`Enumerator.cover`):
the AND of banked expressions true on every accepted example (or the OR of ones false on
every rejected one), chosen by how many remaining examples each excludes, at most
:data:`COVER_TERMS` of them - conjunctions such as plurality's (#b < #a) && (#c < #a) that lie
past the sizes enumerated, without the promise of being smallest. A cover that then fails
the check below earns one more round with its counterexamples and :data:`COVER_EXTRA`
more budgets.

A match is then run by the real interpreter on every input of every n whose space has at
most :data:`VERIFY_SPACE` inputs, on samples at the other n <= 16 and at n = 32 and 64;
inputs it gets wrong join the examples and the enumeration starts again
(counterexample-guided), every round counted against one budget of evaluated candidates -
never seconds, so every machine gets the same answer.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from ...errors import EnumerationTooLarge, TaskParameterError
from ...tasks.digest import task_identity
from ..brasp import ast as B
from ..brasp.check import program_answers
from ..crasp import ast as C
from ..crasp.interpret import Interpreter

#: Candidates evaluated per search (all counterexample rounds together).
DEFAULT_BUDGET = 80000
#: Most tokens (end markers included) in the examples the enumeration runs on.
EXAMPLE_TOKENS = 1 << 11
#: Largest input space of one n checked exhaustively after a match, and the largest n.
VERIFY_SPACE = 1 << 12
VERIFY_N = 16
#: Lengths n checked on samples of the task's own distribution after a match.
SAMPLED_NS = (32, 64)
SAMPLES = 256
#: Rounds of counterexample-guided search, and failing inputs added per round.
ROUNDS = 4
ADDED = 4
CONSTANTS = (0, 1, 2)  #: the constants compared with count terms
FACTORS = (2, 3)
#: Most conjuncts (or disjuncts) of the greedy cover tried when the enumeration runs out.
COVER_TERMS = 6
#: Extra budgets (multiples of the budget) one round gets after a cover failed its check.
COVER_EXTRA = 2
#: Examples of the rarer class below which longer lengths are searched for more of it.
RARE = 3
#: How many lengths past the exhaustive ones are searched, their largest space, and the
#: most words of the rarer class taken per length (each with its one-letter changes).
RARE_NS = 6
RARE_SPACE = 1 << 16
RARE_WORDS = 32
#: Most conjuncts of the end-marker test of a prefix program, and the rounds of the stage.
PREFIX_FINAL_TERMS = 3
PREFIX_ROUNDS = 2


@dataclass(frozen=True)
class SearchResult:
    """A program (C-RASP or B-RASP AST) or None with the reason; ``size`` is the program's
    size, ``checked_n`` the largest N with every input of every n <= N checked by the
    interpreter, ``candidates`` the evaluated candidates."""

    language: str
    program: Any
    size: int
    checked_n: int
    candidates: int
    reason: str = ""
    sampled_ns: tuple[int, ...] = ()
    rounds: int = 1                   # enumerations run (each after a counterexample)

    @property
    def origin(self) -> str:
        return (f"found by search (size {self.size}, agrees on every input up to n = "
                f"{self.checked_n})")

    def to_dict(self) -> dict[str, Any]:
        return {"language": self.language,
                "program": None if self.program is None else text(self.program),
                "size": self.size,
                "checked_n": self.checked_n, "sampled_ns": list(self.sampled_ns),
                "candidates": self.candidates, "rounds": self.rounds, "reason": self.reason}


def text(program) -> str:
    """A C-RASP or B-RASP program in its text syntax (the parsers read it back)."""
    return C.to_text(program) if isinstance(program, C.Program) else B.to_text(program)


# ---- the task's inputs -------------------------------------------------------------------
def _alphabet(task) -> tuple[str, ...]:
    return tuple(t for i, t in enumerate(task.vocab) if i != task.pad_id)


def instance(task, n: int):
    """The task's family with its parameters at length n, or None where it is undefined."""
    try:
        return type(task)(**{**task.values, "n": n})
    except TaskParameterError:
        return None


def _labelled(inst, rng: np.random.Generator | None = None, count: int = SAMPLES):
    """(inputs, Boolean labels) of an instance: every valid input, or ``count`` samples."""
    view = inst.decision_view()[0]
    if rng is None:
        x = view.enumerate(limit=VERIFY_SPACE)
    else:
        x = np.asarray(view.sample(rng, count), dtype=np.int64)
        if view.valid is not None:
            x = x[np.asarray(view.valid(x), dtype=bool)]
    y = np.asarray(view.evaluate(x)).astype(np.int64).reshape(len(x))
    if not np.isin(y, (0, 1)).all():
        raise TaskParameterError(f"{inst.name}'s decision function is not Boolean; a "
                                 f"program decides a language")
    return np.asarray(x, dtype=np.int64), y.astype(bool)


def examples(task, tokens: int | None = None):
    """(rows, labels, N): every input of every n = 1..N whose rows, with one more position
    each, fit in ``tokens`` (default :data:`EXAMPLE_TOKENS`); or a reason why there are
    none."""
    tokens = EXAMPLE_TOKENS if tokens is None else tokens
    alpha, rows, labels, top = _alphabet(task), [], [], 0
    for n in range(1, VERIFY_N + 1):
        inst = instance(task, n)
        if inst is None:
            continue
        if _alphabet(inst) != alpha:
            return (f"the alphabet changes with n ({len(alpha)} tokens at n = {task.n}, "
                    f"{len(_alphabet(inst))} at n = {n}); a program reads a fixed alphabet")
        view = inst.decision_view()[0]
        if sum(len(r) + 1 for r in rows) + view.space_size() * (view.length + 1) > tokens:
            break
        try:
            x, y = _labelled(inst)
        except EnumerationTooLarge:
            break
        except TaskParameterError as exc:  # a decision function that is not Boolean
            return str(exc)
        rows.extend(list(x))
        labels.append(y)
        top = n
    if not rows:
        return f"no n has an input space small enough to search on ({tokens:,} tokens)"
    return rows, np.concatenate(labels), top


def _rare_examples(task, top: int, labels: np.ndarray):
    """(rows, labels) or None: when one class has at most RARE examples up to n = top (the
    accepted words of (abc)* up to n = 5: only abc), the words of that class at each of the
    next RARE_NS lengths whose space has at most RARE_SPACE inputs (at most RARE_WORDS per
    length), each with every one-letter change of it, so that the search sees more than one
    or two words of the rare class and the near misses around them."""
    pos = int(labels.sum())
    rare = True if pos <= RARE else (False if len(labels) - pos <= RARE else None)
    if rare is None:
        return None
    rows, out = [], []
    for n in range(top + 1, top + 1 + RARE_NS):
        inst = instance(task, n)
        if inst is None or _alphabet(inst) != _alphabet(task):
            continue
        view = inst.decision_view()[0]
        if view.valid is not None or view.space_size() > RARE_SPACE:
            break
        try:
            x = np.asarray(view.enumerate(limit=RARE_SPACE), dtype=np.int64)
        except EnumerationTooLarge:
            break
        y = np.asarray(view.evaluate(x)).reshape(len(x))
        if not np.isin(y, (0, 1)).all():
            return None
        y = y.astype(bool)
        words = x[y == rare][:RARE_WORDS]
        if not len(words):
            continue
        letters = sorted({int(v) for c in view.choices for v in c})
        near = []
        for w in words:
            for i in range(n):
                for a in letters:
                    if a != w[i]:
                        v = w.copy()
                        v[i] = a
                        near.append(v)
        near = np.array(near, dtype=np.int64).reshape(-1, n)
        ny = np.asarray(view.evaluate(near)).astype(bool).reshape(len(near))
        rows.extend(list(words) + list(near))
        out.append(np.concatenate([np.full(len(words), rare), ny]))
    return (rows, np.concatenate(out)) if rows else None


class Flat:
    """Rows laid end to end (with an end-marker position each when ``eos``): token ids
    (-1 at an end marker), each position's row start and end, the output positions."""

    def __init__(self, rows: list[np.ndarray], eos: bool):
        lens = np.array([len(r) + eos for r in rows], dtype=np.int64)
        parts = [np.append(r, -1) if eos else r for r in rows]
        self.ids = np.concatenate(parts).astype(np.int64)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        self.start = np.repeat(starts, lens)
        self.end = np.repeat(starts + lens - 1, lens)
        self.out = starts + lens - 1
        self.size = len(self.ids)
        self.index = np.arange(self.size)

    def count(self, b: np.ndarray) -> np.ndarray:
        """#b: the number of positions j <= i of i's row where b holds."""
        # int16 wraps past 2^15 over many rows, but a difference of two wrapped sums is
        # exact modulo 2^16, and a count within a row is far below 2^15
        cs = np.zeros(self.size + 1, dtype=np.int16)
        np.cumsum(b, dtype=np.int16, out=cs[1:])
        return cs[1:] - cs[self.start]

    def selections(self, s: np.ndarray) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
        """(direction, mask, j, exists) of the six attentions with score ``s`` at j."""
        last = np.maximum.accumulate(np.where(s, self.index, -1))
        nxt = np.minimum.accumulate(np.where(s, self.index, self.size)[::-1])[::-1]
        nxt = np.append(nxt, self.size)
        prev = np.concatenate([[-1], last[:-1]])
        row_last, row_first, after = last[self.end], nxt[self.start], nxt[self.index + 1]
        i = self.index
        return [("leftmost", "<", row_first, row_first < i),
                ("leftmost", ">", after, after <= self.end),
                ("leftmost", "", row_first, row_first <= self.end),
                ("rightmost", "<", prev, prev >= self.start),
                ("rightmost", ">", row_last, row_last > i),
                ("rightmost", "", row_last, row_last >= self.start)]


def _key(v: np.ndarray) -> bytes:
    """A Boolean value itself, packed (exact); an integer value by a 128-bit BLAKE2
    digest (a copy of each would double the memory of the integer bank)."""
    if v.dtype == bool:
        return np.packbits(v).tobytes()
    return hashlib.blake2b(v.tobytes(), digest_size=16).digest()


# ---- enumeration -----------------------------------------------------------------------
class Enumerator:
    """Banks of distinct Boolean (and, for C-RASP, integer) expressions by size; subclasses
    yield the candidates of one size as (kind, expression, value)."""

    language = ""
    eos = False

    def __init__(self, flat: Flat, labels: np.ndarray, alphabet: tuple[str, ...],
                 vocab: tuple[str, ...]):
        self.flat, self.labels, self.alphabet = flat, labels, alphabet
        self.tokens = [(a, flat.ids == vocab.index(a)) for a in alphabet]
        self.banks: dict[str, dict[int, list]] = {"bool": {}, "int": {}}
        self.seen: dict[str, set[bytes]] = {"bool": set(), "int": set()}

    def run(self, budget: int) -> tuple[Any, int, int, int]:
        """(expression or None, its size, candidates used, largest size fully searched)."""
        used, size = 0, 0
        while used < budget:
            size += 1
            for bank in self.banks.values():
                bank[size] = []
            for kind, expr, value in self.level(size):
                used += 1
                key = _key(value)
                if key not in self.seen[kind]:
                    self.seen[kind].add(key)
                    self.banks[kind][size].append((expr, value))
                    if kind == "bool" and np.array_equal(value[self.flat.out], self.labels):
                        return expr, size, used, size - 1
                if used >= budget:
                    return None, 0, used, size - 1
        return None, 0, used, size

    def cover(self, max_terms: int = COVER_TERMS) -> tuple[Any, int]:
        """(expression, size) or (None, 0): the AND (or the OR) of banked Boolean
        expressions that equals the labels, chosen greedily. For AND, only expressions true
        at every accepted example qualify; each step takes the one false on the most
        rejected examples not yet excluded (the smallest on ties, banks in size order), and
        the cover is done when none is left (OR: the mirror image). A set-cover heuristic:
        it finds conjunctions of small tests - (#a > #b) && (#a > #c) - that lie beyond the
        exhaustive enumeration's size, without the guarantee of being the smallest."""
        out, pos = self.flat.out, self.labels.astype(bool)
        exprs, sizes, vals = [], [], []
        for size in sorted(self.banks["bool"]):
            for e, v in self.banks["bool"][size]:
                exprs.append(e)
                sizes.append(size)
                vals.append(v[out])
        if not vals:
            return None, 0
        V = np.stack(vals)
        and_, or_ = self.and_or
        for make, M, want in ((and_, V, pos), (or_, ~V, ~pos)):
            ok = np.flatnonzero(M[:, want].all(axis=1))   # never wrong on the kept side
            left = ~want
            chosen: list[int] = []
            while left.any() and len(chosen) < max_terms and len(ok):
                gain = (~M[ok][:, left]).sum(axis=1)
                best = int(np.argmax(gain))
                if gain[best] == 0:
                    break
                chosen.append(int(ok[best]))
                left &= M[ok[best]]
            if chosen and not left.any():
                expr = exprs[chosen[0]]
                for i in chosen[1:]:
                    expr = make(expr, exprs[i])
                return expr, sum(sizes[i] for i in chosen) + len(chosen) - 1
        return None, 0

    def pairs(self, kind: str, total: int, ordered: bool):
        """Pairs of bank entries whose sizes add up to ``total`` (unordered: each once)."""
        bank = self.banks[kind]
        for s1 in range(1, total):
            s2 = total - s1
            if not ordered and s1 > s2:
                break
            for a, left in enumerate(bank.get(s1, ())):
                rights = bank.get(s2, ())
                start = a + 1 if not ordered and s1 == s2 else 0
                for b in range(start, len(rights)):
                    if not (s1 == s2 and a == b):  # x - x, x < x: constants
                        yield left, rights[b]

    def boolean(self, size: int, exprs) -> Iterator:
        """And, Or at ``size`` (``exprs``: the node classes of the language)."""
        and_, or_ = exprs
        for (e1, v1), (e2, v2) in self.pairs("bool", size - 1, ordered=False):
            yield "bool", and_(e1, e2), v1 & v2
            yield "bool", or_(e1, e2), v1 | v2


class CRASPEnumerator(Enumerator):
    """Count terms are counts, constant multiples of counts, sums and differences of terms;
    a constant appears only as one side of a comparison (``x + c < y`` is ``c < y - x``,
    of the same size, so no smaller program is lost by that)."""

    language, eos = "C-RASP", True
    and_or = (C.And, C.Or)

    def level(self, size: int) -> Iterator:
        flat, ints = self.flat, self.banks["int"]
        if size == 1:
            for a, v in self.tokens:
                yield "bool", C.Token(a), v
            yield "bool", C.TRUE, np.ones(flat.size, dtype=bool)
            return
        for e, v in self.banks["bool"][size - 1]:
            yield "int", C.Count(e), flat.count(v)
        for e, v in ints[size - 1]:
            if isinstance(e, C.Count):
                for k in FACTORS:
                    yield "int", C.Scale(k, e), v * np.int16(k)
        for e, v in ints.get(size - 2, ()):
            yield from self.thresholds(e, v)
        for e, v in self.banks["bool"][size - 1]:
            yield "bool", C.Not(e), ~v
        for (e1, v1), (e2, v2) in self.pairs("int", size - 1, ordered=True):
            yield "int", C.Sub(e1, e2), v1 - v2
            yield "bool", C.Compare("<", e1, e2), v1 < v2
            yield "bool", C.Compare("<=", e1, e2), v1 <= v2
        for (e1, v1), (e2, v2) in self.pairs("int", size - 1, ordered=False):
            yield "int", C.Add(e1, e2), v1 + v2
            yield "bool", C.Compare("==", e1, e2), v1 == v2
            yield "bool", C.Compare("!=", e1, e2), v1 != v2
        yield from self.boolean(size, (C.And, C.Or))

    def prefix_program(self) -> tuple[Any, int]:
        """(expression, size) or (None, 0): a *prefix program* - "every letter stood where
        its count test held, and a test holds at the end marker":

            #[(a && !phi_a) || (b && !phi_b) || ...] == 0  &&  F

        Counts run over j <= i, so at the end marker the first count is over the whole
        word. A prefix of an example is *live* when it begins an accepted example; each
        example's first dead position (trusted only where accepted examples are long enough
        to decide it: its prefix at most the longest accepted length minus the largest gap
        between accepted lengths) gives the test of its letter a a position where phi_a must
        fail, and every live position one where it must hold. phi_a is the smallest banked
        expression that does both; F the smallest banked test (or an AND of at most
        PREFIX_FINAL_TERMS of them, chosen greedily) true on the accepted examples and false
        on the rejected ones whose letters all passed. A star-free or counting language of
        prefix conditions - (abc)*: a where #a - #c < 2, b where #b <= #a, c where
        #c <= #b, and #c == #a at the end - is found this way far past the sizes the
        enumeration reaches; it is checked like any match."""
        flat, out, labels = self.flat, self.flat.out, self.labels.astype(bool)
        starts = np.concatenate([[0], out[:-1] + 1])
        words = [tuple(flat.ids[a:b].tolist()) for a, b in zip(starts, out)]
        acc_len = sorted({len(w) for w, y in zip(words, labels) if y})
        if not acc_len:
            return None, 0
        gap = max([b - a for a, b in zip(acc_len, acc_len[1:])] or [acc_len[-1]])
        trust = acc_len[-1] - gap
        live_prefixes = {w[:k] for w, y in zip(words, labels) if y for k in range(1, len(w) + 1)}
        must_hold = np.zeros(flat.size, dtype=bool)
        must_fail = np.zeros(flat.size, dtype=bool)
        for (a, b), w in zip(zip(starts, out), words):
            for k in range(len(w)):
                if w[:k + 1] in live_prefixes:
                    must_hold[a + k] = True
                    continue
                if k + 1 <= trust:
                    must_fail[a + k] = True
                break
        if not must_fail.any():
            return None, 0
        bools = [(e, v, size) for size in sorted(self.banks["bool"])
                 for e, v in self.banks["bool"][size]]
        parts, size = [], 0
        for a, tok in self.tokens:
            hold, fail = must_hold & tok, must_fail & tok
            if not fail.any():
                continue
            hit = next(((e, v, sz) for e, v, sz in bools
                        if v[hold].all() and not v[fail].any()), None)
            if hit is None:
                return None, 0
            parts.append((a, tok, hit))
            size += hit[2] + 3
        bad = np.zeros(flat.size, dtype=bool)
        for _a, tok, (_e, v, _sz) in parts:
            bad |= tok & ~v
        passed = np.add.reduceat(bad.astype(np.int64), starts) == 0
        guard = None
        for a, _t, (e, _v, _s) in parts:
            term = C.And(C.Token(a), C.Not(e))
            guard = term if guard is None else C.Or(guard, term)
        expr = C.Compare("==", C.Count(guard), C.IntConst(0))
        size += 4 + max(len(parts) - 1, 0)
        left = passed & ~labels                       # rejected words every letter passed
        if left.any():
            chosen = []
            cands = [(e, v[out], sz) for e, v, sz in bools if v[out][labels].all()]
            while left.any() and len(chosen) < PREFIX_FINAL_TERMS:
                gain = [int((~vo[left]).sum()) for _e, vo, _s in cands]
                if not gain or max(gain) == 0:
                    return None, 0
                k = int(np.argmax(gain))   # the first (smallest) of the best
                chosen.append(cands[k])
                left &= cands[k][1]
            if left.any():
                return None, 0
            for e, _vo, sz in chosen:
                expr = C.And(expr, e)
                size += sz + 1
        return expr, size

    @staticmethod
    def thresholds(e, v) -> Iterator:
        """Comparisons of a term with a constant, one spelling per distinct test on the
        integers (x <= 0 is x < 1; x < 0 and 0 <= x only where x can be negative)."""
        signed = any(isinstance(x, C.Sub) for x in e.walk())
        for c in CONSTANTS:
            k = C.IntConst(c)
            if c or signed:
                yield "bool", C.Compare("<", e, k), v < c
            yield "bool", C.Compare("<", k, e), v > c
            yield "bool", C.Compare("==", e, k), v == c
            yield "bool", C.Compare("!=", e, k), v != c
        top = C.IntConst(CONSTANTS[-1])
        yield "bool", C.Compare("<=", e, top), v <= CONSTANTS[-1]
        if signed:
            yield "bool", C.Compare("<=", C.IntConst(0), e), v >= 0

    def program(self, expr) -> C.Program:
        return C.Program((C.Assign("out", expr),), alphabet=self.alphabet)


def _b_and(x, y):
    return ("and", x, y)


def _b_or(x, y):
    return ("or", x, y)


class BRASPEnumerator(Enumerator):
    """Expressions as tuples (``("att", direction, mask, score, value, default)``, ...),
    turned into a program by :meth:`program`: one statement per distinct attention."""

    language, eos = "B-RASP", False
    and_or = (_b_and, _b_or)

    def level(self, size: int) -> Iterator:
        flat = self.flat
        if size == 1:
            for a, v in self.tokens:
                yield "bool", ("tok", a), v
            yield "bool", ("true",), np.ones(flat.size, dtype=bool)
            return
        for e, v in self.banks["bool"][size - 1]:
            yield "bool", ("not", e), ~v
        bank = self.banks["bool"]
        for s1 in range(1, size - 2):  # score, value, and one node each for op and default
            for score, sv in bank.get(s1, ()):
                sel = flat.selections(sv)
                for value, vv in bank.get(size - 2 - s1, ()):
                    for direction, mask, j, exists in sel:
                        got = vv[np.minimum(j, flat.size - 1)] & exists
                        yield "bool", ("att", direction, mask, score, value, False), got
                        yield "bool", ("att", direction, mask, score, value, True), got | ~exists
        yield from self.boolean(size, (_b_and, _b_or))

    def program(self, expr) -> B.Program:
        stmts: list = []
        names: dict = {}

        def text(node, at):
            kind = node[0]
            if kind == "tok":
                return B.Tok(node[1], at)
            if kind == "true":
                return B.Const(True)
            if kind == "not":
                return B.Not(text(node[1], at))
            if kind in ("and", "or"):
                cls = B.And if kind == "and" else B.Or
                return cls((text(node[1], at), text(node[2], at)))
            return B.Ref(statement(node), at)

        def statement(node):
            if node not in names:
                score, value = text(node[3], "j"), text(node[4], "j")
                names[node] = f"a{len(stmts) + 1}"
                stmts.append(B.Attend(names[node], node[1], node[2], score, value,
                                      B.Const(node[5])))
            return names[node]

        if expr[0] == "att":
            statement(expr)
        else:
            stmts.append(B.Assign("out", text(expr, "i")))
        return B.Program(tuple(stmts), alphabet=self.alphabet)


# ---- verification and the search -----------------------------------------------------------
def answers(language: str, program, inst, x: np.ndarray) -> np.ndarray:
    """The real interpreter's accept/reject (bool) on token-id rows of an instance."""
    if language == "C-RASP":
        alpha = _alphabet(inst)
        return Interpreter(program.with_alphabet(alpha), alpha).accepts(x, inst.vocab)
    return program_answers(program, inst, x) == "1"


def verify(language: str, program, task):
    """(N: every input of every n <= N agrees, the sampled n that agree, None or the first
    failing inputs and their labels). An n <= VERIFY_N whose space is too large to
    enumerate is sampled, as are n = 32 and 64 (or the next n where the family is defined)."""
    top, exhaustive, sampled = 0, True, []
    rng = np.random.default_rng(0)
    for n in list(range(1, VERIFY_N + 1)) + list(SAMPLED_NS):
        inst = instance(task, n) or (instance(task, n + 1) if n > VERIFY_N else None)
        if inst is None:
            continue
        sample = n > VERIFY_N or inst.decision_view()[0].space_size() > VERIFY_SPACE
        exhaustive &= not sample
        try:
            x, y = _labelled(inst, rng if sample else None)
        except TaskParameterError:
            if not sample:
                raise
            continue  # a sampler that cannot draw at this n (too rare a label): not sampled
        bad = np.flatnonzero(answers(language, program, inst, x) != y)[:ADDED]
        if len(bad):
            return top, tuple(sampled), (list(x[bad]), y[bad])
        if sample:
            sampled.append(inst.n)
        elif exhaustive:
            top = inst.n
    return top, tuple(sampled), None


def search(task, language: str, budget: int = DEFAULT_BUDGET) -> SearchResult:
    """The smallest program of ``language`` ("C-RASP" or "B-RASP") that agrees with
    ``task``'s decision function on every example, checked further by :func:`verify`;
    a result without a program says why (no program within ``budget`` candidates)."""
    kind = {"C-RASP": CRASPEnumerator, "B-RASP": BRASPEnumerator}[language]
    got = examples(task)
    if isinstance(got, str):
        return SearchResult(language, None, 0, 0, 0, got)
    rows, labels, top = got
    if not kind.eos and any(len(r) == 0 for r in rows):
        keep = [i for i, r in enumerate(rows) if len(r)]
        rows, labels = [rows[i] for i in keep], labels[keep]
    used, alpha, limit = 0, _alphabet(task), budget
    for rounds in range(1, ROUNDS + 1):
        enum = kind(Flat(rows, kind.eos), labels, alpha, tuple(task.vocab))
        expr, size, spent, full = enum.run(limit - used)
        used += spent
        covered = expr is None
        if covered:
            expr, size = enum.cover()
            if expr is None:
                failed = SearchResult(
                    language, None, 0, 0, used,
                    f"no {language} program of size <= {full} in the searched grammar "
                    f"agrees with the task on every input up to n = {top}, nor an AND or OR "
                    f"of at most {COVER_TERMS} of its expressions (searched {used:,} "
                    f"candidates, the budget {limit:,})", rounds=rounds)
                return _prefix_stage(task, kind, rows, labels, top, failed)
        program = enum.program(expr)
        checked, sampled, bad = verify(language, program, task)
        if bad is None:
            return SearchResult(language, program, size, checked, used, "", sampled, rounds)
        rows, labels = rows + bad[0], np.concatenate([labels, bad[1]])
        if covered and limit == budget:
            # a cover that over-generalized: once, the enumeration goes on with its
            # counterexamples and COVER_EXTRA budgets more, deeper than the first round
            limit = budget * (1 + COVER_EXTRA)
        elif used >= limit:
            break
    failed = SearchResult(
        language, None, 0, 0, used,
        f"{rounds} program(s) agreed with the examples and failed a longer input (the "
        f"last: {' | '.join(text(program).strip().splitlines())}); the search stopped there "
        f"({used:,} candidates of {limit:,}, at most {ROUNDS} rounds)", rounds=rounds)
    return _prefix_stage(task, kind, rows, labels, top, failed)


def _prefix_stage(task, kind, rows, labels, top: int, failed: SearchResult) -> SearchResult:
    """The last stage of a C-RASP search that found nothing: where one class is rare in the
    examples (at most RARE words), the examples get that class's words at longer lengths
    and their one-letter changes (:func:`_rare_examples`), and a prefix program
    (:meth:`CRASPEnumerator.prefix_program`) is built from a fresh enumeration's banks and
    checked like any match; a failure adds its counterexamples, at most PREFIX_ROUNDS
    times and within the search's ROUNDS, each round one more budget of candidates. Where no class is rare nothing runs
    (the shipped rows' searches are unchanged). ``failed`` is returned when it finds
    nothing, its reason extended."""
    if kind is not CRASPEnumerator:
        return failed
    extra = _rare_examples(task, top, labels)
    if extra is None:
        return failed
    rows, labels = rows + extra[0], np.concatenate([labels, extra[1]])
    used, alpha = failed.candidates, _alphabet(task)
    why = "no prefix program"
    for extra_round in range(1, min(PREFIX_ROUNDS, ROUNDS - failed.rounds) + 1):
        enum = kind(Flat(rows, kind.eos), labels, alpha, tuple(task.vocab))
        expr, size, spent, _full = enum.run(DEFAULT_BUDGET)
        used += spent
        if expr is None:
            expr, size = enum.prefix_program()
        if expr is None:
            break
        program = enum.program(expr)
        checked, sampled, bad = verify("C-RASP", program, task)
        rounds = failed.rounds + extra_round
        if bad is None:
            return SearchResult("C-RASP", program, size, checked, used, "", sampled, rounds)
        why = (f"the prefix program {' | '.join(text(program).strip().splitlines())} failed "
               f"a longer input")
        rows, labels = rows + bad[0], np.concatenate([labels, bad[1]])
    return SearchResult(failed.language, None, 0, 0, used,
                        f"{failed.reason}; with the rare class's words at longer lengths: "
                        f"{why}", rounds=failed.rounds)


_CACHE: dict[tuple, SearchResult] = {}
_LOCK = threading.Lock()


def cached_search(task, language: str, budget: int = DEFAULT_BUDGET) -> SearchResult:
    """:func:`search`, once per task identity (family, parameters but n, definition
    digest: :func:`..tasks.digest.task_identity`), language and budget."""
    ident = task_identity(type(task), task.values)
    key = (language, budget, ident["family"], repr(sorted(ident["params"].items())),
           ident["digest"])
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = search(task, language, budget)
        with _LOCK:
            _CACHE[key] = hit
    return hit
