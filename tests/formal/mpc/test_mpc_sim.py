"""MPC simulator: limits, locality, and the program library against task references."""

import inspect

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ResourceLimitError
from theorybench.formal.mpc.algorithms import ALGORITHMS, measure, run_algorithm
from theorybench.formal.mpc.scan import add, tree_fold
from theorybench.formal.mpc.simulator import FILL, MPC, LocalityError, Network, Step


def _x(N, B=2, seed=0):
    return np.random.default_rng(seed).integers(0, 2, size=(B, N))


def test_receive_overflow_names_round_and_machine():
    mpc = MPC(100, delta=0.5, c=1.0)  # s = 10, blocks of 5, 20 machines

    def gather(net, task):           # everyone sends its block to machine 0
        net.round(lambda ids, mem, inbox: Step(mem, np.zeros(mem.shape[:2] + (5,), dtype=int),
                                               mem[..., None]))
    with pytest.raises(ResourceLimitError, match=r"round 1: machine 0 receives 100 words"):
        mpc.run(gather, None, _x(100))


def test_send_overflow_and_memory_overflow():
    mpc = MPC(100, delta=0.5, c=1.0)

    def spray(net, task):            # 11 one-word messages from every machine
        net.round(lambda ids, mem, inbox: Step(
            mem, np.broadcast_to(np.arange(11) % net.M, mem.shape[:2] + (11,)),
            np.zeros(mem.shape[:2] + (11, 1), dtype=int)))
    with pytest.raises(ResourceLimitError, match=r"machine 0 sends 11 words, more than"):
        mpc.run(spray, None, _x(100))

    def hoard(net, task):            # keep 11 words: more than s = 10
        net.round(lambda ids, mem, inbox: Step(np.zeros(mem.shape[:2] + (11,), dtype=int)))
    with pytest.raises(ResourceLimitError, match=r"keep 11 words, more than their memory s = 10"):
        mpc.run(hoard, None, _x(100))


def test_reading_past_local_memory_raises():
    mpc = MPC(100, delta=0.5, c=1.0)

    def peek(net, task):             # word s of a machine does not exist
        net.round(lambda ids, mem, inbox: Step(mem[..., net.s: net.s + 1] + mem[..., net.s]))
    with pytest.raises(IndexError):
        mpc.run(peek, None, _x(100))


def test_round_function_reading_another_machine_is_caught():
    """Regression (issue 11, defect 7): an algorithm that reads data outside its machine
    (here: every machine sums the whole input, the old design's global view) gives the
    right answer in a vectorised call but fails the machine-by-machine check."""
    mpc = MPC(64, delta=0.5, c=4.0)
    X = _x(64, B=3)

    def cheat(net, task):
        def fn(ids, mem, inbox):
            tot = np.where(mem != FILL, mem, 0).sum(axis=(1, 2))     # all machines' words
            return Step(np.broadcast_to(tot[:, None, None], mem.shape[:2] + (1,)))
        net.round(fn, "global sum")

    assert np.array_equal(mpc.run(cheat, None, X).output, X.sum(axis=1))
    with pytest.raises(LocalityError, match="machine 0's result computed alone differs"):
        mpc.run(cheat, None, X, strict=True)

    def honest(net, task):
        net.round(lambda ids, mem, inbox: Step(np.where(mem != FILL, mem, 0).sum(
            axis=-1, keepdims=True)))
        tree_fold(net, 0, 1, add, [0])

    r = mpc.run(honest, None, X, strict=True)
    assert np.array_equal(r.output, X.sum(axis=1)) and set(r.rounds) == {1}


def test_programs_never_receive_the_input():
    """Regression (defect 7): the old algorithms were fn(task, x, mpc) with the whole input
    x. A program now gets only the network handle and the task; the handle's public
    attributes are sizes and round(), no memory."""
    for name, (_, fn) in ALGORITHMS.items():
        assert list(inspect.signature(fn).parameters) == ["net", "task"], name
    public = {a for a in dir(Network) if not a.startswith("_")}
    assert public == {"round", "done"}
    net_attrs = {a for a in vars(Network.__new__(Network)) if not a.startswith("_")}
    assert net_attrs == set()


def test_round_functions_cannot_write_their_inputs():
    mpc = MPC(64, delta=0.5, c=4.0)

    def scribble(net, task):
        def fn(ids, mem, inbox):
            mem[..., 0] = 7
            return Step(mem)
        net.round(fn)
    with pytest.raises(ValueError, match="read-only"):
        mpc.run(scribble, None, _x(64))


def test_tree_fold_sum_and_rounds():
    mpc = MPC(10_000, delta=0.5, c=2.0)  # s = 200, blocks of 100: 100 machines, fan-in 200

    def prog(net, task):
        net.round(lambda ids, mem, inbox: Step((mem != FILL).sum(axis=-1, keepdims=True)))
        tree_fold(net, 0, 1, add, [0])
    r = mpc.run(prog, None, np.ones((2, 10_000), dtype=np.int64))
    assert r.output.tolist() == [10_000, 10_000] and r.rounds.tolist() == [1, 1]


def _n(family):
    return {"majority": 65, "reach_directed": 16, "reach_undirected": 16,
            "edge_exists": 64}.get(family, 256)


@pytest.mark.parametrize("family", sorted(ALGORITHMS))
def test_every_algorithm_matches_reference_on_1000_instances(family):
    for n in ({8, _n(family)} if family.startswith("reach") else {16, _n(family)}):
        n = n + 1 if family == "majority" and n % 2 == 0 else n
        r = measure(tasks.get(family, n=n), np.random.default_rng(n), delta=0.5,
                    instances=1000, strict=2)
        assert r["wrong_count"] == 0 and r["checked"] == 1000, (family, n, r["wrong"])
        assert r["locality_checked"] == 2 and r["max_memory"] <= r["s"]


@pytest.mark.parametrize("family,kw", [
    ("khop", {"k": 2}), ("khop", {"k": 3}), ("dyck", {"k": 1}),
    ("binary_add", {"layout": "interleaved"}), ("index_parity", {"mode": "mask"})])
def test_variants_match_reference(family, kw):
    r = measure(tasks.get(family, n=128, **kw), np.random.default_rng(3), 0.5, 1000, strict=1)
    assert r["wrong_count"] == 0


def test_wrong_program_is_reported():
    t = tasks.get("parity", n=64)
    x = t.decision_view()[0].sample(np.random.default_rng(0), 200)

    def wrong(net, task):            # answers "all ones" instead of parity
        ALGORITHMS["all"][1](net, tasks.get("all", n=task.n))
    r = run_algorithm(t, x, algorithm=wrong)
    assert (r.output != t.label(x)).any()


def test_reach_rounds_grow_and_aggregation_flat():
    rng = np.random.default_rng(0)
    reach = [measure(tasks.get("reach_directed", n=n), rng, 0.5, 200)["rounds"] for n in (8, 32)]
    assert reach[1] > reach[0]
    par = [measure(tasks.get("parity", n=n), rng, 0.5, 200)["rounds"] for n in (256, 4096)]
    assert par[0] == par[1]


def test_library_algorithm_overflowing_memory_names_step():
    t = tasks.get("khop", n=256)
    x = t.decision_view()[0].sample(np.random.default_rng(0), 1)
    with pytest.raises(ResourceLimitError, match=r"step \d+ \(start\): machines keep \d+ words"):
        run_algorithm(t, x, 0.5, c=0.1)  # s = 4 words


@pytest.mark.parametrize("family", sorted(ALGORITHMS))
def test_every_program_passes_the_machine_by_machine_check(family):
    """Every round function of every program, recomputed machine by machine on 10
    instances (at least 4 machines), gives the vectorised result."""
    n = {"majority": 129, "reach_directed": 32, "reach_undirected": 32}.get(family, 128)
    t = tasks.get(family, n=n)
    x = t.decision_view()[0].sample(np.random.default_rng(7), 10)
    r = run_algorithm(t, x, 0.5, strict=True)
    assert r.machines >= 4 and r.strict
    assert np.array_equal(r.output, np.asarray(t.decision_view()[0].evaluate(x)).reshape(-1))


@pytest.mark.parametrize("family", ["parity", "majority", "khop", "binary_add", "edge_exists",
                                    "index_all", "dyck_bounded"])
def test_deep_trees_at_small_delta(family):
    """delta = 0.3, c = 2: s = 16 or so and 128+ machines, so folds, scans and broadcasts
    run over several tree levels; 1000 instances against the reference."""
    n = 1025 if family == "majority" else 1024
    r = measure(tasks.get(family, n=n), np.random.default_rng(2), 0.3, 1000, c=2.0, strict=1)
    assert r["machines"] >= 128 and r["wrong_count"] == 0
    if family != "index_all":  # request + reply: no tree
        assert r["rounds"] > measure(tasks.get(family, n=n), np.random.default_rng(2), 0.5,
                                     10, c=4.0)["rounds"]
