"""Task batches -> torch tensors for the output kinds of the task suite and the two objectives.

A :class:`TaskData` wraps one task family at one or several sizes n (several when lengths
are mixed, as in length generalization). Token strings of all those instances are merged
into one vocabulary (id 0 is the padding token), and the label strings into one label
vocabulary, so one model reads every size.

What the model sees and which positions are scored (``targets`` holds ``IGNORE`` elsewhere):

* ``final``: the input as is; the label is read at the last real input position (no query
  token is appended: the last position already attends to the whole input).
* ``per_position`` (khop): the input as is; position i is scored against label i where
  the task's mask is set.
* ``answer`` (binary_add): input followed by the answer tokens (teacher forcing); answer
  token j is predicted at the position just before it, i.e. at ``len - 1 + j``. Only
  answer positions are scored (answer-only loss).

* ``next_symbol`` (the objective ``next_symbol`` of a language task): the model reads a
  member of the language after a ``<bos>`` token; position t (after t letters) is scored
  against the set of symbols that may come next, end of string included
  (:mod:`theorybench.tasks.prefix`; the target is the set's bitmask, the read-out has one
  logit per letter plus one for end of string, trained with a per-symbol binary
  cross-entropy). The targets are those of Bhattamishra et al. (EMNLP 2020) and of Huang et
  al.'s formal-language suite (ICLR 2025); their losses differ: Bhattamishra et al. fit
  sigmoid outputs per symbol by squared error (src/model.py of their code), Huang et al.
  train a cross-entropy over the sets (``next_symbol_set`` below). Training rows are
  members only, each length uniform over the lengths that have members.

* ``next_symbol_set`` (the objective of that name): the same strings and sets, but each
  set is one class of a softmax over the sets (a read-out of ``2 ** (letters + 1)``
  logits, one per bitmask, trained with a cross-entropy): Huang et al.'s
  ``formal_lang_suite/train_with_ce.py`` (commit b39b743), which maps each distinct
  multi-hot target to one token and trains a cross-entropy over those tokens. Only
  alphabets of at most :data:`MAX_SET_LETTERS` letters (the classes are bounded in advance).

Accuracy (:func:`accuracy`): ``final`` and ``per_position`` - the fraction of scored
positions predicted right (for ``final`` that is the fraction of inputs); ``answer`` -
exact match: the fraction of rows whose answer tokens are all right; ``next_symbol`` - the
fraction of strings whose every set is predicted exactly (a symbol is predicted allowed
when its logit is positive; for ``next_symbol_set``, the set whose class has the largest
logit). Under teacher forcing
this equals the exact match of greedy decoding: greedy output agrees with the truth up to
the first wrong prediction, which is a wrong prediction under teacher forcing too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
import torch

from .. import tasks
from ..errors import ConfigError, TaskParameterError
from ..tasks.prefix import EOS
from .samplers import draw_members, make_sampler

IGNORE = -100
PAD_TOKEN = "<pad>"
BOS_TOKEN = "<bos>"
#: What a run trains: the task's own label (``membership``: one label per input for a
#: language) or, for a language, the next-symbol sets of its members.
MEMBERSHIP, NEXT_SYMBOL, NEXT_SET = "membership", "next_symbol", "next_symbol_set"
OBJECTIVES = (MEMBERSHIP, NEXT_SYMBOL, NEXT_SET)
#: The objectives that train a language's next-symbol sets (one logit per symbol, or one
#: per set).
SET_OBJECTIVES = (NEXT_SYMBOL, NEXT_SET)
#: ``next_symbol_set`` has one class per subset of letters and end of string: 2 ** 9 = 512
#: classes at most.
MAX_SET_LETTERS = 8


@dataclass
class TorchBatch:
    inputs: torch.Tensor   # int64 (B, T) unified token ids, padded with 0 at the end
    targets: torch.Tensor  # int64 (B, T) label ids at scored positions, IGNORE elsewhere

    def __len__(self) -> int:
        return int(self.inputs.shape[0])

    def select(self, index: torch.Tensor) -> "TorchBatch":
        return TorchBatch(self.inputs[index], self.targets[index])


def make_task(family: str, n: int, params: dict) -> tasks.Task:
    try:
        return tasks.get(family, n=n, **params)
    except TaskParameterError as exc:
        raise ConfigError(f"task {family} with n={n}: {exc}") from None


def input_length(task: tasks.Task) -> int:
    """The input length in tokens of a task instance (n when the task does not say)."""
    try:
        return int(task.input_length())
    except Exception:  # variable-length families may not define it
        return int(task.n)


@lru_cache(maxsize=256)
def _sizes(family: str, params_key: tuple, lo: int, hi: int) -> tuple[int, ...]:
    params = dict(params_key)
    fam = tasks.family(family)
    nparam = next((p for p in fam.params if p.name == "n"), None)
    start = max(1, nparam.minimum if nparam and nparam.minimum is not None else 1)
    out = []
    for n in range(start, hi + 1):
        try:
            task = tasks.get(family, n=n, **params)
        except TaskParameterError:
            continue
        length = input_length(task)
        if length > hi:
            break
        if length >= lo:
            out.append(n)
    return tuple(out)


def sizes_in_range(family: str, params: dict, lo: int, hi: int) -> list[int]:
    """Every valid n whose input length lies in [lo, hi] (e.g. only odd n for majority)."""
    return list(_sizes(family, tuple(sorted(params.items())), lo, hi))


#: Extra letters beyond twice the longest length of a run that the next-symbol oracle
#: looks ahead for completions (see ``TaskData._init_next_symbol``).
HORIZON_SLACK = 64


def horizon(hi: int) -> int:
    """The length up to which the next-symbol oracle of a run whose longest string has
    ``hi`` letters searches for completions."""
    return 2 * int(hi) + HORIZON_SLACK


class TaskData:
    """Samples torch batches of one family at the sizes ``ns`` (mixed uniformly).

    ``objective="next_symbol"`` trains the family's language instead of its label: the
    sizes without members are dropped (``ns`` tells which remain), and a family with no
    prefix oracle raises :class:`~theorybench.errors.NoPrefixOracle` saying why."""

    def __init__(self, family: str, params: dict, ns: Sequence[int],
                 objective: str = MEMBERSHIP, sampler: str | None = None):
        if not ns:
            raise ConfigError(f"task {family}: no valid sizes n were given")
        if objective not in OBJECTIVES:
            raise ConfigError(f"unknown objective {objective!r}; objectives: "
                              f"{', '.join(OBJECTIVES)}")
        self.family, self.params, self.objective = family, dict(params), objective
        self.sampler, self.draw = sampler or None, None
        if self.sampler and objective not in SET_OBJECTIVES:
            raise ConfigError(f"a sampler ({sampler!r}) draws members of a language: it needs "
                              f"a next-symbol objective, not {objective!r}")
        self.tasks = {int(n): make_task(family, int(n), self.params) for n in ns}
        if objective in SET_OBJECTIVES:
            self._init_next_symbol(family)
            if self.sampler:
                self.draw = make_sampler(self.sampler)
            return
        outputs = {t.output for t in self.tasks.values()}
        if len(outputs) != 1:
            raise ConfigError(f"task {family} changes its output kind with n: {outputs}")
        self.output = outputs.pop()
        index: dict[str, int] = {PAD_TOKEN: 0}
        lindex: dict[str, int] = {}
        for task in self.tasks.values():
            extra = list(task.label_vocab) if self.output == "answer" else []
            for tok in list(task.vocab) + extra:
                index.setdefault(tok, len(index))
            for lab in task.label_vocab:
                lindex.setdefault(lab, len(lindex))
        self.vocab, self.label_vocab = tuple(index), tuple(lindex)
        self.token_map = {n: np.array([index[t] for t in task.vocab], dtype=np.int64)
                          for n, task in self.tasks.items()}
        self.label_map = {n: np.array([lindex[t] for t in task.label_vocab], dtype=np.int64)
                          for n, task in self.tasks.items()}
        self.answer_map = {n: np.array([index.get(t, 0) for t in task.label_vocab], dtype=np.int64)
                           for n, task in self.tasks.items()}  # used by answer tasks only

    def _init_next_symbol(self, family: str) -> None:
        hi = max(self.tasks)
        top = self.tasks[hi]
        if top.output != "final":
            raise ConfigError(f"task {family}: the next-symbol objective needs a language "
                              f"(one label per input), not output {top.output!r}")
        # The sets are those of the language itself, not of its words up to the longest
        # length of this run: with a horizon at ``hi``, a letter near the end of a long
        # test string would be disallowed only because no completion fits below ``hi``,
        # a cut that training (shorter strings) never shows, so a model that generalizes
        # would be scored wrong there. Bhattamishra et al. (2020) and Huang et al. (2025)
        # score against the unbounded language. The horizon HORIZON(hi) covers every
        # completion a prefix of length <= hi needs for Dyck (depth <= hi) and for an
        # automaton of at most hi + HORIZON_SLACK states whose lengths are all valid; the
        # family's own largest length still bounds it.
        self.oracle = top.prefix_oracle(horizon(hi))
        lo = min(self.tasks)
        self.tasks = {n: t for n, t in self.tasks.items() if self.oracle.has_members(n)}
        if not self.tasks:
            raise ConfigError(f"task {family}: its language has no member at the lengths "
                              f"asked for ({lo}..{hi}); the next-symbol objective trains "
                              f"on members")
        pad = top.pad_id
        letters = [t for i, t in enumerate(top.vocab) if i != pad]
        if pad is not None and pad != len(top.vocab) - 1:
            raise ConfigError(f"task {family}: the next-symbol objective needs the pad "
                              f"token last in the vocabulary")
        self.output = self.objective
        self.letters = tuple(letters)
        self.vocab = (PAD_TOKEN, BOS_TOKEN) + tuple(letters)
        symbols = tuple(letters) + (EOS,)
        self.label_vocab = symbols
        if self.objective == NEXT_SET:
            if len(letters) > MAX_SET_LETTERS:
                raise ConfigError(f"task {family}: objective {NEXT_SET!r} has one class per "
                                  f"set of next symbols, 2 ** {len(symbols)} for its "
                                  f"{len(letters)} letters; it takes at most "
                                  f"{MAX_SET_LETTERS} letters: use {NEXT_SYMBOL!r}")
            # class k is the set whose bitmask is k (bit i: symbols[i] may come next)
            self.label_vocab = tuple(
                "{" + ",".join(sym for i, sym in enumerate(symbols) if k >> i & 1) + "}"
                for k in range(2 ** len(symbols)))
        self.letter_ids = np.arange(2, 2 + len(letters), dtype=np.int64)

    @property
    def ns(self) -> list[int]:
        return sorted(self.tasks)

    def sample(self, rng: np.random.Generator, count: int,
               ns: Sequence[int] | None = None) -> TorchBatch:
        """``count`` fresh instances; each row's n uniform over ``ns`` (default: all), or
        with a sampler, its strings with lengths in ``min(ns)..max(ns)``."""
        ns = list(ns) if ns is not None else self.ns
        if self.draw is not None:
            return self._drawn(rng, count, min(ns), max(ns))
        if len(ns) == 1:
            groups = {ns[0]: count}
        else:
            picks = rng.choice(np.array(ns), size=count)
            groups = {int(n): int((picks == n).sum()) for n in ns}
        parts = [self._group(rng, n, c) for n, c in groups.items() if c]
        width = max(p[0].shape[1] for p in parts)
        inputs = np.concatenate([_pad(p[0], width, 0) for p in parts])
        targets = np.concatenate([_pad(p[1], width, IGNORE) for p in parts])
        return TorchBatch(torch.from_numpy(inputs), torch.from_numpy(targets))

    def stream(self, rng: np.random.Generator, count: int,
               ns: Sequence[int] | None = None, block: int = 256) -> "MixedStream":
        """Training batches of ``count`` rows with each row's n uniform over ``ns``, as
        :meth:`sample` gives, but drawn from per-n buffers (``count + block`` instances
        each): one ``task.sample`` call per n about every ``block`` rows of that n, instead
        of one per n per batch. With a sampler: fresh draws of :meth:`sample` per batch."""
        ns = self.ns if ns is None else ns
        if self.draw is not None:
            return lambda step=None: self.sample(rng, count, ns)
        return MixedStream(self, rng, count, ns, block)

    def _drawn(self, rng, count, lo, hi) -> TorchBatch:
        strings = draw_members(self.draw, rng, count, lo, hi, self.letters)
        lengths = np.array([len(x) for x in strings])
        parts = []
        for n in np.unique(lengths):   # rows grouped by length, as sample() groups them
            x = np.stack([strings[i] for i in np.nonzero(lengths == n)[0]]).reshape(-1, int(n))
            sets = self.oracle.next_sets(x)
            member = (sets[:, -1] >> len(self.letters) & 1).astype(bool)  # may end here
            if not member.all():
                bad = "".join(self.letters[int(c)] for c in x[~member][0])
                raise ConfigError(f"sampler {self.sampler!r} drew {bad!r}, which is not a "
                                  f"member of task {self.family}: the sampler does not fit "
                                  f"the task")
            seq = np.concatenate([np.ones((len(x), 1), dtype=np.int64), self.letter_ids[x]], 1)
            parts.append((seq, sets))
        width = max(p[0].shape[1] for p in parts)
        inputs = np.concatenate([_pad(p[0], width, 0) for p in parts])
        targets = np.concatenate([_pad(p[1], width, IGNORE) for p in parts])
        return TorchBatch(torch.from_numpy(inputs), torch.from_numpy(targets))

    def _group(self, rng, n, count):
        if self.output in SET_OBJECTIVES:
            x = self.oracle.members(rng, count, n)
            seq = np.concatenate([np.ones((count, 1), dtype=np.int64), self.letter_ids[x]], 1)
            return seq, self.oracle.next_sets(x)
        task = self.tasks[n]
        batch = task.sample(rng, count)
        tok = self.token_map[n][batch.tokens]
        if task.pad_id is not None:
            tok = np.where(batch.tokens == task.pad_id, 0, tok)
        lengths = np.asarray(batch.lengths, dtype=np.int64)
        rows = np.arange(count)
        if self.output == "final":
            tgt = np.full(tok.shape, IGNORE, dtype=np.int64)
            tgt[rows, lengths - 1] = self.label_map[n][batch.labels]
            return tok, tgt
        labels = self.label_map[n][batch.labels]
        mask = (np.ones(labels.shape, dtype=bool) if batch.mask is None
                else np.asarray(batch.mask, dtype=bool))
        if self.output == "per_position":
            tgt = np.full(tok.shape, IGNORE, dtype=np.int64)
            w = labels.shape[1]
            tgt[:, :w] = np.where(mask, labels, IGNORE)
            return tok, tgt
        # answer: input, then every answer token; answer j is predicted at len - 1 + j
        answer = self.answer_map[n][batch.labels]
        a = answer.shape[1]
        t = int(lengths.max()) + a
        pos = np.arange(t)[None, :]
        from_input = np.take_along_axis(tok, np.minimum(pos, tok.shape[1] - 1).repeat(count, 0), 1)
        ans_idx = np.clip(pos - lengths[:, None], 0, a - 1)
        from_answer = np.take_along_axis(answer, ans_idx, 1)
        seq = np.where(pos < lengths[:, None], from_input,
                       np.where(pos < lengths[:, None] + a, from_answer, 0))
        tgt = np.full((count, t), IGNORE, dtype=np.int64)
        r, j = np.nonzero(mask)
        tgt[r, lengths[r] - 1 + j] = labels[r, j]
        return seq, tgt

    @lru_cache(maxsize=None)
    def sequence_length(self, n: int) -> int:
        """Longest model input (input plus answer tokens) at size n."""
        if self.output in SET_OBJECTIVES:
            # <bos> and n letters; no sampler is asked for one length alone (a sampler
            # that draws a set per window would draw one per length)
            return n + 1
        return int(self.sample(np.random.default_rng(0), 8, [n]).inputs.shape[1])

    def max_sequence_length(self) -> int:
        return max(self.sequence_length(n) for n in self.ns)


class MixedStream:
    """Mixed-size batches from per-n buffers (see :meth:`TaskData.stream`).

    The buffers are slabs of one padded array (``count + block`` rows per n), so a batch is one
    gather, whatever the number of sizes. A slab is refilled with fresh instances when it
    runs short (its unused rows are kept in front), so no instance is used twice; a
    batch's rows are grouped by n in increasing order, as in :meth:`TaskData.sample`."""

    def __init__(self, data: TaskData, rng: np.random.Generator, count: int,
                 ns: Sequence[int], block: int):
        if count < 1 or block < 1:
            raise ConfigError(f"a batch stream needs count >= 1 and block >= 1, got {count}, {block}")
        self.data, self.rng, self.count, self.block = data, rng, count, block
        self.ns = np.array(sorted(int(n) for n in ns))
        self.width = max(data.sequence_length(int(n)) for n in self.ns)
        self.inputs = np.zeros((0, self.width), dtype=np.int64)
        self.targets = np.zeros((0, self.width), dtype=np.int64)
        self.slab = 0                                   # rows per n in the arrays
        self.used = np.zeros(len(self.ns), dtype=np.int64)  # rows of each slab consumed

    def _grow(self, rows: int) -> None:
        """Refill every slab that has fewer than ``rows`` unused instances."""
        slab = max(self.slab, rows + self.block, self.count + self.block)
        if slab > self.slab:
            # new slabs: every slab is refilled (a slab's unused rows kept in front), so no
            # row of the larger slab is left empty
            shape = (len(self.ns) * slab, self.width)
            inputs, targets = np.zeros(shape, dtype=np.int64), np.full(shape, IGNORE, dtype=np.int64)
            for i in range(len(self.ns)):
                src = slice(i * self.slab, (i + 1) * self.slab)
                inputs[i * slab:i * slab + self.slab] = self.inputs[src]
                targets[i * slab:i * slab + self.slab] = self.targets[src]
            self.inputs, self.targets = inputs, targets
            left, self.slab = self.slab - self.used, slab
            need = np.arange(len(self.ns))
        else:
            left = self.slab - self.used
            need = np.nonzero(left < rows)[0]
        for i in need:
            base, keep = i * self.slab, int(left[i])
            old = slice(base + int(self.used[i]), base + self.slab)
            self.inputs[base:base + keep] = self.inputs[old][:keep]
            self.targets[base:base + keep] = self.targets[old][:keep]
            tok, tgt = self.data._group(self.rng, int(self.ns[i]), self.slab - keep)
            if tok.shape[1] > self.width:  # a longer instance than sequence_length's probe saw
                extra = tok.shape[1] - self.width
                self.inputs = np.pad(self.inputs, ((0, 0), (0, extra)))
                self.targets = np.pad(self.targets, ((0, 0), (0, extra)), constant_values=IGNORE)
                self.width = tok.shape[1]
            rows = slice(base + keep, base + self.slab)
            self.inputs[rows] = 0
            self.targets[rows] = IGNORE
            self.inputs[rows, :tok.shape[1]] = tok
            self.targets[rows, :tgt.shape[1]] = tgt
            self.used[i] = 0

    def take(self, count: int) -> TorchBatch:
        """``count`` fresh instances, each row's n uniform over the stream's sizes."""
        if len(self.ns) == 1:
            counts = np.array([count])
        else:
            counts = np.bincount(np.searchsorted(self.ns, self.rng.choice(self.ns, size=count)),
                                 minlength=len(self.ns))
        if (self.slab - self.used < counts).any():
            self._grow(int(counts.max()))
        first = np.arange(len(self.ns)) * self.slab + self.used
        offsets = np.cumsum(counts) - counts
        index = np.repeat(first - offsets, counts) + np.arange(count)
        self.used += counts
        return trim(TorchBatch(torch.from_numpy(self.inputs[index]),
                               torch.from_numpy(self.targets[index])))

    def __call__(self, step: int | None = None) -> TorchBatch:
        return self.take(self.count)


def _pad(a: np.ndarray, width: int, value: int) -> np.ndarray:
    return a if a.shape[1] == width else np.pad(a, ((0, 0), (0, width - a.shape[1])),
                                                constant_values=value)


def predicted_sets(logits: torch.Tensor, output: str) -> torch.Tensor:
    """The set (bitmask) a model predicts at each position under a next-symbol objective:
    the symbols with a positive logit (``next_symbol``) or the class of the largest logit
    (``next_symbol_set``)."""
    if output == NEXT_SYMBOL:
        bits = 1 << torch.arange(logits.shape[-1], device=logits.device)
        return ((logits > 0).long() * bits).sum(-1)
    if output == NEXT_SET:
        return logits.argmax(-1)
    raise ConfigError(f"predicted sets are read for the next-symbol objectives, not {output!r}")


def scored_counts(logits: torch.Tensor, targets: torch.Tensor, output: str) -> tuple[int, int]:
    """(right, scored) - the numerator and denominator of :func:`accuracy`, so that chunks
    of one batch pool into the accuracy of the whole batch."""
    scored = targets != IGNORE
    if output == NEXT_SYMBOL:
        pred = predicted_sets(logits, output)
        rows = scored.any(1)
        return int((((pred == targets) | ~scored).all(1) & rows).sum()), int(rows.sum())
    right = (logits.argmax(-1) == targets) & scored
    if output in ("answer", NEXT_SET):
        rows = scored.any(1)
        return int(((right | ~scored).all(1) & rows).sum()), int(rows.sum())
    return int(right.sum()), int(scored.sum())


def accuracy(logits: torch.Tensor, targets: torch.Tensor, output: str) -> float:
    """Accuracy as defined in the module docstring (exact match for ``answer``)."""
    right, scored = scored_counts(logits, targets, output)
    return right / max(1, scored)


def used_widths(batch: TorchBatch) -> torch.Tensor:
    """Per row, the length of its prefix that holds a real token or a scored position
    (trailing columns beyond it are padding the model need not read)."""
    used = (batch.inputs != 0) | (batch.targets != IGNORE)
    width = used.shape[1] - used.flip(1).to(torch.int8).argmax(1)
    return torch.where(used.any(1), width, torch.ones_like(width))


def trim(batch: TorchBatch) -> TorchBatch:
    """``batch`` without its trailing all-padding columns (exact for causal models: a
    position never reads later ones)."""
    if not len(batch):
        return batch
    width = int(used_widths(batch).max())
    if width == batch.inputs.shape[1]:
        return batch
    return TorchBatch(batch.inputs[:, :width], batch.targets[:, :width])


def chance_accuracy(batch: TorchBatch, output: str, num_labels: int) -> float:
    """Accuracy of the best input-independent predictor on ``batch``: the most frequent
    label (final), the most frequent label at each position (per_position), or the most
    frequent whole answer (answer, exact match) or whole row of sets (next_symbol; a lower
    bound on the best fixed sequence of sets when rows differ in length)."""
    tgt = batch.targets.numpy()
    scored = tgt != IGNORE
    if output == "final":
        return float(np.bincount(tgt[scored], minlength=num_labels).max() / max(1, scored.sum()))
    if output in ("answer", NEXT_SYMBOL, NEXT_SET):
        _, counts = np.unique(np.where(scored, tgt, -1), axis=0, return_counts=True)
        return float(counts.max() / len(tgt))
    cols = np.nonzero(scored)[1]
    table = np.zeros((tgt.shape[1], num_labels), dtype=np.int64)
    np.add.at(table, (cols, tgt[scored]), 1)
    return float(table.max(1).sum() / max(1, scored.sum()))
