"""The task interface every family implements.

A family is a subclass of :class:`Task` that declares its parameters as :class:`Param`
objects; an instance is built with validated parameters and then offers ``vocab``,
``sample``, ``label`` (the reference function, vectorized), ``oracle`` (the same labels by
an independent, deliberately simple method, used by tests), ``enumerate``, ``render`` /
``parse`` and ``decision_view``.

Token conventions
-----------------
* ``vocab`` is a tuple of token strings; a token id is an index into it.
* Tasks whose inputs may vary in length reserve ``PAD = "<pad>"``; its id is ``pad_id``
  (always the last id of the vocabulary, so that the natural tokens keep small ids).
  ``Batch.lengths`` gives each row's real length.
* ``label`` and ``render`` refuse (:class:`TaskInputError`) token ids that are not
  integers or not indices into ``vocab`` (the pad id is one, so padded rows pass);
  ``sample`` refuses an ``rng`` that is not an ``np.random.Generator``. The checks live
  here, wrapped around every family's own methods (``Task.__init_subclass__``).
* Outputs come in three kinds (``Task.output``): ``"final"`` - one label per input, read
  after the last input token; ``"per_position"`` - a label at every input position, with a
  mask; ``"answer"`` - a sequence of answer tokens produced after the input (binary_add),
  with a mask. Label values are indices into ``label_vocab``.
"""

from __future__ import annotations

import functools
import math
import threading
import types
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from ..errors import EnumerationTooLarge, ResourceLimitError, TaskInputError, TaskParameterError
from .params import Param
from .prefix import AutomatonOracle, lengths_mask, no_oracle

PAD = "<pad>"
#: Largest number of inputs ``enumerate()`` materializes.
MAX_ENUMERATE = 1 << 22
#: Largest number of tokens (rows x length) one ``sample()`` call returns (8 GiB as int64).
MAX_SAMPLE_CELLS = 1 << 30


@dataclass(frozen=True)
class Batch:
    """A batch of task instances.

    tokens:  int64 (count, length); rows shorter than ``length`` are padded with the
             task's ``pad_id`` (see ``lengths``).
    labels:  int64 (count,) for ``final`` tasks, (count, out_len) otherwise.
    mask:    bool (count, out_len) marking which label entries are scored, or None.
    lengths: int64 (count,), the real length of each row.
    """

    tokens: np.ndarray
    labels: np.ndarray
    mask: np.ndarray | None
    lengths: np.ndarray

    def __len__(self) -> int:
        return int(self.tokens.shape[0])


@dataclass(frozen=True)
class DecisionFunction:
    """A single-output function of a task that theories analyze.

    The input space is fixed-length token sequences: position ``i`` may hold any token id
    in ``choices[i]`` (the *natural input space*; a singleton marks a fixed separator).
    ``valid`` (optional) restricts that space further (e.g. k-hop forbids immediate
    repeats). ``evaluate`` maps an int array (batch, length) of token ids to (batch,)
    int outputs (not necessarily binary). ``sample(rng, count)`` draws from the task's
    own sampling distribution at this length.
    """

    task: "Task"
    name: str
    choices: tuple[tuple[int, ...], ...]
    evaluate: Callable[[np.ndarray], np.ndarray]
    sample: Callable[[np.random.Generator, int], np.ndarray]
    valid: Callable[[np.ndarray], np.ndarray] | None = None
    description: str = ""
    #: optional: (batch, length) bool, at which positions some other allowed token changes
    #: the output - the deterministic sensitivity per position, computed from the task's
    #: structure; used only after it agrees with trying every replacement
    #: (theories.sensitivity_sampling.oracle_check)
    sensitive_positions: Callable[[np.ndarray], np.ndarray] | None = None

    @property
    def length(self) -> int:
        return len(self.choices)

    @property
    def binary(self) -> bool:
        """True when every position ranges over the same two tokens."""
        return all(len(c) == 2 for c in self.choices)

    def space_size(self) -> int:
        return math.prod(len(c) for c in self.choices)

    def enumerate(self, limit: int = MAX_ENUMERATE) -> np.ndarray:
        """All inputs of the natural space (``valid`` applied), lexicographic order."""
        x = product_space(self.choices, limit,
                          what=f"inputs of {self.task.name} ({self.name})")
        if self.valid is not None:
            x = x[self.valid(x)]
        return x


def _choice_table(choices: Sequence[Sequence[int]]) -> np.ndarray:
    width = max(len(c) for c in choices)
    table = np.zeros((len(choices), width), dtype=np.int64)
    for i, c in enumerate(choices):
        table[i, : len(c)] = c
    return table


def count_text(size: int) -> str:
    """A count for messages: exact up to 10^12, then as a power of two (``about 2^64``)."""
    if size <= 10**12:
        return f"{size:,}"
    # math.log10 takes any int; float(size) would overflow past ~1.8e308
    exp10 = math.floor(math.log10(size))
    mant = 10 ** (math.log10(size) - exp10)
    if round(mant, 1) >= 10:
        mant, exp10 = mant / 10, exp10 + 1
    return f"about 2^{math.log2(size):.1f} (~{mant:.1f}e+{exp10:02d})"


def product_space(choices: Sequence[Sequence[int]], limit: int = MAX_ENUMERATE,
                  what: str = "inputs") -> np.ndarray:
    """All sequences with position i drawn from ``choices[i]`` (lexicographic)."""
    size = math.prod(len(c) for c in choices)
    if size > limit:
        raise EnumerationTooLarge(
            f"cannot enumerate {what}: there are {count_text(size)}, more than the "
            f"enumeration limit {limit:,}; use sample() or a smaller n")
    radices = np.array([len(c) for c in choices], dtype=np.int64)
    idx = np.arange(size, dtype=np.int64)
    digits = np.empty((size, len(radices)), dtype=np.int64)
    for pos in range(len(radices) - 1, -1, -1):
        digits[:, pos] = idx % radices[pos]
        idx //= radices[pos]
    return _choice_table(choices)[np.arange(len(radices))[None, :], digits]


#: Depth of ``sample`` calls in this thread: labels computed there are of tokens the task
#: drew itself, so their id check (one pass over the batch) is skipped.
_INSIDE_SAMPLE = threading.local()


def _checked_label(fn):
    @functools.wraps(fn)
    def label(self, tokens, *args, **kwargs):
        if not getattr(_INSIDE_SAMPLE, "depth", 0):
            tokens = self.token_ids(tokens)
        return fn(self, tokens, *args, **kwargs)
    label._checks_ids = True
    return label


def _checked_sample(fn):
    @functools.wraps(fn)
    def sample(self, *args, **kwargs):
        rng = args[0] if args else kwargs.get("rng")
        if not isinstance(rng, np.random.Generator):
            raise TaskInputError(
                f"{self.name}.sample needs a numpy Generator as rng, got "
                f"{type(rng).__name__}; pass e.g. np.random.default_rng(0)")
        _INSIDE_SAMPLE.depth = getattr(_INSIDE_SAMPLE, "depth", 0) + 1
        try:
            return fn(self, *args, **kwargs)
        finally:
            _INSIDE_SAMPLE.depth -= 1
    sample._checks_ids = True
    return sample


class Task:
    """Base class of a task family. Subclasses set the class attributes and methods.

    Class attributes: ``name``, ``kind`` (boolean, retrieval, sparse, arithmetic, graphs,
    dyck), ``summary`` (one-line definition), ``params`` (tuple of :class:`Param`, ``n``
    first), ``output`` ("final", "per_position" or "answer"), ``distributions`` (the
    first is the default), ``analysis_ns`` and ``train_ns`` (default n lists),
    ``variants`` (studied parameter values). ``valid_ns``/``accepts``/``validate`` check
    parameters at class level, without building the vocabulary.
    """

    name: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    output: ClassVar[str] = "final"
    distributions: ClassVar[tuple[str, ...]] = ("uniform",)
    analysis_ns: ClassVar[tuple[int, ...]] = (4, 6, 8, 10, 12)
    train_ns: ClassVar[tuple[int, ...]] = (8, 16, 32, 64)
    order: ClassVar[int] = 0  # position within its kind in listings
    #: Parameter values the suite studies besides the defaults (docs/theories.md §9),
    #: e.g. ``{"k": (1, 2, 3)}`` for khop; the registry's ``grid(name).points()``.
    variants: ClassVar[dict[str, tuple]] = {}

    vocab: tuple[str, ...]
    label_vocab: tuple[str, ...] = ("0", "1")

    def __init_subclass__(cls, **kwargs):
        # every family (and user task class) gets the same input checks around its own
        # label and sample, so no family can forget them
        super().__init_subclass__(**kwargs)
        for name, wrap in (("label", _checked_label), ("sample", _checked_sample)):
            fn = cls.__dict__.get(name)
            if isinstance(fn, types.FunctionType) and not getattr(fn, "_checks_ids", False):
                setattr(cls, name, wrap(fn))

    def __init__(self, **kwargs: Any):
        self._set_params(kwargs)
        self.check()
        self.vocab = tuple(self.build_vocab())
        self.index = {tok: i for i, tok in enumerate(self.vocab)}

    def _set_params(self, kwargs: dict[str, Any]) -> None:
        known = {p.name: p for p in self.params}
        unknown = sorted(set(kwargs) - set(known))
        if unknown:
            raise TaskParameterError(
                f"unknown parameter(s) {', '.join(unknown)} for task {self.name}; "
                f"its parameters are: {', '.join(p.describe() for p in self.params)}")
        values = {}
        for p in self.params:
            values[p.name] = p.coerce(kwargs[p.name]) if p.name in kwargs else p.default
        self.values = values
        for k, v in values.items():
            setattr(self, k, v)

    # ---- the parameter grid (class level; no vocabulary is built) ---------------------
    @classmethod
    def param(cls, name: str) -> Param:
        """The declared parameter ``name`` (KeyError if the family has none)."""
        for p in cls.params:
            if p.name == name:
                return p
        raise KeyError(f"task {cls.name} has no parameter {name!r}")

    @classmethod
    def validate(cls, **params: Any) -> dict[str, Any]:
        """The full, coerced parameter values ``get(name, **params)`` would use, or
        :class:`TaskParameterError` - the same checks, without building the vocabulary."""
        probe = cls.__new__(cls)
        probe._set_params(params)
        probe.check()
        return dict(probe.values)

    @classmethod
    def accepts(cls, **params: Any) -> bool:
        """True when ``get(name, **params)`` would succeed."""
        try:
            cls.validate(**params)
        except TaskParameterError:
            return False
        return True

    @classmethod
    def valid_ns(cls, lo: int | None = None, hi: int | None = None, **params: Any) -> list[int]:
        """Every n in [lo, hi] that the family accepts with the other ``params`` (e.g. only
        odd n for majority, only n > k for the sparse tasks). Defaults: lo = the smallest
        n allowed, hi = the largest of ``analysis_ns`` and ``train_ns``."""
        p = cls.param("n")
        least = 1 if p.minimum is None else p.minimum
        lo = least if lo is None else max(lo, least)
        hi = max(cls.analysis_ns + cls.train_ns) if hi is None else hi
        if p.maximum is not None:
            hi = min(hi, p.maximum)
        return [n for n in range(lo, hi + 1) if cls.accepts(**{**params, "n": n})]

    # ---- hooks for subclasses -------------------------------------------------------
    def check(self) -> None:
        """Cross-parameter validation; raise :class:`TaskParameterError`."""

    def build_vocab(self) -> Sequence[str]:
        raise NotImplementedError

    def sample(self, rng: np.random.Generator, count: int,
               distribution: str | None = None) -> Batch:
        raise NotImplementedError

    def label(self, tokens: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def oracle(self, tokens: np.ndarray) -> np.ndarray:
        """Labels by an independent method (loops, networkx, a stack, Python ints)."""
        raise NotImplementedError

    def output_mask(self, tokens: np.ndarray) -> np.ndarray:
        """Bool (count, out_len) of scored label entries, for non-``final`` tasks."""
        raise NotImplementedError(f"task {self.name} has a single final output")

    def input_space(self) -> Sequence[Sequence[int]]:
        """Allowed token ids per position for ``enumerate()`` (fixed-length tasks)."""
        raise EnumerationTooLarge(f"task {self.name} has no finite enumeration")

    def valid_inputs(self, tokens: np.ndarray) -> np.ndarray:
        """Boolean mask of rows of ``tokens`` that are well-formed inputs (default all)."""
        return np.ones(len(tokens), dtype=bool)

    def decision_view(self) -> list[DecisionFunction]:
        """Single-output functions for theory analysis; the first is the main one."""
        raise NotImplementedError

    def whole_view(self, name: str, description: str,
                   sample: Callable[[np.random.Generator, int], np.ndarray] | None = None,
                   valid: Callable[[np.ndarray], np.ndarray] | None = None) -> DecisionFunction:
        """The view of a ``final`` task as one function on its natural input space
        (``input_space()``), evaluated by ``label``; ``sample`` defaults to the token rows
        of the default distribution."""
        default = self.distributions[0]
        return DecisionFunction(
            task=self, name=name, choices=tuple(tuple(c) for c in self.input_space()),
            evaluate=self.label,
            sample=sample or (lambda rng, count: self.sample(rng, count, default).tokens),
            valid=valid, description=description)

    # ---- the language view: next-symbol sets ------------------------------------------
    def automaton(self) -> tuple[np.ndarray, np.ndarray, int] | None:
        """A complete DFA ``(delta, accept, start)`` over the task's letters (token ids,
        pad excluded) whose words of each valid length n are exactly the label-1 inputs at
        n, or None. Regular families override it; the next-symbol objective reads it."""
        return None

    def no_oracle_reason(self) -> str:
        return ("its label is a function of whole inputs, with no automaton or counter "
                "from which the symbols that can extend a prefix follow; give the task as a "
                "REGEX, DFA or COUNTER task file to train it under the next-symbol objective")

    def language_lengths(self, max_len: int) -> list[int]:
        """The valid n in [0, max_len] with the other parameters of this instance."""
        others = {k: v for k, v in self.values.items() if k != "n"}
        return type(self).valid_ns(0, max_len, **others)

    def prefix_oracle(self, max_len: int):
        """The :class:`~theorybench.tasks.prefix.PrefixOracle` of this family's language up
        to length ``max_len`` (raises :class:`~theorybench.errors.NoPrefixOracle` with the
        reason when the family has none)."""
        dfa = self.automaton()
        if dfa is None:
            raise no_oracle(self.name, self.no_oracle_reason())
        delta, accept, start = dfa
        return AutomatonOracle(delta, accept, start,
                               lengths_mask(self.language_lengths(max_len), max_len))

    # ---- shared behaviour -----------------------------------------------------------
    @property
    def pad_id(self) -> int | None:
        return self.index.get(PAD)

    def spec(self) -> dict[str, Any]:
        """Name and parameter values: enough to rebuild this instance with ``get``."""
        return {"task": self.name, **self.values}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"tasks.get({self.name!r}, {args})"

    def resolve_distribution(self, distribution: str | None) -> str:
        if distribution is None:
            return self.distributions[0]
        if distribution not in self.distributions:
            raise TaskParameterError(
                f"distribution {distribution!r} is not offered by task {self.name}; "
                f"choose one of: {', '.join(self.distributions)}")
        return distribution

    def check_count(self, count: int) -> int:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise TaskParameterError(f"count must be a non-negative integer, got {count!r}")
        cells = int(count) * max(1, self.input_length())
        if cells > MAX_SAMPLE_CELLS:
            raise ResourceLimitError(
                f"count={count:,} rows of {self.input_length()} tokens is {cells:,} tokens "
                f"({cells * 8 / 2**30:.0f} GiB as int64), more than the limit "
                f"{MAX_SAMPLE_CELLS:,}; sample in batches of at most "
                f"{MAX_SAMPLE_CELLS // max(1, self.input_length()):,} rows")
        return int(count)

    def enumerate(self, limit: int = MAX_ENUMERATE) -> np.ndarray:
        """All valid inputs of this size (int64 tokens), or :class:`EnumerationTooLarge`."""
        x = product_space(self.input_space(), limit, what=f"inputs of {self!r}")
        return x[self.valid_inputs(x)]

    def token_ids(self, tokens) -> np.ndarray:
        """``tokens`` as an integer array of ids into ``vocab`` (the pad id included), or
        :class:`TaskInputError` naming the first offending id. Integral floats are
        converted; the check is one pass over the array (a max of the unsigned view,
        which also catches negative ids)."""
        try:
            x = np.asarray(tokens)
        except ValueError:  # ragged nested lists
            raise TaskInputError(f"{self.name}: token rows must all have the same length "
                                 f"(pad shorter rows)") from None
        kind = x.dtype.kind
        if kind == "b":
            return x
        if kind == "f":
            bad = ~np.isfinite(x) | (x != np.round(x))
            if bad.any():
                self._refuse(x, bad, "are not integers")
            x = x.astype(np.int64)
        elif kind not in "iu":
            raise TaskInputError(f"{self.name}: token ids must be integers (indices into its "
                                 f"vocabulary), got an array of {x.dtype}; parse() turns "
                                 f"text into token ids")
        if x.size:
            top = (x if kind == "u" else x.view(np.dtype(f"u{x.itemsize}"))).max()
            if top >= len(self.vocab):
                self._refuse(x, (x < 0) | (x >= len(self.vocab)), "are out of range")
        return x

    def _refuse(self, x: np.ndarray, bad: np.ndarray, what: str):
        where = tuple(int(i) for i in np.argwhere(bad)[0]) if x.ndim else ()
        at = {0: "", 1: f" at position {where[-1]}" if where else "",
              2: f" at row {where[0]}, position {where[-1]}" if where else ""
              }.get(x.ndim, f" at index {where}")
        first = x[where]
        shown = sorted({v.item() for v in np.unique(x[bad])[:5]})
        pad = (f"; {self.pad_id} is the padding {PAD}" if self.pad_id is not None else "")
        raise TaskInputError(
            f"{self.name}: {int(bad.sum()):,} token id(s) {what} (e.g. {first.item()!r}"
            f"{at}; values {shown}); it takes token ids in "
            f"0..{len(self.vocab) - 1}, indices into its vocabulary of {len(self.vocab)} "
            f"tokens{pad}")

    def render(self, tokens: np.ndarray) -> str:
        """Space-separated tokens of one row (padding dropped)."""
        row = self.token_ids(tokens).reshape(-1)
        pad = self.pad_id
        return " ".join(self.vocab[int(t)] for t in row if t != pad)

    def parse(self, text: str) -> np.ndarray:
        """Token ids of a rendered instance; :class:`TaskInputError` on bad text."""
        toks = text.split()
        out = []
        for pos, tok in enumerate(toks, 1):
            if tok not in self.index or tok == PAD:
                shown = ", ".join(t for t in self.vocab if t != PAD)
                if len(shown) > 120:
                    shown = shown[:117] + "..."
                raise TaskInputError(
                    f"token {pos} {tok!r} is not in the vocabulary of {self.name}; "
                    f"tokens are separated by spaces and must be one of: {shown}")
            out.append(self.index[tok])
        arr = np.array(out, dtype=np.int64)
        self.check_input(arr)
        return arr

    def check_input(self, row: np.ndarray) -> None:
        """Raise :class:`TaskInputError` if one parsed row is not a valid instance."""
        if len(row) != self.input_length():
            raise TaskInputError(
                f"{self.name} with n={self.n} expects {self.input_length()} tokens, "
                f"got {len(row)}")
        if not self.valid_inputs(row[None, :])[0]:
            raise TaskInputError(f"not a valid {self.name} instance: {self.render(row)}")

    def input_length(self) -> int:
        """Length of an input row (for fixed-length tasks)."""
        return self.n

    def render_label(self, label: np.ndarray, mask: np.ndarray | None = None) -> str:
        lab = np.atleast_1d(np.asarray(label))
        if mask is not None:
            lab = lab[np.asarray(mask, dtype=bool)]
        return " ".join(self.label_vocab[int(v)] for v in lab)
