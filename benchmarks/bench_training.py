"""Training throughput of the base model against the machine's measured matmul peak.

    python benchmarks/bench_training.py                   # CPU, all cores
    python benchmarks/bench_training.py --device cuda     # a GPU (bf16 autocast, as trained)
    python benchmarks/bench_training.py --smoke           # also time the smoke profile
    python benchmarks/bench_training.py --stopping quick.sqlite   # steps the stopping rules saved

Prints: the peak of a large float32 matmul (and bf16 on a GPU), the base model's (4 layers,
width 256) training step at batch 64, length 64: tokens/s, achieved FLOP/s (analytic count:
6 x matmul parameters x tokens + 12 x layers x batch x length^2 x width for attention,
forward and backward) and its fraction of the peak; then every model size the profiles use
(``--sizes``, default small, deep, base; NoPE, the profiles' batch 64 x length 33) with its
fraction of the peak; with --smoke, the wall time of both smoke-profile lines in a fresh
temporary store; with --stopping STORE, for the finished in-distribution runs of a store, the
steps and the estimated seconds that early stopping saved (runs stopped at the target or by
the plateau rule, against their step budget, at each run's own seconds per step). Goal: >= 50%
of the matmul peak.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import torch

from torch import nn

from theorybench.experiments.model import SIZES, ModelConfig, Transformer
from theorybench.experiments.positional import ENCODINGS
from theorybench.experiments.trainer import autocast, loss_fn


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def matmul_peak(device, dtype, size, trials=5, seconds=1.0) -> float:
    """Best of ``trials`` timings of repeated (size x size) @ (size x size) products
    (best, not mean: other processes on a shared machine only ever slow it down)."""
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    for _ in range(2):
        a @ b
    sync(device)
    best = 0.0
    for _ in range(trials):
        reps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(10 if device.type == "cuda" else 1):
                a @ b
                reps += 1
            sync(device)
        best = max(best, 2 * size ** 3 * reps / (time.perf_counter() - start))
    return best


def train_flops(cfg: ModelConfig, batch: int, length: int) -> float:
    """Forward + backward FLOPs of one step: 3 x forward, forward = 2 x (matmul weights)
    x tokens + 4 x batch x length^2 x width per layer (scores and weighted sum)."""
    w = cfg.width
    per_layer = 3 * w * w + w * w + 2 * cfg.mlp_ratio * w * w
    matmul = cfg.layers * per_layer + w * cfg.num_labels
    tokens = batch * length
    forward = 2 * matmul * tokens + cfg.layers * 4 * batch * length * length * w
    return 3 * forward


def bench_model(device, encoding, batch, length, steps, size="base"):
    cfg = ModelConfig.of_size(size, vocab_size=16, num_labels=16, encoding=encoding,
                              max_positions=length)
    model = Transformer(cfg, torch.Generator().manual_seed(0)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randint(0, 16, (batch, length), device=device)
    y = torch.randint(0, 16, (batch, length), device=device)

    def step():
        with autocast(device):
            loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    per_step = _median_step(step, steps, device)
    return per_step, train_flops(cfg, batch, length), model.num_parameters()


def bench_reference(device, batch, length, steps, size="base"):
    """The same shape in torch.nn.TransformerEncoder (pre-LN, GELU, causal mask): the
    yardstick for the hand-written model's speed."""
    layers, width = SIZES[size]
    heads = max(1, width // 32)
    layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0, activation="gelu",
                                       batch_first=True, norm_first=True)
    enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    model = nn.ModuleDict({"embed": nn.Embedding(16, width), "enc": enc,
                           "ln": nn.LayerNorm(width), "head": nn.Linear(width, 16)}).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randint(0, 16, (batch, length), device=device)
    y = torch.randint(0, 16, (batch, length), device=device)
    mask = nn.Transformer.generate_square_subsequent_mask(length, device=device)

    def step():
        with autocast(device):
            h = model["enc"](model["embed"](x), mask=mask, is_causal=True)
            loss = loss_fn(model["head"](model["ln"](h)), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return _median_step(step, steps, device)


def _median_step(step, steps, device) -> float:
    """Median step time (robust to other load) after a warm-up (allocator, kernels)."""
    for _ in range(5):
        step()
    sync(device)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        sync(device)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def smoke_wall(device: str) -> float:
    from theorybench.experiments.sweep import run_sweep
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "smoke.sqlite")
        start = time.perf_counter()
        for line in ("in-distribution", "length-generalization"):
            run_sweep(line, profile="smoke", db=db, device=device, progress=True)
        return time.perf_counter() - start


def stopping_savings(db: str) -> None:
    """Steps and estimated seconds early stopping saved the store's in-distribution runs."""
    from collections import Counter

    from theorybench.experiments.store import ResultsStore
    reasons, saved_steps, saved_s, spent_s = Counter(), Counter(), Counter(), 0.0
    for r in ResultsStore(db).records():
        if r.line != "in_distribution" or r.status != "done" or not r.metrics:
            continue
        m, budget = r.metrics, int((r.spec.get("training") or {}).get("steps") or 0)
        steps, wall = int(m.get("steps") or 0), float(m.get("wall_s") or 0.0)
        reason = m.get("stop_reason") or ("target" if m.get("reached_target") else "budget")
        reasons[reason] += 1
        spent_s += wall
        if reason in ("target", "plateau") and steps and budget > steps:
            saved_steps[reason] += budget - steps
            saved_s[reason] += (budget - steps) * wall / steps
    total = sum(reasons.values())
    whole = spent_s + sum(saved_s.values())
    print(f"{total} in-distribution runs: " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
    for reason in ("target", "plateau"):
        print(f"stopping at the {reason} saved {saved_steps[reason]:,} steps, about "
              f"{saved_s[reason] / 60:.0f} min of the {whole / 60:.0f} min that running every "
              f"run to its budget would take ({100 * saved_s[reason] / max(whole, 1e-9):.0f} %)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: all)")
    ap.add_argument("--steps", type=int, default=None, help="timed steps (default 7 CPU, 50 GPU)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--length", type=int, default=64)
    ap.add_argument("--encodings", default="nope,alibi",
                    help="comma-separated encodings to time, or 'all'")
    ap.add_argument("--reference", action="store_true",
                    help="also time torch.nn.TransformerEncoder of the same shape and print "
                         "every encoding's speed relative to it and to NoPE")
    ap.add_argument("--smoke", action="store_true", help="also time the smoke profile (both lines)")
    ap.add_argument("--sizes", default="small,deep,base",
                    help="model sizes to time at the profiles' shape (batch 64 x length 33)")
    ap.add_argument("--stopping", metavar="STORE", default=None,
                    help="a results store: the steps and time early stopping saved its runs")
    args = ap.parse_args(argv)
    if args.stopping:
        stopping_savings(args.stopping)
        return 0
    device = torch.device(args.device)
    if args.threads:
        torch.set_num_threads(args.threads)
    gpu = device.type == "cuda"
    steps = args.steps or (50 if gpu else 7)
    print(f"device {device} ({torch.cuda.get_device_name(device) if gpu else f'{torch.get_num_threads()} threads'}), "
          f"torch {torch.__version__}")
    peak32 = max(matmul_peak(device, torch.float32, n) for n in ((8192,) if gpu else (1024, 2048, 4096)))
    print(f"peak float32 matmul: {peak32 / 1e9:,.1f} GFLOP/s")
    peak = peak32
    if gpu:
        peak = matmul_peak(device, torch.bfloat16, 8192)
        print(f"peak bf16 matmul:    {peak / 1e9:,.1f} GFLOP/s (training runs under bf16 autocast)")
    encodings = list(ENCODINGS) if args.encodings == "all" else args.encodings.split(",")
    if args.reference and "nope" not in encodings:
        encodings.insert(0, "nope")
    speed = {}
    for enc in encodings:
        per_step, flops, params = bench_model(device, enc, args.batch, args.length, steps)
        tokens = args.batch * args.length / per_step
        speed[enc] = tokens
        print(f"base model ({params:,} parameters), encoding {enc}, batch {args.batch} x length "
              f"{args.length}: {per_step * 1000:.1f} ms/step, {tokens:,.0f} tokens/s, "
              f"{flops / per_step / 1e9:,.1f} GFLOP/s = {100 * flops / per_step / peak:.0f}% of peak")
    for size in filter(None, args.sizes.split(",")):
        per_step, flops, params = bench_model(device, "nope", 64, 33, steps, size=size)
        layers, width = SIZES[size]
        print(f"size {size} ({layers} layers x {width}, {params:,} parameters), batch 64 x 33: "
              f"{per_step * 1000:.1f} ms/step, {flops / per_step / 1e9:,.2f} GFLOP/s = "
              f"{100 * flops / per_step / peak:.0f}% of peak")
    if args.reference:
        ref = args.batch * args.length / bench_reference(device, args.batch, args.length, steps)
        print(f"nn.TransformerEncoder, same shape: {ref:,.0f} tokens/s")
        print("encoding        / TransformerEncoder   / NoPE")
        for enc, tok in speed.items():
            print(f"{enc:<15} {tok / ref:>8.2f}x {tok / speed['nope']:>18.2f}x")
    if args.smoke:
        wall = smoke_wall(args.device)
        print(f"smoke profile (both lines): {wall:.0f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
