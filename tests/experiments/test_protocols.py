"""Protocols as data: named, validated, and carried into profiles and thresholds."""

from __future__ import annotations

import dataclasses

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.profiles import PROFILES, expand
from theorybench.experiments.protocols import PROTOCOLS, Protocol, get_protocol


def test_published_protocols_by_name():
    assert {"theorybench", "huang2025", "deletang2023"} <= set(PROTOCOLS.names())
    huang = get_protocol("huang2025")
    assert huang.aggregate == "mean_of_fitted" and huang.learning_rates == (1e-3, 1e-4)
    assert huang.eval_bins[-1] == (101, 150) and "ICLR 2025" in huang.citation
    assert get_protocol("deletang2023").aggregate == "best"
    assert "huang2025" in huang.describe() and "{0.001, 0.0001}" in huang.describe()
    with pytest.raises(ConfigError, match="did you mean huang2025"):
        get_protocol("huang2024")


def test_a_protocol_is_validated():
    with pytest.raises(ConfigError, match="aggregate 'median'"):
        Protocol("x", "c", (1e-3,), (0,), "median", 0.99, 0.9)
    with pytest.raises(ConfigError, match="target_accuracy"):
        Protocol("x", "c", (1e-3,), (0,), "mean", 1.5, 0.9)
    with pytest.raises(ConfigError, match="learning rates"):
        Protocol("x", "c", (), (0,), "mean", 0.99, 0.9)


def test_a_learning_rate_grid_expands_and_no_grid_keeps_the_keys():
    smoke = PROFILES["smoke"]
    plain = expand("in_distribution", smoke, ["majority"])
    grid = expand("in_distribution", dataclasses.replace(smoke, in_lrs=(1e-3, 2e-3, 1e-3)),
                  ["majority"])
    assert len(grid) == 2 * len(plain)                       # duplicates dropped
    assert {s.training.lr for s in grid} == {1e-3, 2e-3}
    # the grid's 2e-3 runs are the very runs of the profile without a grid (same keys)
    assert {s.key for s in plain} <= {s.key for s in grid}
    assert all(p.protocol == "theorybench" for p in PROFILES.values())


def test_an_empty_protocol_on_the_command_line_is_refused():
    from theorybench.cli.main import main
    for value in ("", " "):
        assert main(["verify", "--protocol", value, "--no-llm"]) == 2


def test_an_empty_min_status_is_refused_not_taken_for_none():
    from theorybench.cli.main import main
    assert main(["report", "--min-status", "", "--db", "/nonexistent/x.sqlite"]) == 2
