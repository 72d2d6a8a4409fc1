"""The family class of a task file (:class:`FileTask`, one subclass per file, built by
:func:`.user.load_family`): the file's functions behind the :class:`Task` interface, with
uniform sampling balanced when one label is rare, as the built-in families balance theirs."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from ..errors import TaskParameterError
from .balance import balanced_choice, rejection_balance
from .base import Batch, Task
from .user_checks import call_user, check_labels
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
        return bool(call_user(cls, "VALID", cls._valid_fn, n))

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
        y = call_user(self, "label", self._label_fn, x, **self.extra)
        return check_labels(self, y, x, "label")

    def oracle(self, tokens):
        x = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if self._oracle_fn is not None:
            y = call_user(self, "oracle", self._oracle_fn, x, **self.extra)
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
        raise NotImplementedError(f"task file {self.origin} gives no oracle(x)")

    def output_mask(self, tokens):
        return np.ones(np.atleast_2d(tokens).shape, dtype=bool)

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

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """Token rows: the file's ``sample``, else uniform, label-balanced when one class
        is rarer than :data:`RARE` (exactly, through the automaton, for REGEX/DFA)."""
        n, k = self.n, len(self.alphabet)
        if self._sample_fn is not None:
            x = np.asarray(call_user(self, "sample", self._sample_fn, rng, count, n,
                                     **self.extra))
            if x.shape != (count, n) or x.dtype.kind not in "iu" or (
                    x.size and (x.min() < 0 or x.max() >= k)):
                raise self.source.error("sample", f"sample(rng, {count}, {n}) must return an "
                                        f"int array of shape ({count}, {n}) with values in "
                                        f"0..{k - 1}; got {x.dtype} {x.shape}")
            return x.astype(np.int64)
        if self.output != "final":
            return rng.integers(0, k, size=(count, n), dtype=np.int64)
        if self.table is not None:
            p1 = float(self.table.accept_probability(n)[n, self.table.start])
            if 0 < p1 < 1 and min(p1, 1 - p1) < RARE:
                return self.table.sample(rng, balanced_choice(rng, count), n)
            return rng.integers(0, k, size=(count, n), dtype=np.int64)
        share = self.share_of_ones()
        if min(share, 1 - share) >= RARE:
            return rng.integers(0, k, size=(count, n), dtype=np.int64)

        def uniform(m):
            x = rng.integers(0, k, size=(m, n), dtype=np.int64)
            return x, self.label(x)
        try:
            return rejection_balance(uniform, count, rng)[0]
        except TaskParameterError:
            raise TaskParameterError(
                f"{self.source.at('label')}: one label is too rare at n={n} to balance by "
                f"rejection (share {share:.2g} of uniform inputs); give "
                "sample(rng, count, n) in the task file") from None

    def sample(self, rng, count, distribution=None):
        self.resolve_distribution(distribution)
        count = self.check_count(count)
        x = self.draw(rng, count)
        y = self.label(x)
        mask = self.output_mask(x) if self.output != "final" else None
        return Batch(tokens=x, labels=y, mask=mask,
                     lengths=np.full(count, self.n, dtype=np.int64))

    def decision_view(self):
        if self.output == "final":
            return [self.whole_view("output", f"{self.name} of the {self.n} input tokens",
                                    sample=lambda rng, count: self.draw(rng, count))]
        last = self.whole_view("last", f"{self.name}: the label at the last position",
                               sample=lambda rng, count: self.draw(rng, count))
        return [dataclasses.replace(last, evaluate=lambda x: self.label(x)[:, -1])]


__all__ = ["USER_KIND", "RARE", "FileTask"]
