"""Tests of the parameter grid (``tasks.grid``), listings of parameters, and size limits."""

from __future__ import annotations

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, ResourceLimitError, TaskParameterError
from theorybench.tasks.base import MAX_SAMPLE_CELLS, count_text

FAMILIES = tasks.families()


def _constructible(name, n, **params):
    """The oracle for valid_ns: does building the task (vocabulary and all) succeed?"""
    try:
        tasks.get(name, n=n, **params)
    except TaskParameterError:
        return False
    return True


@pytest.mark.parametrize("name", list(FAMILIES))
def test_valid_ns_agree_with_construction(name):
    grid = tasks.grid(name)
    assert grid.name == name and grid.params == FAMILIES[name].params
    expected = [n for n in range(1, 31) if _constructible(name, n)]
    assert grid.valid_ns(1, 30) == expected
    assert expected, f"{name} accepts no n in 1..30"


@pytest.mark.parametrize("name,params,expected", [
    ("majority", {}, [1, 3, 5, 7, 9]),
    ("dyck", {"k": 1}, [2, 4, 6, 8]),
    ("reach_undirected", {}, [2, 4, 6, 8]),
    ("sparse_parity", {"k": 5}, [6, 7, 8, 9]),
    ("index_all", {"k": 7}, [7, 8, 9]),
    ("parity", {}, list(range(1, 10))),
])
def test_valid_ns_known_sets(name, params, expected):
    assert tasks.grid(name).valid_ns(0, 9, **params) == expected


def test_valid_ns_respects_the_declared_range():
    assert tasks.grid("reach_directed").valid_ns(1000, 5000) == list(range(1000, 1023, 2))
    assert tasks.grid("dyck").valid_ns(10, 5) == []


@pytest.mark.parametrize("name", list(FAMILIES))
def test_default_lists_and_variants_are_valid(name):
    grid = tasks.grid(name)
    assert grid.analysis_ns and grid.train_ns
    for point in grid.points():
        assert set(point) <= {p.name for p in grid.params} - {"n"}
        valid = set(grid.valid_ns(1, max(grid.analysis_ns + grid.train_ns), **point))
        assert set(grid.analysis_ns) <= valid, point
        assert set(grid.train_ns) <= valid, point
    assert grid.distributions[0] == FAMILIES[name].distributions[0]


def test_points_are_the_product_of_the_variants():
    assert tasks.grid("parity").points() == [{}]
    assert tasks.grid("khop").points() == [{"k": 1}, {"k": 2}, {"k": 3}]
    points = tasks.grid("dyck_bounded").points()
    assert len(points) == 6 and {"k": 2, "D": 3} in points
    assert tasks.grids().keys() == FAMILIES.keys()


def test_validate_checks_without_building_the_vocabulary(monkeypatch):
    cls = FAMILIES["reach_directed"]

    def boom(self):
        raise AssertionError("validate must not build the vocabulary")

    monkeypatch.setattr(cls, "build_vocab", boom)
    assert cls.validate(n=1000) == {"n": 1000, "nodes": 0}
    assert cls.accepts(n=8, nodes=10) and not cls.accepts(n=8, nodes=9)
    with pytest.raises(TaskParameterError, match="odd"):
        cls.validate(n=7)


@pytest.mark.parametrize("name,needle", [
    ("sparse_all", "positions=first k"),
    ("sparse_parity", "k=3 (1<=k<=65536, k<n)"),
    ("majority", "n=15 (1<=n<=65536, odd)"),
    ("dyck", "n=16 (2<=n<=4096, even)"),
    ("index_any", "k=3 (1<=k<=16384, k<=n)"),
    ("edge_exists", "0=auto"),
])
def test_parameter_listing(name, needle):
    assert needle in "; ".join(p.describe() for p in FAMILIES[name].params)


def test_enumeration_too_large_says_so_readably():
    with pytest.raises(EnumerationTooLarge) as info:
        tasks.get("parity", n=64).enumerate()
    msg = str(info.value)
    assert "cannot enumerate" in msg and "2^64" in msg and "smaller n" in msg
    assert len(msg) < 200
    with pytest.raises(EnumerationTooLarge, match="2\\^"):
        tasks.get("reach_directed", n=64).decision_view()[0].enumerate()
    assert count_text(1000) == "1,000" and count_text(2**80).startswith("about 2^80.0")


def test_sample_size_limit():
    task = tasks.get("parity", n=8)
    with pytest.raises(ResourceLimitError, match="sample in batches"):
        task.sample(np.random.default_rng(0), MAX_SAMPLE_CELLS // 8 + 1)
    assert len(task.sample(np.random.default_rng(0), 3)) == 3


@pytest.mark.parametrize("name,n,bad_width", [("parity", 3, 4), ("sparse_all", 5, 4),
                                              ("binary_add", 2, 5)])
def test_label_refuses_rows_of_the_wrong_width(name, n, bad_width):
    from theorybench.errors import TaskInputError
    task = tasks.get(name, n=n)
    with pytest.raises(TaskInputError, match="rows of"):
        task.label(np.zeros((2, bad_width), dtype=np.int64))
    row = task.sample(np.random.default_rng(0), 1).tokens[0]
    assert np.array_equal(task.label(row), task.label(row[None, :]))   # one row as 1-d
