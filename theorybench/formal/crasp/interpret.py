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
at most k times x's bound, ...). Each expression runs in the narrowest dtype that holds
its bound and its operands' bounds (:func:`int_dtype`: int16, int32, int64), the others
on Python ints (object arrays), so a large constant or nested scaling never wraps around.
``Run.values`` gives every value as int64 (or bool, or object) all the same: it widens a
value the first time it is read (:class:`Values`). The (B, T) arrays come from a pool of
recycled buffers (:class:`BufferPool`), which is what makes a run fast on a machine where
fresh memory costs page faults.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import TaskInputError, TheorybenchError
from . import ast as A
from .predicates import BinaryPredicate
from .validate import Checked, check

ACCEPT_MODES = ("eos", "last")
INT64_MAX = (1 << 63) - 1
INT32_MAX = (1 << 31) - 1
INT16_MAX = (1 << 15) - 1


class BufferPool:
    """Recycled memory for the (B, T) arrays of runs.

    Fresh memory is expensive: the first write to each page faults, and glibc returns the
    freed arrays of one run to the system before the next run (heap trimming), so a run
    that allocates a few MiB spends most of its time in page faults (measured: the Dyck-1
    program at 1,024 x 256 took 1.0-2.2 ms with fresh arrays and 0.7 ms with recycled
    memory; ``benchmarks/bench_crasp.py``). The pool keeps owner buffers of the sizes
    asked for and hands one out again once no array refers to it any more: every array
    handed out is a view whose ``base`` is the owner, so the owner's reference count says
    exactly whether some array (a Run's value, a slice of it, a memoryview of it) is still
    alive. A buffer in use is never handed out twice. Bounded: at most ``max_bytes`` are
    kept, blocks between ``min_block`` and ``max_block`` bytes; other sizes are allocated
    as usual. Thread-safe (one lock)."""

    def __init__(self, max_bytes: int = 48 << 20, min_block: int = 1 << 15,
                 max_block: int = 8 << 20):
        self.max_bytes, self.min_block, self.max_block = max_bytes, min_block, max_block
        self._lock = threading.Lock()
        self._blocks: list[np.ndarray] = []
        self._held = 0

    def empty(self, shape: tuple[int, ...], dtype) -> np.ndarray:
        """An uninitialised array like ``np.empty(shape, dtype)`` (contents arbitrary)."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if dtype.hasobject or not self.min_block <= nbytes <= self.max_block:
            return np.empty(shape, dtype)
        with self._lock:
            for buf in self._blocks:
                if buf.nbytes == nbytes and sys.getrefcount(buf) <= _FREE:
                    return buf.view(dtype).reshape(shape)
            if self._held + nbytes > self.max_bytes:  # make room: drop free blocks
                keep = []
                for buf in self._blocks:
                    if self._held + nbytes > self.max_bytes and sys.getrefcount(buf) <= _FREE:
                        self._held -= buf.nbytes
                    else:
                        keep.append(buf)
                buf = None
                self._blocks = keep
            if self._held + nbytes > self.max_bytes:
                return np.empty(shape, dtype)
            buf = np.empty(nbytes, dtype=np.uint8)
            self._blocks.append(buf)
            self._held += nbytes
            return buf.view(dtype).reshape(shape)

    def clear(self) -> None:
        """Forget every block (arrays still using one keep it alive as usual)."""
        with self._lock:
            self._blocks, self._held = [], 0


#: References to a free block while ``empty`` looks at it: the pool's list, the loop
#: variable and getrefcount's own argument.
_FREE = 3
#: The pool of every interpreter in this process.
POOL = BufferPool()


def int_dtype(bound: int):
    """The narrowest array dtype that holds every integer of absolute value <= ``bound``:
    int16, int32, int64, or ``object`` (Python ints) beyond int64. Exact: a value with
    |v| <= 2^15 - 1 is an int16, |v| <= 2^31 - 1 an int32, |v| <= 2^63 - 1 an int64."""
    if bound <= INT16_MAX:
        return np.dtype(np.int16)
    if bound <= INT32_MAX:
        return np.dtype(np.int32)
    if bound <= INT64_MAX:
        return np.dtype(np.int64)
    return np.dtype(object)


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


class Values(Mapping):
    """The values of a run by definition name, as the interpreter documents them: (B, T)
    ``bool`` or ``int64`` arrays (``object`` arrays of Python ints past int64).

    The interpreter computes with the narrowest exact dtype (int32 where every value's
    bound fits, see :func:`int_dtype`) and shares constant arrays; each value is widened to
    a writable int64 (or bool) array the first time it is read, so a caller that reads only
    ``Run.accept`` never pays for the widening."""

    def __init__(self, raw: dict[str, np.ndarray]):
        self._raw = raw
        self._done: dict[str, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        hit = self._done.get(name)
        if hit is None:
            v = self._raw[name]
            if v.dtype != bool and v.dtype != object:
                v = np.array(v, dtype=np.int64)          # a fresh C-contiguous int64 array
            elif not (v.flags.writeable and v.flags.c_contiguous):
                v = np.array(v)                          # a broadcast constant, made real
            hit = self._done[name] = v
        return hit

    def __iter__(self):
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def raw(self, name: str) -> np.ndarray:
        """The value as computed (narrow dtype, possibly a read-only broadcast view)."""
        return self._raw[name]


@dataclass
class Run:
    """The values of one batch: ``values[name]`` is (B, T) bool or int64, T = max length
    (+1 for the EOS column in ``eos`` mode; see :class:`Values`); ``accept`` is (B,) bool.
    ``ext`` holds the token ids as run, in the narrowest integer dtype that holds them."""

    checked: Checked
    values: Mapping[str, np.ndarray]
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
        full = lengths is None
        lengths = (np.full(B, L, dtype=np.int64) if lengths is None
                   else np.asarray(lengths, dtype=np.int64))
        if accept == "last" and np.any(lengths == 0):
            raise TaskInputError("an empty input has no last position; read the output at "
                                 "the end marker instead (accept='eos', --accept eos)")
        eos_id = len(vocab)
        T = L + 1 if accept == "eos" else L
        # token ids in the narrowest dtype that holds every id exactly (int8 for the usual
        # small vocabularies): the token tests then read 1 byte per position, not 8
        lo = int(tokens.min()) if tokens.size else 0
        hi = int(tokens.max()) if tokens.size else 0
        dt = next(t for t in (np.int8, np.int16, np.int32, np.int64)
                  if np.iinfo(t).min <= min(lo, -1) and max(hi, eos_id) <= np.iinfo(t).max)
        ext = POOL.empty((B, T), dt)
        ext[:, :L] = tokens
        if full:  # every row has length L: no padding to blank out
            if accept == "eos":
                ext[:, L] = eos_id
        else:
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
        return Run(self.checked, Values(dict(env.defs)), acc, lengths, ext, tuple(vocab),
                   accept, self.origin)

    def accepts(self, tokens: np.ndarray, vocab: Sequence[str], lengths=None,
                accept: str = "eos") -> np.ndarray:
        return self.run(tokens, vocab, lengths, accept).accept


_COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, ">": np.greater,
            "<=": np.less_equal, ">=": np.greater_equal}


class _Env:
    """One run's evaluation. Integer expressions are computed in ``int_dtype`` of their
    bound (and of their operands' bounds), so every value is exact: int32 arrays where the
    bound is at most 2^15 - 1 resp. 2^31 - 1 (every count is at most the number of
    positions; arithmetic over counts as its bound allows), int64 up to 2^63 - 1, Python
    ints beyond.
    Constants are broadcast views, not (B, T) arrays."""

    def __init__(self, ext: np.ndarray, index: dict[str, int], eos_id: int, checked: Checked,
                 origin: int = 1):
        self.ext, self.index, self.eos_id, self.checked = ext, index, eos_id, checked
        self.defs: dict[str, np.ndarray] = {}
        self.memo: dict[A.Expr, np.ndarray] = {}
        self.positions = np.arange(origin, ext.shape[1] + origin, dtype=np.int64)[None, :]
        self.bounds: dict = {}
        self.defs_ast = {n: checked.program.definition(n) for n in checked.order}

    def bound(self, e: A.Expr) -> int:
        return abs(int_bound(e, self.ext.shape[1], self.defs_ast, self.bounds))

    def dtype(self, e: A.Expr, *operands: A.Expr) -> np.dtype:
        """The dtype ``e`` is computed in: wide enough for ``e`` and for its operands."""
        return int_dtype(max(self.bound(x) for x in (e, *operands)))

    def ints(self, e: A.Expr, dtype: np.dtype) -> np.ndarray:
        """``e``'s values in ``dtype`` (widened where narrower; never narrowed)."""
        v = self.eval(e)
        if v.dtype == dtype or v.dtype == object:
            return v
        if dtype == object:
            return v.astype(object)
        return v.astype(dtype) if v.dtype.itemsize < dtype.itemsize or v.dtype == bool else v

    def eval(self, e: A.Expr) -> np.ndarray:
        hit = self.memo.get(e)
        if hit is None:
            hit = self._eval(e)
            self.memo[e] = hit
        return hit

    def new(self, dtype) -> np.ndarray:
        """An uninitialised (B, T) array from the pool (see :class:`BufferPool`)."""
        return POOL.empty(self.ext.shape, dtype)

    def _eval(self, e: A.Expr) -> np.ndarray:
        shape = self.ext.shape
        if isinstance(e, A.Token):
            if e.symbol == A.EOS:
                return np.equal(self.ext, self.eos_id, out=self.new(bool))
            tid = self.index.get(e.symbol)
            if tid is None:
                return np.broadcast_to(False, shape)
            return np.equal(self.ext, tid, out=self.new(bool))
        if isinstance(e, A.BoolConst):
            return np.broadcast_to(bool(e.value), shape)
        if isinstance(e, A.IntConst):
            return np.broadcast_to(np.array(e.value, dtype=int_dtype(abs(e.value))), shape)
        if isinstance(e, A.Ref):
            if e.name in self.defs:
                return self.defs[e.name]
            pred = self.checked.predicates[e.name]
            return np.broadcast_to(pred(self.positions), shape)
        if isinstance(e, A.Not):
            return np.logical_not(self.eval(e.arg), out=self.new(bool))
        if isinstance(e, A.And):
            return np.logical_and(self.eval(e.left), self.eval(e.right), out=self.new(bool))
        if isinstance(e, A.Or):
            return np.logical_or(self.eval(e.left), self.eval(e.right), out=self.new(bool))
        if isinstance(e, A.Compare):
            a, b = self.eval(e.left), self.eval(e.right)
            if a.dtype == object or b.dtype == object:
                return _COMPARE[e.op](a, b).astype(bool)
            return _COMPARE[e.op](a, b, out=self.new(bool))
        if isinstance(e, A.Count):
            body = self.eval(e.body)
            if e.guard is None:
                # a count is at most the number of positions T, so int_dtype(T) holds it
                # exactly. numpy's bool -> int32 prefix sum is its fast one (bool -> int16 or
                # int64 is several times slower), so for T <= 2^15 - 1 the sum goes through
                # an int32 buffer and is then narrowed to int16 (half the memory)
                dt = int_dtype(shape[1])
                if dt == np.int16:
                    tmp = np.cumsum(body, axis=1, dtype=np.int32, out=self.new(np.int32))
                    out = self.new(np.int16)
                    out[...] = tmp
                    return out
                return np.cumsum(body, axis=1, dtype=dt, out=self.new(dt))
            pred = self.checked.predicates[e.guard]
            assert isinstance(pred, BinaryPredicate)
            return pred.guarded_count(body)
        if isinstance(e, (A.Add, A.Sub, A.Min, A.Max)):
            dt = self.dtype(e, e.left, e.right)
            op = {A.Add: np.add, A.Sub: np.subtract, A.Min: np.minimum,
                  A.Max: np.maximum}[type(e)]
            a, b = self.ints(e.left, dt), self.ints(e.right, dt)
            rt = np.result_type(a, b)
            return op(a, b) if rt == object else op(a, b, out=self.new(rt))
        if isinstance(e, A.Scale):
            dt = int_dtype(max(self.bound(e), self.bound(e.arg), e.factor))
            x = self.ints(e.arg, dt)
            if x.dtype == object:
                return e.factor * x
            return np.multiply(x.dtype.type(e.factor), x, out=self.new(x.dtype))
        if isinstance(e, A.Cond):
            dt = self.dtype(e, e.then, e.otherwise)
            cond = self.eval(e.cond)
            a, b = self.ints(e.then, dt), self.ints(e.otherwise, dt)
            rt = np.result_type(a, b)
            if rt == object:
                return np.where(cond, a, b)
            out = self.new(rt)
            np.copyto(out, b)
            np.copyto(out, a, where=cond)
            return out
        raise TypeError(f"not an expression: {e!r}")


def run(program: A.Program, inputs: Sequence[Sequence[str] | str], accept: str = "eos",
        alphabet: Sequence[str] | None = None, origin: int = 1) -> Run:
    """Convenience: check ``program`` and run it on string inputs."""
    return Interpreter(program, alphabet, origin).run_strings(inputs, accept)
