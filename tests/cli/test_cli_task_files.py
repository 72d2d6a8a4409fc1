"""Task files on the command line: `theorybench task check FILE`, and a path where a
command takes a task (predict, explain, sensitivity, sample, run with a process pool)."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import textwrap

import pytest

from theorybench.tasks import registry

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks"
HEAD = 'NAME = "tiny"\nALPHABET = ("a", "b")\nLENGTHS = (2, 8)\n'


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped():
        yield


def write(tmp_path, text: str, name: str = "t.py") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.mark.parametrize("name", ["mod3", "contains_ab", "first_eq_last", "prefix_parity"])
def test_task_check_examples(cli, name):
    path = EXAMPLES / f"{name}.py"
    code, out, err = cli("task", "check", path, "--count", "100")
    assert code == 0, err
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    assert out.splitlines()[-1] == f"OK: {name} digest sha256:{digest}"
    assert "ok: label on 10,000 inputs" in out
    if name != "first_eq_last":  # the others have an oracle (given, or re / the DFA dict)
        assert "ok: oracle agrees" in out


@pytest.mark.parametrize("text,message", [
    (HEAD + "def label(x):\n    return x.sum(axis=1)\n", r"t\.py:4: label\(x\) returned values"),
    (HEAD.replace('"tiny"', '"majority"') + "def label(x):\n    return x[:, 0]\n",
     r"t\.py:1: NAME 'majority' is a built-in task family"),
    (HEAD + "def label(x):\n    return x[:, 0]\ndef oracle(x):\n    return 1 - x[:, 0]\n",
     r"t\.py:6: label and oracle disagree at n=2"),
])
def test_task_check_bad_file_is_one_line_without_traceback(cli, tmp_path, text, message):
    code, out, err = cli("task", "check", write(tmp_path, text))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("theorybench: error: ") and re.search(message, err), err


def test_task_check_reports_a_slow_label(cli, tmp_path):
    slow = HEAD + textwrap.dedent("""
        import time
        import numpy as np
        def label(x):
            out = []
            for row in x:          # one Python call per row: not vectorized
                time.sleep(0.00012)
                out.append(row[0])
            return np.array(out)
        """)
    code, out, _ = cli("task", "check", write(tmp_path, slow), "--count", "10")
    assert code == 0
    assert re.search(r"warning: label took \d+\.\d s on 10,000 inputs at n=8 .*vectorize", out)
    assert out.splitlines()[-1].startswith("OK with warnings: tiny")


def test_predict_and_explain_take_a_task_file(cli):
    code, out, err = cli("predict", "--task", EXAMPLES / "first_eq_last.py", "--format", "json",
                         "--max-n", "8")
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) >= 7 and {c["task"] for c in rows} == {"first_eq_last"}
    # every column decides it now; C-RASP by the catalogue (Sigma* b maps into it)
    crasp = next(c for c in rows if c["theory"] == "crasp")
    assert (crasp["verdict"], crasp["rule"]) == ("hard", "reduction from the language catalogue")
    assert all(c["verdict"] != "unknown" or c["explanation"] for c in rows)
    code, out, err = cli("explain", "crasp", EXAMPLES / "mod3.py", "--max-n", "8")
    assert code == 0, err
    assert "mod3" in out


def test_sensitivity_and_sample_take_a_task_file_with_parameters(cli):
    code, out, err = cli("sensitivity", f"{EXAMPLES / 'mod3.py'}:k=5", "--n", "4..8")
    assert code == 0, err
    assert "mod3" in out
    code, out, err = cli("sample", f"{EXAMPLES / 'mod3.py'}:k=5", "--n", "6", "--count", "4",
                         "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["task"] == {"task": "mod3", "n": 6, "k": 5}
    for inst in got["instances"]:
        assert int(inst["label"]) == int(inst["input"].split().count("a") % 5 == 0)


def test_a_missing_task_file_is_a_clear_error(cli, tmp_path):
    code, _, err = cli("sensitivity", tmp_path / "nope.py", "--n", "4..6")
    assert code == 2 and "does not exist" in err and "Traceback" not in err


@pytest.mark.usefixtures("one_torch_thread")
def test_editing_a_task_file_trains_its_run_again(cli, tmp_path):
    task = tmp_path / "mod3.py"
    task.write_text((EXAMPLES / "mod3.py").read_text())
    db = str(tmp_path / "r.sqlite")
    run = ["run", "in-distribution", "--tasks", task, "--db", db, "--seeds", "0",
           "--executor", "inprocess"]
    assert cli(*run)[0] == 0
    code, out, _ = cli(*run)
    assert code == 0 and "1 already done, 0 ran" in out
    task.write_text(task.read_text() + "# edited: the definition changed\n")
    code, out, err = cli(*run)
    assert code == 0, err
    assert "0 already done, 1 ran" in out
    code, out, _ = cli("export", "--db", db, "--format", "json")
    digests = {r["spec"]["definition"] for r in json.loads(out)}
    assert len(digests) == 2 and hashlib.sha256(task.read_bytes()).hexdigest() in digests


@pytest.mark.slow
@pytest.mark.usefixtures("one_torch_thread")
def test_pool_workers_load_the_task_file_and_train_each_run_once(cli, tmp_path):
    db = str(tmp_path / "r.sqlite")
    run = ["run", "in-distribution", "--tasks", EXAMPLES / "mod3.py", "--db", db,
           "--seeds", "0", "1"]
    code, out, err = cli(*run, "--executor", "pool", "--workers", "2")
    assert code == 0, err
    assert "2 ran (2 done, 0 failed)" in out   # the spawned workers loaded the file
    code, out, _ = cli(*run, "--executor", "pool", "--workers", "2")
    assert code == 0 and "2 already done, 0 ran" in out


@pytest.mark.parametrize("target", ["/dev/zero", "{dir}", "{dir}/big.py"])
def test_task_check_refuses_what_is_not_a_task_file(cli, tmp_path, target):
    (tmp_path / "big.py").write_text("#" * (2 << 20))
    code, out, err = cli("task", "check", target.replace("{dir}", str(tmp_path)))
    assert code == 2 and out == "" and "Traceback" not in err
    assert re.search("not a regular file|not a task file", err), err


def test_a_path_with_a_null_byte_is_a_clear_error(cli):
    code, out, err = cli("task", "check", "a\x00b.py")
    assert code == 2 and "not a usable path" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.usefixtures("one_torch_thread")
def test_ray_workers_load_the_task_file(cli, tmp_path):
    pytest.importorskip("ray")
    db = str(tmp_path / "r.sqlite")
    code, out, err = cli("run", "in-distribution", "--tasks", f"{EXAMPLES / 'mod3.py'}:k=2",
                         "--db", db, "--seeds", "0", "--executor", "ray", "--workers", "1")
    assert code == 0, err
    assert "1 ran (1 done, 0 failed)" in out
