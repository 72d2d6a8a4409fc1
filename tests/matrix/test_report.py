import json
import re
from pathlib import Path

from theorybench.matrix.report import build_report, write_report

from .conftest import PREDICTIONS


def _check_html(out: Path, files):
    page = (out / "index.html").read_text()
    # every referenced file exists and was written by the report; images are embedded
    refs = re.findall(r'(?:href|src)="([^"]+)"', page)
    assert refs
    for ref in refs:
        if ref.startswith("data:image/png;base64,"):
            assert len(ref) > 1000
            continue
        assert not ref.startswith(("http:", "https:", "/")), ref
        assert (out / ref).exists() and (out / ref) in files.values(), ref
    return page


def test_report_renders_from_records(tmp_path, records):
    rep = build_report(PREDICTIONS, records)
    files = write_report(tmp_path, rep)
    for name in ("predictions", "empirical", "agreement"):
        for ext in ("md", "csv", "json", "tex"):
            assert (tmp_path / f"{name}.{ext}").stat().st_size > 20
    for png in ("heatmap", "accuracy_vs_n", "length_generalization", "sample_complexity"):
        data = (tmp_path / f"{png}.png").read_bytes()
        assert data[:4] == b"\x89PNG" and len(data) > 5000
    page = _check_html(tmp_path, files)
    assert "majority" in page and "Agreement" in page
    agree = json.loads((tmp_path / "agreement.json").read_text())
    assert {(r["theory"], r["line"]) for r in agree} >= {("A", "in_distribution"), ("B", "length_generalization")}
    md = (tmp_path / "predictions.md").read_text()
    assert "| majority | Easy (con, proven) | Hard (lb, proven) |" in md
    assert "\\begin{tabular}" in (tmp_path / "agreement.tex").read_text()
    # the failed run is reported as missing work with the command to fix it
    assert any("--retry-failed" in m for m in rep.missing)


def test_report_with_empty_store_says_what_is_missing(tmp_path):
    rep = build_report(PREDICTIONS, [])
    files = write_report(tmp_path, rep)
    assert any("has no runs" in m and "theorybench verify" in m for m in rep.missing)
    page = _check_html(tmp_path, files)
    assert "What is missing" in page
    # placeholder plots still carry a message, not an empty axis
    assert (tmp_path / "accuracy_vs_n.png").stat().st_size > 3000


def test_report_without_predictions(tmp_path, records):
    rep = build_report([], records)
    write_report(tmp_path, rep)
    assert any("no predictions" in m for m in rep.missing)


def test_every_theory_has_an_explanation_in_the_report():
    from theorybench.matrix.report import theory_infos
    from theorybench.theories.registry import theories

    infos = theory_infos(list(theories()))
    assert len(infos) == 9 and infos[-1].name == "huang_lg"
    for info in infos:
        assert len(info.summary) > 80, info.name
        assert info.assumptions and info.sources, info.name
