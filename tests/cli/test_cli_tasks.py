"""Tests of `theorybench tasks`, `theorybench sample` and `theorybench label`.

A few cases run the real command in a subprocess (exit code, stderr, no traceback); the
rest call ``main(argv)`` in-process and read the captured output.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from theorybench import tasks
from theorybench.cli.main import main

SUITE = ("all", "any", "majority", "parity", "index", "index_all", "index_any",
         "index_parity", "khop", "sparse_all", "sparse_any", "sparse_parity", "binary_add",
         "edge_exists", "reach_directed", "reach_undirected", "dyck_bounded", "dyck")


def test_subprocess_even_majority_is_a_clean_error(cli_proc):
    proc = cli_proc("sample", "majority", "--n", "8")
    assert proc.returncode == 2
    assert "n=8 is even" in proc.stderr and "n=7 or n=9" in proc.stderr
    assert proc.stderr.startswith("theorybench: error:")
    assert "Traceback" not in proc.stderr + proc.stdout


def test_subprocess_malformed_label_input_is_a_clean_error(cli_proc):
    proc = cli_proc("label", "index_all", "--n", "4", "0 1 1 1 q2 q2 q3")
    assert proc.returncode == 2
    assert "q2 is repeated" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_subprocess_tasks_lists_every_family(cli_proc):
    proc = cli_proc("tasks")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()[2:] if line.strip()]
    assert names == list(tasks.families())
    for name in SUITE:
        assert name in names


def test_tasks_table_columns(capsys):
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header[:2] == ["task", "kind"]
    khop = next(line for line in out.splitlines() if line.startswith("khop "))
    assert "retrieval" in khop and "k=1" in khop and "alphabet=4" in khop
    assert "induction" in khop
    sparse = next(line for line in out.splitlines() if line.startswith("sparse_all "))
    assert "positions=first k" in sparse and "k<n" in sparse
    majority = next(line for line in out.splitlines() if line.startswith("majority "))
    assert "odd" in majority


def test_subprocess_huge_count_is_a_clean_error(cli_proc):
    proc = cli_proc("sample", "parity", "--n", "4", "--count", "100000000000")
    assert proc.returncode == 2
    assert "sample in batches" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.parametrize("argv,match", [
    (["sample", "majority", "--n", "8"], "n=8 is even"),
    (["sample", "majorty", "--n", "7"], "did you mean majority"),
    (["sample", "parity", "--n", "abc"], "n='abc' is not an integer"),
    (["sample", "parity", "--n", "0"], "n=0 is too small"),
    (["sample", "sparse_all", "--n", "3", "--param", "k=3"], "k=3 is too large for n=3"),
    (["sample", "index_all", "--n", "3", "--param", "k=4"], "k=4 is too large"),
    (["sample", "parity", "--n", "4", "--param", "k=3"], "unknown parameter"),
    (["sample", "parity", "--n", "4", "--param", "k3"], "NAME=VALUE"),
    (["sample", "parity", "--n", "4", "--distribution", "weird"], "distribution 'weird'"),
    (["label", "khop", "--n", "4", "a a b c"], "no immediate repeats"),
    (["label", "khop", "--n", "4", "a b c"], "expects 4 symbols"),
    (["label", "parity", "--n", "3", "0 1 2"], "not in the vocabulary"),
    (["label", "index", "--n", "3", "0 1 q1 q2"], "token 3 is 'q1'"),
    (["sample", "parity", "--n", "4.5"], "n='4.5' is not an integer"),
    (["sample", "parity", "--n", "4", "--param", "n=5"], "give the input length as --n"),
    (["sample", "index_all", "--n", "6", "--param", "k=2", "--param", "k=3"], "given twice"),
    (["sample", "dyck_bounded", "--n", "8", "--param", "D=0"], "D=0 is too small"),
    (["sample", "reach_directed", "--n", "1"], "n=1 is too small"),
    (["sample", "reach_directed", "--n", "4", "--param", "nodes=3"], "nodes=3 is too small"),
    (["sample", "dyck", "--n", "5"], "n=5 is odd"),
    (["sample", "parity", "--n", "4", "--count", "999999999999"], "sample in batches"),
    (["label", "dyck", "--n", "4", "( ( ) ) )"], "expects 4 brackets"),
    (["label", "binary_add", "--n", "2", "1 1 1 1 ="], "expects 6 tokens"),
    (["label", "edge_exists", "--n", "2", "v1-v2 v1-v3 ? v1"], "must be an edge token"),
])
def test_bad_input_exits_2_with_message(capsys, argv, match):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert match in captured.err
    assert captured.err.startswith("theorybench: error:")
    assert "Traceback" not in captured.err


def test_sample_text(capsys):
    assert main(["sample", "index_all", "--n", "6", "--count", "4", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# tasks.get('index_all', n=6")
    task = tasks.get("index_all", n=6)
    assert len(lines) == 5
    for line in lines[1:]:
        text, label = line.split("  ->  ")
        row = task.parse(text)
        assert label == str(int(task.oracle(row[None])[0]))


def test_sample_json_matches_the_api(capsys):
    assert main(["sample", "khop", "--n", "9", "--param", "k=2", "--count", "3",
                 "--seed", "5", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["task"] == {"task": "khop", "n": 9, "k": 2, "alphabet": 4}
    task = tasks.get("khop", n=9, k=2)
    batch = task.sample(np.random.default_rng(5), 3)
    for item, row in zip(data["instances"], batch.tokens):
        assert item["input"] == task.render(row)
        lab = task.oracle(row[None])[0]
        assert item["label"] == " ".join(task.label_vocab[v] for v in lab)


def test_sample_is_deterministic_and_seeded(capsys):
    main(["sample", "sparse_parity", "--n", "12", "--seed", "1", "--count", "6"])
    a = capsys.readouterr().out
    main(["sample", "sparse_parity", "--n", "12", "--seed", "1", "--count", "6"])
    b = capsys.readouterr().out
    main(["sample", "sparse_parity", "--n", "12", "--seed", "2", "--count", "6"])
    c = capsys.readouterr().out
    assert a == b and a != c


@pytest.mark.parametrize("argv,expected", [
    (["label", "majority", "--n", "5", "1 0 1 1 0"], "1"),
    (["label", "parity", "--n", "4", "1 0 1 1"], "1"),
    (["label", "all", "--n", "3", "1 1 0"], "0"),
    (["label", "index", "--n", "4", "0 1 1 0 q2"], "1"),
    (["label", "index_any", "--n", "4", "--param", "k=2", "0 1 1 0 q1 q4"], "0"),
    (["label", "index_parity", "--n", "3", "--param", "k=2", "--param", "mode=mask",
      "1 1 0 1 1 0"], "0"),
    (["label", "sparse_all", "--n", "5", "--param", "k=2", "--param", "positions=2,5",
      "0 1 0 0 1"], "1"),
    (["label", "khop", "--n", "8", "--param", "k=2", "c d c a d a d b"], "_ _ _ _ d c d _"),
    (["label", "khop", "--n", "5", "a b a c a"], "_ _ b _ c"),
])
def test_label(capsys, argv, expected):
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == expected


def test_every_cited_document_is_shipped():
    """Code, help and messages cite only documents users have: every ``*.md`` named anywhere
    in the package (docstrings, comments, strings) is a file of the project."""
    import pathlib
    import re

    import theorybench
    pkg = pathlib.Path(theorybench.__file__).parent
    root = pkg.parent
    missing = []
    for f in pkg.rglob("*.py"):
        for m in re.finditer(r"[\w./-]*\w\.md\b", f.read_text()):
            name = m.group(0)
            if not ((root / name).is_file() or (root / "docs" / name).is_file()):
                missing.append(f"{f.relative_to(root)}: {name}")
    assert missing == []


def test_tasks_coverage_table_text_and_json(capsys):
    assert main(["tasks", "--coverage"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["task", "C-RASP", "B-RASP", "circuit", "circuit", "spec", "MPC",
                                "MPC", "reduction", "BAPO", "construction", "induction", "spec"]
    fams = list(tasks.families())
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines[2:2 + len(fams)]}
    assert list(rows) == fams and set(SUITE) <= set(fams)
    assert rows["majority"] == ["yes", "-", "yes", "yes", "yes", "-", "yes", "yes", "yes"]
    assert rows["reach_directed"] == ["-", "-", "-", "-", "yes", "yes", "yes", "-", "-"]
    assert main(["tasks", "--coverage", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["task"] for r in data] == fams
    by_task = {r["task"]: r["artifacts"] for r in data}
    assert by_task["khop"]["MPC"] == ["builtin"] and by_task["khop"]["C-RASP"] == []
    # sparse tasks: the shipped file (k=3) and the recipe for any hidden set
    assert by_task["sparse_all"]["C-RASP"] == ["builtin", "builtin"]
