"""The HTTP backend against a real OpenAI-compatible server: llama.cpp's, serving the
embedded SmolLM2-135M GGUF, beside the same model scored in process (transformers, the
GGUF dequantised to float32).

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
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="majority:5,parity:4,index:8",
                    help="task:n pairs, comma separated (default majority:5,parity:4,index:8)")
    ap.add_argument("--count", type=int, default=100, help="prompts per task (default 100)")
    ap.add_argument("--k", type=int, default=8, help="examples per prompt (default 8)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)

    import torch

    from theorybench.experiments.llm import llamacpp
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm
    from theorybench.experiments.llm.http import HTTPModel
    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models, model_from_dict, resolve_path

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
           "local_load_s": round(load_local, 1), "tasks": {}}
    t = time.perf_counter()
    with llamacpp.LlamaCppServer(gguf, threads=args.threads) as server:
        out["server_start_s"] = round(time.perf_counter() - t, 1)
        http_cfg = model_from_dict(server.model_entry("smollm2-llama-server"))
        remote = HTTPModel(http_cfg)
        same = total = 0
        diffs = []
        for item in args.tasks.split(","):
            task, n = item.split(":")
            spec = dict(task=task, n=int(n), k=args.k, count=args.count)
            a = evaluate_llm(LLMSpec(model=http_cfg, **spec), backend=remote)
            b = evaluate_llm(LLMSpec(model=local_cfg, **spec), backend=local)
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
            out["tasks"][item] = {
                "prompts": len(a["records"]), "same_answer": agree,
                "max_abs_loglik_diff": round(max(d), 4),
                "median_abs_loglik_diff": round(statistics.median(d), 4),
                "largest_margin_of_a_flipped_prompt": round(max(flipped), 4) if flipped else None,
                "same_answer_where_margin_exceeds_max_diff": f"{sum(clear)}/{len(clear)}",
                "accuracy_server": a["metrics"]["accuracy"],
                "accuracy_in_process": b["metrics"]["accuracy"],
                "prompts_per_s_server": round(a["metrics"]["prompts_per_s"], 2),
                "prompts_per_s_in_process": round(b["metrics"]["prompts_per_s"], 2)}
            print(f"{item}: {agree}/{len(a['records'])} same answer, max |d loglik| "
                  f"{max(d):.4f}", file=sys.stderr, flush=True)
    out["same_answer"] = f"{same}/{total}"
    out["agreement"] = round(same / total, 4)
    out["max_abs_loglik_diff"] = round(max(diffs), 4)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
