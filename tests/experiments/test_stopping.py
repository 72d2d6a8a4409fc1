"""The plateau rule and what a run records about why it stopped."""

from __future__ import annotations

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments import in_distribution
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.trainer import TrainingConfig, loss_drop


def test_loss_drop_by_hand():
    assert loss_drop([4.0, 4.0, 2.0, 2.0], 2) == pytest.approx(0.5)
    assert loss_drop([1.0, 1.0, 1.0, 1.0], 2) == 0.0
    assert loss_drop([1.0, 2.0, 3.0], 2) is None


def test_plateau_off_keeps_the_old_spec_keys():
    """Runs stored before the rule existed keep their keys; turning it on makes new runs."""
    off = TrainingConfig(steps=30)
    assert "plateau" not in off.to_dict()
    assert "plateau" in TrainingConfig(steps=30, plateau=10).to_dict()
    a = RunSpec("in_distribution", "parity", n=8, training=off)
    b = RunSpec("in_distribution", "parity", n=8, training=TrainingConfig(steps=30, plateau=10))
    assert a.key != b.key
    with pytest.raises(ConfigError, match="plateau"):
        TrainingConfig(plateau=-1)


def test_plateau_stops_parity_early_and_says_so():
    """Parity at n = 16 sits at chance: the loss is flat, the rule stops the run long
    before its budget and records why; without the rule it runs to the budget."""
    cfg = dict(steps=1500, eval_every=25, eval_count=128, final_eval_count=256, lr=1e-3,
               warmup=10)
    stopped = in_distribution.run(RunSpec("in_distribution", "parity", n=16, training=
                                          TrainingConfig(**cfg, plateau=100, plateau_tol=0.02)),
                                  progress=False)
    assert stopped["stop_reason"] == "plateau" and stopped["steps"] < 1500
    assert stopped["loss_drop"] < 0.02 and not stopped["reached_target"]
    full = in_distribution.run(RunSpec("in_distribution", "parity", n=16, training=
                                       TrainingConfig(**{**cfg, "steps": 60})), progress=False)
    assert full["stop_reason"] == "budget" and full["steps"] == 60


def test_target_stop_is_recorded():
    run = in_distribution.run(RunSpec("in_distribution", "any", n=8, training=TrainingConfig(
        steps=400, eval_every=25, eval_count=128, final_eval_count=256, lr=2e-3, warmup=20)),
        progress=False)
    assert run["stop_reason"] == "target" and run["steps"] < 400


def test_length_generalization_records_why_it_stopped():
    """The length line records its stop like the in-distribution line: parity trained on
    lengths <= 8 stays at chance, and the plateau rule stops it before its budget."""
    from theorybench.experiments import length_generalization

    cfg = TrainingConfig(steps=600, eval_every=25, eval_count=128, final_eval_count=64,
                         lr=1e-3, warmup=10, plateau=50, plateau_tol=0.02)
    run = length_generalization.run(RunSpec("length_generalization", "parity",
                                            train_max_len=8, eval_bins=((1, 8), (9, 12)),
                                            encoding="nope", training=cfg), progress=False)
    assert run["stop_reason"] == "plateau" and run["steps"] < 600
    assert run["loss_drop"] < 0.02 and run["loss_tol"] == 0.02
