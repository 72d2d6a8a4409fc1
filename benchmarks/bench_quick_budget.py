"""Learning curves that set the quick profile's training budgets (its docstring quotes them).

    python benchmarks/bench_quick_budget.py            # the pilot grid below, all cores
    python benchmarks/bench_quick_budget.py --db pilot.sqlite   # keep the store

Each run trains with early stop at the profile's target (0.99) and a generous cap, so the
printed "steps to target" is measured, not guessed; a run that never reaches the target
prints its best accuracy and the step at which it was reached (a plateau tells us more
steps would not help at this model size). Per run it also prints the measured seconds per
step, from which the profile's wall time is budgeted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from theorybench.experiments.spec import DEFAULT_BINS, RunSpec
from theorybench.experiments.store import ResultsStore
from theorybench.experiments.sweep import run_sweep
from theorybench.experiments.trainer import TrainingConfig

ID_TASKS = [("majority", {}, 15), ("majority", {}, 31), ("parity", {}, 16), ("index", {}, 16),
            ("index", {}, 32), ("khop", {"k": 1}, 16), ("khop", {"k": 2}, 16),
            ("khop", {"k": 3}, 16), ("dyck", {"k": 1}, 16), ("dyck", {"k": 2}, 16),
            ("binary_add", {}, 8), ("sparse_parity", {}, 16), ("reach_directed", {}, 8),
            ("index_parity", {}, 16)]
LG_TASKS = [("majority", {}), ("index", {}), ("khop", {"k": 1}), ("dyck", {"k": 1})]


def pilot_specs(cap: int, lg_cap: int, base_cap: int, lr: float) -> list[RunSpec]:
    cfg = TrainingConfig(steps=cap, batch_size=64, lr=lr, warmup=100, eval_every=100,
                         eval_count=512, target=0.99, final_eval_count=1024)
    lg = TrainingConfig(steps=lg_cap, batch_size=64, lr=lr, warmup=100, eval_every=100,
                        eval_count=512, target=0.99, final_eval_count=512)
    base = TrainingConfig(steps=base_cap, batch_size=64, lr=lr / 2, warmup=50, eval_every=50,
                          eval_count=512, target=0.99, final_eval_count=512)
    out = [RunSpec("in_distribution", f, tuple(sorted(p.items())), n=n, size="small",
                   encoding="rope", training=cfg) for f, p, n in ID_TASKS]
    out += [RunSpec("length_generalization", f, tuple(sorted(p.items())), train_max_len=32,
                    eval_bins=DEFAULT_BINS, size="small", encoding="nope", training=lg)
            for f, p in LG_TASKS]
    out += [RunSpec("length_generalization", f, tuple(sorted(p.items())), train_max_len=32,
                    eval_bins=DEFAULT_BINS, size="base", encoding="nope", training=base)
            for f, p in LG_TASKS[:2]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=int, default=2000, help="in-distribution step cap")
    ap.add_argument("--lg-cap", type=int, default=2000, help="length-generalization cap (small)")
    ap.add_argument("--base-cap", type=int, default=400, help="cap for the base-size runs")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--db", default=None)
    args = ap.parse_args()
    specs = pilot_specs(args.cap, args.lg_cap, args.base_cap, args.lr)
    with tempfile.TemporaryDirectory() as d:
        db = args.db or os.path.join(d, "pilot.sqlite")
        start = time.perf_counter()
        for line in ("in_distribution", "length_generalization"):
            run_sweep(line, specs=[s for s in specs if s.line == line], db=db, progress=False)
        print(f"pilot wall time {time.perf_counter() - start:.0f} s")
        with ResultsStore(db) as store:
            for rec in store.records(status="done"):
                s, m = rec.spec, rec.metrics
                curve = m.get("curve") or []
                best = max(curve, key=lambda c: c[1]) if curve else [0, 0.0]
                acc = m.get("test_accuracy", m.get("train_accuracy"))
                per_step = (m["time_split"]["step"] / max(1, m["steps"]))
                where = f"n={s['n']}" if s["n"] else f"<=32 {s['model']['size']}/{s['model']['encoding']}"
                bins = " bins " + " ".join(f"{v:.2f}" if v is not None else "-"
                                           for v in m["bins"].values()) if "bins" in m else ""
                print(f"{s['task']:<15}{s['params']!s:<10}{where:<20} steps {m['steps']:>5} "
                      f"reached {str(bool(acc >= 0.99)):<5} acc {acc:.3f} best {best[1]:.3f}"
                      f"@{best[0]} {per_step * 1000:.0f} ms/step{bins}")


if __name__ == "__main__":
    main()
