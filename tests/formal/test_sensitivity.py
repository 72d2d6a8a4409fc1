"""Average sensitivity against closed forms, brute-force loops and the Hadamard matrix."""

import itertools
from math import comb

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, TaskParameterError, TheoryError
from theorybench.tasks.base import DecisionFunction
from theorybench.formal.sensitivity import (average_sensitivity, fwht, model_sensitivity,
                                              popcount, sensitivity_by_n,
                                              total_influence_fourier)


class _Tiny:
    """Just enough of a Task for a DecisionFunction given by a table."""

    name = "table"
    values: dict = {}
    distributions = ("uniform",)

    def __init__(self, n):
        self.n = n


def table_df(choices, outputs, valid=None):
    """A DecisionFunction whose value on a point is ``outputs[point]`` (a dict)."""
    choices = tuple(tuple(c) for c in choices)

    def evaluate(x):
        return np.array([outputs[tuple(int(v) for v in row)] for row in x], dtype=np.int64)

    vfn = None
    if valid is not None:
        def vfn(x):
            return np.array([tuple(int(v) for v in row) in valid for row in x], dtype=bool)

    def sample(rng, count):
        pts = sorted(valid) if valid is not None else list(itertools.product(*choices))
        return np.array([pts[i] for i in rng.integers(0, len(pts), size=count)],
                        dtype=np.int64)

    return DecisionFunction(task=_Tiny(len(choices)), name="t", choices=choices,
                            evaluate=evaluate, sample=sample, valid=vfn)


def brute_force(choices, outputs, variant="deterministic", valid=None):
    """Plain loops over every point, position and replacement symbol."""
    points = [p for p in itertools.product(*choices) if valid is None or p in valid]
    total = 0.0
    hist = {}
    for p in points:
        s = 0.0
        for i, c in enumerate(choices):
            changes = count = 0
            for sym in c:
                if sym == p[i]:
                    continue
                q = p[:i] + (sym,) + p[i + 1:]
                if valid is not None and q not in valid:
                    continue
                count += 1
                changes += outputs[q] != outputs[p]
            if variant == "deterministic":
                s += 1.0 if changes else 0.0
            else:
                denom = count if valid is not None else len(c) - 1
                s += changes / denom if denom else 0.0
        total += s
        hist[round(s, 6)] = hist.get(round(s, 6), 0) + 1
    return total / len(points), {k: v / len(points) for k, v in hist.items()}


def random_table(rng, choices, n_out=2):
    return {p: int(rng.integers(0, n_out)) for p in itertools.product(*choices)}


@pytest.mark.parametrize("n", [3, 5, 8, 11])
@pytest.mark.parametrize("method", ["exact", "fwht"])
def test_parity_closed_form(n, method):
    r = average_sensitivity(tasks.get("parity", n=n).decision_view()[0], method=method)
    assert r.value == pytest.approx(n) and r.exact and r.histogram == {float(n): 1.0}


@pytest.mark.parametrize("n", [1, 3, 7, 13])
@pytest.mark.parametrize("method", ["exact", "fwht"])
def test_majority_closed_form(n, method):
    r = average_sensitivity(tasks.get("majority", n=n).decision_view()[0], method=method)
    assert r.value == pytest.approx(n * comb(n - 1, (n - 1) // 2) / 2 ** (n - 1))


@pytest.mark.parametrize("family", ["all", "any"])
@pytest.mark.parametrize("n", [2, 6, 10])
def test_all_any_closed_form(family, n):
    df = tasks.get(family, n=n).decision_view()[0]
    for method in ("exact", "fwht"):
        assert average_sensitivity(df, method=method).value == pytest.approx(n / 2 ** (n - 1))


@pytest.mark.parametrize("seed", range(6))
def test_random_boolean_vs_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    choices = [(0, 1)] * n
    outputs = random_table(rng, choices)
    df = table_df(choices, outputs)
    want, hist = brute_force(choices, outputs)
    for method in ("exact", "fwht"):
        r = average_sensitivity(df, method=method)
        assert r.value == pytest.approx(want)
    assert r.histogram == pytest.approx(hist)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("variant", ["deterministic", "probabilistic"])
def test_larger_alphabet_vs_brute_force(seed, variant):
    rng = np.random.default_rng(100 + seed)
    choices = [(0, 1, 2), (3, 4), (5,), (0, 1, 2, 3), (7, 8, 9)][: 3 + seed % 3]
    outputs = random_table(rng, choices, n_out=3)
    want, hist = brute_force(choices, outputs, variant)
    r = average_sensitivity(table_df(choices, outputs), method="auto", variant=variant)
    assert r.method == "exact" and r.value == pytest.approx(want)
    assert r.histogram == pytest.approx(hist)
    assert r.influences[2] == 0.0  # the singleton position is never sensitive


@pytest.mark.parametrize("variant", ["deterministic", "probabilistic"])
def test_domain_restriction_vs_brute_force(variant):
    rng = np.random.default_rng(7)
    choices = [(0, 1, 2), (0, 1), (0, 1, 2)]
    outputs = random_table(rng, choices)
    pts = list(itertools.product(*choices))
    valid = {p for p in pts if rng.random() < 0.6}
    want, _ = brute_force(choices, outputs, variant, valid)
    r = average_sensitivity(table_df(choices, outputs, valid), variant=variant)
    assert r.value == pytest.approx(want)
    # Monte Carlo by rejection agrees within its interval
    mc = average_sensitivity(table_df(choices, outputs, valid), variant=variant,
                             method="monte_carlo", samples=4000,
                             rng=np.random.default_rng(1))
    assert mc.ci_low <= want <= mc.ci_high


def test_binary_deterministic_equals_probabilistic():
    df = tasks.get("majority", n=7).decision_view()[0]
    a = average_sensitivity(df, method="exact", variant="deterministic").value
    b = average_sensitivity(df, method="exact", variant="probabilistic").value
    assert a == pytest.approx(b)


@pytest.mark.parametrize("n", [1, 2, 4, 6, 9])
def test_fwht_matches_hadamard_matrix(n):
    rng = np.random.default_rng(n)
    v = rng.normal(size=2 ** n)
    h = np.array([[1.0]])
    for _ in range(n):
        h = np.block([[h, h], [h, -h]])
    assert np.allclose(fwht(v), h @ v)
    table = rng.integers(0, 2, size=2 ** n)
    coef = h @ (1 - 2 * table) / 2 ** n
    pc = np.array([bin(i).count("1") for i in range(2 ** n)])
    assert total_influence_fourier(table) == pytest.approx(float(pc @ coef ** 2))


def test_popcount():
    idx = np.array([0, 1, 2, 3, 255, 256, 1023, 2 ** 40 + 5])
    assert popcount(idx).tolist() == [bin(int(i)).count("1") for i in idx]


@pytest.mark.parametrize("family,n", [("majority", 15), ("all", 6), ("khop", 9)])
def test_monte_carlo_ci_covers_exact(family, n):
    df = tasks.get(family, n=n).decision_view()[0]
    exact = average_sensitivity(df, method="exact").value
    mc = average_sensitivity(df, method="monte_carlo", samples=20000,
                             rng=np.random.default_rng(12345))
    assert not mc.exact and mc.ci_low <= exact <= mc.ci_high
    assert mc.ci_high - mc.ci_low < 0.2 * max(exact, 1)
    assert sum(mc.histogram.values()) == pytest.approx(1.0)


def test_histogram_is_a_distribution_with_the_right_mean():
    df = tasks.get("majority", n=9).decision_view()[0]
    r = average_sensitivity(df)
    assert sum(r.histogram.values()) == pytest.approx(1.0)
    assert sum(k * p for k, p in r.histogram.items()) == pytest.approx(r.value)
    # majority at odd n: an input has sensitivity (n+1)/2 exactly when its weight is
    # (n-1)/2 or (n+1)/2, else 0
    assert set(r.histogram) == {0.0, 5.0}
    assert r.histogram[5.0] == pytest.approx(2 * comb(9, 4) / 2 ** 9)


def test_task_distribution_and_reproducibility():
    df = tasks.get("parity", n=10).decision_view()[0]
    r = average_sensitivity(df, distribution="task", samples=500)
    assert r.method == "monte_carlo" and r.value == 10 and r.distribution == "task"
    df = tasks.get("all", n=10).decision_view()[0]
    a = average_sensitivity(df, distribution="task", samples=800,
                            rng=np.random.default_rng(3)).to_dict()
    b = average_sensitivity(df, distribution="task", samples=800,
                            rng=np.random.default_rng(3)).to_dict()
    assert a == b
    # half of the balanced samples are 1^n (sensitivity n), the rest mostly 0 or 1
    assert 4.0 < a["average_sensitivity"] < 6.0


def test_model_sensitivity_matches_and_differs():
    task = tasks.get("majority", n=9)
    df = task.decision_view()[0]
    assert model_sensitivity(task.label, df).value == pytest.approx(
        average_sensitivity(df).value)
    assert model_sensitivity(lambda x: np.zeros(len(x), int), df).value == 0.0
    assert model_sensitivity(lambda x: x[:, 0], df, method="monte_carlo", samples=300).value == 1


def test_sensitivity_by_n():
    res = sensitivity_by_n("sparse_parity", [4, 6, 8])
    assert [r.n for r in res] == [4, 6, 8]
    assert all(r.value == pytest.approx(3.0) for r in res)
    with pytest.raises(TaskParameterError):
        sensitivity_by_n("parity", [])


def test_bad_arguments():
    df = tasks.get("parity", n=4).decision_view()[0]
    with pytest.raises(TaskParameterError, match="method"):
        average_sensitivity(df, method="magic")
    with pytest.raises(TaskParameterError, match="distribution"):
        average_sensitivity(df, distribution="weird")
    with pytest.raises(TaskParameterError, match="samples"):
        average_sensitivity(df, method="monte_carlo", samples=1)
    with pytest.raises(TheoryError, match="monte_carlo"):
        average_sensitivity(df, distribution="task", method="exact")
    with pytest.raises(EnumerationTooLarge, match="monte_carlo"):
        average_sensitivity(df, method="exact", exact_limit=8)
    three = table_df([(0, 1, 2)], {(0,): 0, (1,): 1, (2,): 0})
    with pytest.raises(TheoryError, match="FWHT"):
        average_sensitivity(three, method="fwht")


def test_fwht_refuses_non_boolean_outputs_but_exact_works():
    choices = [(0, 1)] * 3
    outputs = {p: sum(p) for p in itertools.product(*choices)}  # values 0..3
    df = table_df(choices, outputs)
    with pytest.raises(TheoryError, match="two-valued"):
        average_sensitivity(df, method="fwht")
    assert average_sensitivity(df).value == pytest.approx(brute_force(choices, outputs)[0])


# ---- large spaces: no int64 index, memory checked first (issue: overflow unnoticed) ------

@pytest.mark.parametrize("n", [63, 64, 65, 100, 1000])
def test_monte_carlo_past_int64_matches_the_closed_form(n):
    # parity: every position flips f, so as(parity_n) = n exactly (Boolean Fourier: the
    # one coefficient at the full set has degree n). Before: at n = 64 the unused strides
    # of the mixed-radix index overflowed int64 with a RuntimeWarning.
    import warnings

    from theorybench import tasks
    from theorybench.formal.sensitivity import average_sensitivity
    df = tasks.get("parity", n=n).decision_view()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            r = average_sensitivity(df, samples=300, rng=np.random.default_rng(1))
    assert not r.exact and r.value == n and r.ci_low == r.ci_high == n
    assert r.influences == [1.0] * n


def test_strides_exact_or_refused():
    from theorybench.errors import ResourceLimitError
    from theorybench.formal.sensitivity import _strides
    radices = np.array([3, 5, 7, 2], dtype=np.int64)
    assert _strides(radices).tolist() == [70, 14, 2, 1]
    assert _strides(np.full(62, 2, dtype=np.int64))[0] == 1 << 61  # 2^62 points: exact
    for length in (63, 64, 100):  # 2^63 points and more: no int64 index reaches them
        with pytest.raises(ResourceLimitError, match="cannot be indexed"):
            _strides(np.full(length, 2, dtype=np.int64))


def test_monte_carlo_memory_checked_before_allocation(monkeypatch):
    from theorybench import tasks
    from theorybench.errors import ResourceLimitError
    from theorybench.formal import resources
    from theorybench.formal.sensitivity import average_sensitivity, monte_carlo_cost
    df = tasks.get("parity", n=64).decision_view()[0]
    with pytest.raises(ResourceLimitError, match=r"--samples 1,000,000,000,000 .* 7.28 TiB"):
        average_sensitivity(df, samples=10 ** 12)
    # chunked: memory is one float per sample plus one chunk, whatever the sample count
    small, _ = monte_carlo_cost(64, 10 ** 5)
    big, work = monte_carlo_cost(64, 10 ** 7)
    assert big - small == 8 * (10 ** 7 - 10 ** 5) and work == 10 ** 7 * 64 * 64
    monkeypatch.setattr(resources, "MEMORY_BUDGET", small - 1)
    with pytest.raises(ResourceLimitError, match="lower --samples"):
        average_sensitivity(df, samples=10 ** 5)


def test_chunked_monte_carlo_equals_one_batch(monkeypatch):
    from theorybench import tasks
    from theorybench.formal import sensitivity as S
    df = tasks.get("majority", n=41).decision_view()[0]
    one = S.average_sensitivity(df, samples=3000, rng=np.random.default_rng(5))
    monkeypatch.setattr(S, "_MC_BLOCK", 41 * 256)  # 12 chunks of 256 draws
    seen = []
    many = S.average_sensitivity(df, samples=3000, rng=np.random.default_rng(5),
                                 progress=seen.append)
    assert many.value == one.value and many.histogram == one.histogram
    assert seen[-1] == 3000 and len(seen) == 12


def test_progress_only_on_a_terminal():
    import io

    from theorybench.formal.resources import Progress, fmt_count

    class Tty(io.StringIO):
        def isatty(self):
            return True

    pipe, tty = io.StringIO(), Tty()
    for stream in (pipe, tty):
        with Progress(10, "work", stream=stream, min_interval=0) as p:
            p.update(3, "n=5")
    assert pipe.getvalue() == "" and "work [" in tty.getvalue() and "3/10" in tty.getvalue()
    assert fmt_count(1 << 65536) == "2^65536" and fmt_count(3 ** 5000).startswith("about 10^2385")
    assert fmt_count(123456) == "123,456"
