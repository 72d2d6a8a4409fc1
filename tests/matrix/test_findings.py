"""The study's findings checked on hand-made cells: each rule's outcome follows the data."""

from __future__ import annotations

from theorybench.matrix.empirical import empirical_cells
from theorybench.matrix.findings import (NOT_REPRODUCED, NOT_TESTED, PARTLY, REPRODUCED,
                                         findings)
from theorybench.matrix.report import build_report

from .conftest import ind, lg


def kh(k, n, acc, seed=0):
    r = ind("khop", n, acc, seed)
    r.spec["params"] = {"k": k}
    return r


def dyck1(enc, bins, size="small"):
    r = lg("dyck", enc, bins, size)
    r.spec["params"] = {"k": 1}
    return r


GOOD = {"<=32": 1.0, "33-64": 0.97, "65-128": 0.95}
BAD = {"<=32": 1.0, "33-64": 0.6, "65-128": 0.5}


def _records(parity=0.5, k2=0.9):
    return [ind("parity", 8, parity), ind("parity", 16, 0.5), ind("majority", 7, 1.0),
            ind("index", 8, 1.0), kh(1, 8, 1.0), kh(1, 16, 0.995), kh(2, 8, k2),
            kh(2, 16, 0.97), kh(3, 8, 0.8), kh(3, 16, 0.7),
            dyck1("nope", GOOD), dyck1("nope", BAD, "base"), dyck1("rope", GOOD),
            lg("khop", "rope", BAD), lg("khop", "alibi", GOOD)]


def _outcomes(records, pooled=None):
    rows = findings(empirical_cells(records), pooled or {})
    return {r["finding"].split()[0]: r for r in rows}


def test_each_rule_reads_the_cells():
    out = _outcomes(_records(), {"in_distribution": {
        "precision_easy": 0.6, "precision_hard": 0.8, "easy_correct": 3, "easy_predicted": 5,
        "hard_correct": 4, "hard_predicted": 5}})
    assert out["Parity"]["outcome"] == REPRODUCED and "parity hard" in out["Parity"]["measured"]
    assert out["2-hop"]["outcome"] == REPRODUCED
    assert "n=8 0.900 vs 1.000" in out["2-hop"]["measured"]
    # small NoPE generalizes, base NoPE does not: partly, with both named
    assert out["NoPE"]["outcome"] == PARTLY and "base/nope" in out["NoPE"]["measured"]
    assert out["RoPE"]["outcome"] == NOT_REPRODUCED
    assert "small/alibi" in out["RoPE"]["measured"] and out["RoPE"]["to test properly"]
    assert out["Hard"]["outcome"] == REPRODUCED and out["Hard"]["to test properly"] == ""


def test_contradicting_and_missing_data():
    learned_parity = [ind("parity", 8, 1.0), ind("parity", 16, 0.995)] + _records()[2:]
    out = _outcomes(learned_parity, {"lg": {
        "precision_easy": 0.9, "precision_hard": 0.5, "easy_correct": 9, "easy_predicted": 10,
        "hard_correct": 1, "hard_predicted": 2}})
    assert out["Parity"]["outcome"] == PARTLY           # parity learned, the others too
    only_parity_learned = [ind("parity", 8, 1.0), ind("majority", 7, 0.6), ind("index", 8, 0.5),
                           kh(1, 8, 0.7)]
    assert _outcomes(only_parity_learned)["Parity"]["outcome"] == NOT_REPRODUCED
    assert out["Hard"]["outcome"] == NOT_REPRODUCED
    none = _outcomes([ind("majority", 7, 1.0)])
    assert {r["outcome"] for r in none.values()} == {NOT_TESTED}
    assert "khop" in none["Parity"]["measured"] or "parity" in none["Parity"]["measured"]


def test_hops_not_harder_is_not_reproduced():
    recs = [kh(1, 8, 0.9), kh(2, 8, 0.95), kh(3, 8, 0.99)]
    assert _outcomes(recs)["2-hop"]["outcome"] == NOT_REPRODUCED


def test_findings_table_in_the_report():
    rep = build_report([], _records(), constructions=False)
    t = rep.tables["findings"]
    assert [r[0] for r in t.rows][0].startswith("Parity") and len(t.rows) == 5
    assert "thresholds" in t.caption
    assert "findings" not in build_report([], [], constructions=False).tables


def test_variant_predictions_meet_their_runs_in_one_row():
    preds = [{"theory": "A", "task": "khop:k=2", "verdict": "hard", "basis": "lower-bound",
              "status": "proven"}]
    rep = build_report(preds, [kh(2, 8, 0.5)], constructions=False)
    assert rep.tasks == ["khop[k=2]"]
    row = next(r for r in rep.rows if r.line == "in_distribution")
    assert row.compared == 1 and row.agree == 1 and row.missing_empirical == 0
