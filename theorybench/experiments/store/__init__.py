"""The results store: one SQLite file, one row per run, keyed by the spec's hash.

Tables: ``meta`` (``app`` = "theorybench-results", ``schema_version``) and ``runs`` (key,
line, spec JSON, status queued/running/done/failed, metrics JSON (keys kept in the order the
run wrote them, so ``metrics["bins"]`` lists the length bins shortest first), error, attempts,
timestamps, and the lease: ``worker`` and ``heartbeat``). The file is in WAL mode and every
change is one transaction, so a process killed at any moment leaves every finished run intact.

Sharing a store: concurrent sweeps split the work, each run trained once, by taking runs
with leases (:meth:`ResultsStore.claim`) that a :class:`Heartbeat` keeps fresh; a dead
worker's lease is taken over, and an interrupted sweep hands its runs back (see
:mod:`.leases`).

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

Opening checks the file before writing anything: whatever is not a store this theorybench
reads raises :class:`StoreError` naming the table and column, and leaves the file untouched;
schema version 1 (no lease columns) is upgraded in place when opened for writing (see
:mod:`.schema`).

One module per concern: :mod:`.schema` (tables, columns, versions, checking an existing
file), :mod:`.records` (:class:`RunRecord`, :class:`Scan`, reading a row), :mod:`.validate`
(per-line checks of a row's spec and metrics), :mod:`.leases` (claims, leases, the
heartbeat thread), :mod:`.export` (JSON and CSV), :mod:`.results` (:class:`ResultsStore`).
This package re-exports their public names.
"""

from __future__ import annotations

from .export import csv_cell, format_runs
from .leases import HEARTBEAT_S, LEASE_TIMEOUT_S, Heartbeat, new_worker_id, worker_is_gone
from .records import RowProblem, RunRecord, Scan, read_row
from .results import ResultsStore
from .schema import (APP, DEFAULT_DB, MIN_SCHEMA_VERSION, READ_TIMEOUT_S, SCHEMA_VERSION,
                     STATUSES)

__all__ = ["ResultsStore", "RunRecord", "RowProblem", "Scan", "read_row", "Heartbeat",
           "new_worker_id", "worker_is_gone", "csv_cell", "format_runs", "APP", "DEFAULT_DB",
           "SCHEMA_VERSION", "MIN_SCHEMA_VERSION", "STATUSES", "READ_TIMEOUT_S",
           "LEASE_TIMEOUT_S", "HEARTBEAT_S"]
