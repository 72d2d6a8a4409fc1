"""Checks of a task file's functions: every call into the file goes through
:func:`call_user` (an exception there becomes a message with the file's line), every label
through :func:`check_labels`; :func:`smoke_check` runs at load, :func:`full_check` is
``theorybench task check``."""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import TaskFileError, TaskParameterError, TheorybenchError

#: ``theorybench task check`` reports a label slower than this on :data:`TIMED` inputs.
SLOW_SECONDS = 1.0
TIMED = 10_000
#: The longest n the checks build (LENGTHS may reach far beyond what a check needs).
CHECK_MAX_N = 512
#: One call into a task file (label on a batch, oracle, sample, VALID) may run at most this
#: many seconds; ``$THEORYBENCH_CALL_LIMIT_S`` changes it (0: no limit). Enforced with
#: SIGALRM in the main thread (a pool worker's too); elsewhere the call is not limited.
CALL_LIMIT_S = 60.0
LIMIT_ENV = "THEORYBENCH_CALL_LIMIT_S"


class Overtime(BaseException):
    """The time limit of one call into a task file (a BaseException, so that the file's own
    ``except Exception`` cannot swallow it)."""


def call_limit_s() -> float:
    """The per-call time limit in seconds (:data:`CALL_LIMIT_S`, or ``$THEORYBENCH_CALL_LIMIT_S``)."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    if not text:
        return CALL_LIMIT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise TaskParameterError(f"{LIMIT_ENV}={text!r} is not a number of seconds >= 0 "
                                 f"(0: no limit; default {CALL_LIMIT_S:g})")
    return value


def _on_alarm(signum, frame):
    raise Overtime()


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Overtime` in the block after ``seconds`` (main thread only). An outer
    timer that fires sooner (a test's cap) is left alone; a later one is put back."""
    if (seconds <= 0 or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    outer, interval = signal.getitimer(signal.ITIMER_REAL)
    if outer and outer <= seconds:
        yield
        return
    old = signal.signal(signal.SIGALRM, _on_alarm)
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old if old is not None else signal.SIG_DFL)
        if outer:
            signal.setitimer(signal.ITIMER_REAL,
                             max(outer - (time.monotonic() - start), 1e-3), interval)


def _family(owner: Any) -> Any:
    return owner if isinstance(owner, type) else type(owner)


def _input_text(owner: Any, args: tuple) -> str:
    if not args or not isinstance(args[0], np.ndarray):
        return ""
    shape = f" on an input of shape {args[0].shape}"
    if args[0].ndim == 2 and len(args[0]) and hasattr(owner, "alphabet"):
        row = args[0][0]
        shape += f" (first row {' '.join(owner.alphabet[int(t)] for t in row[:20])}"
        shape += " ...)" if len(row) > 20 else ")"
    return shape


def call_user(owner: Any, what: str, fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, a function of the task file, under the per-call time limit
    (:func:`call_limit_s`); an exception it raises, or the limit, becomes a
    :class:`TaskFileError` at the file's line where it was raised (or stuck). After one call
    ran past the limit, every later call of the same family fails at once with that
    message (it would cost the limit again)."""
    family = _family(owner)
    stuck = getattr(family, "_overtime", None)
    if stuck:
        raise TaskFileError(stuck)
    limit = call_limit_s()
    src = owner.source
    on_rows = what in ("label", "oracle")
    try:
        # the file's prints go to stderr: stdout may be a command's JSON or CSV
        with time_limit(limit), contextlib.redirect_stdout(sys.stderr):
            return fn(*args, **kwargs)
    except TheorybenchError:
        raise
    except Overtime as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if pathlib.Path(f.filename) == src.path]
        where = f"{src.path}:{frames[-1].lineno}" if frames else src.at(what)
        faster = ("vectorize it over rows (numpy on the whole array)" if on_rows else
                  "make it faster")
        message = (f"{where}: {what} ran for more than {limit:g} s{_input_text(owner, args)} "
                   f"and was stopped; {faster} or, if it is right and only slow, raise the "
                   f"limit with {LIMIT_ENV}=SECONDS")
        family._overtime = message
        raise TaskFileError(message) from None
    except (Exception, SystemExit) as exc:  # sys.exit() in the file ends no command
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if pathlib.Path(f.filename) == src.path]
        where = f"{src.path}:{frames[-1].lineno}" if frames else src.at(what)
        fix = ("it must not change x in place (copy it first: x = x.copy())"
               if isinstance(exc, ValueError) and "read-only" in str(exc) else
               "it must handle every input of every n in LENGTHS (vectorized over rows)"
               if on_rows else f"it must work at every n in LENGTHS")
        raise TaskFileError(
            f"{where}: {what} raised {type(exc).__name__}: {exc}{_input_text(owner, args)}; "
            f"{fix}") from None


def _file_error(src: Any, name: str, message: str) -> TaskFileError:
    return TaskFileError(str(src.error(name, message)))


def check_labels(task: Any, y: Any, x: np.ndarray, what: str) -> np.ndarray:
    """``y`` as int64 0/1 labels of the rows ``x`` (answer indices for an ``answer``
    output), or an error at the file's ``def``."""
    src = task.source
    if task.output == "answer":
        return _check_answers(task, y, x, what)
    want = (len(x),) if task.output == "final" else x.shape
    try:
        arr = np.asarray(y)
    except Exception:
        arr = np.asarray(y, dtype=object)
    if arr.shape != want:
        hint = (' (a label per position? set OUTPUT = "per_position")'
                if task.output == "final" and arr.shape == x.shape else "")
        got = f"shape {arr.shape}" if arr.ndim else f"{y!r:.40}"
        raise _file_error(src, what, f"{what}(x) returned {got} for x of shape "
                          f"{x.shape}; it must return {want}, one 0/1 per "
                          f"{'row' if task.output == 'final' else 'position'}{hint}")
    if arr.dtype.kind == "b":
        return arr.astype(np.int64)
    flat = arr.reshape(-1)
    if arr.dtype.kind in "iuf":
        bad = flat[~np.isin(flat, (0, 1))][:3].tolist()
        kind = ""
    else:  # strings, objects (None), complex numbers: never labels, whatever they hold
        bad = [v for v in flat[:50].tolist()
               if not (type(v) in (bool, int) and v in (0, 1))][:3] or flat[:3].tolist()
        kind = f"values of type {arr.dtype}"
    if kind or bad:
        raise _file_error(src, what, f"{what}(x) returned {kind or 'values other than 0/1'} "
                          f"(e.g. {', '.join(map(repr, bad))}); return 0/1 or bool, e.g. "
                          "(x.sum(axis=1) % 3 == 0)")
    return arr.astype(np.int64)


def _check_answers(task: Any, y: Any, x: np.ndarray, what: str) -> np.ndarray:
    k = len(task.label_vocab)
    try:
        arr = np.asarray(y)
    except Exception:
        arr = np.asarray(y, dtype=object)
    if arr.ndim != 2 or arr.shape[0] != len(x) or arr.shape[1] < 1:
        got = f"shape {arr.shape}" if arr.ndim else f"{y!r:.40}"
        raise _file_error(task.source, what, f"{what}(x) returned {got} for x of shape "
                          f"{x.shape}; OUTPUT = \"answer\" needs (count, m): m answer tokens "
                          f"per row, as indices into ANSWER")
    if arr.dtype.kind not in "iub" or (arr.size and (arr.min() < 0 or arr.max() >= k)):
        bad = arr.reshape(-1)[:3].tolist()
        raise _file_error(task.source, what, f"{what}(x) returned values outside 0..{k - 1} "
                          f"(e.g. {', '.join(map(repr, bad))}); each answer token is an "
                          f"index into ANSWER")
    return arr.astype(np.int64)


def _inputs(task: Any, rng: np.random.Generator, count: int) -> np.ndarray:
    """Edge rows (each token repeated, alternating first/last token) and uniform rows."""
    k, n = len(task.alphabet), task.n
    same = np.repeat(np.arange(k, dtype=np.int64)[:, None], n, axis=1)
    alt = (np.arange(n) % 2 * (k - 1))[None, :].astype(np.int64)
    return np.concatenate([same, alt, rng.integers(0, k, size=(count, n), dtype=np.int64)])


def _instances(cls: Any, max_n: int) -> list[Any]:
    """The family at its shortest and longest n (capped), each parameter's range ends."""
    ns = [n for n in cls.valid_ns(cls.lengths[0], min(cls.lengths[1], max_n))]
    if not ns:
        return []
    points: list[dict[str, int]] = [{}]
    for p in cls.params[1:]:
        points += [{p.name: p.minimum}, {p.name: p.maximum}]
    out = []
    for n in dict.fromkeys((ns[0], ns[len(ns) // 2], ns[-1])):
        for extra in points:
            if cls.accepts(n=n, **extra):
                out.append(cls(n=n, **extra))
    return out


def _deterministic(task: Any, x: np.ndarray) -> np.ndarray:
    y = task.label(x)
    again = task.label(x.copy())
    if not np.array_equal(y, again):
        row = int(np.argwhere(y != again)[0][0])
        raise _file_error(task.source, "label", f"label(x) is not deterministic: called "
                          f"twice on the same input ({task.render(x[row])}, n={task.n}) it "
                          f"gave {y[row].tolist()} then {again[row].tolist()}; use no "
                          "randomness or state in label")
    singles = np.linspace(0, len(x) - 1, min(len(x), 8)).astype(int)
    for part, rows in [("the batch reversed", np.arange(len(x))[::-1])] + [
            ("a batch of that row alone", singles[i:i + 1]) for i in range(len(singles))]:
        alone = task.label(x[rows])
        if not np.array_equal(alone, y[rows]):
            row = int(rows[np.argwhere(alone != y[rows])[0][0]])
            raise _file_error(task.source, "label", f"label(x) of a row depends on the other "
                              f"rows: {task.render(x[row])} (n={task.n}) gets "
                              f"{y[row].tolist()} in one batch and a different label in "
                              f"{part}; compute each row's label from that row only")
    return y


def smoke_check(cls: Any) -> None:
    """At load: label's shape, values, determinism and exceptions on a few inputs at the
    shortest and longest n (a fixed seed: the same file always passes or fails alike)."""
    if cls.table is not None:
        return
    rng = np.random.default_rng(0)
    for task in _instances(cls, CHECK_MAX_N):
        _deterministic(task, _inputs(task, rng, 32))


def full_check(cls: Any, rng: np.random.Generator,
               count: int = 2000) -> tuple[list[str], list[str]]:
    """``theorybench task check``: (lines of what was checked, warnings)."""
    done, warn = [], []
    tasks = _instances(cls, CHECK_MAX_N)
    for task in tasks:
        x = _inputs(task, rng, count)
        y = _deterministic(task, x) if cls.table is None else task.label(x)
        where = f"n={task.n}" + "".join(f", {k}={v}" for k, v in task.extra.items())
        if task.output == "answer":
            distinct = len({row.tobytes() for row in np.asarray(y)})
            done.append(f"label on {len(x):,} inputs at {where}: answers of {y.shape[1]} "
                        f"token(s), {distinct:,} distinct")
            share = 0.5   # no 0/1 share to warn about
        else:
            share = float(np.mean(y))
            done.append(f"label on {len(x):,} inputs at {where}: share of 1s {share:.3f}")
        if share in (0.0, 1.0):
            warn.append(f"the label is constant ({int(share)}) on every input checked at "
                        f"{where}")
        if cls._oracle_fn is not None or cls.table is not None:
            sub = x[: min(len(x), 500)]
            ref = task.oracle(sub)
            bad = np.flatnonzero((ref != task.label(sub)).reshape(len(sub), -1).any(axis=1))
            if len(bad):
                raise task.source.error(
                    "oracle", f"label and oracle disagree at {where} on "
                    f"{task.render(sub[bad[0]])}: label {task.label(sub[bad[:1]])[0].tolist()}"
                    f", oracle {ref[bad[0]].tolist()} ({len(bad)} of {len(sub)} inputs)")
            done.append(f"oracle agrees on {len(sub)} inputs at {where}")
        try:
            batch = task.sample(rng, 64)
        except TaskParameterError as exc:
            if cls._sample_fn is not None or isinstance(exc, TaskFileError):
                raise  # the file's own sample, or its label, is broken: an error
            # a class too rare to balance is a property of the language (a^n b^n c^n at
            # n = 16), not a mistake in the file: training at this n needs a sample
            warn.append(f"no balanced sample at {where}: {exc}")
            continue
        if batch.tokens.shape != (64, task.n):
            raise _file_error(task.source, "sample",
                              f"sampling gave shape {batch.tokens.shape}")
    if tasks:
        big = tasks[-1]
        x = rng.integers(0, len(cls.alphabet), size=(TIMED, big.n), dtype=np.int64)
        t0 = time.perf_counter()
        big.label(x)
        took = time.perf_counter() - t0
        done.append(f"label on {TIMED:,} inputs at n={big.n}: {took:.3f} s")
        if took > SLOW_SECONDS:
            warn.append(f"label took {took:.1f} s on {TIMED:,} inputs at n={big.n} (more "
                        f"than {SLOW_SECONDS:g} s): vectorize it over rows (numpy on the "
                        "whole array, no Python loop over rows)")
    return done, warn


__all__ = ["call_user", "call_limit_s", "time_limit", "Overtime", "check_labels",
           "smoke_check", "full_check", "SLOW_SECONDS", "CALL_LIMIT_S", "LIMIT_ENV"]
