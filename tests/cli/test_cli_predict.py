"""`theorybench predict`, `explain` and `sensitivity` end to end through main()."""

import csv
import io
import json
from math import comb

import pytest

from theorybench.cli.main import main


def test_predict_subset_markdown(cli, capsys):
    code, out, err = cli("predict", "--theory", "sensitivity", "--task", "parity,majority")
    assert code == 0
    assert "| task | sensitivity |" in out
    assert "| parity | Hard (lb, conditional) |" in out
    assert "| majority | Easy (thm, verified ≤ 11 (exhaustive)) |" in out
    assert "Cells:" in out and "predict" not in err  # no progress bar off a terminal


def test_predict_csv_and_json(cli, capsys):
    code, out, _ = cli("predict", "--theory", "sensitivity", "--task", "all,sparse_parity", "--format", "csv", "--max-n", "10")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["task", "sensitivity"] and rows[1][0] == "all"
    code, out, _ = cli("predict", "--theory", "sensitivity", "--task", "parity", "--format", "json", "--seed", "1")
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == 1
    d = data[0]
    assert {"theory", "task", "verdict", "basis", "status", "evidence"} <= set(d)
    assert (d["theory"], d["task"], d["verdict"], d["basis"], d["status"]) == \
        ("sensitivity", "parity", "hard", "lower-bound", "conditional")
    assert d["evidence"]["values"][-1]["average_sensitivity"] == d["evidence"]["values"][-1]["n"]


@pytest.mark.parametrize("argv,needle", [
    (["predict", "--theory", "sensitivty"], "unknown theory 'sensitivty'; known theories:"),
    (["predict", "--task", "parrity"], "unknown task 'parrity'"),
    (["explain", "nope", "parity"], "unknown theory 'nope'"),
    (["explain", "sensitivity", "nope"], "known tasks:"),
    (["sensitivity", "nope"], "unknown task 'nope'"),
    (["sensitivity", "majority", "--n", "4,6"], "majority needs odd n"),
    (["sensitivity", "parity", "--n", "9..3"], "empty range"),
    (["sensitivity", "parity", "--n", "23", "--method", "exact"], "--method monte_carlo"),
    (["sensitivity", "parity", "--n", "4", "--param", "k"], "NAME=VALUE"),
])
def test_bad_input_exits_2_with_a_message(cli, capsys, argv, needle):
    code, out, err = cli(*argv)
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_explain(cli, capsys):
    code, out, _ = cli("explain", "sensitivity", "majority", "--max-n", "9")
    assert code == 0
    assert out.startswith("sensitivity on majority: Easy (thm, verified ≤ 9 (exhaustive))")
    assert "Rules tried (in order):" in out and "1. [lower-bound] linear average" in out
    assert "average_sensitivity" in out and "Sources:" in out
    code, out, _ = cli("explain", "sensitivity", "parity", "--format", "json")
    assert json.loads(out)["rule"] == "linear average sensitivity"


def test_sensitivity_json_is_a_list(cli, capsys):
    code, out, _ = cli("sensitivity", "majority", "--n", "3..9:2", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert [d["n"] for d in data] == [3, 5, 7, 9]
    for d in data:
        assert set(d) == {"n", "distribution", "average_sensitivity", "ci_low", "ci_high",
                          "exact"}
        n = d["n"]
        assert d["average_sensitivity"] == pytest.approx(n * comb(n - 1, (n - 1) // 2)
                                                         / 2 ** (n - 1))
        assert d["exact"] and d["distribution"] == "uniform"


def test_sensitivity_text_and_automatic_monte_carlo(cli, capsys):
    code, out, err = cli("sensitivity", "parity", "--n", "16,17,18,23", "--samples", "500")
    assert code == 0
    assert "growth: poly" in out and "monte_carlo" in out and "fwht" in out
    assert "n=23" in err and "Monte Carlo" in err
    code, out, _ = cli("sensitivity", "all", "--n", "4,8", "--distribution", "task", "--samples", "300", "--seed", "2")
    assert code == 0 and "needs at least three" in out and "[" in out


@pytest.mark.parametrize("cmd", [["predict"], ["explain", "ac0", "parity"]])
def test_max_n_beyond_exact_methods_is_refused_with_advice(capsys, cmd):
    with pytest.raises(SystemExit) as exc:
        main([*cmd, "--max-n", "40"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "too large for exact methods" in err and "--max-n 22 or less" in err
    assert "Traceback" not in err


def test_sensitivity_histogram_matches_majority_closed_form(cli, capsys):
    code, out, _ = cli("sensitivity", "majority", "--n", "5,7", "--histogram")
    assert code == 0
    for n in (5, 7):  # s = (n+1)/2 exactly when the vote is one away from a tie
        p = 2 * comb(n, (n + 1) // 2) / 2 ** n
        assert f"n={n}: P(s = k) {{0: {1 - p:.4f}, {(n + 1) // 2}: {p:.4f}}}" in out
