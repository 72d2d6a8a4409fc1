"""Average sensitivity of decision functions (docs/theories.md §7): the calculators.

For f on a product space X = C_1 x ... x C_L (``DecisionFunction.choices``) the
sensitivity of f at x is s(f, x) = number of positions i at which some other symbol of
C_i changes f(x) (the *deterministic* version; for {0,1}^n the usual definition).
The *probabilistic* version counts position i with weight = the fraction of the other
symbols of C_i that change f(x) (equal to the deterministic one on binary inputs).
Positions with a single choice (fixed separators) are never sensitive. The average
sensitivity is as(f) = E_x s(f, x); for Boolean f on the uniform cube it equals the
total influence sum_S |S| f^(S)^2 (O'Donnell, *Analysis of Boolean Functions*, ch. 2),
which the FWHT method computes. Hahn & Rofin (ACL 2024, arXiv 2402.09963) use as_n under
the uniform distribution as the measure that governs what transformers learn easily.

Domain restriction: when ``df.valid`` is given, x ranges over the valid inputs only and
only neighbours that are valid count as flips (a neighbour outside the domain is not an
input, so it cannot witness sensitivity); the probabilistic version divides by the number
of valid neighbours at that position.

Methods: ``exact`` evaluates f once on the whole space (in chunks), then finds every
neighbour by index arithmetic in mixed radix - one vectorized pass per position and
replacement symbol, never a loop over inputs; ``fwht`` computes the Fourier spectrum by a
fast Walsh-Hadamard transform (binary inputs and outputs, uniform, no domain
restriction); ``monte_carlo`` samples x (uniform over the space, by rejection when
``valid`` is set, or from the task's own distribution) and reports a normal-approximation
confidence interval of the mean.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import numpy as np

from .. import tasks
from ..errors import EnumerationTooLarge, ResourceLimitError, TaskParameterError, TheoryError
from ..tasks.base import MAX_ENUMERATE, DecisionFunction
from .resources import check_memory, fmt_count

METHODS = ("auto", "exact", "fwht", "monte_carlo")
DISTRIBUTIONS = ("uniform", "task")
VARIANTS = ("deterministic", "probabilistic")
#: Elements (rows x length) evaluated per call in Monte Carlo, to bound memory.
_MC_BLOCK = 1 << 22
_CHUNK = 1 << 17
_BYTE_POP = np.array([bin(b).count("1") for b in range(256)], dtype=np.int8)


@dataclass
class SensitivityResult:
    """Average sensitivity of one decision function, with how it was obtained.

    ``n`` is the input length (``df.length``); ``free_positions`` the number of positions
    with more than one choice; ``histogram`` maps s to its probability (s(f,x) values,
    rounded to 6 digits for the probabilistic variant); ``influences[i]`` is the mean
    contribution of position i. For exact methods ``ci_low == ci_high == value``.
    """

    n: int
    value: float
    ci_low: float
    ci_high: float
    exact: bool
    method: str
    distribution: str
    histogram: dict[float, float]
    variant: str = "deterministic"
    samples: int | None = None
    free_positions: int = 0
    influences: list[float] = field(default_factory=list)
    task: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    confidence: float | None = None

    @property
    def per_position(self) -> float:
        """as / n (n = input length)."""
        return self.value / self.n if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "task": self.task, "params": dict(self.params),
                "distribution": self.distribution, "average_sensitivity": self.value,
                "ci_low": self.ci_low, "ci_high": self.ci_high, "exact": self.exact,
                "method": self.method, "variant": self.variant, "samples": self.samples,
                "confidence": self.confidence, "free_positions": self.free_positions,
                "per_position": self.per_position,
                "histogram": {_key(k): v for k, v in sorted(self.histogram.items())},
                "influences": list(self.influences)}


def _key(k: float) -> str:
    return str(int(k)) if float(k).is_integer() else f"{k:.6g}"


# ---- the public API ------------------------------------------------------------------

def average_sensitivity(df: DecisionFunction, *, distribution: str = "uniform",
                        method: str = "auto", samples: int = 20000,
                        rng: np.random.Generator | None = None, confidence: float = 0.95,
                        variant: str = "deterministic",
                        exact_limit: int = MAX_ENUMERATE,
                        progress: Callable[[int], None] | None = None,
                        oracle: bool = False) -> SensitivityResult:
    """Average sensitivity of ``df`` (see the module docstring for the definitions).

    ``method="auto"``: FWHT when inputs and outputs are binary, the space has at most
    ``exact_limit`` points, there is no domain restriction and the distribution is
    uniform; exact enumeration when the space has at most ``exact_limit`` points; Monte
    Carlo with ``samples`` draws beyond, and always under ``distribution="task"`` (the
    task's sampler is the only description of that distribution we have). Monte Carlo
    draws are processed in chunks (memory checked first, see :func:`monte_carlo_cost`);
    ``progress(samples_done)`` is called after each chunk. ``oracle``: Monte Carlo reads
    each sample's sensitive positions from ``df.sensitive_positions`` (the task's own
    computation, deterministic variant only) instead of trying every replacement; the
    caller has checked it against this module's brute force first.
    """
    check_options(distribution, method, variant, samples, confidence)
    size = df.space_size()
    if method == "auto":
        if distribution == "task" or size > exact_limit:
            method = "monte_carlo"
        elif df.binary and df.valid is None:
            method = "fwht?"  # FWHT if the output turns out Boolean, else enumeration
        else:
            method = "exact"
    if method in ("exact", "fwht", "fwht?"):
        if distribution == "task":
            raise TheoryError(
                f"method {method!r} is exact only under the uniform distribution; use "
                f"method='monte_carlo' (or 'auto') with distribution='task'")
        if size > exact_limit:
            raise EnumerationTooLarge(
                f"{df.task.name} at length {df.length} has {fmt_count(size)} inputs, more than the "
                f"exact limit {exact_limit:,}; use method='monte_carlo' (CLI: --method "
                f"monte_carlo or auto, with --samples S) or a smaller n")
        res = _exact(df, variant, fourier={"exact": False, "fwht": True}.get(method, None))
    else:
        use = oracle and variant == "deterministic" and df.sensitive_positions is not None
        res = _monte_carlo(df, distribution, samples, rng or np.random.default_rng(0),
                           confidence, variant, progress, oracle=use)
    res.task = df.task.name
    res.params = dict(getattr(df.task, "values", {}))
    return res


def model_sensitivity(predict_fn: Callable[[np.ndarray], np.ndarray], df: DecisionFunction,
                      **kwargs: Any) -> SensitivityResult:
    """The same estimator for any callable on token batches (e.g. a trained model).

    ``predict_fn(tokens (batch, L) int64) -> (batch,)`` discrete outputs (take the argmax
    of a model's logits first). The input space, domain and task distribution are those of
    ``df``; keyword arguments are those of :func:`average_sensitivity`.
    """
    def evaluate(x: np.ndarray) -> np.ndarray:
        return np.asarray(predict_fn(x)).reshape(len(x))
    # the task's sensitivity oracle describes the task, not the model
    return average_sensitivity(replace(df, evaluate=evaluate, sensitive_positions=None),
                               **kwargs)


def sensitivity_by_n(family: str, ns: Sequence[int], params: dict[str, Any] | None = None,
                     **kwargs: Any) -> list[SensitivityResult]:
    """Average sensitivity of ``family``'s main decision function for each n in ``ns``."""
    if not ns:
        raise TaskParameterError("sensitivity_by_n needs at least one n")
    out = []
    for n in ns:
        df = tasks.get(family, n=n, **(params or {})).decision_view()[0]
        out.append(average_sensitivity(df, **kwargs))
    return out


def fwht(values: np.ndarray, dtype=np.float64) -> np.ndarray:
    """Unnormalized Walsh-Hadamard transform of a length-2^n vector (O(n 2^n), vectorized).

    ``dtype`` is the working type: an integer type gives the exact transform of an integer
    vector as long as no coefficient overflows (|c| <= sum |v|)."""
    a = np.array(values, dtype=dtype)
    size = a.shape[0]
    if size & (size - 1):
        raise ValueError("fwht needs a length that is a power of two")
    tmp = np.empty(size // 2, dtype=dtype)
    h = 1
    while h < size:
        v = a.reshape(-1, 2, h)
        t = tmp.reshape(-1, h)
        np.add(v[:, 0], v[:, 1], out=t)
        np.subtract(v[:, 0], v[:, 1], out=v[:, 1])
        v[:, 0] = t
        h *= 2
    return a


def popcount(idx: np.ndarray) -> np.ndarray:
    """Number of one bits of each entry of a non-negative int64 array."""
    idx = np.asarray(idx, dtype=np.int64)
    out = np.zeros(idx.shape, dtype=np.int8)
    top = int(idx.max()) if idx.size else 0
    shift = 0
    while (1 << shift) <= top:
        out += _BYTE_POP[(idx >> shift) & 0xFF]
        shift += 8
    return out


def total_influence_fourier(table: np.ndarray) -> float:
    """sum_S |S| f^(S)^2 for f given by its 0/1 (or two-valued) truth table of length 2^n."""
    t = np.asarray(table)
    low = t.min()
    high = t == low
    if not high.all() and np.any(t[~high] != t.max()):
        raise TheoryError("the Fourier method needs a two-valued (Boolean) function")
    size = len(t)
    if size <= 1 << 30:
        # exact integer arithmetic: |coefficient| <= 2^n fits int32, and by Parseval
        # sum_S |S| c_S^2 <= n 4^n fits int64 for n <= 30
        pm = np.where(high, np.int32(1), np.int32(-1))
        coef = fwht(pm, dtype=np.int32).astype(np.int64)
        weighted = int(np.dot(popcount(np.arange(size)).astype(np.int64), coef * coef))
        return weighted / float(size) ** 2
    pm = np.where(high, 1.0, -1.0)
    coef = fwht(pm) / size
    return float(np.sum(popcount(np.arange(size)) * coef ** 2))


# ---- exact ---------------------------------------------------------------------------

def check_options(distribution: str, method: str, variant: str, samples: int,
                  confidence: float) -> None:
    """:class:`TaskParameterError` unless the options of :func:`average_sensitivity` are
    valid (callers check before any work)."""
    if distribution not in DISTRIBUTIONS:
        raise TaskParameterError(f"distribution {distribution!r} is not one of "
                                 f"{', '.join(DISTRIBUTIONS)}")
    if method not in METHODS:
        raise TaskParameterError(f"method {method!r} is not one of {', '.join(METHODS)}")
    if variant not in VARIANTS:
        raise TaskParameterError(f"variant {variant!r} is not one of {', '.join(VARIANTS)}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 2:
        raise TaskParameterError(f"samples must be an integer >= 2, got {samples!r}")
    if not 0 < confidence < 1:
        raise TaskParameterError(f"confidence must be in (0, 1), got {confidence!r}")


def _tables(choices):
    radices = np.array([len(c) for c in choices], dtype=np.int64)
    width = int(radices.max()) if len(radices) else 1
    table = np.zeros((len(choices), width), dtype=np.int64)
    for i, c in enumerate(choices):
        table[i, :len(c)] = c
    return radices, table


def _strides(radices: np.ndarray) -> np.ndarray:
    """Mixed-radix strides of the lexicographic index, computed exactly (Python ints) and
    refused past int64: only an enumerated space (at most the exact limit) is indexed, so
    an overflow here means a caller skipped that limit."""
    strides, acc = [], 1
    for k in reversed(radices.tolist()):
        strides.append(acc)
        acc *= int(k)
    if acc > np.iinfo(np.int64).max:
        raise ResourceLimitError(f"an input space of {fmt_count(acc)} points cannot be "
                                 f"indexed; enumerate at most {MAX_ENUMERATE:,} points")
    return np.array(strides[::-1], dtype=np.int64)


def _pow2(v: int) -> bool:
    return v > 0 and not v & (v - 1)


def _inputs(idx, radices, table, strides):
    """The points with lexicographic indices ``idx``: all digits in one broadcast (shifts
    and masks when every radix is a power of two), then token ids by one gather."""
    if all(_pow2(int(k)) for k in radices):
        shifts = np.array([int(st).bit_length() - 1 for st in strides], dtype=np.int64)
        d = (idx[:, None] >> shifts[None, :]) & (radices - 1)[None, :]
    else:
        d = (idx[:, None] // strides[None, :]) % radices[None, :]
    if all(np.array_equal(table[i, :k], np.arange(k)) for i, k in enumerate(radices.tolist())):
        return d
    return table[np.arange(len(radices))[None, :], d]


def _evaluate_space(df: DecisionFunction):
    """f (and the domain mask) on every point of the space, lexicographic order."""
    radices, table = _tables(df.choices)
    strides = _strides(radices)
    size = int(np.prod(radices)) if len(radices) else 1
    values = np.empty(size, dtype=np.int64)
    ok = None if df.valid is None else np.empty(size, dtype=bool)
    for start in range(0, size, _CHUNK):
        idx = np.arange(start, min(size, start + _CHUNK), dtype=np.int64)
        x = _inputs(idx, radices, table, strides)
        values[start:start + len(idx)] = np.asarray(df.evaluate(x)).reshape(len(idx))
        if ok is not None:
            ok[start:start + len(idx)] = np.asarray(df.valid(x), dtype=bool)
    return values, ok, radices, strides


def _contribution(hits: np.ndarray, valid_neighbours: np.ndarray | None, k: int,
                  variant: str) -> np.ndarray:
    """Position i's share of s(f, x) from the count of replacement symbols that change f:
    1 if any does (deterministic), else the fraction of the (valid) replacements that do."""
    if variant == "deterministic":
        return (hits > 0).astype(np.float64)
    denom = valid_neighbours if valid_neighbours is not None else np.full(hits.shape, k - 1.0)
    return np.divide(hits, denom, out=np.zeros(hits.shape), where=denom > 0)


def _exact(df: DecisionFunction, variant: str, fourier: bool | None) -> SensitivityResult:
    values, ok, radices, strides = _evaluate_space(df)
    size = len(values)
    s = np.zeros(size, dtype=np.float64)
    influences = []
    for i, k in enumerate(radices.tolist()):
        if k < 2:
            influences.append(0.0)
            continue
        # with the index reshaped to (prefix, digit i, suffix), the neighbours of a point
        # at position i are the other entries along the middle axis
        st = int(strides[i])
        v = values.reshape(-1, k, st)
        s3 = s.reshape(-1, k, st)
        if k == 2 and ok is None:  # the common Boolean case
            changed = v[:, 0, :] != v[:, 1, :]
            s3 += changed[:, None, :]
            influences.append(float(changed.mean()))
            continue
        o = None if ok is None else ok.reshape(-1, k, st)
        hits = np.zeros(v.shape, dtype=np.float64)
        total = np.zeros(v.shape, dtype=np.float64)
        for r in range(1, k):
            changed = np.roll(v, r, axis=1) != v
            if o is not None:
                okn = np.roll(o, r, axis=1)
                changed &= okn
                total += okn
            hits += changed
        contrib = _contribution(hits, total if o is not None else None, k, variant)
        s3 += contrib
        contrib = contrib.reshape(size)
        influences.append(float(contrib[ok].mean() if ok is not None and ok.any()
                                else contrib.mean()))
    if ok is not None:
        if not ok.any():
            raise TheoryError(f"{df.task.name}: no input of length {df.length} is valid")
        s = s[ok]
    value = float(s.mean())
    method = "exact"
    if fourier is None:  # auto: Fourier only for a two-valued output
        low = values.min()
        fourier = bool(np.all((values == low) | (values == values.max())))
    if fourier:
        if ok is not None or not df.binary:
            raise TheoryError("the FWHT method needs binary inputs and no domain restriction; "
                              "use method='exact'")
        try:
            value = total_influence_fourier(values)
        except TheoryError:
            raise TheoryError("the FWHT method needs a Boolean (two-valued) output; "
                              "use method='exact'") from None
        method = "fwht"
    return SensitivityResult(n=df.length, value=value, ci_low=value, ci_high=value, exact=True,
                             method=method, distribution="uniform", histogram=_histogram(s),
                             variant=variant, free_positions=int((radices > 1).sum()),
                             influences=influences)


def _histogram(s: np.ndarray) -> dict[float, float]:
    keys, counts = np.unique(np.round(s, 6), return_counts=True)
    total = counts.sum()
    return {float(k): float(c / total) for k, c in zip(keys, counts)}


# ---- Monte Carlo ---------------------------------------------------------------------

def _draw_uniform(df, samples, rng, radices, table):
    if df.valid is None:
        digits = (rng.random((samples, len(radices))) * radices[None, :]).astype(np.int64)
        return table[np.arange(len(radices))[None, :], digits]
    got, have = [], 0
    for _ in range(100):
        m = max(256, 2 * (samples - have))
        digits = (rng.random((m, len(radices))) * radices[None, :]).astype(np.int64)
        x = table[np.arange(len(radices))[None, :], digits]
        x = x[np.asarray(df.valid(x), dtype=bool)]
        got.append(x)
        have += len(x)
        if have >= samples:
            return np.concatenate(got)[:samples]
    raise ResourceLimitError(
        f"{df.task.name}: fewer than {samples} valid inputs found by rejection sampling "
        f"(the domain is too sparse in its product space); use distribution='task'")


def monte_carlo_cost(length: int, samples: int) -> tuple[int, int]:
    """(peak bytes, work units) of a Monte Carlo estimate with ``samples`` draws at
    ``length`` positions: the draws are processed in chunks of at most ``_MC_BLOCK``
    tokens, so memory is one float per sample plus a chunk; every position re-evaluates
    f on the chunk, so the work is samples x length x length token reads (about a
    nanosecond each for a cheap f)."""
    chunk = min(samples, max(1, _MC_BLOCK // max(length, 1))) * max(length, 1)
    return 8 * samples + 8 * 8 * chunk, samples * length * length


def _draw_compact(df, samples, rng) -> np.ndarray:
    """Uniform draws over the product space (no domain restriction) without the positions
    x symbols table: positions that allow the same symbols share one array (the edge
    positions of a graph task: n positions of M = O(n^2) edge tokens each)."""
    x = np.empty((samples, len(df.choices)), dtype=np.int64)
    shared: dict[int, np.ndarray] = {}  # by identity: hashing a long tuple costs more
    for i, c in enumerate(df.choices):
        arr = shared.get(id(c))
        if arr is None:
            arr = shared[id(c)] = np.asarray(c, dtype=np.int64)
        x[:, i] = arr[rng.integers(0, len(arr), samples)]
    return x


def _monte_carlo(df, distribution, samples, rng, confidence, variant,
                 progress: Callable[[int], None] | None = None,
                 oracle: bool = False) -> SensitivityResult:
    if oracle and df.valid is None:
        return _monte_carlo_oracle(df, distribution, samples, rng, confidence, variant,
                                   progress)
    radices, table = _tables(df.choices)
    length = len(radices)
    need, _ = monte_carlo_cost(length, samples)
    check_memory(need, f"--samples {samples:,} at length {length:,}",
                 "lower --samples or n")
    s = np.zeros(samples, dtype=np.float64)
    infl = np.zeros(length, dtype=np.float64)
    per_chunk = min(samples, max(1, _MC_BLOCK // max(length, 1)))
    for start in range(0, samples, per_chunk):
        m = min(per_chunk, samples - start)
        if distribution == "uniform":
            x = _draw_uniform(df, m, rng, radices, table)
        else:
            x = np.asarray(df.sample(rng, m), dtype=np.int64)
        if x.ndim != 2 or x.shape[1] != length:
            raise TheoryError(f"{df.task.name}: sampled inputs have shape {x.shape}, expected "
                              f"(count, {length})")
        s[start:start + m] = _mc_chunk(df, x, radices, table, variant, infl)
        if progress is not None:
            progress(start + m)
    value = float(s.mean())
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * float(s.std(ddof=1)) / math.sqrt(samples)
    influences = [float(v / samples) for v in infl]
    return SensitivityResult(n=length, value=value, ci_low=value - half, ci_high=value + half,
                             exact=False, method="monte_carlo", distribution=distribution,
                             histogram=_histogram(s), variant=variant, samples=samples,
                             free_positions=int((radices > 1).sum()), influences=influences,
                             confidence=confidence)


def _monte_carlo_oracle(df, distribution, samples, rng, confidence, variant,
                        progress) -> SensitivityResult:
    """Monte Carlo with each sample's sensitive positions from ``df.sensitive_positions``
    (the deterministic variant; drawn without the full choice table)."""
    length = df.length
    s = np.zeros(samples, dtype=np.float64)
    infl = np.zeros(length, dtype=np.float64)
    per_chunk = min(samples, max(1, _MC_BLOCK // max(length, 1)))
    xs = []
    for start in range(0, samples, per_chunk):
        m = min(per_chunk, samples - start)
        x = _draw_compact(df, m, rng) if distribution == "uniform" else \
            np.asarray(df.sample(rng, m), dtype=np.int64)
        xs.append(x)
        hit = np.asarray(df.sensitive_positions(x), dtype=bool)
        infl += hit.sum(axis=0)
        s[start:start + m] = hit.sum(axis=1)
        if progress is not None:
            progress(start + m)
    value = float(s.mean())
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * float(s.std(ddof=1)) / math.sqrt(samples)
    method = "monte_carlo (the task's sensitivity oracle)"
    cv = _control_variate(df, distribution, xs, s, rng)
    if cv is not None:
        value, half, method = cv[0], z * cv[1], method[:-1] + f"; {cv[2]})"
    return SensitivityResult(n=length, value=value, ci_low=value - half, ci_high=value + half,
                             exact=False, method=method,
                             distribution=distribution, histogram=_histogram(s),
                             variant=variant, samples=samples,
                             free_positions=int(sum(len(c) > 1 for c in df.choices)),
                             influences=[float(v / samples) for v in infl],
                             confidence=confidence)


#: Label-only draws per sensitivity sample for the control variate of the oracle path.
CV_FACTOR = 20


def _control_variate(df, distribution, xs, s, rng):
    """(estimate, standard error, note) of E[s] with the label as control variate, or None.

    Each sample's sensitivity s costs a pass of the task's oracle, its label f one
    evaluation; where s follows the label (every position of a negative reachability
    instance is sensitive) most of the variance of s is the variance of f. The estimate
    mean(s) - beta (mean(f) - mu), with beta = cov(s, f) / var(f) from the same samples
    and mu the mean label over CV_FACTOR times as many fresh draws of the same
    distribution, has standard error sqrt(var(s - beta f) / N + beta^2 mu (1 - mu) / N')
    (a control variate; the second term is the error of mu)."""
    x = np.concatenate(xs)
    f = np.asarray(df.evaluate(x), dtype=np.float64).reshape(len(x))
    if not np.isin(f, (0, 1)).all() or f.var() == 0 or len(x) < 30:
        return None
    big = CV_FACTOR * len(x)
    fx = []
    for start in range(0, big, len(x)):
        m = min(len(x), big - start)
        y = _draw_compact(df, m, rng) if distribution == "uniform" else \
            np.asarray(df.sample(rng, m), dtype=np.int64)
        fx.append(np.asarray(df.evaluate(y), dtype=np.float64).reshape(m))
    mu = float(np.concatenate(fx).mean())
    beta = float(np.cov(s, f)[0, 1] / f.var(ddof=1))
    est = float(s.mean() - beta * (f.mean() - mu))
    se = math.sqrt(float((s - beta * f).var(ddof=1)) / len(x) + beta ** 2 * mu * (1 - mu) / big)
    return est, se, f"the label as control variate, its mean over {big:,} draws"


def _mc_chunk(df, x, radices, table, variant, infl) -> np.ndarray:
    """s(f, x) of each row of ``x``; adds each position's contributions to ``infl``."""
    samples, length = x.shape
    lookup = np.full((length, int(max(table.max(), x.max())) + 1), -1, dtype=np.int64)
    for i, c in enumerate(df.choices):
        lookup[i, list(c)] = np.arange(len(c))
    digits = lookup[np.arange(length)[None, :], x]
    if (digits < 0).any():
        raise TheoryError(f"{df.task.name}: a sampled input has a token outside the "
                          f"declared choices; the decision view is inconsistent")
    fx = np.asarray(df.evaluate(x)).reshape(samples)
    s = np.zeros(samples, dtype=np.float64)
    for i, k in enumerate(radices.tolist()):
        if k < 2:
            continue
        hits = np.zeros(samples)
        total = np.zeros(samples)
        per_block = max(1, _MC_BLOCK // max(1, samples * length))
        reps = list(range(1, k))
        for b in range(0, len(reps), per_block):
            rs = np.array(reps[b:b + per_block], dtype=np.int64)
            stack = np.repeat(x[None], len(rs), axis=0)  # (r, m, L)
            stack[:, :, i] = table[i, (digits[None, :, i] + rs[:, None]) % k]
            flat = stack.reshape(-1, length)
            fy = np.asarray(df.evaluate(flat)).reshape(len(rs), samples)
            changed = fy != fx[None, :]
            if df.valid is not None:
                okn = np.asarray(df.valid(flat), dtype=bool).reshape(len(rs), samples)
                changed &= okn
                total += okn.sum(axis=0)
            hits += changed.sum(axis=0)
        contrib = _contribution(hits, total if df.valid is not None else None, k, variant)
        s += contrib
        infl[i] += float(contrib.sum())
    return s


def sensitive_positions(df: DecisionFunction, x: np.ndarray) -> np.ndarray:
    """(rows, length) bool: at which positions of each row of ``x`` some other symbol of
    that position's choices changes ``df``'s output (the deterministic definition, tried
    replacement by replacement; a neighbour outside ``valid`` does not count). The
    reference a task's own ``sensitive_positions`` is checked against."""
    x = np.asarray(x, dtype=np.int64)
    fx = np.asarray(df.evaluate(x)).reshape(len(x))
    out = np.zeros(x.shape, dtype=bool)
    for i, choice in enumerate(df.choices):
        for t in choice if len(choice) > 1 else ():
            rows = np.flatnonzero(x[:, i] != t)
            if not len(rows):
                continue
            y = x[rows].copy()
            y[:, i] = t
            changed = np.asarray(df.evaluate(y)).reshape(len(rows)) != fx[rows]
            if df.valid is not None:
                changed &= np.asarray(df.valid(y), dtype=bool)
            out[rows[changed], i] = True
    return out


__all__ = ["SensitivityResult", "sensitive_positions", "average_sensitivity", "check_options", "model_sensitivity", "monte_carlo_cost", "sensitivity_by_n",
           "fwht", "popcount", "total_influence_fourier", "METHODS", "DISTRIBUTIONS",
           "VARIANTS"]
