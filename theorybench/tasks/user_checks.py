"""Checks of a task file's functions: every call into the file goes through
:func:`call_user` (an exception there becomes a message with the file's line), every label
through :func:`check_labels`; :func:`smoke_check` runs at load, :func:`full_check` is
``theorybench task check``."""

from __future__ import annotations

import pathlib
import time
import traceback
from typing import Any, Callable

import numpy as np

from ..errors import TaskParameterError, TheorybenchError

#: ``theorybench task check`` reports a label slower than this on :data:`TIMED` inputs.
SLOW_SECONDS = 1.0
TIMED = 10_000
#: The longest n the checks build (LENGTHS may reach far beyond what a check needs).
CHECK_MAX_N = 512


def call_user(owner: Any, what: str, fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, a function of the task file; an exception it raises becomes
    a :class:`TaskParameterError` at the file's line where it was raised."""
    try:
        return fn(*args, **kwargs)
    except TheorybenchError:
        raise
    except Exception as exc:
        src = owner.source
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if pathlib.Path(f.filename) == src.path]
        where = f"{src.path}:{frames[-1].lineno}" if frames else src.at(what)
        shape = ""
        if args and isinstance(args[0], np.ndarray):
            shape = f" on an input of shape {args[0].shape}"
            if args[0].ndim == 2 and len(args[0]) and hasattr(owner, "alphabet"):
                row = args[0][0]
                shape += f" (first row {' '.join(owner.alphabet[int(t)] for t in row[:20])}"
                shape += " ...)" if len(row) > 20 else ")"
        raise TaskParameterError(
            f"{where}: {what} raised {type(exc).__name__}: {exc}{shape}; it must handle "
            f"every input of every n in LENGTHS (vectorized over rows)") from None


def check_labels(task: Any, y: Any, x: np.ndarray, what: str) -> np.ndarray:
    """``y`` as int64 0/1 labels of the rows ``x``, or an error at the file's ``def``."""
    src = task.source
    want = (len(x),) if task.output == "final" else x.shape
    try:
        arr = np.asarray(y)
    except Exception:
        arr = np.asarray(y, dtype=object)
    if arr.shape != want:
        hint = (' (a label per position? set OUTPUT = "per_position")'
                if task.output == "final" and arr.shape == x.shape else "")
        raise src.error(what, f"{what}(x) returned shape {arr.shape} for x of shape "
                        f"{x.shape}; it must return {want}, one 0/1 per "
                        f"{'row' if task.output == 'final' else 'position'}{hint}")
    if arr.dtype.kind == "b":
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iuf" or (arr.size and not np.isin(arr, (0, 1)).all()):
        bad = arr.reshape(-1)[~np.isin(arr.reshape(-1), (0, 1))][:3] if arr.dtype.kind in \
            "iuf" else arr.reshape(-1)[:3]
        raise src.error(what, f"{what}(x) returned values other than 0/1 (e.g. "
                        f"{', '.join(map(repr, bad.tolist()))}); return 0/1 or bool, e.g. "
                        "(x.sum(axis=1) % 3 == 0)")
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
        raise task.source.error("label", f"label(x) is not deterministic: called twice on "
                                f"the same input ({task.render(x[row])}, n={task.n}) it gave "
                                f"{y[row].tolist()} then {again[row].tolist()}; use no "
                                "randomness or state in label")
    singles = np.linspace(0, len(x) - 1, min(len(x), 8)).astype(int)
    for part, rows in [("the batch reversed", np.arange(len(x))[::-1])] + [
            ("a batch of that row alone", singles[i:i + 1]) for i in range(len(singles))]:
        alone = task.label(x[rows])
        if not np.array_equal(alone, y[rows]):
            row = int(rows[np.argwhere(alone != y[rows])[0][0]])
            raise task.source.error("label", f"label(x) of a row depends on the other rows: "
                                    f"{task.render(x[row])} (n={task.n}) gets "
                                    f"{y[row].tolist()} in one batch and a different label "
                                    f"in {part}; compute each row's label from that row only")
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
            if cls._sample_fn is not None:  # the file's own sample is broken: an error
                raise
            # a class too rare to balance is a property of the language (a^n b^n c^n at
            # n = 16), not a mistake in the file: training at this n needs a sample
            warn.append(f"no balanced sample at {where}: {exc}")
            continue
        if batch.tokens.shape != (64, task.n):
            raise task.source.error("sample", f"sampling gave shape {batch.tokens.shape}")
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


__all__ = ["call_user", "check_labels", "smoke_check", "full_check", "SLOW_SECONDS"]
