"""The report's constructions table (theorybench/matrix/constructions_table.py)."""

from __future__ import annotations

from theorybench.constructions.evidence import HAND_BUILT
from theorybench.formal.crasp.programs import library
from theorybench.matrix.constructions_table import constructions_table
from theorybench.matrix.report import build_report, write_report


def test_every_construction_and_library_program_has_a_row_with_its_status():
    t = constructions_table()
    by = {(r["kind"], r["construction"] if r["kind"] == "compiled" else r["task"]): r
          for r in t.records}
    assert {k for k, _ in by} == {"hand-built", "compiled"}
    for label in HAND_BUILT:
        r = by["hand-built", label]
        assert r["status"] == "proven" or r["status"].startswith("verified <= "), r
        assert r["layers"] >= 1 and r["checked_ns"]
    assert by["hand-built", "majority"]["status"] == "proven"   # z3, every n
    assert by["hand-built", "khop:k=1"]["status"].startswith("verified <= ")
    for name in library():
        r = by["compiled", f"library:{name}"]
        assert r["status"] == "verified <= 12" and r["checked_ns"] == list(range(1, 13)), r
    assert len(t.rows) == len(t.records) and len(t.header) == len(t.rows[0])


def test_the_report_writes_the_table_and_shows_it(tmp_path):
    files = write_report(tmp_path, build_report([], []))
    assert "constructions.md" in files and "constructions.json" in files
    md = files["constructions.md"].read_text()
    assert "library:dyck1" in md and "khop:k=1" in md
    page = files["index.html"].read_text()
    assert "<h3>Constructions</h3>" in page and "library:majority" in page
    assert "constructions" not in build_report([], [], constructions=False).tables
