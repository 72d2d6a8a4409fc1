"""Verify built circuits against the task reference and measure them as n grows.

``verify(built)`` evaluates the circuit on every input of the decision function's natural
space when that has at most ``exhaustive_limit`` inputs, otherwise on ``samples`` inputs
from the task's own distribution plus ``samples`` uniform ones (valid ones kept), and
compares with ``df.evaluate``. ``construction_table(family, basis)`` builds and verifies
for several n and classifies depth and size growth with
:func:`theorybench.formal.growth.classify_growth`.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ... import tasks
from ...errors import EnumerationTooLarge, TaskParameterError, VerificationError
from ..growth import GrowthFit, classify_growth
from .builders import Builder, Built, build, builders_for
from .evaluate import evaluate
from .ir import Circuit

#: Largest circuit (wires) grown to when extending n beyond the family's analysis_ns.
WIRE_BUDGET = 60_000
EXTRA_NS = (16, 24, 32, 48, 64, 96, 128)


@dataclass
class Check:
    """One verified size."""

    n: int
    bits: int
    depth: int
    size: int
    wires: int
    gate_counts: dict[str, int]
    checked: int
    exhaustive: bool
    errors: int
    counterexample: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def decode(c: Circuit, bits: np.ndarray) -> np.ndarray:
    """Circuit output bits (batch, outputs) -> decision values (batch,).

    One output: the bit. Several: one-hot over ``c.output_values``; -1 where not one-hot."""
    if bits.shape[1] == 1 and not hasattr(c, "output_values"):
        return bits[:, 0].astype(np.int64)
    values = np.asarray(getattr(c, "output_values", range(bits.shape[1])), dtype=np.int64)
    onehot = bits.sum(axis=1) == 1
    return np.where(onehot, values[np.argmax(bits, axis=1)], -1)


def uniform_inputs(df, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` inputs uniform over the natural space (choices per position), valid kept."""
    radices = np.array([len(c) for c in df.choices], dtype=np.int64)
    table = np.zeros((len(radices), int(radices.max())), dtype=np.int64)
    for i, c in enumerate(df.choices):
        table[i, : len(c)] = c
    idx = (rng.random((count, len(radices))) * radices).astype(np.int64)
    x = table[np.arange(len(radices))[None, :], idx]
    if df.valid is not None:
        x = x[df.valid(x)]
    return x


def check_inputs(df, rng: np.random.Generator, exhaustive_limit: int, samples: int):
    if df.space_size() <= exhaustive_limit:
        try:
            return df.enumerate(limit=exhaustive_limit), True
        except EnumerationTooLarge:
            pass
    parts = [np.asarray(df.sample(rng, samples)), uniform_inputs(df, rng, samples)]
    return np.concatenate([p for p in parts if len(p)]), False


def verify(b: Built, rng: np.random.Generator | None = None, exhaustive_limit: int = 1 << 16,
           samples: int = 1000) -> Check:
    """Check ``b.circuit`` against the reference of ``b.df``; returns the count of errors."""
    rng = rng or np.random.default_rng(0)
    # wide encodings (one-hot over many tokens) get fewer samples: rows x bits <= 2^23
    samples = max(200, min(samples, (1 << 23) // max(1, b.encoding.n_bits)))
    x, exhaustive = check_inputs(b.df, rng, exhaustive_limit, samples)
    want = np.asarray(b.df.evaluate(x), dtype=np.int64)
    got = decode(b.circuit, evaluate(b.circuit, b.encoding.encode(x)))
    bad = np.flatnonzero(got != want)
    c = b.circuit
    return Check(n=b.task.n, bits=b.encoding.n_bits, depth=c.depth, size=c.size, wires=c.wires,
                 gate_counts=c.gate_counts(), checked=len(x), exhaustive=exhaustive,
                 errors=int(len(bad)),
                 counterexample=x[bad[0]].tolist() if len(bad) else None)


def build_checked(family: str, n: int, basis: str = "tc0", params: dict | None = None,
                  seed: int = 0, **kw) -> tuple[Built, Check]:
    """Build and verify; :class:`VerificationError` if the circuit disagrees anywhere."""
    task = tasks.get(family, n=n, **(params or {}))
    b = build(task, basis)
    chk = verify(b, np.random.default_rng(seed), **kw)
    if chk.errors:
        raise VerificationError(
            f"circuit for {family}(n={n}) disagrees with the reference on {chk.errors} of "
            f"{chk.checked} inputs, e.g. {b.task.render(np.array(chk.counterexample))}")
    return b, chk


@dataclass
class ConstructionResult:
    family: str
    builder: Builder
    checks: list[Check]
    depth_fit: GrowthFit | None
    size_fit: GrowthFit | None
    skipped_ns: dict[int, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(ch.errors == 0 for ch in self.checks)

    @property
    def constant_depth(self) -> bool:
        return self.depth_fit is not None and self.depth_fit.bounded

    @property
    def polynomial_size(self) -> bool:
        return self.size_fit is not None and self.size_fit.kind in ("bounded", "log", "poly")

    def table(self) -> list[dict[str, Any]]:
        return [{"n": ch.n, "depth": ch.depth, "size": ch.size, "wires": ch.wires,
                 "input_bits": ch.bits, "checked": ch.checked, "exhaustive": ch.exhaustive,
                 "errors": ch.errors} for ch in self.checks]

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "builder": self.builder.to_dict(), "table": self.table(),
                "depth_growth": self.depth_fit.to_dict() if self.depth_fit else None,
                "size_growth": self.size_fit.to_dict() if self.size_fit else None,
                "verified": self.verified, "skipped_ns": self.skipped_ns,
                "seconds": round(self.seconds, 3)}


def default_ns(family: str) -> tuple[int, ...]:
    fam = tasks.family(family)
    base = tuple(fam.analysis_ns)
    return tuple(sorted(set(base) | {n for n in EXTRA_NS if n > max(base)}))


def construction_table(family: str, basis: str = "tc0", ns: Sequence[int] | None = None,
                       params: dict | None = None, seed: int = 0,
                       builder: Builder | None = None) -> ConstructionResult | None:
    """Build, verify and measure the family's ``basis`` builder (or ``builder``, e.g. one
    found by :mod:`theorybench.formal.search.circuits`) over ``ns`` (None: no builder)."""
    if builder is None and not builders_for(family, basis):
        return None
    ns = tuple(ns) if ns is not None else default_ns(family)
    key = tuple(sorted((params or {}).items()))
    which = builder or builders_for(family, basis)[0]
    return _construction_table(family, which.basis, ns, key, seed, builder)


@functools.lru_cache(maxsize=256)
def _construction_table(family, basis, ns, params_key, seed, which=None) -> ConstructionResult:
    t0 = time.perf_counter()
    params = dict(params_key)
    rng = np.random.default_rng(seed)
    checks: list[Check] = []
    skipped: dict[int, str] = {}
    analysis = set(tasks.family(family).analysis_ns)
    b0 = None
    for n in ns:
        if checks and n not in analysis and checks[-1].wires > WIRE_BUDGET:
            skipped[n] = f"circuit at n={checks[-1].n} already has {checks[-1].wires} wires"
            continue
        task = None
        for m in ((n,) if n in analysis else (n, n + 1)):  # e.g. majority wants odd n
            if checks and m <= checks[-1].n:
                continue
            try:
                task = tasks.get(family, n=m, **params)
                break
            except TaskParameterError as exc:
                skipped[m] = str(exc)
        if task is None:
            continue
        b = build(task, basis, which)
        b0 = b0 or b.builder
        checks.append(verify(b, rng))
    fits = [None, None]
    if len(checks) >= 3:
        nn = [ch.n for ch in checks]
        fits = [classify_growth(nn, [ch.depth for ch in checks]),
                classify_growth(nn, [max(ch.size, 1) for ch in checks])]
    builder_obj = b0 or which or builders_for(family, basis)[0]
    return ConstructionResult(family, builder_obj, checks, fits[0], fits[1], skipped,
                              time.perf_counter() - t0)
