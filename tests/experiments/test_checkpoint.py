"""Checkpoints: state_dict + config JSON, loaded with weights_only=True."""

import torch

from theorybench.experiments import in_distribution
from theorybench.experiments.checkpoint import load_checkpoint
from theorybench.experiments.data import TaskData
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.trainer import TrainingConfig

import numpy as np


def test_checkpoint_roundtrip(tmp_path):
    spec = RunSpec("in_distribution", "any", n=8, encoding="t5",
                   training=TrainingConfig(steps=10, eval_every=5, eval_count=32,
                                           final_eval_count=32))
    in_distribution.run(spec, progress=False, checkpoint_dir=str(tmp_path))
    model, meta = load_checkpoint(tmp_path / f"{spec.key}.pt")
    assert meta["spec"] == spec.to_dict() and meta["config"]["encoding"] == "t5"
    data = TaskData("any", {}, [8])
    assert tuple(meta["vocab"]) == data.vocab
    x = data.sample(np.random.default_rng(0), 4).inputs
    with torch.no_grad():
        assert model(x).shape == (4, 8, len(data.label_vocab))
    state = torch.load(tmp_path / f"{spec.key}.pt", weights_only=True)
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())
