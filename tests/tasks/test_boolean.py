"""Tests of the boolean families (all, any, majority, parity) and of tasks/bits.py.

Labels are compared with the per-row loop oracles and with closed-form counts
(binomials); samplers are checked for balance and for the documented distributions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, TaskInputError, TaskParameterError
from theorybench.tasks.bits import (COMBINERS, conditional_bits, distinct_positions,
                                    random_bits, random_positions_mask)

BOOLEAN = ("all", "any", "majority", "parity")
NS = {"all": (1, 2, 5, 8, 13, 33), "any": (1, 2, 5, 8, 13, 33),
      "majority": (1, 3, 5, 9, 13, 33), "parity": (1, 2, 5, 8, 13, 33)}


def _cases():
    for name in BOOLEAN:
        for n in NS[name]:
            for dist in tasks.family(name).distributions:
                yield name, n, dist


@pytest.mark.parametrize("name,n,dist", list(_cases()))
def test_label_equals_oracle_on_samples(name, n, dist):
    task = tasks.get(name, n=n)
    batch = task.sample(np.random.default_rng(n), 2000, dist)
    assert batch.tokens.shape == (2000, n) and batch.tokens.dtype == np.int64
    assert set(np.unique(batch.tokens)) <= {0, 1}
    assert np.array_equal(batch.labels, task.label(batch.tokens))
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))
    assert batch.mask is None and np.all(batch.lengths == n)


@pytest.mark.parametrize("name", BOOLEAN)
def test_label_equals_oracle_on_all_inputs(name):
    n = 9
    task = tasks.get(name, n=n)
    x = task.enumerate()
    assert np.array_equal(task.label(x), task.oracle(x))


def _positives(name, n):
    if name == "all":
        return 1
    if name == "any":
        return 2 ** n - 1
    if name == "majority":
        return sum(math.comb(n, j) for j in range(n + 1) if 2 * j > n)
    return sum(math.comb(n, j) for j in range(1, n + 1, 2))


@pytest.mark.parametrize("name", BOOLEAN)
@pytest.mark.parametrize("n", [1, 3, 7, 10])
def test_enumerate_counts_match_binomials(name, n):
    if name == "majority" and n % 2 == 0:
        n += 1
    task = tasks.get(name, n=n)
    x = task.enumerate()
    assert x.shape == (2 ** n, n)
    assert len({tuple(r) for r in x}) == 2 ** n
    assert int(task.label(x).sum()) == _positives(name, n)


def test_enumerate_known_numbers():
    assert int(tasks.get("majority", n=7).label(tasks.get("majority", n=7).enumerate()).sum()) == 64
    t = tasks.get("all", n=6)
    assert len(t.enumerate()) == 64 and int(t.label(t.enumerate()).sum()) == 1


def test_enumerate_too_large():
    with pytest.raises(EnumerationTooLarge, match="limit"):
        tasks.get("parity", n=40).enumerate()


@pytest.mark.parametrize("name", ["all", "any"])
def test_balanced_distribution(name):
    n = 12
    task = tasks.get(name, n=n)
    batch = task.sample(np.random.default_rng(1), 20001)
    # balanced_choice: exactly half, up to the odd one
    assert abs(int(batch.labels.sum()) - 10000) <= 1
    special = 1 if name == "all" else 0
    other = batch.tokens[batch.labels == (1 - special if name == "all" else 1)]
    # the non-constant half has z ~ U{1..n} flipped bits: every z occurs, mean (n+1)/2
    z = (other != special).sum(axis=1)
    assert z.min() == 1 and z.max() == n
    assert set(np.unique(z)) == set(range(1, n + 1))
    assert abs(z.mean() - (n + 1) / 2) < 0.15
    const = batch.tokens[batch.labels == (1 if name == "all" else 0)]
    assert np.all(const == special)


@pytest.mark.parametrize("name,n", [("majority", 15), ("parity", 16)])
def test_uniform_balance(name, n):
    count = 40000
    labels = tasks.get(name, n=n).sample(np.random.default_rng(2), count).labels
    # Binomial(count, 1/2): 5 standard deviations
    assert abs(labels.mean() - 0.5) < 5 * 0.5 / math.sqrt(count)


def test_majority_near_threshold():
    n = 15
    batch = tasks.get("majority", n=n).sample(np.random.default_rng(3), 10000, "near_threshold")
    sums = batch.tokens.sum(axis=1)
    assert set(np.unique(sums)) == {7, 8}
    assert abs(batch.labels.mean() - 0.5) < 0.03
    assert np.array_equal(batch.labels, (sums == 8).astype(int))


def test_uniform_all_is_rarely_positive():
    labels = tasks.get("all", n=3).sample(np.random.default_rng(4), 80000, "uniform").labels
    assert abs(labels.mean() - 1 / 8) < 0.01


@pytest.mark.parametrize("name", BOOLEAN)
def test_render_parse_round_trip(name):
    task = tasks.get(name, n=9)
    batch = task.sample(np.random.default_rng(5), 50)
    for row in batch.tokens:
        text = task.render(row)
        assert text == " ".join(str(int(b)) for b in row)
        assert np.array_equal(task.parse(text), row)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=1, max_size=40), st.sampled_from(BOOLEAN))
def test_parse_render_property(bits, name):
    n = len(bits)
    if name == "majority" and n % 2 == 0:
        bits = bits + [1]
        n += 1
    task = tasks.get(name, n=n)
    row = task.parse("  ".join(map(str, bits)))
    assert row.tolist() == bits
    assert task.render(row) == " ".join(map(str, bits))
    assert int(task.label(row[None])[0]) == int(task.oracle(row[None])[0])
    with pytest.raises(TaskInputError, match="expects"):
        task.parse(" ".join(map(str, bits + [0])))


@pytest.mark.parametrize("text,match", [("0 1 2", "not in the vocabulary"),
                                        ("0 1", "expects 3 tokens"),
                                        ("0 1 1 0", "expects 3 tokens"),
                                        ("a b c", "not in the vocabulary")])
def test_parse_errors(text, match):
    with pytest.raises(TaskInputError, match=match):
        tasks.get("parity", n=3).parse(text)


@settings(max_examples=40, deadline=None)
@given(st.integers(-5, 200))
def test_n_parameter_property(n):
    for name in ("all", "any", "parity"):
        if n >= 1:
            assert tasks.get(name, n=n).n == n
            assert tasks.get(name, n=str(n)).n == n
        else:
            with pytest.raises(TaskParameterError, match="n="):
                tasks.get(name, n=n)
    if n >= 1 and n % 2 == 1:
        assert tasks.get("majority", n=n).n == n
    else:
        with pytest.raises(TaskParameterError, match="n="):
            tasks.get("majority", n=n)


@pytest.mark.parametrize("kwargs,match", [
    ({"n": 8}, "even"), ({"n": 0}, ">= 1"), ({"n": "abc"}, "not an integer"),
    ({"n": 2.5}, "not an integer"), ({"n": True}, "not an integer"),
    ({"n": 7, "k": 3}, "unknown parameter"),
])
def test_majority_bad_parameters(kwargs, match):
    with pytest.raises(TaskParameterError, match=match):
        tasks.get("majority", **kwargs)


def test_bad_distribution_and_count():
    task = tasks.get("parity", n=4)
    with pytest.raises(TaskParameterError, match="distribution"):
        task.sample(np.random.default_rng(0), 3, "balanced")
    with pytest.raises(TaskParameterError, match="count"):
        task.sample(np.random.default_rng(0), -1)


@pytest.mark.parametrize("name", BOOLEAN)
def test_decision_view(name):
    task = tasks.get(name, n=7)
    view = task.decision_view()[0]
    assert view.length == 7 and view.binary and view.space_size() == 128
    x = view.enumerate()
    assert np.array_equal(view.evaluate(x), task.oracle(x))
    s = view.sample(np.random.default_rng(0), 100)
    assert s.shape == (100, 7)
    for n in tasks.family(name).analysis_ns:
        assert tasks.get(name, n=n).decision_view()[0].space_size() <= 1 << 22


# ---- tasks/bits.py helpers ------------------------------------------------------------

def test_random_bits():
    x = random_bits(np.random.default_rng(0), 5000, 13)
    assert x.shape == (5000, 13) and x.dtype == np.int64
    assert set(np.unique(x)) == {0, 1}
    assert np.all(np.abs(x.mean(axis=0) - 0.5) < 0.04)


def test_random_positions_mask_exact_and_uniform():
    rng = np.random.default_rng(0)
    n, count = 6, 60000
    how = rng.integers(0, n + 1, size=count)
    mask = random_positions_mask(rng, count, n, how)
    assert np.array_equal(mask.sum(axis=1), how)
    # for rows with 2 marks, all C(6,2) = 15 placements about equally likely
    rows = mask[how == 2]
    codes = rows @ (1 << np.arange(n))
    _, counts = np.unique(codes, return_counts=True)
    assert len(counts) == 15
    expected = len(rows) / 15
    assert np.all(np.abs(counts - expected) < 5 * math.sqrt(expected))


@pytest.mark.parametrize("n,k", [(5, 2), (4, 4), (30, 3), (10, 7)])
def test_distinct_positions_uniform(n, k):
    rng = np.random.default_rng(1)
    count = 40000
    q = distinct_positions(rng, count, n, k)
    assert q.shape == (count, k) and q.min() >= 0 and q.max() < n
    srt = np.sort(q, axis=1)
    assert not np.any(srt[:, 1:] == srt[:, :-1])
    # every position equally likely in every slot
    for j in range(k):
        counts = np.bincount(q[:, j], minlength=n)
        assert np.all(np.abs(counts - count / n) < 5 * math.sqrt(count / n))


@pytest.mark.parametrize("op", ["all", "any", "parity"])
@pytest.mark.parametrize("k", [1, 2, 3, 20])
def test_conditional_bits(op, k):
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 2, size=6000)
    b = conditional_bits(rng, labels, k, op)
    assert b.shape == (6000, k)
    assert np.array_equal(COMBINERS[op](b).astype(int), labels)
    if k == 2:  # uniform within each class
        for cls in (0, 1):
            codes = b[labels == cls] @ np.array([1, 2])
            _, counts = np.unique(codes, return_counts=True)
            size = {"all": (3, 1), "any": (1, 3), "parity": (2, 2)}[op][cls]
            assert len(counts) == size
            exp = (labels == cls).sum() / size
            assert np.all(np.abs(counts - exp) < 5 * math.sqrt(exp))
