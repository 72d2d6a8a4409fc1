"""Sharing a store between sweeps: leases on runs, and the heartbeat that keeps them.

A worker (one sweep process, ``host:pid:tag``) takes a run with :func:`claim_run`
(:meth:`ResultsStore.claim`), which in one transaction picks a run nobody holds and sets it
``running`` with the worker's id and a heartbeat, so concurrent sweeps split the work and
each run is trained once. A sweep refreshes the heartbeat of its runs while they train
(:class:`Heartbeat`). A lease is taken over when its heartbeat is older than the lease
timeout, or at once when its worker is a process of this host that no longer exists; a sweep
that is interrupted hands its runs back (``queued``, :func:`release_leases`) as it stops.

The functions here work on an open writable connection (``isolation_level=None``);
:class:`ResultsStore` checks that it was not opened read-only before calling them.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
from typing import Sequence

from .schema import Transaction

#: A lease whose heartbeat is older than this many seconds belongs to a dead worker.
LEASE_TIMEOUT_S = 600.0
#: How often a sweep refreshes the heartbeat of the runs it holds (well under the timeout).
HEARTBEAT_S = 30.0


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


def lease_rows(con: sqlite3.Connection, keys: Sequence[str]) -> list[tuple]:
    """(key, status, worker, heartbeat, updated) of every run of ``keys`` that is not done,
    in the order of ``keys``."""
    rows = []
    for i in range(0, len(keys), 500):
        part = list(keys[i:i + 500])
        marks = ",".join("?" * len(part))
        rows += con.execute(
            f"SELECT key, status, worker, heartbeat, updated FROM runs "
            f"WHERE key IN ({marks}) AND status != 'done'", part).fetchall()
    order = {k: i for i, k in enumerate(keys)}
    return sorted(rows, key=lambda r: order[r[0]])


def takeable(row, worker: str, now: float, lease_timeout: float,
             retry_failed_before: float | None) -> bool:
    """Whether ``worker`` may take the run of a :func:`lease_rows` row at time ``now``."""
    _, status, holder, beat, updated = row
    if status == "queued":
        return True
    if status == "failed":  # failed before this sweep began, and retrying was asked
        return retry_failed_before is not None and updated < retry_failed_before
    if holder == worker:
        return False
    return beat is None or now - beat > lease_timeout or worker_is_gone(holder)


def claim_run(con: sqlite3.Connection, keys: Sequence[str], worker: str,
              lease_timeout: float = LEASE_TIMEOUT_S,
              retry_failed_before: float | None = None) -> str | None:
    """See :meth:`ResultsStore.claim`."""
    with Transaction(con):
        now = time.time()
        for row in lease_rows(con, keys):
            if takeable(row, worker, now, lease_timeout, retry_failed_before):
                con.execute(
                    "UPDATE runs SET status='running', worker=?, heartbeat=?, "
                    "attempts=attempts+1, error=NULL, updated=? WHERE key=?",
                    (worker, now, now, row[0]))
                return row[0]
    return None


def count_outstanding(con: sqlite3.Connection, keys: Sequence[str], worker: str,
                      lease_timeout: float = LEASE_TIMEOUT_S,
                      retry_failed_before: float | None = None) -> tuple[int, int]:
    """See :meth:`ResultsStore.outstanding`."""
    now, n_takeable, held = time.time(), 0, 0
    for row in lease_rows(con, keys):
        if takeable(row, worker, now, lease_timeout, retry_failed_before):
            n_takeable += 1
        elif row[1] == "running" and row[2] != worker:
            held += 1
    return n_takeable, held


def refresh_leases(con: sqlite3.Connection, worker: str) -> int:
    """Refresh the lease of every run ``worker`` holds; returns how many."""
    with Transaction(con):
        return con.execute("UPDATE runs SET heartbeat=? WHERE worker=? AND "
                           "status='running'", (time.time(), worker)).rowcount


def release_leases(con: sqlite3.Connection, worker: str) -> int:
    """Hand back (as ``queued``) every run ``worker`` still holds: a stopped sweep's."""
    with Transaction(con):
        return con.execute(
            "UPDATE runs SET status='queued', worker=NULL, heartbeat=NULL, updated=? "
            "WHERE worker=? AND status='running'", (time.time(), worker)).rowcount


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
        con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            while not self._stop.wait(self.interval):
                try:
                    refresh_leases(con, self.worker)
                except sqlite3.OperationalError:  # locked for long: try again next beat
                    pass
        finally:
            con.close()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
