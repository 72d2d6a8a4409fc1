"""How a sweep should use the cores: the same runs under each way of spreading them.

    python benchmarks/bench_sweep.py                  # smoke in-distribution runs, 3 layouts
    python benchmarks/bench_sweep.py --runs 8 --line length-generalization
    python benchmarks/bench_sweep.py --profile-lines  # also both whole lines: old default vs auto
    python benchmarks/bench_sweep.py --profile quick --lines-only  # both quick lines, auto only

Layouts: ``inprocess`` with one torch thread (one core busy: the old default), ``inprocess``
with every core as torch threads (one run at a time, intra-op parallel), and ``pool`` with
one one-thread worker per core (what the default executor ``auto`` picks on a CPU). Each
layout runs the same first ``--runs`` specs of the profile's grid in a fresh store; the
printed figure is the wall time of the sweep and its speed-up over the first layout. Run it
on an otherwise idle machine: other load slows the parallel layouts most.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from theorybench.experiments.executors import cpu_count
from theorybench.experiments.profiles import expand
from theorybench.experiments.store import ResultsStore
from theorybench.experiments.sweep import normalize_line, run_sweep


def time_layout(specs, line, executor, workers, threads) -> float:
    with tempfile.TemporaryDirectory() as d:
        start = time.perf_counter()
        summary = run_sweep(line, specs=specs, db=os.path.join(d, "s.sqlite"),
                            executor=executor, workers=workers, threads=threads,
                            progress=False)
        wall = time.perf_counter() - start
    if summary["failed"]:
        print(f"  ({summary['failed']} run(s) failed under {executor})", file=sys.stderr)
    return wall


def time_profile(profile: str, executor: str, threads) -> tuple[float, dict]:
    """Both lines of ``profile`` in a fresh store, as `verify` runs them: the wall time and,
    per line, the share of the runs' time spent outside forward/backward/optimizer steps
    (summed over runs: data, evaluation, length bins, set-up)."""
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "v.sqlite")
        start = time.perf_counter()
        for line in ("in_distribution", "length_generalization"):
            run_sweep(line, profile=profile, db=db, executor=executor, threads=threads,
                      progress=False)
        wall = time.perf_counter() - start
        outside = {}
        with ResultsStore(db) as store:
            for rec in store.records(status="done"):
                split = rec.metrics.get("time_split") or {}
                acc = outside.setdefault(rec.spec["line"], [0.0, 0.0])
                acc[0] += split.get("total", 0.0) - split.get("step", 0.0)
                acc[1] += split.get("total", 0.0)
        return wall, {line: a / t for line, (a, t) in outside.items() if t}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--line", default="in-distribution")
    ap.add_argument("--profile", default="smoke")
    ap.add_argument("--runs", type=int, default=6, help="first RUNS specs of the grid (default 6)")
    ap.add_argument("--profile-lines", action="store_true",
                    help="also time both lines of the profile (what `verify` trains) under "
                         "the old default (inprocess, the profile's threads) and under auto")
    ap.add_argument("--lines-only", action="store_true",
                    help="only time both lines of the profile under the default executor "
                         "(auto); for the quick profile this is its <= 60-minute budget")
    args = ap.parse_args(argv)
    if args.lines_only:
        wall, outside = time_profile(args.profile, "auto", None)
        shares = ", ".join(f"{line} {100 * f:.0f}%" for line, f in outside.items())
        print(f"both {args.profile} lines, executor auto on {cpu_count()} cores: {wall:.0f} s "
              f"wall ({wall / 60:.1f} min); time outside forward/backward: {shares}")
        return 0
    line = normalize_line(args.line)
    specs = expand(line, args.profile)[:args.runs]
    cores = cpu_count()
    print(f"{len(specs)} {line} runs of the {args.profile} profile on {cores} cores")
    layouts = [("inprocess", 1, 1), ("inprocess", 1, cores), ("pool", cores, 1)]
    base = None
    for executor, workers, threads in layouts:
        wall = time_layout(specs, line, executor, workers, threads)
        base = base or wall
        print(f"  {executor:<9} workers {workers} x threads {threads}: {wall:7.1f} s "
              f"({base / wall:.2f}x)")
    if args.profile_lines:
        for executor in ("inprocess", "auto"):
            wall, outside = time_profile(args.profile, executor, None)
            shares = ", ".join(f"{line} {100 * f:.0f}%" for line, f in outside.items())
            print(f"  both {args.profile} lines, executor {executor}: {wall:.0f} s wall; "
                  f"time outside forward/backward: {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
