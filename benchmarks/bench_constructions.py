"""Construction benchmarks.

1. Verification time per construction and method at a few n (exhaustive = float64 and
   float32 on every input; interval = real-arithmetic enclosure on every input; z3 =
   all-n for Majority, per-n otherwise).
2. Forward speed: the float64 (and float32) model on a batch of 1,024 inputs at n = 256
   (in chunks of 2^20 / L^2 rows, one thread), against the task's numpy reference on the same batch.
3. The C-RASP compiler: compile + exhaustive check (every definition at every position,
   lengths 1..N) per library program at N = 10, 12, 14; the compiled model's forward speed
   against the vectorized interpreter on 1,024 inputs of length 256.
4. float32 against float64 at growing n on samples (Majority near the threshold, the
   hardest inputs): the first n at which float32 errs, if any.

    python benchmarks/bench_constructions.py [--quick] [--threads 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from theorybench import constructions
from theorybench.constructions import SetTransformer, check, verify as cverify

CASES = {   # name -> (task, params, n for verification)
    "majority": ("majority", {}, (9, 13, 15)),
    "dyck1": ("dyck", {"k": 1}, (8, 12, 14)),
    "dyck1_D2": ("dyck_bounded", {"k": 1, "D": 2}, (8, 12, 14)),
    "dyck2_D2": ("dyck_bounded", {"k": 2, "D": 2}, (4, 6)),
    "index": ("index", {}, (6, 8, 10)),
    "induction": ("khop", {"k": 1, "alphabet": 3}, (6, 8, 10)),
}


def verify_times(quick: bool) -> None:
    print("# verification time (s) by construction, n and method")
    print(f"{'construction':<12} {'n':>3} {'inputs':>7} {'exh64+32':>9} {'interval':>9} "
          f"{'z3':>8}  z3 status / margin")
    for name, (task, params, ns) in CASES.items():
        for n in ns[:2] if quick else ns:
            c = constructions.build(task, n, **params)
            t = time.perf_counter()
            ex = cverify.verify(c, "exhaustive")
            t_ex = time.perf_counter() - t
            t = time.perf_counter()
            iv = cverify.verify(c, "interval")[0]
            t_iv = time.perf_counter() - t
            t = time.perf_counter()
            z = cverify.verify(c, "z3", timeout_ms=30_000)[0]
            t_z = time.perf_counter() - t
            assert all(ct.ok for ct in ex) and iv.ok, name   # z3 may say unknown (mixed)
            print(f"{name:<12} {n:>3} {ex[0].inputs:>7} {t_ex:>9.3f} {t_iv:>9.3f} {t_z:>8.3f}"
                  f"  {z.method} {z.status} {z.margin}")


def forward_speed(batch: int, n: int) -> None:
    print(f"\n# forward speed: {batch} inputs at n={n}")
    rng = np.random.default_rng(0)
    for name, (task, params, _) in CASES.items():
        m = n - 1 if task == "majority" else n
        c = constructions.build(task, m, **params)
        x = c.task.sample(rng, batch).tokens
        t = time.perf_counter()
        y = c.labels(x)
        t_ref = time.perf_counter() - t
        row = [f"{name:<12} ref {t_ref * 1e3:8.1f} ms"]
        for dtype in (torch.float64, torch.float32):
            model = c.module(dtype)
            t = time.perf_counter()
            mg = check.run_margins(model, c, x)
            dt = time.perf_counter() - t
            row.append(f"{str(dtype)[6:]} {dt * 1e3:8.1f} ms ({batch / dt:8.0f} inputs/s, "
                       f"min margin {mg.min():.4g})")
            assert (mg > 0).all() and len(y) == batch
        print("  ".join(row))


def compiler_bench(quick: bool) -> None:
    from theorybench.constructions.compiler import compile_program, verify_compiled
    from theorybench.formal.crasp import Interpreter, library
    print("\n# C-RASP compiler: compile + exhaustive check (s) at N; forward vs interpreter")
    rng = np.random.default_rng(0)
    for name, entry in sorted(library().items()):
        prog = entry.program
        row = [f"{name:<14}"]
        for N in (10, 12) if quick else (10, 12, 14):
            t = time.perf_counter()
            comp = compile_program(prog, N)
            cert = verify_compiled(prog, comp, "exhaustive")
            assert cert.ok, name
            row.append(f"N={N}: {time.perf_counter() - t:6.2f}")
        comp = compile_program(prog, 256)
        alphabet = comp.vocab[:-1]
        x = rng.integers(0, len(alphabet), size=(1024, 256))
        ext = np.concatenate([x, np.full((1024, 1), len(alphabet))], axis=1)
        model = SetTransformer(comp.weights)
        t = time.perf_counter()
        with torch.no_grad():
            z = torch.cat([model(torch.as_tensor(ext[i: i + 32])) for i in range(0, 1024, 32)])
        t_model = time.perf_counter() - t
        t = time.perf_counter()
        acc = Interpreter(prog, alphabet).run(x, alphabet, accept="eos").accept
        t_int = time.perf_counter() - t
        assert ((z[:, 0].numpy() > 0) == acc).all(), name
        sh = comp.shape()
        row.append(f"| {sh['layers']} layers, width {sh['width']}, {sh['parameters']} params"
                   f" | model {t_model * 1e3:7.1f} ms, interpreter {t_int * 1e3:6.1f} ms")
        print("  ".join(row))


def float32_scan(ns) -> None:
    print("\n# float32 vs float64 on samples (majority: near_threshold inputs)")
    rng = np.random.default_rng(0)
    for name, (task, params, _) in CASES.items():
        first = None
        for n in ns:
            m = n - 1 if task == "majority" else n
            c = constructions.build(task, m, **params)
            count = max(8, (1 << 21) // (m * m))
            dist = "near_threshold" if task == "majority" else None
            x = c.task.sample(rng, count, dist).tokens
            mg = check.run_margins(c.module(torch.float32), c, x)
            if (mg <= 0).any():
                first = m
                break
        print(f"{name:<12} float32 first error at n={first}" if first else
              f"{name:<12} no float32 error up to n={ns[-1]} (samples)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two n per construction, smaller scan")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    verify_times(a.quick)
    forward_speed(1024, 256)
    compiler_bench(a.quick)
    float32_scan((256, 512) if a.quick else (256, 512, 1024))


if __name__ == "__main__":
    main()
