"""The HTTP backend against a real OpenAI-compatible server: llama.cpp's, serving the
embedded SmolLM2-135M GGUF, beside the same model scored in process (transformers, the
GGUF dequantised to float32).

Two servings, each reported on its own (``--weights``): ``quantised``, the Q4_1 file as it
ships (llama.cpp's quantised kernels, f16 attention cache), and ``float32``, the same
weights dequantised into a float32 GGUF (``llamacpp.float32_gguf``, written to a temporary
folder) with a float32 attention cache - the numbers the in-process backend computes with.

    pip install 'llama-cpp-python[server]'     # builds llama.cpp from source
    python benchmarks/bench_llama_server.py                     # 3 tasks x 100 prompts
    python benchmarks/bench_llama_server.py --count 20 --tasks majority

For each task (8-shot prompts of the llm line, log-likelihood scoring of the answers
" 0" / " 1"), both backends score the same prompts; reported: the share of prompts on
which they choose the same answer (target: at least 99 %), the largest and the median
absolute difference of the per-answer log-likelihoods (llama.cpp runs the quantised
kernels, transformers the dequantised weights, so small differences are expected), the
in-process margin (best minus second answer) of the prompts whose answer flipped, and
the agreement on the prompts whose margin exceeds the largest difference, the accuracy
of each, and prompts per second through the server (one request at a time,
one thread) and in process (one thread). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _measure(args, llamacpp, local, local_cfg, path, kv, cache: dict) -> dict:
    """One serving of ``path`` against the in-process results (computed once, in ``cache``)."""
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm
    from theorybench.experiments.llm.http import HTTPModel
    from theorybench.experiments.llm.models import model_from_dict

    res = {"gguf": str(path), "kv_cache": kv, "tasks": {}}
    t = time.perf_counter()
    with llamacpp.LlamaCppServer(path, threads=args.threads, kv_cache=kv) as server:
        res["server_start_s"] = round(time.perf_counter() - t, 1)
        http_cfg = model_from_dict(server.model_entry("smollm2-llama-server"))
        remote = HTTPModel(http_cfg)
        same = total = 0
        diffs = []
        for item in args.tasks.split(","):
            task, n = item.split(":")
            spec = dict(task=task, n=int(n), k=args.k, count=args.count)
            a = evaluate_llm(LLMSpec(model=http_cfg, **spec), backend=remote)
            if item not in cache:
                cache[item] = evaluate_llm(LLMSpec(model=local_cfg, **spec), backend=local)
            b = cache[item]
            agree = sum(x["answer"] == y["answer"] for x, y in zip(a["records"], b["records"]))
            d = [abs(x["scores"][c] - y["scores"][c])
                 for x, y in zip(a["records"], b["records"]) for c in x["choices"]]
            # how close the flipped prompts were: the in-process margin between the best
            # and the second answer
            def margin(rec):
                v = sorted(rec["scores"].values(), reverse=True)
                return v[0] - v[1]
            flipped = [margin(y) for x, y in zip(a["records"], b["records"])
                       if x["answer"] != y["answer"]]
            clear = [(x["answer"] == y["answer"]) for x, y in zip(a["records"], b["records"])
                     if margin(y) > max(d)]
            same, total, diffs = same + agree, total + len(a["records"]), diffs + d
            res["tasks"][item] = {
                "prompts": len(a["records"]), "same_answer": agree,
                "max_abs_loglik_diff": float(f"{max(d):.3g}"),
                "median_abs_loglik_diff": float(f"{statistics.median(d):.3g}"),
                "largest_margin_of_a_flipped_prompt": round(max(flipped), 4) if flipped else None,
                "same_answer_where_margin_exceeds_max_diff": f"{sum(clear)}/{len(clear)}",
                "accuracy_server": a["metrics"]["accuracy"],
                "accuracy_in_process": b["metrics"]["accuracy"],
                "prompts_per_s_server": round(a["metrics"]["prompts_per_s"], 2),
                "prompts_per_s_in_process": round(b["metrics"]["prompts_per_s"], 2)}
            print(f"{path.name} {item}: {agree}/{len(a['records'])} same answer, max |d loglik| "
                  f"{max(d):.4f}", file=sys.stderr, flush=True)
    res["same_answer"] = f"{same}/{total}"
    res["agreement"] = round(same / total, 4)
    res["max_abs_loglik_diff"] = float(f"{max(diffs):.3g}")
    res["median_abs_loglik_diff"] = float(f"{statistics.median(diffs):.3g}")
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="majority:5,parity:4,index:8",
                    help="task:n pairs, comma separated (default majority:5,parity:4,index:8)")
    ap.add_argument("--count", type=int, default=100, help="prompts per task (default 100)")
    ap.add_argument("--k", type=int, default=8, help="examples per prompt (default 8)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--weights", choices=("quantised", "float32", "both"), default="both",
                    help="which serving to measure (default both)")
    args = ap.parse_args(argv)

    import torch

    from theorybench.experiments.llm import llamacpp
    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models, resolve_path

    why = llamacpp.available()
    if why:
        print(json.dumps({"skipped": why}))
        return 1
    torch.set_num_threads(args.threads)
    local_cfg = load_models()["smollm2-135m-instruct"]
    gguf = resolve_path(local_cfg.gguf)
    t = time.perf_counter()
    local = LocalModel.load(local_cfg)
    load_local = time.perf_counter() - t
    out = {"model": local_cfg.name, "gguf": str(gguf), "threads": args.threads,
           "local_load_s": round(load_local, 1)}
    servings = ("quantised", "float32") if args.weights == "both" else (args.weights,)
    cache: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for serving in servings:
            path, kv = gguf, "f16"
            if serving == "float32":
                t = time.perf_counter()
                path = llamacpp.float32_gguf(gguf, Path(tmp) / "model-f32.gguf")
                kv = "f32"
                out["float32_gguf_write_s"] = round(time.perf_counter() - t, 1)
            out[serving] = _measure(args, llamacpp, local, local_cfg, path, kv, cache)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
