"""Training throughput of the next-symbol objectives against the membership one.

    python benchmarks/bench_next_symbol.py                  # Dyck-1 and Tomita 3, 300 steps
    python benchmarks/bench_next_symbol.py --steps 600 --threads 2

The same length-generalization run (lengths <= 50, batch 64, the small 2 x 2 x 64 decoder,
NoPE, one torch thread unless --threads) is trained for a fixed number of steps under each
objective: membership (balanced members and non-members, one label at the last position)
next-symbol (members only, every position's set of allowed symbols, per-symbol binary
cross-entropy) and next-symbol-set (the same sets, each one class of a cross-entropy, as
Huang et al.'s formal-language code trains them). Prints optimizer steps per second and the share of the run spent outside
forward/backward (sampling, targets). No early stop: the checks come only at the end.
"""

from __future__ import annotations

import argparse
import time

import torch

from theorybench.experiments.length_generalization import run
from theorybench.experiments.published import language_file
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.trainer import TrainingConfig
from theorybench.tasks import registry


def spec(task, params, objective, steps):
    training = TrainingConfig(steps=steps, batch_size=64, lr=1e-3, warmup=10,
                              eval_every=steps, eval_count=64, target=1.0,
                              final_eval_count=64)
    return RunSpec(line="length_generalization", task=task, params=params,
                   train_max_len=50, eval_bins=((0, 50),), size="2l2h64w",
                   encoding="nope", training=training, seed=0, objective=objective)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    tomita = registry.load_task_file(language_file("tomita3")).name
    cases = [("dyck k=1", "dyck", (("k", 1),)), ("tomita3", tomita, ())]
    print(f"{args.steps} steps, batch 64, lengths <= 50, 2x2x64 NoPE, "
          f"{args.threads} thread(s)")
    print(f"{'task':10} {'objective':16} {'steps/s':>8} {'train s':>8} {'outside f/b':>11}")
    for name, task, params in cases:
        rates = {}
        for objective in ("membership", "next_symbol", "next_symbol_set"):
            began = time.perf_counter()
            m = run(spec(task, params, objective, args.steps), progress=False)
            total = time.perf_counter() - began
            rates[objective] = m["steps"] / m["wall_s"]
            outside = m.get("time_split", {}).get("outside_fraction")
            print(f"{name:10} {objective:16} {rates[objective]:8.1f} {m['wall_s']:8.1f} "
                  f"{'' if outside is None else f'{100 * outside:.0f} %':>11}"
                  f"   (run {total:.1f} s)")
        print(f"{name:10} next-symbol / membership: "
              f"{rates['next_symbol'] / rates['membership']:.2f}x the steps per second; "
              f"next-symbol-set / membership: "
              f"{rates['next_symbol_set'] / rates['membership']:.2f}x")


if __name__ == "__main__":
    main()
