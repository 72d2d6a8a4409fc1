"""The llm line's lm-evaluation-harness conventions (issue 32) that need no lm-eval: a
dequantised cache any ``from_pretrained`` loads, prefix-stable prompts, lm-eval's flags and
metric names, its standard error, ``acc_norm`` and ``exact_match``."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from theorybench.experiments.llm import scoring
from theorybench.experiments.llm.prompts import PromptBuilder, chat_messages

GGUF_Q = {"quant_method": "gguf", "gguf_file": "model.gguf", "dequantize": False}


def test_cache_is_a_plain_folder(tiny, tmp_path):
    """A GGUF-loaded model's config carries quantization_config; the cache must not (with
    it, from_pretrained on the folder asks for the GGUF file)."""
    from transformers import AutoModelForCausalLM

    from theorybench.experiments.llm.local import LocalModel, import_transformers

    tf = import_transformers()[1]
    tiny.model.config.quantization_config = dict(GGUF_Q)
    try:
        LocalModel._write_cache(tf, tiny.model, tiny.tok, tmp_path / "cache")
    finally:
        del tiny.model.config.quantization_config
    cfg = json.loads((tmp_path / "cache" / "config.json").read_text())
    assert "quantization_config" not in cfg and "gguf_file" not in cfg
    plain = AutoModelForCausalLM.from_pretrained(str(tmp_path / "cache"),
                                                 local_files_only=True)
    ids = tiny.torch.tensor([[4, 5, 6, 7]])
    assert tiny.torch.equal(plain(ids).logits, tiny.model(ids).logits)


def test_an_old_cache_folder_is_repaired(tiny_dir, tmp_path):
    from theorybench.experiments.llm.local import clean_cache_config

    old = tmp_path / "old"
    shutil.copytree(tiny_dir, old)
    cfg = json.loads((old / "config.json").read_text())
    (old / "config.json").write_text(json.dumps({**cfg, "quantization_config": GGUF_Q}))
    assert clean_cache_config(old)
    again = json.loads((old / "config.json").read_text())
    assert again == cfg
    assert not clean_cache_config(old)  # nothing left to remove


def test_models_prints_the_cache_folder(cli, tmp_path, monkeypatch):
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1,
                                  "models": [{"name": "m", "backend": "local",
                                              "gguf": str(gguf)}]}))
    monkeypatch.setenv("THEORYBENCH_CACHE", str(tmp_path / "cache"))
    import hashlib
    want = tmp_path / "cache" / "llm" / hashlib.sha256(gguf.read_bytes()).hexdigest()[:16]
    code, out, _ = cli("llm", "models", "--models", models, "--format", "json")
    assert code == 0 and json.loads(out)[0]["cache"] == str(want)
    code, out, _ = cli("llm", "models", "--models", models)
    assert code == 0 and f"{want} (not written yet)" in out


@pytest.mark.parametrize("family, n, params", [
    ("index", 8, {}), ("khop", 8, {"k": 2}), ("dyck_bounded", 8, {}), ("majority", 5, {})])
def test_limit_is_a_prefix(family, n, params):
    b = PromptBuilder(family, n, params, 3)
    small, large = b.instances(20, 7), b.instances(100, 7)
    assert [i.text() for i in small] == [i.text() for i in large[:20]]
    assert [i.target for i in small] == [i.target for i in large[:20]]


def test_no_example_twice_in_a_prompt():
    # majority n=3 has 8 inputs: 4 distinct examples besides the query are always there
    for inst in PromptBuilder("majority", 3, {}, 4, order="random").instances(50, 0):
        assert len(set(inst.examples)) == 4
        assert all(inst.input_text not in ex.split("\n")[0] for ex in inst.examples)


def test_chat_turns_with_a_system_instruction():
    inst = PromptBuilder("parity", 4, {}, 2).instances(1, 0)[0]
    msgs = chat_messages(inst, "Be brief.")
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user",
                                         "assistant", "user"]
    assert msgs[0]["content"] == "Be brief.\n\n" + inst.header + "\n\n"
    assert msgs[1]["content"] + " " + msgs[2]["content"] == inst.examples[0]
    assert msgs[-1]["content"] == inst.query


def test_stderr_is_lm_evals_mean_stderr():
    correct = [True] * 7 + [False] * 3
    recs = [{"target": "1", "parsed": "1", "correct": c} for c in correct]
    m = scoring.metrics(recs, ("0", "1"))
    assert m["acc"] == m["accuracy"] == 0.7
    assert m["acc_stderr"] == pytest.approx(math.sqrt(0.7 * 0.3 / 9))
    assert scoring.metrics(recs[:1], ("0", "1"))["acc_stderr"] is None  # lm-eval: N/A
    try:
        from lm_eval.api.metrics import mean_stderr
    except ImportError:
        return
    assert m["acc_stderr"] == pytest.approx(mean_stderr([float(c) for c in correct]))


def test_acc_norm_divides_by_characters():
    # "b" wins on the summed log-likelihood, "aaaa" per character (-2 > -6, -1 > -3.5)
    recs = [{"target": "aaaa", "parsed": "b", "correct": False,
             "scores": {"aaaa": -8.0, "b": -6.0}},
            {"target": "aaaa", "parsed": "b", "correct": False,
             "scores": {"aaaa": -4.0, "b": -3.5}}]
    m = scoring.metrics(recs, ("aaaa", "b"))
    assert (m["acc"], m["acc_norm"]) == (0.0, 1.0)


@pytest.mark.parametrize("text, first_word, exact", [
    (" 1.", "1", False), ("1", "1", True), (" 1 \n", "1", True), ("1 0", "1", False)])
def test_parsers(text, first_word, exact):
    assert scoring.parse_answer(text, ("0", "1")) == first_word
    assert scoring.exact_match(text, "1") is exact
    assert (scoring.parse_answer(text, ("0", "1"), parser="exact_match") == "1") is exact


def test_eval_takes_lm_eval_flags(cli, tiny_dir, tmp_path, monkeypatch, one_torch_thread):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    rec = tmp_path / "s.jsonl"
    code, out, err = cli("llm", "eval", "majority", "--n", "5", "--model", "hf",
                         "--model_args", f"pretrained={tiny_dir},dtype=float32",
                         "--num_fewshot", "2", "--limit", "6", "--batch_size", "4",
                         "--threads", "1", "--log_samples", rec, "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["results"]
    assert row["count"] == 6 and row["parser"] == "loglik"
    p = row["acc"]
    assert row["acc_stderr"] == pytest.approx(math.sqrt(p * (1 - p) / 5))
    samples = [json.loads(x) for x in rec.read_text().splitlines()]
    assert len(samples) == 6 and samples[0]["prompt"].count("Input:") == 3  # 2 shots + query
    # --limit 3 gives the first 3 of those prompts
    code, out, err = cli("llm", "eval", "majority", "--n", "5", "--model_args",
                         f"pretrained={tiny_dir}", "--k", "2", "--count", "3",
                         "--records", tmp_path / "t.jsonl", "--format", "json")
    assert code == 0, err
    three = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert [s["prompt"] for s in three] == [s["prompt"] for s in samples[:3]]
    code, out, err = cli("llm", "eval", "majority", "--n", "5", "--model_args",
                         f"pretrained={tiny_dir}", "--k", "2", "--count", "3")
    assert code == 0 and "±" in out and "parser loglik" in out, err


@pytest.mark.parametrize("argv, message", [
    (["--model_args", "dtype=float32"], "pretrained=PATH"),
    (["--model_args", "pretrained=/x,colour=red"], "unknown key 'colour'"),
    (["--model_args", "pretrained=/x", "--model", "tiny"], "drop --models and --model"),
    (["--model_args", "pretrained=/x", "--batch_size", "0"], "batch_size"),
    (["--model_args", "pretrained=/x", "--system_instruction", "hi"], "add --chat"),
])
def test_bad_lm_eval_flags(cli, argv, message):
    code, _, err = cli("llm", "eval", "parity", "--n", "4", *argv)
    assert code == 2 and message in err and "Traceback" not in err, err
