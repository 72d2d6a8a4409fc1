"""Label balance of every family's label-balanced distributions (docs/theories.md §9).

Balanced distributions fix the number of positives (count / 2, odd counts rounded by a
fair coin), so the tolerance is one row; the uniform distributions of majority, parity and
index are balanced in expectation (P(label 1) = 1/2 exactly), checked within 5 standard
deviations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from theorybench import tasks

EXACT = [(name, dist) for name, cls in tasks.families().items()
         for dist in cls.distributions if dist in ("balanced", "paths", "cycles", "random")]
IN_EXPECTATION = [("majority", "uniform"), ("parity", "uniform"), ("index", "uniform"),
                  ("index_parity", "uniform"), ("sparse_parity", "uniform"),
                  ("kv_retrieval", "uniform")]


def _task(name):
    cls = tasks.family(name)
    return tasks.get(name, n=cls.train_ns[0] if name != "majority" else 15)


@pytest.mark.parametrize("name,dist", EXACT)
@pytest.mark.parametrize("count", [4001, 20000])
def test_balanced_distributions_are_exactly_balanced(name, dist, count):
    batch = _task(name).sample(np.random.default_rng(count), count, dist)
    assert abs(int(batch.labels.sum()) - count / 2) <= 1, (name, dist)


@pytest.mark.parametrize("name,dist", IN_EXPECTATION)
def test_uniform_distributions_are_balanced_in_expectation(name, dist):
    count = 20000
    batch = _task(name).sample(np.random.default_rng(11), count, dist)
    assert abs(batch.labels.mean() - 0.5) < 5 * math.sqrt(0.25 / count), (name, dist)


def test_every_binary_default_is_covered():
    """Every binary-label family's default distribution is checked by one of the tests."""
    covered = {n for n, _ in EXACT} | {n for n, _ in IN_EXPECTATION}
    binary = [name for name, cls in tasks.families().items()
              if cls.output == "final" and tuple(_task(name).label_vocab) == ("0", "1")]
    assert set(binary) <= covered
