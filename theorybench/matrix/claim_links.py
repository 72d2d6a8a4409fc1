"""Links from the report's theory cells to the certificates of the claims they rest on.

A cell whose verdict comes from a claim of ``theorybench claims`` (``_rules.claim_rule``)
carries the claim's name and its certificate (``certificate.to_dict()``, the check that
settled the cell) in its evidence. The report links each such cell to an anchor
``#claim-NAME`` and appends one section per claim to the same self-contained page: the
statement, the certificate's steps (status and how each was established) and the proof
text. The certificate shown is the stored one; a cell without a stored certificate (an
older predictions file) gets the claim's check at its small default size, run once per
claim and marked as re-run.
"""

from __future__ import annotations

import html
import re
from typing import Any, Iterable, Mapping

_ID = re.compile(r"[^A-Za-z0-9_-]")


def anchor(name: str) -> str:
    """The HTML id of a claim's section (``claim-`` + the name, safe characters only)."""
    return "claim-" + _ID.sub("-", str(name))


def claim_name(p: Mapping[str, Any]) -> str | None:
    """The claim a prediction rests on, or None."""
    ev = p.get("evidence")
    name = ev.get("claim") if isinstance(ev, Mapping) else None
    return name if isinstance(name, str) and name else None


def cell_link(p: Mapping[str, Any]) -> str:
    """HTML for inside a cell: a link to its claim's certificate, or ''."""
    name = claim_name(p)
    if name is None:
        return ""
    return (f"<div class='claim'><a href='#{anchor(name)}'>certificate of claim "
            f"{html.escape(name)}</a></div>")


def _certificates(predictions: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """claim name -> {"certificate": dict, "rerun": bool, "cells": [(theory, task)]}."""
    out: dict[str, dict[str, Any]] = {}
    for p in predictions:
        name = claim_name(p)
        if name is None:
            continue
        entry = out.setdefault(name, {"certificate": None, "rerun": False, "cells": []})
        entry["cells"].append((str(p.get("theory", "")), str(p.get("task", ""))))
        cert = p["evidence"].get("certificate")
        if entry["certificate"] is None and isinstance(cert, Mapping) and "steps" in cert:
            entry["certificate"] = dict(cert)
    from ..proofs import claims
    for name, entry in out.items():
        if entry["certificate"] is None and name in claims.names():
            entry["certificate"] = claims.certificate(name).to_dict()
            entry["rerun"] = True
    return out


def _steps_html(cert: Mapping[str, Any]) -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><td>{esc(str(s.get('name', '')))}</td><td>{esc(str(s.get('status', '')))}</td>"
        f"<td>{esc(str(s.get('how', '')))}</td><td>{esc(str(s.get('statement', '')))}</td></tr>"
        for s in cert.get("steps", []))
    return ("<table><thead><tr><th>step</th><th>status</th><th>how</th><th>statement</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>")


def certificates_html(predictions: Iterable[Mapping[str, Any]]) -> str:
    """The report's section of claim certificates (empty when no cell rests on a claim)."""
    from ..proofs import claims

    found = _certificates(predictions)
    if not found:
        return ""
    esc = html.escape
    parts = ["<h2 id='claims'>Claim certificates</h2><p>Cells marked <i>certificate of "
             "claim</i> rest on a claim of <code>theorybench claims</code>; its certificate "
             "says how each step of the proof was established (by computer for every n or "
             "up to a stated n, by hand, cited, or missing). Run <code>theorybench claim "
             "NAME --max-n N</code> for a larger check.</p>"]
    for name, entry in found.items():
        cert = entry["certificate"]
        parts.append(f"<section id='{anchor(name)}'><h3>{esc(name)}</h3>")
        if cert is None:
            parts.append("<p>No certificate stored with the cells and no claim of this "
                         "name is registered.</p></section>")
            continue
        cells = ", ".join(f"{t} × {k}" for t, k in entry["cells"])
        cond = cert.get("conditional_on") or []
        parts.append(
            f"<p><b>{esc(str(cert.get('title', '')))}</b></p>"
            f"<p>Status: <b>{esc(str(cert.get('status', '')))}</b>"
            + (f"; conditional on: {esc(', '.join(map(str, cond)))}" if cond else "")
            + f". Check run with max_n = {esc(str(cert.get('max_n', '')))} in "
            f"{float(cert.get('seconds', 0.0)):.2f} s"
            + (" (re-run for this report: the cells stored no certificate)"
               if entry["rerun"] else " (the check that settled the cells)")
            + f". Cells: {esc(cells)}.</p>")
        parts.append(_steps_html(cert))
        if name in claims.names():
            c = claims.get(name)
            parts.append(f"<details><summary>Statement, assumptions and proof</summary>"
                         f"<pre class='ev'>{esc(c.to_markdown())}</pre></details>")
        parts.append("</section>")
    return "\n".join(parts)


__all__ = ["anchor", "claim_name", "cell_link", "certificates_html"]
