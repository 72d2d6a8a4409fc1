"""What a construction is: set weights for one task instance, with the claims made about
them (shape, temperature as a function of n, the margin the real-arithmetic model
guarantees), the specification in z3 terms, and the certificate a verification returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import torch

from ..tasks.base import Task
from .model import SetTransformer, Weights


@dataclass
class Construction:
    """A softmax transformer with set weights for ``task`` at its n.

    ``hard_margin``: the margin of the model with every peaked head replaced by its argmax
    (for uniform-only models: of the model itself), in real arithmetic. ``gaps[l]``: the
    score gap (before ``beta``) every peaked head of layer l claims between its argmax and
    every other key; None for a layer of uniform heads. ``spec(xs)``: the task's label in z3
    terms of the token variables (one Int per position; a list per position for
    ``per_position`` outputs); ``valid(xs)``: the z3 constraint of well-formed inputs.
    """

    name: str
    task: Task
    weights: Weights
    summary: str
    temperature: str                   # beta as a function of n, in words
    margin_formula: str                # guaranteed margin as a function of n
    hard_margin: Fraction
    gaps: list[Fraction | None]
    spec: Callable[[list], Any]
    valid: Callable[[list], Any] | None = None
    source: str = ""
    notes: list[str] = field(default_factory=list)
    #: Majority-like: the weights do not depend on n (no positional information), so a
    #: statement in the token counts covers every n: ``count_spec(counts, n)`` is the
    #: label in z3 terms of the counts, ``n_ok(n)`` the lengths the task allows.
    count_spec: Callable[[list, Any], Any] | None = None
    n_ok: Callable[[Any], Any] | None = None

    @property
    def n(self) -> int:
        return int(self.task.n)

    @property
    def length(self) -> int:
        return int(self.task.input_length())

    def module(self, dtype: torch.dtype = torch.float64) -> SetTransformer:
        return SetTransformer(self.weights, dtype=dtype)

    def shape(self) -> dict[str, Any]:
        w = self.weights
        return {"layers": len(w.layers), "heads": [l.heads for l in w.layers],
                "width": w.width, "mlp": [int(l.w1.shape[1]) for l in w.layers],
                "parameters": w.parameter_count(), "max_len": w.max_len,
                "classes": int(w.w_out.shape[1]), "output": w.output}

    def betas(self) -> list[list[float]]:
        return [[float(b) if not u else 0.0 for b, u in zip(l.beta, l.uniform_heads())]
                for l in self.weights.layers]

    def describe(self) -> dict[str, Any]:
        return {"construction": self.name, "task": self.task.spec(), "summary": self.summary,
                "shape": self.shape(), "temperature": self.temperature,
                "beta": self.betas(), "margin": self.margin_formula,
                "hard_margin": str(self.hard_margin), "source": self.source,
                "notes": list(self.notes)}

    def labels(self, tokens: np.ndarray) -> np.ndarray:
        return np.asarray(self.task.label(tokens), dtype=np.int64)


@dataclass
class Certificate:
    """What one verification established, for which n, by which method, in how long.

    ``status``: ``proved`` (real arithmetic, every input of the stated lengths, or all n),
    ``verified`` (a finite check passed: every input, floating point), ``refuted`` (a
    counter-example is in ``counterexample``), ``unknown`` (solver timeout or a method that
    could not decide; never counted as a proof)."""

    construction: str
    n: int
    method: str
    status: str
    claim: str
    seconds: float
    inputs: int | None = None
    margin: str | None = None          # proved lower bound on the margin
    observed_margin: float | None = None
    counterexample: list[int] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status in ("proved", "verified")

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        return {k: v for k, v in d.items() if v is not None and v != {}}
