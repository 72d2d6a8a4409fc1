"""Keep the n of a user's ``--n`` range that a task accepts (a note names the rest).

Shared by the commands that sweep n (sensitivity, mpc rounds, bapo bandwidth/verify);
the leading underscore keeps ``main`` from treating it as a command module.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from .. import tasks
from ..errors import TaskParameterError


def show_ns(ns: Sequence[int], limit: int = 8) -> str:
    """``[5, 7, 9]`` -> ``"5, 7, 9"``; long lists are cut: ``"64, 128, ..., 65536 (11 values)"``."""
    ns = list(ns)
    if len(ns) <= limit:
        return ", ".join(map(str, ns))
    return f"{', '.join(map(str, ns[:3]))}, ..., {ns[-1]} ({len(ns)} values)"


def usable_ns(task: str, ns: Sequence[int], params: dict[str, Any], text: str = "",
              extra: Callable[[int], str | None] | None = None) -> list[int]:
    """The n of ``ns`` that ``tasks.get(task, n=n, **params)`` accepts (and, when given,
    for which ``extra(n)`` returns no reason to refuse). The others are named in one note
    on stderr with the first reason; when none is left, :class:`TaskParameterError` says
    which n of the range would be valid. Nothing is computed for any n before this."""
    fam = tasks.family(task)  # unknown task: its own error
    keep, skipped, reason, first_exc, limited = [], [], None, None, False
    for n in ns:
        try:
            fam.validate(**{**params, "n": n})
            why = extra(n) if extra is not None else None
            limited = limited or why is not None
        except TaskParameterError as exc:
            why, first_exc = str(exc), first_exc or exc
        if why is None:
            keep.append(n)
        else:
            skipped.append(n)
            reason = reason or f"n={n}: {why}"
    shown = text or show_ns(ns)
    if not keep:
        if first_exc is not None and (len(ns) == 1 or not tasks.grid(task).valid_ns(**params)):
            raise first_exc  # one n, or a parameter other than n is wrong: its own message
        if len(ns) == 1:
            raise TaskParameterError(f"--n {shown}: {reason.partition(': ')[2]}")
        lo, hi = min(ns), max(ns)
        # the task's valid n help only when the task refused them (not a resource limit)
        valid = (tasks.grid(task).valid_ns(lo, hi, **params)
                 if hi - lo <= 1 << 17 and not limited else [])
        hint = (f"; the valid n between {lo} and {hi} are {show_ns(valid)}" if valid else "")
        raise TaskParameterError(f"--n {shown}: no n of the range is valid for {task} "
                                 f"({reason}){hint}")
    if skipped:
        print(f"note: {task}: skipping n={show_ns(skipped)} ({reason})", file=sys.stderr)
    return keep
