"""A sweep: expand a profile's grid into run specs, skip those already done in the store,
run the rest on an executor, record each result (or failure) as it arrives.

Resuming: a sweep stopped at any moment (even by SIGKILL) keeps every finished run; runs
left ``queued`` or ``running`` are run again by the next sweep and ``done`` ones never are.
Failed runs are recorded with their error and the sweep goes on; ``retry_failed=True``
runs them again.
"""

from __future__ import annotations

import sys
import time
from typing import Sequence

from ..errors import ConfigError
from .executors import get_executor
from .profiles import expand, get_profile
from .spec import LINES
from .store import DEFAULT_DB, ResultsStore
from .trainer import pick_device

_LINE_ALIASES = {"in-distribution": "in_distribution",
                 "length-generalization": "length_generalization"}


def normalize_line(line: str) -> str:
    line = _LINE_ALIASES.get(line, line)
    if line not in LINES:
        raise ConfigError(f"unknown experiment line {line!r}; lines: in-distribution, "
                          f"length-generalization")
    return line


def validate(specs) -> None:
    """Refuse, before anything is queued, specs that cannot run (e.g. a learned position
    table smaller than the inputs); the check is exact only for specs that set
    ``max_positions``, the others always fit."""
    from . import in_distribution, length_generalization
    for spec in specs:
        if spec.max_positions is not None:
            (in_distribution if spec.line == "in_distribution" else length_generalization).prepare(spec)


def run_sweep(line: str, tasks: Sequence[str] | None = None, profile: str = "smoke",
              db: str = DEFAULT_DB, executor: str = "inprocess", workers: int = 1,
              seeds: Sequence[int] | None = None, retry_failed: bool = False,
              progress: bool = True, address: str | None = None, device: str = "cpu",
              checkpoint_dir: str | None = None, threads: int | None = None,
              specs=None) -> dict:
    """Run the sweep; returns a summary: ``{"line", "profile", "db", "executor", "total",
    "skipped_done", "skipped_failed", "ran", "done", "failed", "failures" ([{key, task,
    error}]), "wall_s"}``. ``specs`` (a list of RunSpec) replaces the profile's grid."""
    line = normalize_line(line)
    prof = get_profile(profile)
    if workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {workers}")
    if executor == "inprocess" and workers > 1:
        raise ConfigError(f"--workers {workers} needs a parallel executor: add --executor pool "
                          f"(local processes) or --executor ray")
    if address and executor != "ray":
        raise ConfigError("--address is the address of a Ray cluster; add --executor ray")
    if threads is not None and threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {threads}")
    threads = threads if threads is not None else prof.threads
    device = str(pick_device(device))  # "auto" resolved; cuda without a GPU refused here
    run = get_executor(executor)
    specs = list(specs) if specs is not None else expand(line, profile, tasks, seeds)
    validate(specs)
    start = time.perf_counter()
    store = ResultsStore(db)
    try:
        store.queue(specs)
        status = store.status_of(s.key for s in specs)
        todo, skipped_done, skipped_failed = [], 0, 0
        for s in dict((s.key, s) for s in specs).values():
            st = status.get(s.key)
            if st == "done":
                skipped_done += 1
            elif st == "failed" and not retry_failed:
                skipped_failed += 1
            else:
                todo.append({"key": s.key, "spec": s.to_dict(), "label": s.describe()})
        labels = {t["key"]: t["label"] for t in todo}
        summary = {"line": line, "profile": profile, "db": str(db), "executor": executor,
                   "total": len(specs), "skipped_done": skipped_done,
                   "skipped_failed": skipped_failed, "ran": 0, "done": 0, "failed": 0,
                   "failures": []}
        t0 = {}

        def callback(key, st, payload):
            if st == "running":
                store.mark_running(key)
                t0[key] = time.perf_counter()
                return
            summary["ran"] += 1
            if st == "done":
                store.mark_done(key, payload)
                summary["done"] += 1
                what = _headline(payload)
            else:
                store.mark_failed(key, payload)
                summary["failed"] += 1
                summary["failures"].append({"key": key, "run": labels[key], "error": payload})
                what = "FAILED: " + str(payload).splitlines()[0]
            if progress:
                took = time.perf_counter() - t0.get(key, time.perf_counter())
                print(f"[{summary['ran']}/{len(todo)}] {labels[key]}: {what} ({took:.1f} s)",
                      file=sys.stderr, flush=True)

        if progress:
            print(f"{line} ({profile}): {len(specs)} runs, {skipped_done} already done, "
                  f"{len(todo)} to run on {executor}", file=sys.stderr, flush=True)
        run(todo, callback, workers=workers, device=device, checkpoint_dir=checkpoint_dir,
            threads=threads, address=address, progress=None if progress else False)
    finally:
        store.close()
    summary["wall_s"] = round(time.perf_counter() - start, 2)
    return summary


def _headline(metrics: dict) -> str:
    if "bins" in metrics:
        bins = " ".join(f"{k}:{'-' if v is None else f'{v:.2f}'}" for k, v in metrics["bins"].items())
        return f"train acc {metrics['train_accuracy']:.3f}; {bins}"
    return (f"test acc {metrics['test_accuracy']:.3f} (chance {metrics['chance_accuracy']:.2f}) "
            f"after {metrics['steps']} steps, {metrics.get('parameters', 0):,} parameters")
