"""The Python API refuses nonsense input in every family (issue 31, cause 8): ``label`` and
``render`` take only integer token ids of the vocabulary, ``sample`` only a numpy
Generator. The checks are the base class's, wrapped around each family's own methods."""

from __future__ import annotations

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import TaskInputError, TaskParameterError
from theorybench.tasks.base import PAD, Batch, Task

FAMILIES = list(tasks.families())


def _batch(name):
    t = tasks.get(name)
    return t, t.sample(np.random.default_rng(0), 4)


@pytest.mark.parametrize("name", FAMILIES)
def test_label_refuses_ids_outside_the_vocabulary(name):
    t, b = _batch(name)
    for bad in (len(t.vocab), -1, 10**6):
        x = b.tokens.copy()
        x[1, 0] = bad
        with pytest.raises(TaskInputError, match="out of range") as exc:
            t.label(x)
        assert f"{bad}" in str(exc.value) and "row 1, position 0" in str(exc.value)
        with pytest.raises(TaskInputError, match="out of range"):
            t.label(x[1])  # one row
    # valid ids keep their labels, as int64, int32 or integral floats
    for x in (b.tokens, b.tokens.astype(np.int32), b.tokens.astype(float)):
        assert np.array_equal(t.label(x), b.labels)


@pytest.mark.parametrize("name", FAMILIES)
def test_label_refuses_ids_that_are_not_integers(name):
    t, b = _batch(name)
    x = b.tokens.astype(float)
    x[0, 1] = 0.5
    with pytest.raises(TaskInputError, match="not integers"):
        t.label(x)
    x[0, 1] = np.nan
    with pytest.raises(TaskInputError, match="not integers"):
        t.label(x)
    with pytest.raises(TaskInputError, match="must be integers"):
        t.label(b.tokens.astype(str))
    with pytest.raises(TaskInputError, match="same length"):
        t.label([list(b.tokens[0]), list(b.tokens[1][:-1])])


@pytest.mark.parametrize("name", FAMILIES)
def test_render_refuses_ids_outside_the_vocabulary(name):
    t, b = _batch(name)
    row = b.tokens[0][: int(b.lengths[0])]
    assert np.array_equal(t.parse(t.render(row)), row)
    for bad in (-1, len(t.vocab)):
        r = row.copy()
        r[0] = bad  # -1 used to print the last token ("1" for bit tasks)
        with pytest.raises(TaskInputError, match="out of range"):
            t.render(r)
    with pytest.raises(TaskInputError, match="not integers"):
        t.render(row + 0.5)


@pytest.mark.parametrize("name", FAMILIES)
def test_sample_needs_a_generator(name):
    t = tasks.get(name)
    for rng in (None, 0, np.random.RandomState(0)):
        with pytest.raises(TaskInputError, match=r"np\.random\.default_rng\(0\)"):
            t.sample(rng, 2)
    b = t.sample(rng=np.random.default_rng(1), count=2)
    assert len(b) == 2


def test_sample_failing_inside_does_not_switch_the_label_check_off():
    t = tasks.get("majority", n=5)
    with pytest.raises(TaskParameterError):
        t.sample(np.random.default_rng(0), -1)
    with pytest.raises(TaskInputError):
        t.label([[0, 1, 2, 0, 1]])


class _Padded(Task):
    """A variable-length task outside the registry: label = the row's length is odd."""

    name = "padded_test"
    kind = "boolean"
    params = (tasks.Param("n", int, 4, "largest row length", minimum=1),)

    def build_vocab(self):
        return ("a", "b", PAD)

    def label(self, tokens):
        x = np.atleast_2d(tokens)
        return ((x != self.pad_id).sum(axis=1) % 2).astype(np.int64)

    def sample(self, rng, count, distribution=None):
        lengths = rng.integers(1, self.n + 1, size=count)
        x = rng.integers(0, 2, size=(count, self.n))
        x[np.arange(self.n)[None, :] >= lengths[:, None]] = self.pad_id
        return Batch(x, self.label(x), None, lengths)


def test_a_task_class_of_its_own_gets_the_checks_and_the_pad_passes():
    t = _Padded()
    x = np.array([[0, 1, 2, 2], [1, 2, 2, 2]])
    assert t.label(x).tolist() == [0, 1]  # the pad id is a vocabulary id
    assert t.render(x[0]) == "a b"  # padding dropped
    with pytest.raises(TaskInputError, match="2 is the padding"):
        t.label([[0, 3, 2, 2]])
    with pytest.raises(TaskInputError, match="numpy Generator"):
        t.sample(None, 2)
    assert len(t.sample(np.random.default_rng(0), 3)) == 3
