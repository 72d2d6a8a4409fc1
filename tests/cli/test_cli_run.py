"""`theorybench run`, `runs` and `export`: end to end on a tiny sweep, and bad input."""

import json

import pytest
import torch

from theorybench.cli.main import main


@pytest.fixture(autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


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
    (["--tasks", "any", "--seeds", "-1"], "seed must be a non-negative integer"),
    (["--tasks", "any", "--device", "tpu"], "unknown device 'tpu'"),
    (["--tasks", "any", "--workers", "2"], "--executor pool"),
    (["--tasks", "any", "--address", "10.0.0.1:6379"], "--executor ray"),
])
def test_more_bad_input(tmp_path, capsys, argv, message):
    assert main(["run", "in-distribution", "--db", str(tmp_path / "x.sqlite")] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
