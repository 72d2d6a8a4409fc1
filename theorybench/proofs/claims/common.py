"""Helpers shared by the claims: a checked reduction as a proof step."""

from __future__ import annotations

import time

import numpy as np

from ...formal.reductions import Reduction
from .base import Step

#: Instances per n that a reduction check enumerates (beyond: sampled, not counted in N).
EXHAUSTIVE_LIMIT = 1 << 16


def reduction_step(name: str, red: Reduction, ns: list[int], statement: str,
                   samples: int = 2000) -> Step:
    """Check ``red`` at every n in ``ns``: exhaustively where the source space is at most
    ``EXHAUSTIVE_LIMIT`` (those n count towards N), sampled beyond (reported only)."""
    t0 = time.perf_counter()
    res = red.check(ns, samples=max(samples, 1), rng=np.random.default_rng(0),
                    exhaustive_limit=EXHAUSTIVE_LIMIT)
    exhaustive = [c.n for c in res.by_n if c.exhaustive]
    sampled = [c.n for c in res.by_n if not c.exhaustive]
    details = {"reduction": red.name, "kind": red.kind,
               "n checked on every instance": exhaustive,
               "instances checked": sum(c.checked for c in res.by_n),
               "labels preserved": res.labels_preserved}
    if red.kind == "projection":
        details["projection (no output token depends on two input positions)"] = \
            res.is_projection
    if sampled:
        details["n checked on samples only (not counted in N)"] = sampled
    if res.counterexample:
        details["counterexample"] = res.counterexample
    deps = {c.n: c.dependency for c in res.by_n if c.dependency is not None}
    if deps:
        details["_dependency"] = deps  # per n: the input position of each output token
    viol = [v for c in res.by_n for v in c.projection_violations]
    if viol:
        details["projection violations"] = viol[:3]
    up_to = max(exhaustive) if exhaustive else 0
    return Step(name, "machine", statement, ok=res.ok and bool(exhaustive), up_to=up_to,
                tool="Reduction.check (labels, well-formed images, projection by "
                     "perturbing each input position)",
                details=details, seconds=time.perf_counter() - t0)
