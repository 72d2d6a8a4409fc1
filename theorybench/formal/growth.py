"""Growth classification of a measured sequence f(n) (docs/theories.md §8).

``classify_growth(ns, values, sigma=None)`` fits candidate classes - bounded (constant),
Theta(log n), linear a + b n, Theta(n^c) and exponential 2^(b n) - on the tail of the
series, weighted by each value's uncertainty, and picks the simplest class that fits
within the uncertainties; it returns a :class:`GrowthFit` whose fits, residuals, tail
window, the other classes that also fit (``ambiguous_with``) and whether any fits at all
(``decided``) are kept as evidence. A sequence that is flat over its last three points,
or varies by no more than ``flat_tol`` of its size, is bounded. sympy expresses closed forms so that tests and
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
    #: False when no candidate fits within the uncertainties (``kind`` is then a guess)
    decided: bool = True
    #: other classes that also fit the tail within the uncertainties
    ambiguous_with: list[str] = field(default_factory=list)
    #: the n the fit used (the tail window)
    window: list[int] = field(default_factory=list)
    reason: str = ""

    @property
    def bounded(self) -> bool:
        return self.kind == BOUNDED

    def faster_than_log(self) -> bool:
        """True when the sequence grows like a positive power of n or faster."""
        return self.kind in (POLY, EXP)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "exponent": self.exponent, "formula": self.formula,
                "rel_rmse": self.rel_rmse, "ns": list(self.ns), "values": list(self.values),
                "decided": self.decided, "ambiguous_with": list(self.ambiguous_with),
                "window": list(self.window), "reason": self.reason,
                "candidates": self.candidates}

    def __str__(self) -> str:
        return self.formula


#: Relative uncertainty given to every value on top of its stated interval: exact values
#: of a finite n still carry lower-order terms no candidate models.
REL_NOISE = 0.02
#: A candidate fits when every residual is within Z uncertainties.
Z = 3.0
#: The fit uses the tail of the series (n >= sqrt(n_first n_last)), at least this many points.
MIN_TAIL = 3
LINEAR = "linear"  # a + b n: reported as kind "poly" with exponent 1
#: Two classes whose tail chi-squares differ by less than this are not told apart by the
#: tail (a likelihood ratio below e^2); the whole series decides between them.
DELTA_CHI2 = 4.0
#: Below this exponent a fitting power law yields to a fitting logarithm.
SMALL_C = 0.35


def _wls(features: np.ndarray, target: np.ndarray, s: np.ndarray) -> np.ndarray:
    coef, *_ = np.linalg.lstsq(features / s[:, None], target / s, rcond=None)
    return coef


def tail_window(ns: Sequence[float], min_points: int = MIN_TAIL) -> np.ndarray:
    """Indices of the asymptotic part of a series: n >= sqrt(n_first * n_last), widened to
    the last ``min_points`` points (all points if there are fewer)."""
    n = np.asarray(ns, dtype=float)
    idx = np.flatnonzero(n >= math.sqrt(n[0] * n[-1]) - 1e-9)
    if len(idx) < min_points:
        idx = np.arange(max(0, len(n) - min_points), len(n))
    return idx


def classify_growth(ns: Sequence[float], values: Sequence[float], flat_tol: float = 0.02,
                    penalty: float = 0.01, sigma: Sequence[float] | None = None,
                    rel_noise: float = REL_NOISE, z: float = Z) -> GrowthFit:
    """Classify f(n) from at least three (n, f(n)) points; ns must be increasing.

    Decision (the asymptotic class is read where the series is asymptotic, and only
    where the data can tell the classes apart):

    1. flat (spread within ``flat_tol``, last three equal, or never increasing) -> bounded;
    2. each candidate - bounded a, logarithmic a + b log2 n, linear a + b n, power a n^c,
       exponential a 2^(b n) - is fitted to the whole series by least squares weighted by
       each point's uncertainty sqrt(sigma^2 + (rel_noise y)^2) (``sigma``: standard errors
       of sampled estimates) on the tail of the series (:func:`tail_window`), where the
       curve is asymptotic (the whole series when nothing fits the tail but something
       fits it), and fits when every residual is within ``z`` uncertainties;
    3. the simplest fitting class wins (bounded has one parameter, the others two); a tail
       that falls (its last value more than ``z`` uncertainties below its first, and none
       that far above it) is bounded whatever the shape of the fall; among two-parameter
       fits, those within DELTA_CHI2 of the tail's best chi-square are ranked on the whole
       series where they fit it (its wider range tells sqrt n from a + b log n), else on
       the tail; a power law with exponent below SMALL_C yields to a fitting logarithm;
       the other fitting classes are kept in ``ambiguous_with`` unless the whole series
       rules them out while fitting the choice (a caller that needs, say, linear rather
       than logarithmic growth must check it is not there);
    4. no candidate fits: the least-error candidate is reported with ``decided = False``.

    Held to constants, c log n, c n, c sqrt n, n^2, rise-then-flat and falling curves,
    exact and with 1-2 % noise (tests/formal/test_growth.py).
    A rising curve that levels off (sensitivity of 3-hop: 0 at n = 4, about 7.6 from n = 14
    to 64) is bounded on its tail; measured only up to n = 10 its tail still rises, and
    the fit says so - callers should extend the series, not trust a short early segment.
    """
    n = np.asarray(ns, dtype=float)
    y = np.asarray(values, dtype=float)
    if n.shape != y.shape or len(n) < 3:
        raise ValueError("classify_growth needs at least three (n, value) pairs of equal length")
    if np.any(np.diff(n) <= 0):
        raise ValueError("classify_growth needs strictly increasing n")
    if not np.all(np.isfinite(y)):
        raise ValueError("classify_growth got non-finite values")
    sig = np.zeros_like(y) if sigma is None else np.abs(np.asarray(sigma, dtype=float))
    if sig.shape != y.shape or not np.all(np.isfinite(sig)):
        raise ValueError("classify_growth: sigma must be finite, one per value")
    scale = max(float(np.mean(np.abs(y))), 1e-12)
    # a floor only where a value and its interval vanish (exact zeros)
    unc = np.maximum(np.sqrt(sig ** 2 + (rel_noise * np.abs(y)) ** 2), 1e-9)
    def fit_window(win: np.ndarray) -> dict[str, dict[str, Any]]:
        nw, yw, uw = n[win], y[win], unc[win]
        wscale = max(float(np.mean(np.abs(yw))), 1e-12)
        cands: dict[str, dict[str, Any]] = {}

        def record(kind: str, pred: np.ndarray, params: dict[str, float], formula: str,
                   k: int):
            resid = yw - pred
            rmse = float(np.sqrt(np.mean(resid ** 2)) / wscale)
            dev = np.abs(resid) / uw
            cands[kind] = {"params": params, "formula": formula, "rel_rmse": rmse,
                           "score": rmse + penalty * k, "chi2": float(np.sum(dev ** 2)),
                           "max_dev": float(dev.max()), "fits": bool(dev.max() <= z),
                           "parameters": k, "residuals": resid.round(6).tolist()}

        one = np.ones_like(nw)
        (a,) = _wls(one[:, None], yw, uw)
        record(BOUNDED, np.full_like(yw, a), {"a": float(a)}, f"~ {a:.4g} (bounded)", 1)
        a, b = _wls(np.stack([one, np.log2(nw)], 1), yw, uw)
        record(LOG, a + b * np.log2(nw), {"a": float(a), "b": float(b)},
               f"~ {a:.4g} + {b:.4g} log2 n", 2)
        a, b = _wls(np.stack([one, nw], 1), yw, uw)
        record(LINEAR, a + b * nw, {"a": float(a), "b": float(b)}, f"~ {a:.4g} + {b:.4g} n", 2)
        if np.all(yw > 0):
            ls = uw / yw  # uncertainty of log y (delta method)
            la, c = _wls(np.stack([one, np.log(nw)], 1), np.log(yw), ls)
            record(POLY, np.exp(la) * nw ** c, {"a": float(np.exp(la)), "c": float(c)},
                   f"~ {np.exp(la):.4g} n^{c:.3f}", 2)
            ea, eb = _wls(np.stack([one, nw], 1), np.log2(yw), ls / math.log(2))
            record(EXP, 2 ** (ea + eb * nw), {"a": float(2 ** ea), "b": float(eb)},
                   f"~ {2 ** ea:.4g} 2^({eb:.3f} n)", 2)
        return cands

    # the tail decides (a rise that levels off is bounded there); the whole series, whose
    # wider range tells classes apart better, only narrows what the tail leaves open
    win = tail_window(n)
    cands = fit_window(win)
    whole = fit_window(np.arange(len(n))) if len(win) < len(n) else cands
    if not any(c["fits"] for c in cands.values()) and any(c["fits"] for c in whole.values()):
        win, cands = np.arange(len(n)), whole
    nw = n[win]

    def asymptotic(kind: str) -> str:
        """The class a fitted candidate stands for (a falling fit is bounded)."""
        p = cands[kind]["params"]
        if kind in (LOG, LINEAR) and p["b"] <= 0:
            return BOUNDED
        if kind == POLY and p["c"] < 0.05:
            return BOUNDED
        if kind == EXP and p["b"] <= 0:
            return BOUNDED
        return POLY if kind == LINEAR else kind

    spread = float(y.max() - y.min())
    tail_flat = len(y) >= 4 and np.allclose(y[-3:], y[-1], rtol=1e-9, atol=1e-9)
    decided, ambiguous, reason = True, [], ""
    fitting = [k for k in cands if cands[k]["fits"]]
    if spread <= flat_tol * max(scale, 1.0) or tail_flat or np.all(np.diff(y) <= 1e-12):
        chosen, reason = BOUNDED, "flat"
    elif BOUNDED in fitting:
        chosen = BOUNDED
    elif _falls(y[win], unc[win], z):
        # a significant fall and no significant rise on the tail (n 2^(1-n), a word
        # that almost surely contains "ab"): bounded, whatever shape the fall has
        chosen, reason = BOUNDED, (f"falling on n = {nw.astype(int).tolist()} (no rise "
                                   f"beyond {z:g} uncertainties)")
    elif fitting:
        # the tail ranks the classes; those within DELTA_CHI2 of its best are told apart
        # by the wider range of the whole series where they fit it (sqrt n against
        # a + b log n, log n against a + b n), else by the tail
        best = min(cands[k]["chi2"] for k in fitting)
        close = [k for k in fitting if cands[k]["chi2"] <= best + DELTA_CHI2]
        both = [k for k in close if whole.get(k, {}).get("fits")]
        pool, table = (both, whole) if len(close) > 1 and both else (close, cands)
        best = min(table[k]["chi2"] for k in pool)
        tied = [k for k in pool if table[k]["chi2"] <= best * (1 + 1e-6) + 1e-6]
        # an exact tie (2n is both n^1 and 0 + 2n): the power law names it
        chosen = min(tied, key=[POLY, LOG, EXP, LINEAR].index)
        # n^c with a small c is log n over any measurable range: the slower reading
        if chosen == POLY and LOG in pool and cands[POLY]["params"]["c"] < SMALL_C:
            chosen = LOG
    else:
        chosen = min(cands, key=lambda k: cands[k]["score"])
        decided = False
        reason = (f"no candidate fits n = {nw.astype(int).tolist()} within {z:g} "
                  f"uncertainties; the least-error one is shown")
    if reason != "flat":
        others = {asymptotic(k) for k in fitting} - {asymptotic(chosen)}
        if decided and whole.get(chosen, {}).get("fits"):
            # classes the whole series rules out are no alternative
            others &= {asymptotic(k) for k in whole if whole[k]["fits"]}
        ambiguous = sorted(others)
        if decided and not reason:
            reason = (f"fitted on n = {nw.astype(int).tolist()}"
                      + (f"; {', '.join(ambiguous)} also fit{'s' if len(ambiguous) == 1 else ''}"
                         if ambiguous else ""))
    kind = asymptotic(chosen)
    exponent = 0.0
    if chosen == POLY and kind == POLY:
        exponent = cands[POLY]["params"]["c"]
    elif chosen == LINEAR and kind == POLY:
        exponent = 1.0
    elif kind == EXP:
        exponent = cands[EXP]["params"]["b"]
    return GrowthFit(kind=kind, exponent=exponent, formula=cands[chosen]["formula"],
                     rel_rmse=cands[chosen]["rel_rmse"], candidates=cands,
                     ns=[int(v) if float(v).is_integer() else float(v) for v in n],
                     values=[float(v) for v in y], decided=decided,
                     ambiguous_with=ambiguous, window=[int(v) if float(v).is_integer()
                                                       else float(v) for v in nw],
                     reason=reason)


@dataclass
class MeasuredGrowth:
    """:func:`classify_measured`'s answer: the fit, the indices of the points it used (into
    the series as given) and the x left out because the quantity is exactly 0 there."""

    fit: GrowthFit
    kept: list[int]
    constant_at: list[float]

    def to_dict(self) -> dict[str, Any]:
        return {**self.fit.to_dict(), "constant_at": list(self.constant_at)}


def classify_measured(xs: Sequence[float], values: Sequence[float],
                      sigma: Sequence[float] | None = None,
                      exact: Sequence[bool] | None = None) -> MeasuredGrowth:
    """The one growth classification of a measured series (docs/theories.md §8): every
    column that reads the same series calls this, so one series gets one class.

    Points are taken in increasing x, the first of repeated x kept; an *exact* zero (a
    function constant at that length has sensitivity 0 there, #a = #b at odd n; a
    protocol for a constant needs no bits) is left out when at least three other points
    remain: an object that works for every length works for the others, and the zig-zag
    of zeros would otherwise read as no growth. Then :func:`classify_growth` on the rest,
    weighted by ``sigma`` (standard errors of sampled values). ``exact``: which values are
    exact (default: those with sigma 0)."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(values, dtype=float)
    sig = np.zeros_like(y) if sigma is None else np.asarray(sigma, dtype=float)
    ex = (sig == 0) if exact is None else np.asarray(exact, dtype=bool)
    if not (x.shape == y.shape == sig.shape == ex.shape):
        raise ValueError("classify_measured needs one x, value, sigma and exact flag per point")
    order = np.argsort(x, kind="stable")
    keep = [int(i) for k, i in enumerate(order) if k == 0 or x[i] > x[order[k - 1]]]
    zeros = [i for i in keep if ex[i] and y[i] == 0]
    constant: list[float] = []
    if zeros and len(keep) - len(zeros) >= 3:
        keep = [i for i in keep if i not in zeros]
        constant = [int(x[i]) if float(x[i]).is_integer() else float(x[i]) for i in zeros]
    fit = classify_growth(x[keep], y[keep], sigma=sig[keep])
    return MeasuredGrowth(fit, keep, constant)


def _falls(y: np.ndarray, unc: np.ndarray, z: float) -> bool:
    """The tail falls: its last value lies more than ``z`` uncertainties below its first,
    and no value rises that far above the first (sampled values near 0 may wobble)."""
    if len(y) < 2:
        return False
    above = (y[1:] - y[0]) / np.sqrt(unc[1:] ** 2 + unc[0] ** 2)
    return bool(above.max() <= z and -above[-1] > z)


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
