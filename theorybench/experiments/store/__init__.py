"""The results store: one SQLite file, one row per run, keyed by the spec's hash.

Tables: ``meta`` (``app`` = "theorybench-results", ``schema_version``) and ``runs`` (key,
line, spec JSON, status queued/running/done/failed, metrics JSON (keys kept in the order the
run wrote them, so ``metrics["bins"]`` lists the length bins shortest first), error, attempts,
timestamps, and the lease: ``worker`` and ``heartbeat``). The file is in WAL mode and every
change is one transaction, so a process killed at any moment leaves every finished run intact.

Sharing a store: a worker (one sweep process, ``host:pid:tag``) takes a run with
:meth:`ResultsStore.claim`, which in one transaction picks a run nobody holds and sets it
``running`` with the worker's id and a heartbeat, so concurrent sweeps split the work and
each run is trained once. A sweep refreshes the heartbeat of its runs while they train
(:class:`Heartbeat`). A lease is taken over when its heartbeat is older than the lease
timeout, or at once when its worker is a process of this host that no longer exists; a sweep
that is interrupted hands its runs back (``queued``) as it stops.

Per-sample records: runs of the ``llm`` line also keep one row per prompt in ``samples``
(key, index, record JSON: prompt, target, answer, parsed value, correct, scores), written in
the same transaction as the run's ``done`` (:meth:`ResultsStore.mark_done` with
``samples=``) and read with :meth:`ResultsStore.samples`. The table is created by any store
opened for writing; a store from before it reads as having no samples (same schema version:
older readers ignore the table).

Readers open the file read-only (``ResultsStore(path, readonly=True)``): they need no write
access to the file or its folder and, WAL mode letting readers and a writer run together,
never wait for a writer. A row that cannot be read (a spec that is not JSON, metrics that are
not an object, ...) is skipped and named by :meth:`ResultsStore.scan`; every other row is read.

Opening checks the file before writing anything: a file that is not SQLite, a SQLite file
without theorybench's ``meta`` table, a schema version this theorybench does not read (a
newer one, or one no version wrote), or a ``runs`` (or ``samples``) table that is missing or
lacks a column raises :class:`StoreError`, naming the table and column, and leaves the file
untouched. Schema version 1 (no lease columns) is read as it is and
upgraded in place when opened for writing.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import socket
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ...errors import ConfigError, StoreError

APP = "theorybench-results"
SCHEMA_VERSION = 2
MIN_SCHEMA_VERSION = 1  # 1: before the lease columns
STATUSES = ("queued", "running", "done", "failed")
#: The store a command uses when given no --db (the one definition; the CLI imports it).
DEFAULT_DB = "theorybench-results.sqlite"
#: A lease whose heartbeat is older than this many seconds belongs to a dead worker.
LEASE_TIMEOUT_S = 600.0
#: How often a sweep refreshes the heartbeat of the runs it holds (well under the timeout).
HEARTBEAT_S = 30.0
#: Longest a reader waits for a lock (WAL readers only wait while a file is recovered).
READ_TIMEOUT_S = 5.0

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
    updated REAL NOT NULL,
    worker TEXT,
    heartbeat REAL
);
CREATE INDEX IF NOT EXISTS runs_line_status ON runs (line, status);
CREATE TABLE IF NOT EXISTS samples (
    key TEXT NOT NULL,
    idx INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (key, idx)
);
"""
_LEASE_COLUMNS = (("worker", "TEXT"), ("heartbeat", "REAL"))


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


def new_worker_id() -> str:
    """``host:pid:tag``: the host and pid let a worker of the same host see that the holder
    of a lease is gone; the tag tells apart two sweeps of one process."""
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(3).hex()}"


def worker_is_gone(worker: str | None) -> bool:
    """True when ``worker`` is a process of this host that no longer exists (its lease can
    be taken over at once); False when it may be alive, or runs elsewhere (then only the
    heartbeat tells)."""
    if not worker:
        return True
    try:
        host, pid, _ = worker.rsplit(":", 2)
        pid = int(pid)
    except ValueError:
        return False
    if host != socket.gethostname() or pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return False


def _uri(path: Path, extra: str = "") -> str:
    return path.resolve().as_uri() + "?mode=ro" + extra


def _connect_ro(path: Path, timeout: float = READ_TIMEOUT_S) -> sqlite3.Connection:
    """A read-only connection. A WAL file in a folder we cannot write (no ``-shm`` can be
    made) is opened immutable: nobody can be writing it through this folder either."""
    con = sqlite3.connect(_uri(path), uri=True, timeout=timeout)
    try:
        con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return con
    except sqlite3.OperationalError:
        con.close()
        if os.access(path.parent, os.W_OK) and os.access(path, os.W_OK):
            raise
    con = sqlite3.connect(_uri(path, "&immutable=1"), uri=True, timeout=timeout)
    con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    return con


#: Columns a ``runs`` table must have (version 1 lacks only the lease columns, which
#: opening for writing adds) and those of ``samples`` where that table exists.
_RUNS_COLUMNS = ("key", "line", "spec", "status", "metrics", "error", "attempts", "created",
                 "updated")
_SAMPLES_COLUMNS = ("key", "idx", "record")
_DAMAGED = "the file is damaged or was edited; restore it from a backup or choose another --db path"


def _schema_version(path: Path, raw) -> int:
    """The schema version stored as ``raw``: SQLite hands back text, or a number where a
    meta table without type affinity kept one; both spellings of one version are equal."""
    if raw is None:
        raise StoreError(f"{path}: the meta table has no schema_version; {_DAMAGED}")
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    try:
        version = raw if isinstance(raw, int) and not isinstance(raw, bool) else int(str(raw))
    except ValueError:
        raise StoreError(f"{path}: the meta table's schema_version is {raw!r}, not a version "
                         f"number; {_DAMAGED}") from None
    readable = f"versions {MIN_SCHEMA_VERSION} to {SCHEMA_VERSION}"
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path} has results schema version {version}, written by a newer "
                         f"theorybench; this one reads {readable}. Upgrade theorybench, or "
                         f"choose another --db path")
    if version < MIN_SCHEMA_VERSION:
        raise StoreError(f"{path} has results schema version {version}, which no theorybench "
                         f"wrote (this one reads {readable}); {_DAMAGED}")
    return version


def _check_tables(path: Path, con: sqlite3.Connection, tables: set[str]) -> None:
    """StoreError naming the table and column when ``runs`` (or ``samples``) lacks one."""
    if "runs" not in tables:
        raise StoreError(f"{path} is a theorybench results store without its runs table; "
                         f"{_DAMAGED}")
    for table, need in (("runs", _RUNS_COLUMNS), ("samples", _SAMPLES_COLUMNS)):
        if table not in tables:
            continue  # a store from before the samples table: it is added on writing
        have = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in need if c not in have]
        if missing:
            raise StoreError(f"{path}: the {table} table has no column"
                             f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
                             f"{_DAMAGED}")


def _check_existing(path: Path) -> int | None:
    """The schema version of the store at ``path`` (None for an empty file, a new store);
    StoreError unless it is a theorybench store this version reads, with every table and
    column that reading and writing use."""
    # Read through SQLite only: closing a plain descriptor of the file would drop every
    # POSIX lock this process holds on it (an open store's; see Heartbeat._beat).
    if path.stat().st_size == 0:
        return None
    try:
        con = _connect_ro(path)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not tables:
                # an SQLite file with no table yet holds nothing to lose: a store that
                # another process is creating right now (its schema is not committed yet)
                # or an empty database; both are opened as a new store
                return None
            if "meta" not in tables:
                raise StoreError(f"{path} is an SQLite file but not a theorybench results store "
                                 f"(no meta table); choose another --db path")
            cols = {r[1] for r in con.execute("PRAGMA table_info(meta)")}
            if not {"name", "value"} <= cols:
                raise StoreError(f"{path} has a meta table without the name and value columns "
                                 f"of a theorybench results store; choose another --db path")
            meta = dict(con.execute("SELECT name, value FROM meta"))
            if meta.get("app") == APP:
                version = _schema_version(path, meta.get("schema_version"))
                _check_tables(path, con, tables)
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise StoreError(f"{path} is not a theorybench results store (not an SQLite "
                             f"file); choose another --db path") from None
        raise StoreError(f"{path} cannot be read as a results store: {exc}") from None
    if meta.get("app") != APP:
        raise StoreError(f"{path} is not a theorybench results store (meta app is "
                         f"{meta.get('app')!r}); choose another --db path")
    return version


class ResultsStore:
    """Open (or create) the store at ``path``; see the module docstring. ``readonly``: open
    an existing store for reading only (never creates, upgrades or locks it for writing)."""

    def __init__(self, path: str | os.PathLike = DEFAULT_DB, readonly: bool = False,
                 timeout: float = 60.0):
        self.path = Path(path)
        self.readonly = readonly
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory; --db needs a file path")
        version = None
        if self.path.exists():
            version = _check_existing(self.path)
        elif readonly:
            raise StoreError(f"results store {self.path} does not exist (run `theorybench run "
                             f"...` first or pass --db PATH)")
        elif not self.path.parent.exists():
            raise StoreError(f"the folder of {self.path} does not exist; create it first")
        try:
            if readonly:
                if version is None:  # an empty file: a store with no runs yet
                    self.con = sqlite3.connect(":memory:")
                    self._create()
                else:
                    self.con = _connect_ro(self.path, timeout=min(timeout, READ_TIMEOUT_S))
            else:
                self.con = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
                self.con.execute("PRAGMA journal_mode=WAL")
                self.con.execute("PRAGMA synchronous=NORMAL")
                self._create()
            self._columns = {r[1] for r in self.con.execute("PRAGMA table_info(runs)")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open results store {self.path}: {exc}") from None

    def _create(self) -> None:
        """The schema, and version 1's table upgraded (the lease columns added)."""
        with self._tx():
            for stmt in _SCHEMA.strip().split(";"):
                if stmt.strip():
                    self.con.execute(stmt)
            have = {r[1] for r in self.con.execute("PRAGMA table_info(runs)")}
            for name, kind in _LEASE_COLUMNS:
                if name not in have:
                    self.con.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
            self.con.execute("INSERT OR IGNORE INTO meta VALUES ('app', ?)", (APP,))
            self.con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                             (str(SCHEMA_VERSION),))

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

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(f"results store {self.path} was opened read-only")

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- writes (each one transaction) --------------------------------------------------
    def queue(self, specs: Iterable) -> int:
        """Insert ``specs`` (RunSpec or LLMSpec: anything with ``key``, ``line`` and
        ``to_dict()``) not yet in the store as queued; returns how many."""
        self._writable()
        now, added = time.time(), 0
        with self._tx():
            for spec in specs:
                cur = self.con.execute(
                    "INSERT OR IGNORE INTO runs (key, line, spec, status, created, updated) "
                    "VALUES (?, ?, ?, 'queued', ?, ?)",
                    (spec.key, spec.line, json.dumps(spec.to_dict(), sort_keys=True), now, now))
                added += cur.rowcount
        return added

    def _leases(self, keys: Sequence[str]) -> list[tuple]:
        rows = []
        for i in range(0, len(keys), 500):
            part = list(keys[i:i + 500])
            marks = ",".join("?" * len(part))
            rows += self.con.execute(
                f"SELECT key, status, worker, heartbeat, updated FROM runs "
                f"WHERE key IN ({marks}) AND status != 'done'", part).fetchall()
        order = {k: i for i, k in enumerate(keys)}
        return sorted(rows, key=lambda r: order[r[0]])

    @staticmethod
    def _takeable(row, worker: str, now: float, lease_timeout: float,
                  retry_failed_before: float | None) -> bool:
        _, status, holder, beat, updated = row
        if status == "queued":
            return True
        if status == "failed":  # failed before this sweep began, and retrying was asked
            return retry_failed_before is not None and updated < retry_failed_before
        if holder == worker:
            return False
        return beat is None or now - beat > lease_timeout or worker_is_gone(holder)

    def claim(self, keys: Sequence[str], worker: str, lease_timeout: float = LEASE_TIMEOUT_S,
              retry_failed_before: float | None = None) -> str | None:
        """Take the first of ``keys`` that nobody holds, in one transaction: a queued run, a
        running one whose lease is dead, or (with ``retry_failed_before``, a time) one that
        failed before then. It becomes ``running`` under ``worker`` with a fresh heartbeat
        and one more attempt. Returns its key, or None when none can be taken now."""
        self._writable()
        with self._tx():
            now = time.time()
            for row in self._leases(keys):
                if self._takeable(row, worker, now, lease_timeout, retry_failed_before):
                    self.con.execute(
                        "UPDATE runs SET status='running', worker=?, heartbeat=?, "
                        "attempts=attempts+1, error=NULL, updated=? WHERE key=?",
                        (worker, now, now, row[0]))
                    return row[0]
        return None

    def outstanding(self, keys: Sequence[str], worker: str,
                    lease_timeout: float = LEASE_TIMEOUT_S,
                    retry_failed_before: float | None = None) -> tuple[int, int]:
        """(runs of ``keys`` that :meth:`claim` would take now, runs held by live workers
        other than ``worker``)."""
        now, takeable, held = time.time(), 0, 0
        for row in self._leases(keys):
            if self._takeable(row, worker, now, lease_timeout, retry_failed_before):
                takeable += 1
            elif row[1] == "running" and row[2] != worker:
                held += 1
        return takeable, held

    def heartbeat(self, worker: str) -> int:
        """Refresh the lease of every run ``worker`` holds; returns how many."""
        self._writable()
        with self._tx():
            return self.con.execute("UPDATE runs SET heartbeat=? WHERE worker=? AND "
                                    "status='running'", (time.time(), worker)).rowcount

    def release(self, worker: str) -> int:
        """Hand back (as ``queued``) every run ``worker`` still holds: a stopped sweep's."""
        self._writable()
        with self._tx():
            return self.con.execute(
                "UPDATE runs SET status='queued', worker=NULL, heartbeat=NULL, updated=? "
                "WHERE worker=? AND status='running'", (time.time(), worker)).rowcount

    def mark_running(self, key: str, worker: str | None = None) -> None:
        """Set ``key`` running unconditionally (one writer; sweeps use :meth:`claim`)."""
        self._writable()
        now = time.time()
        with self._tx():
            self.con.execute("UPDATE runs SET status='running', attempts=attempts+1, error=NULL, "
                             "worker=?, heartbeat=?, updated=? WHERE key=?",
                             (worker, now, now, key))

    def _finish(self, key, worker, sets: str, args: tuple) -> bool:
        self._writable()
        sql, where = f"UPDATE runs SET {sets}, updated=? WHERE key=?", [time.time(), key]
        if worker is not None:  # only while the lease is still ours
            sql += " AND worker=? AND status='running'"
            where.append(worker)
        with self._tx():
            return self.con.execute(sql, (*args, *where)).rowcount == 1

    def mark_done(self, key: str, metrics: dict, worker: str | None = None,
                  samples: Sequence[dict] | None = None) -> bool:
        """Record a finished run; with ``worker``, only if it still holds the lease (a
        worker whose lease was taken over leaves the run to its new holder). True if
        recorded. ``samples`` (per-prompt records of an llm run) replace the run's stored
        samples in the same transaction, only when the run is recorded."""
        if samples is None:
            return self._finish(key, worker, "status='done', metrics=?, error=NULL",
                                (json.dumps(metrics),))
        self._writable()
        sql = "UPDATE runs SET status='done', metrics=?, error=NULL, updated=? WHERE key=?"
        args: list = [json.dumps(metrics), time.time(), key]
        if worker is not None:
            sql += " AND worker=? AND status='running'"
            args.append(worker)
        with self._tx():
            if self.con.execute(sql, args).rowcount != 1:
                return False
            self.con.execute("DELETE FROM samples WHERE key=?", (key,))
            self.con.executemany("INSERT INTO samples (key, idx, record) VALUES (?, ?, ?)",
                                 [(key, i, json.dumps(r)) for i, r in enumerate(samples)])
        return True

    def mark_failed(self, key: str, error: str, worker: str | None = None) -> bool:
        return self._finish(key, worker, "status='failed', error=?", (str(error),))

    # ---- reads --------------------------------------------------------------------------
    def scan(self, line: str | None = None, status: str | None = None) -> Scan:
        """The rows (of ``line``, with ``status``) that can be read, and a problem for each
        one that cannot; never raises for a bad row."""
        if status is not None and status not in STATUSES:
            raise ConfigError(f"unknown run status {status!r}; statuses: {', '.join(STATUSES)}")
        worker = "worker" if "worker" in self._columns else "NULL"
        sql = (f"SELECT key, line, spec, status, metrics, error, attempts, updated, {worker} "
               f"FROM runs")
        args: list = []
        where = []
        if line is not None:
            where.append("line=?")
            args.append(line)
        if status is not None:
            where.append("status=?")
            args.append(status)
        if where:
            sql += " WHERE " + " AND ".join(where)
        out = Scan()
        for row in self.con.execute(sql + " ORDER BY created, key", args):
            got = read_row(row)
            (out.problems if isinstance(got, RowProblem) else out.records).append(got)
        return out

    def records(self, line: str | None = None, status: str | None = None) -> list[RunRecord]:
        """The readable rows; :meth:`scan` also names the others."""
        return self.scan(line, status).records

    def samples(self, key: str) -> list[dict]:
        """The per-sample records of run ``key`` in order ([] when it has none, also in a
        store made before the samples table existed); a record that is not a JSON object
        is skipped."""
        has = self.con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND "
                               "name='samples'").fetchone()
        if not has:
            return []
        out = []
        for (text,) in self.con.execute("SELECT record FROM samples WHERE key=? ORDER BY idx",
                                        (key,)):
            try:
                rec = json.loads(text)
            except (TypeError, ValueError):
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out

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
        """The readable runs as JSON or CSV (see :func:`format_runs`)."""
        return format_runs(self.records(line=line), fmt)


# ---- row validation -------------------------------------------------------------------
def _kind(v) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null",
            bool: "a boolean", int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_fraction(v) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and 0 <= v <= 1)


def _spec_problem(spec) -> str | None:
    if not isinstance(spec, dict):
        return f"spec is {_kind(spec)}, not an object"
    if not isinstance(spec.get("task"), str):
        return "spec has no task name"
    for name in ("params", "model", "training"):
        if spec.get(name) is not None and not isinstance(spec[name], dict):
            return f"spec {name} is {_kind(spec[name])}, not an object"
    for name in ("size", "encoding"):
        v = (spec.get("model") or {}).get(name)
        if v is not None and not isinstance(v, str):
            return f"spec model {name} is {_kind(v)}, not a string"
    for name in ("n", "train_max_len", "train_size", "seed"):
        if spec.get(name) is not None and not _is_int(spec[name]):
            return f"spec {name} is {_kind(spec[name])}, not an integer"
    return None


def _metrics_problem(line: str, status: str, metrics: dict) -> str | None:
    if status != "done":
        return None
    if line == "length_generalization":
        bins = metrics.get("bins")
        if not isinstance(bins, dict) or not bins:
            return "a done run whose metrics have no length bins"
        for label, v in bins.items():
            if v is not None and not _is_fraction(v):
                return f"length bin {label} accuracy {v!r} is not a number in [0, 1]"
    elif line == "llm":
        if not _is_fraction(metrics.get("accuracy")):
            return (f"accuracy {metrics.get('accuracy')!r} of a done llm run is not a number "
                    f"in [0, 1]")
        if not _is_int(metrics.get("count")) or metrics["count"] < 1:
            return f"prompt count {metrics.get('count')!r} of a done llm run is not positive"
        for name in ("chance", "unparseable"):
            if metrics.get(name) is not None and not _is_fraction(metrics[name]):
                return f"{name} {metrics[name]!r} of a done llm run is not a number in [0, 1]"
    elif "test_accuracy" in metrics or line == "in_distribution":
        if not _is_fraction(metrics.get("test_accuracy")):
            return (f"test_accuracy {metrics.get('test_accuracy')!r} of a done run is not a "
                    f"number in [0, 1]")
    return None


def read_row(row: Sequence) -> RunRecord | RowProblem:
    """One ``runs`` row (key, line, spec, status, metrics, error, attempts, updated, worker)
    as a RunRecord, or the RowProblem that says why it cannot be one."""
    key, line, spec_text, status, metrics_text, error, attempts, updated, worker = row
    key = str(key)
    if status not in STATUSES:  # the CHECK constraint is gone from an edited table
        return RowProblem(key, f"status {status!r} is not one of {', '.join(STATUSES)}")
    if not isinstance(line, str):
        return RowProblem(key, f"line is {_kind(line)}, not a string")
    try:
        spec = json.loads(spec_text)
    except (TypeError, ValueError):
        return RowProblem(key, "spec is not JSON")
    if (what := _spec_problem(spec)) is not None:
        return RowProblem(key, what)
    try:
        metrics = json.loads(metrics_text) if metrics_text else {}
    except (TypeError, ValueError):
        return RowProblem(key, "metrics are not JSON")
    if not isinstance(metrics, dict):
        return RowProblem(key, f"metrics are {_kind(metrics)}, not an object")
    if (what := _metrics_problem(line, status, metrics)) is not None:
        return RowProblem(key, what)
    if error is not None and not isinstance(error, str):
        error = str(error)
    if not _is_int(attempts):
        return RowProblem(key, f"attempts is {_kind(attempts)}, not an integer")
    return RunRecord(key=key, line=line, spec=spec, status=status, metrics=metrics,
                     error=error, attempts=attempts,
                     updated=float(updated) if isinstance(updated, (int, float)) else 0.0,
                     worker=worker if isinstance(worker, str) else None)


# ---- export ---------------------------------------------------------------------------
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


class Heartbeat:
    """A thread that refreshes ``worker``'s leases every ``interval`` seconds, on its own
    connection, while the sweep's thread trains (``with Heartbeat(path, worker): ...``)."""

    def __init__(self, path: str | os.PathLike, worker: str, interval: float = HEARTBEAT_S):
        self.path, self.worker, self.interval = path, worker, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="theorybench-heartbeat",
                                        daemon=True)

    def _beat(self) -> None:
        # A bare connection: the sweep has checked and created the store. Never open the
        # file any other way while a connection is open: closing a plain descriptor of it
        # drops every POSIX lock this process holds on it, after which another process may
        # take itself for the last one and delete the live WAL.
        store = ResultsStore.__new__(ResultsStore)
        store.path, store.readonly = Path(self.path), False
        store.con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            while not self._stop.wait(self.interval):
                try:
                    store.heartbeat(self.worker)
                except sqlite3.OperationalError:  # locked for long: try again next beat
                    pass
        finally:
            store.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
