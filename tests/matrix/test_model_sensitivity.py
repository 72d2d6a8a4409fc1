"""Trained models' average sensitivity (matrix.model_sensitivity): the estimator applied to
checkpoints, checked against the task's own value where the model computes the task."""

from __future__ import annotations

import json

import numpy as np
import pytest

from theorybench import tasks
from theorybench.experiments import in_distribution
from theorybench.experiments.checkpoint import load_checkpoint
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import RunRecord
from theorybench.experiments.trainer import TrainingConfig
from theorybench.matrix import model_sensitivity as ms
from theorybench.matrix.report import build_report, write_report

CFG = TrainingConfig(steps=400, batch_size=64, lr=2e-3, warmup=20, eval_every=50,
                     eval_count=256, target=1.0, final_eval_count=512)


def _trained(tmp_path, task="majority", n=5, steps=400, params=()):
    spec = RunSpec("in_distribution", task, params, n=n, size="small", encoding="rope",
                   training=TrainingConfig(**{**CFG.to_dict(), "steps": steps}))
    metrics = in_distribution.run(spec, checkpoint_dir=str(tmp_path))
    return RunRecord(spec.key, spec.line, spec.to_dict(), "done", metrics, None)


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    d = tmp_path_factory.mktemp("ckpt")
    return d, _trained(d)


def test_predictor_reads_the_model_answer_at_the_last_position(learned):
    d, rec = learned
    model, meta = load_checkpoint(d / f"{rec.key}.pt")
    task = tasks.get("majority", n=5)
    x = task.decision_view()[0].enumerate()
    pred = ms._predictor(model, meta, task)(x)
    index = {t: i for i, t in enumerate(meta["vocab"])}
    import torch
    logits = model(torch.tensor([[index[task.vocab[t]] for t in row] for row in x]))
    direct = [task.label_vocab.index(meta["labels"][i]) for i in logits[:, -1].argmax(-1).tolist()]
    assert pred.tolist() == direct


def test_a_model_that_computes_the_task_has_the_task_sensitivity(learned):
    d, rec = learned
    row = ms.measure_one(rec, d)
    assert rec.metrics["test_accuracy"] == 1.0
    assert row["agreement"] == 1.0            # right on all 32 inputs of the space
    # the same function: the Monte-Carlo estimate of the model covers the task's exact value
    assert row["task_exact"] and row["task_sensitivity"] == pytest.approx(15 / 8)
    lo, hi = row["model_ci"]
    assert lo <= row["task_sensitivity"] <= hi


def test_an_untrained_model_differs_and_results_are_cached(tmp_path, monkeypatch):
    rec = _trained(tmp_path, task="parity", n=6, steps=1)
    row = ms.measure_one(rec, tmp_path)
    assert row["agreement"] < 0.9
    assert row["model_sensitivity"] < row["task_sensitivity"] == 6.0
    assert (tmp_path / f"{rec.key}.sensitivity.json").is_file()

    def boom(*a, **k):
        raise AssertionError("the cache was not used")
    monkeypatch.setattr("theorybench.experiments.checkpoint.load_checkpoint", boom)
    assert ms.measure_one(rec, tmp_path) == row
    (tmp_path / f"{rec.key}.sensitivity.json").write_text("{damaged")
    monkeypatch.undo()
    assert ms.measure_one(rec, tmp_path)["model_sensitivity"] == row["model_sensitivity"]


def test_sequence_answers_are_skipped_and_missing_checkpoints_ignored(tmp_path):
    rec = _trained(tmp_path, task="binary_add", n=3, steps=1)
    assert "token sequence" in ms.measure_one(rec, tmp_path)["skipped"]
    other = RunRecord("0" * 16, "in_distribution", rec.spec, "done", rec.metrics, None)
    assert ms.measure_one(other, tmp_path) is None


def test_report_table_plot_and_summary(learned, tmp_path):
    d, rec = learned
    rows = ms.measure([rec], d)
    assert len(rows) == 1
    rep = build_report([], [rec], constructions=False, model_sensitivity=rows)
    t = rep.tables["model_sensitivity"]
    assert t.rows[0][:4] == ["majority", "5", "small/rope", "1"]
    assert t.rows[0][7] == "1.88"
    files = write_report(tmp_path / "r", rep)
    assert files["model_sensitivity.png"].stat().st_size > 1000
    assert "Average sensitivity of trained models" in files["index.html"].read_text()
    assert json.loads(files["summary.json"].read_text())["model_sensitivity"][0]["key"] == rec.key
    assert np.isfinite(rows[0]["model_sensitivity"])


def test_sparse_domains_fall_back_to_the_task_sampler(tmp_path):
    # k-hop at n = 32: too few uniform inputs are valid for rejection sampling
    rec = _trained(tmp_path, task="khop", n=32, steps=1, params=(("k", 1),))
    row = ms.measure_one(rec, tmp_path, samples=40)
    assert row["distribution"] == "task" and 0 <= row["agreement"] <= 1
    assert np.isfinite(row["model_sensitivity"]) and row["task_sensitivity"] > 0
    t = ms.table([row])
    assert "(task dist.)" in t.rows[0][7]
