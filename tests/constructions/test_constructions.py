"""Each hand-built construction against its task: every input for small n (decisions
compared with the task's independent oracle as well as its reference), samples up to
n = 256, the recorded shape, and saving / loading."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from theorybench import constructions, tasks
from theorybench.constructions import SetTransformer, check
from theorybench.errors import TaskParameterError

#: (task, params, small n checked on every input)
CASES = [
    ("majority", {}, [1, 3, 5, 7, 9, 11]),
    ("dyck", {"k": 1}, [2, 4, 6, 8, 10, 12]),
    ("dyck_bounded", {"k": 1, "D": 1}, [2, 4, 8, 10]),
    ("dyck_bounded", {"k": 1, "D": 2}, [2, 4, 8, 10, 12]),
    ("dyck_bounded", {"k": 1, "D": 3}, [6, 10]),
    ("dyck_bounded", {"k": 2, "D": 2}, [2, 4, 6]),
    ("dyck_bounded", {"k": 3, "D": 1}, [4]),
    ("index", {}, [1, 2, 3, 5, 8]),
    ("khop", {"k": 1, "alphabet": 2}, [1, 2, 5, 9]),
    ("khop", {"k": 1, "alphabet": 3}, [3, 6, 7]),
    ("khop", {"k": 1, "alphabet": 4}, [4, 6]),
]


def decisions(model, tokens):
    with torch.no_grad():
        z = model(torch.as_tensor(tokens)).numpy()
    return (z[..., 0] > 0).astype(np.int64) if z.shape[-1] == 1 else z.argmax(axis=-1)


@pytest.mark.parametrize("task,params,ns", CASES)
def test_every_small_input_matches_the_oracle(task, params, ns):
    for n in ns:
        c = constructions.build(task, n, **params)
        x = c.task.enumerate()
        got = decisions(c.module(), x)
        np.testing.assert_array_equal(got, c.task.oracle(x))
        cert = check.exhaustive(c)
        assert cert.status == "verified" and cert.inputs == len(x)
        assert cert.observed_margin > 0


@pytest.mark.parametrize("task,params,ns", CASES)
def test_samples_up_to_256(task, params, ns):
    rng = np.random.default_rng(1)
    for n in ((63, 255) if task == "majority" else (64, 256)):
        c = constructions.build(task, n, **params)
        b = c.task.sample(rng, 64)
        np.testing.assert_array_equal(decisions(c.module(), b.tokens), b.labels)


def test_majority_near_threshold_at_255():
    c = constructions.build("majority", 255)
    b = c.task.sample(np.random.default_rng(2), 256, "near_threshold")
    for dtype in (torch.float64, torch.float32):
        np.testing.assert_array_equal(decisions(c.module(dtype), b.tokens), b.labels)


def test_recorded_shapes():
    sh = constructions.build("majority", 7).shape()
    assert (sh["layers"], sh["heads"], sh["width"]) == (1, [1], 2)
    sh = constructions.build("dyck", 8, k=1).shape()
    assert (sh["layers"], sh["heads"], sh["mlp"]) == (2, [1, 1], [3, 0])
    c = constructions.build("khop", 6, k=1, alphabet=5)
    assert c.shape()["width"] == 3 * 5 + 4 and c.shape()["classes"] == 6
    # the temperature grows with n as recorded: beta_1 = ln(8n^2 + 4n) + 2
    assert c.betas()[0][0] == pytest.approx(np.log(8 * 36 + 24) + 2)
    assert constructions.build("index", 10).betas()[0][0] == pytest.approx(np.log(20) + 2)
    assert constructions.build("majority", 7).betas() == [[0.0]]     # uniform


def test_float64_by_default():
    m = constructions.build("index", 4).module()
    assert m.embed.dtype == torch.float64
    assert all(not p.requires_grad for p in m.parameters())


def test_bundle_loads_with_weights_only(tmp_path):
    c = constructions.build("khop", 6, k=1, alphabet=3)
    path = tmp_path / "m.pt"
    torch.save(c.module().bundle(c.describe()), path)
    b = torch.load(path, weights_only=True)
    assert b["meta"]["construction"] == "induction"
    m = SetTransformer.from_bundle(b)
    x = torch.as_tensor(c.task.enumerate())
    with torch.no_grad():
        torch.testing.assert_close(m(x), c.module()(x), rtol=0, atol=0)


def test_unsupported_inputs():
    with pytest.raises(TaskParameterError, match="no construction for task 'parity'"):
        constructions.build("parity", 4)
    with pytest.raises(TaskParameterError, match="k=1 only"):
        constructions.build("dyck", 4)                      # Dyck-2, the task default
    with pytest.raises(TaskParameterError, match="1-hop"):
        constructions.build("khop", 6, k=2)
    with pytest.raises(TaskParameterError, match="token encoding"):
        constructions.BUILDERS["index"](tasks.get("index_all", n=4, k=1, mode="mask"))


def test_a_wrong_construction_is_not_verified():
    c = constructions.build("majority", 5)
    w = c.weights.copy()
    w.w_out[1, 0] = -1.0                 # the sign flipped: every decision wrong
    cert = check.exhaustive(dataclasses.replace(c, weights=w))
    assert cert.status == "refuted" and cert.counterexample is not None


def test_dyck_k_type_check_is_what_rejects_mismatches():
    """Dyck-2: without the mismatch term "( ]" would be accepted; the checks catch it."""
    import dataclasses as dc

    from theorybench.constructions import interval
    c = constructions.build("dyck_bounded", 4, k=2, D=2)
    assert c.shape()["layers"] == 4 and interval.verify(c).status == "proved"
    w = c.weights.copy()
    w.w_out[w.channels.index("mmavg"), 0] = 0.0
    bad = dc.replace(c, weights=w)
    ex = check.exhaustive(bad)
    assert ex.status == "refuted" and c.labels(np.array([ex.counterexample]))[0] == 0
    assert interval.verify(bad).status != "proved"


def test_a_declared_depth_bound_selects_the_dyck_k_construction():
    """The bounded Dyck-k construction is chosen by the task's declared D, not its name
    (issue 28 "Correctness"): dyck_bounded under another name is built and verified; Dyck-2
    without a bound is still refused."""
    from theorybench.constructions.counting import dyck1
    base = tasks.family("dyck_bounded")
    renamed = type("Nest", (base,), {"name": "nest", "__module__": __name__})
    c = dyck1(renamed(n=4, k=2, D=2))
    assert c.name == "dyck_bounded_k" and c.shape()["layers"] == 4
    assert check.exhaustive(c).status == "verified"
    with pytest.raises(TaskParameterError, match="handles k=1 only"):
        dyck1(tasks.get("dyck", n=4, k=2))
