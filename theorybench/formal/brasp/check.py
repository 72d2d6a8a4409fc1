"""Checking a B-RASP program against a task's reference function.

``check_against_task(program, family, params, ns)`` runs the program on the task's main
decision function at each n: on *all* inputs of the natural input space when there are at
most ``enum_limit`` of them, else on ``samples`` inputs drawn from the task's own
distribution (seeded).  It stops at the first counterexample.  A single-output program
answers 1/0 (accept/reject); a multi-valued one (``output "a": A, ..., else "_"``)
answers a label that must equal the task's label string (``label_vocab``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ... import tasks
from ...errors import TaskParameterError, VerificationError
from . import ast as A
from ..resources import check_memory
from .interpret import run, run_bytes


@dataclass
class CheckReport:
    family: str
    params: dict[str, Any]
    ok: bool
    checked: list[dict[str, Any]] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "params": self.params, "ok": self.ok,
                "checked": self.checked, "counterexample": self.counterexample}


def program_answers(program: A.Program, task, inputs: np.ndarray) -> np.ndarray:
    """The program's answers on token-id rows of ``task``, as label strings; the rows are
    run in chunks so that one chunk's attention arrays stay near ``CHUNK_BYTES``."""
    rows = max(1, CHUNK_BYTES // max(run_bytes(1, inputs.shape[1] if inputs.ndim == 2 else 1), 1))
    out = [run(program, inputs[i:i + rows], vocab=task.vocab).classify()
           for i in range(0, len(inputs), rows)]
    return np.array([a for part in out for a in part], dtype=object)


#: Memory of one chunk of rows in a check (the chunks run one after another).
CHUNK_BYTES = 1 << 28


def check_on_task(program: A.Program, task, enum_limit: int = 1 << 16, samples: int = 2000,
                  seed: int = 0) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(what was checked, first counterexample or None) at one task instance."""
    view = task.decision_view()[0]
    exhaustive = view.space_size() <= enum_limit
    if exhaustive:
        x = view.enumerate(limit=enum_limit)
    else:
        check_memory(16 * samples * max(view.length, 1),
                     f"--samples {samples:,} at n={task.n} (length {view.length:,})",
                     "lower --samples")
        x = np.asarray(view.sample(np.random.default_rng(seed), samples), dtype=np.int64)
        if view.valid is not None:
            x = x[np.asarray(view.valid(x), dtype=bool)]
    want = np.asarray(view.evaluate(x), dtype=np.int64).reshape(-1)
    labels = np.array(task.label_vocab, dtype=object)
    if not program.multi and not np.isin(want, (0, 1)).all():
        raise VerificationError(
            f"{task.name}'s decision function has outputs other than 0/1 "
            f"({', '.join(map(str, task.label_vocab))}); use a multi-valued program "
            f'(output "a": A, ..., else "x")')
    expected = labels[want] if program.multi else np.where(want == 1, "1", "0")
    got = program_answers(program, task, x)
    info = {"n": task.n, "inputs": int(len(x)), "exhaustive": bool(exhaustive)}
    bad = np.flatnonzero(got != expected)
    if len(bad) == 0:
        return info, None
    r = int(bad[0])
    return info, {"n": task.n, "input": task.render(x[r]), "expected": str(expected[r]),
                  "program": str(got[r])}


def check_against_task(program: A.Program, family: str, params: dict[str, Any] | None = None,
                  ns: Sequence[int] | None = None, max_n: int = 12, enum_limit: int = 1 << 16,
                  samples: int = 2000, seed: int = 0) -> CheckReport:
    """Check ``program`` at every n in ``ns`` (default 1..max_n where the family is
    defined); the result holds the first counterexample, if any."""
    params = dict(params or {})
    tasks.family(family)  # unknown family -> TaskParameterError with suggestions
    ns = list(ns) if ns is not None else list(range(1, max_n + 1))
    res = CheckReport(family, params, True)
    for n in ns:
        try:
            task = tasks.get(family, n=n, **params)
        except TaskParameterError as exc:
            if "unknown parameter" in str(exc) or "is not" in str(exc) and "n=" not in str(exc):
                raise
            continue
        info, bad = check_on_task(program, task, enum_limit, samples, seed)
        res.checked.append(info)
        if bad is not None:
            res.ok, res.counterexample = False, bad
            break
    if not res.checked:
        raise TaskParameterError(f"{family} is defined at none of n = {ns}; choose other n")
    return res
