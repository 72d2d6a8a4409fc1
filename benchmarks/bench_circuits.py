"""Bit-parallel circuit evaluation speed: gate-input evaluations per second (target >= 1e8).

A gate-input evaluation is one wire of one live gate on one input (wires x batch). Also
compares the two threshold methods (bit-sliced adder tree vs unpack-and-sum) and an
unpacked boolean evaluator (one byte per input, same level batching) as the baseline.

    python benchmarks/bench_circuits.py
"""

from __future__ import annotations

import time

import numpy as np

from theorybench import tasks
from theorybench.formal.circuits import Circuit, evaluate_packed
from theorybench.formal.circuits.builders import build
from theorybench.formal.circuits.evaluate import pack_bits


def layered(rng, n_inputs, layers, width, fanin, kinds):
    c = Circuit(n_inputs)
    prev = list(range(n_inputs))
    for _ in range(layers):
        cur = []
        for _ in range(width):
            kind = kinds[int(rng.integers(len(kinds)))]
            args = [int(a) for a in rng.choice(prev, size=fanin, replace=False)]
            if rng.random() < 0.3:
                args[0] = c.not_(args[0])
            cur.append(c.gate(kind, args, fanin // 2 if kind == "THR" else None))
        prev = cur
    return c.set_outputs(prev[:8])


def timed(c, words, method, repeat=3):
    evaluate_packed(c, words[:, :1], method)  # compile the plan
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        evaluate_packed(c, words, method)
        best = min(best, time.perf_counter() - t0)
    return best


def unpacked_baseline(c, x):
    """Boolean evaluation, one byte per input (what the bit-packing replaces)."""
    vals = {}
    for v, kind in enumerate(c.kinds):
        if kind == "INPUT":
            vals[v] = x[:, c.params[v]].astype(bool)
        elif kind == "CONST":
            vals[v] = np.full(len(x), bool(c.params[v]))
        else:
            a = np.stack([vals[u] for u in c.args[v]])
            if kind == "AND":
                vals[v] = a.all(0)
            elif kind == "OR":
                vals[v] = a.any(0)
            elif kind == "NOT":
                vals[v] = ~a[0]
            elif kind == "MAJ":
                vals[v] = 2 * a.sum(0) > len(a)
            else:
                vals[v] = a.sum(0) >= c.params[v]
    return vals


def main() -> None:
    rng = np.random.default_rng(0)
    batch = 1 << 16
    cases = [
        ("random AND/OR, 8 x 256 gates, fan-in 32", layered(rng, 256, 8, 256, 32, ["AND", "OR"])),
        ("random THR/MAJ, 4 x 128 gates, fan-in 64", layered(rng, 256, 4, 128, 64, ["THR", "MAJ"])),
    ]
    for fam, n, kw in [("khop", 48, {"k": 2}), ("dyck", 32, {}), ("parity", 128, {}),
                       ("binary_add", 64, {})]:
        b = build(tasks.get(fam, n=n, **kw), "tc0")
        cases.append((f"builder {fam}(n={n})", b.circuit))
    print(f"batch = {batch} inputs per call (packed 64 per uint64 word)")
    print(f"{'circuit':44s} {'wires':>8s} {'method':>9s} {'seconds':>8s} {'gate-input evals/s':>19s}")
    for name, c in cases:
        x = rng.integers(0, 2, size=(batch, c.n_inputs), dtype=np.uint8)
        words, _ = pack_bits(x)
        has_thr = bool(c.kinds_used() & {"MAJ", "THR"})
        for method in (("bitslice", "unpack") if has_thr else ("auto",)):
            t = timed(c, words, method)
            rate = c.wires * batch / t
            print(f"{name:44s} {c.wires:8d} {method:>9s} {t:8.3f} {rate:19.3e}")
    name, c = cases[0]
    small = 1 << 12
    x = rng.integers(0, 2, size=(small, c.n_inputs), dtype=np.uint8)
    t0 = time.perf_counter()
    unpacked_baseline(c, x)
    t = time.perf_counter() - t0
    print(f"{'baseline: unpacked bools, per gate':44s} {c.wires:8d} {'-':>9s} {t:8.3f} "
          f"{c.wires * small / t:19.3e}  (on {small} inputs)")


if __name__ == "__main__":
    main()
