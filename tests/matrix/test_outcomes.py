"""Three outcomes for an in-distribution cell: learned, not learned, inconclusive."""

from __future__ import annotations

from theorybench.matrix.agreement import agreement
from theorybench.matrix.empirical import (EASY, HARD, INCONCLUSIVE, empirical_cells)

from .conftest import ind


def run(task, n, acc, seed=0, stop="budget", drop=0.0):
    r = ind(task, n, acc, seed)
    r.metrics.update(stop_reason=stop, loss_drop=drop, loss_tol=0.01)
    return r


def cell(records, task="dyck"):
    return empirical_cells(records)["in_distribution"][task]


def test_seeds_that_disagree_are_inconclusive():
    # the case: Dyck-1 at n = 32 reached 1.00 with one seed and 0.53 with two
    c = cell([run("dyck", 32, 1.0, 0, "target"), run("dyck", 32, 0.53, 1),
              run("dyck", 32, 0.53, 2)])
    assert c.verdict == INCONCLUSIVE and "seeds disagree (1 of 3" in c.note


def test_loss_still_falling_at_the_budget_is_inconclusive():
    c = cell([run("dyck", 16, 0.8, 0, "budget", drop=0.2), run("dyck", 16, 0.7, 1)])
    assert c.verdict == INCONCLUSIVE and "loss still falling" in c.note


def test_flat_loss_is_not_learned_and_decides_hard():
    c = cell([run("dyck", 16, 0.6, 0, "plateau", drop=0.001), run("dyck", 16, 0.55, 1),
              run("dyck", 32, 0.8, 0, drop=0.3)])
    # n = 32 alone would be inconclusive; a not-learned n makes the task Hard
    assert c.verdict == HARD and "plateau" in c.note


def test_old_runs_without_a_loss_trend_keep_their_verdict():
    assert cell([ind("dyck", 16, 0.6)]).verdict == HARD
    assert cell([ind("dyck", 16, 1.0)]).verdict == EASY


def test_inconclusive_cells_are_left_out_of_agreement():
    emp = empirical_cells([run("dyck", 32, 1.0, 0, "target"), run("dyck", 32, 0.5, 1),
                           run("majority", 8, 1.0, 0, "target")])
    preds = [{"theory": "T", "task": t, "verdict": "easy", "status": "proven"}
             for t in ("dyck", "majority")]
    (row,) = agreement(preds, emp)
    assert row.compared == 1 and row.excluded_inconclusive == 1


def _lr(rec, lr):
    rec.spec["training"] = {"lr": lr}
    return rec


def test_the_best_learning_rate_decides_and_the_note_names_model_and_protocol():
    recs = [_lr(run("majority", 8, 0.6, s, "plateau"), 1e-4) for s in (0, 1)]
    recs += [_lr(run("majority", 8, 1.0, s, "target"), 1e-3) for s in (0, 1)]
    c = empirical_cells(recs)["in_distribution"]["majority"]
    assert c.verdict == EASY and "lr=0.001" in c.note and "protocol theorybench" in c.note


def test_mean_of_fitted_drops_seeds_that_did_not_fit():
    from theorybench.matrix.empirical import Thresholds

    from .conftest import lg
    good = {"<=32": 1.0, "33-64": 0.95}
    unfit = {"<=32": 0.7, "33-64": 0.2}
    recs = [lg("dyck", "nope", good, seed=0), lg("dyck", "nope", unfit, seed=1)]
    mean = empirical_cells(recs)["length_generalization"]["dyck"]
    fitted = empirical_cells(recs, Thresholds.from_protocol("huang2025")
                             )["length_generalization"]["dyck"]
    assert mean.verdict == HARD                   # the unfit seed drags the mean down
    assert fitted.verdict == EASY and "1 run(s) dropped" in fitted.note
    none_fit = empirical_cells([lg("dyck", "nope", unfit)], Thresholds.from_protocol(
        "huang2025"))["length_generalization"]["dyck"]
    assert none_fit.verdict == HARD and "no seed of small/nope fits" in none_fit.note
