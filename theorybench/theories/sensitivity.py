"""The Sensitivity theory (docs/theories.md §7): Easy/Hard from measured average sensitivity.

Source: Hahn & Rofin, "Why are sensitive functions hard for transformers?", ACL 2024
(arXiv 2402.09963). Their main results bound the loss landscape of a transformer that
fits f on inputs of length n in terms of the average sensitivity as_n(f) under the uniform
distribution: a transformer whose output is sensitive to a constant fraction of the input
positions needs large parameter norms or layer-norm blow-up, and such solutions sit at
sharp, isolated minima, which training with bounded norms and random initialisation
rarely reaches (the theorems bound sharpness and norm from below; that training avoids
such minima is an assumption). Low-sensitivity functions carry no such obstacle; the
paper observes (and argues theoretically) a bias towards them - a tendency, not a
theorem that they are learned.

Rules (both compute; neither reads a table):

* ``linear average sensitivity`` (lower bound) - as_n / n_free >= HARD_FLOOR on the larger
  half of the measured n (n_free = positions with more than one choice) and the local
  log-log slope of as_n in n is >= HARD_EXPONENT -> Hard, status *conditional* (on the
  assumption that trained transformers keep bounded norm / layer-norm blow-up, i.e. do
  not sit at the sharp minima the theorem says are needed).
* ``sublinear average sensitivity`` (lower-bound-type measured criterion) - as_n = o(n):
  the local slope is <= EASY_EXPONENT (bounded, logarithmic or n^c with c clearly below
  one) -> Easy, status *conjectured* (low sensitivity removes the obstacle; that the task
  is then learned is the paper's empirical tendency).

Between the two thresholds the verdict is Unknown. The measurement is exact (FWHT or
enumeration) while the input space is small, Monte Carlo with confidence intervals
beyond, always under the uniform distribution on the natural input space (primary, the
paper's definition); the task's own sampling distribution is reported as secondary
evidence at the largest n.
"""

from __future__ import annotations

import copy
import functools
import time
from typing import Any

import numpy as np

from ..errors import TheorybenchError
from .base import (Basis, Context, RuleSkip, Status, Theory, Verdict,
                   rule)
from ..formal.growth import classify_growth
from ..formal.sensitivity import average_sensitivity

HARD_FLOOR = 0.1
HARD_EXPONENT = 0.9
EASY_EXPONENT = 0.75
#: The uniform and the task's distribution disagree by class when, at the largest n, the
#: task's as_n/n is at least HARD_FLOOR and this many times the uniform one (Dyck words
#: are exponentially rare under the uniform distribution, so as -> 0 there, while the
#: balanced distribution models are trained on gives as/n ~ 0.6).
DISAGREE_FACTOR = 4.0


def distribution_disagreement(prof: dict[str, Any]) -> str | None:
    """Why the uniform-distribution measurement cannot give a verdict alone, or None."""
    td = prof.get("task_distribution") or {}
    rows = [r for r in prof.get("values", []) if r.get("n") == td.get("n")]
    if not td or not rows or "ratio" not in td:
        return None
    uni = float(rows[0]["average_sensitivity"]) / max(int(rows[0]["n"]), 1)
    task = float(td["ratio"])
    if task >= HARD_FLOOR and task >= DISAGREE_FACTOR * max(uni, 1e-12):
        return (f"the distributions disagree by class at n={td['n']}: as_n/n = {uni:.3f} under "
                f"the uniform distribution (nearly constant there) but {task:.3f} under the "
                f"task's {td.get('distribution')} distribution, what models are trained on; "
                f"no verdict without choosing one")
    return None
#: Largest space enumerated exactly by the rule (inputs x positions x replacements).
EXACT_WORK = 1 << 21
#: Monte Carlo work budget (rows x positions x replacements) per n, and sample bounds.
MC_WORK = 1 << 22
MC_SAMPLES = (300, 4000)

SOURCE = ("Hahn & Rofin, 'Why are sensitive functions hard for transformers?', ACL 2024 "
          "(arXiv 2402.09963)")


def _work(df) -> tuple[int, int]:
    """(positions x replacement symbols per input, size of the space)."""
    per_input = sum(len(c) - 1 for c in df.choices)
    return max(per_input, 1), df.space_size()


def _choose(df, ctx: Context) -> dict[str, Any]:
    per_input, size = _work(df)
    exact_work = int(ctx.options.get("sensitivity_exact_work", EXACT_WORK))
    if size * per_input <= exact_work and size <= (1 << 22):
        return {"method": "auto"}
    lo, hi = MC_SAMPLES
    samples = int(ctx.options.get("sensitivity_samples", 0)) or \
        int(np.clip(MC_WORK // max(per_input * df.length, 1), lo, hi))
    return {"method": "monte_carlo", "samples": samples}


@functools.lru_cache(maxsize=512)
def _profile(family: str, max_n: int, seed: int, options: tuple, budget: float) -> dict[str, Any]:
    from .. import tasks
    ctx = Context(max_n=max_n, seed=seed, options=dict(options))
    fam = tasks.family(family)
    ns = _choose_ns(family, fam, max_n)
    rng = np.random.default_rng(seed)
    rows, skipped, started = [], [], time.perf_counter()
    last_df = None
    for n in ns:
        if time.perf_counter() - started > budget and len(rows) >= 3:
            skipped.append({"n": n, "reason": f"time budget of {budget:.0f} s used"})
            continue
        try:
            df = tasks.get(family, n=n).decision_view()[0]
            res = average_sensitivity(df, distribution="uniform", rng=rng, **_choose(df, ctx))
        except (TheorybenchError, ValueError, MemoryError) as exc:
            skipped.append({"n": n, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        last_df = df
        rows.append({"n": n, "length": res.n, "free_positions": res.free_positions,
                     "average_sensitivity": res.value, "ci_low": res.ci_low,
                     "ci_high": res.ci_high, "exact": res.exact, "method": res.method,
                     "samples": res.samples,
                     "ratio": res.value / max(res.free_positions, 1),
                     "max_sensitivity": max(res.histogram) if res.histogram else 0.0})
    out: dict[str, Any] = {"distribution": "uniform (natural input space)", "values": rows,
                           "skipped": skipped, "thresholds": {
                               "hard_ratio_floor": HARD_FLOOR, "hard_exponent": HARD_EXPONENT,
                               "easy_exponent": EASY_EXPONENT},
                           "source": SOURCE}
    if len(rows) < 3:
        out["error"] = (f"average sensitivity computed for {len(rows)} n (need 3): "
                        + "; ".join(f"n={s['n']}: {s['reason']}" for s in skipped))
        return out
    n_arr = np.array([r["n"] for r in rows], dtype=float)
    free = np.array([max(r["free_positions"], 1) for r in rows], dtype=float)
    as_arr = np.array([r["average_sensitivity"] for r in rows], dtype=float)
    ratio = np.array([r["ratio"] for r in rows])
    out["fit"] = classify_growth(n_arr, as_arr).to_dict()
    half = slice(len(rows) // 2 if len(rows) > 3 else 1, None)
    # slopes against the number of free positions (the effective input length; = n for
    # bit-string tasks), so that separators and query tokens do not bend the estimate
    out["local_exponent"] = _slope(free[half], as_arr[half])
    out["exponent_all_n"] = _slope(free, as_arr)
    # the slope range the confidence intervals allow (equal to the slope when exact):
    # low ends at the small n and high ends at the large n, and the reverse
    lo = np.array([r["ci_low"] for r in rows])[half]
    hi = np.array([r["ci_high"] for r in rows])[half]
    first = np.arange(len(lo)) < len(lo) / 2
    out["local_exponent_range"] = [_slope(free[half], np.where(first, hi, lo)),
                                   _slope(free[half], np.where(first, lo, hi))]
    out["larger_half_ns"] = n_arr[half].astype(int).tolist()
    out["min_ratio_larger_half"] = float(
        (lo / free[half]).min())
    if last_df is not None:
        out["task_distribution"] = _task_value(last_df, rng, ctx)
    return out


def _choose_ns(family: str, fam, max_n: int) -> list[int]:
    """The family's analysis n up to max_n; when fewer than three, the next valid n above
    (larger analysis n first, then n + 1, n + 2, ... up to four n and at most 4 max_n),
    measured by Monte Carlo where the space is too large to enumerate."""
    from .. import tasks
    ns = sorted(n for n in fam.analysis_ns if n <= max_n)
    extra = sorted(n for n in fam.analysis_ns if n > max_n)
    while len(ns) < 3 and extra:
        ns.append(extra.pop(0))
    n = max(ns or [1])
    while len(ns) < 4 and n < 4 * max_n:
        n += 1
        try:
            tasks.get(family, n=n)
        except (TheorybenchError, ValueError):
            continue
        ns.append(n)
    return ns


def _slope(n: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log y against log n (0 when y vanishes)."""
    if np.all(y <= 1e-12):
        return 0.0
    y = np.maximum(y, 1e-12)
    return float(np.polyfit(np.log(n), np.log(y), 1)[0])


def _task_value(df, rng, ctx) -> dict[str, Any]:
    per_input, _ = _work(df)
    samples = int(np.clip(MC_WORK // max(per_input * df.length, 1), *MC_SAMPLES))
    try:
        r = average_sensitivity(df, distribution="task", method="monte_carlo",
                                samples=samples, rng=rng)
    except (TheorybenchError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"n": int(df.task.n), "average_sensitivity": r.value, "ci_low": r.ci_low,
            "ci_high": r.ci_high, "samples": samples, "ratio": r.value / max(r.free_positions, 1),
            "distribution": df.task.distributions[0]}


def sensitivity_profile(family: str, ctx: Context | None = None) -> dict[str, Any]:
    """Measured average sensitivity of ``family`` by n with its growth fit (cached; a copy).

    Keys: ``values`` (one row per n: n, length, free_positions, average_sensitivity,
    ci_low, ci_high, exact, method, samples, ratio = as / free_positions), ``fit``
    (GrowthFit.to_dict), ``local_exponent`` (log-log slope of as against the number of
    free positions over the larger half of n) and ``local_exponent_range`` (the slopes the
    confidence intervals allow),
    ``min_ratio_larger_half``, ``task_distribution`` (secondary), ``skipped`` and, when
    fewer than three n could be measured, ``error``. Other theories (AC0's Boppana rule)
    may use it.
    """
    ctx = ctx or Context()
    options = tuple(sorted((k, v) for k, v in ctx.options.items()
                           if k.startswith("sensitivity_")))
    return copy.deepcopy(_profile(family, ctx.max_n, ctx.seed, options,
                                  float(ctx.time_limit_s) / 2))


class SensitivityTheory(Theory):
    """Hahn & Rofin (ACL 2024): linear average sensitivity -> Hard, sublinear -> Easy."""

    name = "sensitivity"
    title = "Sensitivity (Hahn & Rofin 2024)"
    summary = ("Transformers that fit functions whose average sensitivity grows with n need "
               "sharp minima, large weights or layer-norm blow-up, so training favours "
               "low-sensitivity functions (Hahn & Rofin 2024). Hard = average sensitivity "
               "linear in n; Easy = sublinear; computed exactly or by Monte Carlo.")
    assumptions = (
        "average sensitivity under the uniform distribution on the natural input space "
        "(positions with one choice are fixed separators)",
        "training reaches only minima of bounded sharpness / parameter norm / layer-norm "
        "blow-up (the theorem bounds what fitting a sensitive function requires)",
        "asymptotics read from exact values for small n and Monte Carlo estimates beyond",
    )
    sources = (SOURCE,
               "Bhattamishra, Patel, Kanade, Blunsom, 'Simplicity bias in transformers and "
               "their ability to learn sparse Boolean functions', ACL 2023",
               "Hahn, 'Theoretical limitations of self-attention in neural sequence models', "
               "TACL 2020")

    def _measured(self, family: str, ctx: Context) -> dict[str, Any] | RuleSkip:
        prof = sensitivity_profile(family, ctx)
        if "error" in prof:
            return RuleSkip(prof["error"], {"skipped": prof["skipped"]})
        return prof

    @rule("linear average sensitivity", Basis.LOWER_BOUND)
    def linear(self, family: str, ctx: Context):
        """as_n / n bounded away from 0 (ratio floor and slope ~1) -> Hard (conditional)."""
        prof = self._measured(family, ctx)
        if isinstance(prof, RuleSkip):
            return prof
        c, floor = prof["local_exponent"], prof["min_ratio_larger_half"]
        c_lo, _ = prof["local_exponent_range"]
        why = distribution_disagreement(prof)
        if why:
            return RuleSkip(why)
        if floor >= HARD_FLOOR and c_lo >= HARD_EXPONENT:
            return self.prediction(
                family, Verdict.HARD, Basis.LOWER_BOUND, Status.CONDITIONAL,
                {**prof, "condition": "training reaches only flat, bounded-norm solutions "
                 "(the sharp-minimum assumption, docs/theories.md §7)", "criterion": f"as_n/n >= {HARD_FLOOR} for n in "
                 f"{prof['larger_half_ns']} and log-log slope {c:.3f} (at least {c_lo:.3f} "
                 f"within the confidence intervals) >= {HARD_EXPONENT}",
                 "theorem": "a transformer fitting f on length n needs sharpness / norm / "
                 "layer-norm blow-up growing with as_n(f)/n (Hahn & Rofin 2024, main "
                 "sharpness theorem)"},
                f"average sensitivity grows linearly (slope {c:.2f}, as_n/n >= {floor:.2f}); "
                f"by Hahn & Rofin's bound a transformer fitting it needs a sharp minimum or "
                f"large norms, so it is hard to learn - conditional on training reaching "
                f"only flat, bounded-norm solutions")
        return RuleSkip(f"not linear: as_n/n >= {floor:.3f} (floor {HARD_FLOOR}), log-log "
                        f"slope {c:.3f}, at least {c_lo:.3f} within the confidence intervals "
                        f"(need >= {HARD_EXPONENT})")

    # an Easy verdict from an upper bound on sensitivity is no lower bound: it follows from
    # the cited bias (Hahn & Rofin 2024), hence basis theorem
    @rule("sublinear average sensitivity", Basis.THEOREM)
    def sublinear(self, family: str, ctx: Context):
        """as_n = o(n) (slope clearly below 1) -> Easy (conjectured: a bias, not a theorem)."""
        prof = self._measured(family, ctx)
        if isinstance(prof, RuleSkip):
            return prof
        c = prof["local_exponent"]
        _, c_hi = prof["local_exponent_range"]
        why = distribution_disagreement(prof)
        if why:
            kept = ("distribution", "values", "fit", "task_distribution")
            return RuleSkip(why, {k: prof[k] for k in kept if k in prof})
        if c_hi <= EASY_EXPONENT:
            return self.prediction(
                family, Verdict.EASY, Basis.THEOREM, Status.EXTRAPOLATED,
                {**prof, "criterion": f"log-log slope of as_n {c:.3f} (at most {c_hi:.3f} "
                 f"within the confidence intervals) <= {EASY_EXPONENT} (as_n = o(n)); "
                 f"growth {prof['fit']['kind']}"},
                f"average sensitivity under the uniform distribution is sublinear "
                f"({prof['fit']['formula']}, slope {c:.2f}; the task's own distribution "
                f"agrees by class); Hahn & Rofin's sharpness obstacle does not apply and "
                f"transformers are biased towards such functions - a tendency, extrapolated "
                f"from the measured n")
        # the last rule: its skip keeps the measurements, so an Unknown cell shows them
        kept = ("distribution", "values", "fit", "local_exponent", "local_exponent_range",
                "larger_half_ns", "min_ratio_larger_half", "thresholds", "task_distribution")
        return RuleSkip(f"not clearly sublinear: log-log slope {c:.3f}, up to {c_hi:.3f} "
                        f"within the confidence intervals (need <= {EASY_EXPONENT})",
                        {k: prof[k] for k in kept if k in prof})



#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (SensitivityTheory,)

__all__ = ["SensitivityTheory", "sensitivity_profile", "HARD_FLOOR", "HARD_EXPONENT",
           "EASY_EXPONENT"]
