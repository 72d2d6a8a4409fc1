"""The results store: one SQLite file, one row per run, keyed by the spec's hash.

Tables: ``meta`` (``app`` = "theorybench-results", ``schema_version``) and ``runs`` (key,
line, spec JSON, status queued/running/done/failed, metrics JSON (keys kept in the order the
run wrote them, so ``metrics["bins"]`` lists the length bins shortest first), error, attempts,
timestamps). The file is in WAL mode and every change is one transaction, so a process
killed at any moment leaves every finished run intact; a run left ``running`` by a killed
process is simply run again by the next sweep.

Opening checks the file before writing anything: a file that is not SQLite, a SQLite file
without theorybench's ``meta`` table, or another schema version raises :class:`StoreError`
and leaves the file untouched.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..errors import ConfigError, StoreError

APP = "theorybench-results"
SCHEMA_VERSION = 1
STATUSES = ("queued", "running", "done", "failed")
DEFAULT_DB = "theorybench-results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    line TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    metrics TEXT,
    error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_line_status ON runs (line, status);
"""


@dataclass(frozen=True)
class RunRecord:
    key: str
    line: str
    spec: dict
    status: str
    metrics: dict
    error: str | None
    attempts: int = 0
    updated: float = 0.0

    def to_dict(self) -> dict:
        return {"key": self.key, "line": self.line, "status": self.status, "spec": self.spec,
                "metrics": self.metrics, "error": self.error, "attempts": self.attempts}


def _check_existing(path: Path) -> None:
    """Raise StoreError unless ``path`` is a theorybench store of this schema version."""
    with open(path, "rb") as fh:
        head = fh.read(16)
    if head and head != b"SQLite format 3\x00":
        raise StoreError(f"{path} is not a theorybench results store (not an SQLite file); "
                         f"choose another --db path")
    if not head:
        return  # an empty file: a new store
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "meta" not in tables:
                raise StoreError(f"{path} is an SQLite file but not a theorybench results store "
                                 f"(no meta table); choose another --db path")
            meta = dict(con.execute("SELECT name, value FROM meta"))
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} cannot be read as a results store: {exc}") from None
    if meta.get("app") != APP:
        raise StoreError(f"{path} is not a theorybench results store (meta app is "
                         f"{meta.get('app')!r}); choose another --db path")
    if meta.get("schema_version") != str(SCHEMA_VERSION):
        raise StoreError(f"{path} has results schema version {meta.get('schema_version')}, but "
                         f"this theorybench reads version {SCHEMA_VERSION}; use a matching "
                         f"theorybench or a new --db path")


class ResultsStore:
    """Open (or create) the store at ``path``; see the module docstring."""

    def __init__(self, path: str | os.PathLike = DEFAULT_DB):
        self.path = Path(path)
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory; --db needs a file path")
        if self.path.exists():
            _check_existing(self.path)
        elif not self.path.parent.exists():
            raise StoreError(f"the folder of {self.path} does not exist; create it first")
        try:
            self.con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            self.con.execute("PRAGMA journal_mode=WAL")
            self.con.execute("PRAGMA synchronous=NORMAL")
            with self._tx():
                for stmt in _SCHEMA.strip().split(";"):
                    if stmt.strip():
                        self.con.execute(stmt)
                self.con.execute("INSERT OR IGNORE INTO meta VALUES ('app', ?)", (APP,))
                self.con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                                 (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open results store {self.path}: {exc}") from None

    # ---- plumbing ----------------------------------------------------------------------
    def _tx(self):
        store = self

        class _Tx:
            def __enter__(self):
                store.con.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind, exc, tb):
                store.con.execute("COMMIT" if kind is None else "ROLLBACK")
                return False
        return _Tx()

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- writes (each one transaction) --------------------------------------------------
    def queue(self, specs: Iterable) -> int:
        """Insert ``specs`` (RunSpec) not yet in the store as queued; returns how many."""
        now, added = time.time(), 0
        with self._tx():
            for spec in specs:
                cur = self.con.execute(
                    "INSERT OR IGNORE INTO runs (key, line, spec, status, created, updated) "
                    "VALUES (?, ?, ?, 'queued', ?, ?)",
                    (spec.key, spec.line, json.dumps(spec.to_dict(), sort_keys=True), now, now))
                added += cur.rowcount
        return added

    def mark_running(self, key: str) -> None:
        with self._tx():
            self.con.execute("UPDATE runs SET status='running', attempts=attempts+1, error=NULL, "
                             "updated=? WHERE key=?", (time.time(), key))

    def mark_done(self, key: str, metrics: dict) -> None:
        with self._tx():
            self.con.execute("UPDATE runs SET status='done', metrics=?, error=NULL, updated=? "
                             "WHERE key=?", (json.dumps(metrics), time.time(), key))

    def mark_failed(self, key: str, error: str) -> None:
        with self._tx():
            self.con.execute("UPDATE runs SET status='failed', error=?, updated=? WHERE key=?",
                             (str(error), time.time(), key))

    # ---- reads --------------------------------------------------------------------------
    def records(self, line: str | None = None, status: str | None = None) -> list[RunRecord]:
        if status is not None and status not in STATUSES:
            raise ConfigError(f"unknown run status {status!r}; statuses: {', '.join(STATUSES)}")
        sql, args = "SELECT key, line, spec, status, metrics, error, attempts, updated FROM runs", []
        where = []
        if line is not None:
            where.append("line=?")
            args.append(line)
        if status is not None:
            where.append("status=?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.con.execute(sql + " ORDER BY created, key", args).fetchall()
        return [RunRecord(key=r[0], line=r[1], spec=json.loads(r[2]), status=r[3],
                          metrics=json.loads(r[4]) if r[4] else {}, error=r[5], attempts=r[6],
                          updated=r[7]) for r in rows]

    def status_of(self, keys: Iterable[str]) -> dict[str, str]:
        keys = list(keys)
        out = {}
        for i in range(0, len(keys), 500):
            part = keys[i:i + 500]
            marks = ",".join("?" * len(part))
            out.update(self.con.execute(f"SELECT key, status FROM runs WHERE key IN ({marks})",
                                        part).fetchall())
        return out

    def counts(self, line: str | None = None) -> dict[str, int]:
        sql, args = "SELECT status, COUNT(*) FROM runs", []
        if line is not None:
            sql, args = sql + " WHERE line=?", [line]
        got = dict(self.con.execute(sql + " GROUP BY status", args).fetchall())
        return {s: int(got.get(s, 0)) for s in STATUSES}

    def export(self, fmt: str = "json", line: str | None = None) -> str:
        """All runs as JSON (a list of records) or CSV (one row per run, the spec and the
        scalar metrics flattened into columns, nested values as JSON)."""
        recs = self.records(line=line)
        if fmt == "json":
            return json.dumps([r.to_dict() for r in recs], indent=2)
        if fmt != "csv":
            raise ConfigError(f"unknown export format {fmt!r}; use csv or json")
        flat = [_flatten(r) for r in recs]
        columns: list[str] = []
        for row in flat:
            for c in row:
                if c not in columns:
                    columns.append(c)
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(flat)
        return buf.getvalue()


def _flatten(rec: RunRecord) -> dict:
    row = {"key": rec.key, "line": rec.line, "status": rec.status, "error": rec.error or ""}
    for k, v in rec.spec.items():
        if isinstance(v, dict) and k in ("model", "training", "params"):
            for kk, vv in v.items():
                row[f"{k}.{kk}"] = vv
        else:
            row[k] = json.dumps(v) if isinstance(v, (list, dict)) else v
    for k, v in rec.metrics.items():
        if k == "bins" and isinstance(v, dict):
            for kk, vv in v.items():
                row[f"bin {kk}"] = vv
        elif not isinstance(v, (list, dict)):
            row[k] = v
    return row
