"""Tests of dyck and dyck_bounded: labels against a plain stack, counts over all words
against Catalan numbers and an independent transfer-matrix count, uniformity of the
positive sampler, the one-corruption negatives, parsing and bad input."""

from __future__ import annotations

import collections
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.cli.main import main
from theorybench.errors import EnumerationTooLarge, TaskInputError, TaskParameterError
from theorybench.tasks.dyck.common import BRACKETS, bounded_up_table


def _cases():
    for n in (2, 4, 10, 32):
        for k in (1, 2, 4):
            yield "dyck", n, {"k": k}
        for k, D in ((1, 1), (1, 2), (2, 3), (3, 1), (1, 40)):
            yield "dyck_bounded", n, {"k": k, "D": D}


@pytest.mark.parametrize("name,n,params", list(_cases()))
def test_label_equals_stack_oracle_on_samples(name, n, params):
    task = tasks.get(name, n=n, **params)
    for dist in task.distributions:
        batch = task.sample(np.random.default_rng(n), 1500, dist)
        assert batch.tokens.shape == (1500, n) and batch.tokens.dtype == np.int64
        assert np.array_equal(batch.labels, task.label(batch.tokens))
        assert np.array_equal(batch.labels, task.oracle(batch.tokens))
        if dist == "balanced":
            assert abs(int(batch.labels.sum()) - 750) <= 1


def _walks(n: int, cap: int) -> int:
    """Walks of n +-1 steps from 0 to 0 inside [0, cap]: (A^n)[0, 0], A tridiagonal."""
    A = np.zeros((cap + 1, cap + 1), dtype=object)
    for d in range(cap):
        A[d, d + 1] = A[d + 1, d] = 1
    P = np.identity(cap + 1, dtype=object)
    for _ in range(n):
        P = P.dot(A)
    return int(P[0, 0])


@pytest.mark.parametrize("k,ns", [(1, (2, 4, 6, 8, 10, 12, 14, 16)), (2, (2, 4, 6, 8, 10)),
                                  (3, (2, 4, 6))])
def test_dyck_counts_are_catalan_times_k_to_the_m(k, ns):
    for n in ns:
        task = tasks.get("dyck", n=n, k=k)
        x = task.enumerate()
        assert x.shape == ((2 * k) ** n, n)
        m = n // 2
        assert int(task.label(x).sum()) == math.comb(2 * m, m) // (m + 1) * k ** m


@pytest.mark.parametrize("k,D,nmax", [(1, 1, 16), (1, 2, 16), (1, 3, 14), (1, 4, 14),
                                      (2, 1, 10), (2, 2, 10), (2, 3, 8)])
def test_bounded_counts(k, D, nmax):
    for n in range(2, nmax + 1, 2):
        task = tasks.get("dyck_bounded", n=n, k=k, D=D)
        x = task.enumerate()
        count = int(task.label(x).sum())
        m = n // 2
        assert count == _walks(n, D) * k ** m
        if k == 1 and D == 1:
            assert count == 1                                  # only "()()...()"
        if k == 1 and D == 2:
            assert count == 2 ** (m - 1)


@pytest.mark.parametrize("name,params,n", [("dyck", {"k": 2}, 8), ("dyck", {"k": 1}, 12),
                                           ("dyck_bounded", {"k": 2, "D": 2}, 8),
                                           ("dyck_bounded", {"k": 1, "D": 3}, 14)])
def test_label_equals_oracle_on_all_words(name, params, n):
    task = tasks.get(name, n=n, **params)
    x = task.enumerate()
    assert np.array_equal(task.label(x), task.oracle(x))


@pytest.mark.parametrize("name,params,n", [("dyck", {"k": 1}, 8), ("dyck", {"k": 2}, 6),
                                           ("dyck_bounded", {"k": 2, "D": 2}, 8),
                                           ("dyck_bounded", {"k": 1, "D": 3}, 10)])
def test_positive_sampler_is_uniform(name, params, n):
    task = tasks.get(name, n=n, **params)
    x = task.enumerate()
    members = {tuple(r) for r in x[task.label(x) == 1].tolist()}
    per = 400
    draws = task.positives(np.random.default_rng(11), per * len(members))
    counts = collections.Counter(map(tuple, draws.tolist()))
    assert set(counts) == members                 # every member, nothing else
    worst = max(abs(c - per) for c in counts.values())
    assert worst < 6 * math.sqrt(per), (worst, per)


@pytest.mark.parametrize("name,params", [("dyck", {"k": 1}), ("dyck", {"k": 3}),
                                         ("dyck_bounded", {"k": 2, "D": 2})])
def test_negatives_are_one_corruption_of_a_member(name, params):
    n = 8
    task = tasks.get(name, n=n, **params)
    batch = task.sample(np.random.default_rng(12), 300)
    neg = batch.tokens[batch.labels == 0]
    alphabet = 2 * task.k
    for row in neg:
        # all words at Hamming distance 1: some must be a member
        near = np.repeat(row[None], n * alphabet, axis=0)
        near[np.arange(n * alphabet), np.repeat(np.arange(n), alphabet)] = np.tile(
            np.arange(alphabet), n)
        assert task.oracle(near).any()


def test_bounded_table_matches_ballot_formula_when_unbounded():
    n = 40
    dyck = tasks.get("dyck", n=n, k=1)
    bounded = tasks.get("dyck_bounded", n=n, k=1, D=n)
    assert bounded.cap == dyck.cap == n // 2
    a, b = bounded.up_probabilities(), dyck.up_probabilities()
    # compare on the reachable (position, depth) states
    i, d = np.meshgrid(np.arange(n), np.arange(n // 2 + 1), indexing="ij")
    reach = (d <= i) & ((i - d) % 2 == 0) & (d <= n - i)
    assert np.allclose(a[:, : n // 2 + 1][reach], b[:, : n // 2 + 1][reach])
    t = bounded_up_table(6, 1)
    assert np.allclose(t[0::2, 0], 1.0) and np.allclose(t[1::2, 1], 0.0)  # D = 1: "()()()"


def test_known_examples():
    d = tasks.get("dyck", n=6, k=2)
    for text, y in (("( [ ] ) [ ]", 1), ("( [ ) ] [ ]", 0), ("( ( ( ) ) )", 1),
                    (") ( [ ] [ ]", 0), ("( ( [ ] ) (", 0)):
        assert d.label(d.parse(text)[None])[0] == y
    b = tasks.get("dyck_bounded", n=6, k=1, D=2)
    assert b.label(b.parse("( ( ) ( ) )")[None])[0] == 1
    assert b.label(b.parse("( ( ( ) ) )")[None])[0] == 0               # depth 3 > 2


def test_vocab_and_decision_view():
    t = tasks.get("dyck", n=4, k=3)
    assert t.vocab == ("(", ")", "[", "]", "{", "}")
    assert tasks.get("dyck_bounded", n=4, k=4).vocab == BRACKETS
    views = t.decision_view()
    assert len(views) == 1 and views[0].name == "membership"
    assert views[0].choices == (tuple(range(6)),) * 4
    x = views[0].sample(np.random.default_rng(0), 100)
    assert np.array_equal(views[0].evaluate(x), t.oracle(x))
    assert tasks.get("dyck", n=6, k=1).decision_view()[0].binary


@pytest.mark.parametrize("name", ["dyck", "dyck_bounded"])
def test_analysis_sizes_fit_enumeration(name):
    for n in tasks.family(name).analysis_ns:
        assert tasks.get(name, n=n).decision_view()[0].space_size() <= 1 << 22


def test_enumerate_too_large():
    with pytest.raises(EnumerationTooLarge, match="use sample"):
        tasks.get("dyck", n=12, k=2).enumerate()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 8), st.data())
def test_render_parse_label_property(k, D, half, data):
    n = 2 * half
    word = data.draw(st.lists(st.sampled_from(BRACKETS[: 2 * k]), min_size=n, max_size=n))
    text = " ".join(word)
    for task in (tasks.get("dyck", n=n, k=k), tasks.get("dyck_bounded", n=n, k=k, D=D)):
        row = task.parse(text)
        assert task.render(row) == text
        assert task.label(row[None])[0] == task.oracle(row[None])[0]


@settings(max_examples=60, deadline=None)
@given(st.integers(-3, 20), st.integers(-1, 6), st.integers(-1, 4))
def test_parameters_property(n, k, D):
    ok = n >= 2 and n % 2 == 0 and 1 <= k <= 4 and D >= 1
    if ok:
        t = tasks.get("dyck_bounded", n=n, k=k, D=D)
        assert t.cap == min(D, n // 2) and len(t.vocab) == 2 * k
    else:
        with pytest.raises(TaskParameterError):
            tasks.get("dyck_bounded", n=n, k=k, D=D)


@pytest.mark.parametrize("name,params,match", [
    ("dyck", {"n": 7}, "n=7 is odd.*n=6 or n=8"),
    ("dyck", {"n": 0}, "n=0"),
    ("dyck", {"n": 4, "k": 0}, "k=0 is too small"),
    ("dyck", {"n": 4, "k": 5}, "k=5 is too large.*<= 4"),
    ("dyck_bounded", {"n": 4, "D": 0}, "D=0 is too small.*>= 1"),
    ("dyck_bounded", {"n": 4, "D": "deep"}, "D='deep' is not an integer"),
])
def test_bad_parameters(name, params, match):
    with pytest.raises(TaskParameterError, match=match):
        tasks.get(name, **params)


@pytest.mark.parametrize("text,match", [
    ("( )", "expects 4 brackets, got 2"),
    ("( a ) )", "'a' is not in the vocabulary"),
    ("( < > )", "'<' is not in the vocabulary"),     # k = 2 has no angle brackets
])
def test_bad_instances(text, match):
    with pytest.raises(TaskInputError, match=match):
        tasks.get("dyck", n=4, k=2).parse(text)


def test_label_rejects_foreign_ids():
    with pytest.raises(TaskInputError, match="token ids in 0..3"):
        tasks.get("dyck", n=4, k=2).label(np.array([[0, 1, 9, 1]]))


def test_cli_label_and_bad_input(capsys):
    assert main(["label", "dyck", "--n", "4", "( [ ] )"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    base = [sys.executable, "-m", "theorybench.cli.main", "label"]
    bad = subprocess.run(base + ["dyck_bounded", "--n", "4", "--param", "D=0", "( ( ) )"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "D=0" in bad.stderr and "Traceback" not in bad.stderr
