"""B-RASP and Star-free benchmarks: interpreter speed and theory time.

    python benchmarks/bench_brasp.py

Prints (1) the vectorized interpreter against the naive per-position one on a batch of
1,024 random inputs (the naive one on a slice, scaled), (2) DFA learning time per family,
(3) the time of `star_free` and `star_free_pos` over all task families (cold caches).
"""

from __future__ import annotations

import time

import numpy as np

from theorybench import tasks
from theorybench.formal.brasp.interpret import run
from theorybench.formal.brasp.naive import run_row
from theorybench.formal.brasp.programs import khop_program


def bench_interpreter(batch: int = 1024, length: int = 64, naive_rows: int = 8) -> None:
    rng = np.random.default_rng(0)
    prog = khop_program(3)
    words = [[str(c) for c in rng.choice(list("abcd"), size=length)] for _ in range(batch)]
    t = time.perf_counter()
    run(prog, words)
    fast = time.perf_counter() - t
    t = time.perf_counter()
    for w in words[:naive_rows]:
        run_row(prog, w)
    slow = (time.perf_counter() - t) * batch / naive_rows
    print(f"interpreter, 3-hop program ({len(prog.stmts)} statements), {batch} inputs of "
          f"length {length}: vectorized {fast:.3f} s, naive {slow:.1f} s (scaled from "
          f"{naive_rows} rows), speed-up {slow / fast:.0f}x")


def bench_theories() -> None:
    from theorybench.theories.registry import theory
    for name in ("star_free", "star_free_pos"):
        th = theory(name)
        t0 = time.perf_counter()
        slowest = []
        for fam in tasks.families():
            t = time.perf_counter()
            p = th.predict(fam)
            slowest.append((time.perf_counter() - t, fam, p.verdict.value))
        total = time.perf_counter() - t0
        slowest.sort(reverse=True)
        top = ", ".join(f"{f} {s:.2f}s ({v})" for s, f, v in slowest[:3])
        print(f"{name}: {len(slowest)} families in {total:.2f} s; slowest: {top}")


def bench_learning() -> None:
    from theorybench.formal.automata import learn_view
    from theorybench.formal.language import language_view
    for fam in ("parity", "majority", "dyck_bounded", "khop", "dyck"):
        t = time.perf_counter()
        res = learn_view(language_view(fam))
        print(f"learn {fam}: {res.status} (check bound {res.check_len}) in "
              f"{time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    bench_interpreter()
    bench_theories()
    bench_learning()
