"""Runs as JSON or CSV (``theorybench export``), every CSV cell safe for a spreadsheet."""

from __future__ import annotations

import csv
import io
import json
from typing import Sequence

from ...errors import ConfigError
from .records import RunRecord

#: First characters that make a spreadsheet read a cell as a formula (OWASP's list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """``value`` safe for a spreadsheet: a string that would be read as a formula gets a
    leading ``'`` (shown as text, as spreadsheet-safe CSV writers do); numbers, negative
    ones included, stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def format_runs(records: Sequence[RunRecord], fmt: str = "json") -> str:
    """Runs as JSON (a list of records) or CSV (one row per run, the spec and the scalar
    metrics flattened into columns, nested values as JSON, formula-like text neutralised)."""
    if fmt == "json":
        return json.dumps([r.to_dict() for r in records], indent=2)
    if fmt != "csv":
        raise ConfigError(f"unknown export format {fmt!r}; use csv or json")
    flat = [_flatten(r) for r in records]
    columns: list[str] = []
    for row in flat:
        for c in row:
            if c not in columns:
                columns.append(c)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([csv_cell(c) for c in columns])
    for row in flat:
        writer.writerow([csv_cell(row.get(c, "")) for c in columns])
    return buf.getvalue()


def _flatten(rec: RunRecord) -> dict:
    row = {"key": rec.key, "line": rec.line, "status": rec.status, "error": rec.error or ""}
    for k, v in rec.spec.items():
        if isinstance(v, dict) and k in ("model", "training", "params"):
            for kk, vv in v.items():
                row[f"{k}.{kk}"] = json.dumps(vv) if isinstance(vv, (list, dict)) else vv
        else:
            row[k] = json.dumps(v) if isinstance(v, (list, dict)) else v
    for k, v in rec.metrics.items():
        if k == "bins" and isinstance(v, dict):
            for kk, vv in v.items():
                row[f"bin {kk}"] = vv
        elif not isinstance(v, (list, dict)):
            row[k] = v
    return row
