"""The llm column of the matrix: chance-aware verdicts per model and pooled, the agreement
table, the accuracy-versus-n plot, and verify's llm step."""

from __future__ import annotations

import json

import pytest

from theorybench.experiments.store import RunRecord
from theorybench.matrix.empirical import EASY, HARD, INSUFFICIENT, Thresholds, empirical_cells
from theorybench.matrix.llm_line import llm_cells


def _rec(task, n, correct, count, chance=0.5, model="a", seed=0, status="done"):
    spec = {"line": "llm", "task": task, "params": {}, "n": n, "seed": seed, "k": 8,
            "template": "plain", "order": "balanced", "scoring": "loglik", "count": count,
            "prompts_digest": "d", "model": {"name": model, "backend": "local"}}
    metrics = {"count": count, "correct": correct, "accuracy": correct / count,
               "chance": chance, "uniform_chance": 0.5, "unparseable": 0.0}
    return RunRecord(f"{task}{n}{model}{seed}", "llm", spec, status, metrics, None)


def test_verdicts_are_chance_aware():
    recs = [_rec("majority", 5, 30, 32), _rec("majority", 9, 28, 32),   # above chance
            _rec("parity", 4, 30, 32), _rec("parity", 8, 17, 32),       # at chance at 8
            _rec("index", 4, 3, 3),                                     # 3 prompts: no power
            _rec("any", 8, 23, 32, chance=0.72)]                        # 0.72 = chance
    cells = llm_cells(recs)["llm"]
    assert cells["majority"].verdict == EASY
    assert cells["parity"].verdict == HARD and "n = [8]" in cells["parity"].note
    assert cells["index"].verdict == INSUFFICIENT and "too few prompts" in cells["index"].note
    assert cells["any"].verdict == HARD  # 23/32 beats 1/2 but not the sample's 0.72
    s = cells["majority"].llm_by_n[5]
    assert s["above_chance"] and s["p_value"] < 1e-6 and s["wilson_lower"] > 0.7
    # the threshold: 22/32 is significant against 1/2 at 0.05, 21/32 is not
    assert llm_cells([_rec("all", 8, 22, 32)])["llm"]["all"].verdict == EASY
    assert llm_cells([_rec("all", 8, 21, 32)])["llm"]["all"].verdict == HARD
    strict = Thresholds(llm_alpha=0.01)
    assert llm_cells([_rec("all", 8, 22, 32)], strict)["llm"]["all"].verdict == HARD


def test_per_model_columns_and_pooling():
    recs = [_rec("majority", 5, 30, 32, model="a"), _rec("majority", 5, 14, 32, model="b"),
            _rec("majority", 5, 20, 32, model="b", seed=1),
            _rec("majority", 7, 1, 1, model="b", status="failed")]
    emp = llm_cells(recs)
    assert set(emp) == {"llm", "llm:a", "llm:b"}
    assert emp["llm:a"]["majority"].verdict == EASY
    assert emp["llm:b"]["majority"].verdict == HARD  # 34/64: seeds pooled
    pooled = emp["llm"]["majority"].llm_by_n[5]
    assert (pooled["correct"], pooled["count"], pooled["runs"]) == (64, 96, 3)
    assert sorted(emp["llm"]["majority"].llm_models) == ["a", "b"]
    assert 7 not in emp["llm"]["majority"].llm_by_n  # failed runs do not count
    # a single model: one pooled column only
    assert set(llm_cells(recs[:1])) == {"llm"}


def test_report_has_the_llm_column_agreement_and_plot(tmp_path):
    from theorybench.matrix.report import build_report, write_report

    recs = [_rec("majority", 5, 30, 32), _rec("parity", 4, 16, 32)]
    preds = [{"theory": "t", "task": "majority", "verdict": "easy", "basis": "construction",
              "status": "proven"},
             {"theory": "t", "task": "parity", "verdict": "easy", "basis": "construction",
              "status": "proven"}]
    rep = build_report(preds, recs)
    assert rep.tables["empirical"].header == ["task", "llm"]
    row = dict((r[0], r[1]) for r in rep.tables["empirical"].rows)
    # 30/32 right: lm-eval's stderr sqrt(p (1 - p) / 31) = 0.043 beside the accuracy
    assert row["majority"].startswith("E [5:0.94±0.04/0.50*") and row["parity"].startswith("H")
    assert r"0.94$\pm$0.04" in rep.tables["empirical"].latex()
    (arow,) = [r for r in rep.rows if r.line == "llm"]
    assert (arow.compared, arow.agree) == (2, 1)
    assert "not above chance" in arow.disagreements[0].cause
    assert "alpha 0.05" in rep.tables["empirical"].caption
    files = write_report(tmp_path / "rep", rep)
    assert files["llm_accuracy_vs_n.png"].stat().st_size > 1000
    assert "llm_accuracy_vs_n" in files["index.html"].read_text()
    summary = json.loads(files["summary.json"].read_text())
    assert summary["empirical"]["llm"]["majority"]["llm_by_n"]["5"]["correct"] == 30


def test_empirical_cells_routes_llm_records():
    recs = [_rec("majority", 5, 30, 32)]
    assert set(empirical_cells(recs)) == {"llm"}


def test_llm_available_says_how_to_install(tmp_path):
    from theorybench.matrix.verify import LLM_INSTALL, llm_available

    f = tmp_path / "m.json"
    f.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "x", "backend": "local", "gguf": "package:no-such-dist-xyz/a.gguf"}]}))
    ok, why = llm_available(f)
    assert not ok and "not installed" in why and LLM_INSTALL in why
    f.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "x", "backend": "local", "path": str(tmp_path / "gone")}]}))
    ok, why = llm_available(f)
    assert not ok and "does not exist" in why


def test_verify_runs_the_llm_line_when_a_model_is_available(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    from dataclasses import replace

    from theorybench.experiments import profiles
    from theorybench.experiments.store import ResultsStore
    from theorybench.experiments.trainer import TrainingConfig
    from theorybench.matrix.verify import verify
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "experiments"
                           / "llm"))
    from conftest import build_tiny  # the llm tests' tiny GPT-2

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model_dir = build_tiny(tmp_path / "tiny")
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "tiny", "backend": "local", "path": str(model_dir), "context": 512}]}))
    training = TrainingConfig(steps=10, batch_size=8, lr=3e-3, warmup=1, eval_every=5,
                              eval_count=16, target=0.99, final_eval_count=16)
    p = replace(profiles.PROFILES["smoke"], name="vtiny", in_tasks=("any",), lg_tasks=("any",),
                ns={"any": (4,)}, in_training=training, lg_training=training,
                lg_encodings=("nope",), train_max_len=8, eval_bins=((1, 8),),
                llm_tasks=("majority",), llm_ns={"majority": (5,)}, llm_k=2, llm_count=4)
    monkeypatch.setitem(profiles.PROFILES, "vtiny", p)
    logs = []
    verify(profile="vtiny", out=tmp_path / "o", db=tmp_path / "db.sqlite", max_n=4,
           progress=False, log=logs.append, theories=["ac0"], tasks=["any"],
           llm_models=models)
    assert any(line.startswith("[4/4] llm") for line in logs)
    recs = ResultsStore(tmp_path / "db.sqlite", readonly=True).records()
    assert {r.line for r in recs} == {"in_distribution", "length_generalization", "llm"}
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert "majority" in summary["empirical"]["llm"]
