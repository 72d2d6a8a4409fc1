"""C-RASP benchmarks.

1. Interpreter speed: vectorized (numpy, whole batch) against the naive per-position
   reference, on 1,024 random inputs of length 256 (target: >= 100x), and in input
   positions per second (batch x length, the end marker not counted; target for the
   Dyck-1 program: >= 200 M/s). Each run is timed alone, ``--reps`` times; the best and
   the median are printed (the machine may be shared: the best is the interpreter's
   speed, the median shows the noise). The naive interpreter is run on a subset of the
   batch (it is quadratic in the length per count and pure Python) and its time is
   scaled to the full batch; both are checked to agree on that subset. The public
   C-RASP interpreter is not installed here, so no ratio to it is measured (the issue
   quotes about 1 M positions/s for it on these inputs).
2. Exact one-way communication complexity (max over all 19 splits of the number of
   distinct rows, :func:`theorybench.formal.communication.one_way_cc`) at n = 20,
   2^20 inputs, for several families (target: < 10 s each).
3. The crasp theory over all task families (cold caches).

    python benchmarks/bench_crasp.py [--batch 1024] [--length 256] [--naive-rows 8]
                                     [--reps 30] [--only-interpreter]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from theorybench.formal.crasp import Interpreter, naive_values, parse

PROGRAMS = {
    "majority": '// alphabet: 0 1\nones = # "1"\nzeros = # "0"\nout = ones > zeros\n',
    "dyck1": ('// alphabet: ( )\nC_open = # "("\nC_close = # ")"\nV = C_open < C_close\n'
              'CV = # V\nM = (CV == 0)\nB = (C_open == C_close)\nD = M && B\n'),
    "nested": ('// alphabet: a b c\n#import prev\nx = # ("a" && # "b" > # "c")\n'
               'y = #[prev] ("c" || x > 2)\n'
               'out = 2 * x - # "a" >= y + 1 || min(x, y) == 1\n'),
}


def bench(name: str, text: str, batch: int, length: int, naive_rows: int, rng,
          reps: int = 30) -> dict:
    prog = parse(text)
    alpha = prog.alphabet
    interp = Interpreter(prog)
    ids = rng.integers(0, len(alpha), size=(batch, length))
    run = interp.run(ids, alpha)  # warm up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        run = interp.run(ids, alpha)
        times.append(time.perf_counter() - t0)
    fast = min(times)
    median = float(np.median(times))
    t0 = time.perf_counter()
    slow_vals = [naive_values(prog, [alpha[t] for t in ids[r]]) for r in range(naive_rows)]
    slow = (time.perf_counter() - t0) / naive_rows * batch
    for r, vals in enumerate(slow_vals):
        for key, v in vals.items():
            assert [int(a) for a in run.values[key][r, : length + 1]] == [int(a) for a in v], key
    return {"program": name, "vectorized_s": fast, "median_s": median, "naive_s_est": slow,
            "speedup": slow / fast, "mpos_s": batch * length / fast / 1e6,
            "mpos_s_median": batch * length / median / 1e6}


CC_FAMILIES = (("parity", {}), ("any", {}), ("sparse_parity", {}), ("dyck_bounded", {}),
               ("dyck", {"k": 1}))


def bench_communication(n: int = 20) -> None:
    from theorybench import tasks
    from theorybench.formal.communication import one_way_cc
    print(f"exact one-way communication complexity at n = {n} (max over all splits):")
    def report(name: str, df, size: int) -> None:
        t0 = time.perf_counter()
        bits, rows = one_way_cc(df)
        dt = time.perf_counter() - t0
        k = max(rows, key=rows.get)
        print(f"  {name:14s} {size:>9,} inputs  {bits:2d} bits (max {rows[k]:,} rows "
              f"at split {k})  {dt:6.2f} s  {'OK' if dt < 10 else 'OVER'} (< 10 s)")

    for fam, params in CC_FAMILIES:
        df = tasks.get(fam, n=n, **params).decision_view()[0]
        report(fam, df, df.space_size())
    # worst case for the row count: a random Boolean function of n bits (a random table)
    from types import SimpleNamespace
    table = np.random.default_rng(1).integers(0, 2, size=1 << n)
    weights = 1 << np.arange(n - 1, -1, -1)
    report("random table", SimpleNamespace(choices=[[0, 1]] * n, length=n, valid=None, task=None,
                                           evaluate=lambda x: table[x @ weights]), 1 << n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--length", type=int, default=256)
    ap.add_argument("--naive-rows", type=int, default=8)
    ap.add_argument("--reps", type=int, default=30, help="timed runs per program")
    ap.add_argument("--no-theory", action="store_true")
    ap.add_argument("--only-interpreter", action="store_true",
                    help="only the interpreter benchmark (no communication, no theory)")
    ap.add_argument("--cc-n", type=int, default=20, help="n for the communication benchmark")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"batch {args.batch} x length {args.length} (naive timed on {args.naive_rows} rows, "
          f"scaled)")
    print(f"{'program':10s} {'best':>9s} {'median':>9s} {'M pos/s best':>13s} "
          f"{'(median)':>9s} {'naive (est.)':>13s} {'speedup':>9s}")
    for name, text in PROGRAMS.items():
        r = bench(name, text, args.batch, args.length, args.naive_rows, rng, args.reps)
        print(f"{name:10s} {r['vectorized_s'] * 1e3:7.2f}ms {r['median_s'] * 1e3:7.2f}ms "
              f"{r['mpos_s']:13.1f} {r['mpos_s_median']:9.1f} {r['naive_s_est']:12.1f}s "
              f"{r['speedup']:8.0f}x")
    if args.only_interpreter:
        return
    bench_communication(args.cc_n)
    if not args.no_theory:
        from theorybench import tasks
        from theorybench.theories.crasp import CRASPTheory
        th = CRASPTheory()
        t0 = time.perf_counter()
        for fam in tasks.families():
            th.predict(fam)
        print(f"crasp theory over {len(tasks.families())} families: "
              f"{time.perf_counter() - t0:.2f}s")


if __name__ == "__main__":
    main()
