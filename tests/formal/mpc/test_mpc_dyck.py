"""MPC scans and the Dyck algorithms against numpy and the task references."""

import itertools

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ResourceLimitError
from theorybench.formal.mpc.algorithms import measure, run_algorithm
from theorybench.formal.mpc.dyck import _match_runs, dyck_automaton
from theorybench.formal.mpc.scan import add, compose, tree_fold, tree_scan
from theorybench.formal.mpc.simulator import MPC


def test_tree_scan_sums_match_cumsum_over_several_levels():
    mpc = MPC(4096, delta=0.3, c=1.0)  # s = 13, 316 machines: depth 3 with fan-in 13
    vals = np.random.default_rng(0).integers(-5, 6, size=(mpc.machines, 1))
    off, total = tree_scan(mpc, vals, add, np.array([0]))
    assert total[0] == vals.sum()
    assert np.array_equal(off[:, 0], np.cumsum(vals[:, 0]) - vals[:, 0])
    assert mpc.rounds == 9  # 3 levels: 1 up + 2 down each


def test_tree_fold_composes_in_order():
    rng = np.random.default_rng(1)
    mpc = MPC(2000, delta=0.5, c=1.0)  # s = 45, 45 machines; fan-in 45 // 5 = 9
    fns = rng.integers(0, 5, size=(mpc.machines, 5))
    want = np.arange(5)
    for f in fns:  # apply machine 0's function first
        want = f[want]
    got = tree_fold(mpc, fns, compose, np.arange(5))
    assert np.array_equal(got, want) and mpc.rounds == 2


def test_stack_automaton_equals_reference_on_all_words():
    for k, D, n in [(1, 2, 10), (2, 2, 8), (2, 1, 8), (3, 2, 6)]:
        delta, start, accept = dyck_automaton(k, D)
        assert len(delta) == sum(k ** d for d in range(D + 1)) + 1
        t = tasks.get("dyck_bounded", n=n, k=k, D=D)
        words = np.array(list(itertools.product(range(2 * k), repeat=n)))
        state = np.full(len(words), start)
        for j in range(n):
            state = delta[state, words[:, j]]
        assert np.array_equal(accept[state].astype(int), t.label(words)), (k, D)


def test_match_runs_pairs_every_level_once():
    # blocks: "((" | ")(" | "))"  -> p, mu, q per block
    runs = _match_runs(np.array([0, 2, 2]), np.array([0, 1, 0]), np.array([2, 2, 0]))
    assert sorted(map(tuple, runs.tolist())) == [(0, 1, 2, 2), (0, 2, 1, 1), (1, 2, 2, 2)]


def _check_rows(task, X, delta, c):
    want = task.label(X)
    got = np.array([run_algorithm(task, row, delta, c)[0] for row in X])
    return want, got


@pytest.mark.parametrize("k", [2, 3])
def test_dyck_match_many_machines(k):
    t = tasks.get("dyck", n=400, k=k)
    rng = np.random.default_rng(k)
    X = t.sample(rng, 160).tokens  # half members, half one-bracket corruptions
    want, got = _check_rows(t, X, 0.75, 1.0)  # s = 90: 5 machines
    assert np.array_equal(want, got) and want.sum() == 80


def test_dyck_match_cross_block_pair():
    t = tasks.get("dyck", n=400, k=2)
    inner = [0, 1] * 199
    good = np.array([2] + inner + [3])
    bad = np.array([2] + inner + [1])   # "[" ... ")": depth fine, types differ
    want, got = _check_rows(t, np.stack([good, bad]), 0.75, 1.0)
    assert want.tolist() == [1, 0] and got.tolist() == [1, 0]


def test_dyck1_and_bounded_match_reference():
    rng = np.random.default_rng(5)
    for fam, kw in [("dyck", {"k": 1}), ("dyck_bounded", {"k": 1, "D": 3}),
                    ("dyck_bounded", {"k": 2, "D": 2})]:
        t = tasks.get(fam, n=300, **kw)
        X = np.concatenate([t.sample(rng, 60).tokens, t.sample(rng, 20, "uniform").tokens])
        want, got = _check_rows(t, X, 0.75, 1.0)
        assert np.array_equal(want, got), fam


def test_dyck_rounds_flat_in_n():
    rng = np.random.default_rng(0)
    for fam in ("dyck", "dyck_bounded"):
        r = [measure(tasks.get(fam, n=n), rng, 0.5, 2) for n in (64, 512, 4096)]
        assert all(not x["wrong"] for x in r)
        assert len({x["rounds"] for x in r}) == 1, fam


def test_dyck_match_refuses_small_delta():
    t = tasks.get("dyck", n=1024, k=2)
    x = t.sample(np.random.default_rng(0), 1).tokens[0]
    with pytest.raises(ResourceLimitError, match="coordinator"):
        run_algorithm(t, x, 0.3, 4.0)
