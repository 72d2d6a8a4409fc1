"""Benchmarks (issue 5): b=0 bandwidth at n=24, SAT frontier points at n=8, MPC at N=1e5,
the bapo and mpc theories over all families.

Run: python benchmarks/bench_bapo_mpc.py   (prints one line per figure, and the load)
Targets: b=0 bandwidth n=24 < 10 s; a SAT frontier point at n=8 < 60 s; MPC N=1e5 in
seconds. `time theorybench predict > /dev/null` is the all-theories figure (< 2 min).
"""

import os
import time

import numpy as np

from theorybench import tasks
from theorybench.formal.bapo.frontier import frontier, solve_point
from theorybench.formal.communication import one_way_cc
from theorybench.formal.mpc.algorithms import run_algorithm
from theorybench.formal.mpc.scan import add, tree_fold, tree_scan
from theorybench.formal.mpc.simulator import FILL, MPC, Step


def timed(label, fn):
    t0 = time.perf_counter()
    out = fn()
    print(f"{label}: {time.perf_counter() - t0:.2f} s  -> {out}", flush=True)
    return out


def raw_mpc(N: int, rng: np.random.Generator) -> dict:
    """Parity by tree fold and prefix sums by tree scan on N raw words, checked."""
    bits = rng.integers(0, 2, size=(1, N))
    mpc = MPC(N, delta=0.5, c=4.0)

    def parity(net, task):
        net.round(lambda ids, mem, inbox: Step(np.where(mem != FILL, mem, 0).sum(
            axis=-1, keepdims=True) % 2))
        tree_fold(net, 0, 1, lambda a, b: (a + b) % 2, [0])
    par = mpc.run(parity, None, bits)
    assert int(par.output[0]) == int(bits.sum() % 2)

    def scan(net, task):
        net.round(lambda ids, mem, inbox: Step(np.stack(
            [np.where(mem != FILL, mem, 0).sum(axis=-1), np.zeros(ids.shape, dtype=np.int64)],
            axis=-1)))
        tree_scan(net, 0, 1, add, [0], 1)
    r = mpc.run(scan, None, bits)
    blocks = np.add.reduceat(bits[0], np.arange(0, N, r.block))
    assert int(r.output[0]) == int(bits.sum())
    assert np.array_equal(r.memory[0, :, 1], np.cumsum(blocks) - blocks)
    return {"N": N, "s": r.s, "machines": r.machines, "rounds": int(par.rounds[0] + r.rounds[0])}


def main():
    print(f"load average: {os.getloadavg()}")
    for name, n in (("parity", 24), ("majority", 23), ("all", 24)):
        df = tasks.get(name, n=n).decision_view()[0]
        timed(f"b=0 bandwidth {name} n={n}", lambda: one_way_cc(df)[0])
    for name, n, a, b in (("index", 8, 0, 1), ("parity", 8, 1, 0), ("sparse_parity", 8, 0, 3),
                          ("majority", 9, 2, 1)):
        df = tasks.get(name, n=n).decision_view()[0]
        timed(f"SAT point ({a},{b}) {name} n={n} (length {df.length})",
              lambda: solve_point(df, a, b, timeout_s=60).status)
    df = tasks.get("index", n=8).decision_view()[0]
    timed("SAT frontier index n=8 max_a=3 max_b=1",
          lambda: frontier(df, 3, 1, timeout_s=60).pareto())
    rng = np.random.default_rng(0)
    timed("MPC raw N=100000 (parity fold + prefix-sum scan)", lambda: raw_mpc(100_000, rng))
    for name, n in (("edge_exists", 100_000), ("parity", 65_536), ("majority", 65_535),
                    ("binary_add", 16_384), ("index", 16_384), ("khop", 16_384),
                    ("dyck", 4_096), ("reach_directed", 1_022)):
        t = tasks.get(name, n=n)
        x = t.decision_view()[0].sample(rng, 1)
        timed(f"MPC {name} N={x.shape[1]}", lambda: int(run_algorithm(t, x, 0.5).rounds[0]))
    from theorybench.theories.base import Context
    from theorybench.theories.registry import theory
    for th in ("bapo", "mpc"):
        T = theory(th)
        timed(f"theory {th} over all families",
              lambda: {f: T.predict(f, Context()).verdict.value for f in tasks.families()})


if __name__ == "__main__":
    main()
