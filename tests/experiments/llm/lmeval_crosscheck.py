"""Score exports of the tiny test model with whichever lm-eval is importable and with the
llm line; print one JSON line of the comparison. Run by test_lmeval_versions.py with an
older lm-eval on PYTHONPATH (it cannot be imported beside the installed one).

Usage: python lmeval_crosscheck.py WORK_FOLDER"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

import torch
import transformers

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from conftest import build_tiny  # noqa: E402

from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm  # noqa: E402
from theorybench.experiments.llm.export import export_lm_eval  # noqa: E402
from theorybench.experiments.llm.local import LocalModel  # noqa: E402
from theorybench.experiments.llm.models import model_from_dict  # noqa: E402

CHAT = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant:\n{% endif %}")
METRICS = ("acc", "acc_norm", "chance", "calibrated_accuracy", "balanced_accuracy", "auc")


def main(base: Path) -> dict:
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    torch.set_num_threads(1)
    shutil.rmtree(base, ignore_errors=True)
    tiny_dir = build_tiny(base / "tiny")
    cfg = model_from_dict({"name": "tiny", "backend": "local", "path": str(tiny_dir),
                           "context": 512, "batch_size": 3})
    tiny = LocalModel.load(cfg)
    chat_dir = base / "tiny-chat"
    shutil.copytree(tiny_dir, chat_dir)
    tiny.tok.chat_template = CHAT
    tiny.tok.save_pretrained(chat_dir)

    def harness(model_dir, folder, task, **kw):
        lm = HFLM(pretrained=str(model_dir), batch_size=2, device="cpu")
        res = lm_eval.simple_evaluate(model=lm, tasks=[task], log_samples=True,
                                      task_manager=TaskManager(include_path=str(folder)), **kw)
        return res["results"][task], sorted(res["samples"][task], key=lambda s: s["doc_id"])

    def compare(ours, samples):
        same = all({a[0] for a in s["arguments"]} == {r["prompt"]}
                   for r, s in zip(ours["records"], samples))
        gap = max(abs(s["resps"][i][0][0] - r["scores"][c])
                  for r, s in zip(ours["records"], samples) for i, c in enumerate(r["choices"]))
        return {"prompts_same": same and len(samples) == len(ours["records"]), "ll_gap": gap}

    out = {"lm_eval": getattr(lm_eval, "__version__", "?"), "file": lm_eval.__file__}
    y, _ = export_lm_eval("majority", 5, base / "x", k=3, count=6, seed=4)
    shutil.move(base / "x", base / "moved")  # the folder moves
    res, samples = harness(tiny_dir, base / "moved", y.stem)
    ours = evaluate_llm(LLMSpec("majority", 5, cfg, k=3, count=6, seed=4), backend=tiny)
    out["plain"] = {**compare(ours, samples),
                    "metrics": {m: [res[f"{m},none"], ours["metrics"][m]] for m in METRICS}}
    _, samples = harness(tiny_dir, base / "moved", y.stem, num_fewshot=1)
    out["num_fewshot_1"] = all(a[0].count("Input:") == 2 for s in samples
                               for a in s["arguments"])
    system = "Think step by step."
    y, _ = export_lm_eval("majority", 5, base / "c", k=2, count=4, seed=3, chat=True,
                          system=system)
    _, samples = harness(chat_dir, base / "c", y.stem, apply_chat_template=True,
                         fewshot_as_multiturn=True)
    ours = evaluate_llm(LLMSpec("majority", 5, dataclasses.replace(cfg, chat=True), k=2,
                                count=4, seed=3, system=system), backend=tiny)
    out["chat"] = compare(ours, samples)
    y, _ = export_lm_eval("majority", 5, base / "g", k=2, count=3, scoring="generate")
    res, samples = harness(tiny_dir, base / "g", y.stem)
    ours = evaluate_llm(LLMSpec("majority", 5, cfg, k=2, count=3, scoring="generate",
                                parser="exact_match"), backend=tiny)
    out["generate"] = {
        "texts_same": [s["resps"][0][0] for s in samples] == [r["answer"] for r in
                                                              ours["records"]],
        "metrics": {m: [res[f"{m},none"], ours["metrics"][k]] for m, k in
                    (("exact_match", "accuracy"), ("chance", "chance"),
                     ("balanced_accuracy", "balanced_accuracy"))}}
    return out


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
