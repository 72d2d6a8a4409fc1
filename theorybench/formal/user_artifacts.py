"""Programs supplied with a task file (docs/extending.md, "Bring your own task"): checked
against the task's label before any rule can use them, then added to the theory models'
libraries for that task only, and only where their fragment is the column's model.

A task file ``NAME.py`` supplies a C-RASP or B-RASP program by ``CRASP = "..."`` /
``BRASP = "..."`` (program text, or the path of a program file relative to the task
file), or by a file ``NAME.cr`` / ``NAME.br`` beside it; a ``.cr``/``.br`` program that
*is* the task supplies itself. A task with ``PARAMS`` has its program checked, and used,
at the parameters' defaults only. Each is verified on every input of every valid n whose
input space has at most :data:`EXHAUSTIVE` words, and on :data:`SAMPLES` random inputs at
the longest n up to :data:`SAMPLED_N`; a disagreement is a :class:`TaskParameterError`
naming the program and the input, raised while the task file loads.

Fragments (which column a program may serve): plain C-RASP (Yang & Chiang, COLM 2024) is
the ``crasp`` column's model; a program with an ``#import`` is C-RASP[periodic, local]
(Huang et al., ICLR 2025, Def. 8), a larger class (it decides Parity with ``#import
pos_even``-style predicates where plain C-RASP cannot), so it is recorded but never added
to the C-RASP library. A B-RASP program is added to the B-RASP library, whose plain column
(``star_free``) takes only programs without positions (``brasp.programs.for_task``); one
that compares positions (B-RASP[pos]) serves ``star_free_pos`` only.

Circuits, MPC algorithms and BAPO protocols (``CIRCUIT``, ``MPC``, ``BAPO``) are checked the
same way by :mod:`.user_models`, with :func:`instances`, :func:`serves_only` and
:func:`add_records` from here.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ProgramError, TaskParameterError
from ..tasks.user_program import ARTIFACT_CHECKERS, ARTIFACT_NAMES, sibling_programs
from .brasp.interpret import accept as brasp_accept
from .brasp.parser import parse as parse_brasp
from .brasp.programs import PROGRAMS as BRASP_PROGRAMS
from .crasp.interpret import Interpreter
from .crasp.programs import PROGRAMS as CRASP_PROGRAMS
from .crasp.validate import load as load_crasp
from .program_files import read_program_text
from .program_task import brasp_fragment, crasp_fragment

#: Largest input space checked exhaustively at one n.
EXHAUSTIVE = 1 << 14
#: Random inputs checked at the longest n up to SAMPLED_N.
SAMPLES, SAMPLED_N = 1000, 64
#: The columns each fragment may serve as evidence (theory names).
COLUMNS = {"C-RASP": ("crasp",), "C-RASP[periodic, local]": (),
           "B-RASP": ("star_free", "star_free_pos"), "B-RASP[pos]": ("star_free_pos",)}


@dataclass(frozen=True)
class UserProgram:
    """A checked program of a task file, as a library artifact (the interface of the
    shipped ``LibraryProgram``: ``instantiate``, ``name_for``, ``source``)."""

    name: str
    program: Any
    source: str

    def instantiate(self, task) -> Any:
        return self.program

    def name_for(self, task) -> str:
        return self.name


def _given(cls) -> list[tuple[str, str, str]]:
    """(language suffix, program text, where) of every program the task supplies."""
    path = cls.source.path
    out = []
    if getattr(cls, "program", None) is not None:  # the program is the task
        out.append((path.suffix, cls.source.text, str(path)))
    module = getattr(cls, "module", None)
    for name, suffix in ARTIFACT_NAMES.items():
        value = getattr(module, name, None)
        if value is None or suffix is None:  # not a program (formal/user_models.py)
            continue
        where = cls.source.at(name)
        if not isinstance(value, str):
            raise cls.source.error(name, f"{name} must be program text or the path of a "
                                   f"{suffix} file, not {type(value).__name__}")
        candidate = (path.parent / value) if "\n" not in value and value.strip().endswith(
            suffix) else None
        if candidate is not None:
            if not candidate.is_file():
                raise cls.source.error(name, f"{name} = {value!r}: no such program file "
                                       f"beside the task file ({candidate})")
            out.append((suffix, read_program_text(candidate), str(candidate)))
        else:
            out.append((suffix, value, f"{where} ({name})"))
    for sib in sibling_programs(path):
        out.append((sib.suffix, read_program_text(sib), str(sib)))
    return out


def instances(cls) -> list[Any]:
    """The task at every valid n with an exhaustive space, then the longest n up to
    SAMPLED_N (sampled)."""
    k = len(cls.alphabet)
    lo, hi = cls.lengths
    ns = cls.valid_ns(lo, min(hi, SAMPLED_N))
    small = [n for n in ns if k ** n <= EXHAUSTIVE]
    big = [n for n in ns if k ** n > EXHAUSTIVE][-1:]
    return [cls(n=n) for n in small + big]


def _wrong(where: str, language: str, cex: dict) -> TaskParameterError:
    return TaskParameterError(
        f"{where}: the {language} program supplied for the task disagrees with its label at "
        f"n={cex['n']} on {cex['input']!r}: label {cex['expected']}, program "
        f"{cex['program']}; fix the program (or the label) - a program is used as evidence "
        "only once it agrees with the label on every input checked")


def _verify(cls, accept, where: str, language: str) -> list[dict[str, Any]]:
    """Compare ``accept(x, vocab)`` with the task's (last-position) label: every input at
    the small n, uniform random inputs (not label-balanced: a rare class must not stop the
    check) at the sampled n. Raises at the first disagreement."""
    rng = np.random.default_rng(0)
    checked = []
    for task in instances(cls):
        view = task.decision_view()[0]
        exhaustive = len(cls.alphabet) ** task.n <= EXHAUSTIVE
        x = (view.enumerate(limit=EXHAUSTIVE) if exhaustive else
             rng.integers(0, len(cls.alphabet), size=(SAMPLES, task.n), dtype=np.int64))
        want = np.asarray(view.evaluate(x), dtype=np.int64).reshape(len(x))
        got = np.asarray(accept(x, task.vocab), dtype=np.int64)
        bad = np.flatnonzero(got != want)
        if len(bad):
            r = int(bad[0])
            raise _wrong(where, language, {"n": task.n, "input": task.render(x[r]),
                                           "expected": int(want[r]), "program": int(got[r])})
        checked.append({"n": task.n, "inputs": int(len(x)), "exhaustive": exhaustive})
    return checked


def check_program(cls, suffix: str, text: str, where: str) -> dict[str, Any]:
    """Parse ``text`` and verify it against ``cls``'s label (see the module docstring);
    the record ``cls.artifacts`` keeps, with the program (key ``"artifact"``)."""
    try:
        if suffix == ".cr":
            language = "C-RASP"
            program = load_crasp(text, where, cls.alphabet).with_alphabet(cls.alphabet)
            fragment = crasp_fragment(program)
            interp = Interpreter(program, cls.alphabet)
            checked = _verify(cls, interp.accepts, where, language)
        else:
            language = "B-RASP"
            program = parse_brasp(text, where)
            fragment = brasp_fragment(program)
            checked = _verify(cls, lambda x, vocab: brasp_accept(program, x, vocab), where,
                              language)
    except ProgramError as exc:
        raise TaskParameterError(f"{exc}") from None
    exhaustive = [c["n"] for c in checked if c["exhaustive"]]
    return {"language": language, "fragment": fragment, "origin": where,
            "columns": list(COLUMNS[fragment]), "program": text,
            "exhaustive_up_to": max(exhaustive, default=0),
            "verified_up_to": max((c["n"] for c in checked), default=0),
            "checked": checked, "artifact": UserProgram(
                pathlib.Path(where.split(" ")[0]).name, program, where)}


def check_task_artifacts(cls) -> None:
    """Verify every program ``cls`` supplies and add the good ones to their libraries,
    first (before the shipped artifacts), for instances of ``cls`` only: an edited file
    is a new class, so a stale program never serves it."""
    records = [check_program(cls, *given) for given in _given(cls)]
    serves = serves_only(cls)
    for rec in records:
        if not rec["columns"]:
            continue  # recorded (the report says which fragment), never used as evidence
        library = CRASP_PROGRAMS if rec["language"] == "C-RASP" else BRASP_PROGRAMS
        library.add(rec["artifact"], cls.name, when=serves, origin=rec["origin"], first=True)
    add_records(cls, records)


def serves_only(cls):
    """The library condition of an artifact checked for ``cls``: instances of this class
    (an edited file is a new class) at the parameters' defaults (PARAMS), where it was
    checked."""
    defaults = {p.name: p.default for p in cls.params if p.name != "n"}

    def serves(task, c=cls) -> bool:
        return isinstance(task, c) and all(task.values.get(k) == v
                                           for k, v in defaults.items())
    return serves


def add_records(cls, records) -> None:
    """Append the JSON-ready part of ``records`` to ``cls.artifacts`` (several checkers
    each add theirs)."""
    cls.artifacts = tuple(getattr(cls, "artifacts", ())) + tuple(
        {k: v for k, v in r.items() if k != "artifact"} for r in records)


ARTIFACT_CHECKERS.register(check_task_artifacts, name="programs")

__all__ = ["check_task_artifacts", "check_program", "UserProgram", "COLUMNS", "EXHAUSTIVE",
           "serves_only", "add_records", "instances"]
