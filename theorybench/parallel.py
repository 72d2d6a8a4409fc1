"""Deterministic work spread over forked processes: the prediction matrix's rows and the
report's construction checks.

Each job is a pure function of its item, so the result is the same list as a loop here,
in the same order. Fork (not spawn) lets a child see everything this process registered
(task files, user families) without pickling it; where fork is unavailable the jobs run
here. Torch's intra-op pool is not fork-safe once started, so a child uses one thread.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from typing import Any, Callable, Sequence

from .errors import ConfigError

#: At most this many processes by default: the jobs are small and many cores only
#: duplicate the per-process caches.
DEFAULT_CAP = 4

_JOB: tuple | None = None
_CHILD = False   # in a forked worker: nested calls run in that worker


def cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def workers_for(workers: int | None, jobs: int) -> int:
    """Processes to use: ``workers`` (None: one per core, at most :data:`DEFAULT_CAP`),
    never more than ``jobs``; 1 where fork is unavailable."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ConfigError(f"workers must be a positive integer or None, got {workers!r}")
    if "fork" not in mp.get_all_start_methods():
        return 1
    if workers is None:
        workers = min(DEFAULT_CAP, cores())
    return max(1, min(workers, jobs))


def _run(i: int) -> tuple[int, Any]:
    global _CHILD
    _CHILD = True
    fn, items = _JOB
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return i, fn(items[i])


def fork_map(fn: Callable[[Any], Any], items: Sequence[Any], workers: int | None = None,
             on_result: Callable[[int, Any], None] | None = None) -> list[Any]:
    """``[fn(x) for x in items]``, computed in up to ``workers`` forked processes (see
    :func:`workers_for`); ``on_result(i, value)`` is called here as each job finishes."""
    global _JOB
    items = list(items)
    width = 1 if _CHILD else workers_for(workers, len(items))
    out: list[Any] = [None] * len(items)
    if width <= 1:
        for i, x in enumerate(items):
            out[i] = fn(x)
            if on_result is not None:
                on_result(i, out[i])
        return out
    _JOB = (fn, items)
    try:
        with mp.get_context("fork").Pool(width) as pool:
            for i, value in pool.imap_unordered(_run, range(len(items))):
                out[i] = value
                if on_result is not None:
                    on_result(i, value)
    finally:
        _JOB = None
    return out


__all__ = ["fork_map", "workers_for", "cores", "DEFAULT_CAP"]
