"""A C-RASP (``.cr``) or B-RASP (``.br``) program file as a task: the language the program
accepts over its alphabet (docs/extending.md, "Bring your own task").

The program's leading comments say what the task is::

    // name: anbncn           the task's name (optional; default: the file's stem)
    // alphabet: a b c        the input alphabet (required; a .br file may instead declare
                              it with its `alphabet "a" "b" "c"` statement)
    // lengths: 1 30          the range of n, inclusive (optional; default 1 64)

The label of a word is the interpreter's accept bit, computed for a whole batch at once
(C-RASP: the output at an appended end marker, Yang, Veseli et al., App. F, Remark 42;
B-RASP: the output at the last position, Yang, Chiang & Angluin 2024, Sec. 3); the
independent oracle (``task check``) is the language's naive one-row interpreter. The
task's identity, ``definition_digest``, is the SHA-256 of the program text.

The languages are a registry (:data:`LANGUAGES`, by file suffix) that
``theorybench.formal.program_task`` fills: the parsers and interpreters live in
``formal``, above this package, so the registry names that module instead of importing
it (the registry idiom of :mod:`theorybench.registry`: modules loaded on first use).
"""

from __future__ import annotations

import hashlib
import pathlib
import re
import sys
import types
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import ProgramError, TaskParameterError
from ..registry import Registry
from .user_family import build_family

#: A task file or program file is source text; anything bigger is refused before it is read.
MAX_BYTES = 1 << 20
PROGRAM_SUFFIXES = (".cr", ".br")
DEFAULT_LENGTHS = (1, 64)
_HEADER = re.compile(r"^\s*//\s*(name|alphabet|lengths|description)\s*:(.*)$")


@dataclass(frozen=True)
class LoadedProgram:
    """What a language makes of a program file (``theorybench.formal.program_task``)."""

    language: str                    # "C-RASP", "B-RASP"
    fragment: str                    # "C-RASP", "C-RASP[periodic, local]", "B-RASP[pos]", ...
    program: Any
    alphabet: tuple[str, ...] | None  # declared in the program text itself, if anywhere
    accept: Callable[[np.ndarray, tuple[str, ...]], np.ndarray]  # (count, n) ids -> bool
    naive: Callable[[np.ndarray, tuple[str, ...]], np.ndarray]   # one row at a time


@dataclass(frozen=True)
class Language:
    suffix: str
    name: str
    load: Callable[[str, str, tuple[str, ...] | None], LoadedProgram]


#: Program languages by file suffix (".cr", ".br"), filled by formal/program_task.py.
LANGUAGES: Registry[Language] = Registry("task program language",
                                         ("theorybench.formal.program_task",),
                                         error=TaskParameterError)


#: Checkers of the artifacts a task file supplies (programs given with the task, by name,
#: beside it, or the program that is the task), filled by formal/user_artifacts.py: each
#: ``check(cls)`` verifies them against the family's label and adds the good ones to the
#: theory models' libraries, for instances of ``cls`` only.
ARTIFACT_CHECKERS: Registry[Callable[[type], None]] = Registry(
    "task artifact checker", ("theorybench.formal.user_artifacts",
                              "theorybench.formal.user_models"), error=TaskParameterError)
#: The optional names of a task file that give an artifact for its task: a program (by its
#: file suffix), or a Python object of a theory model (None: a circuit family, an MPC
#: algorithm, a BAPO protocol maker; :mod:`theorybench.formal.user_models`).
ARTIFACT_NAMES = {"CRASP": ".cr", "BRASP": ".br", "CIRCUIT": None, "MPC": None, "BAPO": None}
#: Task files whose artifacts a checker added to a library: loaded again (edited), they are
#: checked again even without artifacts, so that the checker takes the old ones out.
CHECKED_PATHS: set[str] = set()


def sibling_programs(path: pathlib.Path) -> list[pathlib.Path]:
    """``NAME.cr`` / ``NAME.br`` beside a task file ``NAME.py``."""
    if path.suffix != ".py":
        return []
    return [p for p in (path.with_suffix(s) for s in PROGRAM_SUFFIXES) if p.is_file()]


def attach_artifacts(cls: type) -> type:
    """``cls.artifacts``: what the artifact checkers made of the programs the task supplies
    (none: the checkers are not even imported). A wrong program raises here, at load,
    before any rule can use it."""
    cls.artifacts = ()
    module = getattr(cls, "module", None)
    given = (getattr(cls, "program", None) is not None
             or any(getattr(module, k, None) is not None for k in ARTIFACT_NAMES)
             or sibling_programs(cls.source.path) or str(cls.source.path) in CHECKED_PATHS)
    if given:
        for _name, check in ARTIFACT_CHECKERS.items():
            check(cls)
    return cls


class FileSource:
    """A file's bytes, digest and the line of each name (for messages); every way a file
    cannot be read is a :class:`TaskParameterError` saying what to give instead."""

    kind = ".py task file"

    def __init__(self, path: pathlib.Path):
        self.path = path
        try:
            if not path.is_file():  # a folder, or a device that never ends (/dev/zero)
                raise FileNotFoundError if not path.exists() else IsADirectoryError
            if path.stat().st_size > MAX_BYTES:
                raise TaskParameterError(f"task file {path} is {path.stat().st_size:,} bytes, "
                                         f"more than {MAX_BYTES:,}: not a task file")
            self.data = path.read_bytes()
        except FileNotFoundError:
            raise TaskParameterError(f"task file {path} does not exist; give the path of a "
                                     f"{self.kind} (see docs/extending.md)") from None
        except IsADirectoryError:
            raise TaskParameterError(f"task file {path} is not a regular file; give the path "
                                     f"of a {self.kind}") from None
        except OSError as exc:
            raise TaskParameterError(f"task file {path}: cannot read it ({exc.strerror})") from None
        self.digest = hashlib.sha256(self.data).hexdigest()
        self.lines: dict[str, int] = {}

    def at(self, name: str | None) -> str:
        line = self.lines.get(name) if name else None
        return f"{self.path}:{line}" if line else str(self.path)

    def error(self, name: str | None, message: str) -> TaskParameterError:
        return TaskParameterError(f"{self.at(name)}: {message}")


class ProgramSource(FileSource):
    """A program file: its text and the header lines (``// name:`` is NAME's line, ...)."""

    kind = ".py task file or .cr/.br program"

    def __init__(self, path: pathlib.Path):
        super().__init__(path)
        try:
            self.text = self.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TaskParameterError(f"{path}: the program is not UTF-8 text (byte "
                                     f"{exc.start + 1}); save it as UTF-8") from None
        self.header: dict[str, str] = {}
        for number, line in enumerate(self.text.splitlines(), 1):
            m = _HEADER.match(line)
            if m and m.group(1) not in self.header:
                key = {"name": "NAME", "alphabet": "ALPHABET", "lengths": "LENGTHS",
                       "description": "DESCRIPTION"}[m.group(1)]
                self.header[key] = m.group(2).strip()
                self.lines[key] = number


def _name(src: ProgramSource) -> str:
    name = src.header.get("NAME") or re.sub(r"[^A-Za-z0-9_\-]", "_", src.path.stem)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_\-]*", name):
        raise src.error("NAME", f"the task name {name!r} is not a word of letters, digits, _ "
                        "and -; add a line `// name: my_task` to the program")
    return name


def _lengths(src: ProgramSource) -> tuple[int, int]:
    if "LENGTHS" not in src.header:
        return DEFAULT_LENGTHS
    parts = src.header["LENGTHS"].replace(",", " ").split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise src.error("LENGTHS", f"`// lengths: {src.header['LENGTHS']}` must be two "
                        "integers, the shortest and the longest n (e.g. `// lengths: 1 30`)")
    lo, hi = int(parts[0]), int(parts[1])
    if lo < 1:
        raise src.error("LENGTHS", f"lengths start at {lo}; the shortest input has n >= 1")
    if lo > hi:
        raise src.error("LENGTHS", f"`// lengths: {lo} {hi}` is out of order; write "
                        f"`// lengths: {hi} {lo}` (shortest first)")
    return lo, hi


def _alphabet(src: ProgramSource, declared: tuple[str, ...] | None) -> tuple[str, ...]:
    header = tuple(src.header.get("ALPHABET", "").split()) or None
    if header is not None and declared is not None and header != tuple(declared):
        raise src.error("ALPHABET", f"`// alphabet: {' '.join(header)}` and the program's "
                        f"own alphabet ({' '.join(declared)}) differ; keep one")
    alphabet = header or (tuple(declared) if declared else None)
    if not alphabet:
        raise src.error(None, "the program declares no alphabet: add a line `// alphabet: a b "
                        "c` (every token of the input, also those the program never tests)")
    seen: set[str] = set()
    for tok in alphabet:
        if tok in seen:
            raise src.error("ALPHABET", f"token {tok!r} appears twice in the alphabet; keep "
                            "each token once")
        if tok == "<pad>" or tok == "<eos>":
            raise src.error("ALPHABET", f"{tok} is reserved; choose another token")
        seen.add(tok)
    return alphabet


def load_program_family(path: pathlib.Path) -> type:
    """The task family of a ``.cr``/``.br`` program file (see the module docstring)."""
    src = ProgramSource(path)
    language = LANGUAGES.get(path.suffix)
    try:
        loaded = language.load(src.text, str(path), tuple(src.header.get("ALPHABET", "").split())
                               or None)
    except ProgramError as exc:
        raise TaskParameterError(f"{exc}") from None
    alphabet = _alphabet(src, loaded.alphabet)
    name = _name(src)
    # a private module per definition: the class's __module__, and (by its name, which
    # holds the digest) part of what tasks.digest hashes
    module = types.ModuleType(f"_theorybench_task_{src.digest[:16]}")
    module.__file__ = str(path)
    sys.modules[module.__name__] = module

    def label(x):
        return loaded.accept(x, alphabet)

    def oracle(x):
        return loaded.naive(x, alphabet)

    description = src.header.get("DESCRIPTION") or next(
        (ln.strip()[2:].strip() for ln in src.text.splitlines()
         if ln.strip().startswith("//") and not _HEADER.match(ln) and ln.strip()[2:].strip()),
        f"the language of the {loaded.language} program {path.name}")
    return attach_artifacts(build_family(
        src, name, alphabet, _lengths(src), loaded.language, description, module=module,
        label=label, oracle=oracle, extra={"program": loaded.program,
                                           "fragment": loaded.fragment,
                                           "language": loaded.language}))


__all__ = ["LANGUAGES", "ARTIFACT_CHECKERS", "ARTIFACT_NAMES", "CHECKED_PATHS",
           "attach_artifacts",
           "sibling_programs", "Language", "LoadedProgram", "FileSource", "ProgramSource",
           "PROGRAM_SUFFIXES", "MAX_BYTES", "load_program_family"]
