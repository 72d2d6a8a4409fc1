"""The page of `theorybench byo`: one Markdown file and one self-contained HTML file with
the same content (the built-in report's cell format, legend and evidence per cell)."""

from __future__ import annotations

import html as H
import re
from pathlib import Path
from typing import Any

from ..matrix.tables import prediction_cell
from ..safe_io import atomic_write
from ..theories.runner import LEGEND, explain_text


def _cell(p) -> str:
    return prediction_cell(p.to_dict())


def _program_rows(result) -> list[list[str]]:
    rows = []
    for rec in result["programs"]:
        check = rec.get("check") or {}
        verified = (f"all inputs up to n = {rec['exhaustive_up_to']}, samples up to n = "
                    f"{rec['verified_up_to']}" if "exhaustive_up_to" in rec else
                    f"all inputs up to n = {check.get('exhaustive_up_to')}" if check else "")
        t = rec.get("transformer") or {}
        compiled = (f"{t['status']} on all {t['inputs']:,} inputs up to length {t['max_len']}"
                    if t.get("compiled") else t.get("reason", ""))
        proof = rec.get("proof", {})
        rows.append([rec["language"], rec["fragment"], rec["origin"], rec["how"],
                     ", ".join(rec["used_by"]) or "none (not in any column's model)",
                     verified, (proof.get("status", "") + (f": {proof['reason']}" if
                                proof.get("reason") else "")) if proof else "", compiled])
    return rows


PROGRAM_HEADER = ["language", "fragment", "from", "how", "evidence for", "checked against "
                  "the label", "crasp prove", "compiled softmax transformer"]
TRAIN_HEADER = ["n", "status", "test accuracy", "chance", "steps", "stopped", "wall s"]


def _train_rows(tr) -> list[list[str]]:
    rows = []
    for r in tr.get("runs", []):
        acc = r.get("test_accuracy")
        rows.append([str(r["n"]), r["status"], f"{acc:.3f}" if acc is not None else
                     (r.get("error") or ""), f"{r.get('chance_accuracy', 0):.3f}",
                     str(r.get("steps", "")), str(r.get("stop_reason", "")),
                     f"{r.get('wall_s', 0):.0f}"])
    return rows


def _md_table(header, rows) -> str:
    esc = [[str(c).replace("|", "\\|").replace("\n", " ") for c in r] for r in rows]
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(r) + " |" for r in esc])


def _intro(result) -> list[str]:
    t = result["task"]
    return [f"task `{t['name']}` from `{t['file']}` ({t['definition']}): {t['summary']}",
            f"alphabet {' '.join(t['alphabet'])}; n in {t['lengths'][0]}..{t['lengths'][1]}; "
            f"output {t['output']}; definition digest sha256:{t['digest'][:16]}",
            f"budget {result['budget']}; wall time {result['wall_s']:.0f} s"]


def markdown(result: dict[str, Any]) -> str:
    preds = result["predictions"]
    out = [f"# theorybench byo: {result['task']['name']}", ""]
    out += [f"- {line}" for line in _intro(result)] + ["", "## Verdicts", ""]
    out.append(_md_table(["theory", "verdict", "rule", "explanation"],
                         [[p.theory, _cell(p), p.rule or "", p.explanation] for p in preds]))
    out += ["", LEGEND, "", "## Programs", ""]
    out.append(_md_table(PROGRAM_HEADER, _program_rows(result)) if result["programs"] else
               "No C-RASP or B-RASP program was supplied or found for this task.")
    for rec in result["programs"]:
        out += ["", f"`{rec['origin']}`:", "", "```", rec["program"].rstrip(), "```"]
    tr = result.get("training")
    out += ["", "## Training (in-distribution)", ""]
    if tr is None:
        out.append("Skipped (--no-train).")
    elif not tr["runs"]:
        out.append(tr.get("note", "no runs"))
    else:
        out.append(f"{tr['model']}, {tr['steps']} steps at most, seed 0; runs in "
                   f"`{tr['db']}` ({tr['ran']} trained now, {tr['already_done']} already "
                   "there for this definition).")
        out += ["", _md_table(TRAIN_HEADER, _train_rows(tr))]
    out += ["", "## Evidence", ""]
    for p in preds:
        out += [f"### {p.theory}", "", "```", explain_text(p).rstrip(), "```", ""]
    return "\n".join(out) + "\n"


_STYLE = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
          "table{border-collapse:collapse;font-size:13px;margin:1em 0}"
          "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
          "pre{white-space:pre-wrap;font-size:11px;background:#f7f7f7;padding:.5em;"
          "max-height:30em;overflow:auto}summary{cursor:pointer}")


def _html_table(header, rows) -> str:
    head = "".join(f"<th>{H.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _code(text: str) -> str:
    """Markdown's `code` spans as <code> (the intro lines serve both pages)."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", text)


def html(result: dict[str, Any]) -> str:
    esc = H.escape
    name = result["task"]["name"]
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>theorybench byo: "
             f"{esc(name)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>theorybench byo: {esc(name)}</h1><ul>"
             + "".join(f"<li>{_code(esc(line))}</li>" for line in _intro(result)) + "</ul>",
             "<h2>Verdicts</h2>"]
    rows = [[esc(p.theory), f"<details><summary>{esc(_cell(p))}</summary><pre>"
             f"{esc(explain_text(p))}</pre></details>", esc(p.rule or ""),
             esc(p.explanation)] for p in result["predictions"]]
    parts.append(_html_table(["theory", "verdict (click for the evidence)", "rule",
                              "explanation"], rows))
    parts.append(f"<p>{esc(LEGEND)}</p><h2>Programs</h2>")
    if result["programs"]:
        parts.append(_html_table(PROGRAM_HEADER, [[esc(c) for c in r]
                                                  for r in _program_rows(result)]))
        for rec in result["programs"]:
            parts.append(f"<details><summary>{esc(rec['origin'])}</summary><pre>"
                         f"{esc(rec['program'])}</pre></details>")
    else:
        parts.append("<p>No C-RASP or B-RASP program was supplied or found for this task.</p>")
    tr = result.get("training")
    parts.append("<h2>Training (in-distribution)</h2>")
    if tr is None:
        parts.append("<p>Skipped (--no-train).</p>")
    elif not tr["runs"]:
        parts.append(f"<p>{esc(tr.get('note', 'no runs'))}</p>")
    else:
        parts.append(f"<p>{esc(tr['model'])}, {tr['steps']} steps at most; runs in "
                     f"{esc(tr['db'])} ({tr['ran']} trained now, {tr['already_done']} "
                     "already there for this definition).</p>")
        parts.append(_html_table(TRAIN_HEADER, [[esc(c) for c in r]
                                                for r in _train_rows(tr)]))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_page(result: dict[str, Any], md: Path, html_path: Path) -> None:
    atomic_write(md, markdown(result))
    atomic_write(html_path, html(result))


__all__ = ["markdown", "html", "write_page"]
