"""Benchmarks: b=0 bandwidth at n=24, a SAT frontier point at n=8, MPC at N=1e5, theories.

Run: python benchmarks/bench_bapo_mpc.py
"""

import time

import numpy as np

from theorybench import tasks
from theorybench.theories.bapo.frontier import solve_point
from theorybench.theories.communication import one_way_cc
from theorybench.theories.mpc.algorithms import run_algorithm


def timed(label, fn):
    t0 = time.perf_counter()
    out = fn()
    print(f"{label}: {time.perf_counter() - t0:.2f} s  -> {out}")
    return out


def main():
    for name, n in (("parity", 24), ("majority", 23), ("parity", 20)):
        df = tasks.get(name, n=n).decision_view()[0]
        timed(f"b=0 bandwidth {name} n={n}", lambda: one_way_cc(df)[0])
    for name, a, b in (("majority", 2, 1), ("parity", 1, 0), ("sparse_parity", 0, 3)):
        df = tasks.get(name, n=9 if name == "majority" else 8).decision_view()[0]
        timed(f"SAT point ({a},{b}) {name} n={df.length}",
              lambda: solve_point(df, a, b, timeout_s=60).status)
    rng = np.random.default_rng(0)
    for name, n in (("edge_exists", 100_000), ("binary_add", 16_384), ("parity", 65_536),
                    ("index", 16_384), ("khop", 16_384)):
        t = tasks.get(name, n=n)
        x = t.decision_view()[0].sample(rng, 1)[0]
        timed(f"MPC {name} N={len(x)}", lambda: run_algorithm(t, x, 0.5)[1].summary())
    from theorybench.theories.base import Context
    from theorybench.theories.registry import theory
    for th in ("bapo", "mpc"):
        T = theory(th)
        timed(f"theory {th} over all families",
              lambda: {f: T.predict(f, Context()).verdict.value for f in tasks.families()})


if __name__ == "__main__":
    main()
