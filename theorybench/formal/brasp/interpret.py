"""The vectorized B-RASP interpreter: a batch of token sequences in, every vector out.

Semantics (Yang, Chiang & Angluin, NeurIPS 2024, arXiv 2310.13897, section 3): positions
are 1..n; ``Q_a(i) = [w_i = a]``; a position-wise statement applies its Boolean formula at
every i; an attention statement computes, for each i, J = {j : mask(i,j) and S(i,j)} with
mask j < i, j > i or none; if J is non-empty it takes j* = min J (leftmost) or max J
(rightmost) and the value V(i, j*), else the default D(i).  A word is accepted iff the
output vector is true at its last position n (the empty word is rejected).

B-RASP[pos] (our executable reading of the positional variant): score, value and
position-wise formulas may compare position terms built from i, j, n, integer constants,
+, -, %, / (floor division by a constant) and ``tokpos(x)``.  ``tokpos(x)`` is the integer spelled by the trailing digits of
the token at x (``"7"``, ``"q7"`` -> 7; 0 when there are none): it models a transformer
whose query-key product matches a token embedding with a position embedding, which is what
retrieval of "the bit at the position named by the query token" needs.  Yang et al.'s
positional results concern fixed alphabets and numerical predicates on positions only;
``tokpos`` is an extension for families whose alphabet names positions (index), and
predictions that rely on it say so.

Position arithmetic is exact: every term's bound is computed from the program, the
input length and the tokens before it is evaluated; a term whose bound exceeds int64
(a 20-digit constant, a token naming a huge position) runs on Python ints.

Every statement is computed for the whole batch at once: a score is a (batch, n, n)
Boolean array, leftmost/rightmost selection an argmax over its last axis.  Rows may have
different lengths (``lengths``); padding positions are never attended and are false.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..resources import check_memory
from ...errors import TaskInputError
from . import ast as A

_CMP = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal,
        ">": np.greater, ">=": np.greater_equal}
_DIGITS = re.compile(r"(\d+)$")
_INT64_MAX = (1 << 63) - 1


def token_position(token: str) -> int:
    """The position a token names (its trailing digits), 0 if none."""
    m = _DIGITS.search(token)
    return int(m.group(1)) if m else 0


@dataclass
class Trace:
    """Per-position values of every statement: ``values[name]`` is bool (batch, length)."""

    program: A.Program
    tokens: list[list[str]] | None
    ids: np.ndarray
    vocab: tuple[str, ...]
    lengths: np.ndarray
    values: dict[str, np.ndarray]

    @property
    def output(self) -> np.ndarray:
        return self.values[self.program.output_name]

    def at_last(self, name: str) -> np.ndarray:
        """Bool (batch,): vector ``name`` at each row's last position (False if empty)."""
        out = np.zeros(len(self.lengths), dtype=bool)
        has = self.lengths > 0
        rows = np.flatnonzero(has)
        out[has] = self.values[name][rows, self.lengths[has] - 1]
        return out

    def accept(self) -> np.ndarray:
        """Bool (batch,): the output at each row's last position (False for empty rows)."""
        return self.at_last(self.program.output_name)

    def classify(self) -> list[str]:
        """Per row: the label of a multi-valued program (``output "a": A, ..., else "x"``),
        or "1"/"0" for an accepting/rejecting single-output program."""
        if not self.program.multi:
            return ["1" if a else "0" for a in self.accept()]
        labels = np.full(len(self.lengths), self.program.otherwise, dtype=object)
        done = np.zeros(len(self.lengths), dtype=bool)
        for label, name in self.program.classes:
            hit = self.at_last(name) & ~done
            labels[hit] = label
            done |= hit
        return list(labels)


def encode(words: Sequence[Sequence[str]], program: A.Program | None = None,
           vocab: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Token strings -> (ids padded with -1, lengths, vocab).  With a declared alphabet,
    a token outside it raises :class:`TaskInputError` naming it."""
    alphabet = program.alphabet if program is not None else None
    voc = list(vocab) if vocab is not None else []
    index = {t: k for k, t in enumerate(voc)}
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    width = int(lengths.max()) if len(words) else 0
    ids = np.full((len(words), width), -1, dtype=np.int64)
    for r, w in enumerate(words):
        for c, tok in enumerate(w):
            if alphabet is not None and tok not in alphabet:
                raise TaskInputError(
                    f"input {r + 1}, token {c + 1}: {tok!r} is not in the program's alphabet "
                    f"({' '.join(alphabet)})")
            if tok not in index:
                index[tok] = len(voc)
                voc.append(tok)
            ids[r, c] = index[tok]
    return ids, lengths, tuple(voc)


class _Env:
    def __init__(self, ids: np.ndarray, vocab: Sequence[str], lengths: np.ndarray):
        self.ids, self.vocab, self.lengths = ids, tuple(vocab), lengths
        self.batch, self.length = ids.shape
        self.index = {t: k for k, t in enumerate(self.vocab)}
        self.values: dict[str, np.ndarray] = {}
        self.pos = np.arange(1, self.length + 1, dtype=np.int64)
        self.inside = self.pos[None, :] <= lengths[:, None]
        self._tokpos = None

    def tok(self, symbol: str) -> np.ndarray:
        k = self.index.get(symbol)
        if k is None:
            return np.zeros((self.batch, self.length), dtype=bool)
        return self.ids == k

    def tokpos(self) -> np.ndarray:
        if self._tokpos is None:
            named = [token_position(t) for t in self.vocab] + [0]
            table = np.array(named, dtype=np.int64 if max(named) <= _INT64_MAX else object)
            self._tokpos = table[self.ids]  # id -1 (padding) reads the trailing 0
        return self._tokpos

    # vectors at i or j, shaped for unary (B, L) or binary (B, L_i, L_j) evaluation
    def place(self, vec: np.ndarray, at: str, binary: bool) -> np.ndarray:
        if not binary:
            return vec
        return vec[:, :, None] if at == "i" else vec[:, None, :]

    def bound(self, t) -> int:
        """An upper bound on |t| over every position of this batch (exact Python ints)."""
        if isinstance(t, A.Int):
            return abs(t.value)
        if isinstance(t, A.Var):
            return self.length
        if isinstance(t, A.TokPos):
            return max((token_position(v) for v in self.vocab), default=0)
        if isinstance(t, A.Arith):
            return self.bound(t.left) + self.bound(t.right)
        if isinstance(t, A.Mod):
            return abs(t.modulus)
        if isinstance(t, A.Div):
            return self.bound(t.arg) // max(abs(t.divisor), 1) + abs(t.divisor)
        raise TypeError(f"not a position term: {t!r}")

    def term(self, t, binary: bool):
        """Position term ``t`` as int64 when its bound fits, else as Python ints."""
        if self.bound(t) <= _INT64_MAX:
            return self._term(t, binary, np.int64)
        return self._term(t, binary, object)

    def _term(self, t, binary: bool, dtype):
        big = dtype is object
        if isinstance(t, A.Int):
            return t.value if big else np.int64(t.value)
        if isinstance(t, A.Var):
            if t.name == "n":
                v = self.lengths[:, None, None] if binary else self.lengths[:, None]
            elif not binary:
                v = self.pos[None, :]
            else:
                v = self.pos[None, :, None] if t.name == "i" else self.pos[None, None, :]
            return v.astype(object) if big else v
        if isinstance(t, A.TokPos):
            v = self.place(self.tokpos(), t.at, binary)
            return v.astype(object) if big and v.dtype != object else v
        if isinstance(t, A.Arith):
            left, right = self._term(t.left, binary, dtype), self._term(t.right, binary, dtype)
            return left + right if t.op == "+" else left - right
        if isinstance(t, (A.Mod, A.Div)):
            # Python's % and // (numpy's on int64 arrays): np.mod and np.floor_divide raise
            # OverflowError on a Python int past int64, e.g. 2**64 / 2
            arg = self._term(t.arg, binary, object) if big else self.term(t.arg, binary)
            out = arg % t.modulus if isinstance(t, A.Mod) else arg // t.divisor
            if not big and np.asarray(out).dtype == object:
                out = np.asarray(out, dtype=np.int64)  # it fits: the bound of t did
            return out
        raise TypeError(f"not a position term: {t!r}")

    def expr(self, e, binary: bool):
        if isinstance(e, A.Const):
            return np.bool_(e.value)
        if isinstance(e, A.Tok):
            return self.place(self.tok(e.symbol), e.at, binary)
        if isinstance(e, A.Ref):
            return self.place(self.values[e.name], e.at, binary)
        if isinstance(e, A.Not):
            return np.logical_not(self.expr(e.arg, binary))
        if isinstance(e, A.And):
            out = self.expr(e.args[0], binary)
            for a in e.args[1:]:
                out = np.logical_and(out, self.expr(a, binary))
            return out
        if isinstance(e, A.Or):
            out = self.expr(e.args[0], binary)
            for a in e.args[1:]:
                out = np.logical_or(out, self.expr(a, binary))
            return out
        if isinstance(e, A.PosCmp):
            out = _CMP[e.op](self.term(e.left, binary), self.term(e.right, binary))
            return np.asarray(out).astype(bool, copy=False)
        raise TypeError(f"not an expression: {e!r}")

    def unary(self, e) -> np.ndarray:
        return np.broadcast_to(self.expr(e, False), (self.batch, self.length)) & self.inside

    def attend(self, s: A.Attend) -> np.ndarray:
        shape = (self.batch, self.length, self.length)
        allowed = np.broadcast_to(self.expr(s.score, True), shape) & self.inside[:, None, :]
        if s.mask == "<":
            allowed = allowed & (self.pos[None, None, :] < self.pos[None, :, None])
        elif s.mask == ">":
            allowed = allowed & (self.pos[None, None, :] > self.pos[None, :, None])
        exists = allowed.any(axis=2)
        if s.direction == "leftmost":
            pick = allowed.argmax(axis=2)
        else:
            pick = self.length - 1 - allowed[:, :, ::-1].argmax(axis=2)
        value = np.broadcast_to(self.expr(s.value, True), shape)
        chosen = np.take_along_axis(value, pick[:, :, None], axis=2)[:, :, 0]
        return np.where(exists, chosen, self.unary(s.default)) & self.inside


def run_bytes(batch: int, length: int) -> int:
    """Peak memory of a run: a few (batch, length, length) arrays per attention operation,
    one of them int64 when positions are compared."""
    return 24 * int(batch) * int(length) * int(length)


def run(program: A.Program, tokens, vocab: Sequence[str] | None = None,
        lengths: np.ndarray | None = None) -> Trace:
    """Run ``program`` on a batch.

    ``tokens`` is either a list of token-string sequences (any lengths) or an int array
    (batch, length) of ids into ``vocab`` (then ``lengths`` optionally gives each row's
    real length; ids at or past it are ignored).
    """
    words = None
    if isinstance(tokens, np.ndarray) and tokens.dtype.kind in "iu":
        if vocab is None:
            raise TypeError("an int token array needs its vocab")
        ids = np.asarray(tokens, dtype=np.int64)
        if ids.ndim != 2:
            raise TaskInputError("token ids must be a 2-d array (batch, length)")
        lengths = (np.full(ids.shape[0], ids.shape[1], dtype=np.int64) if lengths is None
                   else np.asarray(lengths, dtype=np.int64))
        vocab = tuple(vocab)
        if program.alphabet is not None and ids.size:
            inside = np.arange(ids.shape[1])[None, :] < lengths[:, None]
            used = np.unique(ids[inside])
            for k in used:
                if vocab[int(k)] not in program.alphabet:
                    r, c = np.argwhere((ids == k) & inside)[0]
                    raise TaskInputError(
                        f"input {r + 1}, token {c + 1}: {vocab[int(k)]!r} is not in the "
                        f"program's alphabet ({' '.join(program.alphabet)})")
    else:
        words = [list(w) for w in tokens]
        ids, lengths, vocab = encode(words, program, vocab)
    check_memory(run_bytes(*ids.shape),
                 f"a B-RASP run on {ids.shape[0]:,} input(s) of length {ids.shape[1]:,} "
                 f"(attention is a batch x length x length array)",
                 "use shorter inputs or fewer at once")
    env = _Env(ids, vocab, lengths)
    if ids.shape[1] == 0:  # no position at all: every vector is empty (and rejects)
        values = {s.name: np.zeros((ids.shape[0], 0), dtype=bool) for s in program.stmts}
        return Trace(program, words, ids, tuple(vocab), lengths, values)
    for s in program.stmts:
        env.values[s.name] = env.unary(s.expr) if isinstance(s, A.Assign) else env.attend(s)
    return Trace(program, words, ids, tuple(vocab), lengths, env.values)


def accept(program: A.Program, tokens, vocab: Sequence[str] | None = None,
           lengths: np.ndarray | None = None) -> np.ndarray:
    """Bool (batch,): acceptance (output true at the last position) of each row."""
    return run(program, tokens, vocab, lengths).accept()
