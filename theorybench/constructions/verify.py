"""One entry point for the verification methods, and the evidence status they support.

* ``exhaustive``: the float64 and the float32 model on every input (``verified``, finite
  floating-point checks, each reported separately).
* ``interval``: outward-rounded interval arithmetic on every input (``proved`` for this n,
  real arithmetic).
* ``sampled``: float64 and float32 on samples of the task's default distribution (any n,
  e.g. 256; ``verified`` on the sample only).
* ``z3``: for all n where the construction allows it (Majority), else for this n:
  uniform attention exactly, peaked attention by hard model + gap + softmax bound, and
  models mixing both (bounded Dyck-k) by :mod:`.solver_mixed`.

Status for the evidence vocabulary (docs/theories.md; issue 11): ``proven`` when some
certificate covers every n, ``verified <= N`` for the largest N up to which every n
checked has a passing certificate.
"""

from __future__ import annotations

import numpy as np
import torch

from ..errors import ConfigError
from . import check, interval, solver, solver_mixed
from .base import Certificate, Construction

METHODS = ("exhaustive", "interval", "z3", "sampled")


def z3_kind(c: Construction) -> str:
    """``all-n``, ``uniform``, ``peaked`` or ``mixed``: which z3 method applies.

    ``peaked`` (:func:`.solver.prove_peaked`) needs every head peaked and no MLP before the
    last layer; a model with uniform and peaked heads, or MLPs between peaked layers, is
    ``mixed`` (:func:`.solver_mixed.prove_mixed`)."""
    if c.count_spec is not None:
        return "all-n"
    layers = c.weights.layers
    if all(all(l.uniform_heads()) for l in layers):
        return "uniform"
    if any(any(l.uniform_heads()) for l in layers) or any(
            l.w1.shape[1] for l in layers[:-1]):
        return "mixed"
    return "peaked"


def verify(c: Construction, method: str, timeout_ms: int = solver.TIMEOUT_MS,
           samples: int = 1000, rng: np.random.Generator | None = None) -> list[Certificate]:
    if method == "sampled":
        if samples < 1:
            raise ConfigError(f"the number of samples must be >= 1, got {samples}")
        rng = rng if rng is not None else np.random.default_rng(0)
        return [check.sampled(c, rng, samples, torch.float64),
                check.sampled(c, rng, samples, torch.float32)]
    if method not in METHODS:
        raise ConfigError(f"unknown verification method {method!r}; choose one of: "
                          f"{', '.join(METHODS)}")
    if method == "exhaustive":
        return [check.exhaustive(c, torch.float64), check.exhaustive(c, torch.float32)]
    if method == "interval":
        return [interval.verify(c)]
    kind = z3_kind(c)
    if kind == "all-n":
        return [solver.prove_all_n(c, timeout_ms)]
    if kind == "uniform":
        return [solver.prove_uniform(c, timeout_ms)]
    if kind == "mixed":
        return [solver_mixed.prove_mixed(c, timeout_ms)]
    return [solver.prove_peaked(c, timeout_ms)]


def evidence_status(certs: list[Certificate], required_ns: list[int] | None = None) -> str:
    """The evidence vocabulary over certificates of one construction at several n:
    ``refuted`` if any is, ``proven`` if one covers every n, ``verified <= N`` when every
    n of ``required_ns`` up to N passed (all of them, in order: the first failure ends
    it), else ``verified at n=...`` for the n that passed, or ``unknown``."""
    if any(ct.status == "refuted" for ct in certs):
        return "refuted"
    if any(ct.status == "proved" and ct.details.get("scope") == "all n" for ct in certs):
        return "proven"
    if certs and all(ct.method.startswith("sampled") for ct in certs):
        return "sampled: no error" if all(ct.ok for ct in certs) else "unknown"
    certs = [ct for ct in certs if not ct.method.startswith("sampled")]
    by_n: dict[int, bool] = {}
    for ct in certs:
        by_n[ct.n] = by_n.get(ct.n, True) and ct.ok
    if required_ns:
        top = None
        for n in sorted(required_ns):
            if not by_n.get(n, False):
                break
            top = n
        if top is not None:
            return f"verified <= {top}"
    good = sorted(n for n, ok in by_n.items() if ok)
    return f"verified at n={','.join(map(str, good))}" if good else "unknown"
