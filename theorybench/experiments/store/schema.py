"""The store's file format: tables, columns and versions, the read-only connection, the
check of an existing file before anything is written, and one transaction.

Opening checks the file before writing anything: a file that is not SQLite, a SQLite file
without theorybench's ``meta`` table, a schema version this theorybench does not read (a
newer one, or one no version wrote), or a ``runs`` (or ``samples``) table that is missing or
lacks a column raises :class:`StoreError`, naming the table and column, and leaves the file
untouched. Schema version 1 (no lease columns) is read as it is and upgraded in place when
opened for writing (:func:`create_schema`).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ...errors import StoreError

APP = "theorybench-results"
SCHEMA_VERSION = 2
MIN_SCHEMA_VERSION = 1  # 1: before the lease columns
STATUSES = ("queued", "running", "done", "failed")
#: The store a command uses when given no --db (the one definition; the CLI imports it).
DEFAULT_DB = "theorybench-results.sqlite"
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

#: Columns a ``runs`` table must have (version 1 lacks only the lease columns, which
#: opening for writing adds) and those of ``samples`` where that table exists.
_RUNS_COLUMNS = ("key", "line", "spec", "status", "metrics", "error", "attempts", "created",
                 "updated")
_SAMPLES_COLUMNS = ("key", "idx", "record")
_DAMAGED = "the file is damaged or was edited; restore it from a backup or choose another --db path"


class Transaction:
    """``with Transaction(con):`` one ``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` when
    the block raises) on a connection opened with ``isolation_level=None``."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con

    def __enter__(self):
        self.con.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, exc, tb):
        self.con.execute("COMMIT" if kind is None else "ROLLBACK")
        return False


def create_schema(con: sqlite3.Connection) -> None:
    """The schema, and version 1's table upgraded (the lease columns added)."""
    with Transaction(con):
        for stmt in _SCHEMA.strip().split(";"):
            if stmt.strip():
                con.execute(stmt)
        have = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
        for name, kind in _LEASE_COLUMNS:
            if name not in have:
                con.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
        con.execute("INSERT OR IGNORE INTO meta VALUES ('app', ?)", (APP,))
        con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),))


def _uri(path: Path, extra: str = "") -> str:
    return path.resolve().as_uri() + "?mode=ro" + extra


def connect_ro(path: Path, timeout: float = READ_TIMEOUT_S) -> sqlite3.Connection:
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


def check_existing(path: Path) -> int | None:
    """The schema version of the store at ``path`` (None for an empty file, a new store);
    StoreError unless it is a theorybench store this version reads, with every table and
    column that reading and writing use."""
    # Read through SQLite only: closing a plain descriptor of the file would drop every
    # POSIX lock this process holds on it (an open store's; see leases.Heartbeat).
    if path.stat().st_size == 0:
        return None
    try:
        con = connect_ro(path)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not tables and con.execute("PRAGMA page_count").fetchone()[0] > 0:
                # an SQLite database (its header is written) with no table yet holds
                # nothing to lose: a store that another process is creating right now (its
                # schema is not committed yet) or an empty database; opened as a new store.
                # A short file of another kind has no page: refused below.
                return None
            if not tables:
                raise StoreError(f"{path} is not a theorybench results store (not an SQLite "
                                 f"file); choose another --db path")
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
