"""Seeds are checked once, at the edge: every ``--seed``/``--seeds`` of every command takes
an integer in 0 .. 2^63 - 1 and refuses the rest at parse time (exit 2, the range named)."""

from __future__ import annotations

import argparse

import pytest

from theorybench.cli.common import MAX_SEED, parse_seed
from theorybench.cli.main import build_parser


def _seed_options():
    """(command path, option string) of every seed option in the CLI's own parser."""
    found = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, path + (name,))
            elif any(o in ("--seed", "--seeds") for o in action.option_strings):
                found.append((path, action))

    walk(build_parser(), ())
    return found


def test_parse_seed_range():
    assert parse_seed("0") == 0 and parse_seed(str(MAX_SEED)) == MAX_SEED
    for bad in ("-1", str(MAX_SEED + 1), "9" * 20, "1.5", "", "nan", "seed"):
        with pytest.raises(argparse.ArgumentTypeError, match=r"0 to 2\^63-1"):
            parse_seed(bad)


def test_every_seed_option_uses_the_shared_type():
    found = _seed_options()
    # predict, explain, run, sensitivity, brasp/crasp check, circuit build, mpc, bapo
    assert len(found) >= 8, found
    # `sample` refuses a negative seed itself (cli/tasks.py) and numpy takes any larger one
    untyped = [" ".join(p) for p, a in found if a.type is not parse_seed and p != ("sample",)]
    assert not untyped, f"--seed not parsed by parse_seed in: {untyped}"


@pytest.mark.parametrize("argv", [
    ["predict", "--theory", "crasp", "--task", "majority", "--seed", "-1"],
    ["explain", "crasp", "majority", "--seed", "-1"],
    ["run", "in-distribution", "--dry-run", "--seeds", "0", "9" * 20],
    ["sensitivity", "parity", "--n", "4", "--seed", "-3"],
    ["crasp", "check", "majority", "--task", "majority", "--seed", str(1 << 64)],
])
def test_bad_seed_is_a_usage_error(cli, capsys, argv):
    # before: predict ran with seed -1 and a rule failed inside (the cell became Unknown);
    # run's dry run accepted a 20-digit seed and then every run failed
    with pytest.raises(SystemExit) as exc:
        cli(*argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "seed" in err and "2^63-1" in err and "Traceback" not in err


def test_largest_seed_runs(cli):
    code, out, err = cli("sensitivity", "parity", "--n", "6", "--samples", "50",
                         "--seed", str(MAX_SEED))
    assert code == 0, err
