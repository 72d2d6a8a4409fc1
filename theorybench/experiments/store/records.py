"""A run as read from the store (:class:`RunRecord`), a row that cannot be read
(:class:`RowProblem`), a scan of both (:class:`Scan`), and :func:`read_row`, which turns
one ``runs`` row into one or the other."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

from .schema import STATUSES
from .validate import is_int, kind_of, metrics_problem, spec_problem


@dataclass(frozen=True)
class RunRecord:
    """One readable run: its spec, status and, once done, its metrics (keys in the order
    the run wrote them); ``worker`` holds its lease while it runs."""
    key: str
    line: str
    spec: dict
    status: str
    metrics: dict
    error: str | None
    attempts: int = 0
    updated: float = 0.0
    worker: str | None = None

    def to_dict(self) -> dict:
        return {"key": self.key, "line": self.line, "status": self.status, "spec": self.spec,
                "metrics": self.metrics, "error": self.error, "attempts": self.attempts}


@dataclass(frozen=True)
class RowProblem:
    """A row that cannot be read: its run id and what is wrong with it."""
    key: str
    what: str

    def __str__(self) -> str:
        return f"run {self.key}: {self.what}"


@dataclass
class Scan:
    """The readable rows of a store and the problems of the others."""
    records: list[RunRecord] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


def read_row(row: Sequence) -> RunRecord | RowProblem:
    """One ``runs`` row (key, line, spec, status, metrics, error, attempts, updated, worker)
    as a RunRecord, or the RowProblem that says why it cannot be one."""
    key, line, spec_text, status, metrics_text, error, attempts, updated, worker = row
    key = str(key)
    if status not in STATUSES:  # the CHECK constraint is gone from an edited table
        return RowProblem(key, f"status {status!r} is not one of {', '.join(STATUSES)}")
    if not isinstance(line, str):
        return RowProblem(key, f"line is {kind_of(line)}, not a string")
    try:
        spec = json.loads(spec_text)
    except (TypeError, ValueError):
        return RowProblem(key, "spec is not JSON")
    if (what := spec_problem(spec)) is not None:
        return RowProblem(key, what)
    try:
        metrics = json.loads(metrics_text) if metrics_text else {}
    except (TypeError, ValueError):
        return RowProblem(key, "metrics are not JSON")
    if not isinstance(metrics, dict):
        return RowProblem(key, f"metrics are {kind_of(metrics)}, not an object")
    if (what := metrics_problem(line, status, metrics)) is not None:
        return RowProblem(key, what)
    if error is not None and not isinstance(error, str):
        error = str(error)
    if not is_int(attempts):
        return RowProblem(key, f"attempts is {kind_of(attempts)}, not an integer")
    return RunRecord(key=key, line=line, spec=spec, status=status, metrics=metrics,
                     error=error, attempts=attempts,
                     updated=float(updated) if isinstance(updated, (int, float)) else 0.0,
                     worker=worker if isinstance(worker, str) else None)
