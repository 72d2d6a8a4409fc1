"""`theorybench llm`: models, eval (metrics by task and n, records) and export, on the tiny
local model of the fixtures."""

from __future__ import annotations

import json

import pytest




def test_eval_prints_metrics_and_writes_records(cli, models_file, tmp_path):
    rec = tmp_path / "r.jsonl"
    code, out, _ = cli("llm", "eval", "majority,parity", "--n", "5,6", "--models", models_file,
                       "--k", "2", "--count", "6", "--records", rec, "--format", "json")
    assert code == 0, out
    res = json.loads(out)
    rows = {(r["task"], r["n"]) for r in res["results"]}
    assert rows == {("majority", 5), ("parity", 5), ("parity", 6)}  # majority n=6 skipped
    assert all(0 <= r["accuracy"] <= 1 and r["count"] == 6 for r in res["results"])
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert len(lines) == 18 and {"prompt", "target", "correct", "key"} <= set(lines[0])
    # the same seed gives the same records
    rec2 = tmp_path / "r2.jsonl"
    cli("llm", "eval", "majority,parity", "--n", "5,6", "--models", models_file, "--k", "2",
        "--count", "6", "--records", rec2, "--format", "json")
    assert rec2.read_text() == rec.read_text()


@pytest.mark.parametrize("argv, message", [
    (["eval", "parity", "--n", "5", "--model", "nope"], "not in the model file"),
    (["eval", "parity", "--n", "5", "--count", "0"], "--count"),
    (["eval", "majority", "--n", "4"], "no valid"),
])
def test_eval_bad_input(cli, models_file, argv, message):
    code, _, err = cli("llm", *argv, "--models", models_file)
    assert code == 2 and message in err


def test_models_and_export(cli, models_file, tmp_path):
    code, out, _ = cli("llm", "models", "--models", models_file, "--format", "json")
    assert code == 0 and json.loads(out)[0]["name"] == "tiny"
    code, out, _ = cli("llm", "models", "--models", tmp_path / "missing.json")
    assert code == 2
    code, out, _ = cli("llm", "export", "parity", "--n", "6", "--out", tmp_path / "x",
                       "--count", "3")
    assert code == 0 and out.count("wrote") == 2


@pytest.mark.parametrize("path, message", [
    ("/dev/zero", "not a regular file"), (".", "not a regular file"),
    ("x\x00y", "NUL byte"), ("missing.json", "cannot be read"),
])
def test_bad_model_files_are_refused_without_reading(cli, path, message):
    # /dev/zero used to be read until memory ran out
    code, _, err = cli("llm", "models", "--models", path)
    assert code == 2 and message in err
