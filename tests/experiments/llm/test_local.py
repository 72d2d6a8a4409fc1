"""The llm line on a tiny random GPT-2: prompts, scores against the model's own logits,
padding invariance, greedy generation, stop sequences, the result schema, bad input."""

from __future__ import annotations

import json

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.llm.models import model_from_dict

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")


def _direct(model, ctx, cont):
    """Independent oracle: one unpadded forward pass over context+continuation."""
    ids = model.encode(ctx + cont)
    n_ctx = len(model.encode(ctx))
    with torch.no_grad():
        logits = model.model(torch.tensor([ids])).logits[0].double()
    logp = torch.log_softmax(logits, -1)
    return sum(logp[t - 1, ids[t]].item() for t in range(n_ctx, len(ids)))


REQS = [("Input: 0 1 1\nOutput:", " 1"), ("Input: 0 1 1\nOutput:", " 0"),
        ("Q: ( ) [\nA:", " 0 1 1"), ("a", " b c"), ("The capital of France is", " Paris"),
        ("Input: 1 1 0 0 1 0 1 1 0 1\nOutput:", " 0 0")]


def test_loglik_equals_direct_computation(tiny):
    got = tiny.loglikelihood(REQS)
    for (ctx, cont), (score, _) in zip(REQS, got):
        assert score == pytest.approx(_direct(tiny, ctx, cont), abs=1e-5)


def test_loglik_batching_and_padding_invariance(tiny):
    one = [s for s, _ in tiny.loglikelihood(REQS, batch_size=1)]
    for bs in (2, 4, 16):
        many = [s for s, _ in tiny.loglikelihood(REQS, batch_size=bs)]
        assert many == pytest.approx(one, abs=1e-5)
    # order of requests does not matter either
    rev = [s for s, _ in tiny.loglikelihood(REQS[::-1], batch_size=4)][::-1]
    assert rev == pytest.approx(one, abs=1e-5)


def test_greedy_flag_and_generation_agree_with_argmax(tiny):
    prompt = "Q: ( ) [ ]\nA:"
    ids = tiny.encode(prompt)
    with torch.no_grad():  # five greedy steps by hand
        for _ in range(5):
            ids.append(int(tiny.model(torch.tensor([ids])).logits[0, -1].argmax()))
    assert tiny.tok.eos_token_id not in ids
    oracle = tiny.tok.decode(ids[len(tiny.encode(prompt)):])
    text = tiny.generate([prompt], max_new_tokens=5)[0]
    assert text == oracle
    (_, greedy), = tiny.loglikelihood([(prompt, " " + oracle)])
    assert greedy


def test_generation_deterministic_batched_and_stops(tiny):
    prompts = ["Input: 0 1\nOutput:", "0 1 0", "a b", "Q: ( ) [ ]\nA:"]
    full = tiny.generate(prompts, max_new_tokens=10, batch_size=1)
    assert tiny.generate(prompts, max_new_tokens=10, batch_size=4) == full
    assert tiny.generate(prompts, max_new_tokens=10, batch_size=4) == full
    long = max(full, key=len)
    words = long.split()
    assert len(words) >= 3
    stop = words[2]
    cut = tiny.generate(prompts, max_new_tokens=10, stop=[stop])
    for f, c in zip(full, cut):
        assert c == f[: f.find(stop)] if stop in f else c == f
    assert stop not in "".join(cut)


def test_context_refused_before_running(tiny_dir, monkeypatch):
    from theorybench.experiments.llm.local import ContextTooLong, LocalModel

    m = LocalModel.load(model_from_dict({"name": "short", "backend": "local",
                                         "path": str(tiny_dir), "context": 8}))
    calls = []
    monkeypatch.setattr(m, "model", lambda *a, **k: calls.append(1))
    with pytest.raises(ContextTooLong, match=r"is 10 tokens, longer than the context .* \(8\)"):
        m.loglikelihood([("0 1 0 1 0 1 0 1 0 1", " 0")])
    with pytest.raises(ContextTooLong, match="plus 4 generated"):
        m.generate(["0 1 0 1 0"], max_new_tokens=4)
    assert not calls


def test_bad_model_paths(tmp_path):
    from theorybench.experiments.llm.local import LocalModel

    with pytest.raises(ConfigError, match="not a model directory"):
        LocalModel.load(model_from_dict({"name": "x", "backend": "local",
                                         "path": str(tmp_path / "missing")}))
    with pytest.raises(ConfigError, match="does not exist"):
        LocalModel.load(model_from_dict({"name": "x", "backend": "local",
                                         "gguf": str(tmp_path / "missing.gguf")}))
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + bytes(64))
    with pytest.raises(ConfigError, match="not a GGUF file"):
        LocalModel.load(model_from_dict({"name": "x", "backend": "local", "gguf": str(bad)}))
    trunc = tmp_path / "trunc.gguf"
    trunc.write_bytes(b"GGUF" + bytes(12))
    with pytest.raises(ConfigError, match="cannot read the GGUF file"):
        LocalModel.load(model_from_dict({"name": "x", "backend": "local", "gguf": str(trunc),
                                         "cache": False}))
    with pytest.raises(ConfigError, match="not installed"):
        LocalModel.load(model_from_dict({"name": "x", "backend": "local",
                                         "gguf": "package:no-such-dist-xyz/a.gguf"}))


def test_evaluate_schema_and_resumable_key(tiny):
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm

    spec = LLMSpec(task="majority", n=5, model=tiny.config, k=4, count=6, seed=1)
    out = evaluate_llm(spec, backend=tiny)
    assert out["key"] == LLMSpec.from_dict(out["spec"] | {"model": tiny.config}).key
    assert len(out["records"]) == 6
    for r in out["records"]:
        assert set(r) == {"index", "prompt", "target", "choices", "scores", "answer",
                          "parsed", "correct"}
        assert r["answer"] == max(r["choices"], key=lambda c: r["scores"][c])
        assert r["correct"] == (r["parsed"] == r["target"])
        bits = r["prompt"].rsplit("Input: ", 1)[1].split("\n")[0].split()
        assert r["target"] == str(int(bits.count("1") > 2))
    assert out["metrics"]["accuracy"] == sum(r["correct"] for r in out["records"]) / 6
    gen = evaluate_llm(LLMSpec(task="majority", n=5, model=tiny.config, k=4, count=6,
                               seed=1, scoring="generate"), backend=tiny)
    assert gen["spec"]["scoring"] == "generate" and gen["key"] != out["key"]
    m = gen["metrics"]
    assert m["unparseable"] == sum(r["parsed"] is None for r in gen["records"]) / 6
    json.dumps(out), json.dumps(gen)  # storable as JSON


def test_chat_variant_applies_the_chat_template(tiny, monkeypatch):
    import dataclasses

    from theorybench.experiments.llm.prompts import PromptBuilder

    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm

    cfg = dataclasses.replace(tiny.config, chat=True)
    spec = LLMSpec(task="parity", n=3, model=cfg, k=2, count=3)
    with pytest.raises(ConfigError, match="no chat template"):
        evaluate_llm(spec, backend=tiny)
    monkeypatch.setattr(tiny.tok, "chat_template",
                        "{% for m in messages %}Q: {{ m['content'] }}\n{% endfor %}A:",
                        raising=False)
    out = evaluate_llm(spec, backend=tiny)
    plain = evaluate_llm(dataclasses.replace(spec, model=tiny.config), backend=tiny)
    insts = PromptBuilder("parity", 3, {}, 2).instances(3, 0)
    for r, p, inst in zip(out["records"], plain["records"], insts):
        # multi-turn: the header as the system turn, one user/assistant pair per example
        turns = [inst.header + inst.separator] + [t for q, a in inst.shots for t in (q, a)] \
            + [inst.query]
        assert r["prompt"] == "".join(f"Q: {t}\n" for t in turns) + "A:"
        assert p["prompt"] == inst.text()
        # the assistant turn starts the answer: no answer prefix, no added special tokens
        (s0, _), = tiny.loglikelihood([(r["prompt"], "0")], special=False)
        assert r["scores"]["0"] == pytest.approx(s0, abs=1e-5)
    assert out["key"] != plain["key"]
