"""Vectorized C-RASP interpreter: a batch of token sequences in, the value of every
definition at every position out.

Semantics (Yang & Chiang, COLM 2024, Sec. 3; Huang et al., ICLR 2025, Def. 8):
positions are 1..n; a token test "a" is true at i iff w_i = a; ``#[psi] phi`` at i is
the number of j <= i with psi(i, j) and phi(j) (without a guard: all j <= i), computed
for the whole batch as a cumulative sum along the position axis; arithmetic and
comparisons are pointwise on integers.

Acceptance (docs/theories.md §0; Yang, Veseli et al., App. F, Remark 42): by default an
end marker is appended - the program runs on w EOS and accepts iff the output is true
at the EOS position n + 1 (the literal "<eos>" tests for it; every other token test is
false there). ``accept="last"`` reads the output at position n instead (as the public
interpreter does; it rejects the empty input).

Inputs of different lengths are padded; padding is never seen by earlier positions
(every operation looks only at j <= i), so each row's values up to its EOS are exact.

Integers are exact: before a run, :func:`int_bound` bounds every count expression from
the program and the number of positions (a count is at most T, a constant multiple k*x
at most k times x's bound, ...). Expressions whose bound fits int64 run in int64 (the
common, fast path); the others run on Python ints (object arrays), so a large constant
or nested scaling never wraps around.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import TaskInputError, TheorybenchError
from . import ast as A
from .predicates import BinaryPredicate
from .validate import Checked, check

ACCEPT_MODES = ("eos", "last")
INT64_MAX = (1 << 63) - 1


def int_bound(e: A.Expr, positions: int, defs: dict[str, A.Expr],
              memo: dict | None = None) -> int:
    """An upper bound on |value| of count expression ``e`` at any of ``positions``
    positions (Boolean expressions: 1); exact Python arithmetic, no evaluation."""
    memo = {} if memo is None else memo
    hit = memo.get(e)
    if hit is not None:
        return hit
    if isinstance(e, A.IntConst):
        out = e.value
    elif isinstance(e, A.Count):
        out = positions
    elif isinstance(e, A.Ref) and e.name in defs:
        out = int_bound(defs[e.name], positions, defs, memo)
    elif isinstance(e, (A.Add, A.Sub)):
        out = (int_bound(e.left, positions, defs, memo)
               + int_bound(e.right, positions, defs, memo))
    elif isinstance(e, A.Scale):
        out = e.factor * int_bound(e.arg, positions, defs, memo)
    elif isinstance(e, (A.Min, A.Max)):
        out = max(int_bound(e.left, positions, defs, memo),
                  int_bound(e.right, positions, defs, memo))
    elif isinstance(e, A.Cond):
        out = max(int_bound(e.then, positions, defs, memo),
                  int_bound(e.otherwise, positions, defs, memo))
    else:
        out = 1
    memo[e] = out
    return out


@dataclass
class Run:
    """The values of one batch: ``values[name]`` is (B, T) bool or int64, T = max length
    (+1 for the EOS column in ``eos`` mode); ``accept`` is (B,) bool."""

    checked: Checked
    values: dict[str, np.ndarray]
    accept: np.ndarray
    lengths: np.ndarray
    ext: np.ndarray                # token ids as run (EOS id = len(vocab), -1 = padding)
    vocab: tuple[str, ...]
    mode: str
    origin: int = 1                # number of the first position (see Interpreter)

    def symbols(self, row: int) -> list[str]:
        """Row ``row``'s tokens as strings, with "<eos>" in eos mode."""
        width = int(self.lengths[row]) + (1 if self.mode == "eos" else 0)
        return [self.vocab[t] if 0 <= t < len(self.vocab) else A.EOS
                for t in self.ext[row, :width].tolist()]

    @property
    def program(self) -> A.Program:
        return self.checked.program

    def row_values(self, row: int) -> dict[str, np.ndarray]:
        width = int(self.lengths[row]) + (1 if self.mode == "eos" else 0)
        return {k: v[row, :width] for k, v in self.values.items()}


class Interpreter:
    """A checked program ready to run. ``alphabet`` (optional) is the input alphabet:
    the program's own ``// alphabet:`` declaration wins, then this argument, then the
    token literals of the program. ``origin`` is the number of the first position as
    unary predicates (``pos_even``, ``mod_P_R``, ``first``) see it: 1 as in Huang et al.
    (default), 0 as in the public interpreter (so its ``.cr`` files give its answers).
    Guards (``prev``, ``predK``) depend only on i - j and are the same either way."""

    def __init__(self, program: A.Program, alphabet: Sequence[str] | None = None,
                 origin: int = 1):
        if origin not in (0, 1):
            raise TheorybenchError(f"origin={origin!r}: positions start at 1 (Huang et al.) "
                                   f"or 0 (the public interpreter)")
        self.checked = check(program, alphabet)
        self.program = program
        self.origin = origin
        if program.alphabet is not None:
            self.alphabet = tuple(program.alphabet)
        elif alphabet is not None:
            self.alphabet = tuple(alphabet)
        else:
            self.alphabet = tuple(program.tokens())

    # ---- inputs -------------------------------------------------------------------
    def encode(self, inputs: Sequence[Sequence[str] | str]) -> tuple[np.ndarray, np.ndarray]:
        """Strings (space-separated) or token lists -> (ids (B, L) padded with -1, lengths),
        ids indexing ``self.alphabet``; a token outside the alphabet raises TaskInputError."""
        index = {t: i for i, t in enumerate(self.alphabet)}
        rows = [r.split() if isinstance(r, str) else list(r) for r in inputs]
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        ids = np.full((len(rows), int(lengths.max(initial=0))), -1, dtype=np.int64)
        for b, r in enumerate(rows):
            for j, t in enumerate(r):
                if t not in index:
                    shown = " ".join(self.alphabet)
                    raise TaskInputError(
                        f"input {b + 1}, token {j + 1}: {t!r} is not in the program's "
                        f"alphabet {{{shown}}}; declare the alphabet with a line "
                        f"`// alphabet: ...` in the program or pass --alphabet")
                ids[b, j] = index[t]
        return ids, lengths

    def run_strings(self, inputs: Sequence[Sequence[str] | str], accept: str = "eos") -> Run:
        ids, lengths = self.encode(inputs)
        return self.run(ids, self.alphabet, lengths, accept)

    # ---- evaluation ---------------------------------------------------------------
    def run(self, tokens: np.ndarray, vocab: Sequence[str], lengths: np.ndarray | None = None,
            accept: str = "eos") -> Run:
        """Run on token ids ``tokens`` (B, L) indexing ``vocab``; ``lengths`` (B,) gives
        each row's real length (default L; ids past it are ignored)."""
        if accept not in ACCEPT_MODES:
            raise TheorybenchError(f"accept mode {accept!r} is not one of {ACCEPT_MODES}")
        tokens = np.asarray(tokens, dtype=np.int64)
        if tokens.ndim != 2:
            raise TaskInputError(f"tokens must be a 2-D batch, got shape {tokens.shape}")
        B, L = tokens.shape
        lengths = (np.full(B, L, dtype=np.int64) if lengths is None
                   else np.asarray(lengths, dtype=np.int64))
        if accept == "last" and np.any(lengths == 0):
            raise TaskInputError("an empty input has no last position; read the output at "
                                 "the end marker instead (accept='eos', --accept eos)")
        eos_id = len(vocab)
        T = L + 1 if accept == "eos" else L
        ext = np.full((B, T), -1, dtype=np.int64)
        ext[:, :L] = tokens
        col = np.arange(T)[None, :]
        ext[col >= lengths[:, None]] = -1
        if accept == "eos":
            ext[col == lengths[:, None]] = eos_id
        env = _Env(ext, {s: i for i, s in enumerate(vocab)}, eos_id, self.checked, self.origin)
        for name in self.checked.order:
            env.defs[name] = env.eval(self.program.definition(name))
        out = env.defs[self.program.output]
        at = lengths if accept == "eos" else lengths - 1
        acc = out[np.arange(B), at].astype(bool) if B else np.zeros(0, dtype=bool)
        return Run(self.checked, dict(env.defs), acc, lengths, ext, tuple(vocab), accept,
                   self.origin)

    def accepts(self, tokens: np.ndarray, vocab: Sequence[str], lengths=None,
                accept: str = "eos") -> np.ndarray:
        return self.run(tokens, vocab, lengths, accept).accept


class _Env:
    def __init__(self, ext: np.ndarray, index: dict[str, int], eos_id: int, checked: Checked,
                 origin: int = 1):
        self.ext, self.index, self.eos_id, self.checked = ext, index, eos_id, checked
        self.defs: dict[str, np.ndarray] = {}
        self.memo: dict[A.Expr, np.ndarray] = {}
        self.positions = np.arange(origin, ext.shape[1] + origin, dtype=np.int64)[None, :]
        self.bounds: dict = {}
        self.defs_ast = {n: checked.program.definition(n) for n in checked.order}

    def big(self, e: A.Expr) -> bool:
        """Does ``e`` need Python ints (its bound exceeds int64)?"""
        return int_bound(e, self.ext.shape[1], self.defs_ast, self.bounds) > INT64_MAX

    def ints(self, e: A.Expr, exact: bool) -> np.ndarray:
        """``e``'s values, as Python ints when the expression using them needs them."""
        v = self.eval(e)
        return v.astype(object) if exact and v.dtype != object else v

    def eval(self, e: A.Expr) -> np.ndarray:
        hit = self.memo.get(e)
        if hit is None:
            hit = self._eval(e)
            self.memo[e] = hit
        return hit

    def _eval(self, e: A.Expr) -> np.ndarray:
        shape = self.ext.shape
        if isinstance(e, A.Token):
            if e.symbol == A.EOS:
                return self.ext == self.eos_id
            tid = self.index.get(e.symbol)
            return self.ext == tid if tid is not None else np.zeros(shape, dtype=bool)
        if isinstance(e, A.BoolConst):
            return np.full(shape, e.value, dtype=bool)
        if isinstance(e, A.IntConst):
            return np.full(shape, e.value, dtype=object if e.value > INT64_MAX else np.int64)
        if isinstance(e, A.Ref):
            if e.name in self.defs:
                return self.defs[e.name]
            pred = self.checked.predicates[e.name]
            return np.broadcast_to(pred(self.positions), shape)
        if isinstance(e, A.Not):
            return ~self.eval(e.arg)
        if isinstance(e, A.And):
            return self.eval(e.left) & self.eval(e.right)
        if isinstance(e, A.Or):
            return self.eval(e.left) | self.eval(e.right)
        if isinstance(e, A.Compare):
            a, b = self.eval(e.left), self.eval(e.right)
            out = {"==": np.equal, "!=": np.not_equal, "<": np.less, ">": np.greater,
                   "<=": np.less_equal, ">=": np.greater_equal}[e.op](a, b)
            return out.astype(bool, copy=False)
        if isinstance(e, A.Count):
            body = self.eval(e.body)
            if e.guard is None:
                return np.cumsum(body, axis=1, dtype=np.int64)
            pred = self.checked.predicates[e.guard]
            assert isinstance(pred, BinaryPredicate)
            return pred.guarded_count(body)
        exact = self.big(e)
        if isinstance(e, A.Add):
            return self.ints(e.left, exact) + self.ints(e.right, exact)
        if isinstance(e, A.Sub):
            return self.ints(e.left, exact) - self.ints(e.right, exact)
        if isinstance(e, A.Scale):
            exact = exact or e.factor > INT64_MAX
            return (e.factor if exact else np.int64(e.factor)) * self.ints(e.arg, exact)
        if isinstance(e, A.Min):
            return np.minimum(self.ints(e.left, exact), self.ints(e.right, exact))
        if isinstance(e, A.Max):
            return np.maximum(self.ints(e.left, exact), self.ints(e.right, exact))
        if isinstance(e, A.Cond):
            return np.where(self.eval(e.cond), self.ints(e.then, exact),
                            self.ints(e.otherwise, exact))
        raise TypeError(f"not an expression: {e!r}")


def run(program: A.Program, inputs: Sequence[Sequence[str] | str], accept: str = "eos",
        alphabet: Sequence[str] | None = None, origin: int = 1) -> Run:
    """Convenience: check ``program`` and run it on string inputs."""
    return Interpreter(program, alphabet, origin).run_strings(inputs, accept)
