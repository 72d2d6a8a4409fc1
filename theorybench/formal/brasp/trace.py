"""Traces of a B-RASP run: ``trace_text`` and ``trace_html`` (one table per input row),
named as in C-RASP's ``trace`` module."""

from __future__ import annotations

import html

from . import ast as A
from .interpret import Trace


def _tokens(trace: Trace, row: int) -> list[str]:
    n = int(trace.lengths[row])
    if trace.tokens is not None:
        return list(trace.tokens[row])
    return [trace.vocab[int(t)] for t in trace.ids[row, :n]]


def trace_text(trace: Trace, rows=None) -> str:
    """Plain-text tables, one per input row (all rows by default): positions as columns,
    one line per statement (1 = true, . = false)."""
    rows = range(len(trace.lengths)) if rows is None else rows
    return "\n\n".join(_row_text(trace, r) for r in rows) + "\n"


def _row_text(trace: Trace, row: int) -> str:
    toks = _tokens(trace, row)
    n = len(toks)
    names = [s.name for s in trace.program.stmts]
    w = max([len(t) for t in toks] + [len(str(n)), 1])
    lw = max([len(x) for x in names] + [8])
    lines = [f"{'position':<{lw}}  " + " ".join(f"{k:>{w}}" for k in range(1, n + 1)),
             f"{'token':<{lw}}  " + " ".join(f"{t:>{w}}" for t in toks)]
    out_name = trace.program.output_name
    for s in trace.program.stmts:
        vals = trace.values[s.name][row, :n]
        mark = " *" if s.name == out_name else ""
        lines.append(f"{s.name:<{lw}}  " + " ".join(f"{'1' if v else '.':>{w}}" for v in vals)
                     + mark)
    if trace.program.multi:
        lines.append(f"answer {trace.classify()[row]} (first listed output true at position {n})")
    else:
        verdict = "accept" if trace.accept()[row] else "reject"
        lines.append(f"{verdict} (output {out_name} at position {n})")
    return "\n".join(lines)


def trace_html(trace: Trace, rows=None) -> str:
    """A self-contained HTML page with one table per input row."""
    rows = range(len(trace.lengths)) if rows is None else rows
    parts = ["<!doctype html><meta charset='utf-8'><title>B-RASP trace</title>",
             "<style>td,th{border:1px solid #ccc;padding:2px 6px;text-align:center;"
             "font-family:monospace}.t{background:#bfe3bf}.f{background:#f6f6f6}"
             "table{border-collapse:collapse;margin:1em 0}</style>"]
    for r in rows:
        toks = _tokens(trace, r)
        n = len(toks)
        verdict = (f"answer {trace.classify()[r]}" if trace.program.multi
                   else ("accept" if trace.accept()[r] else "reject"))
        parts.append(f"<h3>input {r + 1}: {html.escape(' '.join(toks))} &rarr; {verdict}</h3>")
        parts.append("<table><tr><th>position</th>"
                     + "".join(f"<th>{k}</th>" for k in range(1, n + 1)) + "</tr>")
        parts.append("<tr><th>token</th>" + "".join(f"<td>{html.escape(t)}</td>" for t in toks)
                     + "</tr>")
        for s in trace.program.stmts:
            vals = trace.values[s.name][r, :n]
            title = html.escape(A.stmt_text(s))
            parts.append(f"<tr><th title='{title}'>{html.escape(s.name)}</th>" + "".join(
                f"<td class='{'t' if v else 'f'}'>{int(v)}</td>" for v in vals) + "</tr>")
        parts.append("</table>")
    return "\n".join(parts)
