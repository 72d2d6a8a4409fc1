"""The llm line without transformers: prompts, the model file, the parser and the metrics."""

from __future__ import annotations

import json

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.llm import prompts as P
from theorybench.experiments.llm.models import load_models, model_from_dict
from theorybench.experiments.llm.scoring import metrics, parse_answer


def test_prompts_deterministic_and_query_never_among_examples():
    b = P.PromptBuilder("parity", 4, {}, k=8)
    a1, a2 = b.instances(30, seed=3), b.instances(30, seed=3)
    assert [i.text() for i in a1] == [i.text() for i in a2]
    assert [i.text() for i in a1] != [i.text() for i in b.instances(30, seed=4)]
    for inst in a1:
        assert len(inst.examples) == 8
        shown = [e.split("\n")[0].removeprefix("Input: ") for e in inst.examples]
        assert inst.input_text not in shown
        # the gold answer is the parity of the query's bits (independent oracle)
        assert inst.target == str(inst.input_text.split().count("1") % 2)
        # balanced: four examples of each answer
        assert sorted(e[-1] for e in inst.examples) == ["0"] * 4 + ["1"] * 4
        assert inst.text().endswith("Input: " + inst.input_text + "\nOutput:")



def test_prompts_refuse_when_too_few_distinct_examples():
    with pytest.raises(ConfigError, match="cannot supply"):
        P.PromptBuilder("parity", 1, {}, k=4).instances(1, seed=0)



def test_model_file_checks(tmp_path):
    assert "smollm2-135m-instruct" in load_models()
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"format": "theorybench-llm-models", "models": [
        {"name": "x", "backend": "local"}]}))
    with pytest.raises(ConfigError, match="needs \"path\""):
        load_models(f)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_models(tmp_path / "none.json")
    with pytest.raises(ConfigError, match="unknown key"):
        model_from_dict({"name": "x", "backend": "http", "base_url": "u", "model": "m",
                         "key": "secret"})



def test_parser():
    assert parse_answer(" 1\n", ("0", "1")) == "1"
    assert parse_answer("0.", ("0", "1")) == "0"
    assert parse_answer("yes", ("0", "1")) is None
    assert parse_answer("", ("0", "1")) is None
    assert parse_answer(" 1  0 1", (), {"0", "1"}) == "1 0 1"
    assert parse_answer("1 0 x", (), {"0", "1"}) is None



def test_metrics_against_hand_computation():
    recs = [{"target": t, "parsed": p, "correct": t == p,
             "scores": {"0": s0, "1": s1}}
            for t, p, s0, s1 in [("0", "1", -2, -1), ("0", "0", -1, -3), ("1", "1", -3, -0.5),
                                 ("1", "1", -2, -1.5)]]
    m = metrics(recs, ("0", "1"))
    assert m["accuracy"] == 0.75 and m["chance"] == 0.5 and m["uniform_chance"] == 0.5
    assert m["unparseable"] == 0 and m["balanced_accuracy"] == 0.75
    # d = s1 - s0 = 1, -2 (gold 0) and 2.5, 0.5 (gold 1): 3 of 4 pairs ordered right
    assert m["auc"] == 0.75
    # centred: s0 mean -2, s1 mean -1.5 -> d' = d - 0.5 = .5, -2.5, 2, 0 -> argmax 1,0,1,0
    assert m["calibrated_accuracy"] == 0.5
