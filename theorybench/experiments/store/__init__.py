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
