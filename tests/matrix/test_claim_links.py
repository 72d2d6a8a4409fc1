"""The report links every cell that rests on a claim to the claim's certificate, embedded
in the same page (theorybench/matrix/claim_links.py)."""

from __future__ import annotations

import re

from theorybench.matrix import claim_links as L
from theorybench.matrix.report import build_report, write_report
from theorybench.theories.base import Context
from theorybench.theories.runner import predict_matrix


def _preds():
    out = predict_matrix(["bapo"], ["dyck:k=1", "binary_add", "majority"], Context(),
                         progress=False)
    return [p.to_dict() for p in out]


def test_cells_on_claims_link_to_embedded_certificates(tmp_path):
    preds = _preds()
    on_claim = {p["task"]: L.claim_name(p) for p in preds}
    assert on_claim["dyck:k=1"] == "bapo-dyck"
    assert on_claim["binary_add"] == "bapo-binary-add"
    assert on_claim["majority"] is None  # settled by its own reduction rule, no link
    files = write_report(tmp_path, build_report(preds, []))
    page = files["index.html"].read_text()
    hrefs = set(re.findall(r"href='#(claim-[^']+)'", page))
    ids = set(re.findall(r"id='(claim-[^']+)'", page))
    assert hrefs == {"claim-bapo-dyck", "claim-bapo-binary-add"} and hrefs <= ids
    # the embedded certificate is the one stored with the cell, with its steps
    sec = page[page.index("id='claim-bapo-binary-add'"):]
    assert "conditional on: Greater-Than is BAPO-hard" in sec[:3000]
    assert "the check that settled the cells" in sec[:3000]
    assert "EXACT-HALF is BAPO-hard" in page and "by hand" in page


def test_a_cell_without_a_stored_certificate_gets_a_rerun_and_no_claim_no_section():
    preds = _preds()
    p = next(q for q in preds if q["task"] == "binary_add")
    bare = {**p, "evidence": {"claim": "bapo-binary-add"}}
    html = L.certificates_html([bare])
    assert "re-run for this report" in html and "Greater-Than is BAPO-hard" in html
    assert L.certificates_html([q for q in preds if L.claim_name(q) is None]) == ""
    unknown = {**p, "evidence": {"claim": "no-such-claim"}}
    assert "no claim of this name" in L.certificates_html([unknown])
    assert L.anchor("a b<c>") == "claim-a-b-c-"
