"""Check a C-RASP program against a task's reference function.

The program reads the task's tokens (the task vocabulary strings are the program's token
literals) and decides the task's main decision function (``decision_view()[0]``), which
must be Boolean. Every n from 1 to ``max_n`` that the task accepts is checked on all
inputs (when there are at most ``exhaustive_limit``; else on ``samples`` draws from the
task's distribution), and larger n (``beyond`` multiples of max_n) on samples. The first
disagreement is kept as the counter-example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ... import tasks
from ...errors import EnumerationTooLarge, ProgramError, ProgramProblem, ResourceLimitError, \
    TaskParameterError, TheoryError
from . import ast as A
from .interpret import Interpreter


@dataclass
class CheckReport:
    task: str
    params: dict[str, Any]
    accept: str
    checked: list[dict[str, Any]] = field(default_factory=list)  # per n: n, inputs, exhaustive
    counterexample: dict[str, Any] | None = None
    sizes: dict[int, dict[str, int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.counterexample is None and bool(self.checked)

    @property
    def exhaustive_up_to(self) -> int:
        ns = [c["n"] for c in self.checked if c["exhaustive"]]
        return max(ns, default=0)

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "params": self.params, "accept": self.accept, "ok": self.ok,
                "exhaustive_up_to": self.exhaustive_up_to, "checked": self.checked,
                "counterexample": self.counterexample,
                "sizes": {str(k): v for k, v in self.sizes.items()}}


ProgramSource = A.Program | Callable[[Any], A.Program]

#: Largest max_n: every n up to it is checked, and samples at multiples of it.
MAX_N_LIMIT = 512
#: Largest number of tokens in one sampled batch (samples x length).
TOKEN_BUDGET = 1 << 24


def _alphabet(task) -> tuple[str, ...]:
    return tuple(t for i, t in enumerate(task.vocab) if i != task.pad_id)


def check_n(source: ProgramSource, task, rng: np.random.Generator, samples: int,
            exhaustive_limit: int, accept: str = "eos", force_sample: bool = False):
    """(record, counterexample-or-None, size) for one task instance."""
    program = source(task) if callable(source) else source
    alpha = _alphabet(task)
    if program.alphabet is not None:
        extra = [t for t in alpha if t not in program.alphabet]
        if extra:
            raise ProgramError([ProgramProblem(
                f"task {task.name} uses token {extra[0]!r}, which is not in the program's "
                f"alphabet {{{' '.join(program.alphabet)}}}")], program.source_name)
    interp = Interpreter(program.with_alphabet(alpha), alpha)
    df = task.decision_view()[0]
    exhaustive = False
    if not force_sample and df.space_size() <= exhaustive_limit:
        try:
            x = df.enumerate(limit=exhaustive_limit)
            exhaustive = True
        except EnumerationTooLarge:
            pass
    if not exhaustive:
        x = np.asarray(df.sample(rng, samples), dtype=np.int64)
    want = np.asarray(df.evaluate(x)).astype(np.int64).reshape(len(x))
    if len(want) and not np.isin(want, (0, 1)).all():
        raise TheoryError(
            f"the decision function of {task.name} is not Boolean (values "
            f"{sorted(set(want.tolist()))[:6]}); a C-RASP program decides a language")
    got = interp.accepts(x, task.vocab, accept=accept).astype(np.int64)
    bad = np.flatnonzero(got != want)
    rec = {"n": task.n, "inputs": int(len(x)), "exhaustive": exhaustive}
    cex = None
    if len(bad):
        j = int(bad[0])
        cex = {"n": task.n, "input": " ".join(task.vocab[int(t)] for t in x[j]),
               "expected": int(want[j]), "program": int(got[j]),
               "disagreements": int(len(bad)), "of": int(len(x))}
    return rec, cex, A.size(program)


def check_against_task(source: ProgramSource, family: str, max_n: int,
                       params: dict[str, Any] | None = None, samples: int = 2000,
                       beyond: tuple[int, ...] = (2, 4), exhaustive_limit: int = 1 << 16,
                       rng: np.random.Generator | None = None, accept: str = "eos",
                       ns: list[int] | None = None) -> CheckReport:
    """Check ``source`` (a program, or task -> program) on ``family`` for n <= max_n
    (exhaustively where small enough) and on samples at n = max_n * each of ``beyond``."""
    params = dict(params or {})
    cls = tasks.family(family)
    unknown = sorted(set(params) - {p.name for p in cls.params})
    if unknown or "n" in params:
        raise TaskParameterError(
            f"parameter(s) {', '.join(unknown or ['n'])} cannot be set for {family} here (n "
            f"runs over 1..max_n); its parameters are: "
            f"{', '.join(p.describe() for p in cls.params if p.name != 'n')}")
    if max_n < 1:
        raise TaskParameterError(f"--max-n must be at least 1, got {max_n}")
    if max_n > MAX_N_LIMIT:
        raise ResourceLimitError(
            f"--max-n {max_n} is above {MAX_N_LIMIT}: every n from 1 to N is checked and "
            f"samples are drawn at {' and '.join(f'{m}N' for m in beyond)}; choose N <= "
            f"{MAX_N_LIMIT} (large lengths are covered by those samples)")
    if samples < 1 or samples * max_n * max(beyond, default=1) > TOKEN_BUDGET:
        raise ResourceLimitError(
            f"--samples {samples} at lengths up to {max_n * max(beyond, default=1)} is "
            f"outside 1..{TOKEN_BUDGET // (max_n * max(beyond, default=1)):,} samples "
            f"(at most {TOKEN_BUDGET:,} tokens per batch); lower --samples or --max-n")
    rng = rng or np.random.default_rng(0)
    report = CheckReport(family, params, accept)
    small = list(ns) if ns is not None else list(range(1, max_n + 1))
    big = [max_n * m for m in beyond]
    last_error = None
    for n, sampled in [(n, False) for n in small] + [(n, True) for n in big]:
        task = None
        for cand in ((n,) if not sampled else (n, n + 1)):  # e.g. majority needs odd n
            try:
                task = tasks.get(family, n=cand, **params)
                break
            except TaskParameterError as exc:
                last_error = exc
        if task is None:
            continue
        n = task.n
        rec, cex, size = check_n(source, task, rng, samples, exhaustive_limit, accept,
                                 force_sample=sampled)
        report.checked.append(rec)
        report.sizes[n] = size
        if cex is not None:
            report.counterexample = cex
            break
    if not report.checked:
        raise TaskParameterError(
            f"no n in 1..{max_n} is valid for {family} with {params or 'default parameters'}"
            f" (last error: {last_error})")
    return report
