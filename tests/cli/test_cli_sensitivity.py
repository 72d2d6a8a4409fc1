"""`theorybench sensitivity` ranges and option checks; the --n range parser."""

import json

import pytest

from theorybench.cli.common import parse_range
from theorybench.errors import TaskParameterError


def test_sensitivity_skips_even_n_of_majority(cli, capsys):
    rc, out, err = cli("sensitivity", "majority", "--n", "5..9", "--format", "json")
    rows = json.loads(out)
    assert rc == 0 and [r["n"] for r in rows] == [5, 7, 9]
    # closed form: as(maj_n) = n * C(n-1, (n-1)/2) / 2^(n-1)
    from math import comb
    for r in rows:
        n = r["n"]
        assert r["average_sensitivity"] == pytest.approx(n * comb(n - 1, (n - 1) // 2) / 2 ** (n - 1))
    assert err.count("note:") == 1 and "n=6, 8" in err


def test_sensitivity_no_valid_n_is_an_error(cli, capsys):
    rc, out, err = cli("sensitivity", "majority", "--n", "6,8")
    assert rc == 2 and out == "" and "the valid n between 6 and 8 are 7" in err


def test_sensitivity_bad_samples_before_any_note(cli_exit):
    rc, out, err = cli_exit("sensitivity", "parity", "--n", "30", "--samples", "-5")
    assert rc == 2 and "note" not in err and "samples" in err


def test_bad_param_keeps_its_own_message_without_theory_md(cli, capsys):
    rc, _, err = cli("sensitivity", "khop", "--n", "8..10", "--param", "k=two")
    assert rc == 2 and "k='two'" in err and ".md" not in err


@pytest.mark.parametrize("text, message", [
    ("4..8:-1", "step must be positive"), ("4..8:0", "step must be positive"),
    ("8..4", "lower end 8 is above the upper end 4"), ("4..x", "is not a range"),
])
def test_parse_range_messages(text, message):
    with pytest.raises(TaskParameterError, match=message):
        parse_range(text)


def test_parse_range_values():
    assert parse_range("4..8:2") == [4, 6, 8] and parse_range("3,5") == [3, 5]
    assert parse_range("7..7") == [7]
