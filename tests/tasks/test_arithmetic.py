"""Tests of binary_add: labels against Python-int addition, closed-form counts over all
inputs, both layouts, the per-bit decision view, parsing and bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.cli.main import main
from theorybench.errors import EnumerationTooLarge, TaskInputError, TaskParameterError
from theorybench.tasks.arithmetic.binary_add import add_bits

LAYOUTS = ("msb", "interleaved")


def _text(a: int, b: int, n: int, layout: str) -> str:
    """The instance a + b written by hand (independent of the task's encoder)."""
    abits, bbits = format(a, f"0{n}b"), format(b, f"0{n}b")   # MSB first
    if layout == "msb":
        return " ".join(abits) + " + " + " ".join(bbits) + " ="
    pairs = [f"{x} {y}" for x, y in zip(abits[::-1], bbits[::-1])]
    return " ".join(pairs) + " ="


def _answer(a: int, b: int, n: int, layout: str) -> str:
    bits = format(a + b, f"0{n + 1}b")
    return " ".join(bits if layout == "msb" else bits[::-1])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 64])
def test_label_equals_python_int_oracle_on_samples(n, layout):
    task = tasks.get("binary_add", n=n, layout=layout)
    batch = task.sample(np.random.default_rng(n), 2000)
    length = 2 * n + (2 if layout == "msb" else 1)
    assert batch.tokens.shape == (2000, length) and batch.tokens.dtype == np.int64
    assert batch.labels.shape == (2000, n + 1)
    assert np.array_equal(batch.labels, task.label(batch.tokens))
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))
    assert batch.mask.shape == (2000, n + 1) and batch.mask.all()
    assert np.all(batch.lengths == length)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_enumerate_all_inputs_counts_and_oracle(n, layout):
    task = tasks.get("binary_add", n=n, layout=layout)
    x = task.enumerate()
    assert x.shape[0] == 4 ** n
    assert len({tuple(r) for r in x.tolist()}) == 4 ** n
    labels = task.label(x)
    assert np.array_equal(labels, task.oracle(x))
    views = {v.name: v for v in task.decision_view()}
    # carry-out is 1 for exactly the pairs with a + b >= 2^n: 2^n (2^n - 1) / 2 of them
    assert int(views["carry_out"].evaluate(x).sum()) == (2 ** n) * (2 ** n - 1) // 2
    # every lower sum bit is 1 on exactly half of all inputs
    for j in range(n):
        assert int(views[f"sum_bit_{j}"].evaluate(x).sum()) == 4 ** n // 2


def test_enumerate_too_large():
    with pytest.raises(EnumerationTooLarge, match="enumeration limit"):
        tasks.get("binary_add", n=12).enumerate()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_decision_view(layout):
    n = 4
    task = tasks.get("binary_add", n=n, layout=layout)
    views = task.decision_view()
    assert [v.name for v in views] == ["carry_out"] + [f"sum_bit_{j}" for j in range(n)]
    main = views[0]
    assert main.length == task.input_length()
    seps = [i for i, c in enumerate(main.choices) if len(c) == 1]
    assert len(seps) == (2 if layout == "msb" else 1)
    assert all(main.choices[i] == (0, 1) for i in range(main.length) if i not in seps)
    assert main.space_size() == 4 ** n
    x = main.sample(np.random.default_rng(0), 500)
    full = task.label(x)
    for v in views:
        j = n if v.name == "carry_out" else int(v.name.rsplit("_", 1)[1])
        col = n - j if layout == "msb" else j       # answer order
        assert np.array_equal(v.evaluate(x), full[:, col])


@pytest.mark.parametrize("n", list(tasks.family("binary_add").analysis_ns))
def test_analysis_sizes_fit_enumeration(n):
    assert tasks.get("binary_add", n=n).decision_view()[0].space_size() <= 1 << 22


def test_known_examples():
    t = tasks.get("binary_add", n=2)
    assert t.render_label(t.label(t.parse("1 0 + 0 1 =")[None])[0]) == "0 1 1"
    assert t.render_label(t.label(t.parse("1 1 + 1 1 =")[None])[0]) == "1 1 0"
    t = tasks.get("binary_add", n=2, layout="interleaved")
    # a = 2 (a0=0, a1=1), b = 1 (b0=1, b1=0): sum 3, LSB first "1 1 0"
    assert t.render_label(t.label(t.parse("0 1 1 0 =")[None])[0]) == "1 1 0"


def test_balance_of_sum_bits_under_uniform():
    n = 12
    task = tasks.get("binary_add", n=n)
    batch = task.sample(np.random.default_rng(5), 20000)
    means = batch.labels.mean(axis=0)
    # lower bits are exactly fair coins; the carry-out has mean 1/2 - 2^-(n+1)
    assert np.all(np.abs(means - 0.5) < 0.02), means


def test_same_seed_same_batch():
    task = tasks.get("binary_add", n=9)
    a = task.sample(np.random.default_rng(7), 100)
    b = task.sample(np.random.default_rng(7), 100)
    c = task.sample(np.random.default_rng(8), 100)
    assert np.array_equal(a.tokens, b.tokens) and np.array_equal(a.labels, b.labels)
    assert not np.array_equal(a.tokens, c.tokens)


def test_add_bits_against_ints():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, size=(300, 40)).astype(np.int8)
    b = rng.integers(0, 2, size=(300, 40)).astype(np.int8)
    s = add_bits(a, b)
    weights = [1 << j for j in range(41)]
    for r in range(300):
        va = sum(int(v) << j for j, v in enumerate(a[r]))
        vb = sum(int(v) << j for j, v in enumerate(b[r]))
        assert sum(int(v) * w for v, w in zip(s[r], weights)) == va + vb


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40), st.data(), st.sampled_from(LAYOUTS))
def test_parse_label_render_property(n, data, layout):
    a = data.draw(st.integers(0, 2 ** n - 1))
    b = data.draw(st.integers(0, 2 ** n - 1))
    task = tasks.get("binary_add", n=n, layout=layout)
    text = _text(a, b, n, layout)
    row = task.parse(text)
    assert task.render(row) == text
    assert task.render_label(task.label(row[None])[0]) == _answer(a, b, n, layout)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 300))
def test_parameter_coercion_property(n):
    t = tasks.get("binary_add", n=str(n), layout="interleaved")
    assert t.n == n and t.input_length() == 2 * n + 1
    assert tasks.get("binary_add", n=n).input_length() == 2 * n + 2


def test_bad_parameters():
    with pytest.raises(TaskParameterError, match="n=0"):
        tasks.get("binary_add", n=0)
    with pytest.raises(TaskParameterError, match="layout='lsb'.*'msb', 'interleaved'"):
        tasks.get("binary_add", n=3, layout="lsb")
    with pytest.raises(TaskParameterError, match="n='x'"):
        tasks.get("binary_add", n="x")


@pytest.mark.parametrize("text,match", [
    ("1 0 + 0 1", "expects 6 tokens"),
    ("1 0 0 1 0 =", "token 3 .*must be '\\+'"),
    ("1 0 + 0 1 +", "token 6 .*must be '='"),
    ("1 + + 0 1 =", "token 2 .*'0' or '1'"),
    ("1 2 + 0 1 =", "token 2 '2' is not in the vocabulary"),
])
def test_bad_instances(text, match):
    with pytest.raises(TaskInputError, match=match):
        tasks.get("binary_add", n=2).parse(text)


def test_cli_label_and_bad_input(capsys):
    assert main(["label", "binary_add", "--n", "2", "1 1 + 0 1 ="]) == 0
    assert capsys.readouterr().out.strip() == "1 0 0"
    run = [sys.executable, "-m", "theorybench.cli.main", "label", "binary_add", "--n", "2"]
    bad = subprocess.run(run + ["1 1 + 0 1"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "expects 6 tokens" in bad.stderr and "Traceback" not in bad.stderr
