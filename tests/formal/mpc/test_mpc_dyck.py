"""MPC scans and the Dyck algorithms against numpy and the task references."""

import itertools

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ResourceLimitError
from theorybench.formal.mpc.algorithms import measure, run_algorithm
from theorybench.formal.mpc.dyck import _match_runs, dyck_automaton
from theorybench.formal.mpc.scan import add, compose, tree_fold, tree_scan
from theorybench.formal.mpc.simulator import FILL, MPC, Step


def test_tree_scan_offsets_match_cumsum_over_several_levels():
    mpc = MPC(4096, delta=0.3, c=2.0)  # s = 25, blocks of 12: 342 machines, fan-in 25
    X = np.random.default_rng(0).integers(-5, 6, size=(2, 4096))

    def prog(net, task):
        net.round(lambda ids, mem, inbox: Step(np.stack(
            [np.where(mem != FILL, mem, 0).sum(axis=-1), np.zeros(ids.shape, dtype=np.int64)],
            axis=-1)))
        tree_scan(net, 0, 1, add, [0], 1)
    r = mpc.run(prog, None, X, strict=False)
    sums = np.add.reduceat(X, np.arange(0, 4096, r.block), axis=1)
    assert r.machines == 342 and r.output.tolist() == X.sum(axis=1).tolist()
    assert np.array_equal(r.memory[..., 1], np.cumsum(sums, axis=1) - sums)
    assert r.rounds.tolist() == [6, 6]  # 2 levels: 1 up + 2 down each


def test_tree_fold_composes_in_order():
    rng = np.random.default_rng(1)
    mpc = MPC(2000, delta=0.5, c=2.0)  # s = 90, blocks of 45: 45 machines; fan-in 90 // 5 = 18
    X = rng.integers(0, 5, size=(1, 2000))

    def prog(net, task):  # every machine's function: its first 5 words
        net.round(lambda ids, mem, inbox: Step(np.where(mem[..., :5] != FILL, mem[..., :5], 0)))
        tree_fold(net, 0, 5, compose, np.arange(5))
        net.round(lambda ids, mem, inbox: Step(mem))
    r = mpc.run(prog, None, X, strict=True)
    fns = np.stack([X[0, m * r.block: m * r.block + 5] for m in range(r.machines)])
    want = np.arange(5)
    for f in fns:  # apply machine 0's function first
        want = f[want]
    assert r.memory[0, 0, :5].tolist() == want.tolist() and r.rounds.tolist() == [2]


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
    got = run_algorithm(task, X, delta, c).output
    assert np.array_equal(run_algorithm(task, X[:2], delta, c, strict=True).output, got[:2])
    return want, got


@pytest.mark.parametrize("k", [2, 3])
def test_dyck_match_many_machines(k):
    t = tasks.get("dyck", n=400, k=k)
    rng = np.random.default_rng(k)
    X = t.sample(rng, 160).tokens  # half members, half one-bracket corruptions
    want, got = _check_rows(t, X, 0.75, 1.0)  # s = 90, blocks of 45: 9 machines
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
        r = [measure(tasks.get(fam, n=n), rng, 0.5, 200) for n in (64, 512, 4096)]
        assert all(not x["wrong"] for x in r)
        assert len({x["rounds"] for x in r}) == 1, fam


def test_dyck_match_refuses_small_delta():
    t = tasks.get("dyck", n=1024, k=2)
    x = t.sample(np.random.default_rng(0), 1).tokens
    with pytest.raises(ResourceLimitError, match="coordinator"):
        run_algorithm(t, x, 0.3, 4.0)
