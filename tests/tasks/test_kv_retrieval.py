"""kv_retrieval: binary-key retrieval (n key:value pairs, distinct m-bit keys, a query)."""

from __future__ import annotations

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, TaskInputError, TaskParameterError
from theorybench.tasks.base import product_space


def _by_definition(task, row):
    """The label from the rendered text, with string slicing only."""
    m, n = task.key_bits, task.n
    bits = task.render(row).split()
    pairs = [bits[b * (m + 1): (b + 1) * (m + 1)] for b in range(n)]
    query = bits[n * (m + 1):]
    hits = [p[m] for p in pairs if p[:m] == query]
    assert len(hits) == 1
    return int(hits[0])


@pytest.mark.parametrize("n,m", [(1, 0), (2, 0), (3, 0), (4, 0), (1, 2), (2, 2), (3, 3)])
def test_every_small_instance_label_oracle_and_definition(n, m):
    task = tasks.get("kv_retrieval", n=n, m=m)
    everything = product_space(task.input_space(), 1 << 16)
    valid = everything[task.valid_inputs(everything)]
    listed = task.enumerate()
    # the direct enumeration is exactly the valid part of the product space, in order
    assert np.array_equal(listed, valid)
    assert len(listed) == task.space_size()
    labels = task.label(listed)
    assert np.array_equal(labels, task.oracle(listed))
    assert labels.tolist() == [_by_definition(task, r) for r in listed]
    assert labels.mean() == 0.5  # value bits range over everything


def test_valid_inputs_reject_repeated_keys_and_absent_queries():
    task = tasks.get("kv_retrieval", n=2, m=2)
    ok = task.parse("0 1 1 1 0 0 1 0")          # keys 01, 10; query 10 -> 0
    assert task.label(ok[None])[0] == 0
    with pytest.raises(TaskInputError, match="key 01 occurs in pairs 1 and 2"):
        task.parse("0 1 1 0 1 0 0 1")
    with pytest.raises(TaskInputError, match="query key 11 is none of"):
        task.parse("0 1 1 1 0 0 1 1")
    with pytest.raises(TaskInputError, match="expects 8 tokens"):
        task.parse("0 1 1")


def test_parameters():
    assert tasks.get("kv_retrieval", n=8).key_bits == 3
    assert tasks.get("kv_retrieval", n=9).key_bits == 4
    assert tasks.get("kv_retrieval", n=1).key_bits == 1
    assert tasks.get("kv_retrieval", n=16).input_length() == 16 * 5 + 4
    with pytest.raises(TaskParameterError, match=r"n <= 2\^m = 4 \(use m >= 3"):
        tasks.get("kv_retrieval", n=5, m=2)
    with pytest.raises(EnumerationTooLarge, match="cannot enumerate"):
        tasks.get("kv_retrieval", n=8).enumerate()


@pytest.mark.parametrize("n,m", [(8, 0), (3, 2), (100, 0), (4, 12)])
def test_samples_are_valid_and_keys_uniform(n, m):
    task = tasks.get("kv_retrieval", n=n, m=m)
    rng = np.random.default_rng(3)
    b = task.sample(rng, 4000)
    assert task.valid_inputs(b.tokens).all()
    assert np.array_equal(b.labels, task.oracle(b.tokens))
    keys, values, query = task.split(b.tokens)
    # the query names each pair equally often, every key value occurs
    slot = np.argmax(keys == query[:, None], axis=1)
    counts = np.bincount(slot, minlength=n)
    p = 1 / n
    assert np.all(np.abs(counts - 4000 * p) <= 5 * np.sqrt(4000 * p * (1 - p)) + 1)
    if (1 << task.key_bits) <= 16:
        assert set(np.unique(keys).tolist()) == set(range(1 << task.key_bits))
    # the same seed gives the same batch
    again = task.sample(np.random.default_rng(3), 4000)
    assert np.array_equal(again.tokens, b.tokens)
