"""Traces of a run: the value of every definition at every position, as a text table or
an HTML page (one table per input). Booleans print as 1/0 (T/F in HTML colours), counts
as integers; the EOS column is marked ``<eos>``; the output row is marked with ``*``."""

from __future__ import annotations

import html

import numpy as np

from .interpret import Run


def _cell(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    return str(int(v))


def _rows(run: Run, row: int) -> tuple[list[str], list[tuple[str, list[str]]]]:
    symbols = run.symbols(row)
    vals = run.row_values(row)
    width = len(next(iter(vals.values()))) if vals else 0
    header = [str(i) for i in range(run.origin, width + run.origin)]
    body = []
    body.append(("token", symbols))
    out = run.program.output
    for d in run.program.definitions:
        mark = "*" if d.name == out else ""
        body.append((mark + d.name, [_cell(v) for v in vals[d.name]]))
    return header, body


def trace_text(run: Run, rows=None) -> str:
    """Aligned plain-text tables, one per input row."""
    parts = []
    for r in (range(len(run.accept)) if rows is None else rows):
        header, body = _rows(run, r)
        names = ["pos"] + [n for n, _ in body]
        w0 = max(len(n) for n in names)
        cols = [header] + [v for _, v in body]
        widths = [max(len(c[i]) for c in cols) for i in range(len(header))]
        lines = [f"# input {r + 1}: {'accept' if run.accept[r] else 'reject'} "
                 f"(read at {'<eos>' if run.mode == 'eos' else 'the last position'})"]
        for name, vals in [("pos", header)] + body:
            lines.append(name.ljust(w0) + " | " + " ".join(v.rjust(w) for v, w in zip(vals, widths)))
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


_CSS = """body{font-family:sans-serif} table{border-collapse:collapse;margin-bottom:1.5em}
td,th{border:1px solid #bbb;padding:2px 6px;text-align:center;font-family:monospace}
th.name{text-align:left} .t{background:#d8f5d0} .f{background:#f8d8d8} .out th{color:#06c}"""


def trace_html(run: Run, rows=None, title: str = "C-RASP trace") -> str:
    """A standalone HTML page with one table per input row."""
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
           f"</title><style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    types = run.checked.types
    for r in (range(len(run.accept)) if rows is None else rows):
        header, body = _rows(run, r)
        verdict = "accept" if run.accept[r] else "reject"
        out.append(f"<h2>input {r + 1}: {verdict}</h2><table><tr><th class='name'>pos</th>"
                   + "".join(f"<th>{h}</th>" for h in header) + "</tr>")
        for name, vals in body:
            plain = name.lstrip("*")
            is_bool = types.get(plain) == "bool"
            cls = " class='out'" if name.startswith("*") else ""
            cells = "".join(
                f"<td class='{'t' if v == '1' else 'f'}'>{'T' if v == '1' else 'F'}</td>"
                if is_bool else f"<td>{html.escape(v)}</td>" for v in vals)
            out.append(f"<tr{cls}><th class='name'>{html.escape(name)}</th>{cells}</tr>")
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
