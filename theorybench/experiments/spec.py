"""A run: a frozen, hashable spec with a stable key (the results store's primary key).

``RunSpec.to_dict()`` is the JSON the store keeps (``RunRecord.spec``):
``{"line", "task", "params", "n", "train_max_len", "eval_bins", "model": {"size",
"encoding", "max_positions"}, "training": {...}, "seed", "train_size"}``; fields that do
not apply to the line are None (``n`` for length generalization, ``train_max_len`` and
``eval_bins`` for in-distribution). ``train_size`` None means online training (fresh
batches every step). ``key`` is the first 16 hex digits of the SHA-256 of that JSON with
sorted keys, so the same spec always gets the same key. ``unique_inputs`` and
``unique_specs`` make a plan hold each task, seed and run once.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .. import tasks
from ..errors import ConfigError, TaskParameterError
from ..tasks.ref import spell_value
from .data import MEMBERSHIP, NEXT_SYMBOL, OBJECTIVES, SET_OBJECTIVES
from .model import size_shape
from .positional import ENCODINGS
from .samplers import parse_sampler
from .trainer import TrainingConfig
from .lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION, trained_lines

LINES = (IN_DISTRIBUTION, LENGTH_GENERALIZATION)
#: Length bins of the length-generalization line: (lowest, highest) input length.
DEFAULT_BINS = ((1, 32), (33, 64), (65, 128), (129, 256))


def bin_label(lo: int, hi: int, first: bool = False) -> str:
    """``"<=32"`` for the first bin, ``"33-64"`` for the others."""
    return f"<={hi}" if first else f"{lo}-{hi}"


@dataclass(frozen=True)
class RunSpec:
    line: str
    task: str
    params: tuple = ()                 # sorted (name, value) pairs besides n
    n: int | None = None               # in-distribution: the size trained and tested
    train_max_len: int | None = None   # length generalization: longest training input
    eval_bins: tuple | None = None     # length generalization: ((lo, hi), ...)
    size: str = "small"                # model size name (model.SIZES)
    encoding: str = "nope"             # positional encoding name (positional.ENCODINGS)
    max_positions: int | None = None   # position table size; None = enough for every input
    training: TrainingConfig = field(default_factory=TrainingConfig)
    seed: int = 0
    train_size: int | None = None      # fixed training-set size; None = online
    #: SHA-256 of a task file's bytes (tasks.user); None for the built-in families, whose
    #: keys therefore do not change. An edited task file gets new keys: it trains again.
    definition: str | None = None
    #: what is trained: the task's label ("membership") or, for a language, the next-symbol
    #: sets of its members ("next_symbol", :mod:`.data`); stored only when not membership,
    #: so the keys of earlier runs do not change
    objective: str = MEMBERSHIP
    #: how the next-symbol objective draws members (:mod:`.samplers`, e.g.
    #: ``"huang_dn:depth=3"``); empty: each length uniform, then each member of it. Stored
    #: only when set, so the keys of earlier runs do not change
    sampler: str = ""

    def __post_init__(self):
        if self.definition is None and self.task in tasks.registry.FAMILIES:
            digest = getattr(tasks.registry.FAMILIES.get(self.task), "definition_digest", None)
            object.__setattr__(self, "definition", digest or None)
        if self.line not in trained_lines():
            raise ConfigError(f"unknown experiment line {self.line!r}; lines: "
                              f"{', '.join(trained_lines())}")
        size_shape(self.size)
        if self.encoding not in ENCODINGS:
            raise ConfigError(f"unknown positional encoding {self.encoding!r}; known "
                              f"encodings: {', '.join(ENCODINGS)}")
        if self.line == IN_DISTRIBUTION and self.n is None:
            raise ConfigError("an in-distribution run needs n")
        if self.line == LENGTH_GENERALIZATION and (not self.train_max_len or not self.eval_bins):
            raise ConfigError("a length-generalization run needs train_max_len and eval_bins")
        if self.objective not in OBJECTIVES:
            raise ConfigError(f"unknown objective {self.objective!r}; objectives: "
                              f"{', '.join(OBJECTIVES)}")
        if self.sampler:
            parse_sampler(self.sampler)
            if self.objective not in SET_OBJECTIVES:
                raise ConfigError(f"a sampler ({self.sampler!r}) draws members of a language; "
                                  f"it needs objective {NEXT_SYMBOL!r} or "
                                  f"{SET_OBJECTIVES[1]!r}, not {self.objective!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.train_size is not None and self.train_size < 1:
            raise ConfigError(f"train_size must be a positive integer or None, got {self.train_size}")

    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line, "task": self.task, "params": dict(self.params), "n": self.n,
            "train_max_len": self.train_max_len,
            "eval_bins": [list(b) for b in self.eval_bins] if self.eval_bins else None,
            "model": {"size": self.size, "encoding": self.encoding,
                      "max_positions": self.max_positions},
            "training": self.training.to_dict(), "seed": self.seed,
            "train_size": self.train_size,
        } | ({"definition": self.definition} if self.definition else {}) \
          | ({"objective": self.objective} if self.objective != MEMBERSHIP else {}) \
          | ({"sampler": self.sampler} if self.sampler else {})

    @classmethod
    def from_dict(cls, d: dict) -> "RunSpec":
        model = d.get("model", {})
        bins = d.get("eval_bins")
        return cls(line=d["line"], task=d["task"], params=tuple(sorted(d.get("params", {}).items())),
                   n=d.get("n"), train_max_len=d.get("train_max_len"),
                   eval_bins=tuple(tuple(b) for b in bins) if bins else None,
                   size=model.get("size", "small"), encoding=model.get("encoding", "nope"),
                   max_positions=model.get("max_positions"),
                   training=TrainingConfig(**d.get("training", {})), seed=d.get("seed", 0),
                   train_size=d.get("train_size"), definition=d.get("definition"),
                   objective=d.get("objective", MEMBERSHIP), sampler=d.get("sampler", ""))

    @property
    def key(self) -> str:
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe(self) -> str:
        where = f"n={self.n}" if self.n is not None else f"train<={self.train_max_len}"
        extra = f" params={self.param_dict}" if self.params else ""
        size = f" train_size={self.train_size}" if self.train_size else ""
        objective = f" [{self.objective}]" if self.objective != MEMBERSHIP else ""
        objective += f" [{self.sampler}]" if self.sampler else ""
        return (f"{self.line} {self.task} {where}{extra} {self.size}/{self.encoding}"
                f"{size}{objective} seed={self.seed}")


# ---- the plan: each task, seed and run once --------------------------------------------

def unique_inputs(task_names: Sequence[str] | None, seeds: Sequence[int] | None
                  ) -> tuple[list[str] | None, list[int] | None, list[str]]:
    """The tasks and seeds of a sweep, each once in the order given, and one note per
    kind of repeat (``--tasks parity,parity``, ``--seeds 0 0 1``, ``khop khop:k=1``: the
    same task). A task is compared as a :class:`~theorybench.tasks.TaskRef` and kept as its
    first occurrence was written (its parameters as given, so run keys do not change)."""
    notes: list[str] = []
    out_tasks = None
    if task_names:
        try:
            refs = tasks.parse_refs(list(task_names))
        except TaskParameterError as exc:
            raise ConfigError(str(exc)) from None
        first: dict[tasks.TaskRef, tasks.TaskRef] = {}
        repeats: dict[tasks.TaskRef, int] = {}
        for ref in refs:
            if ref in first:
                repeats[ref] = repeats.get(ref, 1) + 1
            else:
                first[ref] = ref
        out_tasks = [_as_written(r) for r in first.values()]
        if repeats:
            notes.append("note: tasks given more than once run once: " + ", ".join(
                f"{r} ({k} times)" for r, k in repeats.items()))
    out_seeds = None
    if seeds:
        out_seeds = list(dict.fromkeys(seeds))
        if len(out_seeds) < len(seeds):
            twice = sorted({s for s in seeds if list(seeds).count(s) > 1})
            notes.append("note: seeds given more than once run once: "
                         + ", ".join(map(str, twice)))
    return out_tasks, out_seeds, notes


def unique_specs(specs: Iterable[Any], notes: Sequence[str] = (), show: bool = False
                 ) -> tuple[list[Any], list[str]]:
    """Run specs (RunSpec or LLMSpec) each once by key, in order, and ``notes`` plus one
    for repeats no note on the tasks or seeds explains (specs passed in directly): a plan
    counts and runs every run once. ``show``: the notes go to stderr too."""
    seen: dict[str, Any] = {}
    total = 0
    for spec in specs:
        total += 1
        seen.setdefault(spec.key, spec)
    notes = list(notes)
    if total > len(seen) and not notes:
        notes.append(f"note: {total - len(seen)} run(s) of the plan were given more than "
                     "once and run once")
    for note in notes if show else ():
        print(note, file=sys.stderr, flush=True)
    return list(seen.values()), notes


def _as_written(ref: "tasks.TaskRef") -> str:
    return ref.family + "".join(f":{k}={spell_value(v)}" for k, v in ref.written)
