"""`theorybench report --sharpness`: bad files exit 2 before any work."""

from __future__ import annotations

import json

import pytest


def test_cli_report_refuses_a_bad_sharpness_file_before_any_work(cli_exit, tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text("[]")
    code, out, err = cli_exit("report", "--db", str(tmp_path / "db.sqlite"), "--out",
                               str(tmp_path / "rep"), "--sharpness", str(bad))
    assert code == 2 and "not the output of `theorybench sharpness" in err
    assert not (tmp_path / "rep").exists()


def test_cli_verify_refuses_a_bad_sharpness_file_before_any_work(cli_exit, tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text("{}")
    code, out, err = cli_exit("verify", "--no-llm", "--db", str(tmp_path / "db.sqlite"),
                               "--out", str(tmp_path / "rep"), "--sharpness", str(bad))
    assert code == 2 and "theorybench sharpness" in err
    assert not (tmp_path / "rep").exists() and not (tmp_path / "db.sqlite").exists()


# slow (about 11 s: trains and reports checkpoints end to end)
@pytest.mark.slow
def test_cli_report_checkpoints(cli_exit, tmp_path):
    from theorybench.experiments.spec import RunSpec
    from theorybench.experiments.sweep import run_sweep
    from theorybench.experiments.trainer import TrainingConfig

    code, out, err = cli_exit("report", "--db", str(tmp_path / "db.sqlite"), "--out",
                               str(tmp_path / "rep"), "--checkpoints", str(tmp_path / "none"),
                               "--predictions", str(tmp_path / "p.json"))
    assert code == 2 and "--checkpoints" in err and "not a folder" in err
    spec = RunSpec("in_distribution", "majority", n=5, encoding="rope",
                   training=TrainingConfig(steps=300, lr=2e-3, warmup=20, eval_every=50,
                                           eval_count=256, final_eval_count=256))
    db, ckpt = tmp_path / "db.sqlite", tmp_path / "ckpt"
    run_sweep("in_distribution", specs=[spec], db=str(db), checkpoint_dir=str(ckpt),
              progress=False)
    (tmp_path / "p.json").write_text("[]")
    code, out, err = cli_exit("report", "--db", str(db), "--out", str(tmp_path / "rep"),
                               "--checkpoints", str(ckpt), "--predictions",
                               str(tmp_path / "p.json"))
    assert code == 0, err
    table = (tmp_path / "rep" / "model_sensitivity.md").read_text()
    assert "| majority | 5 | small/rope | 1 |" in table
    code, out, err = cli_exit("report", "--db", str(db), "--out", str(tmp_path / "rep2"),
                               "--predictions", str(tmp_path / "p.json"))
    summary = (tmp_path / "rep2" / "summary.json").read_text()
    assert code == 0 and "no checkpoints given" in summary


def test_cli_report_refuses_edited_predictions_before_any_work(cli_exit, tmp_path):
    """Issue 31 (cause 5): a verdict 'maybe' or 'Easy' or a status 'bogus' was a traceback
    (ValueError from the enum) after the predictions were read."""
    entry = {"theory": "sensitivity", "task": "parity", "verdict": "hard",
             "basis": "lower-bound", "status": "cited", "evidence": {}}
    for field, value, message in (("verdict", "maybe", "verdict 'maybe'"),
                                  ("verdict", "Easy", "write 'easy'"),
                                  ("status", "bogus", "status 'bogus'")):
        p = tmp_path / f"{value}.json"
        p.write_text(json.dumps([dict(entry, **{field: value})]))
        code, out, err = cli_exit("report", "--db", str(tmp_path / "db.sqlite"), "--out",
                                   str(tmp_path / "rep"), "--predictions", str(p))
        assert code == 2 and message in err and str(p) in err and "Traceback" not in err
        assert not (tmp_path / "rep").exists()


def test_cli_report_refuses_a_sharpness_result_of_the_wrong_type(cli_exit, tmp_path):
    bad = tmp_path / "s.json"
    result = {"task": "parity", "n": "five", "state": "init", "lambda_max": 1.0,
              "avg_sharpness": 1.0, "avg_sharpness_se": 0.1}
    bad.write_text(json.dumps({"results": [result]}))
    code, out, err = cli_exit("report", "--db", str(tmp_path / "db.sqlite"), "--out",
                               str(tmp_path / "rep"), "--sharpness", str(bad))
    assert code == 2 and "result 0: n 'five' is not a positive integer" in err
    assert not (tmp_path / "rep").exists()
