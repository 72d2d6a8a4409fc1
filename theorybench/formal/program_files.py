"""Program text from files and from a package's shipped library, for every program language
(``.br`` B-RASP, ``.cr`` C-RASP): one loader, so both refuse the same things the same way.

A program file must be a regular file (not a directory, ``/dev/zero``, a FIFO or a socket:
those would block or read without end), at most :data:`MAX_PROGRAM_BYTES` long, and UTF-8
text. Every refusal is a :class:`ProgramError` naming the path and what to do.
"""

from __future__ import annotations

import os
import stat
from importlib import resources
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..errors import ProgramError, ProgramProblem

#: Largest program file read (bytes). The shipped programs are under 4 KiB; a limit keeps a
#: mistaken path (a data file, a log) from being parsed for minutes.
MAX_PROGRAM_BYTES = 1 << 20


def _refuse(path, message: str) -> ProgramError:
    return ProgramError([ProgramProblem(message)], str(path))


def read_program_text(path: str | os.PathLike, limit: int | None = None) -> str:
    """The text of a program file, checked before it is read (see the module docstring);
    ``limit`` defaults to :data:`MAX_PROGRAM_BYTES`."""
    limit = MAX_PROGRAM_BYTES if limit is None else limit
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise _refuse(p, f"cannot read the program file: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise _refuse(p, "is a directory, not a program file; give a program file")
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(p, "is not a regular file (a device, FIFO or socket); give a program "
                         "file")
    if st.st_size > limit:
        raise _refuse(p, f"the program file has {st.st_size:,} bytes, above the limit of "
                         f"{limit:,} bytes for a program; is this the program you meant?")
    try:
        with open(p, "rb") as fh:
            data = fh.read(limit + 1)  # the file may have grown since stat
    except OSError as exc:
        raise _refuse(p, f"cannot read the program file: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise _refuse(p, f"the program file is longer than the limit of {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refuse(p, f"the program file is not UTF-8 text (byte {exc.start + 1})") from None


def library_texts(package: str, suffix: str) -> dict[str, str]:
    """``{stem: text}`` of the ``library/*SUFFIX`` files shipped in ``package``, by name."""
    root = resources.files(package) / "library"
    return {f.name[:-len(suffix)]: f.read_text(encoding="utf-8")
            for f in sorted(root.iterdir(), key=lambda f: f.name) if f.name.endswith(suffix)}


@dataclass(frozen=True)
class Recipe:
    """A program generated from the task instance (e.g. for any hidden set S), an artifact of
    a program library beside the shipped files: ``instantiate(task)`` builds it and
    ``name_for(task)`` names it (the library files answer the same two calls)."""

    name: str
    make: Callable[[Any], Any]
    label: Callable[[Any], str] | None = None
    description: str = ""

    @property
    def source(self) -> str:
        return f"generated:{self.name}"

    def instantiate(self, task) -> Any:
        return self.make(task)

    def name_for(self, task) -> str:
        return self.label(task) if self.label is not None else self.name


def resolve(name_or_path: str, library: Mapping[str, object], command: str
            ) -> tuple[str | None, Path | None]:
    """(library name, None) when ``name_or_path`` names a library program and no file of
    that name exists, else (None, path) of an existing file; neither -> ProgramError that
    lists the library (``command`` is the list command to suggest)."""
    path = Path(name_or_path)
    if name_or_path in library and not path.exists():
        return name_or_path, None
    if not path.exists() and not path.is_symlink():
        raise ProgramError([ProgramProblem(
            f"no such file, and not a library program; library programs: "
            f"{', '.join(library)} (see `{command}`)")], name_or_path)
    return None, path


def load_text(name_or_path: str, library: Mapping[str, object], text_of: Callable[[object], str],
              command: str) -> tuple[str, str]:
    """(text, source name) of a library program or a program file (for linting)."""
    name, path = resolve(name_or_path, library, command)
    if name is not None:
        return text_of(library[name]), f"library:{name}"
    return read_program_text(path), str(path)


#: Deepest nesting of one expression (parentheses, brackets and prefix ``!``): the parsers
#: and interpreters walk expressions recursively, so a limit keeps them far from Python's.
MAX_NESTING = 100
#: Most digits of one integer literal (Python converts at most 4300 digits to int).
MAX_LITERAL_DIGITS = 1000


def line_problem(line: str, line_no: int) -> ProgramProblem | None:
    """The first size problem of one program line, located, before it is parsed: nesting
    deeper than :data:`MAX_NESTING` or an integer literal longer than
    :data:`MAX_LITERAL_DIGITS` digits. Token literals in double quotes are skipped."""
    depth = bangs = digits = 0
    quoted = False
    for col, ch in enumerate(line, 1):
        if ch == '"':
            quoted = not quoted
            bangs = digits = 0
            continue
        if quoted:
            continue
        if ch.isdigit():
            digits += 1
            if digits > MAX_LITERAL_DIGITS:
                return ProgramProblem(
                    f"an integer literal longer than {MAX_LITERAL_DIGITS} digits; no count or "
                    f"position of a run needs one", line_no, col - digits + 1)
            continue
        digits = 0
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        if ch == "!" and not line.startswith("=", col):
            bangs += 1
        elif not ch.isspace() and ch not in "([":
            bangs = 0
        if depth + bangs > MAX_NESTING:
            return ProgramProblem(
                f"expression nested more than {MAX_NESTING} levels deep (parentheses, "
                f"brackets and prefix !); name the inner parts as definitions", line_no, col)
    return None


def too_deep(line_no: int) -> ProgramProblem:
    """The problem for a line whose expression tree is too deep to walk (a long chain of
    operators, e.g. ``a && a && ...`` thousands of times)."""
    return ProgramProblem("expression too deeply nested to evaluate (a very long chain of "
                          "operators?); name its parts as definitions", line_no, 1)
