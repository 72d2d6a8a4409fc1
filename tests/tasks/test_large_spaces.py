"""Sizes of input spaces past int64 are exact Python ints (never wrapped), and enumerating
them is refused with the exact size, before any allocation."""

from __future__ import annotations

import math

import pytest

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge
from theorybench.formal import communication
from theorybench.tasks.base import count_text


def _large(name):
    fam = tasks.families()[name]
    top = min(next(p for p in fam.params if p.name == "n").maximum, 200)
    for n in (top, top - 1):
        try:
            return tasks.get(name, n=n)
        except Exception:
            continue
    raise AssertionError(f"no large n for {name}")


@pytest.mark.parametrize("name", sorted(tasks.families()))
def test_space_size_past_int64_is_exact(name):
    view = _large(name).decision_view()[0]
    expected = 1
    for c in view.choices:  # an independent product, one Python int at a time
        expected *= len(set(c))
    size = view.space_size()
    assert type(size) is int and size == expected
    assert size > (1 << 63)  # the point of the test: int64 would have wrapped
    assert communication.space_size(view) == size


@pytest.mark.parametrize("name", ["parity", "khop", "reach_directed"])
def test_enumerating_a_huge_space_is_refused_with_its_size(name):
    view = _large(name).decision_view()[0]
    with pytest.raises(EnumerationTooLarge) as err:
        view.enumerate()
    assert f"2^{math.log2(view.space_size()):.1f}" in str(err.value)
    with pytest.raises(EnumerationTooLarge):
        communication.evaluate_all(view)


def test_count_text_is_exact_up_to_a_trillion():
    assert count_text(10 ** 12) == "1,000,000,000,000"
    assert count_text(1 << 100).startswith("about 2^100.0")


def test_count_text_past_the_float_range():
    # reach_directed at n = 200 has about 2^3078 inputs: float() of it overflows
    text = count_text(1 << 3078)
    assert text.startswith("about 2^3078.0 (~") and "e+926" in text
