"""The family class of a task file (:class:`FileTask`, one subclass per file, built by
:func:`build_family` for :func:`.user.load_family` and :mod:`.user_program`): the file's
functions behind the :class:`Task` interface, with uniform sampling balanced when one
label is rare, as the built-in families balance theirs."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable

import numpy as np

from ..errors import NoPrefixOracle, TaskFileError, TaskParameterError
from . import counter as counter_machines
from .balance import balanced_choice, rejection_balance
from .base import Batch, Param, Task
from .prefix import lengths_mask
from .user_checks import call_user, check_labels, smoke_check
from .user_regular import Table

#: The kind of every family that comes from a task file.
USER_KIND = "user"
#: A class rarer than this under uniform inputs is balanced (by rejection for a label,
#: exactly through the automaton for a REGEX or DFA).
RARE = 0.25


class FileTask(Task):
    """A family built from a task file by :func:`load_family` (one subclass per file)."""

    kind = USER_KIND
    alphabet: tuple[str, ...] = ()
    lengths: tuple[int, int] = (1, 1)
    source: Any  # the file's text, digest and lines (user._Source)
    table: Table | None = None
    #: a COUNTER file's machine (:class:`.counter.CounterAutomaton`)
    counter: Any = None
    definition = "label"
    #: SHA-256 of the file's bytes: with the name, the task's identity for caches and runs.
    definition_digest = ""
    origin = ""
    _label_fn = _sample_fn = _oracle_fn = _valid_fn = None
    distributions = ("uniform",)

    @classmethod
    def _valid_n(cls, n: int) -> bool:
        if cls._valid_fn is None:
            return True
        ok = call_user(cls, "VALID", cls._valid_fn, n)
        if not isinstance(ok, (bool, np.bool_, int, np.integer)):
            raise TaskFileError(str(cls.source.error(
                "VALID", f"VALID({n}) returned {type(ok).__name__} {ok!r:.60}; it must return "
                "True or False")))
        return bool(ok)

    def check(self) -> None:
        if not self._valid_n(self.n):
            raise TaskParameterError(f"task {self.name}: n={self.n} is not valid (VALID(n) "
                                     f"in {self.source.at('VALID')} says False)")

    def build_vocab(self):
        return self.alphabet

    @property
    def extra(self) -> dict[str, Any]:
        """The file's own parameters (PARAMS) of this instance, as label's keywords."""
        return {k: v for k, v in self.values.items() if k != "n"}

    def input_space(self):
        return [tuple(range(len(self.alphabet)))] * self.n

    def label(self, tokens):
        x = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if self.table is not None:
            return self.table.run(x)
        if self.counter is not None:
            return self.counter.run(x)
        y = call_user(self, "label", self._label_fn, _read_only(x), **self.extra)
        y = check_labels(self, y, x, "label")
        if self.output == "answer":
            # batches of one n share one answer length: a model's rows are padded to it
            m = self.__dict__.setdefault("_answer_length", y.shape[1])
            if y.shape[1] != m:
                raise TaskFileError(str(self.source.error(
                    "label", f"label(x) returned answers of {y.shape[1]} token(s) at "
                    f"n={self.n}, and of {m} in an earlier call; an answer's length may "
                    "depend on n only")))
        return y

    def oracle(self, tokens):
        x = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if self._oracle_fn is not None:
            y = call_user(self, "oracle", self._oracle_fn, _read_only(x), **self.extra)
            return check_labels(self, y, x, "oracle")
        if self.definition == "REGEX":  # Python's own regex engine: independent of Table
            pat = re.compile(self.module.REGEX)
            return np.array([bool(pat.fullmatch("".join(self.alphabet[t] for t in row)))
                             for row in x], dtype=np.int64)
        if self.definition == "DFA":
            dfa = self.module.DFA
            out = []
            for row in x:
                q = dfa["start"]
                for t in row:
                    q = dfa["delta"][q][self.alphabet[t]]
                out.append(int(q in dfa["accept"]))
            return np.array(out, dtype=np.int64)
        if self.definition == "COUNTER":  # the dict read symbol by symbol
            return np.array([counter_machines.reference_member(
                self.module.COUNTER, self.alphabet, [self.alphabet[t] for t in row])
                for row in x], dtype=np.int64)
        raise NotImplementedError(f"task file {self.origin} gives no oracle(x)")

    def output_mask(self, tokens):
        return np.ones(np.atleast_2d(tokens).shape, dtype=bool)

    def automaton(self):
        if self.table is None or self.output != "final":
            return None
        return self.table.delta, self.table.accept, self.table.start

    def prefix_oracle(self, max_len: int):
        if self.counter is not None:
            return counter_machines.CounterOracle(
                self.counter, lengths_mask(self.language_lengths(max_len), max_len))
        return super().prefix_oracle(max_len)

    def no_oracle_reason(self) -> str:
        if getattr(self, "program", None) is not None:
            return (f"{self.origin} defines its language by a program, whose prefixes' "
                    "extensions the toolkit cannot enumerate at every length; give the "
                    "language as a REGEX, DFA or COUNTER task file to train it that way")
        return (f"{self.origin} defines its language by label(x); the symbols that can "
                "extend a prefix would need a search over every completion. Give a REGEX, "
                "DFA or COUNTER instead (docs/extending.md, 'Bring your own task')")

    def share_of_ones(self) -> float:
        """The share of label 1 under uniform inputs: exact when there are at most 2^16
        inputs, else estimated on 4,096 inputs of a fixed seed (a property of the task, so
        that whether batches are balanced never depends on the caller's random stream)."""
        if getattr(self, "_share", None) is None:
            k, n = len(self.alphabet), self.n
            x = (self.enumerate() if k ** n <= 1 << 16 else
                 np.random.default_rng(0).integers(0, k, size=(4096, n), dtype=np.int64))
            self._share = float(self.label(x).mean())
        return self._share

    def draw(self, rng: np.random.Generator, count: int, strict: bool = True) -> np.ndarray:
        """Token rows: the file's ``sample``, else uniform, label-balanced when one class
        is rarer than :data:`RARE` (exactly, through the automaton, for REGEX/DFA; exactly,
        by enumeration, when there are at most 2^16 inputs). ``strict`` False (the
        theories' decision view): uniform rows where a class is too rare to balance by
        rejection, instead of an error - a check on them is weaker, never wrong."""
        n, k = self.n, len(self.alphabet)
        if self._sample_fn is not None:
            x = call_user(self, "sample", self._sample_fn, rng, count, n, **self.extra)
            try:
                x = np.asarray(x)
            except (ValueError, TypeError):  # ragged rows
                x = np.asarray(x, dtype=object)
            if x.shape != (count, n) or x.dtype.kind not in "iu" or (
                    x.size and (x.min() < 0 or x.max() >= k)):
                raise TaskFileError(str(self.source.error(
                    "sample", f"sample(rng, {count}, {n}) must return an int array of shape "
                    f"({count}, {n}) with values in 0..{k - 1}; got {x.dtype} {x.shape}")))
            return x.astype(np.int64)
        if self.output != "final":
            return rng.integers(0, k, size=(count, n), dtype=np.int64)
        if self.counter is not None:
            # members are rare among uniform words (a^n b^n: one of 2^n): half the rows are
            # members drawn uniformly through the prefix oracle, half uniform words
            x = rng.integers(0, k, size=(count, n), dtype=np.int64)
            # built once per instance: every batch at this n reads the same automaton
            oracle = self.__dict__.get("_draw_oracle")
            if oracle is None:
                oracle = self.__dict__["_draw_oracle"] = self.prefix_oracle(n)
            if oracle.has_members(n):
                pick = balanced_choice(rng, count) == 1
                x[pick] = oracle.members(rng, int(pick.sum()), n)
            return x
        if self.table is not None:
            p1 = float(self.table.accept_probability(n)[n, self.table.start])
            if 0 < p1 < 1 and min(p1, 1 - p1) < RARE:
                return self.table.sample(rng, balanced_choice(rng, count), n)
            return rng.integers(0, k, size=(count, n), dtype=np.int64)
        share = self.share_of_ones()
        exact = k ** n <= 1 << 16  # share_of_ones enumerated every input
        if min(share, 1 - share) >= RARE or (exact and share in (0.0, 1.0)):
            # balanced enough; or one label only, at this n: nothing to balance
            return rng.integers(0, k, size=(count, n), dtype=np.int64)
        if exact:  # uniform within each class, however rare (a^n b^n c^n: one word)
            x = self.enumerate()
            y = self.label(x)
            want = balanced_choice(rng, count)
            out = np.empty((count, n), dtype=np.int64)
            for cls in (0, 1):
                rows = np.flatnonzero(y == cls)
                at = want == cls
                out[at] = x[rows[rng.integers(0, len(rows), size=int(at.sum()))]]
            return out

        def uniform(m):
            x = rng.integers(0, k, size=(m, n), dtype=np.int64)
            return x, self.label(x)
        try:
            return rejection_balance(uniform, count, rng)[0]
        except TaskFileError:
            raise  # the file's label failed: not a rare class
        except TaskParameterError:
            if not strict:
                return rng.integers(0, k, size=(count, n), dtype=np.int64)
            fix = ("give sample(rng, count, n) in the task file" if self.table is None and
                   self.definition == "label" else
                   f"use an n with at most {1 << 16:,} inputs (then each class is sampled "
                   "exactly), or write a .py task file with its own sample(rng, count, n)")
            raise TaskParameterError(
                f"{self.source.at('label')}: one label is too rare at n={n} to balance by "
                f"rejection (share {share:.2g} of uniform inputs); {fix}") from None

    def sample(self, rng, count, distribution=None):
        self.resolve_distribution(distribution)
        count = self.check_count(count)
        x = self.draw(rng, count)
        y = self.label(x)
        # an answer is scored whole (its mask: every answer token, the trainer's default)
        mask = self.output_mask(x) if self.output == "per_position" else None
        return Batch(tokens=x, labels=y, mask=mask,
                     lengths=np.full(count, self.n, dtype=np.int64))

    def decision_view(self):
        if self.output == "final":
            return [self.whole_view("output", f"{self.name} of the {self.n} input tokens",
                                    sample=lambda rng, count: self.draw(rng, count, strict=False))]
        if self.output == "answer":
            # one decision function for the theories: is the first answer token ANSWER[0]
            first = self.whole_view(
                "first_answer", f"{self.name}: whether the first answer token is "
                f"{self.label_vocab[0]!r}",
                sample=lambda rng, count: self.draw(rng, count, strict=False))
            return [dataclasses.replace(
                first, evaluate=lambda x: (self.label(x)[:, 0] == 0).astype(np.int64))]
        last = self.whole_view("last", f"{self.name}: the label at the last position",
                               sample=lambda rng, count: self.draw(rng, count, strict=False))
        return [dataclasses.replace(last, evaluate=lambda x: self.label(x)[:, -1])]


def _params(src: Any, value: Any) -> tuple[Param, ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise src.error("PARAMS", 'PARAMS must be a dict name -> (lo, hi) or (lo, hi, '
                        'default), e.g. {"k": (2, 7)}')
    out = []
    for key, spec in value.items():
        if not isinstance(key, str) or not key.isidentifier() or key == "n":
            raise src.error("PARAMS", f"parameter name {key!r} must be an identifier other "
                            "than n (n is the input length, from LENGTHS)")
        ints = isinstance(spec, (tuple, list)) and len(spec) in (2, 3) and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in spec)
        if not ints or not spec[0] <= spec[1] or (len(spec) == 3 and
                                                    not spec[0] <= spec[2] <= spec[1]):
            raise src.error("PARAMS", f"PARAMS[{key!r}] = {spec!r}: give (lo, hi) or (lo, hi, "
                            "default), integers with lo <= default <= hi")
        default = int(spec[2] if len(spec) == 3 else spec[0])
        out.append(Param(key, int, default, f"parameter {key} of the task file {src.path.name}",
                         minimum=int(spec[0]), maximum=int(spec[1])))
    return tuple(out)


def build_family(src: Any, name: str, alphabet: tuple[str, ...], lengths: tuple[int, int],
                 definition: str, description: str, *, module: Any, output: str = "final",
                 table: Any = None, label: Callable | None = None,
                 sample: Callable | None = None, oracle: Callable | None = None,
                 valid: Callable | None = None, params: Any = None,
                 extra: dict[str, Any] | None = None) -> type[Task]:
    """The :class:`FileTask` subclass of a checked definition (a task file's or a program
    file's, :mod:`.user_program`): its sizes (analysis and training n), then the quick
    check of :func:`.user_checks.smoke_check`. ``src`` answers ``path``, ``digest``,
    ``at(name)`` and ``error(name, message)``; ``extra``: more class attributes."""
    lo, hi = lengths
    cls = type(_class_name(name), (FileTask,), {
        "name": name, "kind": USER_KIND, "output": output,
        "summary": (description.strip().splitlines() or
                    [f"task file {src.path.name}"])[0],
        "alphabet": alphabet, "lengths": (lo, hi), "source": src, "table": table,
        "definition": definition, "definition_digest": src.digest, "origin": str(src.path),
        "module": module, "_label_fn": _static(label), "_sample_fn": _static(sample),
        "_oracle_fn": _static(oracle), "_valid_fn": _static(valid),
        "__module__": module.__name__, **(extra or {}),
    })
    cls.params = (Param("n", int, lo, f"input length, {lo}..{hi}", minimum=lo, maximum=hi),
                  *_params(src, params))
    ns = [n for n in range(lo, min(hi, lo + 4096) + 1) if cls._valid_n(n)]
    if not ns:
        raise src.error("VALID" if valid else "LENGTHS",
                        f"no n in LENGTHS {lo}..{hi} is valid; widen LENGTHS or fix VALID")
    if table is not None:
        _one_class(src, definition, table, ns, (lo, hi))
    if cls.counter is not None:
        _has_members(src, cls, ns)
    small = [n for n in ns if len(alphabet) ** n <= 1 << 16 and n >= min(4, ns[-1])] or ns[:1]
    pick = np.unique(np.linspace(0, len(small) - 1, min(6, len(small))).round().astype(int))
    cls.analysis_ns = tuple(small[i] for i in pick)
    cls.train_ns = tuple(n for n in ns if n in (8, 16, 32, 64)) or tuple(dict.fromkeys(
        (ns[0], ns[-1])))
    default = next((n for n in ns if n >= min(8, hi)), ns[-1])
    cls.params = (Param("n", int, default, f"input length, {lo}..{hi}", minimum=lo,
                        maximum=hi, note="VALID(n)" if valid else ""), *cls.params[1:])
    smoke_check(cls)
    return cls


def _one_class(src: Any, definition: str, table: Any, ns: list[int],
               lengths: tuple[int, int]) -> None:
    """Refuse a REGEX or DFA that accepts no input, or every input, at every n checked
    (exactly, through the automaton): a task whose label is one constant."""
    shares = table.accept_probability(max(ns))[ns, table.start]
    if (shares == 0).all() or (shares == 1).all():
        which, label = ("no input", 0) if shares[0] == 0 else ("every input", 1)
        what = "pattern" if definition == "REGEX" else "automaton (its accept states)"
        span = f"{lengths[0]}..{max(ns)}" if max(ns) < lengths[1] else \
            f"{lengths[0]}..{lengths[1]}"
        verb = "matches" if definition == "REGEX" else "accepts"
        raise src.error(definition, f"{definition} {verb} {which} of any length n in "
                        f"{span}: every label would be {label}, a task with one class; fix "
                        f"the {what}")


def _has_members(src: Any, cls: Any, ns: list[int]) -> None:
    """Refuse a COUNTER that accepts no word at any valid n up to 64 (a task whose label
    is always 0), and one too big for its prefix oracle, before any work."""
    top = [n for n in ns if n <= 64] or ns[:1]
    try:
        oracle = counter_machines.CounterOracle(cls.counter, lengths_mask(top, top[-1]))
    except NoPrefixOracle as exc:
        raise src.error("COUNTER", f"COUNTER: {exc}") from None
    if not any(oracle.has_members(n) for n in top):
        raise src.error("COUNTER", f"COUNTER accepts no word of any valid length "
                        f"{top[0]}..{top[-1]}: every label would be 0; check its accepting "
                        "states, init and increments (a member ends with every counter at 0)")


def check_definition(cls: Any, digest: str | None) -> None:
    """Refuse to run a spec planned for another definition of its task: ``digest`` is the
    spec's (``RunSpec.definition``), ``cls`` the family this process loaded. A pool or Ray
    worker loads task files itself, so a file edited after the sweep planned its runs
    would otherwise be trained under the old definition's key."""
    have = getattr(cls, "definition_digest", "") or None
    if digest is not None and have != digest:
        where = getattr(cls, "origin", "") or cls.name
        raise TaskParameterError(
            f"task {cls.name}: this run was planned for the definition sha256:"
            f"{digest[:16]}, but {where} now has sha256:{(have or 'none')[:16]} (edited "
            "since?); run the sweep again to plan the runs of the current file")


def _read_only(x: np.ndarray) -> np.ndarray:
    """A view of ``x`` that the task file cannot write through: a label that changed its
    input in place would change the batch it labels (the tokens a model trains on)."""
    view = x.view()
    view.flags.writeable = False
    return view


def _static(fn: Callable | None) -> Any:
    # stored on the class, a plain function would be bound to the instance as ``self``
    return staticmethod(fn) if fn is not None else None


def _class_name(name: str) -> str:
    return "".join(p.capitalize() for p in re.split(r"[_\-]", name) if p) + "Task"


__all__ = ["USER_KIND", "RARE", "FileTask", "build_family", "check_definition"]
