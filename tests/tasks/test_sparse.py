"""Tests of the sparse families: sparse_all, sparse_any, sparse_parity.

Labels against the per-row loop oracles and against closed-form counts; the hidden set S
(default and ``positions``) checked by flipping bits; the balanced sampler against the
uniform-conditioned-on-label distribution it claims to be.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.errors import TaskInputError, TaskParameterError

SPARSE = ("sparse_all", "sparse_any", "sparse_parity")
OP = {"sparse_all": all, "sparse_any": any, "sparse_parity": lambda bs: sum(bs) % 2 == 1}


def _cases():
    for name in SPARSE:
        for n, k, positions in [(2, 1, ""), (4, 3, ""), (9, 3, ""), (9, 3, "2,5,9"),
                                (16, 5, ""), (40, 1, "40"), (64, 7, "")]:
            for dist in ("balanced", "uniform"):
                yield name, n, k, positions, dist


@pytest.mark.parametrize("name,n,k,positions,dist", list(_cases()))
def test_label_equals_oracle(name, n, k, positions, dist):
    task = tasks.get(name, n=n, k=k, positions=positions)
    batch = task.sample(np.random.default_rng(n + k), 2000, dist)
    assert batch.tokens.shape == (2000, n)
    assert np.array_equal(batch.labels, task.label(batch.tokens))
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))
    # an oracle written here, from the parameters alone
    support = ([int(p) - 1 for p in positions.split(",")] if positions else list(range(k)))
    mine = [int(OP[name]([int(row[i]) for i in support])) for row in batch.tokens[:300]]
    assert batch.labels[:300].tolist() == mine


@pytest.mark.parametrize("name", SPARSE)
def test_only_the_hidden_set_matters(name):
    task = tasks.get(name, n=10, k=3, positions="3,7,8")
    assert task.support == (2, 6, 7)
    x = task.sample(np.random.default_rng(0), 500, "uniform").tokens
    base = task.label(x)
    for i in range(10):
        y = x.copy()
        y[:, i] ^= 1
        changed = task.label(y) != base
        if i in (2, 6, 7):
            assert changed.any()
        else:
            assert not changed.any()


def test_default_support_is_the_first_k_positions_at_every_length():
    for n in (4, 8, 100):
        assert tasks.get("sparse_parity", n=n).support == (0, 1, 2)
    assert tasks.get("sparse_any", n=9, k=5).support == (0, 1, 2, 3, 4)


def _positives(name, n, k):
    if name == "sparse_all":
        return 2 ** (n - k)
    if name == "sparse_any":
        return 2 ** n - 2 ** (n - k)
    return 2 ** (n - 1)


@pytest.mark.parametrize("name", SPARSE)
@pytest.mark.parametrize("n,k", [(2, 1), (5, 3), (8, 2), (10, 6)])
def test_enumerate_counts(name, n, k):
    task = tasks.get(name, n=n, k=k)
    x = task.enumerate()
    assert x.shape == (2 ** n, n)
    labels = task.label(x)
    assert int(labels.sum()) == _positives(name, n, k)
    assert np.array_equal(labels, task.oracle(x))


@pytest.mark.parametrize("name", SPARSE)
def test_balanced_exactly_and_uniform_within_class(name):
    n, k = 4, 2
    task = tasks.get(name, n=n, k=k, positions="2,4")
    count = 64000
    batch = task.sample(np.random.default_rng(1), count)
    assert abs(int(batch.labels.sum()) - count // 2) <= 1
    codes = batch.tokens @ (1 << np.arange(n))
    every = task.enumerate()
    every_labels = task.label(every)
    for cls in (0, 1):
        members = set((every[every_labels == cls] @ (1 << np.arange(n))).tolist())
        seen, counts = np.unique(codes[batch.labels == cls], return_counts=True)
        assert set(seen.tolist()) == members
        expected = (batch.labels == cls).sum() / len(members)
        assert np.all(np.abs(counts - expected) < 5 * math.sqrt(expected))


@pytest.mark.parametrize("name,rate", [("sparse_all", 1 / 8), ("sparse_any", 7 / 8),
                                       ("sparse_parity", 1 / 2)])
def test_uniform_distribution_rate(name, rate):
    count = 40000
    labels = tasks.get(name, n=12).sample(np.random.default_rng(2), count, "uniform").labels
    assert abs(labels.mean() - rate) < 5 * math.sqrt(rate * (1 - rate) / count)


def test_balanced_works_for_large_k():
    task = tasks.get("sparse_all", n=64, k=40)
    batch = task.sample(np.random.default_rng(3), 1000)
    assert abs(int(batch.labels.sum()) - 500) <= 1
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))


@pytest.mark.parametrize("name", SPARSE)
def test_render_parse_round_trip(name):
    task = tasks.get(name, n=12, k=4, positions="1,5,6,12")
    for row in task.sample(np.random.default_rng(0), 40).tokens:
        assert np.array_equal(task.parse(task.render(row)), row)
    with pytest.raises(TaskInputError, match="expects 12 tokens"):
        task.parse("0 1 0")
    with pytest.raises(TaskInputError, match="not in the vocabulary"):
        task.parse("0 1 0 1 0 1 0 1 0 1 0 x")


@settings(max_examples=50, deadline=None)
@given(n=st.integers(2, 30), data=st.data())
def test_parameters_and_round_trip_property(n, data):
    k = data.draw(st.integers(1, n - 1))
    pos = data.draw(st.lists(st.integers(1, n), min_size=k, max_size=k, unique=True))
    name = data.draw(st.sampled_from(SPARSE))
    task = tasks.get(name, n=str(n), k=str(k), positions=",".join(map(str, pos)))
    assert task.support == tuple(sorted(p - 1 for p in pos))
    bits = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    row = task.parse(" ".join(map(str, bits)))
    assert row.tolist() == bits
    assert task.render(row) == " ".join(map(str, bits))
    assert int(task.label(row[None])[0]) == int(OP[name]([bits[p - 1] for p in pos]))
    with pytest.raises(TaskParameterError, match="k="):
        tasks.get(name, n=n, k=n)


@pytest.mark.parametrize("kwargs,match", [
    ({"n": 3, "k": 3}, r"k=3 is too large for n=3.*1 <= k < n"),
    ({"n": 3, "k": 5}, "k=5 is too large"),
    ({"n": 8, "k": 0}, "k=0 is too small"),
    ({"n": 0}, "n=0 is too small"),
    ({"n": "abc"}, "not an integer"),
    ({"n": 8, "positions": "1,2"}, "lists 2 positions but k=3"),
    ({"n": 8, "positions": "1,2,9"}, "outside 1..n"),
    ({"n": 8, "positions": "0,2,3"}, "outside 1..n"),
    ({"n": 8, "positions": "1,1,2"}, "repeats"),
    ({"n": 8, "positions": "a,b,c"}, "comma-separated"),
    ({"n": 8, "S": "1"}, "unknown parameter"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(TaskParameterError, match=match):
        tasks.get("sparse_parity", **kwargs)


@pytest.mark.parametrize("name", SPARSE)
def test_decision_view(name):
    task = tasks.get(name, n=8)
    view = task.decision_view()[0]
    assert view.binary and view.length == 8
    x = view.enumerate()
    assert np.array_equal(view.evaluate(x), task.oracle(x))
    for n in tasks.family(name).analysis_ns:
        assert tasks.get(name, n=n).decision_view()[0].space_size() <= 1 << 22
    s = view.sample(np.random.default_rng(0), 1000)
    assert abs(task.label(s).mean() - 0.5) < 0.01
