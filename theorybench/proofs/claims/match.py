"""Which tasks a claim is about: matched by the task's function, never by its name.

A claim's ``settles`` entries name its *reference* task (``khop:k=2``, ``binary_add``): the
task whose function its proof is about. A matrix cell (theory, task) is settled by the
claim when the task computes that function - checked here on every input of every size n
of the reference's analysis range whose input space has at most MATCH_LIMIT sequences:
the same token choices per position, the same valid inputs, the same outputs (and output
mask) on each. A task that does not build at one of those n does not match. At the
reference's larger training sizes the two are compared on SAMPLES inputs drawn by the
reference's sampler (seed 0), where the task builds: that can only turn a match away (a
depth bound that the small sizes never reach, for instance).

The check is finite. The reference family itself, shipped with theorybench, defines its
function for every n by its code, so the claim's certificate carries to its cell as it is
(``all_n``); any other task that matches - a built-in under another name, a task file - is
known to agree only up to the largest n checked, and a cell it gets is at most
``verified <= N`` (:func:`theorybench.theories.rules.claim_rule`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import TheorybenchError
from ...registry import BUILTIN
from ...tasks import TaskRef, registry
from ...tasks.base import product_space

#: Largest input space (sequences, before ``valid``) compared input by input per n.
MATCH_LIMIT = 1 << 16
#: Fewest sizes that must be compared for a match.
MIN_NS = 2
#: Inputs drawn per larger size (the reference's ``train_ns`` above the compared sizes).
SAMPLES = 1000


@dataclass(frozen=True)
class FunctionMatch:
    """The task's function equals the claim's reference at ``ns`` (``inputs`` in all)."""

    task: str
    reference: str
    ns: tuple[int, ...]
    inputs: int
    all_n: bool
    sampled: tuple[int, ...] = ()

    @property
    def up_to(self) -> int:
        return max(self.ns)

    def to_dict(self) -> dict[str, Any]:
        if self.all_n:
            why = (f"{self.task} is the claim's reference task {self.reference}, a family "
                   f"shipped with theorybench: its code defines the function for every n")
        else:
            why = (f"{self.task}'s function equals that of the claim's reference "
                   f"{self.reference} on every input at n = {list(self.ns)} ({self.inputs:,} "
                   f"inputs)" + (f" and on {SAMPLES} sampled inputs at n = "
                                 f"{list(self.sampled)}" if self.sampled else "") +
                   f"; not for every n, so the cell is at most verified <= {self.up_to}")
        return {"task": self.task, "reference": self.reference, "ns": list(self.ns),
                "inputs": self.inputs, "sampled_ns": list(self.sampled),
                "all_n": self.all_n, "why": why}


def same_function(task: str, reference: str) -> FunctionMatch | None:
    """The match of task ``task`` (CLI syntax) with the reference task ``reference``, or
    None when their functions differ at a checked n (or either does not build)."""
    try:
        cand, ref = TaskRef.of(task), TaskRef.of(reference)
        cand_cls, ref_cls = registry.family(cand.family), registry.family(ref.family)
    except TheorybenchError:
        return None
    # keyed by the classes themselves: a re-registered or reloaded family is a new class
    got = _compare(cand_cls, cand.params, ref_cls, ref.params)
    if got is None:
        return None
    ns, inputs, sampled = got
    itself = (cand == ref and cand_cls is ref_cls
              and registry.FAMILIES.origin(ref.family) == BUILTIN)
    return FunctionMatch(str(cand), str(ref), ns, inputs, itself, sampled)


def _sizes(ref_cls, ref_params: tuple) -> list[int]:
    out = []
    for n in getattr(ref_cls, "analysis_ns", ()):
        try:
            t = ref_cls(n=n, **dict(ref_params))
            size = int(np.prod([len(c) for c in t.input_space()], dtype=object))
        except TheorybenchError:
            continue
        if size <= MATCH_LIMIT:
            out.append(int(n))
    return out


def _agree(a, b, x: np.ndarray) -> bool:
    """Tasks ``a`` and ``b`` (one n) accept the same rows of ``x`` and, on the rows ``b``
    accepts, give the same outputs (and output mask)."""
    keep = np.asarray(b.valid_inputs(x), dtype=bool)
    if not np.array_equal(np.asarray(a.valid_inputs(x), dtype=bool), keep):
        return False
    x = x[keep]
    if not np.array_equal(np.asarray(a.label(x)), np.asarray(b.label(x))):
        return False
    return b.output == "final" or np.array_equal(np.asarray(a.output_mask(x), dtype=bool),
                                                  np.asarray(b.output_mask(x), dtype=bool))


@functools.lru_cache(maxsize=256)
def _compare(cand_cls, cand_params: tuple, ref_cls, ref_params: tuple
             ) -> tuple[tuple[int, ...], int, tuple[int, ...]] | None:
    ns, inputs = _sizes(ref_cls, ref_params), 0
    if len(ns) < MIN_NS:
        return None
    for n in ns:
        try:
            a = cand_cls(n=n, **dict(cand_params))
            b = ref_cls(n=n, **dict(ref_params))
            choices = [tuple(c) for c in b.input_space()]
            if a.output != b.output or [tuple(c) for c in a.input_space()] != choices:
                return None
            x = product_space(choices, MATCH_LIMIT)
            if not _agree(a, b, x):
                return None
            inputs += int(np.asarray(b.valid_inputs(x), dtype=bool).sum())
        except TheorybenchError:
            return None
    sampled = []
    for n in sorted(n for n in getattr(ref_cls, "train_ns", ()) if n > ns[-1]):
        try:
            b = ref_cls(n=n, **dict(ref_params))
            a = cand_cls(n=n, **dict(cand_params))
        except TheorybenchError:
            continue  # a size the task (or the reference) does not have
        try:
            x = np.asarray(b.sample(np.random.default_rng(0), SAMPLES).tokens)
            if a.output != b.output or not _agree(a, b, x):
                return None
        except TheorybenchError:
            return None
        sampled.append(int(n))
    return tuple(ns), inputs, tuple(sampled)


__all__ = ["FunctionMatch", "MATCH_LIMIT", "MIN_NS", "same_function"]
