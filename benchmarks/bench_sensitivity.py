"""Benchmark: exact average sensitivity (issue 3 performance targets).

1. Exact average sensitivity of majority at n = 20 (2^20 inputs), target <= 1 s. Majority
   is defined for odd n in the task suite, so n = 20 uses the threshold function
   [sum x > n/2] as a small DecisionFunction; the task's own majority at n = 19 and 21 is
   timed too. Both methods (FWHT and enumeration by flips) are timed; each also computes
   the distribution of s(f, x).
2. Against straightforward enumeration of all n * 2^n flips in Python loops: measured at
   n = 12 and n = 16, and extrapolated to n = 20 from n = 16 (each flip re-sums n bits, so
   ~n^2 2^n steps). The extrapolation is an estimate, labelled as such.
3. Against the full 2^n x 2^n Fourier (Hadamard) matrix method at n = 12: build H, take
   f^ = H f / 2^n, sum |S| f^(S)^2.

Run: python benchmarks/bench_sensitivity.py
"""

from __future__ import annotations

import time
from math import comb

import numpy as np

from theorybench import tasks
from theorybench.tasks.base import DecisionFunction
from theorybench.formal.sensitivity import average_sensitivity, popcount


def best_of(fn, repeat=3):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def threshold_df(n: int) -> DecisionFunction:
    task = tasks.get("majority", n=n + 1 if n % 2 == 0 else n)  # only for the name
    return DecisionFunction(task=task, name="threshold", choices=((0, 1),) * n,
                            evaluate=lambda x: (2 * x.sum(axis=1) > n).astype(np.int64),
                            sample=lambda rng, c: rng.integers(0, 2, size=(c, n)))


def python_loops(n: int) -> float:
    """All n * 2^n flips, one Python step each (the straightforward method)."""
    total = 0
    for v in range(1 << n):
        bits = [(v >> (n - 1 - i)) & 1 for i in range(n)]
        fx = 2 * sum(bits) > n
        for i in range(n):
            bits[i] ^= 1
            total += (2 * sum(bits) > n) != fx
            bits[i] ^= 1
    return total / (1 << n)


def hadamard_matrix_method(df: DecisionFunction) -> float:
    n = df.length
    x = df.enumerate()
    f = 1.0 - 2.0 * df.evaluate(x)
    h = np.array([[1.0]])
    for _ in range(n):
        h = np.block([[h, h], [h, -h]])
    coef = h @ f / (1 << n)
    return float(popcount(np.arange(1 << n)) @ coef ** 2)


def main() -> None:
    print("1. exact average sensitivity, 2^n inputs (best of 3)")
    rows = [("threshold [sum > n/2]", 20, threshold_df(20)),
            ("majority task", 19, tasks.get("majority", n=19).decision_view()[0]),
            ("majority task", 21, tasks.get("majority", n=21).decision_view()[0])]
    t20 = None
    for label, n, df in rows:
        for method in ("auto", "fwht", "exact"):
            secs, res = best_of(lambda: average_sensitivity(df, method=method))
            extra = ""
            if label.startswith("majority"):
                want = n * comb(n - 1, (n - 1) // 2) / 2 ** (n - 1)
                ok = "ok" if abs(want - res.value) < 1e-9 else "MISMATCH"
                extra = f"  closed form {want:.6f} ({ok})"
            print(f"   {label:22s} n={n}  {method:5s}  as={res.value:.6f}  {secs:.3f} s{extra}")
            if n == 20 and method == "auto":
                t20 = secs
    print(f"   target: <= 1 s at n = 20 (method auto = FWHT value + flip histogram) -> "
          f"{'met' if t20 <= 1.0 else 'NOT met'} ({t20:.3f} s)")

    print("\n2. against Python loops over all n * 2^n flips")
    for n_small in (12, 16):
        secs_loop, v_loop = best_of(lambda: python_loops(n_small), repeat=1)
        for method in ("exact", "fwht"):
            secs_vec, res = best_of(lambda: average_sensitivity(threshold_df(n_small),
                                                                method=method))
            assert abs(v_loop - res.value) < 1e-9, (v_loop, res.value)
            print(f"   n={n_small}: Python loops {secs_loop:.3f} s, {method:5s} "
                  f"{secs_vec * 1e3:.2f} ms (measured speed-up {secs_loop / secs_vec:.0f}x; "
                  f"same value {v_loop:.6f})")
    scale = (20 * 2 ** 20) / (n_small * 2 ** n_small)
    est = secs_loop * scale * (20 / n_small)  # each step also sums n bits: ~n^2 2^n work
    print(f"   n=20: Python loops ESTIMATED {est:.0f} s (extrapolated from n={n_small} by "
          f"n^2 * 2^n, not run); auto method {t20:.3f} s -> estimated speed-up {est / t20:.0f}x")

    print("\n3. against the full 2^n x 2^n Fourier (Hadamard) matrix at n = 12")
    df12 = threshold_df(12)
    secs_h, v_h = best_of(lambda: hadamard_matrix_method(df12), repeat=2)
    secs_f, res = best_of(lambda: average_sensitivity(df12, method="fwht"))
    assert abs(v_h - res.value) < 1e-9, (v_h, res.value)
    print(f"   Hadamard matrix {secs_h:.3f} s, FWHT method {secs_f * 1e3:.2f} ms -> speed-up "
          f"{secs_h / secs_f:.0f}x (same value {v_h:.6f})")


if __name__ == "__main__":
    main()
