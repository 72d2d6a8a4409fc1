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

Rules (both compute; neither reads a table, nor a task's name). First the closed forms
(:mod:`..formal.sensitivity_closed`): when the task's decision function equals, on every
input at each exactly measured n, a function whose average sensitivity is known for every
length (parity: m; AND/OR: m 2^(1-m); majority: m C(m-1, t-1)/2^(m-1) ~ sqrt(2m/pi);
MOD_k: ~ 2m/k; index: 2 - 2^(1-N); a junta of k positions: at most k), and the formula
matches every measured value (exact ones exactly, sampled ones within their intervals),
its limit of as_n/n decides - no fit. The identity is checked up to the largest such n,
so the cell says ``verified ≤ N`` (exhaustive) for an Easy, and stays *conditional* on the
sharp-minimum assumption for a Hard. Otherwise the series: exact values (FWHT or
enumeration) at the family's analysis n, then at n = 16 .. 64 as the budget allows exact
values where the space is still small and sampled estimates (EXTEND_SAMPLES draws, 95%
intervals) beyond - and, with a task's own sensitivity oracle checked against trying every
replacement, up to n = 1022 (:mod:`.sensitivity_sampling`) - so that growth is read where
the curve is
asymptotic (3-hop rises to n = 10 and levels off near 7.6 from n = 14 to 64; a fit up to
n = 10 called it linear). The growth class comes from
:func:`.sensitivity_sampling.series_growth` (the one classification the Boppana rules of
AC0 and Star-free[pos] read too; exact zeros, where the function is constant, left out) on
the tail of the series, weighted by the intervals; log-log slopes are taken on the same
tail.

* ``linear average sensitivity`` (lower bound) - a closed form with lim as_n/n > 0, or
  as_n / n_free >= HARD_FLOOR on the tail (n_free = positions with more than one choice),
  the tail's log-log slope >= HARD_EXPONENT within the intervals, and the classifier
  decides a power law of exponent >= HARD_EXPONENT with neither bounded nor logarithmic
  growth also fitting -> Hard, status *conditional* (on the assumption that trained
  transformers keep bounded norm / layer-norm blow-up, i.e. do not sit at the sharp
  minima the theorem says are needed).
* ``sublinear average sensitivity`` - a closed form with lim as_n/n = 0 (``verified ≤ N``),
  or as_n = o(n) read from the series: the classifier decides bounded, logarithmic or n^c
  with c <= EASY_EXPONENT, and the tail's slope is <= EASY_EXPONENT within the intervals
  -> Easy, status *extrapolated* (low sensitivity removes the obstacle; that the task is
  then learned is the paper's empirical tendency).

Otherwise the verdict is Unknown, with the fit and slopes that kept it from deciding.
The verdict is always read under the uniform distribution on the natural input space
(primary, the paper's definition, docs/theories.md §0); where uniform rejection sampling
is too sparse for the valid inputs, the task's own sampler is used only if a chi-square
test at a small n finds it uniform on them (each such row says so). The task's own
distribution is reported beside it (``secondary``: its as_n/n at the largest exact n and
whether it agrees by class - All, Any and Dyck do not: their balanced samplers put half
the mass on the rare, sensitive positives); it never decides.
"""

from __future__ import annotations

import copy
import functools
import time
from typing import Any

import numpy as np

from .. import tasks
from ..errors import TheorybenchError
from .base import (Basis, Context, RuleSkip, Status, Theory, Verdict,
                   rule)
from ..formal.growth import tail_window
from ..formal.sensitivity import average_sensitivity
from ..formal.sensitivity_closed import closed_form_for, describe
# the extension's names stay importable from here (tests, users tuning the budget)
from .sensitivity_sampling import (CONFIDENCE, EXTEND_EVALUATIONS, EXTEND_NS,  # noqa: F401
                                    EXTEND_SAMPLES, extend_series, sampler_is_uniform,
                                    HARD_FLOOR, secondary, series_growth)

HARD_EXPONENT = 0.9
EASY_EXPONENT = 0.75
#: Largest space enumerated exactly by the rule (inputs x positions x replacements).
EXACT_WORK = 1 << 21
#: Monte Carlo work budget (rows x positions x replacements) per n, and sample bounds.
MC_WORK = 1 << 22
MC_SAMPLES = (300, 4000)
#: No verdict from a series whose largest input has fewer free positions than this: an
#: early segment (3-hop up to n = 10) can rise like n and level off later.
MIN_DECIDE_FREE = 16

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
    if len(rows) >= 1:
        rows += extend_series(family, fam, rows, rng, skipped, ctx)
    out: dict[str, Any] = {"distribution": "uniform (natural input space)", "values": rows,
                           "skipped": skipped, "thresholds": {
                               "hard_ratio_floor": HARD_FLOOR, "hard_exponent": HARD_EXPONENT,
                               "easy_exponent": EASY_EXPONENT},
                           "source": SOURCE}
    if len(rows) < 3:
        out["error"] = (f"average sensitivity computed for {len(rows)} n (need 3): "
                        + "; ".join(f"n={s['n']}: {s['reason']}" for s in skipped))
        return out
    free = np.array([max(r["free_positions"], 1) for r in rows], dtype=float)
    as_arr = np.array([r["average_sensitivity"] for r in rows], dtype=float)
    # against the number of free positions (the effective input length; = n for bit-string
    # tasks), so that separators and query tokens do not bend the estimate; the one
    # classification the Boppana rules read too (sensitivity_sampling.series_growth)
    growth = series_growth(rows)
    keep = np.array(growth.kept, dtype=int)
    out["fit"] = growth.to_dict()
    if growth.constant_at:
        out["constant_at_free_positions"] = growth.constant_at
    tail = keep[tail_window(free[keep])]
    out["local_exponent"] = _slope(free[tail], as_arr[tail])
    out["exponent_all_n"] = _slope(free, as_arr)
    # the slope range the confidence intervals allow (equal to the slope when exact):
    # low ends at the small n and high ends at the large n, and the reverse
    lo = np.array([r["ci_low"] for r in rows])[tail]
    hi = np.array([r["ci_high"] for r in rows])[tail]
    first = np.arange(len(lo)) < len(lo) / 2
    out["local_exponent_range"] = [_slope(free[tail], np.where(first, hi, lo)),
                                   _slope(free[tail], np.where(first, lo, hi))]
    out["larger_half_ns"] = [int(rows[i]["n"]) for i in tail]
    out["min_ratio_larger_half"] = float((lo / free[tail]).min())
    sampled = [r for r in rows if not r["exact"]]
    if sampled:
        out["sampled"] = (f"sampled estimates ({', '.join(str(r['samples']) for r in sampled)} "
                          f"samples) at n = {[r['n'] for r in sampled]}, with "
                          f"{int(100 * CONFIDENCE)}% intervals")
    if last_df is not None:
        out["task_distribution"] = _task_value(last_df, rng, ctx)
        # a task with several outputs is measured on its first decision view (the last
        # position of a per-position task, the carry-out of an addition): say which
        out["view"] = f"{last_df.name}: {last_df.description}".rstrip(": ")
    return out


def _choose_ns(family: str, fam, max_n: int) -> list[int]:
    """The family's analysis n up to max_n; when fewer than three, the next valid n above
    (larger analysis n first, then n + 1, n + 2, ... up to four n and at most 4 max_n),
    measured by Monte Carlo where the space is too large to enumerate."""
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
        side = secondary(prof)
        if side:
            prof["secondary"] = side
        closed = closed_form_for(family, prof["values"])
        if isinstance(closed, dict):
            prof["closed_form"] = closed
            if closed["agrees"]:
                return prof  # a closed form decides growth at every n, not the series
        else:
            prof["closed_form_tried"] = closed
        top = max(r["free_positions"] for r in prof["values"])
        if top < MIN_DECIDE_FREE:
            stop = "; ".join(f"n={s['n']}: {s['reason']}" for s in prof["skipped"][:1])
            kept = ("distribution", "values", "fit", "skipped", "sampled", "secondary",
                    "view", "closed_form", "closed_form_tried")
            return RuleSkip(f"the series stops at {top} free positions (n = "
                            f"{prof['values'][-1]['n']}), below the {MIN_DECIDE_FREE} needed "
                            f"to read growth rather than an early segment"
                            + (f" ({stop})" if stop else ""),
                            {k: prof[k] for k in kept if k in prof})
        return prof

    @rule("linear average sensitivity", Basis.LOWER_BOUND)
    def linear(self, family: str, ctx: Context):
        """as_n / n bounded away from 0 (a closed form with lim as/n > 0, or the ratio floor
        and slope ~1 of the measured series) -> Hard (conditional)."""
        prof = self._measured(family, ctx)
        if isinstance(prof, RuleSkip):
            return prof
        condition = ("training reaches only flat, bounded-norm solutions (the sharp-minimum "
                     "assumption, docs/theories.md §7)")
        theorem = ("a transformer fitting f on length n needs sharpness / norm / layer-norm "
                   "blow-up growing with as_n(f)/n (Hahn & Rofin 2024, main sharpness theorem)")
        cf = prof.get("closed_form")
        if cf and cf["agrees"]:
            if cf["sublinear"]:
                return RuleSkip(f"closed form {cf['formula']} ({cf['function']}): as_n/n -> "
                                f"{cf['limit_as_over_n']}, sublinear")
            return self.prediction(
                family, Verdict.HARD, Basis.LOWER_BOUND, Status.CONDITIONAL,
                {**prof, "condition": condition, "theorem": theorem,
                 "verified_up_to": max(cf["checked_ns"]), "verified_how": "exhaustive",
                 "criterion": f"closed form as = {cf['formula']} with as_n/n -> "
                 f"{cf['limit_as_over_n']} > 0"},
                f"{describe(cf)}, so as_n/n -> {cf['limit_as_over_n']} (uniform "
                f"distribution{_side_words(prof)}); by Hahn & Rofin's bound a transformer "
                f"fitting it needs a sharp minimum or large norms, so it is hard to learn - "
                f"conditional on training reaching only flat, bounded-norm solutions")
        c, floor = prof["local_exponent"], prof["min_ratio_larger_half"]
        c_lo, _ = prof["local_exponent_range"]
        fit = prof["fit"]
        linear = (fit["decided"] and fit["kind"] in ("poly", "exponential")
                  and (fit["exponent"] or 0) >= HARD_EXPONENT
                  and not {"bounded", "log"} & set(fit["ambiguous_with"]))
        if floor >= HARD_FLOOR and c_lo >= HARD_EXPONENT and linear:
            return self.prediction(
                family, Verdict.HARD, Basis.LOWER_BOUND, Status.CONDITIONAL,
                {**prof, "condition": condition, "criterion": f"as_n/n >= {HARD_FLOOR} for n in "
                 f"{prof['larger_half_ns']} and log-log slope {c:.3f} (at least {c_lo:.3f} "
                 f"within the confidence intervals) >= {HARD_EXPONENT}", "theorem": theorem},
                f"average sensitivity under the uniform distribution grows linearly (slope "
                f"{c:.2f} on n = {prof['larger_half_ns']}, as_n/n >= {floor:.2f}"
                f"{'; ' + prof['sampled'] if prof.get('sampled') else ''}{_side_words(prof)}); "
                f"by Hahn & Rofin's bound a transformer fitting it needs a sharp minimum or "
                f"large norms, so it is hard to learn - conditional on training reaching "
                f"only flat, bounded-norm solutions")
        return RuleSkip(f"not linear: as_n/n >= {floor:.3f} (floor {HARD_FLOOR}), log-log "
                        f"slope {c:.3f} on n = {prof['larger_half_ns']}, at least {c_lo:.3f} "
                        f"within the confidence intervals (need >= {HARD_EXPONENT}); growth "
                        f"{_fit_words(fit)}")

    # an Easy verdict from an upper bound on sensitivity is no lower bound: it follows from
    # the cited bias (Hahn & Rofin 2024), hence basis theorem
    @rule("sublinear average sensitivity", Basis.THEOREM)
    def sublinear(self, family: str, ctx: Context):
        """as_n = o(n) (a closed form with lim as/n = 0, or a slope clearly below 1) ->
        Easy (a bias, not a theorem)."""
        prof = self._measured(family, ctx)
        if isinstance(prof, RuleSkip):
            return prof
        tendency = ("Hahn & Rofin's sharpness obstacle does not apply and transformers are "
                    "biased towards such functions - a tendency")
        cf = prof.get("closed_form")
        if cf and cf["agrees"] and cf["sublinear"]:
            return self.prediction(
                family, Verdict.EASY, Basis.THEOREM, Status.VERIFIED,
                {**prof, "verified_up_to": max(cf["checked_ns"]), "verified_how": "exhaustive",
                 "criterion": f"closed form as = {cf['formula']} with as_n/n -> 0"},
                f"{describe(cf)}, so as_n = o(n) under the uniform distribution"
                f"{_side_words(prof)}; {tendency}")
        kept = ("distribution", "values", "fit", "local_exponent", "local_exponent_range",
                "larger_half_ns", "min_ratio_larger_half", "thresholds", "task_distribution",
                "sampled", "skipped", "secondary", "view", "closed_form", "closed_form_tried")
        if cf and cf["agrees"]:
            return RuleSkip(f"closed form {cf['formula']}: as_n/n -> {cf['limit_as_over_n']}, "
                            f"linear", {k: prof[k] for k in kept if k in prof})
        c = prof["local_exponent"]
        _, c_hi = prof["local_exponent_range"]
        fit = prof["fit"]
        sub = _sublinear_fit(fit)
        if c_hi <= EASY_EXPONENT and sub:
            return self.prediction(
                family, Verdict.EASY, Basis.THEOREM, Status.EXTRAPOLATED,
                {**prof, "criterion": f"log-log slope of as_n {c:.3f} (at most {c_hi:.3f} "
                 f"within the confidence intervals) <= {EASY_EXPONENT} (as_n = o(n)); "
                 f"growth {prof['fit']['kind']}"},
                f"average sensitivity under the uniform distribution is sublinear "
                f"({_fit_words(fit)}, slope {c:.2f}"
                f"{'; ' + prof['sampled'] if prof.get('sampled') else ''}{_side_words(prof)}); "
                f"{tendency}, extrapolated from the measured n")
        # the last rule: its skip keeps the measurements, so an Unknown cell shows them
        return RuleSkip(f"not clearly sublinear: log-log slope {c:.3f} on n = "
                        f"{prof['larger_half_ns']}, up to {c_hi:.3f} within the confidence "
                        f"intervals (need <= {EASY_EXPONENT}); growth {_fit_words(fit)}",
                        {k: prof[k] for k in kept if k in prof})


def _side_words(prof: dict[str, Any]) -> str:
    side = prof.get("secondary")
    return f"; beside it, {side['text']}" if side else ""


def _sublinear_fit(fit: dict[str, Any]) -> bool:
    """A sublinear class (bounded, logarithmic, n^c with c <= EASY_EXPONENT) fits the tail
    within the uncertainties, and no linear one does (a + b n with b >= HARD_FLOOR, or n^c
    with c >= HARD_EXPONENT): sampled estimates often fit several classes, and Easy needs
    the linear reading excluded, not merely a sublinear one preferred."""
    if not fit.get("decided", True):
        return False
    cands = fit.get("candidates") or {}

    def fits(name):
        return bool(cands.get(name, {}).get("fits"))

    def par(name, key):
        return float(cands[name]["params"][key])

    # a flat or falling tail is decided bounded by the classifier though no candidate
    # fits it (a fall to 0 has no constant, logarithmic or power-law shape)
    sublinear = (fit.get("kind") == "bounded" or fits("bounded") or fits("log")
                 or (fits("poly") and par("poly", "c") <= EASY_EXPONENT))
    linear = ((fits("linear") and par("linear", "b") >= HARD_FLOOR)
              or (fits("poly") and par("poly", "c") >= HARD_EXPONENT))
    return sublinear and not linear


def _fit_words(fit: dict[str, Any]) -> str:
    """The growth decision in words: class, formula, and what keeps it from deciding."""
    # the series is fitted against the number of free positions, which the fit calls n
    why = (fit.get("reason") or "fitted").replace("fitted on n =", "fitted on free positions")
    text = f"{fit['kind']} ({fit['formula']}; {why})"
    if not fit.get("decided", True):
        text += " - undecided"
    return text


#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (SensitivityTheory,)

__all__ = ["SensitivityTheory", "sensitivity_profile", "HARD_FLOOR", "HARD_EXPONENT",
           "EASY_EXPONENT"]
