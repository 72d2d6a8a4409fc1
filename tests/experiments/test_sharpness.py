"""Sharpness measures against closed forms on quadratics, determinism, and the CLI."""

from __future__ import annotations

import json

import pytest
import torch

from theorybench.experiments.sharpness import average_sharpness, measure, top_hessian_eigenvalue

A = torch.diag(torch.tensor([5.0, 2.0, -1.0, 0.5], dtype=torch.float64))


def quadratic():
    x = torch.nn.Parameter(torch.tensor([0.3, -0.2, 0.1, 0.4], dtype=torch.float64))
    return x, (lambda: 0.5 * x @ A @ x + x.sum())  # Hessian A everywhere


def test_power_iteration_finds_the_largest_eigenvalue():
    x, loss = quadratic()
    lam, its, ok, hist = top_hessian_eigenvalue(loss, [x], torch.Generator().manual_seed(0),
                                                iters=200, tol=1e-10)
    assert ok and lam == pytest.approx(5.0, rel=1e-6)


def test_average_sharpness_is_half_the_trace_on_a_quadratic():
    x, loss = quadratic()
    before = x.detach().clone()
    mean, se = average_sharpness(loss, [x], 1e-2, 4000, torch.Generator().manual_seed(1))
    # E[z^T A z] / 2 = trace(A) / 2 = 3.25; antithetic pairs remove the linear term exactly
    assert mean == pytest.approx(3.25, abs=4 * se + 1e-9) and se < 0.1
    assert torch.equal(x.detach(), before)  # the parameters are restored


def test_measure_is_deterministic_and_reports_the_batch(one_torch_thread):
    kw = dict(batch=32, iters=4, perturbations=2)
    a, b = measure("parity", 5, **kw), measure("parity", 5, **kw)
    assert a.lambda_max == b.lambda_max and a.avg_sharpness == b.avg_sharpness
    assert a.state == "init" and a.batch == 32 and a.parameters > 0
    c = measure("parity", 5, seed=1, **kw)
    assert c.lambda_max != a.lambda_max


def test_cli_json_plot_and_skipped_sizes(cli, tmp_path, one_torch_thread):
    png = tmp_path / "s.png"
    code, out, _ = cli("sharpness", "majority,parity", "--n", "4,5", "--batch", "16",
                       "--iters", "3", "--perturbations", "2", "--plot", png,
                       "--format", "json")
    assert code == 0
    res = json.loads(out)
    assert {(r["task"], r["n"]) for r in res["results"]} == {("majority", 5), ("parity", 4),
                                                              ("parity", 5)}
    assert any("majority n=4" in s for s in res["skipped"])  # majority needs odd n
    assert png.stat().st_size > 1000


@pytest.mark.parametrize("argv, message", [
    (["parity", "--n", "5", "--rho", "0"], "--rho"),
    (["parity", "--n", "5", "--batch", "1"], "--batch"),
    (["parityy", "--n", "5"], "unknown task"),
    (["parity,majority", "--n", "5", "--trained", "x.pt"], "one checkpoint"),
    (["parity", "--n", "5", "--trained", "missing.pt"], "does not exist"),
])
def test_cli_bad_input(cli, argv, message):
    code, _, err = cli("sharpness", *argv)
    assert code == 2 and message in err
