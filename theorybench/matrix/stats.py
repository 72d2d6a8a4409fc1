"""Uncertainty for the comparison of theories with experiments: intervals and tests.

Every figure of the agreement table is a count over a handful of tasks, so each gets an
interval, and every comparative claim (a theory beats the trivial predictor; Hard
predictions are more precise than Easy ones) gets a test that can fail:

* :func:`wilson_interval` - the Wilson score interval of a proportion (Wilson 1927), which
  behaves at 0 and 1 successes where the normal approximation does not.
* :func:`mcnemar_exact` - the exact one-sided McNemar test for two predictors scored on the
  same cells: under the null that neither is better, each discordant cell is a fair coin
  (McNemar 1947; exact binomial form).
* :func:`precision_gap_test` - a permutation test for "Hard predictions are more precise
  than Easy ones". Shuffling the observed verdicts among the tasks keeps the base rate, so
  the test asks whether the gap exceeds what the base rate alone produces: when most tasks
  are observed Hard, a predictor that says Hard at random already has the higher Hard
  precision, and the raw comparison of precisions would pass for any predictions.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes: int, count: int, z: float = Z95) -> tuple[float, float] | None:
    """The two-sided Wilson score interval (95 % for the default ``z``); None for no data."""
    if count <= 0:
        return None
    p = successes / count
    den = 1 + z * z / count
    centre = (p + z * z / (2 * count)) / den
    half = z * math.sqrt(p * (1 - p) / count + z * z / (4 * count * count)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def binomial_tail(x: int, count: int) -> float:
    """P(X >= x) for X ~ Binomial(count, 1/2), exact in Python integers."""
    if x <= 0:
        return 1.0
    if x > count:
        return 0.0
    return sum(math.comb(count, k) for k in range(x, count + 1)) / 2 ** count


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """One-sided p-value that the first predictor is better than the second, from the
    cells only the first got right (``only_first``) and only the second got right."""
    return binomial_tail(only_first, only_first + only_second)


def precision_gap(predicted_hard: np.ndarray, predicted_easy: np.ndarray,
                  observed_hard: np.ndarray) -> np.ndarray:
    """Pooled precision of Hard minus precision of Easy predictions.

    ``predicted_hard`` / ``predicted_easy``: (theories, tasks) booleans; ``observed_hard``:
    (..., tasks) booleans (a leading axis of permutations is allowed). NaN where one kind of
    prediction is never made."""
    ph = predicted_hard.astype(np.int64)
    pe = predicted_easy.astype(np.int64)
    oh = observed_hard.astype(np.int64)
    hard_made, easy_made = ph.sum(), pe.sum()
    if hard_made == 0 or easy_made == 0:
        return np.full(oh.shape[:-1], np.nan)
    hard_right = oh @ ph.sum(axis=0)
    easy_right = (1 - oh) @ pe.sum(axis=0)
    return hard_right / hard_made - easy_right / easy_made


def precision_gap_test(predicted_hard: np.ndarray, predicted_easy: np.ndarray,
                       observed_hard: np.ndarray, rng: np.random.Generator,
                       permutations: int = 20_000) -> dict[str, float | int | None]:
    """Permutation test of "Hard predictions are more precise than Easy ones".

    The observed verdicts are shuffled among the tasks ``permutations`` times (the same
    shuffle for every theory, since they share the tasks); the p-value is the share of
    shuffles whose gap is at least the observed one, counting the observed arrangement
    itself so that it is never 0. Returns the observed gap, the mean gap under shuffling (what
    the base rate alone gives) and the p-value; None values where the gap is undefined."""
    observed_hard = np.asarray(observed_hard, dtype=bool)
    gap = float(precision_gap(predicted_hard, predicted_easy, observed_hard))
    if math.isnan(gap):
        return {"gap": None, "null_gap": None, "p_value": None, "permutations": 0}
    tasks = observed_hard.shape[-1]
    keys = rng.random((permutations, tasks))
    shuffled = observed_hard[np.argsort(keys, axis=1)]
    null = precision_gap(predicted_hard, predicted_easy, shuffled)
    # a tolerance so that ties in floating point count as ties
    at_least = int(np.count_nonzero(null >= gap - 1e-12))
    return {"gap": gap, "null_gap": float(null.mean()),
            "p_value": (1 + at_least) / (1 + permutations), "permutations": permutations}


def seed_range_margin(lower: Sequence[float], upper: Sequence[float]) -> float | None:
    """min(upper) - max(lower): positive when every seed of ``upper`` beats every seed of
    ``lower`` (the seed ranges do not overlap); None with fewer than two seeds on a side,
    where a range says nothing about seed-to-seed variation."""
    if len(lower) < 2 or len(upper) < 2:
        return None
    return min(upper) - max(lower)


def stratified_gap_test(pairs: Sequence[tuple[Sequence[float], Sequence[float]]],
                        rng: np.random.Generator, permutations: int = 20_000
                        ) -> dict[str, float | int | None]:
    """One-sided permutation test that ``upper`` beats ``lower`` across strata.

    ``pairs``: per stratum (an n), the seeds' accuracies ``(lower, upper)``. The statistic
    is the mean over strata of mean(upper) - mean(lower); the null shuffles the seeds'
    labels within each stratum (so n itself never counts as an effect). p counts the
    observed arrangement, so it is never 0; with too few seeds to shuffle it is None."""
    strata = [(np.asarray(lo, float), np.asarray(hi, float)) for lo, hi in pairs
              if len(lo) and len(hi)]
    if not strata or all(len(lo) + len(hi) < 3 for lo, hi in strata):
        return {"gap": None, "p_value": None, "permutations": 0}
    gap = float(np.mean([hi.mean() - lo.mean() for lo, hi in strata]))
    null = np.zeros(permutations)
    for lo, hi in strata:
        both = np.concatenate([lo, hi])
        order = np.argsort(rng.random((permutations, len(both))), axis=1)
        shuffled = both[order]
        null += shuffled[:, len(lo):].mean(axis=1) - shuffled[:, :len(lo)].mean(axis=1)
    null /= len(strata)
    at_least = int(np.count_nonzero(null >= gap - 1e-12))
    return {"gap": gap, "p_value": (1 + at_least) / (1 + permutations),
            "permutations": permutations}
