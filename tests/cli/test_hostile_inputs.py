"""Hostile inputs on the recently added surfaces (issue 43, item 5): odd files where a task
file goes, a task file whose label breaks after the load check, output paths no work may
precede, the llm flags. Each must end with exit 2 and one line naming what was wrong,
never a traceback, a hang or exit 0 (the HTTP backend: tests/experiments/llm/
test_http_hostile.py; the task file's functions: tests/tasks/test_task_file_limits.py)."""

from __future__ import annotations

import pathlib
import re

import pytest

from theorybench.tasks import registry

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks" / "mod3.py"
HEAD = 'NAME = "tiny"\nALPHABET = ("a", "b")\nLENGTHS = (2, 8)\n'


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped():
        yield


def _one_line(code, out, err, message):
    assert code == 2 and "Traceback" not in err, (code, err)
    assert len(err.strip().splitlines()) == 1, err
    assert re.search(message, err), err


ODD_FILES = {
    "empty": (b"", r"empty\.py: the task file has no NAME"),
    "comments only": (b"# a comment\n# another\n", r"the task file has no NAME"),
    "binary garbage": (bytes(range(128, 256)) * 3, r"garbage\.py:1:\d+: the task file does "
                       r"not parse"),
    "NUL bytes": (b"\xff\xfe\x00\x00abc", r"the task file is not Python text \(it holds a "
                  r"NUL byte\)"),
}


@pytest.mark.parametrize("command", ["task check", "byo"])
@pytest.mark.parametrize("case", sorted(ODD_FILES) + ["folder", "/dev/null", "NUL in path"])
def test_odd_files_where_a_task_file_goes(cli_exit, tmp_path, command, case):
    if case in ODD_FILES:
        data, message = ODD_FILES[case]
        path = tmp_path / ("garbage.py" if case == "binary garbage" else "empty.py"
                           if case == "empty" else "t.py")
        path.write_bytes(data)
    elif case == "folder":
        path, message = tmp_path / "adir.py", r"adir\.py is not a regular file"
        path.mkdir()
    elif case == "/dev/null":
        path = "/dev/null"
        message = (r"/dev/null is not a regular file" if command == "task check" else
                   r"'/dev/null' is not a task file: byo takes the path of a \.py")
    else:
        path, message = tmp_path / "a\x00b.py", r"is not a usable path \(embedded null byte\)"
    _one_line(*cli_exit(*command.split(), path), message)


def test_predict_stops_on_a_label_that_breaks_after_the_load_check(cli, tmp_path):
    """Before: the rules that met the error became "rule failed" cells, other columns gave
    verdicts from the small n where the label worked, and predict exited 0."""
    path = tmp_path / "t.py"
    path.write_text(HEAD + "def label(x):\n    if len(x) > 100:\n"
                    "        raise RuntimeError('big batch')\n    return x[:, 0]\n")
    _one_line(*cli("predict", "--task", path, "--theory", "sensitivity,bapo", "--max-n", "6"),
              r"t\.py:6: label raised RuntimeError: big batch on an input of shape")


def test_byo_refuses_an_output_it_cannot_create_before_any_work(cli_exit, monkeypatch):
    import theorybench.cli.byo as byo

    def no_work(*a, **k):
        raise AssertionError("the theories ran before --out was refused")

    monkeypatch.setattr(byo, "_predictions", no_work)
    _one_line(*cli_exit("byo", EXAMPLE, "--out", "/proc/theorybench-nope", "--no-train"),
              r"--out /proc/theorybench-nope cannot be created")
    code, _, err = cli_exit("byo", EXAMPLE, "--out", "x\x00y", "--no-train")
    _one_line(code, _, err, r"--out .* contains a NUL byte; give a folder for the page")


@pytest.mark.parametrize("argv,message", [
    (["run", "llm", "--device", "tpu", "--dry-run"], r"unknown device 'tpu'"),
    (["llm", "eval", "parity", "--n", "4", "--device", "tpu"],
     r"\"device\" must be cpu, cuda, cuda:N, mps or xpu, got 'tpu' \(from --device\)"),
    (["llm", "eval", "parity", "--n", "4", "--timeout", "5"],
     r"--timeout: only for a model served over http"),
])
def test_llm_flags_refused_before_any_model_loads(cli, argv, message):
    _one_line(*cli(*argv), message)


def test_one_file_twice_is_one_row_and_two_files_of_one_name_are_refused(cli, tmp_path):
    import json

    a, b = tmp_path / "a.py", tmp_path / "other" / "b.py"
    b.parent.mkdir()
    a.write_text(HEAD + "def label(x):\n    return x[:, 0]\n")
    b.write_text(HEAD + "def label(x):\n    return x[:, 1]\n")
    code, out, err = cli("predict", "--task", f"{a},{tmp_path}/./a.py", "--theory",
                         "sensitivity", "--max-n", "6", "--format", "json")
    assert code == 0 and [c["task"] for c in json.loads(out)] == ["tiny"], err
    _one_line(*cli("predict", "--task", f"{a},{b}", "--theory", "sensitivity", "--max-n", "6"),
              r"b\.py:1: NAME 'tiny' is already the task of .*a\.py; choose another name")


def test_a_file_that_prints_leaves_json_output_alone(cli, tmp_path):
    import json

    path = tmp_path / "t.py"
    path.write_text(HEAD + "print('loading')\ndef label(x):\n    print('labelling')\n"
                    "    return x[:, 0]\n")
    code, out, err = cli("predict", "--task", path, "--theory", "sensitivity", "--max-n", "6",
                         "--format", "json")
    assert code == 0 and json.loads(out)[0]["task"] == "tiny"  # before: "loading" first
    assert "loading" in err and "labelling" in err
