"""`theorybench report --sharpness`: bad files exit 2 before any work."""

from __future__ import annotations


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
