import pytest

from theorybench.matrix.agreement import agreement, best_theory, hard_vs_easy_precision
from theorybench.matrix.empirical import (EASY, HARD, INCONCLUSIVE, INSUFFICIENT, Thresholds,
                                          empirical_cells, in_distribution_cells,
                                          length_generalization_cells)

from .conftest import PREDICTIONS, ind


def test_in_distribution_verdicts(records):
    cells = in_distribution_cells(records)
    assert cells["majority"].verdict == EASY
    assert cells["majority"].by_n[8].mean == pytest.approx(0.995)
    assert cells["majority"].by_n[8].spread == pytest.approx(0.01)
    assert cells["parity"].verdict == HARD
    assert "16" in cells["parity"].note
    # fixed-size runs only: the largest set decides, sample complexity is the smallest reaching
    assert cells["index"].verdict == EASY
    assert cells["index"].sample_complexity == {8: 256}
    assert "any" not in cells  # only a failed run


def test_min_seeds_makes_cells_insufficient(records):
    cells = in_distribution_cells(records, Thresholds(min_seeds=2))
    assert cells["majority"].verdict == EASY
    assert cells["index"].verdict == INSUFFICIENT
    assert "run more seeds" in cells["index"].note


def test_aggregate_best_versus_mean():
    recs = [ind("parity", 8, 0.99, 0), ind("parity", 8, 0.5, 1)]
    # the mean misses the target but one seed reached it: the seeds disagree
    assert in_distribution_cells(recs)["parity"].verdict == INCONCLUSIVE
    recs = [ind("parity", 8, 0.98, 0), ind("parity", 8, 0.5, 1)]
    assert in_distribution_cells(recs)["parity"].verdict == HARD
    recs = [ind("parity", 8, 0.99, 0), ind("parity", 8, 0.5, 1)]
    assert in_distribution_cells(recs, Thresholds(aggregate="best"))["parity"].verdict == EASY


def test_length_generalization_best_configuration(records):
    cells = length_generalization_cells(records)
    assert cells["majority"].verdict == EASY
    assert cells["majority"].best_config == "small/nope"
    assert cells["majority"].config_verdicts == {"small/nope": EASY, "small/rope": HARD}
    assert cells["parity"].verdict == HARD


def test_agreement_statistics_known_answers(records):
    emp = empirical_cells(records)
    rows = {(r.theory, r.line): r for r in agreement(PREDICTIONS, emp, {"B": ["unique hard attention"]})}
    a = rows[("A", "in_distribution")]
    assert (a.compared, a.agree, a.accuracy) == (3, 3, 1.0)
    assert a.precision_easy == 1.0 and a.precision_hard == 1.0
    assert a.missing_empirical == 1  # any has no finished run
    b = rows[("B", "in_distribution")]
    assert (b.compared, b.agree) == (2, 1)
    assert b.excluded_unknown == 1
    assert b.precision_hard == 0.5 and b.precision_easy is None
    assert [d.task for d in b.disagreements] == ["majority"]
    assert "softmax attention can average" in b.disagreements[0].cause
    lgb = rows[("B", "length_generalization")]
    assert (lgb.compared, lgb.agree) == (2, 1)
    best = best_theory(rows.values())
    assert best["in_distribution"]["theory"] == "A"
    pooled = hard_vs_easy_precision(rows.values())["in_distribution"]
    assert pooled["hard_predicted"] == 3 and pooled["hard_correct"] == 2
    assert pooled["easy_predicted"] == 2 and pooled["easy_correct"] == 2
    assert pooled["hard_more_reliable"] is False


def test_length_bins_are_ordered_by_length_not_by_name():
    from .conftest import lg
    recs = [lg("any", "nope", {"129-256": 0.5, "33-64": 0.9, "65-128": 0.7, "<=32": 1.0})]
    cell = length_generalization_cells(recs)["any"]
    assert list(cell.by_config["small/nope"]) == ["<=32", "33-64", "65-128", "129-256"]


def test_bins_without_valid_lengths_are_left_out_not_crashed():
    from .conftest import lg
    recs = [lg("edge_exists", "nope", {"<=32": 1.0, "33-64": None, "65-128": None})]
    cell = length_generalization_cells(recs)["edge_exists"]
    assert cell.verdict == EASY
    assert list(cell.by_config["small/nope"]) == ["<=32"]
    assert "no valid input length" in cell.note and "33-64" in cell.note


def test_best_configuration_is_consistent_with_the_verdict():
    from .conftest import lg
    recs = [lg("any", "a", {"<=32": 0.95, "33-64": 0.92, "65-128": 0.91}),
            lg("any", "b", {"<=32": 1.0, "33-64": 0.5, "65-128": 0.97})]
    cell = length_generalization_cells(recs)["any"]
    assert cell.verdict == EASY and cell.best_config == "small/a"
    assert cell.config_verdicts["small/b"] == HARD


def test_variants_and_configurations_are_not_pooled_as_seeds():
    from .conftest import Rec
    def run(params, acc, enc="rope"):
        return Rec("in_distribution", {"task": "khop", "n": 8, "params": params, "seed": 0,
                                       "model": {"size": "small", "encoding": enc}},
                   {"test_accuracy": acc})
    cells = in_distribution_cells([run({"k": 1}, 1.0), run({"k": 3}, 0.5),
                                   run({"k": 3}, 0.995, "nope")])
    assert set(cells) == {"khop", "khop:k=3"}  # k=1 is the default: plain name
    assert cells["khop"].by_n[8].seeds == 1 and cells["khop"].verdict == EASY
    # two configurations of k=3: the best one decides, their accuracies are not averaged
    assert cells["khop:k=3"].by_n[8].mean == 0.995 and cells["khop:k=3"].by_n[8].seeds == 1


def test_likely_causes_match_each_theory_s_assumptions():
    from theorybench.matrix.agreement import likely_cause
    from theorybench.theories.registry import theories
    reg = theories()
    cause = lambda name: likely_cause(HARD, EASY, reg[name].assumptions)
    assert "hard attention picks one position" in cause("ac0")
    assert "hard attention picks one position" in cause("star_free")
    assert "hard attention" not in cause("tc0")  # average-hard / softmax, not unique hard
    assert "bandwidth" in cause("bapo") and "bandwidth" not in cause("sensitivity")
    assert "sharp" in cause("sensitivity")
    assert "round lower bounds" in cause("mpc") and "bandwidth" not in cause("mpc")
    assert "retriev" in cause("crasp")
