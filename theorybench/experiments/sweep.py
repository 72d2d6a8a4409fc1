"""A sweep: expand a profile's grid into run specs, skip those already done in the store,
run the rest on an executor, record each result (or failure) as it arrives.

Sharing: each sweep is a worker with its own id; it claims runs one at a time from the store
(a lease, see :mod:`.store`), so several sweeps on one store (two terminals, pools on two
machines) split the grid and train every run once. While its runs train, a thread refreshes
their heartbeat. When no run is left to claim, a sweep waits for the runs other live workers
hold, and takes over any whose worker dies (its heartbeat older than ``lease_timeout``, or
at once for a vanished process of this host); so a sweep returns with its whole grid done
or failed.

Resuming: a sweep stopped at any moment (even by SIGKILL) keeps every finished run; one
stopped by Ctrl-C or SIGTERM hands its runs in flight back (``queued``), and those of a
killed one are taken over as above; ``done`` runs are never run again. Failed runs are
recorded with their error and the sweep goes on; ``retry_failed=True`` runs those that
failed before the sweep began again.

The llm line (:func:`run_llm_sweep`) shares the store, the leases and the resuming rules;
its runs evaluate pretrained models on few-shot prompts in this process (a model is loaded
once and serves every run of it), and each finished run stores its per-prompt records
(``samples``) with its metrics.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Sequence

from ..errors import ConfigError, TheorybenchError
from .executors import get_executor, resolve
from .llm import evaluate as llm_eval
from .llm.models import installed_models, load_models
from .profiles import expand, get_profile
from .spec import LINES, unique_inputs, unique_specs
from .store import DEFAULT_DB, HEARTBEAT_S, LEASE_TIMEOUT_S, Heartbeat, ResultsStore, new_worker_id
from .trainer import pick_device
from .lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION, LLM

_LINE_ALIASES = {"in-distribution": IN_DISTRIBUTION,
                 "length-generalization": LENGTH_GENERALIZATION}
#: Seconds between looks at the store while other workers hold this sweep's last runs.
POLL_S = 1.0


def normalize_line(line: str) -> str:
    line = _LINE_ALIASES.get(line, line)
    if line not in LINES and line != "llm":
        raise ConfigError(f"unknown experiment line {line!r}; lines: in-distribution, "
                          f"length-generalization, llm")
    return line


def validate(specs) -> None:
    """Refuse, before anything is queued, specs that cannot run (e.g. a learned position
    table smaller than the inputs); the check is exact only for specs that set
    ``max_positions``, the others always fit."""
    from . import in_distribution, length_generalization
    for spec in specs:
        if spec.max_positions is not None:
            (in_distribution if spec.line == IN_DISTRIBUTION else length_generalization).prepare(spec)


def check_run_options(executor: str = "auto", workers: int | None = None,
                      address: str | None = None, threads: int | None = None,
                      device: str = "cpu", checkpoint_dir: str | None = None,
                      create: bool = True) -> str:
    """The option checks of a sweep, shared by :func:`run_sweep` and a dry run, before any
    work: the executor (and Ray when asked for), ``workers``/``threads`` >= 1, a parallel
    executor for several workers, ``address`` only with Ray, the device, and a
    ``checkpoint_dir`` that is (or can be made) a writable directory (a dry run passes
    ``create=False`` and leaves no directory behind). Returns the device resolved."""
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ConfigError(f"--workers must be >= 1, got {workers}")
    if executor != "auto":
        get_executor(executor)  # unknown executor (or Ray not installed) refused
    if executor == "inprocess" and (workers or 1) > 1:
        raise ConfigError(f"--workers {workers} needs a parallel executor: add --executor pool "
                          f"(local processes) or --executor ray")
    if address and executor != "ray":
        raise ConfigError("--address is the address of a Ray cluster; add --executor ray")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ConfigError(f"--threads must be >= 1, got {threads}")
    resolved = str(pick_device(device))  # "auto" resolved; unknown, or cuda without a GPU, refused
    if checkpoint_dir:
        check_writable_dir(checkpoint_dir, "--checkpoints", create=create)
    return resolved


def check_writable_dir(path: str | os.PathLike, what: str, create: bool) -> None:
    """ConfigError unless ``path`` is (or can be made) a writable directory. With ``create``
    False the directories made to find out are removed again."""
    if "\x00" in str(path):
        raise ConfigError(f"{what} {str(path)!r}: a path cannot contain a NUL byte; "
                          f"give a directory name")
    p = Path(path)
    missing = []
    probe = p
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: the directory cannot be created "
                          f"({exc.strerror or exc})") from None
    finally:
        if not create:
            for d in missing:  # deepest first
                try:
                    d.rmdir()
                except OSError:
                    pass
    if not os.access(probe if not create else p, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} {path}: the directory is not writable (permission denied)")


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt  # so that the sweep hands its runs back, as for Ctrl-C


def run_sweep(line: str, tasks: Sequence[str] | None = None, profile: str = "smoke",
              db: str = DEFAULT_DB, executor: str = "auto", workers: int | None = None,
              seeds: Sequence[int] | None = None, retry_failed: bool = False,
              progress: bool = True, address: str | None = None, device: str = "cpu",
              checkpoint_dir: str | None = None, threads: int | None = None,
              specs=None, lease_timeout: float = LEASE_TIMEOUT_S,
              heartbeat_s: float = HEARTBEAT_S, models: str | None = None,
              model_names: Sequence[str] | None = None, label: str | None = None) -> dict:
    """Run the sweep; returns a summary: ``{"line", "profile", "db", "executor", "worker",
    "total", "skipped_done", "skipped_failed", "ran", "done", "failed", "by_others" (runs of
    the grid other workers finished meanwhile), "failures" ([{key, run, error}]),
    "notes" (tasks, seeds or runs given more than once, each run once), "wall_s"}``. ``specs`` (a list of RunSpec) replaces the profile's grid. ``executor``
    ``auto`` (the default) spreads the runs left over every core (:func:`executors.resolve`);
    the summary names the executor, workers and threads it chose. Line ``llm``
    goes to :func:`run_llm_sweep` (``models``: its model file, ``model_names``: a choice of
    its models)."""
    line = normalize_line(line)
    if line == LLM:
        if executor not in ("inprocess", "auto") or (workers or 1) != 1 or checkpoint_dir:
            raise ConfigError("the llm line runs in this process (each model is loaded once "
                              "and serves all its runs): drop --executor, --workers and "
                              "--checkpoints")
        return run_llm_sweep(tasks, profile, db, models=models, model_names=model_names,
                             seeds=seeds, retry_failed=retry_failed,
                             progress=progress, device=device, threads=threads, specs=specs,
                             lease_timeout=lease_timeout, heartbeat_s=heartbeat_s)
    prof = get_profile(profile)
    device = check_run_options(executor, workers, address, threads, device, checkpoint_dir)
    threads = threads if threads is not None else prof.threads
    tasks, seeds, notes = unique_inputs(tasks, seeds)
    specs = list(specs) if specs is not None else expand(line, profile, tasks, seeds)
    specs, notes = unique_specs(specs, notes, progress)
    validate(specs)
    start = time.perf_counter()
    began = time.time()
    worker = new_worker_id()
    store = ResultsStore(db)
    main_thread = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt) if main_thread else None
    try:
        store.queue(specs)
        unique = dict((s.key, s) for s in specs)
        status = store.status_of(unique)
        keys, skipped_done, skipped_failed = [], 0, 0
        for key in unique:
            st = status.get(key)
            if st == "done":
                skipped_done += 1
            elif st == "failed" and not retry_failed:
                skipped_failed += 1
            else:
                keys.append(key)
        labels = {k: unique[k].describe() for k in keys}
        retry_before = began if retry_failed else None
        executor, workers, threads = resolve(executor, workers, threads, len(keys), device)
        run = get_executor(executor)
        summary = {"line": line, "profile": profile, "db": str(db), "executor": executor,
                   "workers": workers, "threads": threads, "worker": worker,
                   "total": len(specs), "skipped_done": skipped_done,
                   "skipped_failed": skipped_failed, "ran": 0, "done": 0, "failed": 0,
                   "by_others": 0, "failures": [], "notes": notes}
        t0 = {}

        def next_run():
            key = store.claim(keys, worker, lease_timeout, retry_before)
            if key is None:
                return None
            t0[key] = time.perf_counter()
            return {"key": key, "spec": unique[key].to_dict(), "label": labels[key]}

        def callback(key, st, payload):
            summary["ran"] += 1
            if st == "done":
                kept = store.mark_done(key, payload, worker=worker)
                summary["done"] += 1
                what = _headline(payload)
            else:
                kept = store.mark_failed(key, payload, worker=worker)
                summary["failed"] += 1
                summary["failures"].append({"key": key, "run": labels[key], "error": payload})
                what = "FAILED: " + str(payload).splitlines()[0]
            if not kept:
                what += " (not recorded: another worker took this run over)"
            if progress:
                took = time.perf_counter() - t0.get(key, time.perf_counter())
                print(f"[{summary['ran']}] {labels[key]}: {what} ({took:.1f} s)",
                      file=sys.stderr, flush=True)

        if progress:
            print(f"{line} ({label or profile}): {len(specs)} runs, {skipped_done} already "
                  f"done, "
                  f"{len(keys)} to run on {executor}"
                  + (f" ({workers} workers x {threads or 'default'} thread(s))"
                     if workers > 1 else ""), file=sys.stderr, flush=True)
        waiting_said = False
        with Heartbeat(db, worker, heartbeat_s):
            while True:
                run(next_run, callback, workers=workers, device=device,
                    checkpoint_dir=checkpoint_dir, threads=threads, address=address,
                    progress=None if progress else False)
                takeable, held = store.outstanding(keys, worker, lease_timeout, retry_before)
                while not takeable and held:
                    if progress and not waiting_said:
                        print(f"waiting for {held} run(s) other workers hold on {db}",
                              file=sys.stderr, flush=True)
                        waiting_said = True
                    time.sleep(POLL_S)
                    takeable, held = store.outstanding(keys, worker, lease_timeout, retry_before)
                if not takeable:
                    break
        summary["by_others"] = len(keys) - summary["ran"]
    finally:
        try:
            store.release(worker)  # runs in flight when stopped go back to the queue
        finally:
            store.close()
            if main_thread:
                signal.signal(signal.SIGTERM, old_term)
    summary["wall_s"] = round(time.perf_counter() - start, 2)
    return summary


def _headline(metrics: dict) -> str:
    if "bins" in metrics:
        bins = " ".join(f"{k}:{'-' if v is None else f'{v:.2f}'}" for k, v in metrics["bins"].items())
        return f"train acc {metrics['train_accuracy']:.3f}; {bins}"
    return (f"test acc {metrics['test_accuracy']:.3f} (chance {metrics['chance_accuracy']:.2f}) "
            f"after {metrics['steps']} steps, {metrics.get('parameters', 0):,} parameters")


def _claim_loop(store, keys, worker, lease_timeout, retry_before, run_all, progress, db):
    """Run what can be claimed (``run_all``), then wait for runs other live workers hold and
    take over those whose worker dies, until nothing of ``keys`` is left to take."""
    waiting_said = False
    while True:
        run_all()
        takeable, held = store.outstanding(keys, worker, lease_timeout, retry_before)
        while not takeable and held:
            if progress and not waiting_said:
                print(f"waiting for {held} run(s) other workers hold on {db}",
                      file=sys.stderr, flush=True)
                waiting_said = True
            time.sleep(POLL_S)
            takeable, held = store.outstanding(keys, worker, lease_timeout, retry_before)
        if not takeable:
            return


def run_llm_sweep(tasks: Sequence[str] | None = None, profile: str = "smoke",
                  db: str = DEFAULT_DB, models: str | None = None,
                  model_names: Sequence[str] | None = None, seeds: Sequence[int] | None = None,
                  retry_failed: bool = False, progress: bool = True, device: str = "cpu",
                  threads: int | None = None, specs=None, backends: dict | None = None,
                  lease_timeout: float = LEASE_TIMEOUT_S,
                  heartbeat_s: float = HEARTBEAT_S) -> dict:
    """The llm line's sweep: every model of the model file ``models`` (default: the packaged
    one; ``model_names`` picks some) x the profile's tasks, sizes and seeds. Returns the
    summary of :func:`run_sweep` plus ``"loads"`` (model name -> {"seconds", "source"}: the
    loading done by this sweep; source ``gguf`` (dequantised now), ``cache`` or
    ``directory``) and ``"prompts"``, ``"prompt_seconds"`` (prompts scored by this sweep and
    the time spent on them). ``device`` other than cpu overrides the model entries' device;
    ``backends`` (digest -> loaded backend) is for tests."""
    import dataclasses
    import traceback

    from .profiles import expand_llm

    prof = get_profile(profile)
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ConfigError(f"--threads must be >= 1, got {threads}")
    device = str(pick_device(device))
    tasks, seeds, notes = unique_inputs(tasks, seeds)
    if specs is None:
        table = load_models(models)
        if model_names:
            unknown = [m for m in model_names if m not in table]
            if unknown:
                raise ConfigError(f"--model {', '.join(unknown)}: not in the model file; "
                                  f"models: {', '.join(table)}")
            table = {m: table[m] for m in model_names}
        else:   # embedded models that are not installed are left out, and said so
            table, left = installed_models(table)
            if not table:
                raise ConfigError("no model of the model file is installed: " + "; ".join(
                    f"{k}: {v}" for k, v in left.items()))
            for k, v in left.items():
                note = f"note: model {k} left out (not installed): {v}"
                notes.append(note)
                print(note, file=sys.stderr)
        if device != "cpu":
            table = {k: dataclasses.replace(v, device=device) for k, v in table.items()}
        specs = expand_llm(prof, table, tasks, seeds)
    specs, notes = unique_specs(specs, notes, progress)
    threads = threads if threads is not None else prof.llm_threads
    start, began = time.perf_counter(), time.time()
    worker = new_worker_id()
    store = ResultsStore(db)
    main_thread = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt) if main_thread else None
    torch_threads = None
    try:
        store.queue(specs)
        unique = dict((s.key, s) for s in specs)
        status = store.status_of(unique)
        keys = [k for k in unique if status.get(k) != "done"
                and (status.get(k) != "failed" or retry_failed)]
        skipped_done = sum(status.get(k) == "done" for k in unique)
        skipped_failed = sum(status.get(k) == "failed" for k in unique) if not retry_failed else 0
        retry_before = began if retry_failed else None
        summary = {"line": "llm", "profile": profile, "db": str(db), "executor": "inprocess",
                   "worker": worker, "total": len(specs), "skipped_done": skipped_done,
                   "skipped_failed": skipped_failed, "ran": 0, "done": 0, "failed": 0,
                   "by_others": 0, "failures": [], "notes": notes, "loads": {}, "prompts": 0,
                   "prompt_seconds": 0.0}
        if progress:
            print(f"llm ({profile}): {len(specs)} runs, {skipped_done} already done, "
                  f"{len(keys)} to run", file=sys.stderr, flush=True)
        if threads and keys:
            import torch
            torch_threads = torch.get_num_threads()
            torch.set_num_threads(threads)

        def backend_of(spec):
            cfg = spec.model
            if backends is not None and cfg.digest in backends:
                return backends[cfg.digest]
            if cfg.digest not in llm_eval._BACKENDS and progress:
                print(f"loading model {cfg.name} ...", file=sys.stderr, flush=True)
            fresh = cfg.digest not in llm_eval._BACKENDS
            t0 = time.perf_counter()
            backend = llm_eval.load_backend(cfg)
            if fresh:
                took = time.perf_counter() - t0
                summary["loads"][cfg.name] = {"seconds": round(took, 2),
                                              "source": getattr(backend, "source", "http")}
                if progress:
                    print(f"model {cfg.name} loaded in {took:.1f} s "
                          f"({getattr(backend, 'source', 'http')})", file=sys.stderr,
                          flush=True)
            return backend

        def run_all():
            while (key := store.claim(keys, worker, lease_timeout, retry_before)) is not None:
                spec, t0 = unique[key], time.perf_counter()
                try:
                    out = llm_eval.evaluate_llm(spec, backend=backend_of(spec))
                    st, payload, records = "done", out["metrics"], out["records"]
                except TheorybenchError as exc:
                    st, payload, records = "failed", f"{type(exc).__name__}: {exc}", None
                except Exception as exc:  # a bug: keep the last frames so it can be found
                    tail = "".join(traceback.format_exception(exc)[-3:]).strip()
                    st, payload, records = "failed", f"{type(exc).__name__}: {exc}\n{tail}", None
                summary["ran"] += 1
                if st == "done":
                    kept = store.mark_done(key, payload, worker=worker, samples=records)
                    summary["done"] += 1
                    summary["prompts"] += payload["count"]
                    summary["prompt_seconds"] += payload.get("seconds") or 0.0
                    what = _llm_headline(payload)
                else:
                    kept = store.mark_failed(key, payload, worker=worker)
                    summary["failed"] += 1
                    summary["failures"].append({"key": key, "run": spec.describe(),
                                                "error": payload})
                    what = "FAILED: " + str(payload).splitlines()[0]
                if not kept:
                    what += " (not recorded: another worker took this run over)"
                if progress:
                    print(f"[{summary['ran']}] {spec.describe()}: {what} "
                          f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)

        with Heartbeat(db, worker, heartbeat_s):
            _claim_loop(store, keys, worker, lease_timeout, retry_before, run_all, progress, db)
        summary["by_others"] = len(keys) - summary["ran"]
    finally:
        try:
            store.release(worker)
        finally:
            store.close()
            if torch_threads is not None:
                import torch
                torch.set_num_threads(torch_threads)
            if main_thread:
                signal.signal(signal.SIGTERM, old_term)
    summary["prompt_seconds"] = round(summary["prompt_seconds"], 2)
    summary["wall_s"] = round(time.perf_counter() - start, 2)
    return summary


def _llm_headline(m: dict) -> str:
    se = m.get("accuracy_stderr")  # lm-eval's standard error, beside every accuracy
    text = (f"accuracy {m['accuracy']:.3f}{'' if se is None else f'±{se:.3f}'} "
            f"(chance {m['chance']:.2f}")
    if m.get("unparseable"):
        text += f", unparseable {m['unparseable']:.2f}"
    text += f") on {m['count']} prompts"
    if m.get("prompts_per_s"):
        text += f", {m['prompts_per_s']:.2f} prompts/s"
    return text
