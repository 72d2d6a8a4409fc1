"""Export to the LM evaluation harness's format: the YAML reads back, the JSONL holds the
prompts the line scores, and the harness's multiple-choice requests equal ours."""

from __future__ import annotations

import json

import pytest

from theorybench.experiments.llm.export import export_lm_eval
from theorybench.experiments.llm.prompts import PromptBuilder

yaml = pytest.importorskip("yaml")


def test_multiple_choice_export(tmp_path):
    y, data = export_lm_eval("parity", 6, tmp_path, k=4, count=10, seed=2)
    cfg = yaml.safe_load(y.read_text())
    assert cfg["output_type"] == "multiple_choice" and cfg["num_fewshot"] == 0
    assert cfg["dataset_path"] == "json" and cfg["dataset_kwargs"]["data_files"]["test"] == str(data)
    assert (cfg["doc_to_text"], cfg["doc_to_choice"], cfg["doc_to_target"]) == \
        ("prompt", "choices", "gold")
    assert cfg["target_delimiter"] == " "
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    insts = PromptBuilder("parity", 6, {}, 4).instances(10, seed=2)
    assert [r["prompt"] for r in rows] == [i.text() for i in insts]
    for r in rows:
        bits = r["prompt"].rsplit("Input: ", 1)[1].split("\n")[0].split()
        assert r["choices"][r["gold"]] == r["target"] == str(bits.count("1") % 2)


def test_generation_export(tmp_path):
    y, data = export_lm_eval("binary_add", 3, tmp_path, k=2, count=3)
    cfg = yaml.safe_load(y.read_text())
    assert cfg["output_type"] == "generate_until"
    assert cfg["generation_kwargs"]["until"] == ["\n"]
    assert cfg["metric_list"][0]["regexes_to_ignore"] == ["\\s"]
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    assert all(r["gold"] == -1 and len(r["target"].split()) == 4 for r in rows)


def test_harness_requests_score_like_the_line(tmp_path, tiny):
    """The harness scores (doc_to_text, target_delimiter + choice); so does loglik."""
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm

    y, data = export_lm_eval("majority", 5, tmp_path, k=2, count=4, seed=5)
    cfg = yaml.safe_load(y.read_text())
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    reqs = [(r["prompt"], cfg["target_delimiter"] + c) for r in rows for c in r["choices"]]
    ours = evaluate_llm(LLMSpec(task="majority", n=5, model=tiny.config, k=2, count=4,
                                seed=5), backend=tiny)
    want = [r["scores"][c] for r in ours["records"] for c in r["choices"]]
    assert [s for s, _ in tiny.loglikelihood(reqs, batch_size=1)] == \
        pytest.approx(want, abs=1e-6)
