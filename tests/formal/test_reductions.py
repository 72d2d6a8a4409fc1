"""Reductions: correct maps pass, broken maps are caught, projections are detected."""

import json

import numpy as np
import pytest

from theorybench.errors import TaskParameterError, TheoryError
from theorybench.theories.base import to_jsonable
from theorybench.formal.reductions import Problem, Reduction, task_problem


def pad_zero(x, n):
    return np.concatenate([x, np.zeros((len(x), 1), dtype=np.int64)], axis=1)


def test_correct_projection_passes():
    red = Reduction("parity -> parity(n+1) by padding", task_problem("parity"), "parity",
                    lambda n: {"n": n + 1}, pad_zero, kind="projection")
    chk = red.check([1, 3, 6])
    assert chk.ok and chk.labels_preserved and chk.is_projection
    assert [c.checked for c in chk.by_n] == [2, 8, 64]
    assert all(c.exhaustive for c in chk.by_n)
    assert chk.by_n[1].dependency == [0, 1, 2, -1]
    json.dumps(to_jsonable(chk))


def test_broken_map_is_caught_with_a_counterexample():
    red = Reduction("parity -> majority (wrong)", task_problem("parity"), "majority",
                    lambda n: {"n": n}, lambda x, n: x, kind="projection")
    chk = red.check([3, 5])
    assert not chk.ok and not chk.labels_preserved
    ce = chk.counterexample
    src = np.array(ce["source"])
    assert ce["source_label"] == src.sum() % 2
    assert ce["target_label"] == int(2 * src.sum() > 3)
    assert ce["source_label"] != ce["target_label"]
    # majority and parity disagree on the 6 inputs of weight 1 or 2 at length 3
    assert chk.by_n[0].mismatches == 6


def test_negation_by_label_map():
    # not-majority(x) = majority(complement x) at odd n: a projection with a label map
    red = Reduction("majority -> majority by complement", task_problem("majority"),
                    "majority", lambda n: {"n": n}, lambda x, n: 1 - x, kind="projection",
                    label_map=lambda y: 1 - y)
    assert red.check([3, 5, 7]).ok
    plain = Reduction("no label map", task_problem("majority"), "majority",
                      lambda n: {"n": n}, lambda x, n: 1 - x)
    assert not plain.check([3]).labels_preserved


def test_non_projection_is_detected():
    # y_0 = x_0 xor x_1, y_1 = x_1 ... keeps the parity of (x_0, x_2, ...) only when
    # composed correctly; here we check the projection property, label-preserving map:
    # parity(x) = parity(x_0 xor x_1, x_2, ..., x_{n-1}, 0) reduces n -> n.
    def fold(x, n):
        return np.concatenate([x[:, :1] ^ x[:, 1:2], x[:, 2:],
                               np.zeros((len(x), 1), dtype=np.int64)], axis=1)

    red = Reduction("fold", task_problem("parity"), "parity", lambda n: {"n": n}, fold,
                    kind="projection")
    chk = red.check([3, 4])
    assert chk.labels_preserved and not chk.is_projection and not chk.ok
    assert chk.by_n[0].projection_violations[0] == {"output_position": 0,
                                                    "input_positions": [0, 1]}
    general = Reduction("fold", task_problem("parity"), "parity", lambda n: {"n": n}, fold)
    assert general.check([3, 4]).ok and general.check([3]).by_n[0].dependency is None


def test_a_problem_that_is_not_a_task_and_sampling():
    # "first symbol equals last symbol" over {0,1,2}^n reduces to parity(2) by a projection
    # only when the alphabet is binary; use the binary case and check sampled mode too.
    prob = Problem("first_eq_last", fn=lambda x: (x[:, 0] == x[:, -1]).astype(int),
                   choices=lambda n: [(0, 1)] * n)

    def m(x, n):
        return np.stack([x[:, 0], 1 - x[:, -1]], axis=1)  # parity(x0, 1-x_last) = [x0 == xl]

    red = Reduction("eq -> parity", prob, "parity", lambda n: {"n": 2}, m, kind="projection")
    chk = red.check([2, 5, 20], samples=500, exhaustive_limit=1 << 10)
    assert chk.ok
    assert [c.exhaustive for c in chk.by_n] == [True, True, False]
    assert chk.by_n[2].checked == 500 and chk.by_n[2].dependency == [0, 19]


def test_problem_fn_with_n_and_valid():
    prob = Problem("even weight strings, label = first bit",
                   fn=lambda x, n: x[:, 0], choices=lambda n: [(0, 1)] * n,
                   valid=lambda x, n: x.sum(axis=1) % 2 == 0)
    assert len(prob.instances(4, 1 << 10)) == 8
    drawn = prob.draw(np.random.default_rng(0), 4, 50)
    assert (drawn.sum(axis=1) % 2 == 0).all()
    red = Reduction("first bit -> parity(1)", prob, "parity", lambda n: {"n": 1},
                    lambda x, n: x[:, :1], kind="projection")
    assert red.check([2, 4]).ok


def test_invalid_images_are_reported():
    wrong_len = Reduction("too short", task_problem("parity"), "parity", lambda n: {"n": n},
                          lambda x, n: x[:, :-1])
    chk = wrong_len.check([3])
    assert not chk.ok and chk.by_n[0].invalid_images == 8
    assert "length" in chk.counterexample["why"]
    bad_token = Reduction("token 2", task_problem("parity"), "parity", lambda n: {"n": n},
                          lambda x, n: x * 2)
    chk = bad_token.check([2])
    assert chk.by_n[0].invalid_images == 3  # every image with a 1 now holds token 2
    assert chk.counterexample["why"] == "image is not a valid target instance"


def test_bad_definitions():
    with pytest.raises(TheoryError, match="kind"):
        Reduction("x", task_problem("parity"), "parity", lambda n: {"n": n},
                  lambda x, n: x, kind="karp")
    with pytest.raises(TaskParameterError, match="known tasks"):
        task_problem("no_such_task")
    red = Reduction("bad shape", task_problem("parity"), "parity", lambda n: {"n": n},
                    lambda x, n: x[0])
    with pytest.raises(TheoryError, match="shape"):
        red.check([2])


def parity_to_reach(x, n):
    """Layered graph: bit i wires layer i to layer i+1 straight (0) or crossed (1);
    e_0 reaches o_n iff the parity is 1. Each edge token depends on one bit only."""
    from theorybench import tasks
    task = tasks.get("reach_directed", n=2 * n, nodes=2 * (n + 1))
    tok = task.index
    e = [f"v{2 * i + 1}" for i in range(n + 1)]
    o = [f"v{2 * i + 2}" for i in range(n + 1)]
    cols = []
    for i in range(n):
        straight = (tok[f"{e[i]}>{e[i + 1]}"], tok[f"{o[i]}>{o[i + 1]}"])
        crossed = (tok[f"{e[i]}>{o[i + 1]}"], tok[f"{o[i]}>{e[i + 1]}"])
        for j in range(2):
            cols.append(np.where(x[:, i] == 1, crossed[j], straight[j]))
    const = [tok["?"], tok[e[0]], tok[o[n]]]
    cols += [np.full(len(x), c) for c in const]
    return np.stack(cols, axis=1)


def test_parity_projects_to_directed_reachability():
    red = Reduction("parity -> reach_directed (layered graph)", task_problem("parity"),
                    "reach_directed", lambda n: {"n": 2 * n, "nodes": 2 * (n + 1)},
                    parity_to_reach, kind="projection")
    chk = red.check([1, 2, 5, 8])
    assert chk.ok, chk.to_dict()
    assert chk.by_n[2].dependency == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, -1, -1, -1]
    # swapping s and t breaks it (t reaches nothing downstream): caught
    bad = Reduction("swapped", task_problem("parity"), "reach_directed",
                    lambda n: {"n": 2 * n, "nodes": 2 * (n + 1)},
                    lambda x, n: parity_to_reach(x, n)[:, [*range(2 * n + 1), 2 * n + 2,
                                                           2 * n + 1]],
                    kind="projection")
    assert not bad.check([3]).labels_preserved
