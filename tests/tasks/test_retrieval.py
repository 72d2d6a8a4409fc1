"""Tests of the retrieval families: index, index_all/any/parity (both encodings), khop.

Labels against the per-row oracles, hand-worked k-hop examples, closed-form enumeration
counts, the samplers against the distributions they claim, and input validation.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, TaskInputError, TaskParameterError

QUERY = ("index_all", "index_any", "index_parity")
OP = {"index_all": all, "index_any": any, "index_parity": lambda bs: sum(bs) % 2 == 1,
      "index": all}


def _perm(n, k):
    return math.factorial(n) // math.factorial(n - k)


# ---- index and index_* -------------------------------------------------------------------

def _query_cases():
    for n in (1, 2, 7, 33):
        yield "index", n, {}, "uniform"
    for name in QUERY:
        for n, k in [(1, 1), (3, 3), (6, 2), (16, 3), (40, 5), (12, 12)]:
            for mode in ("tokens", "mask"):
                for dist in ("balanced", "uniform"):
                    yield name, n, {"k": k, "mode": mode}, dist


@pytest.mark.parametrize("name,n,kw,dist", list(_query_cases()))
def test_query_label_equals_oracle(name, n, kw, dist):
    task = tasks.get(name, n=n, **kw)
    batch = task.sample(np.random.default_rng(n), 2000, dist)
    assert batch.tokens.shape == (2000, task.input_length())
    assert task.valid_inputs(batch.tokens).all()
    assert np.array_equal(batch.labels, task.label(batch.tokens))
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))


def _decode(task, row):
    """Queried positions (0-based) of one row, from the rendered text."""
    words = task.render(row).split()
    x = [int(w) for w in words[: task.n]]
    if task.mode == "tokens":
        q = [int(w[1:]) - 1 for w in words[task.n:]]
    else:
        q = [i for i, w in enumerate(words[task.n:]) if w == "1"]
    return x, q


@pytest.mark.parametrize("name,mode", [("index", "tokens")]
                         + [(q, m) for q in QUERY for m in ("tokens", "mask")])
def test_query_labels_by_hand_decoding(name, mode):
    kw = {} if name == "index" else {"k": 3, "mode": mode}
    task = tasks.get(name, n=9, **kw)
    batch = task.sample(np.random.default_rng(4), 300)
    for row, lab in zip(batch.tokens, batch.labels):
        x, q = _decode(task, row)
        assert len(q) == len(set(q)) == task.k
        assert int(lab) == int(OP[name]([x[i] for i in q]))


def test_index_vocabulary_and_example():
    task = tasks.get("index", n=4)
    assert task.vocab == ("0", "1", "q1", "q2", "q3", "q4")
    assert task.input_length() == 5
    for text, label in [("0 1 1 0 q1", 0), ("0 1 1 0 q2", 1), ("0 1 1 0 q4", 0)]:
        assert int(task.label(task.parse(text)[None])[0]) == label
    t = tasks.get("index_parity", n=4, k=2, mode="mask")
    assert t.vocab == ("0", "1") and t.input_length() == 8
    assert int(t.label(t.parse("1 1 0 1 1 0 0 1")[None])[0]) == 0
    assert int(t.label(t.parse("1 1 0 1 0 1 1 0")[None])[0]) == 1


@pytest.mark.parametrize("n", [1, 3, 6, 10])
def test_index_enumerate_counts(n):
    task = tasks.get("index", n=n)
    x = task.enumerate()
    assert len(x) == 2 ** n * n
    assert int(task.label(x).sum()) == n * 2 ** (n - 1)


@pytest.mark.parametrize("name", QUERY)
@pytest.mark.parametrize("n,k", [(1, 1), (4, 2), (5, 3), (4, 4), (7, 1)])
@pytest.mark.parametrize("mode", ["tokens", "mask"])
def test_query_enumerate_counts(name, n, k, mode):
    task = tasks.get(name, n=n, k=k, mode=mode)
    x = task.enumerate()
    queries = _perm(n, k) if mode == "tokens" else math.comb(n, k)
    assert len(x) == 2 ** n * queries
    assert len({tuple(r) for r in x}) == len(x)
    labels = task.label(x)
    pos = {"index_all": 2 ** (n - k), "index_any": 2 ** n - 2 ** (n - k),
           "index_parity": 2 ** (n - 1)}[name] * queries
    assert int(labels.sum()) == pos
    assert np.array_equal(labels, task.oracle(x))


@pytest.mark.parametrize("name", QUERY)
@pytest.mark.parametrize("mode", ["tokens", "mask"])
def test_balanced_sampler_is_uniform_within_class(name, mode):
    """The balanced distribution is the uniform one conditioned on the label."""
    task = tasks.get(name, n=4, k=2, mode=mode)
    count = 80000
    batch = task.sample(np.random.default_rng(1), count)
    assert abs(int(batch.labels.sum()) - count // 2) <= 1
    every = task.enumerate()
    every_labels = task.label(every)
    index = {tuple(r): i for i, r in enumerate(every.tolist())}
    drawn = np.array([index[tuple(r)] for r in batch.tokens.tolist()])
    for cls in (0, 1):
        members = np.flatnonzero(every_labels == cls)
        counts = np.bincount(drawn[batch.labels == cls], minlength=len(every))[members]
        expected = (batch.labels == cls).sum() / len(members)
        assert counts.min() > 0
        assert np.all(np.abs(counts - expected) < 5 * math.sqrt(expected))


@pytest.mark.parametrize("name,rate", [("index", 1 / 2), ("index_all", 1 / 8),
                                       ("index_any", 7 / 8), ("index_parity", 1 / 2)])
def test_uniform_rates(name, rate):
    count = 40000
    labels = tasks.get(name, n=20).sample(np.random.default_rng(2), count, "uniform").labels
    assert abs(labels.mean() - rate) < 5 * math.sqrt(rate * (1 - rate) / count)


def test_queries_uniform_in_every_slot():
    task = tasks.get("index_all", n=8, k=3)
    q = task.sample(np.random.default_rng(3), 24000).tokens[:, 8:] - 2
    for j in range(3):
        counts = np.bincount(q[:, j], minlength=8)
        assert np.all(np.abs(counts - 3000) < 5 * math.sqrt(3000))


@pytest.mark.parametrize("text,match", [
    ("0 1 1 0 1 q2 q2 q3", "q2 is repeated"),
    ("0 1 1 0 1 q2 q3", "expects 8 tokens"),
    ("0 1 1 0 1 q2 q3 q4 q5", "expects 8 tokens"),
    ("0 1 q1 0 1 q2 q3 q4", "token 3 is 'q1'.*data bits"),
    ("0 1 1 0 1 q2 1 q4", "token 7 is '1'.*queries"),
    ("0 1 1 0 1 q2 q3 q6", "not in the vocabulary"),
])
def test_query_parse_errors(text, match):
    with pytest.raises(TaskInputError, match=match):
        tasks.get("index_any", n=5).parse(text)


def test_mask_parse_errors():
    task = tasks.get("index_all", n=4, k=2, mode="mask")
    with pytest.raises(TaskInputError, match="has 3 ones but must mark exactly k=2"):
        task.parse("0 1 1 0 1 1 1 0")
    with pytest.raises(TaskInputError, match="expects 8 tokens"):
        task.parse("0 1 1 0 1 1")
    with pytest.raises(TaskInputError, match="not in the vocabulary"):
        task.parse("0 1 1 0 q1 q2 0 0")
    assert not task.valid_inputs(np.array([[0, 1, 1, 0, 0, 0, 0, 1]]))[0]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 24), data=st.data())
def test_query_round_trip_property(n, data):
    name = data.draw(st.sampled_from(QUERY))
    k = data.draw(st.integers(1, n))
    mode = data.draw(st.sampled_from(["tokens", "mask"]))
    task = tasks.get(name, n=n, k=str(k), mode=mode)
    bits = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    q = data.draw(st.permutations(range(1, n + 1)))[:k]
    if mode == "tokens":
        words = [str(b) for b in bits] + [f"q{j}" for j in q]
    else:
        words = [str(b) for b in bits] + ["1" if i + 1 in q else "0" for i in range(n)]
    row = task.parse(" ".join(words))
    assert task.render(row) == " ".join(words)
    assert np.array_equal(task.parse(task.render(row)), row)
    assert int(task.label(row[None])[0]) == int(OP[name]([bits[j - 1] for j in q]))
    if mode == "tokens" and k >= 2:
        dup = words[:n] + [words[n]] * 2 + words[n + 2:]
        with pytest.raises(TaskInputError, match="repeated"):
            task.parse(" ".join(dup))


@pytest.mark.parametrize("name,kwargs,match", [
    ("index_all", {"n": 3, "k": 4}, r"k=4 is too large for n=3.*1 <= k <= n"),
    ("index_any", {"n": 3, "k": 0}, "k=0 is too small"),
    ("index_parity", {"n": 3, "mode": "bits"}, "mode='bits' is not one of"),
    ("index", {"n": 3, "k": 2}, "unknown parameter"),
    ("index", {"n": 0}, "n=0 is too small"),
    ("index", {"n": "abc"}, "not an integer"),
])
def test_query_bad_parameters(name, kwargs, match):
    with pytest.raises(TaskParameterError, match=match):
        tasks.get(name, **kwargs)


@pytest.mark.parametrize("name", ("index",) + QUERY)
def test_query_seeds_and_decision_view(name):
    task = tasks.get(name, n=10)
    a = task.sample(np.random.default_rng(5), 200)
    b = task.sample(np.random.default_rng(5), 200)
    c = task.sample(np.random.default_rng(6), 200)
    assert np.array_equal(a.tokens, b.tokens) and np.array_equal(a.labels, b.labels)
    assert not np.array_equal(a.tokens, c.tokens)
    small = tasks.get(name, n=5)
    view = small.decision_view()[0]
    x = view.enumerate()
    assert len(x) == len(small.enumerate())
    assert np.array_equal(view.evaluate(x), small.oracle(x))
    assert view.valid(view.sample(np.random.default_rng(0), 100)).all()
    for n in tasks.family(name).analysis_ns:
        for mode in (("tokens",) if name == "index" else ("tokens", "mask")):
            kw = {} if name == "index" else {"mode": mode}
            assert tasks.get(name, n=n, **kw).decision_view()[0].space_size() <= 1 << 22


# ---- khop ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text,k,expected", [
    ("a b a c a", 1, "_ _ b _ c"),
    ("a b a c a", 2, "_ _ _ _ _"),
    ("c d c a d a d b", 1, "_ _ d _ c d a _"),
    ("c d c a d a d b", 2, "_ _ _ _ d c d _"),
    ("a b a b a b", 1, "_ _ b a b a"),
    ("a b a b a b", 2, "_ _ _ b a b"),
    ("a b a b a b", 3, "_ _ _ _ b a"),
    ("a b c a b c a b", 3, "_ _ _ _ _ _ _ b"),
])
def test_khop_hand_examples(text, k, expected):
    task = tasks.get("khop", n=len(text.split()), k=k)
    row = task.parse(text)
    lab = task.label(row[None])
    assert task.render_label(lab[0], task.output_mask(row[None])[0]) == expected
    assert np.array_equal(lab, task.oracle(row[None]))


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("alphabet", [2, 3, 4, 26])
@pytest.mark.parametrize("n", [1, 2, 9, 40])
def test_khop_label_equals_oracle(k, alphabet, n):
    task = tasks.get("khop", n=n, k=k, alphabet=alphabet)
    batch = task.sample(np.random.default_rng(n * k + alphabet), 600)
    assert batch.tokens.shape == (600, n) and batch.labels.shape == (600, n)
    assert batch.mask.shape == (600, n) and batch.mask.all()
    assert task.valid_inputs(batch.tokens).all()
    assert np.array_equal(batch.labels, task.label(batch.tokens))
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))


def test_khop_label_equals_oracle_long_rows():
    task = tasks.get("khop", n=300, k=3)
    batch = task.sample(np.random.default_rng(9), 40)
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))


def test_khop_find():
    task = tasks.get("khop", n=6)
    f = task.find(task.parse("a b a c a b")[None])[0]
    # 0-based: position 2 (a) -> after position 0 = 1; position 4 (a) -> 3; 5 (b) -> 2
    assert f.tolist() == [-1, -1, 1, -1, 3, 2]


@pytest.mark.parametrize("n,alphabet", [(1, 4), (5, 4), (7, 3), (9, 2), (6, 5)])
def test_khop_enumerate(n, alphabet):
    task = tasks.get("khop", n=n, alphabet=alphabet)
    x = task.enumerate()
    assert len(x) == alphabet * (alphabet - 1) ** (n - 1)
    assert len({tuple(r) for r in x}) == len(x)
    assert not np.any(x[:, 1:] == x[:, :-1])
    brute = [r for r in product(range(alphabet), repeat=n)
             if all(r[i] != r[i - 1] for i in range(1, n))]
    assert sorted(map(tuple, x.tolist())) == sorted(brute)
    assert np.array_equal(task.label(x), task.oracle(x))


@pytest.mark.parametrize("alphabet", [3, 4])
def test_khop_sampler_is_uniform_on_valid_inputs(alphabet):
    task = tasks.get("khop", n=4, alphabet=alphabet)
    count = 48000
    x = task.sample(np.random.default_rng(3), count).tokens
    codes = x @ (alphabet ** np.arange(4))
    seen, counts = np.unique(codes, return_counts=True)
    size = alphabet * (alphabet - 1) ** 3
    assert len(seen) == size
    expected = count / size
    assert np.all(np.abs(counts - expected) < 5 * math.sqrt(expected))


def test_khop_vocab_and_labels():
    task = tasks.get("khop", n=5, alphabet=3)
    assert task.vocab == ("a", "b", "c")
    assert task.label_vocab == ("a", "b", "c", "_")
    assert task.output == "per_position"
    lab = task.sample(np.random.default_rng(0), 500).labels
    assert lab.min() >= 0 and lab.max() <= 3


@pytest.mark.parametrize("text,match", [
    ("a a b c", "tokens 1 and 2 are both 'a'.*no immediate repeats"),
    ("a b c c", "tokens 3 and 4 are both 'c'"),
    ("a b c", "expects 4 symbols"),
    ("a b c d a", "expects 4 symbols"),
    ("a b e a", "not in the vocabulary"),
])
def test_khop_parse_errors(text, match):
    with pytest.raises(TaskInputError, match=match):
        tasks.get("khop", n=4).parse(text)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 3), alphabet=st.integers(2, 6), data=st.data())
def test_khop_round_trip_property(n, k, alphabet, data):
    task = tasks.get("khop", n=str(n), k=k, alphabet=alphabet)
    first = data.draw(st.integers(0, alphabet - 1))
    steps = data.draw(st.lists(st.integers(1, alphabet - 1), min_size=n - 1, max_size=n - 1))
    seq = [first]
    for s in steps:
        seq.append((seq[-1] + s) % alphabet)
    text = " ".join(chr(ord("a") + c) for c in seq)
    row = task.parse(text)
    assert row.tolist() == seq and task.render(row) == text
    assert np.array_equal(task.label(row[None]), task.oracle(row[None]))


@pytest.mark.parametrize("kwargs,match", [
    ({"n": 8, "k": 0}, "k=0 is too small"),
    ({"n": 8, "k": 17}, "k=17 is too large"),
    ({"n": 8, "alphabet": 1}, "alphabet=1 is too small"),
    ({"n": 8, "alphabet": 27}, "alphabet=27 is too large"),
    ({"n": 0}, "n=0 is too small"),
    ({"n": "abc"}, "not an integer"),
    ({"n": 8, "sigma": 4}, "unknown parameter"),
])
def test_khop_bad_parameters(kwargs, match):
    with pytest.raises(TaskParameterError, match=match):
        tasks.get("khop", **kwargs)


def test_khop_decision_view_and_seeds():
    task = tasks.get("khop", n=6, k=2)
    views = task.decision_view()
    assert views[0].name == "last" and len(views) == 6
    x = views[0].enumerate()
    assert len(x) == 4 * 3 ** 5
    labels = task.oracle(x)
    assert np.array_equal(views[0].evaluate(x), labels[:, -1])
    for i, view in enumerate(views[1:]):
        assert np.array_equal(view.evaluate(x), labels[:, i])
    assert not views[0].binary
    assert views[0].valid(np.array([[0, 0, 1, 2, 3, 0]])).tolist() == [False]
    assert views[0].valid(views[0].sample(np.random.default_rng(0), 50)).all()
    for n in tasks.family("khop").analysis_ns:
        assert tasks.get("khop", n=n).decision_view()[0].space_size() <= 1 << 22
    a = task.sample(np.random.default_rng(1), 100)
    b = task.sample(np.random.default_rng(1), 100)
    c = task.sample(np.random.default_rng(2), 100)
    assert np.array_equal(a.tokens, b.tokens) and not np.array_equal(a.tokens, c.tokens)


@pytest.mark.parametrize("name,kw", [("khop", {"n": 12}), ("index", {"n": 22}),
                                     ("index_all", {"n": 12}),
                                     ("index_any", {"n": 12, "mode": "mask"})])
def test_enumerate_too_large(name, kw):
    task = tasks.get(name, **kw)
    with pytest.raises(EnumerationTooLarge, match="enumeration limit"):
        task.enumerate()
    with pytest.raises(EnumerationTooLarge, match="use sample"):
        task.decision_view()[0].enumerate()
