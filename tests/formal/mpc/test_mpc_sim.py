"""MPC simulator limits and the algorithm library against task references."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ResourceLimitError
from theorybench.formal.mpc.algorithms import ALGORITHMS, measure, tree_reduce
from theorybench.formal.mpc.simulator import MPC, Dist, exchange_many


def test_memory_overflow_rejected_with_machine_and_round():
    mpc = MPC(100, delta=0.5, c=1.0)  # s = 10
    d = mpc.distribute(np.arange(100))
    with pytest.raises(ResourceLimitError, match=r"round 1: machine 0 receives 100 words"):
        mpc.exchange(d.owner, np.zeros(100, dtype=np.int64), d.data)  # gather everything


def test_send_limit_and_exchange_many():
    mpc = MPC(100, delta=0.5, c=1.0)
    src = np.zeros(25, dtype=np.int64)
    with pytest.raises(ResourceLimitError, match="machine 0 sends"):
        mpc.exchange(src, np.arange(25) % 10, np.arange(25))
    mpc2 = MPC(100, delta=0.5, c=1.0)
    out = exchange_many(mpc2, src, np.arange(25) % 10, np.arange(25))
    assert mpc2.rounds == 3 and sorted(out.data[:, 0].tolist()) == list(range(25))


def test_tree_reduce_sum_and_rounds():
    mpc = MPC(10_000, delta=0.5, c=1.0)
    d = mpc.distribute(np.ones(10_000, dtype=np.int64))
    assert tree_reduce(mpc, d, "sum")[0] == 10_000
    assert mpc.rounds == 1  # 100 machines, fan-in 100


@pytest.mark.parametrize("family", sorted(ALGORITHMS))
def test_every_algorithm_matches_reference(family):
    n = {"majority": 33, "reach_directed": 8, "reach_undirected": 8, "edge_exists": 12}.get(family, 32)
    r = measure(tasks.get(family, n=n), np.random.default_rng(1), delta=0.5, instances=12)
    assert r["wrong"] == [] and r["checked"] == 12


def test_reach_rounds_grow_and_aggregation_flat():
    rng = np.random.default_rng(0)
    reach = [measure(tasks.get("reach_directed", n=n), rng, 0.5, 2)["rounds"] for n in (8, 32)]
    assert reach[1] > reach[0]
    par = [measure(tasks.get("parity", n=n), rng, 0.5, 2)["rounds"] for n in (256, 4096)]
    assert par[0] == par[1]


def test_library_algorithm_overflowing_memory_names_round_and_machine():
    from theorybench.formal.mpc.algorithms import run_algorithm
    t = tasks.get("khop", n=256)
    x = t.decision_view()[0].sample(np.random.default_rng(0), 1)[0]
    with pytest.raises(ResourceLimitError, match=r"round \d+: machine \d+ sends \d+ words"):
        run_algorithm(t, x, 0.5, c=0.1)  # s = 4 words: the gather cannot fit
