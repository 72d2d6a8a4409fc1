"""`theorybench circuit build|synth`: output and exit codes."""

import json

import pytest



def test_build_prints_measures_and_writes_dot(cli, capsys, tmp_path):
    dot = tmp_path / "c.dot"
    code, out, _ = cli("circuit", "build", "parity", "--n", "6", "--dot", str(dot))
    assert code == 0
    assert "depth:     3" in out and "verified:  64 all inputs, 0 errors" in out
    assert "THR" in out and dot.read_text().startswith("digraph")


def test_build_json_and_params(cli, capsys):
    code, out, _ = cli("circuit", "build", "khop", "--n", "10", "--param", "k=2", "--basis", "ac0", "--format", "json")
    info = json.loads(out)
    assert code == 0 and info["errors"] == 0 and info["basis"] == "ac0"
    assert info["task"]["k"] == 2 and info["gate_counts"]["THR"] == 0


def test_build_view(cli, capsys):
    code, out, _ = cli("circuit", "build", "binary_add", "--n", "4", "--view", "sum_bit_2")
    assert code == 0 and "[sum_bit_2]" in out


@pytest.mark.parametrize("argv,msg", [
    (("circuit", "build", "parity", "--n", "6", "--basis", "ac0"), "no ac0 circuit builder"),
    (("circuit", "build", "nosuch", "--n", "6"), "unknown task"),
    (("circuit", "build", "majority", "--n", "6"), "even"),
    (("circuit", "build", "parity", "--n", "six"), "not an integer"),
    (("circuit", "build", "reach_directed", "--n", "4"), "no tc0 circuit builder"),
    (("circuit", "build", "binary_add", "--n", "4", "--view", "nope"), "no decision function"),
    (("circuit", "synth", "parity", "--n", "30", "--depth", "2"), "at most"),
    (("circuit", "synth", "parity", "--n", "3", "--depth", "0"), "from 1 to 64"),
    (("circuit", "synth", "parity", "--n", "3", "--depth", "2", "--timeout", "nan"),
     "not a finite number"),
    (("circuit", "synth", "parity", "--n", "3", "--depth", "2", "--timeout", "inf"),
     "not a finite number"),
    (("circuit", "build", "parity", "--n", "65536"), "65,536 input bits"),
])
def test_bad_input_exits_2_without_traceback(cli_exit, argv, msg):
    code, out, err = cli_exit(*argv)
    assert code == 2 and msg in err and "Traceback" not in err


def test_synth_found_and_unsat_sizes(cli, capsys):
    code, out, _ = cli("circuit", "synth", "parity", "--n", "2", "--depth", "2")
    assert code == 0
    assert "UNSAT (no circuit) for sizes: 0, 1, 2" in out and "found: size 3" in out


def test_synth_none_within_bound(cli, capsys):
    code, out, _ = cli("circuit", "synth", "parity", "--n", "3", "--depth", "1", "--max-size", "2", "--format", "json")
    res = json.loads(out)
    assert code == 0 and res["status"] == "none" and res["impossible_sizes"] == [0, 1, 2]


def test_synth_timeout_is_unknown_exit_3(cli, capsys):
    code, out, _ = cli("circuit", "synth", "majority", "--n", "7", "--depth", "2", "--max-size", "40", "--timeout", "0.3")
    assert code == 3 and "unknown" in out


def test_unwritable_dot_is_a_config_error(cli, capsys, tmp_path):
    blocker = tmp_path / "f"
    blocker.write_text("x")
    code, _, err = cli("circuit", "build", "parity", "--n", "4", "--dot", str(blocker / "c.dot"))
    assert code == 2 and "--dot" in err and "cannot be written" in err
    assert "Traceback" not in err
