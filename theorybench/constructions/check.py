"""Numerical checks of a construction against its task's reference function: every input
(``exhaustive``) or a sample (``sampled``), in float64 and float32 separately.

These are finite floating-point checks (status ``verified``), never proofs: the proofs
(real arithmetic) are in :mod:`.interval` and :mod:`.solver`.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from ..errors import EnumerationTooLarge, ResourceLimitError
from ..tasks.base import count_text
from .base import Certificate, Construction
from .model import SetTransformer, margins

#: Largest number of inputs an exhaustive check runs (each is one forward pass).
MAX_EXHAUSTIVE = 1 << 20
BATCH_TOKENS = 1 << 20      # rows x length per forward batch
#: Longest input a forward pass takes here: every head holds L^2 scores per row
#: (4096^2 float64 = 128 MiB per head).
MAX_FORWARD_LEN = 4096


def check_length(L: int) -> None:
    if L > MAX_FORWARD_LEN:
        raise ResourceLimitError(
            f"inputs of length {L:,} need {L * L:,} attention scores per row and head "
            f"({L * L * 8 / 2**30:.1f} GiB in float64); the checks run lengths up to "
            f"{MAX_FORWARD_LEN:,}: use a smaller --n")


def run_margins(model: SetTransformer, c: Construction, tokens: np.ndarray) -> np.ndarray:
    """Per-input margin (min over scored positions for per-position tasks), batched."""
    L = tokens.shape[1]
    check_length(L)
    step = max(1, BATCH_TOKENS // max(L * L, 1))
    out = np.empty(len(tokens))
    with torch.no_grad():
        for lo in range(0, len(tokens), step):
            x = tokens[lo: lo + step]
            z = model(torch.as_tensor(x)).double().numpy()
            m = margins(z, c.labels(x))
            out[lo: lo + step] = m.min(axis=1) if m.ndim == 2 else m
    return out


def all_inputs(c: Construction, limit: int = MAX_EXHAUSTIVE) -> np.ndarray:
    """Every valid input of the construction's task, or EnumerationTooLarge with the cost."""
    try:
        return c.task.enumerate(limit=limit)
    except EnumerationTooLarge as exc:
        raise EnumerationTooLarge(
            f"{exc}; an exhaustive check costs one forward pass per input: use a smaller "
            f"--n, or --verify z3 (symbolic) where the construction allows it, or the "
            f"sampled check") from None


def exhaustive(c: Construction, dtype: torch.dtype = torch.float64,
               limit: int = MAX_EXHAUSTIVE) -> Certificate:
    """Run the model in ``dtype`` on every input; ``verified`` iff every margin is > 0."""
    t0 = time.perf_counter()
    x = all_inputs(c, limit)
    name = str(dtype).replace("torch.", "")
    return _certificate(c, x, dtype, t0, f"exhaustive-{name}",
                        f"the {name} model's decision equals {c.task.name}'s label on all "
                        f"{count_text(len(x))} inputs of n={c.n}")


def _certificate(c: Construction, x: np.ndarray, dtype, t0: float, method: str,
                 claim: str) -> Certificate:
    """Run the model on inputs ``x``: verified iff every margin is positive, else the first
    input with a non-positive margin is the counterexample."""
    m = run_margins(c.module(dtype), c, x)
    bad = np.flatnonzero(m <= 0)
    return Certificate(
        construction=c.name, n=c.n, method=method,
        status="refuted" if len(bad) else "verified", claim=claim,
        seconds=time.perf_counter() - t0, inputs=int(len(x)),
        observed_margin=float(m.min()) if len(m) else None,
        counterexample=[int(v) for v in x[bad[0]]] if len(bad) else None)


def sampled(c: Construction, rng: np.random.Generator, count: int = 1000,
            dtype: torch.dtype = torch.float64) -> Certificate:
    """Run the model on ``count`` inputs from the task's default distribution."""
    t0 = time.perf_counter()
    check_length(c.length)
    x = c.task.sample(rng, count).tokens
    name = str(dtype).replace("torch.", "")
    return _certificate(c, x, dtype, t0, f"sampled-{name}",
                        f"the {name} model's decision equals the label on {count:,} sampled "
                        f"inputs of n={c.n} (a sample, not every input)")


def float32_first_failure(builder, ns, rng: np.random.Generator, count: int = 2000):
    """The first n in ``ns`` at which the float32 model errs (on every input while there
    are at most MAX_EXHAUSTIVE, else on ``count`` samples), or None."""
    for n in ns:
        c = builder(n)
        try:
            cert = exhaustive(c, torch.float32)
        except EnumerationTooLarge:
            cert = sampled(c, rng, count, torch.float32)
        if cert.status == "refuted":
            return n, cert
    return None
