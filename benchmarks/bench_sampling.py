"""Benchmark: sampling speed of every task family (issue 2 performance target).

Target: ``sample(rng, 100_000)`` at n = 256 well under 2 s per family (graph tasks: n counts
edge tokens). For each registered family this script builds the task at n = 256 with
default parameters (or the nearest valid n: 257 / 255 for families that need odd n), and
times ``sample`` on the default distribution (best of ``--repeat`` runs, wall clock and
process CPU time; the CPU time is the steadier figure on a shared machine). It also
reports the peak of numpy/Python allocations during one more call (tracemalloc, which
numpy reports to; ``--no-memory`` skips it) and the size of the returned batch. The first
touch of fresh memory can be slow on a virtual machine; best-of-3 mostly excludes it.

Run: python benchmarks/bench_sampling.py [--count 100000] [--n 256] [--repeat 3]
     [--no-memory] [--family NAME ...] [--all-distributions]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np

from theorybench import tasks
from theorybench.errors import TaskParameterError


def build(name: str, n: int):
    """The family at n, or at the nearest valid size (n+1, n-1, n+2, n-2, ...)."""
    last = None
    for delta in (0, 1, -1, 2, -2, 3, -3):
        try:
            return tasks.get(name, n=n + delta)
        except TaskParameterError as exc:
            last = exc
    raise last


def time_sample(task, count: int, distribution: str, repeat: int):
    wall, cpu = float("inf"), float("inf")
    batch = None
    for r in range(repeat):
        rng = np.random.default_rng(r)
        t0, c0 = time.perf_counter(), time.process_time()
        batch = task.sample(rng, count, distribution)
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
        del batch
    return wall, cpu


def peak_memory(task, count: int, distribution: str):
    tracemalloc.start()
    tracemalloc.reset_peak()
    batch = task.sample(np.random.default_rng(99), count, distribution)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    size = batch.tokens.nbytes + batch.labels.nbytes + batch.lengths.nbytes
    size += 0 if batch.mask is None else batch.mask.nbytes
    return peak, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-memory", dest="memory", action="store_false",
                    help="skip the peak-allocation measurement")
    ap.add_argument("--family", action="append", help="only these families (repeatable)")
    ap.add_argument("--all-distributions", action="store_true",
                    help="time every distribution, not only the default one")
    args = ap.parse_args()

    names = args.family or list(tasks.families())
    header = f"{'family':<18} {'n':>5} {'distribution':<15} {'wall s':>7} {'cpu s':>7}"
    if args.memory:
        header += f" {'peak MB':>8} {'batch MB':>8}"
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"sample(rng, {args.count:,}) per family, best of {args.repeat}; "
          f"{os.cpu_count()} CPUs, load average {load}")
    print(header)
    print("-" * len(header))
    worst = worst_cpu = 0.0
    for name in names:
        task = build(name, args.n)
        dists = task.distributions if args.all_distributions else task.distributions[:1]
        for dist in dists:
            task.sample(np.random.default_rng(0), 10, dist)          # warm caches
            wall, cpu = time_sample(task, args.count, dist, args.repeat)
            if dist == task.distributions[0]:
                worst = max(worst, wall)
                worst_cpu = max(worst_cpu, cpu)
            line = f"{name:<18} {task.n:>5} {dist:<15} {wall:>7.3f} {cpu:>7.3f}"
            if args.memory:
                peak, size = peak_memory(task, args.count, dist)
                line += f" {peak / 2**20:>8.0f} {size / 2**20:>8.0f}"
            print(line, flush=True)
    print("-" * len(header))
    print(f"slowest default distribution: {worst:.3f} s wall, {worst_cpu:.3f} s cpu "
          f"(target: well under 2 s)")


if __name__ == "__main__":
    main()
