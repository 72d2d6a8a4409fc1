"""`theorybench run`, `runs` and `export`: end to end on a tiny sweep, and bad input."""

import json

import pytest

from theorybench.cli.main import main


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_run_runs_export(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    assert main(["run", "in-distribution", "--tasks", "any", "--db", db, "--json"]) == 0
    out = capsys.readouterr()
    summary = json.loads(out.out)
    assert summary["total"] == 2 and summary["done"] == 2  # smoke: any at n = 8, 16
    assert "any n=8" in out.err
    assert main(["run", "in-distribution", "--tasks", "any", "--db", db]) == 0
    assert "2 already done, 0 ran" in capsys.readouterr().out
    assert main(["runs", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "done" in out and "2" in out
    assert main(["export", "--db", db, "--format", "json"]) == 0
    recs = json.loads(capsys.readouterr().out)
    assert {r["spec"]["n"] for r in recs} == {8, 16}
    assert all(r["metrics"]["test_accuracy"] > 0.9 for r in recs)
    assert main(["export", "--db", db, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("key,line,status")


@pytest.mark.parametrize("argv, message", [
    (["run", "in-distribution", "--profile", "huge"], "known profiles"),
    (["run", "in-distribution", "--tasks", "parityy"], "known tasks"),
    (["run", "in-distribution", "--executor", "slurm"], "executors"),
    (["run", "length-generalization", "--tasks", "khop:k=zz"], "khop"),
])
def test_bad_input_exits_2_with_message(tmp_path, capsys, argv, message):
    assert main(argv + ["--db", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_foreign_store_refused(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("not a store")
    assert main(["runs", "--db", str(f)]) == 2
    assert "not a theorybench results store" in capsys.readouterr().err
    assert f.read_text() == "not a store"
    assert main(["runs", "--db", str(tmp_path / "missing.sqlite")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_dry_run_lists_the_grid(tmp_path, capsys):
    assert main(["run", "length-generalization", "--profile", "paper", "--tasks", "parity",
                 "--seeds", "0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "27 runs" in out and "parity" in out


def test_ray_missing_exits_2_with_install_hint(tmp_path, capsys, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_ray(name, *a, **k):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_ray)
    db = tmp_path / "r.sqlite"
    assert main(["run", "in-distribution", "--tasks", "any", "--executor", "ray",
                 "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "pip install 'theorybench[ray]'" in err and "Traceback" not in err
    assert not db.exists()


@pytest.mark.parametrize("argv, message", [
    (["--tasks", "parity:n=3"], "n is not a task parameter"),
    (["--tasks", "any", "--threads", "0"], "--threads must be >= 1"),
    (["--tasks", "any", "--workers", "0"], "--workers must be >= 1"),
    (["--tasks", "any", "--device", "tpu"], "unknown device 'tpu'"),
    (["--tasks", "any", "--workers", "2"], "--executor pool"),
    (["--tasks", "any", "--address", "10.0.0.1:6379"], "--executor ray"),
])
def test_more_bad_input(tmp_path, capsys, argv, message):
    assert main(["run", "in-distribution", "--db", str(tmp_path / "x.sqlite")] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["--executor", "slurm"], "unknown executor 'slurm'"),
    (["--threads", "0"], "--threads must be >= 1"),
    (["--device", "tpu"], "unknown device 'tpu'"),
])
def test_dry_run_checks_the_options_of_a_real_run(tmp_path, capsys, argv, message):
    assert main(["run", "in-distribution", "--tasks", "any", "--dry-run"] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_dry_run_json_and_seed_column(capsys):
    assert main(["run", "in-distribution", "--tasks", "parity", "--seeds", "0", "3",
                 "--dry-run"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header[-1] == "seed"
    assert main(["run", "in-distribution", "--tasks", "parity", "--seeds", "0", "3",
                 "--dry-run", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["runs"] == len(data["grid"])
    assert sorted({r["seed"] for r in data["grid"]}) == [0, 3]
    assert {r["task"] for r in data["grid"]} == {"parity"}


def test_unwritable_output_and_checkpoints_exit_2(tmp_path, capsys):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")  # a path under a regular file cannot be created
    db = str(tmp_path / "r.sqlite")
    assert main(["run", "in-distribution", "--tasks", "any", "--db", db,
                 "--checkpoints", str(blocker / "ck")]) == 2
    err = capsys.readouterr().err
    assert "--checkpoints" in err and "cannot be created" in err and "Traceback" not in err
    assert not (tmp_path / "r.sqlite").exists()  # refused before any work
    assert main(["run", "in-distribution", "--tasks", "any", "--dry-run",
                 "--checkpoints", str(blocker / "ck")]) == 2
    assert "--checkpoints" in capsys.readouterr().err
    from theorybench.experiments.store import ResultsStore
    ResultsStore(db).close()
    assert main(["export", "--db", db, "--output", str(blocker / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "--output" in err and "cannot be written" in err and "Traceback" not in err


def test_dry_run_creates_no_checkpoint_directory(tmp_path, capsys):
    ck = tmp_path / "a" / "b"
    assert main(["run", "in-distribution", "--tasks", "any", "--dry-run",
                 "--checkpoints", str(ck)]) == 0
    assert not (tmp_path / "a").exists()


def test_save_checkpoint_unwritable_is_config_error(tmp_path):
    from theorybench.errors import ConfigError
    from theorybench.experiments.checkpoint import save_checkpoint
    from theorybench.experiments.model import ModelConfig, Transformer
    blocker = tmp_path / "f"
    blocker.write_text("x")
    model = Transformer(ModelConfig(vocab_size=3, num_labels=2, layers=1, width=8))
    with pytest.raises(ConfigError, match="cannot be written"):
        save_checkpoint(blocker / "ck", "k", model)
