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


# ---- issue 31, cause 5: a checkpoint of another task, damaged files ----
def _untrained(tmp_path, task, n, key):
    """A checkpoint of an untrained tiny model of ``task`` saved under run key ``key``."""
    import torch

    from theorybench.experiments.checkpoint import save_checkpoint
    from theorybench.experiments.data import TaskData
    from theorybench.experiments.model import ModelConfig, Transformer

    data = TaskData(task, {}, [n])
    model = Transformer(ModelConfig(vocab_size=len(data.vocab), num_labels=len(data.label_vocab),
                                    layers=1, width=8, heads=1, max_positions=16),
                        torch.Generator().manual_seed(0))
    spec = RunSpec("in_distribution", task, n=n)
    save_checkpoint(tmp_path, key, model, {"spec": spec.to_dict(), "vocab": data.vocab,
                                           "labels": data.label_vocab})


def _record(task, n):
    spec = RunSpec("in_distribution", task, n=n)
    return RunRecord(spec.key, spec.line, spec.to_dict(), "done", {"test_accuracy": 0.5}, None)


def test_a_checkpoint_of_another_task_is_named_not_measured(tmp_path):
    rec = _record("majority", 5)
    _untrained(tmp_path, "parity", 5, rec.key)  # parity's weights under majority's run key
    row = ms.measure_one(rec, tmp_path, samples=32)
    assert "checkpoint refused" in row["skipped"] and "model of parity, not of majority" in \
        row["skipped"]
    (tmp_path / f"{rec.key}.pt").write_bytes(b"\x00" * 50)  # damaged: named, the report goes on
    assert "cannot be read" in ms.measure_one(rec, tmp_path, samples=32)["skipped"]
    assert "Not measured: majority n=5 (checkpoint refused" in ms.table([row]).caption


@pytest.mark.parametrize("cache", ['[1, 2]', '{"settings": null}', '{"result": "x"}'])
def test_an_edited_sensitivity_cache_is_recomputed(tmp_path, cache):
    rec = _record("parity", 4)
    _untrained(tmp_path, "parity", 4, rec.key)
    fresh = ms.measure_one(rec, tmp_path, samples=32)
    path = tmp_path / f"{rec.key}.sensitivity.json"
    settings = json.loads(path.read_text())["settings"]
    text = cache.replace("null", json.dumps(settings))
    path.write_text(text if cache != '{"result": "x"}' else
                    json.dumps({"settings": settings, "result": "x"}))
    assert ms.measure_one(rec, tmp_path, samples=32) == fresh
