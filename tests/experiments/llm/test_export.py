"""Export to the LM evaluation harness's format: the YAML reads back, the JSONL holds the
prompts the line scores, and the harness's multiple-choice requests equal ours."""

from __future__ import annotations

import json

import pytest

from theorybench.experiments.llm.export import export_lm_eval
from theorybench.experiments.llm.prompts import PromptBuilder

yaml = pytest.importorskip("yaml")


class _Loader(yaml.SafeLoader):
    """Reads lm-eval's ``!function MODULE.NAME`` tags as the text "!function MODULE.NAME"."""


_Loader.add_constructor("!function", lambda loader, node: "!function " + node.value)


def _read(path):
    return yaml.load(path.read_text(), Loader=_Loader)


def test_multiple_choice_export(tmp_path):
    y, data = export_lm_eval("parity", 6, tmp_path, k=4, count=10, seed=2)
    cfg = _read(y)
    assert cfg["output_type"] == "multiple_choice" and cfg["num_fewshot"] == 4
    # the data file is named relative to the folder (read by the loader beside it)
    assert cfg["custom_dataset"] == "!function theorybench_lmeval.load"
    assert cfg["dataset_kwargs"] == {"data_file": data.name}
    assert (tmp_path / "theorybench_lmeval.py").is_file()
    assert (cfg["doc_to_text"], cfg["doc_to_choice"], cfg["doc_to_target"]) == \
        ("query", "choices", "gold")
    assert cfg["target_delimiter"] == " " and cfg["fewshot_split"] == "test"
    assert cfg["process_results"] == "!function theorybench_lmeval.process_results"
    metrics = {m["metric"]: m["aggregation"] for m in cfg["metric_list"]}
    assert metrics == {"acc": "mean", "acc_norm": "mean",
                       **{m: f"!function theorybench_lmeval.{m}" for m in
                          ("chance", "calibrated_accuracy", "balanced_accuracy", "auc")}}
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    insts = PromptBuilder("parity", 6, {}, 4).instances(10, seed=2)
    assert [r["prompt"] for r in rows] == [i.text() for i in insts]
    for r, i in zip(rows, insts):
        # lm-eval's layout: description, then each example and the query
        shots = [s["query"] + " " + s["choices"][s["gold"]] for s in r["shots"]]
        assert cfg["description"] + "\n\n".join(shots + [r["query"]]) == r["prompt"]
        assert len({s["query"] for s in r["shots"]}) == 4  # no example twice
        bits = r["prompt"].rsplit("Input: ", 1)[1].split("\n")[0].split()
        assert r["choices"][r["gold"]] == r["target"] == str(bits.count("1") % 2)


def test_options_give_distinct_names_and_one_group(tmp_path):
    runs = [{}, {"template": "qa"}, {"order": "random"}, {"scoring": "generate"},
            {"chat": True}, {"chat": True, "system": "Be brief."}, {"count": 4}]
    names = set()
    for kw in runs:
        y, _ = export_lm_eval("majority", 5, tmp_path, k=2, **{"count": 3, **kw})
        names.add(y.stem)
    assert len(names) == len(runs)
    group = _read(tmp_path / "theorybench.yaml")
    assert group["group"] == "theorybench" and sorted(group["task"]) == sorted(names)


def test_three_answers_have_no_auc(tmp_path):
    y, _ = export_lm_eval("khop", 6, tmp_path, k=2, count=3)
    names = [m["metric"] for m in _read(y)["metric_list"]]
    assert "auc" not in names and "calibrated_accuracy" in names


def test_generation_export(tmp_path):
    y, data = export_lm_eval("binary_add", 3, tmp_path, k=2, count=3)
    cfg = _read(y)
    assert cfg["output_type"] == "generate_until"
    assert cfg["generation_kwargs"]["until"] == ["\n"]
    assert cfg["process_results"] == "!function theorybench_lmeval.process_generate"
    assert [m["metric"] for m in cfg["metric_list"]] == \
        ["exact_match", "chance", "balanced_accuracy"]
    # a sequence answer is generated whatever the scoring asked: one export, one name
    assert "_generate_" in y.stem
    assert export_lm_eval("binary_add", 3, tmp_path, k=2, count=3, scoring="generate",
                          force=True)[0] == y
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    assert all(r["gold"] == -1 and len(r["target"].split()) == 4 for r in rows)


def test_harness_requests_score_like_the_line(tmp_path, tiny):
    """The harness scores (doc_to_text, target_delimiter + choice); so does loglik."""
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm

    y, data = export_lm_eval("majority", 5, tmp_path, k=2, count=4, seed=5)
    cfg = _read(y)
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    reqs = [(r["prompt"], cfg["target_delimiter"] + c) for r in rows for c in r["choices"]]
    ours = evaluate_llm(LLMSpec(task="majority", n=5, model=tiny.config, k=2, count=4,
                                seed=5), backend=tiny)
    want = [r["scores"][c] for r in ours["records"] for c in r["choices"]]
    assert [s for s, _ in tiny.loglikelihood(reqs, batch_size=1)] == \
        pytest.approx(want, abs=1e-6)
