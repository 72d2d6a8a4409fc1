"""Tests of the task registry and of the interface contract every registered family keeps.

The contract tests run over whatever is registered (all 18 families of docs/theories.md
section 9 once they exist): class metadata, parameter validation, sample/label
consistency, determinism, render/parse round trips and the decision view.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError
from theorybench.tasks.base import Batch, DecisionFunction, Param, Task

SUITE = ("all", "any", "majority", "parity", "index", "index_all", "index_any",
         "index_parity", "khop", "kv_retrieval", "sparse_all", "sparse_any", "sparse_parity",
         "binary_add",
         "edge_exists", "reach_directed", "reach_undirected", "dyck_bounded", "dyck")
MINE = SUITE[:13]
FAMILIES = tasks.families()


def test_all_eighteen_families_are_registered():
    """Fails until every family of the task suite (docs/theories.md §9) exists (intended);
    the 19th is kv_retrieval (binary-key retrieval of proofs/claims/retrieval.py)."""
    missing = [name for name in SUITE if name not in FAMILIES]
    assert not missing, f"families not registered yet: {missing}"
    assert len(FAMILIES) == 19


def test_boolean_retrieval_and_sparse_families_are_registered():
    for name in MINE:
        assert name in FAMILIES
    kinds = {name: FAMILIES[name].kind for name in MINE}
    assert [n for n in MINE if kinds[n] == "boolean"] == ["all", "any", "majority", "parity"]
    assert [n for n in MINE if kinds[n] == "retrieval"] == ["index", "index_all", "index_any",
                                                          "index_parity", "khop",
                                                          "kv_retrieval"]
    assert [n for n in MINE if kinds[n] == "sparse"] == ["sparse_all", "sparse_any",
                                                       "sparse_parity"]


def test_listing_order_groups_by_kind():
    order = {k: i for i, k in enumerate(tasks.KINDS)}
    ranks = [order[cls.kind] for cls in FAMILIES.values()]
    assert ranks == sorted(ranks)
    assert list(FAMILIES)[:4] == ["all", "any", "majority", "parity"]


def test_unknown_task_suggests_a_name():
    with pytest.raises(TaskParameterError, match=r"unknown task 'majorty'.*did you mean majority"):
        tasks.get("majorty", n=5)
    with pytest.raises(TaskParameterError, match="known tasks: all, any"):
        tasks.family("nothing_like_it")


def test_registering_twice_is_refused():
    cls = FAMILIES["parity"]
    assert tasks.register(cls) is cls  # the same class again is harmless

    class Impostor(Task):
        name = "parity"
        kind = "boolean"

    with pytest.raises(TypeError, match="registered twice"):
        tasks.register(Impostor)

    class Nameless(Task):
        kind = "boolean"

    with pytest.raises(TypeError, match="needs a name"):
        tasks.register(Nameless)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family_metadata(name):
    cls = FAMILIES[name]
    assert cls.name == name and cls.kind in tasks.KINDS
    assert isinstance(cls.summary, str) and cls.summary
    assert sys.modules[cls.__module__].__doc__, "family module needs a docstring"
    assert cls.params and cls.params[0].name == "n"
    for p in cls.params:
        assert isinstance(p, Param) and p.doc
        if p.type is int:
            assert p.minimum is not None
    assert cls.distributions and all(isinstance(d, str) for d in cls.distributions)
    assert cls.output in ("final", "per_position", "answer")
    for ns in (cls.analysis_ns, cls.train_ns):
        assert ns and list(ns) == sorted(set(ns))
    for n in cls.analysis_ns + cls.train_ns:
        tasks.get(name, n=n)  # every listed n is valid with default parameters


@pytest.mark.parametrize("name", MINE)
def test_analysis_sizes_fit_enumeration(name):
    for n in FAMILIES[name].analysis_ns:
        view = tasks.get(name, n=n).decision_view()[0]
        assert view.space_size() <= 1 << 22


@pytest.mark.parametrize("name", list(FAMILIES))
def test_unknown_and_bad_parameters(name):
    with pytest.raises(TaskParameterError, match="unknown parameter"):
        tasks.get(name, no_such_parameter=1)
    with pytest.raises(TaskParameterError, match="n="):
        tasks.get(name, n="abc")
    with pytest.raises(TaskParameterError, match="n="):
        tasks.get(name, n=0)


def _default_n(cls):
    return cls.train_ns[0]


VARIANTS = [(name, point) for name in FAMILIES for point in tasks.grid(name).points()]


@pytest.mark.parametrize("name, point", VARIANTS,
                         ids=[tasks.task_label(n, p) for n, p in VARIANTS])
def test_interface_contract(name, point):
    """Every family at every studied variant: shapes, labels = reference, same seed same
    batch, render/parse round trip."""
    cls = FAMILIES[name]
    task = tasks.get(name, n=_default_n(cls), **point)
    assert task.spec()["task"] == name
    again = tasks.get(name, **{k: v for k, v in task.spec().items() if k != "task"})
    assert again.values == task.values
    assert isinstance(task.vocab, tuple) and all(isinstance(t, str) for t in task.vocab)
    for dist in cls.distributions:
        batch = task.sample(np.random.default_rng(0), 300, dist)
        assert isinstance(batch, Batch) and len(batch) == 300
        assert batch.tokens.dtype == np.int64 and batch.tokens.ndim == 2
        assert batch.tokens.min() >= 0 and batch.tokens.max() < len(task.vocab)
        assert np.array_equal(batch.labels, task.label(batch.tokens))
        assert batch.labels.min() >= 0 and batch.labels.max() < len(task.label_vocab)
        if task.output == "final":
            assert batch.labels.shape == (300,)
        else:
            assert batch.mask is not None and batch.mask.shape == batch.labels.shape
            assert np.array_equal(batch.mask, task.output_mask(batch.tokens))
        same = task.sample(np.random.default_rng(0), 300, dist)
        other = task.sample(np.random.default_rng(1), 300, dist)
        assert np.array_equal(batch.tokens, same.tokens)
        assert np.array_equal(batch.labels, same.labels)
        assert not np.array_equal(batch.tokens, other.tokens)
        for r in range(20):
            row = batch.tokens[r, : batch.lengths[r]]
            assert np.array_equal(task.parse(task.render(row)), row)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_label_equals_oracle_at_default_parameters(name):
    task = tasks.get(name, n=_default_n(FAMILIES[name]))
    batch = task.sample(np.random.default_rng(3), 500)
    assert np.array_equal(task.oracle(batch.tokens), batch.labels)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_decision_view_contract(name):
    cls = FAMILIES[name]
    task = tasks.get(name, n=cls.analysis_ns[0])
    views = task.decision_view()
    assert views and all(isinstance(v, DecisionFunction) for v in views)
    main = views[0]
    x = main.sample(np.random.default_rng(0), 64)
    assert x.shape == (64, main.length)
    for i, c in enumerate(main.choices):
        assert np.isin(x[:, i], c).all()
    if main.valid is not None:
        assert main.valid(x).all()
    y = main.evaluate(x)
    assert y.shape == (64,)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_tiny_batches(name):
    task = tasks.get(name, n=_default_n(FAMILIES[name]))
    for dist in FAMILIES[name].distributions:
        empty = task.sample(np.random.default_rng(0), 0, dist)
        assert len(empty) == 0 and len(empty.labels) == 0
        one = task.sample(np.random.default_rng(0), 1, dist)
        assert len(one) == 1 and np.array_equal(one.labels, task.label(one.tokens))
