"""The report's sharpness-versus-n figure from `theorybench sharpness --format json` files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from theorybench.errors import ConfigError
from theorybench.matrix.report import build_report, load_sharpness, write_report

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_sharpness_results_are_plotted_in_the_report(tmp_path):
    res = load_sharpness([DOCS / "sharpness-init.json", DOCS / "sharpness-trained.json"])
    assert {r["state"] for r in res} == {"init", "trained"}
    assert {"parity", "majority", "sparse_parity"} <= {r["task"] for r in res}
    files = write_report(tmp_path, build_report([], [], constructions=False, sharpness=res))
    assert files["sharpness_vs_n.png"].stat().st_size > 1000
    page = files["index.html"].read_text()
    assert "Loss-landscape sharpness by n" in page and 'alt="sharpness_vs_n"' in page
    assert len(json.loads(files["summary.json"].read_text())["sharpness"]) == len(res)
    plain = write_report(tmp_path / "plain", build_report([], [], constructions=False))
    assert "sharpness_vs_n.png" not in plain


def test_bad_sharpness_files_are_refused_with_the_reason(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_sharpness([tmp_path / "missing.json"])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not JSON"):
        load_sharpness([bad])
    bad.write_text(json.dumps({"results": [{"task": "parity", "n": 5}]}))
    with pytest.raises(ConfigError, match="not the output of `theorybench sharpness"):
        load_sharpness([bad])
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not JSON"):
        load_sharpness([bad])



GOOD = {"task": "parity", "params": {}, "n": 5, "state": "init", "loss": 0.7, "accuracy": 0.5,
        "lambda_max": 2.0, "avg_sharpness": 1.0, "avg_sharpness_se": 0.1}


@pytest.mark.parametrize("field, value, message", [
    ("n", "5", "n '5' is not a positive integer"),
    ("n", 0, "n 0 is not a positive integer"),
    ("state", "Trained", "state 'Trained' is not one of init, trained"),
    ("lambda_max", None, "lambda_max None is not a number"),
    ("avg_sharpness_se", -1, "avg_sharpness_se -1 is negative"),  # an error bar: matplotlib
    ("avg_sharpness_se", 1e308, "avg_sharpness_se 1e+308 is too large to plot"),  # so is an axis past 1e308
    ("params", [], "params [] is not an object"),
    ("accuracy", "high", "accuracy 'high' is not a number"),
])
def test_edited_sharpness_results_are_refused_naming_file_result_and_field(tmp_path, field,
                                                                           value, message):
    """Issue 31 (cause 5): each was accepted and then a traceback in the figure."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"results": [GOOD, dict(GOOD, **{field: value})]}))
    with pytest.raises(ConfigError) as err:
        load_sharpness([path])
    assert f"--sharpness {path}: result 1: {message}" in str(err.value)
    path.write_text(json.dumps({"results": [GOOD, dict(GOOD, avg_sharpness_se=float("nan"))]}))
    assert len(load_sharpness([path])) == 2  # NaN: no spread measured, still plotted
