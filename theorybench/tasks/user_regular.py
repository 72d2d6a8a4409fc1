"""Regular task files: a ``REGEX`` or a ``DFA`` over the file's ALPHABET, as a complete
automaton table (numpy), with exact label-balanced sampling.

The regex syntax is the usual one restricted to single-character tokens: letters of the
alphabet, ``.``, ``[abc]`` / ``[^abc]``, grouping, ``|``, ``*``, ``+``, ``?``. It is parsed
here (not by :mod:`re`) so that the automaton is exact and a symbol outside the alphabet
is reported at its column; :mod:`re` stays the task's independent oracle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np


class RegularError(ValueError):
    """A REGEX or DFA that is not usable; ``where`` is a column (regex) or None."""

    def __init__(self, message: str, where: int | None = None):
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class Table:
    """A complete DFA: ``delta[q, a]`` for letter index ``a``, ``accept[q]`` 0/1."""

    delta: np.ndarray
    accept: np.ndarray
    start: int = 0

    def run(self, x: np.ndarray) -> np.ndarray:
        """Labels (count,) of rows of letter indices: one vectorized step per position."""
        state = np.full(x.shape[0], self.start, dtype=np.int64)
        for col in range(x.shape[1]):
            state = self.delta[state, x[:, col]]
        return self.accept[state].astype(np.int64)

    def accept_probability(self, n: int) -> np.ndarray:
        """``p[r, q]``: the share of the words of length r accepted from state q, r <= n
        (shares, not counts, so that long words over big alphabets do not overflow)."""
        p = np.empty((n + 1, self.delta.shape[0]))
        p[0] = self.accept
        for r in range(1, n + 1):
            p[r] = p[r - 1][self.delta].mean(axis=1)
        return p

    def sample(self, rng: np.random.Generator, labels: np.ndarray, n: int) -> np.ndarray:
        """Rows of length n drawn uniformly among the words of each row's label class
        (letter by letter, each letter weighted by the share of completions in the class)."""
        p = self.accept_probability(n)
        want = np.asarray(labels, dtype=np.int64)
        state = np.full(len(want), self.start, dtype=np.int64)
        x = np.empty((len(want), n), dtype=np.int64)
        for i in range(n):
            share = p[n - i - 1][self.delta[state]]          # (count, letters)
            w = np.where(want[:, None] == 1, share, 1.0 - share)
            w = w / w.sum(axis=1, keepdims=True)
            pick = (rng.random(len(want))[:, None] > np.cumsum(w, axis=1)).sum(axis=1)
            x[:, i] = np.minimum(pick, w.shape[1] - 1)
            state = self.delta[state, x[:, i]]
        return x


# ---- the DFA dict -----------------------------------------------------------------------

def from_dict(dfa: Any, alphabet: Sequence[str]) -> Table:
    """``{"start": q0, "accept": [...], "delta": {q: {symbol: q'}}}`` -> :class:`Table`."""
    try:
        return _from_dict(dfa, alphabet)
    except TypeError as exc:  # a state that cannot be a dict key (a list, a dict)
        raise RegularError(f"DFA states must be hashable values such as ints or strings "
                           f"({exc}); name each state by an int or a string") from None


def _from_dict(dfa: Any, alphabet: Sequence[str]) -> Table:
    if not isinstance(dfa, dict) or not {"start", "accept", "delta"} <= set(dfa):
        raise RegularError('DFA must be a dict with keys "start", "accept" and "delta", e.g. '
                           '{"start": 0, "accept": [1], "delta": {0: {"a": 1, ...}, ...}}')
    delta = dfa["delta"]
    if not isinstance(delta, dict) or not delta:
        raise RegularError('DFA["delta"] must be a non-empty dict state -> {symbol: state}')
    states = list(delta)
    index = {q: i for i, q in enumerate(states)}
    table = np.empty((len(states), len(alphabet)), dtype=np.int64)
    for q, row in delta.items():
        if not isinstance(row, dict):
            raise RegularError(f"DFA['delta'][{q!r}] must be a dict symbol -> state")
        extra = [s for s in row if s not in alphabet]
        if extra:
            raise RegularError(f"DFA['delta'][{q!r}] has symbol {extra[0]!r}, which is not in "
                               f"ALPHABET {tuple(alphabet)}; use the alphabet's tokens")
        for a, sym in enumerate(alphabet):
            if sym not in row:
                raise RegularError(f"DFA has no transition from state {q!r} on {sym!r}; add "
                                   f"DFA['delta'][{q!r}][{sym!r}] = <state> (every state "
                                   f"needs one per symbol; a dead state may loop on itself)")
            if row[sym] not in index:
                raise RegularError(f"DFA['delta'][{q!r}][{sym!r}] = {row[sym]!r} is not a "
                                   f"state; the states are the keys of DFA['delta']: "
                                   f"{', '.join(map(repr, states))}")
            table[index[q], a] = index[row[sym]]
    if dfa["start"] not in index:
        raise RegularError(f"DFA start state {dfa['start']!r} is not a key of DFA['delta']")
    if not isinstance(dfa["accept"], (list, tuple, set, frozenset)):
        raise RegularError(f"DFA['accept'] must be a list of states, e.g. [1], not "
                           f"{dfa['accept']!r}")
    accept = np.zeros(len(states), dtype=np.int64)
    for q in dfa["accept"]:
        if q not in index:
            raise RegularError(f"DFA accepting state {q!r} is not a key of DFA['delta']")
        accept[index[q]] = 1
    return Table(table, accept, index[dfa["start"]])


# ---- the regex ----------------------------------------------------------------------------

class _Parser:
    """Recursive descent to an epsilon-NFA (Thompson): ``edges[q]`` holds (letter set or
    None for epsilon, target)."""

    def __init__(self, text: str, alphabet: Sequence[str]):
        self.text, self.alphabet, self.i = text, tuple(alphabet), 0
        self.edges: list[list[tuple[frozenset | None, int]]] = []

    def state(self) -> int:
        self.edges.append([])
        return len(self.edges) - 1

    def peek(self) -> str | None:
        return self.text[self.i] if self.i < len(self.text) else None

    def fail(self, msg: str, at: int | None = None) -> RegularError:
        return RegularError(msg, self.i if at is None else at)

    def letter(self, ch: str, at: int) -> frozenset:
        if ch not in self.alphabet:
            raise self.fail(f"symbol {ch!r} is not in ALPHABET {self.alphabet}", at)
        return frozenset([self.alphabet.index(ch)])

    def alt(self) -> tuple[int, int]:
        s, e = self.state(), self.state()
        while True:
            a, b = self.concat()
            self.edges[s].append((None, a))
            self.edges[b].append((None, e))
            if self.peek() != "|":
                return s, e
            self.i += 1

    def concat(self) -> tuple[int, int]:
        s = cur = self.state()
        while self.peek() not in (None, "|", ")"):
            a, b = self.repeat()
            self.edges[cur].append((None, a))
            cur = b
        return s, cur

    def repeat(self) -> tuple[int, int]:
        a, b = self.atom()
        while self.peek() in ("*", "+", "?", "{"):
            op = self.peek()
            if op == "{":
                raise self.fail("counted repetition {m,n} is not supported; write the "
                                "copies out (aa? for a{1,2})")
            self.i += 1
            if self.peek() in ("*", "+", "?"):  # re: lazy (*?), possessive (*+), error (**)
                raise self.fail(f"{self.peek()!r} right after {op!r}: a repetition of a "
                                f"repetition needs parentheses, e.g. (a{op}){self.peek()}")
            s, e = self.state(), self.state()
            self.edges[s].append((None, a))
            self.edges[b].append((None, e))
            if op in ("*", "?"):
                self.edges[s].append((None, e))
            if op in ("*", "+"):
                self.edges[b].append((None, a))
            a, b = s, e
        return a, b

    def atom(self) -> tuple[int, int]:
        at, ch = self.i, self.peek()
        if ch in ("*", "+", "?", "{"):
            raise self.fail(f"{ch!r} has nothing to repeat; put a symbol or a group before it")
        self.i += 1
        if ch == "(":
            if self.peek() == "?":
                raise self.fail("(?...) groups are not supported; use plain parentheses")
            s, e = self.alt()
            if self.peek() != ")":
                raise self.fail("missing ')' to close the group opened", at)
            self.i += 1
            return s, e
        if ch == ")":
            raise self.fail("unbalanced ')'; remove it or open a group before it", at)
        if ch == "[":
            letters = self.char_class(at)
        elif ch == ".":
            letters = frozenset(range(len(self.alphabet)))
        elif ch in ("^", "$"):
            raise self.fail(f"{ch!r}: REGEX always matches the whole input; drop the anchor", at)
        elif ch == "\\":
            if self.peek() is None:
                raise self.fail("a trailing backslash escapes nothing", at)
            ch = self.escaped(at)
            letters = self.letter(ch, at)
        else:
            letters = self.letter(ch, at)
        s, e = self.state(), self.state()
        self.edges[s].append((letters, e))
        return s, e

    def escaped(self, at: int) -> str:
        """The character after a backslash at ``at``: punctuation only (``\\b``, ``\\d``,
        ``\\1`` mean something else to :mod:`re`, the task's oracle)."""
        ch = self.text[self.i]
        if ch.isalnum() or ch == "_":
            raise self.fail(f"\\{ch} is a special sequence in Python's re (the task's "
                            f"oracle); write {ch} without the backslash (escape only "
                            "punctuation such as \\* or \\.)", at)
        self.i += 1
        return ch

    def char_class(self, at: int) -> frozenset:
        negate = self.peek() == "^"
        self.i += negate
        first = self.i
        if self.peek() == "]":
            raise self.fail(f"an empty class [{'^' if negate else ''}] is not supported (re "
                            "reads a ']' there as a member); list its symbols, e.g. [ab]", at)
        out: set[int] = set()
        while self.peek() != "]":
            if self.peek() is None:
                raise self.fail("missing ']' to close the class opened", at)
            pos, ch = self.i, self.text[self.i]
            self.i += 1
            if ch == "\\" and self.peek() is not None:
                pos, ch = self.i, self.escaped(self.i - 1)
            elif ch == "-" and pos != first and self.peek() != "]":
                raise self.fail("ranges such as [a-c] are not supported; list the symbols, "
                                "e.g. [abc] (a '-' first or last in a class is the symbol -)",
                                pos)
            out |= self.letter(ch, pos)
        self.i += 1
        return frozenset(range(len(self.alphabet))) - out if negate else frozenset(out)


def from_regex(text: Any, alphabet: Sequence[str]) -> Table:
    """The minimal-enough complete DFA (subset construction) of ``text`` matched in full."""
    if not isinstance(text, str):
        raise RegularError(f"REGEX must be a string, not {type(text).__name__}")
    if any(len(t) != 1 for t in alphabet):
        raise RegularError("a REGEX needs single-character tokens in ALPHABET; with longer "
                           "tokens give label(x) or a DFA instead")
    p = _Parser(text, alphabet)
    start, end = p.alt()
    if p.i < len(text):  # only a stray ')' stops the top level early
        raise p.fail("unbalanced ')'; remove it or open a group before it")
    try:  # the task's oracle: a pattern it cannot read is no task
        re.compile(text)
    except re.error as exc:
        raise RegularError(f"Python's re (the task's independent oracle) cannot read the "
                           f"pattern: {exc.msg}", exc.pos) from None

    def closure(states: frozenset) -> frozenset:
        out, todo = set(states), list(states)
        while todo:
            for letters, t in p.edges[todo.pop()]:
                if letters is None and t not in out:
                    out.add(t)
                    todo.append(t)
        return frozenset(out)

    first = closure(frozenset([start]))
    index, order, rows = {first: 0}, [first], []
    while len(rows) < len(order):
        cur = order[len(rows)]
        row = []
        for a in range(len(alphabet)):
            nxt = closure(frozenset(t for q in cur for letters, t in p.edges[q]
                                    if letters is not None and a in letters))
            if nxt not in index:
                index[nxt] = len(order)
                order.append(nxt)
            row.append(index[nxt])
        rows.append(row)
    accept = np.array([int(end in s) for s in order], dtype=np.int64)
    return Table(np.array(rows, dtype=np.int64).reshape(len(order), len(alphabet)), accept, 0)


__all__ = ["Table", "RegularError", "from_dict", "from_regex"]
