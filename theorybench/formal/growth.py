"""Growth classification of a measured sequence f(n) (docs/theories.md §8).

``classify_growth(ns, values)`` compares candidate fits - bounded (constant), Theta(log n),
Theta(n^c) and exponential 2^(b n) - by their relative root-mean-square error with a small
penalty per parameter, and returns a :class:`GrowthFit` whose fits and residuals are kept
as evidence. A sequence that is flat over its last three points, or varies by no more
than ``flat_tol`` of its size, is bounded. sympy expresses closed forms so that tests and
rules can compare measured values with known formulas (``closed_form_values``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

BOUNDED, LOG, POLY, EXP = "bounded", "log", "poly", "exponential"


@dataclass
class GrowthFit:
    """The chosen class, its parameters, and every candidate's fit and residuals."""

    kind: str
    exponent: float | None  # c for poly (also the log-log slope for others), b for exp
    formula: str
    rel_rmse: float
    candidates: dict[str, dict[str, Any]] = field(default_factory=dict)
    ns: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    @property
    def bounded(self) -> bool:
        return self.kind == BOUNDED

    def faster_than_log(self) -> bool:
        """True when the sequence grows like a positive power of n or faster."""
        return self.kind in (POLY, EXP)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "exponent": self.exponent, "formula": self.formula,
                "rel_rmse": self.rel_rmse, "ns": list(self.ns), "values": list(self.values),
                "candidates": self.candidates}

    def __str__(self) -> str:
        return self.formula


def _lstsq(features: np.ndarray, target: np.ndarray) -> np.ndarray:
    coef, *_ = np.linalg.lstsq(features, target, rcond=None)
    return coef


def classify_growth(ns: Sequence[float], values: Sequence[float], flat_tol: float = 0.02,
                    penalty: float = 0.01) -> GrowthFit:
    """Classify f(n) from at least three (n, f(n)) points; ns must be increasing."""
    n = np.asarray(ns, dtype=float)
    y = np.asarray(values, dtype=float)
    if n.shape != y.shape or len(n) < 3:
        raise ValueError("classify_growth needs at least three (n, value) pairs of equal length")
    if np.any(np.diff(n) <= 0):
        raise ValueError("classify_growth needs strictly increasing n")
    if not np.all(np.isfinite(y)):
        raise ValueError("classify_growth got non-finite values")
    scale = max(float(np.mean(np.abs(y))), 1e-12)
    cands: dict[str, dict[str, Any]] = {}

    def record(kind: str, pred: np.ndarray, params: dict[str, float], formula: str, k: int):
        resid = y - pred
        rmse = float(np.sqrt(np.mean(resid ** 2)) / scale)
        cands[kind] = {"params": params, "formula": formula, "rel_rmse": rmse,
                       "score": rmse + penalty * k, "residuals": resid.round(6).tolist()}

    mean = float(y.mean())
    record(BOUNDED, np.full_like(y, mean), {"a": mean}, f"~ {mean:.4g} (bounded)", 1)
    a, b = _lstsq(np.stack([np.ones_like(n), np.log2(n)], 1), y)
    record(LOG, a + b * np.log2(n), {"a": float(a), "b": float(b)},
           f"~ {a:.4g} + {b:.4g} log2 n", 2)
    positive = np.all(y > 0)
    if positive:
        la, c = _lstsq(np.stack([np.ones_like(n), np.log(n)], 1), np.log(y))
        record(POLY, np.exp(la) * n ** c, {"a": float(np.exp(la)), "c": float(c)},
               f"~ {np.exp(la):.4g} n^{c:.3f}", 2)
        ea, eb = _lstsq(np.stack([np.ones_like(n), n], 1), np.log2(y))
        record(EXP, 2 ** (ea + eb * n), {"a": float(2 ** ea), "b": float(eb)},
               f"~ {2 ** ea:.4g} 2^({eb:.3f} n)", 2)

    spread = float(y.max() - y.min())
    tail_flat = len(y) >= 4 and np.allclose(y[-3:], y[-1], rtol=1e-9, atol=1e-9)
    if spread <= flat_tol * max(scale, 1.0) or tail_flat or np.all(np.diff(y) <= 1e-12):
        kind = BOUNDED
    else:
        kind = min(cands, key=lambda k: cands[k]["score"])
        # a decreasing-slope poly fit with c ~ 0 is bounded in all but name
        if kind == POLY and cands[POLY]["params"]["c"] < 0.05:
            kind = BOUNDED
        if kind == LOG and cands[LOG]["params"]["b"] <= 0:
            kind = BOUNDED
    exponent = None
    if kind == POLY:
        exponent = cands[POLY]["params"]["c"]
    elif kind == EXP:
        exponent = cands[EXP]["params"]["b"]
    elif kind == LOG:
        exponent = 0.0
    elif kind == BOUNDED:
        exponent = 0.0
    return GrowthFit(kind=kind, exponent=exponent, formula=cands[kind]["formula"],
                     rel_rmse=cands[kind]["rel_rmse"], candidates=cands,
                     ns=[int(v) if float(v).is_integer() else float(v) for v in n],
                     values=[float(v) for v in y])


def closed_form_values(expr: str, ns: Sequence[int]) -> np.ndarray:
    """Evaluate a sympy expression in ``n`` (e.g. ``"n*binomial(n-1,(n-1)/2)/2**(n-1)"``)."""
    import sympy

    sym_n = sympy.Symbol("n", integer=True, positive=True)
    e = sympy.sympify(expr, locals={"n": sym_n})
    return np.array([float(e.subs(sym_n, int(v))) for v in ns])


def ratio_bounded_below(ns: Sequence[float], values: Sequence[float], floor: float) -> bool:
    """True when values[i] / ns[i] stays >= floor over the larger half of the ns."""
    n = np.asarray(ns, dtype=float)
    y = np.asarray(values, dtype=float)
    half = y[len(y) // 2:] / n[len(n) // 2:]
    return bool(np.all(half >= floor))


def log2_ceil(x: int) -> int:
    """ceil(log2 x) for x >= 1 (0 for x = 1): bits needed to name one of x things."""
    return 0 if x <= 1 else math.ceil(math.log2(x))
