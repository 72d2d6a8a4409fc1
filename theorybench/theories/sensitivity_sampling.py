"""Sampled estimates of average sensitivity beyond the exact range, for the Sensitivity
theory (:mod:`.sensitivity`): the series is extended to n = 16 .. 64 so that its growth is
read where the curve is asymptotic, not from a short early segment (3-hop rises up to
n = 10 and levels off near 7.6 from n = 14 to 64).

Estimates are Monte Carlo under the uniform distribution on the natural input space
(:func:`..formal.sensitivity.average_sensitivity`, normal-approximation intervals); where
rejection sampling of the valid inputs is too sparse, the task's own sampler stands in
only after a chi-square test at a small n finds it uniform on the valid inputs.  Each n is
priced by the number of label evaluations its estimate needs (each sample and every
one-symbol change of it) and left out, with the reason, past the family's budget: a count,
not a clock, so every machine measures the same n and the same seed gives the same
prediction.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import tasks
from ..errors import ResourceLimitError, TheorybenchError
from ..formal.growth import MeasuredGrowth, classify_measured
from ..formal.sensitivity import CV_FACTOR, average_sensitivity, sensitive_positions
from .base import Context

#: Sampled estimates extend the series to these n (above the exact range), so that the
#: growth class is read where the curve is asymptotic, not from a short early segment
#: (3-hop rises up to n = 10 and levels off near 7.6 from n = 14 to 64).
EXTEND_NS = (16, 24, 32, 48, 64)
EXTEND_SAMPLES = 400
#: Label evaluations the extension may spend per family (each n costs samples x (1 + the
#: number of one-symbol changes of an input)); a count, so the measured n never depend on
#: the machine or its load.
EXTEND_EVALUATIONS = 2_000_000
#: The task's sampler stands in for uniform rejection sampling (too sparse at large n)
#: only when a chi-square test at a small n finds it uniform on the valid inputs.
CHI2_Z = 4.0
#: Extension points whose whole space costs at most this (inputs x replacement symbols,
#: as theories.sensitivity.EXACT_WORK) are computed exactly, not sampled.
EXACT_EXTEND_WORK = 1 << 21
CONFIDENCE = 0.95
#: Second pass over the sampled points, with budget the first pass left: a point whose 95 %
#: half-width exceeds REFINE_REL of its value and REFINE_ABS of its free positions is drawn
#: again with the samples that bring it there (at most REFINE_MAX_SAMPLES), within
#: REFINE_EVALUATIONS label evaluations per family. A sensitivity that is rare but large
#: (#a = #b: m at balanced inputs, 0 at most others) has wide intervals at 400 draws, and a
#: fit through them read a sqrt(m) curve as exponential.
REFINE_REL = 0.05
REFINE_ABS = 0.01
REFINE_MAX_SAMPLES = 4000
REFINE_EVALUATIONS = 600_000
#: Further lengths measured only with a task's own sensitivity oracle (``DecisionFunction.
#: sensitive_positions``), once :func:`oracle_check` found it equal to trying every
#: replacement: a sample then costs one pass over its positions, not one label evaluation
#: per replacement symbol, and a graph task with O(n^2) edge tokens reaches n in the
#: hundreds (reach_undirected: its sampled series stopped at n = 16 without one).
ORACLE_NS = (128, 256, 512, 1022)
#: Largest positions x symbols table a uniform draw builds (8 bytes an entry).
MAX_TABLE = 1 << 24
#: The oracle is compared with the brute force on this many uniform and as many task
#: samples at each of the first ORACLE_CHECK_LENGTHS lengths of the family.
ORACLE_CHECK_SAMPLES = 200
ORACLE_CHECK_LENGTHS = 4


@functools.lru_cache(maxsize=64)
def oracle_check(family: str) -> dict[str, Any]:
    """Does the task's ``sensitive_positions`` equal the brute-force definition
    (:func:`..formal.sensitivity.sensitive_positions`: every replacement tried)? Compared
    position by position on ORACLE_CHECK_SAMPLES uniform and as many task samples at each
    of the family's first ORACLE_CHECK_LENGTHS lengths; {"ok", "what"}."""
    rng = np.random.default_rng(1234)
    ns, rows = [], 0
    n = 0
    while len(ns) < ORACLE_CHECK_LENGTHS and n < 64:
        n += 1
        try:
            df = tasks.get(family, n=n).decision_view()[0]
        except (TheorybenchError, ValueError):
            continue
        if df.sensitive_positions is None:
            return {"ok": False, "what": f"no oracle at n = {n}"}
        radices = np.array([len(c) for c in df.choices])
        table = np.zeros((len(radices), int(radices.max())), dtype=np.int64)
        for i, c in enumerate(df.choices):
            table[i, :len(c)] = c
        idx = (rng.random((ORACLE_CHECK_SAMPLES, len(radices))) * radices).astype(np.int64)
        x = table[np.arange(len(radices))[None, :], idx]
        x = np.concatenate([x, np.asarray(df.sample(rng, ORACLE_CHECK_SAMPLES),
                                          dtype=np.int64)])
        if df.valid is not None:
            x = x[np.asarray(df.valid(x), dtype=bool)]
        want = sensitive_positions(df, x)
        got = np.asarray(df.sensitive_positions(x), dtype=bool)
        if got.shape != want.shape or not np.array_equal(got, want):
            bad = int(np.flatnonzero((got != want).any(axis=1))[0]) if got.shape == \
                want.shape else 0
            return {"ok": False, "what": f"it disagrees with trying every replacement at "
                                         f"n = {n} on {df.task.render(x[bad])}"}
        ns.append(n)
        rows += len(x)
    if len(ns) < ORACLE_CHECK_LENGTHS:
        return {"ok": False, "what": f"fewer than {ORACLE_CHECK_LENGTHS} lengths to check it on"}
    return {"ok": True, "what": (f"the task's sensitivity oracle, equal to trying every "
                                 f"replacement at every position of {rows:,} inputs at "
                                 f"n = {ns}")}


def series_growth(rows: list[dict]) -> MeasuredGrowth:
    """The growth class of a measured sensitivity series (rows of :func:`extend_series`'s
    shape: free_positions, average_sensitivity, ci_low, ci_high, exact), against the number
    of free positions, weighted by the intervals (normal 95 % intervals: standard error =
    half-width / 1.96), exact zeros left out as :func:`..formal.growth.classify_measured`
    says. The Sensitivity column and the Boppana rules of AC0 and Star-free[pos] read the
    same series through this one function, so they read one class (docs/theories.md §8)."""
    xs = [max(int(r["free_positions"]), 1) for r in rows]
    ys = [float(r["average_sensitivity"]) for r in rows]
    sig = [(float(r["ci_high"]) - float(r["ci_low"])) / 2 / 1.96 for r in rows]
    return classify_measured(xs, ys, sigma=sig, exact=[bool(r["exact"]) for r in rows])


def extend_series(family: str, fam, rows: list[dict], rng, skipped: list[dict],
            ctx: Context) -> list[dict]:
    """Sampled estimates (uniform distribution) at the n of EXTEND_NS above the measured
    ones, each priced by a pilot run and dropped (with the reason) past the budget."""
    top = max(r["n"] for r in rows)
    budget = int(ctx.options.get("sensitivity_extend_evaluations", EXTEND_EVALUATIONS))
    spent = 0
    samples = int(ctx.options.get("sensitivity_extend_samples", EXTEND_SAMPLES))
    out: list[dict] = []
    pending: list = []  # sampled points, for the second pass (_refine)
    checked: list = []  # the sampler test, run once when first needed
    oracle: dict | None = None  # the task's sensitivity oracle, once checked
    for want in EXTEND_NS + ORACLE_NS:
        if want <= top:
            continue
        df = None
        for n in (want, want + 1, want - 1):
            try:
                df = tasks.get(family, n=n).decision_view()[0]
                break
            except (TheorybenchError, ValueError):
                continue
        if df is None or n <= top:
            continue
        if oracle is None:
            oracle = oracle_check(family) if df.sensitive_positions is not None else {}
            if oracle and not oracle["ok"]:
                skipped.append({"n": n, "reason": f"the task's sensitivity oracle was not "
                                f"used: {oracle['what']}"})
        use = bool(oracle and oracle["ok"]) and df.valid is None
        if want in ORACLE_NS and not use:
            break               # only a checked oracle makes these lengths affordable
        if not use and df.length * max(len(c) for c in df.choices) > MAX_TABLE:
            skipped.append({"n": n, "reason": f"drawing uniform inputs at n={n} needs a "
                            f"table of {df.length} x {max(len(c) for c in df.choices):,} "
                            f"symbols, more than {MAX_TABLE:,}"})
            break
        # a checked oracle gives a sample's sensitive positions in one pass over the input:
        # priced as one label evaluation per position
        per_input = (df.length + CV_FACTOR) if use else sum(len(c) - 1 for c in df.choices)
        # exact where the whole space is small (a binary task at n = 16: one pass over
        # 2^16 inputs, cheaper and sharper than 400 draws), sampled beyond
        exact = df.valid is None and df.space_size() * max(per_input, 1) <= EXACT_EXTEND_WORK
        cost = df.space_size() if exact else samples * (1 + per_input)
        what = "an exact value" if exact else "a sampled estimate"
        if spent + cost > budget:
            skipped.append({"n": n, "reason": f"{what} at n={n} needs {cost:,} "
                            f"label evaluations, past the extension's budget of {budget:,} "
                            f"per family ({spent:,} spent)"})
            break
        spent += cost
        try:
            if exact:
                dist, res = "uniform", average_sensitivity(df, method="auto")
            else:
                dist, why = _sampled(df, samples, rng, family, fam, checked, use)
                if dist is None:
                    skipped.append({"n": n, "reason": why})
                    break
                dist, res = dist
        except (TheorybenchError, ValueError, MemoryError) as exc:
            skipped.append({"n": n, "reason": f"{type(exc).__name__}: {exc}"})
            break
        row = {"n": n, "length": res.n, "free_positions": res.free_positions,
               "average_sensitivity": res.value, "ci_low": res.ci_low,
               "ci_high": res.ci_high, "exact": res.exact, "method": res.method,
               "samples": None if exact else samples,
               "ratio": res.value / max(res.free_positions, 1),
               "max_sensitivity": max(res.histogram) if res.histogram else 0.0}
        if dist == "task":
            row["sampler"] = (f"the task's own sampler, uniform on the valid inputs by a "
                              f"chi-square test ({checked[0][1]}); uniform rejection "
                              f"sampling is too sparse at this n")
        if use and not exact:
            row["oracle"] = oracle["what"]
        out.append(row)
        if not exact:
            pending.append((len(out) - 1, df, dist, per_input, use))
        top = n
    _refine(out, pending, rng, family, fam, checked,
            min(budget - spent, int(ctx.options.get("sensitivity_refine_evaluations",
                                                    REFINE_EVALUATIONS))))
    return out


def _refine(out: list[dict], pending: list, rng, family: str, fam, checked: list,
            budget: int) -> None:
    """Draw the sampled points whose intervals are wide again with more samples (in order
    of n, while ``budget`` label evaluations last; the later draw replaces the first, whose
    cost is already spent). A count of evaluations, never seconds."""
    spent = 0
    for k, df, dist, per_input, use in pending:
        row = out[k]
        half = (row["ci_high"] - row["ci_low"]) / 2
        target = max(REFINE_REL * abs(row["average_sensitivity"]),
                     REFINE_ABS * max(row["free_positions"], 1))
        if half <= target or row["samples"] >= REFINE_MAX_SAMPLES:
            continue
        want = min(REFINE_MAX_SAMPLES, int(np.ceil(row["samples"] * (half / target) ** 2)))
        cost = want * (1 + per_input)
        if spent + cost > budget:
            continue
        spent += cost
        res = average_sensitivity(df, distribution=dist, samples=want, method="monte_carlo",
                                  rng=rng, confidence=CONFIDENCE, oracle=use)
        row.update(average_sensitivity=res.value, ci_low=res.ci_low, ci_high=res.ci_high,
                   samples=want, ratio=res.value / max(res.free_positions, 1),
                   max_sensitivity=max(res.histogram) if res.histogram else 0.0,
                   refined=(f"drawn again with {want} samples: {row['samples']} gave a 95 % "
                            f"half-width of {half:.3g}, above {target:.3g}"))


def _sampled(df, samples: int, rng, family: str, fam, checked: list, oracle: bool = False):
    """((distribution, result), "") of a Monte Carlo estimate under the uniform
    distribution - by rejection sampling, or by the task's own sampler where that is too
    sparse and the sampler passed :func:`sampler_is_uniform` - or (None, why)."""
    try:
        return ("uniform", average_sensitivity(df, distribution="uniform", samples=samples,
                                               method="monte_carlo", rng=rng,
                                               confidence=CONFIDENCE, oracle=oracle)), ""
    except ResourceLimitError:
        pass
    if not checked:
        checked.append(sampler_is_uniform(family, fam))
    ok, what = checked[0]
    if not ok:
        return None, ("uniform rejection sampling is too sparse and the task's sampler is "
                      f"not shown uniform on the valid inputs ({what})")
    return ("task", average_sensitivity(df, distribution="task", samples=samples,
                                        method="monte_carlo", rng=rng,
                                        confidence=CONFIDENCE, oracle=oracle)), ""


def sampler_is_uniform(family: str, fam) -> tuple[bool, str]:
    """Is the task's own sampler uniform on the valid inputs?  Chi-square test against
    the enumerated valid inputs at the largest analysis n with at most 4,096 of them
    (20 draws per input expected; |z| of the statistic at most CHI2_Z)."""
    for n in sorted(fam.analysis_ns, reverse=True):
        try:
            df = tasks.get(family, n=n).decision_view()[0]
            if df.space_size() > (1 << 20):
                continue
            space = df.enumerate()
        except (TheorybenchError, ValueError):
            continue
        if not 8 <= len(space) <= 4096:
            continue
        draws = np.asarray(df.sample(np.random.default_rng(12345), 20 * len(space)),
                           dtype=np.int64)
        both = np.concatenate([space.astype(np.int64), draws])
        _, inv = np.unique(both, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        if not np.isin(inv[len(space):], inv[:len(space)]).all():
            return False, f"at n={n} it draws inputs outside the valid set"
        counts = np.bincount(inv[len(space):], minlength=len(space))[inv[:len(space)]]
        expect = 20.0
        chi2 = float(((counts - expect) ** 2 / expect).sum())
        dof = len(space) - 1
        zval = (chi2 - dof) / np.sqrt(2 * dof)
        what = f"n={n}, {len(space)} valid inputs, chi2 = {chi2:.0f} on {dof} dof, z = {zval:.2f}"
        return abs(zval) <= CHI2_Z, what
    return False, "no analysis n with at most 4,096 valid inputs to test it on"


#: The linear rule's floor on as_n/n (theories.sensitivity uses this one), also the class
#: line between the two distributions.
HARD_FLOOR = 0.1
#: The task's own distribution is said to disagree by class with the uniform one when, at
#: the largest exact n, its as_n/n is at least HARD_FLOOR and this many times the uniform
#: one (Dyck words are exponentially rare under the uniform distribution, so as -> 0
#: there, while the balanced distribution models are trained on gives as/n ~ 0.6).
DISAGREE_FACTOR = 4.0


def secondary(prof: dict[str, Any]) -> dict[str, Any] | None:
    """The task's own distribution beside the uniform (primary) figure: its as_n/n at the
    n where both were measured, and whether it agrees by class (never used for a verdict:
    the uniform distribution is Hahn & Rofin's definition, docs/theories.md §0)."""
    td = prof.get("task_distribution") or {}
    rows = [r for r in prof.get("values", []) if r.get("n") == td.get("n")]
    if not td or not rows or "ratio" not in td:
        return None
    uni = float(rows[0]["average_sensitivity"]) / max(int(rows[0]["free_positions"]), 1)
    task = float(td["ratio"])
    agrees = not (task >= HARD_FLOOR and task >= DISAGREE_FACTOR * max(uni, 1e-12)
                  or uni >= HARD_FLOOR and uni >= DISAGREE_FACTOR * max(task, 1e-12))
    text = (f"under the task's {td.get('distribution')} distribution as_n/n = {task:.3f} at "
            f"n={td['n']} against {uni:.3f} uniform"
            + ("" if agrees else " - it disagrees by class: models trained on that "
               "distribution see a differently sensitive function"))
    return {"n": td["n"], "distribution": td.get("distribution"), "ratio_task": task,
            "ratio_uniform": uni, "agrees_by_class": agrees, "text": text}
