"""Task files: a researcher's task as a plain Python file, turned into a task family.

The contract (docs/extending.md, "Bring your own task")::

    NAME = "first_eq_last"          # a new family name
    ALPHABET = ("a", "b")           # the tokens
    LENGTHS = (2, 64)               # the range of n, inclusive; optional VALID(n) -> bool
    def label(x):                   # x: int array (count, n) of indices into ALPHABET
        return x[:, 0] == x[:, -1]  # -> (count,) of 0/1 or bool

or ``REGEX = "..."`` (full match, single-character tokens) or ``DFA = {"start": ...,
"accept": [...], "delta": {state: {symbol: state}}}`` or ``COUNTER = {"start": ..., "accept":
[...], "init": (counters...), "delta": {state: {symbol: (state, increments)}}}`` (a
deterministic counter automaton, :mod:`.counter`: a^n b^n, shuffles of Dyck-1, ...) instead
of ``label``. Optional:
``sample(rng, count, n)``, ``oracle(x)``, ``DESCRIPTION``, ``PARAMS`` (``{"k": (lo, hi)}``
or ``(lo, hi, default)``: integer parameters, passed to label/oracle/sample as keywords),
``OUTPUT = "per_position"`` (a label per position: label returns (count, n)), or
``OUTPUT = "answer"`` with ``ANSWER = (tokens...)`` (a sequence produced after the input,
as an algorithmic task's answer after a separator: label returns (count, m) indices into
ANSWER, m the same for every row at a given n; every answer token is scored).

The file is imported in isolation under a private module name (it need not import
theorybench); its identity is ``definition_digest``, the SHA-256 of its bytes. Every
mistake is a :class:`TaskParameterError` naming the file, the line and the fix
(:func:`load_family`); the class is a :class:`.user_family.FileTask`, registered by the
task registry (``tasks.registry.load_task_file``).
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import importlib.util
import os
import pathlib
import re
import sys
import traceback
from typing import Any, Callable

import numpy as np

from ..errors import TaskParameterError
from .base import Task
from .user_checks import LIMIT_ENV, Overtime, call_limit_s, time_limit
from .user_family import USER_KIND, FileTask, build_family
from .user_program import (MAX_BYTES, PROGRAM_SUFFIXES, FileSource, attach_artifacts,
                           load_program_family)
from . import counter as counter_machines
from .user_regular import RegularError, from_dict, from_regex

REQUIRED = ("NAME", "ALPHABET", "LENGTHS")
DEFINITIONS = ("label", "REGEX", "DFA", "COUNTER")
#: CRASP / BRASP: a program for the task (program text, or a path beside the file); CIRCUIT,
#: MPC, BAPO: a circuit family, an MPC algorithm, a BAPO protocol maker; each checked against
#: label before any rule uses it (:mod:`.user_artifacts`, :mod:`.user_models`).
OPTIONAL = ("VALID", "sample", "oracle", "DESCRIPTION", "PARAMS", "OUTPUT", "ANSWER", "CRASP",
            "BRASP", "CIRCUIT", "MPC", "BAPO")
_FILE_TASK = re.compile(r"^(?P<path>.+?\.(?:py|cr|br))(?=:|$)(?P<rest>.*)$", re.S)


def split_file_ref(text: str) -> tuple[str, str] | None:
    """``"./mod3.py:k=3"`` -> ``("./mod3.py", ":k=3")``; None when ``text`` names no
    ``.py`` task file or ``.cr``/``.br`` program (a family name never ends so)."""
    m = _FILE_TASK.match(text.strip()) if isinstance(text, str) else None
    return (m["path"], m["rest"]) if m else None


def resolve_path(path: str | os.PathLike) -> pathlib.Path:
    """The absolute path of a task file as given (a null byte is a clear error)."""
    try:
        return pathlib.Path(path).expanduser().resolve()
    except (ValueError, OSError, RuntimeError) as exc:
        raise TaskParameterError(f"task file {str(path)!r} is not a usable path ({exc}); "
                                 "give the path of a .py task file") from None


class _Source(FileSource):
    """A task file's text, digest and the line of each top-level name (for messages)."""

    def __init__(self, path: pathlib.Path):
        super().__init__(path)
        if b"\x00" in self.data:  # Python 3.11 says so without a line, 3.12 with one
            line = self.data[:self.data.index(b"\x00")].count(b"\n") + 1
            raise TaskParameterError(f"{path}:{line}: the task file is not Python text (it "
                                     "holds a NUL byte); give a .py task file")
        try:
            tree = ast.parse(self.data, str(path))
        except SyntaxError as exc:
            where = f":{exc.lineno}:{exc.offset or 0}" if exc.lineno else ""
            raise TaskParameterError(
                f"{path}{where}: the task file does not parse: {exc.msg}; fix the Python "
                "syntax there") from None
        except ValueError as exc:  # null bytes (older Pythons)
            raise TaskParameterError(f"{path}: the task file is not Python text ({exc})") from None
        self.lines: dict[str, int] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.lines.setdefault(node.name, node.lineno)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Name):
                            self.lines.setdefault(sub.id, node.lineno)


def _import(src: _Source) -> Any:
    """The file as a fresh module under a private name (two files never collide)."""
    name = f"_theorybench_task_{src.digest[:16]}"
    spec = importlib.util.spec_from_file_location(name, src.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a module up by name
    limit = call_limit_s()
    try:  # under the per-call time limit; its prints to stderr (stdout may be JSON)
        with time_limit(limit), contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except BaseException as exc:  # the file's own code: report it, never a traceback
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if pathlib.Path(f.filename) == src.path]
        line = f":{frames[-1].lineno}" if frames else ""
        what = (f"ran for more than {limit:g} s and was stopped ({LIMIT_ENV} raises the "
                "limit)" if isinstance(exc, Overtime) else f"{type(exc).__name__}: {exc}")
        raise TaskParameterError(
            f"{src.path}{line}: importing the task file failed: {what}; fix the file so that "
            "`python FILE` runs") from None
    return module


def _require(src: _Source, module: Any, name: str) -> Any:
    if hasattr(module, name):
        return getattr(module, name)
    public = [k for k in vars(module) if not k.startswith("_")]
    close = difflib.get_close_matches(name, public, n=1, cutoff=0.6) or \
        difflib.get_close_matches(name.lower(), [k.lower() for k in public], n=1, cutoff=0.8)
    if close:
        found = next(k for k in public if k.lower() == close[0].lower())
        raise src.error(found, f"the task file has no {name} (did you mean {found}? rename "
                        f"it to {name})")
    raise src.error(None, f"the task file has no {name}; add e.g. " + {
        "NAME": 'NAME = "my_task"', "ALPHABET": 'ALPHABET = ("a", "b")',
        "LENGTHS": "LENGTHS = (1, 64)"}[name])


def _misspelled(src: _Source, module: Any) -> None:
    """A contract name written in another case (``Valid``) or an upper-case near miss
    (``PARAM``, ``DESCRIPTON``) would be silently ignored: refuse it at its line."""
    contract = REQUIRED + DEFINITIONS + OPTIONAL
    upper = [c for c in contract if c.isupper()]
    for name in src.lines:
        if name in contract or name.startswith("_") or not hasattr(module, name):
            continue
        same_case = [c for c in contract if c.lower() == name.lower()]
        near = difflib.get_close_matches(name, upper, n=1, cutoff=0.8) if name.isupper() else []
        meant = (same_case or near or [None])[0]
        if meant is not None and not hasattr(module, meant):
            raise src.error(name, f"{name} is not a name theorybench reads (did you mean "
                            f"{meant}? rename it to {meant})")


def _alphabet(src: _Source, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (tuple, list)):
        raise src.error("ALPHABET", f"ALPHABET must be a tuple of token strings, e.g. "
                        f'("a", "b"), not {value!r}')
    if not value:
        raise src.error("ALPHABET", 'ALPHABET is empty; list the tokens, e.g. ("a", "b")')
    for tok in value:
        if not isinstance(tok, str) or not tok or tok.split() != [tok] or tok == "<pad>":
            raise src.error("ALPHABET", f"token {tok!r} must be a non-empty string without "
                            "spaces (and not <pad>)")
    seen: dict[str, int] = {}
    for i, tok in enumerate(value):
        if tok in seen:
            raise src.error("ALPHABET", f"token {tok!r} appears twice in ALPHABET (positions "
                            f"{seen[tok]} and {i}); keep each token once")
        seen[tok] = i
    return tuple(value)


def _lengths(src: _Source, value: Any) -> tuple[int, int]:
    ok = (isinstance(value, (tuple, list)) and len(value) == 2
          and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value))
    if not ok:
        raise src.error("LENGTHS", f"LENGTHS must be (shortest n, longest n), two integers, "
                        f"not {value!r}")
    lo, hi = int(value[0]), int(value[1])
    if lo < 1:
        raise src.error("LENGTHS", f"LENGTHS starts at {lo}; the shortest input has n >= 1")
    if lo > hi:
        raise src.error("LENGTHS", f"LENGTHS = {tuple(value)} is out of order; write "
                        f"({hi}, {lo}) (shortest first)")
    return lo, hi


def _function(src: _Source, module: Any, name: str) -> Callable | None:
    fn = getattr(module, name, None)
    if fn is not None and not callable(fn):
        raise src.error(name, f"{name} must be a function, not {type(fn).__name__}")
    return fn


def load_family(path: str | pathlib.Path) -> type[Task]:
    """The task family class of a task file (not registered; see
    ``tasks.registry.load_task_file``), or a :class:`TaskParameterError` that names the
    file, the line and the fix. Runs a quick check of ``label`` at the shortest and
    longest n (shape, 0/1 values, determinism, no exception)."""
    resolved = resolve_path(path)
    if resolved.suffix in PROGRAM_SUFFIXES:
        return load_program_family(resolved)
    src = _Source(resolved)
    module = _import(src)
    _misspelled(src, module)
    name = _require(src, module, "NAME")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", name):
        raise src.error("NAME", f"NAME must be a word of letters, digits, _ and - (it is "
                        f"the task's name on the command line), not {name!r}")
    alphabet = _alphabet(src, _require(src, module, "ALPHABET"))
    lo, hi = _lengths(src, _require(src, module, "LENGTHS"))
    given = [d for d in DEFINITIONS if getattr(module, d, None) is not None]
    if not given:
        close = difflib.get_close_matches("label", [k for k in vars(module)], n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}? rename it to label)" if close else ""
        raise src.error(close[0] if close else None,
                        f"the task file defines no task: give def label(x){hint}, or "
                        "REGEX = \"...\", or DFA = {...}, or COUNTER = {...}")
    if len(given) > 1:
        raise src.error(given[1], f"the task file gives both {given[0]} and {given[1]}; keep "
                        "one (put an independent reference in oracle(x) instead)")
    table = machine = None
    if given[0] == "COUNTER":
        try:
            machine = counter_machines.from_dict(module.COUNTER, alphabet)
        except counter_machines.CounterError as exc:
            raise src.error("COUNTER", str(exc)) from None
    elif given[0] != "label":
        try:
            table = (from_regex if given[0] == "REGEX" else from_dict)(
                getattr(module, given[0]), alphabet)
        except RegularError as exc:
            col = f", column {exc.where + 1} of the pattern" if exc.where is not None else ""
            raise src.error(given[0], f"{given[0]}{col}: {exc}") from None
    output = getattr(module, "OUTPUT", "final")
    if output not in ("final", "per_position", "answer"):
        raise src.error("OUTPUT", f'OUTPUT must be "final" (one label per input, the '
                        f'default), "per_position" (a label per position) or "answer" (a '
                        f'sequence of ANSWER tokens after the input), not {output!r}')
    if output != "final" and (table is not None or machine is not None):
        raise src.error("OUTPUT", f"a {given[0]} gives one label per input; OUTPUT = "
                        f'"{output}" needs label(x) returning '
                        + ("(count, n)" if output == "per_position" else "(count, m)"))
    extra = {"counter": machine} if machine is not None else {}
    if output == "answer":
        extra["label_vocab"] = _answer_tokens(src, getattr(module, "ANSWER", None))
    elif hasattr(module, "ANSWER"):
        raise src.error("ANSWER", 'ANSWER names the tokens of an answer; it needs OUTPUT = '
                        '"answer" (or drop it)')
    description = getattr(module, "DESCRIPTION", "") or ""
    if not isinstance(description, str):
        raise src.error("DESCRIPTION", "DESCRIPTION must be a string")
    return attach_artifacts(build_family(
        src, name, alphabet, (lo, hi), given[0], description, module=module, output=output,
        table=table, label=_function(src, module, "label"),
        sample=_function(src, module, "sample"), oracle=_function(src, module, "oracle"),
        valid=_function(src, module, "VALID"), params=getattr(module, "PARAMS", None),
        extra=extra))


def _answer_tokens(src: Any, value: Any) -> tuple[str, ...]:
    if value is None:
        raise src.error("OUTPUT", 'OUTPUT = "answer" needs ANSWER, the tuple of answer '
                        'tokens, e.g. ANSWER = ("0", "1")')
    ok = isinstance(value, (tuple, list)) and len(value) >= 2 and all(
        isinstance(t, str) and t and not t.isspace() for t in value)
    if not ok or len(set(value)) != len(value):
        raise src.error("ANSWER", f"ANSWER must be a tuple of at least 2 distinct non-empty "
                        f"strings, got {value!r:.80}")
    return tuple(value)


__all__ = ["USER_KIND", "FileTask", "MAX_BYTES", "load_family", "resolve_path",
           "split_file_ref"]
