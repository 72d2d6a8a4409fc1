"""The task syntax at the command line, and plans that count each run once (issue 31, cause 7)."""

import json

import pytest

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_a_variant_is_checked_at_the_given_n(cli):
    code, out, err = cli("sample", "sparse_parity:k=20", "--n", "30", "--count", "2")
    assert code == 0, err
    assert "k=20" in out and "n=30" in out
    code, _, err = cli("sample", "sparse_parity:k=20", "--n", "10")
    assert code == 2 and "n=10" in err and "traceback" not in err.lower()


def test_the_deprecation_note_recommends_a_spelling_that_works(cli):
    code, _, err = cli("sample", "sparse_parity", "--param", "k=20", "--n", "30", "--count", "1")
    assert code == 0
    advised = err.split("(e.g. ")[1].split(")")[0]
    assert advised == "sparse_parity:k=20"
    code, _, err = cli("sample", advised, "--n", "30", "--count", "1")
    assert code == 0, err


def test_positions_in_a_task_list(cli):
    code, out, err = cli("run", "in-distribution", "--tasks", "sparse_parity:positions=[1,2,4]",
                         "parity", "--seeds", "0", "--dry-run", "--json")
    assert code == 0, err
    grid = json.loads(out)["grid"]
    assert {(r["task"], r["params"].get("positions")) for r in grid} == {
        ("sparse_parity", "1,2,4"), ("parity", None)}


@pytest.mark.parametrize("argv, note", [
    (["--tasks", "parity,parity", "--seeds", "0", "1"], "parity (2 times)"),
    (["--tasks", "parity", "--seeds", "0", "0", "1"], "seeds given more than once"),
    (["--tasks", "parity", "parity", "--seeds", "0", "0", "1"], "run once"),
])
def test_a_dry_run_counts_each_run_once(cli, argv, note):
    code, out, err = cli("run", "in-distribution", *argv, "--dry-run", "--json")
    assert code == 0, err
    data = json.loads(out)
    keys = [r["key"] for r in data["grid"]]
    assert len(keys) == len(set(keys)) == data["runs"]
    assert sorted({r["seed"] for r in data["grid"]}) == [0, 1]
    assert note in err
    code, alone, _ = cli("run", "in-distribution", "--tasks", "parity", "--seeds", "0", "1",
                         "--dry-run", "--json")
    assert json.loads(alone)["runs"] == data["runs"]


def test_the_same_task_spelled_twice_is_one_task(cli):
    code, out, err = cli("run", "llm", "--tasks", "khop", "khop:k=1", "--seeds", "0",
                         "--dry-run", "--json")
    assert code == 0, err
    assert "khop (2 times)" in err
    assert {r["task"] for r in json.loads(out)["grid"]} == {"khop"}
