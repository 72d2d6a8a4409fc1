"""The :class:`ResultsStore`: one SQLite file, opened (checked, created or upgraded), its
writes (each one transaction) and its reads. The file format is in :mod:`.schema`, leases in
:mod:`.leases`, reading a row in :mod:`.records`, export in :mod:`.export`."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Iterable, Sequence

from ...errors import ConfigError, StoreError
from .export import format_runs
from .leases import (LEASE_TIMEOUT_S, claim_run, count_outstanding, refresh_leases,
                     release_leases)
from .records import RowProblem, RunRecord, Scan, read_row
from .schema import (DEFAULT_DB, READ_TIMEOUT_S, STATUSES, Transaction, check_existing,
                     connect_ro, create_schema)


class ResultsStore:
    """Open (or create) the store at ``path``; see :mod:`theorybench.experiments.store`.
    ``readonly``: open an existing store for reading only (never creates, upgrades or locks
    it for writing)."""

    def __init__(self, path: str | os.PathLike = DEFAULT_DB, readonly: bool = False,
                 timeout: float = 60.0):
        self.path = Path(path)
        self.readonly = readonly
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory; --db needs a file path")
        version = None
        if self.path.exists():
            version = check_existing(self.path)
        elif readonly:
            raise StoreError(f"results store {self.path} does not exist (run `theorybench run "
                             f"...` first or pass --db PATH)")
        elif not self.path.parent.exists():
            raise StoreError(f"the folder of {self.path} does not exist; create it first")
        try:
            if readonly:
                if version is None:  # an empty file: a store with no runs yet
                    self.con = sqlite3.connect(":memory:")
                    create_schema(self.con)
                else:
                    self.con = connect_ro(self.path, timeout=min(timeout, READ_TIMEOUT_S))
            else:
                self.con = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
                self.con.execute("PRAGMA journal_mode=WAL")
                self.con.execute("PRAGMA synchronous=NORMAL")
                create_schema(self.con)
            self._columns = {r[1] for r in self.con.execute("PRAGMA table_info(runs)")}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open results store {self.path}: {exc}") from None

    # ---- plumbing ----------------------------------------------------------------------
    def _tx(self) -> Transaction:
        return Transaction(self.con)

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

    def claim(self, keys: Sequence[str], worker: str, lease_timeout: float = LEASE_TIMEOUT_S,
              retry_failed_before: float | None = None) -> str | None:
        """Take the first of ``keys`` that nobody holds, in one transaction: a queued run, a
        running one whose lease is dead, or (with ``retry_failed_before``, a time) one that
        failed before then. It becomes ``running`` under ``worker`` with a fresh heartbeat
        and one more attempt. Returns its key, or None when none can be taken now."""
        self._writable()
        return claim_run(self.con, keys, worker, lease_timeout, retry_failed_before)

    def outstanding(self, keys: Sequence[str], worker: str,
                    lease_timeout: float = LEASE_TIMEOUT_S,
                    retry_failed_before: float | None = None) -> tuple[int, int]:
        """(runs of ``keys`` that :meth:`claim` would take now, runs held by live workers
        other than ``worker``)."""
        return count_outstanding(self.con, keys, worker, lease_timeout, retry_failed_before)

    def heartbeat(self, worker: str) -> int:
        """Refresh the lease of every run ``worker`` holds; returns how many."""
        self._writable()
        return refresh_leases(self.con, worker)

    def release(self, worker: str) -> int:
        """Hand back (as ``queued``) every run ``worker`` still holds: a stopped sweep's."""
        self._writable()
        return release_leases(self.con, worker)

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

