"""Communication matrices: exact distinct-row counts against brute force and closed forms."""

import math

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, TaskParameterError
from theorybench.tasks.base import DecisionFunction, product_space
from theorybench.formal import communication as cm


def brute_rows(df, k):
    """Distinct rows by a dict of Python tuples (independent of the vectorized method)."""
    X = product_space(df.choices, limit=1 << 20)
    y = df.evaluate(X).astype(int)
    if df.valid is not None:
        y = np.where(df.valid(X), y, -1)
    rows = {}
    for x, v in zip(X.tolist(), y.tolist()):
        rows.setdefault(tuple(x[:k]), []).append(v)
    return len({tuple(r) for r in rows.values() if any(v != -1 for v in r)})


def table_df(choices, table, valid=None):
    """A DecisionFunction given by a lookup table over the product space."""
    radices = [len(c) for c in choices]
    lookups = [{t: i for i, t in enumerate(c)} for c in choices]

    def index(x):
        idx = np.zeros(len(x), dtype=np.int64)
        for pos, lk in enumerate(lookups):
            idx = idx * radices[pos] + np.vectorize(lk.get)(x[:, pos])
        return idx

    return DecisionFunction(task=None, name="table", choices=tuple(map(tuple, choices)),
                            evaluate=lambda x: table[index(x)], sample=None,
                            valid=None if valid is None else (lambda x: valid[index(x)]))


@pytest.mark.parametrize("seed", range(6))
def test_random_functions_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    L = int(rng.integers(2, 6))
    choices = [tuple(sorted(rng.choice(7, size=int(rng.integers(1, 4)), replace=False)))
               for _ in range(L)]
    size = math.prod(len(c) for c in choices)
    table = rng.integers(0, 3, size=size)
    valid = rng.random(size) < 0.8 if seed % 2 else None
    df = table_df(choices, table, valid)
    got = cm.distinct_rows_by_split(df, splits=range(0, L + 1))
    want = {k: brute_rows(df, k) for k in range(0, L + 1)}
    assert got == want


@pytest.mark.parametrize("name,n", [("parity", 7), ("majority", 7), ("all", 6), ("any", 6)])
def test_tasks_match_brute_force(name, n):
    df = tasks.get(name, n=n).decision_view()[0]
    assert cm.distinct_rows_by_split(df) == {k: brute_rows(df, k) for k in range(1, n)}


def test_closed_forms():
    # parity: two rows (prefix parity) at every split -> 1 bit
    df = tasks.get("parity", n=16).decision_view()[0]
    bits, table = cm.one_way_cc(df)
    assert bits == 1 and set(table.values()) == {2}
    # majority at n (odd), t = (n+1)/2 ones needed: prefix count c matters only through
    # clip(c, t-(n-k)-1, t), so rows = min(k, t) - max(0, t-(n-k)-1) + 1
    n = 15
    t = (n + 1) // 2
    df = tasks.get("majority", n=n).decision_view()[0]
    bits, table = cm.one_way_cc(df)
    assert table == {k: min(k, t) - max(0, t - (n - k) - 1) + 1 for k in range(1, n)}
    assert bits == math.ceil(math.log2(t + 1))
    assert cm.b0_bandwidth is cm.one_way_cc


def test_majority_rows_are_prefix_counts():
    # independent formula: prefix count c matters only through clip(c, lo, hi)
    n = 11
    df = tasks.get("majority", n=n).decision_view()[0]
    table = cm.distinct_rows_by_split(df)
    for k, rows in table.items():
        s = n - k
        # majority iff c + d > n/2 with d in 0..s: the row is determined by clip(c, t-s-1, t)
        t = (n + 1) // 2
        classes = {min(max(c, t - s - 1), t) for c in range(k + 1)}
        assert rows == len(classes)


def test_too_large_and_bad_split():
    df = tasks.get("parity", n=20).decision_view()[0]
    with pytest.raises(EnumerationTooLarge, match="smaller n"):
        cm.distinct_rows_by_split(df, limit=1 << 10)
    with pytest.raises(TaskParameterError):
        cm.distinct_rows_by_split(tasks.get("parity", n=4).decision_view()[0], splits=[7])


def test_constant_function_and_constant_suffix():
    # a function that ignores its last positions has one class there (regression)
    df = tasks.get("sparse_parity", n=8, positions="2,5,8").decision_view()[0]
    assert cm.distinct_rows_by_split(df) == {k: brute_rows(df, k) for k in range(1, 8)}
    const = table_df([(0, 1)] * 4, np.zeros(16, dtype=np.int64))
    assert set(cm.distinct_rows_by_split(const).values()) == {1}


def test_explicit_matrix():
    df = tasks.get("parity", n=4).decision_view()[0]
    M = cm.communication_matrix(df, 2)
    assert M.shape == (4, 4)
    assert len({tuple(r) for r in M.tolist()}) == 2


@pytest.mark.parametrize("name,params,chunk", [("index", {"n": 8}, 64), ("index", {"n": 8}, 5),
                                               ("majority", {"n": 9}, 8), ("dyck", {"n": 6}, 7)])
def test_chunked_enumeration_matches_product_space(name, params, chunk):
    # the reused-buffer chunking must reproduce the lexicographic product space exactly
    df = tasks.get(name, **params).decision_view()[0]
    got = np.concatenate([x.copy() for _, x in cm.iter_chunks(df, chunk=chunk)])
    want = product_space(df.choices, limit=1 << 20)
    assert np.array_equal(got, want)
    vals = cm.evaluate_all(df, chunk=chunk)
    ref = df.evaluate(want).astype(np.int64)
    if df.valid is not None:
        ref = np.where(df.valid(want), ref, -1)
    assert np.array_equal(vals, ref)


def test_exact_space_memory_checked_before_allocation(monkeypatch):
    # before: `bapo bandwidth parity --n 34 --limit 2^40` tried to allocate 128 GiB
    from theorybench import tasks
    from theorybench.errors import ResourceLimitError
    from theorybench.formal import resources
    from theorybench.formal.communication import bytes_needed, evaluate_all
    df = tasks.get("parity", n=34).decision_view()[0]
    with pytest.raises(ResourceLimitError, match=r"17,179,869,184 inputs .* 512 GiB"):
        evaluate_all(df, limit=1 << 40)
    small = tasks.get("parity", n=10).decision_view()[0]
    assert len(evaluate_all(small)) == 1024
    monkeypatch.setattr(resources, "MEMORY_BUDGET", bytes_needed(1024) - 1)
    with pytest.raises(ResourceLimitError, match="smaller n"):
        evaluate_all(small)


# ---- partial functions, sampled lower bounds, a family's series by n -------------------------

def test_conflict_rows_are_a_sound_bound_for_partial_functions():
    from types import SimpleNamespace
    # f = 1 on the valid inputs x1 == x2: the rows [1, undefined] and [undefined, 1] are
    # distinct, yet one message serves both prefixes
    df = SimpleNamespace(choices=[[0, 1], [0, 1]], binary=True, length=2,
                         evaluate=lambda x: np.ones(len(x), dtype=np.int64),
                         valid=lambda x: x[:, 0] == x[:, 1], task=None)
    assert cm.distinct_rows_by_split(df) == {1: 2}
    assert cm.conflict_rows_by_split(df) == {1: 1}
    # on a total function both counts agree (brute force: rows of the explicit matrix)
    parity = tasks.get("parity", n=6).decision_view()[0]
    assert cm.conflict_rows_by_split(parity) == cm.distinct_rows_by_split(parity)
    # khop is partial (immediate repeats are invalid): the bound never exceeds the rows
    khop = tasks.get("khop", n=5).decision_view()[0]
    lower, rows = cm.conflict_rows_by_split(khop), cm.distinct_rows_by_split(khop)
    assert all(1 <= lower[k] <= rows[k] for k in rows)


def test_conflict_clique_against_brute_force():
    import itertools
    rng = np.random.default_rng(3)

    def conflict(a, b):
        return bool(((a >= 0) & (b >= 0) & (a != b)).any())

    for _ in range(150):
        m = rng.integers(-1, 2, size=(int(rng.integers(1, 7)), int(rng.integers(1, 4))))
        m = cm.unique_rows(m[(m >= 0).any(axis=1)]) if (m >= 0).any() else m[:0]
        if not len(m):
            continue
        rows = list(range(len(m)))
        omega = max(len(c) for r in range(1, len(m) + 1) for c in itertools.combinations(rows, r)
                    if all(conflict(m[a], m[b]) for a, b in itertools.combinations(c, 2)))
        got = cm.conflict_clique(m)
        assert 1 <= got <= omega  # a clique, hence a lower bound on the messages needed
        if len(cm.unique_rows(m >= 0)) == 1:
            assert got == len(m)  # one definedness pattern: every pair of rows conflicts


def test_unique_rows_against_python_sets():
    rng = np.random.default_rng(5)
    m = rng.integers(-1, 3, size=(200, 4))
    got = cm.unique_rows(m)
    assert sorted(map(tuple, got.tolist())) == sorted(set(map(tuple, m.tolist())))


def test_sampled_rows_lower_bound_against_exact():
    rng = np.random.default_rng(0)
    for fam, n, budget in [("edge_exists", 3, 1 << 14), ("edge_exists", 4, 1 << 15),
                           ("reach_undirected", 4, 1 << 13)]:
        df = tasks.get(fam, n=n).decision_view()[0]
        lb = cm.sampled_rows_lower_bound(df, rng, budget=budget)
        exact = cm.distinct_rows_by_split(df, [lb["split"]])[lb["split"]]
        assert 1 <= lb["rows"] <= exact
        if lb["prefixes"] == len(df.choices[0]) ** lb["split"]:  # every prefix drawn: exact
            assert lb["rows"] == exact
    index = tasks.get("index", n=5).decision_view()[0]
    assert cm.sampled_rows_lower_bound(index, rng) is None  # partial (valid): not applicable


def test_profile_exact_series_match_closed_forms():
    # parity: 2 rows at every n; majority (odd n): (n+3)/2 rows at the middle split
    # (prefix counts clipped, see test_closed_forms); index: 2^n rows, a clique of pairwise
    # conflicting rows of the partial function (every data string is its own message)
    parity = cm.communication_profile("parity", 1 << 14)
    assert parity["method"] == "exact, max over splits" and len(parity["ns"]) >= 4
    assert parity["max_rows"] == [2] * len(parity["ns"])
    assert parity["lengths"] == parity["ns"]
    maj = cm.communication_profile("majority", 1 << 14)
    assert maj["max_rows"] == [(n + 3) // 2 for n in maj["ns"]]
    index = cm.communication_profile("index", 1 << 14)
    assert "clique of pairwise conflicting rows" in index["method"]
    assert index["max_rows"] == [2 ** n for n in index["ns"]]
    # only the n whose space fits are counted
    for p, fam in ((parity, "parity"), (index, "index")):
        assert all(tasks.get(fam, n=n).decision_view()[0].space_size() <= 1 << 14
                   for n in p["ns"])


def test_profile_falls_back_to_sampled_lower_bounds():
    # at 2^12 inputs fewer than four n of edge_exists can be counted exactly: the series is
    # the sampled lower bound, at most the exact count wherever that one is known
    sampled = cm.communication_profile("edge_exists", 1 << 12)
    assert sampled["method"].startswith("sampled lower bound")
    assert len(sampled["ns"]) == len(sampled["prefixes"]) >= 4
    exact = cm.communication_profile("edge_exists", 1 << 18)
    assert exact["method"].startswith("exact")
    for n, rows in zip(sampled["ns"], sampled["max_rows"]):
        if n in exact["ns"]:
            assert 1 <= rows <= exact["max_rows"][exact["ns"].index(n)]
    # the same seed, the same series (the profile is cached, so compare a fresh one)
    again = cm.communication_profile.__wrapped__("edge_exists", 1 << 12, seed=0)
    assert again == sampled
