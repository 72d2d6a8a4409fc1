"""Executors: where the runs of a sweep execute. Each takes its runs one at a time from
``next_run()`` (the sweep's claim on the store: a spec item, or None when no run is left
for this worker), calls :func:`run_one` on it and hands ``(key, status, payload)`` back to
the sweep, which alone writes the store (so a worker never holds the database, and a killed
sweep loses only the runs in flight). An executor claims a run only when it has a free slot,
so concurrent sweeps on one store split the runs between them.

* ``auto`` - the default: every core busy. On a CPU with several cores and more than one run
  to do, a ``pool`` of one worker per core, each run on one torch thread (the profiles'
  models are small: two independent one-thread runs finish a 2-core sweep faster than one
  run at a time on two threads, see ``benchmarks/bench_sweep.py``); otherwise ``inprocess``
  on all cores (one run, or a GPU, which one process drives best).
* ``inprocess`` - one run after another in this process.
* ``pool`` - a local process pool of ``workers`` processes (spawned), the machine's cores
  divided among them as torch threads; at most ``workers`` runs are in flight.
* ``ray`` - Ray tasks on a local instance or a cluster (``address``); needs the optional
  extra ``pip install 'theorybench[ray]'``.
"""

from __future__ import annotations

import os
import traceback
from typing import Callable

from ..errors import ConfigError, TheorybenchError
from ..registry import THEORY_FILES_ENV
from ..tasks.registry import ENV as TASK_FILES_ENV
from ..tasks.registry import family as task_family
from ..tasks.user_family import check_definition
from .lines import LINES

EXECUTORS = ("auto", "inprocess", "pool", "ray")
# callback(key, status, payload): status "done" (metrics dict) or "failed" (error text).
Callback = Callable[[str, str, object], None]
# next_run() -> {"key", "spec", "label"} or None: the next run this worker holds.
NextRun = Callable[[], "dict | None"]


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def resolve(executor: str, workers: int | None, threads: int | None, runs: int,
            device: str = "cpu", cores: int | None = None) -> tuple[str, int, int | None]:
    """(executor, workers, threads) for a sweep of ``runs`` runs still to do. ``auto`` becomes
    a pool of ``min(cores, runs)`` workers (``workers`` caps it) whose runs share the cores
    (``threads`` per run, default ``cores // workers``), or ``inprocess`` for a GPU, a
    single core, a single run or ``workers == 1``. A named executor keeps its settings
    (``workers`` None means 1): it is never widened behind the user's back."""
    cores = cores or cpu_count()
    if executor != "auto":
        return executor, workers or 1, threads
    if device.startswith("cuda") or cores < 2 or runs < 2 or workers == 1:
        return "inprocess", 1, threads
    width = min(workers or cores, runs)
    return "pool", width, threads if threads is not None else max(1, cores // width)


def set_threads(threads: int) -> None:
    import torch
    torch.set_num_threads(max(1, int(threads)))


def run_one(spec_dict: dict, device: str = "cpu", checkpoint_dir: str | None = None,
            threads: int | None = None, progress: bool | None = False) -> tuple[str, object]:
    """Run one spec; ("done", metrics) or ("failed", reason). Never raises for a run's
    own failure (a diverged loss, an impossible configuration, a bug in a task)."""
    from .spec import RunSpec
    from .trainer import RunFailed
    if threads:
        set_threads(threads)
    try:
        spec = RunSpec.from_dict(spec_dict)
        check_definition(task_family(spec.task), spec.definition)  # an edited task file
        runner = LINES.get(spec.line).runner()
        return "done", runner.run(spec, device=device, progress=progress,
                                  checkpoint_dir=checkpoint_dir)
    except (RunFailed, TheorybenchError) as exc:
        return "failed", f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # a bug: keep the last frames so it can be found
        tail = "".join(traceback.format_exception(exc)[-3:]).strip()
        return "failed", f"{type(exc).__name__}: {exc}\n{tail}"


def _pool_init(threads: int) -> None:
    set_threads(threads)


def run_inprocess(next_run: NextRun, callback: Callback, device="cpu", checkpoint_dir=None,
                  threads=None, progress=None, **_) -> None:
    """``progress`` None: a tqdm bar per run when stderr is a terminal. ``threads`` sets
    torch's thread count for the sweep and is restored afterwards."""
    import torch
    before = torch.get_num_threads()
    try:
        while (spec := next_run()) is not None:
            status, payload = run_one(spec["spec"], device, checkpoint_dir, threads, progress)
            callback(spec["key"], status, payload)
    finally:
        torch.set_num_threads(before)


def run_pool(next_run: NextRun, callback: Callback, workers: int = 2, device="cpu",
             checkpoint_dir=None, threads=None, **_) -> None:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    threads = threads or max(1, cpu_count() // workers)
    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                             initializer=_pool_init, initargs=(threads,)) as pool:
        _drive(next_run, callback, workers,
               lambda spec: pool.submit(run_one, spec, device, checkpoint_dir, threads),
               lambda running: wait(running, return_when=FIRST_COMPLETED)[0],
               lambda fut: fut.result(), "worker crashed")


def _drive(next_run: NextRun, callback: Callback, workers: int, submit, wait_some, result,
           died: str) -> None:
    """Keep ``workers`` runs in flight: claim (``next_run``), ``submit``, ``wait_some`` for
    finished handles, record each through ``callback``; a worker that dies fails its run."""
    running, more = {}, True
    while True:
        while more and len(running) < workers:
            item = next_run()
            if item is None:
                more = False
                break
            running[submit(item["spec"])] = item["key"]
        if not running:
            return
        for handle in wait_some(running):
            key = running.pop(handle)
            try:
                status, payload = result(handle)
            except Exception as exc:  # the worker process died
                status, payload = "failed", f"{died}: {type(exc).__name__}: {exc}"
            callback(key, status, payload)


def import_ray():
    try:
        import ray
    except ImportError:
        raise ConfigError("the Ray executor needs Ray, which is not installed; install the "
                          "extra with: pip install 'theorybench[ray]'") from None
    return ray


def run_ray(next_run: NextRun, callback: Callback, workers: int = 2, device="cpu",
            checkpoint_dir=None, threads=None, address: str | None = None, **_) -> None:
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        kwargs = {"address": address} if address else {"num_cpus": workers}
        # Ray workers load the same task files and theory files
        shared = {k: os.environ[k] for k in (TASK_FILES_ENV, THEORY_FILES_ENV)
                  if os.environ.get(k)}
        if shared:
            kwargs["runtime_env"] = {"env_vars": shared}
        ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
                 **kwargs)
        started = True
    try:
        remote = ray.remote(num_cpus=1, num_gpus=1 if device.startswith("cuda") else 0)(run_one)
        _drive(next_run, callback, workers,
               lambda spec: remote.remote(spec, device, checkpoint_dir, threads or 1),
               lambda running: ray.wait(list(running), num_returns=1)[0], ray.get,
               "ray worker failed")
    finally:
        if started:
            ray.shutdown()


def get_executor(name: str):
    table = {"inprocess": run_inprocess, "pool": run_pool, "ray": run_ray}
    if name == "auto":
        raise ConfigError("executor 'auto' is resolved to a real executor by the sweep "
                          "(executors.resolve) before it runs")
    if name not in table:
        raise ConfigError(f"unknown executor {name!r}; executors: {', '.join(EXECUTORS)}")
    if name == "ray":
        import_ray()
    return table[name]
