"""Hypothesis property tests over every registered family (parameters and parse/render).

Strategies are built from each family's declared ``Param`` objects (ranges widened by a
little on both sides, plus wrong types), so a new family is covered without new code:

* parameters: ``get`` either succeeds or raises ``TaskParameterError`` (never anything
  else), and the class-level ``accepts``/``validate`` agree with it;
* parse/render: sampled rows survive ``parse(render(row))`` unchanged with the same label;
  a damaged text (a foreign token, a missing token) is refused with ``TaskInputError``;
  arbitrary rows of vocabulary ids are either valid instances (round trip, label equals the
  independent oracle) or refused with ``TaskInputError``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.errors import TaskInputError, TaskParameterError

FAMILIES = tasks.families()
#: Upper ends of the drawn values per parameter name (small: each draw builds a task).
CAPS = {"n": 14, "k": 6, "D": 5, "alphabet": 6, "nodes": 24}
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _value(p):
    """A strategy for one parameter: mostly in or near its range, sometimes a bad value."""
    if p.choices is not None:
        good = st.sampled_from(p.choices)
        return st.one_of(good, good, st.just("no_such_choice"))
    if p.type is bool:
        return st.one_of(st.booleans(), st.sampled_from(["true", "0", "maybe"]))
    if p.type is int:
        lo = (p.minimum if p.minimum is not None else 0) - 2
        hi = min(p.maximum if p.maximum is not None else 1 << 20, CAPS.get(p.name, 12)) + 2
        return st.one_of(st.integers(lo, hi), st.integers(lo, hi).map(str),
                         st.sampled_from(["x", "2.5", None]))
    if p.name == "positions":
        pos = st.lists(st.integers(-1, CAPS["n"] + 1), min_size=1, max_size=5)
        return st.one_of(st.just(""), pos.map(lambda v: ",".join(map(str, v))),
                         st.just("1,a"))
    return st.text(max_size=4)


@st.composite
def family_params(draw, name=None):
    name = name or draw(st.sampled_from(sorted(FAMILIES)))
    cls = FAMILIES[name]
    params = {}
    for p in cls.params:
        if p.name == "n" or draw(st.booleans()):
            params[p.name] = draw(_value(p))
    return name, params


def _build(name, params):
    try:
        return tasks.get(name, **params)
    except TaskParameterError:
        return None


@pytest.mark.parametrize("family", sorted(FAMILIES))
@SETTINGS
@given(data=st.data())
def test_parameters_are_validated_with_one_exception_class(family, data):
    name, params = data.draw(family_params(family))
    cls = FAMILIES[name]
    task = _build(name, params)     # any exception other than TaskParameterError fails here
    assert cls.accepts(**params) == (task is not None)
    if task is not None:
        assert cls.validate(**params) == task.values
        again = tasks.get(task.spec()["task"], **{k: v for k, v in task.spec().items()
                                                  if k != "task"})
        assert again.vocab == task.vocab
    else:
        with pytest.raises(TaskParameterError) as info:
            tasks.get(name, **params)
        assert str(info.value)  # a message, naming what was wrong


def _valid_task(draw, name=None):
    name, params = draw(family_params(name))
    task = _build(name, params)
    assume(task is not None)
    return task


@st.composite
def sampled_rows(draw, name):
    task = _valid_task(draw, name)
    dist = draw(st.sampled_from(task.distributions))
    seed = draw(st.integers(0, 2**32 - 1))
    try:
        batch = task.sample(np.random.default_rng(seed), draw(st.integers(1, 4)), dist)
    except TaskParameterError:      # a distribution that needs larger n says so
        assume(False)
    return task, batch


@pytest.mark.parametrize("family", sorted(FAMILIES))
@SETTINGS
@given(data=st.data())
def test_render_parse_round_trip_of_samples(family, data):
    task, batch = data.draw(sampled_rows(family))
    for r in range(len(batch)):
        row = batch.tokens[r, : batch.lengths[r]]
        text = task.render(row)
        back = task.parse(text)
        assert np.array_equal(back, row)
        assert np.array_equal(task.label(back[None, :])[0], batch.labels[r])
        words = text.split()
        # a foreign token, and a missing token, are refused with TaskInputError
        at = data.draw(st.integers(0, len(words) - 1))
        with pytest.raises(TaskInputError):
            task.parse(" ".join(words[:at] + ["@@"] + words[at + 1:]))
        with pytest.raises(TaskInputError):
            task.parse(" ".join(words[:at] + words[at + 1:]))


@pytest.mark.parametrize("family", sorted(FAMILIES))
@SETTINGS
@given(data=st.data())
def test_arbitrary_token_rows_parse_or_are_refused(family, data):
    task = _valid_task(data.draw, family)
    ids = [i for i, t in enumerate(task.vocab) if i != task.pad_id]
    length = task.input_length()
    row = np.array(data.draw(st.lists(st.sampled_from(ids), min_size=length,
                                      max_size=length)), dtype=np.int64)
    try:
        back = task.parse(task.render(row))
    except TaskInputError as exc:
        assert str(exc)
        assert not task.valid_inputs(row[None, :])[0]
        return
    assert np.array_equal(back, row)
    assert task.valid_inputs(row[None, :])[0]
    assert np.array_equal(task.label(row[None, :]), task.oracle(row[None, :]))
