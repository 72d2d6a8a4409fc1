"""The empirical matrix's vocabulary, shared by every line's verdicts: the verdict names,
the thresholds (:class:`Thresholds`, written into every cell and report), a point's seeds
combined (:class:`Aggregate`), a cell (:class:`EmpiricalCell`) and the one row name of a
run's task (:func:`cell_name`). The lines' rules are in :mod:`.empirical` (trained lines)
and :mod:`.llm_line` (few-shot prompting).
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import TheorybenchError
from ..experiments.lines import LINES as LINE_REGISTRY
from ..experiments.protocols import get_protocol
from ..tasks import TaskRef
from ..tasks.ref import spell_value
from .stats import wilson_interval

LINES = tuple(LINE_REGISTRY.names())
EASY, HARD, INSUFFICIENT, INCONCLUSIVE = "easy", "hard", "insufficient", "inconclusive"


@dataclass(frozen=True)
class Thresholds:
    target_accuracy: float = 0.99   # in-distribution / LLM: accuracy that counts as learned
                                    # (the profiles' training target, so the two agree)
    length_accuracy: float = 0.90   # length generalization: accuracy needed in every bin
    min_seeds: int = 1              # finished runs needed per tested point
    aggregate: str = "mean"         # how seeds are combined: mean | best | mean_of_fitted
    llm_alpha: float = 0.05         # llm: level of the one-sided binomial test against chance
    protocol: str = "theorybench"   # the protocol these thresholds come from
    fit_accuracy: float = 1.0       # mean_of_fitted: training-length accuracy a seed needs

    @classmethod
    def from_protocol(cls, name: str, **overrides: Any) -> "Thresholds":
        """The thresholds of a named protocol (:mod:`theorybench.experiments.protocols`)."""
        p = get_protocol(name)
        return cls(**{"target_accuracy": p.target_accuracy,
                      "length_accuracy": p.length_accuracy, "aggregate": p.aggregate,
                      "protocol": p.name, "fit_accuracy": p.fit_accuracy, **overrides})

    def describe(self) -> str:
        fitted = (f" (over the seeds whose training-length accuracy is >= "
                  f"{self.fit_accuracy:g}; the others are dropped)"
                  if self.aggregate == "mean_of_fitted" else "")
        return (f"protocol {self.protocol}: in-distribution Easy iff the "
                f"{'mean' if self.aggregate == 'mean_of_fitted' else self.aggregate} test "
                f"accuracy over seeds (best learning rate) is >= {self.target_accuracy:g} at "
                f"every tested n; length generalization Easy iff the best configuration's "
                f"{self.aggregate} accuracy{fitted} reaches >= {self.length_accuracy:g} in "
                f"every length bin; at least {self.min_seeds} finished run(s) per point; "
                f"{llm_describe(self)}")


@dataclass
class Aggregate:
    """Seeds of one point combined: mean, best and spread (max - min)."""

    mean: float
    best: float
    spread: float
    seeds: int
    #: the seeds' values, for intervals over seeds
    values: tuple[float, ...] = ()
    #: test examples behind the point (every seed's, pooled) and the 95 % Wilson interval
    #: of the pooled accuracy over them (None when the runs do not say how many)
    examples: int = 0
    wilson95: tuple[float, float] | None = None

    @classmethod
    def of(cls, values: list[float], counts: list[int | None] | None = None) -> "Aggregate":
        examples, wilson = 0, None
        if counts and len(counts) == len(values) and all(c and c > 0 for c in counts):
            examples = int(sum(counts))
            right = int(sum(round(v * c) for v, c in zip(values, counts)))
            wilson = wilson_interval(right, examples)
        return cls(mean=sum(values) / len(values), best=max(values),
                   spread=max(values) - min(values), seeds=len(values),
                   values=tuple(values), examples=examples, wilson95=wilson)

    @property
    def seed_range(self) -> tuple[float, float]:
        return (min(self.values), max(self.values)) if self.values else (self.mean, self.mean)

    def interval_text(self) -> str:
        """"0.97 (seeds 0.95-0.99; Wilson 0.96-0.98)": the mean, the seed range, the 95 %
        Wilson interval over the pooled test examples."""
        lo, hi = self.seed_range
        seeds = f"seeds {lo:.2f}-{hi:.2f}" if self.seeds > 1 else "1 seed"
        w = f"; Wilson {self.wilson95[0]:.2f}-{self.wilson95[1]:.2f}" if self.wilson95 else ""
        return f"{self.mean:.2f} ({seeds}{w})"

    def pick(self, how: str) -> float:
        """``best`` or the mean (``mean``, and ``mean_of_fitted`` once the unfit seeds are
        dropped)."""
        return self.best if how == "best" else self.mean


@dataclass
class EmpiricalCell:
    """The empirical verdict of one task on one line, with everything it rests on."""

    task: str
    line: str
    verdict: str
    thresholds: Thresholds
    by_n: dict[int, Aggregate] = field(default_factory=dict)
    sample_complexity: dict[int, int | None] = field(default_factory=dict)
    by_config: dict[str, dict[str, Aggregate]] = field(default_factory=dict)
    config_verdicts: dict[str, str] = field(default_factory=dict)
    best_config: str | None = None
    note: str = ""
    train_max_len: int | None = None
    #: llm line: n -> pooled statistics (accuracy, correct, count, chance, p_value,
    #: wilson_lower, above_chance, powered, unparseable, runs); and the same per model
    llm_by_n: dict[int, dict[str, Any]] = field(default_factory=dict)
    llm_models: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["thresholds"] = asdict(self.thresholds)
        return json.loads(json.dumps(d, default=str))


def _spec_task(spec: dict[str, Any]) -> str:
    return spec.get("task") or spec.get("family") or "?"


def cell_name(spec: dict[str, Any]) -> str:
    """The row a run belongs to: its task's one spelling, ``str(TaskRef)`` (``khop:k=3``;
    the bare family for the default variant), so that variants are never pooled and runs
    meet the predictions of their task. A family or value this version does not know keeps
    every parameter, in the same syntax."""
    task = _spec_task(spec)
    params = {k: v for k, v in (spec.get("params") or {}).items() if k != "n"}
    try:
        return _spelled(task, tuple(sorted(params.items())))
    except TypeError:  # an unhashable value from a hand-edited store: spell it uncached
        return _spelled.__wrapped__(task, tuple(sorted(params.items())))


@functools.lru_cache(maxsize=1024)
def _spelled(task: str, params: tuple) -> str:
    try:
        return str(TaskRef(task, params))
    except TheorybenchError:
        return task + "".join(f":{k}={spell_value(v)}" for k, v in params)


def row_name(task: str) -> str:
    """A task as a file names it -> its row name (:func:`cell_name`): ``khop:k=2`` as
    predictions write it, or ``khop[k=2]`` as reports did before there was one spelling,
    so that old files and new runs meet in one row; a name that does not parse is kept."""
    try:
        return str(TaskRef.parse(task, legacy=True))
    except TheorybenchError:
        return task


def llm_describe(thresholds: "Thresholds") -> str:
    """The llm thresholds, as written beside the tables."""
    return (f"llm Easy iff at every tested n the few-shot accuracy is above chance by an "
            f"exact one-sided binomial test at alpha {thresholds.llm_alpha:g} (chance = the "
            f"larger of the most frequent gold answer's share and 1/number of answers; the "
            f"runs of a model at one n pooled; the pooled llm column sums the models' "
            f"prompts); Hard iff some n is not although its prompts could have shown it")
