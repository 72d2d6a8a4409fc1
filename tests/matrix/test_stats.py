"""Intervals, baselines and the tests behind the agreement table and the findings."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from theorybench.matrix.agreement import agreement, baselines, hard_vs_easy_precision
from theorybench.matrix.findings import NOT_REPRODUCED, REPRODUCED, _precision
from theorybench.matrix.stats import (binomial_tail, mcnemar_exact, precision_gap,
                                      seed_range_margin, wilson_interval)


@pytest.mark.parametrize("k,n,lo,hi", [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634),
                                       (10, 10, 0.7225, 1.0), (81, 263, 0.2553, 0.3662)])
def test_wilson_interval_matches_published_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=5e-4) and b == pytest.approx(hi, abs=5e-4)
    assert wilson_interval(0, 0) is None


def test_binomial_tail_against_enumeration():
    n = 11
    heads = np.array(list(itertools.product((0, 1), repeat=n))).sum(axis=1)
    for x in range(-1, n + 2):
        assert binomial_tail(x, n) == pytest.approx((heads >= x).mean(), abs=1e-15)
    assert mcnemar_exact(6, 0) == pytest.approx(1 / 64)
    assert mcnemar_exact(0, 0) == 1.0


def test_precision_gap_by_hand():
    hard = np.array([[1, 1, 0, 0]], bool)
    easy = ~hard
    observed = np.array([1, 0, 0, 0], bool)
    # Hard precision 1/2, Easy precision 2/2
    assert precision_gap(hard, easy, observed) == pytest.approx(-0.5)
    assert np.isnan(precision_gap(hard, np.zeros_like(easy), observed))


def test_seed_range_margin():
    assert seed_range_margin([0.5, 0.6], [0.9, 1.0]) == pytest.approx(0.3)
    assert seed_range_margin([0.5, 0.95], [0.9, 1.0]) < 0
    assert seed_range_margin([0.5], [0.9, 1.0]) is None


def _matrix(pred: np.ndarray, observed: np.ndarray):
    """predictions (theories x tasks of 'easy'/'hard') and one line of observed verdicts."""
    tasks = [f"t{j}" for j in range(pred.shape[1])]
    preds = [{"theory": f"T{i}", "task": t, "verdict": pred[i, j], "status": "proven"}
             for i in range(pred.shape[0]) for j, t in enumerate(tasks)]
    emp = {"line": {t: SimpleNamespace(verdict=o) for t, o in zip(tasks, observed)}}
    return preds, emp


def _hard_finding(pred, observed, seed=0):
    preds, emp = _matrix(pred, observed)
    pooled = hard_vs_easy_precision(agreement(preds, emp), np.random.default_rng(seed),
                                    permutations=2000)
    return _precision(pooled)[0], pooled["line"]


def test_hard_more_precise_is_not_reproduced_on_random_verdicts():
    """With most tasks Hard, random predictions have the higher Hard precision almost
    always (the old check passed on them); the permutation test does not."""
    observed = np.array(["hard"] * 20 + ["easy"] * 10)
    rng = np.random.default_rng(7)
    outcomes, raw_higher = [], []
    for trial in range(40):
        pred = rng.permutation(np.tile(observed, (8, 1)), axis=1)   # verdicts permuted
        pred = np.array([rng.permutation(row) for row in pred])
        outcome, pooled = _hard_finding(pred, observed, seed=trial)
        outcomes.append(outcome)
        raw_higher.append(pooled["hard_precision_higher"])
    assert np.mean(raw_higher) > 0.8
    assert outcomes.count(REPRODUCED) <= 6            # about 5 % expected at level 0.05
    assert outcomes.count(NOT_REPRODUCED) >= 34


def test_hard_more_precise_is_reproduced_where_it_holds():
    """Hard said only of truly hard tasks, Easy said of every easy task and of half the
    hard ones: Hard precision 1, Easy precision 1/2, far beyond the base rate."""
    observed = np.array(["hard"] * 20 + ["easy"] * 10)
    pred = np.tile(np.array(["hard"] * 10 + ["easy"] * 20), (8, 1))
    outcome, pooled = _hard_finding(pred, observed)
    assert pooled["precision_hard"] == 1.0 and pooled["precision_easy"] == 0.5
    assert pooled["p_value"] < 0.01 and outcome == REPRODUCED


def test_baselines_and_the_majority_comparison():
    observed = np.array(["hard"] * 6 + ["easy"] * 2)
    always_hard = np.tile(np.array(["hard"] * 8), (1, 1))
    perfect = observed[None, :]
    preds, emp = _matrix(np.vstack([always_hard, perfect]), observed)
    rows = {r.theory: r for r in agreement(preds, emp)}
    base = {r.theory: r for r in baselines(preds, emp)}
    assert base["always Hard"].accuracy == 0.75 and base["always Easy"].accuracy == 0.25
    assert base["majority class"].accuracy == 0.75
    # a theory that is the majority class does not beat it; a perfect one over 8 tasks
    # beats it on 2 discordant cells only: p = 1/4, not significant either
    assert rows["T0"].majority_baseline == 0.75 and rows["T0"].beats_majority is False
    assert rows["T1"].accuracy == 1.0 and rows["T1"].p_vs_majority == pytest.approx(0.25)
    assert rows["T1"].beats_majority is False
    lo, hi = rows["T1"].accuracy_interval
    assert lo < 1.0 == hi


def test_report_agreement_table_shows_baselines_and_intervals():
    from theorybench.matrix.report import build_report

    from .conftest import ind
    recs = [ind("majority", 8, 1.0), ind("parity", 8, 0.5), ind("index", 8, 0.5)]
    preds = [{"theory": "A", "task": t, "verdict": v, "basis": "theorem", "status": "proven"}
             for t, v in (("majority", "easy"), ("parity", "hard"), ("index", "easy"))]
    table = build_report(preds, recs, constructions=False).tables["agreement"]
    names = [row[0] for row in table.rows]
    assert names[0] == "A" and {"baseline: always Easy", "baseline: always Hard",
                                "baseline: majority class"} <= set(names)
    a = table.rows[0]
    assert a[3] == "0.67" and a[4].startswith("[") and a[5] == "0.67"
    assert "Not better than the majority class" in table.caption and "A (in_distribution)" \
        in table.caption


def test_a_cell_resting_on_a_missing_lemma_is_left_out_unless_asked():
    observed = np.array(["hard", "easy"])
    preds, emp = _matrix(np.array([["hard", "hard"]]), observed)
    preds[1]["evidence"] = {"missing_lemma": ["Greater-Than is BAPO-hard"]}
    (row,) = agreement(preds, emp)
    assert row.compared == 1 and row.excluded_missing_lemma == 1 and row.accuracy == 1.0
    (row,) = agreement(preds, emp, include_missing_lemmas=True)
    assert row.compared == 2 and row.accuracy == 0.5


def test_every_empirical_cell_carries_seed_ranges_and_a_wilson_interval():
    from theorybench.matrix.empirical import empirical_cells
    from theorybench.matrix.stats import wilson_interval
    from theorybench.matrix.tables import _empirical_cell_text

    from .conftest import ind, lg
    recs = [ind("majority", 8, 0.9, 0), ind("majority", 8, 0.8, 1),
            lg("parity", "nope", {"<=32": 1.0, "33-64": 0.5}, seed=0),
            lg("parity", "nope", {"<=32": 1.0, "33-64": 0.7}, seed=1)]
    for r in recs:
        r.spec["training"] = {"final_eval_count": 100}
    cells = empirical_cells(recs)
    a = cells["in_distribution"]["majority"].by_n[8]
    assert a.examples == 200 and a.wilson95 == wilson_interval(170, 200)
    assert a.seed_range == (0.8, 0.9)
    text = _empirical_cell_text(cells["in_distribution"]["majority"])
    assert "seeds 0.80-0.90" in text and "Wilson" in text
    b = cells["length_generalization"]["parity"].by_config["small/nope"]["33-64"]
    assert b.wilson95 == wilson_interval(120, 200)
    d = cells["length_generalization"]["parity"].to_dict()
    assert d["by_config"]["small/nope"]["33-64"]["wilson95"] == list(b.wilson95)
    # a run that does not say how many examples it was tested on gets no interval
    del recs[0].spec["training"]
    assert empirical_cells(recs)["in_distribution"]["majority"].by_n[8].wilson95 is None
