"""Issue 11: the status of every cell in the tables, the heatmap legend and the agreement
table's --min-status filter."""

import pytest

from theorybench.errors import ConfigError
from theorybench.matrix.agreement import agreement, parse_min_status
from theorybench.matrix.empirical import empirical_cells
from theorybench.matrix.tables import (STATUS_MARK_LEGEND, agreement_table, prediction_table,
                                       status_mark)

P = [
    {"theory": "A", "task": "majority", "verdict": "easy", "basis": "construction",
     "status": "verified", "evidence": {"verified_up_to": 12}},
    {"theory": "A", "task": "parity", "verdict": "hard", "basis": "lower-bound",
     "status": "proven", "evidence": {"proof": "closed form"}},
    {"theory": "A", "task": "index", "verdict": "easy", "basis": "lower-bound",
     "status": "extrapolated"},
]


def test_tables_spell_out_every_status():
    t = prediction_table(P, ["A"], ["majority", "parity", "index"])
    cells = [r[1] for r in t.rows]
    assert cells == ["Easy (con, verified ≤ 12)", "Hard (lb, proven)", "Easy (lb, extrapolated)"]
    assert "verified ≤ N" in t.caption and "cited" in t.caption
    assert r"$\le$" in t.latex() and "≤" not in t.latex().split("%")[0]
    assert t.records[0]["status_label"] == "verified ≤ 12"
    # a prediction stored before issue 11 ("conjectured", a measured tendency) still reads
    old = {**P[2], "status": "conjectured"}
    assert prediction_table([old], ["A"], ["index"]).rows[0][1] == "Easy (lb, extrapolated)"


def test_heatmap_marks_have_a_legend():
    marks = {status_mark(p) for p in P}
    assert marks == {"V", "P", "~"}
    assert all(m in STATUS_MARK_LEGEND for m in marks)


def test_min_status_filters_the_agreement_table(records):
    emp = empirical_cells(records)
    every = {r.line: r for r in agreement(P, emp) if r.theory == "A"}
    only = {r.line: r for r in agreement(P, emp, min_status="proven") if r.theory == "A"}
    ind_all, ind_proven = every["in_distribution"], only["in_distribution"]
    assert ind_all.compared == 3 and ind_proven.compared == 1  # parity only
    assert ind_proven.excluded_status == 2 and ind_proven.min_status == "proven"
    verified = {r.line: r for r in agreement(P, emp, min_status="verified ≤ 12")}
    assert verified["in_distribution"].compared == 2
    assert "--min-status" in agreement_table(only.values()).caption
    with pytest.raises(ConfigError, match="proven, verified"):
        parse_min_status("conjectured")


def test_report_cli_min_status(cli, tmp_path):
    code, _, err = cli("report", "--min-status", "sure", "--db", tmp_path / "x.db",
                       "--out", tmp_path / "out", "--predictions", tmp_path / "p.json")
    assert code == 2 and "--min-status" in err and "Traceback" not in err


def test_every_html_cell_opens_its_evidence(tmp_path, records):
    from theorybench.matrix.report import build_report, write_report
    from theorybench.theories.registry import theory
    p = theory("ac0").predict("parity").to_dict()
    rep = build_report([p, *P], records)
    write_report(tmp_path, rep)
    page = (tmp_path / "index.html").read_text()
    cells = page.split("<h3>Predictions</h3>")[1].split("</table>")[0]
    assert cells.count("<details>") == 4  # one per cell
    # what `theorybench explain` prints: rules tried, the fit, the theorem and its source
    assert "Rules tried (in order)" in cells and "Boppana" in cells and "closed form" in cells
    assert "<script" not in page
