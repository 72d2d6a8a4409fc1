"""Program text from files and from a package's shipped library, for every program language
(``.br`` B-RASP, ``.cr`` C-RASP): one loader, so both refuse the same things the same way.

A program file must be a regular file (not a directory, ``/dev/zero``, a FIFO or a socket:
those would block or read without end), at most :data:`MAX_PROGRAM_BYTES` long, and UTF-8
text. Every refusal is a :class:`ProgramError` naming the path and what to do.
:func:`program_lines` is the one reading of line structure (BOM, CRLF, U+2028) for both
parsers; :func:`variant_of` says when a program is checked against a task variant other
than the one its header (``// family:``, ``// requires:``) names.
"""

from __future__ import annotations

import os
import re
import stat
from importlib import resources
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .. import tasks
from ..errors import ProgramError, ProgramProblem, TaskParameterError

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


# ---- line structure ------------------------------------------------------------------------

#: Characters that ``str.splitlines`` breaks lines at but editors, grep, git and ``wc -l``
#: do not: counting them as line breaks puts every later line number off by one against
#: what the user sees, and one inside a ``//`` comment would hide the code after it.
ODD_BREAKS = {"\x0b": "a vertical tab (U+000B)", "\x1c": "a file separator (U+001C)",
              "\x1d": "a group separator (U+001D)", "\x1e": "a record separator (U+001E)",
              "\x85": "a next-line character (U+0085)",
              "\u2028": "a Unicode line separator (U+2028)",
              "\u2029": "a Unicode paragraph separator (U+2029)"}
_BREAK = re.compile(r"\r\n|\r|\n")
_ODD = re.compile("[" + "".join(ODD_BREAKS) + "]")
BOM = "\ufeff"


def program_lines(text: str) -> list[tuple[int, str, ProgramProblem | None]]:
    """``(line number, line, problem or None)`` for each line of program text: the one
    reading of line structure that both parsers use, so that line and column are those an
    editor shows.

    A byte-order mark at the start is dropped (Windows editors write one); ``\\n``,
    ``\\r\\n`` and a lone ``\\r`` each end a line (Python's universal newlines). The other
    characters of :data:`ODD_BREAKS` (U+2028, U+2029, U+0085, ...) are no line breaks: a line
    holding one gets a problem at its first such character, and the parser skips that line.
    A form feed stays whitespace inside a line, as in Python source."""
    if text.startswith(BOM):
        text = text[1:]
    lines = _BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the break that ends the last line starts no new one
    out = []
    for number, line in enumerate(lines, 1):
        m = _ODD.search(line)
        problem = None if m is None else ProgramProblem(
            f"{ODD_BREAKS[m.group()]} is not a line break in a program (editors and grep do "
            f"not break lines there); replace it by a newline or delete it", number,
            m.start() + 1)
        out.append((number, line, problem))
    return out


# ---- which task variant a library program is for -----------------------------------------

def task_values(family: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every parameter of ``family`` but n: ``params`` (CLI strings are coerced) over the
    family's defaults; TaskParameterError for a name the family does not have."""
    known = {p.name: p for p in tasks.family(family).params if p.name != "n"}
    values = {name: p.default for name, p in known.items()}
    for key, value in (params or {}).items():
        if key not in known:
            raise TaskParameterError(f"{family} has no parameter {key!r}; its parameters: "
                                     f"{', '.join(known) or 'none but n'}")
        values[key] = known[key].coerce(value)
    return values


def task_spelling(family: str, params: Mapping[str, Any] | None) -> str:
    """The task with every parameter value written out (``dyck:k=2``), so that a verdict
    names exactly what was checked; unset optional parameters (empty, None) are left out."""
    values = task_values(family, params)
    return family + "".join(f":{k}={v}" for k, v in values.items() if v not in ("", None))


def written_for(family: str, requires) -> str:
    """The task variant a library program's header names (``dyck:k=1``)."""
    return family + "".join(f":{k}={v}" for k, v in requires if v != "")


def variant_note(what: str, family: str, requires, task_family: str,
                 params: Mapping[str, Any] | None) -> str | None:
    """None when ``what`` (``library program dyck1``, ``program p.cr``), whose header names
    ``family`` and ``requires``, is written for the task asked; else a note saying for which
    variant it is written and that it is checked as written against the task asked."""
    values = task_values(task_family, params)
    if family == task_family and all(str(values.get(k)) == v for k, v in requires):
        return None
    written = written_for(family, requires)
    return (f"note: {what} is written for {written}, not for "
            f"{task_spelling(task_family, params)}; it is checked as written against the task "
            f"asked (give --task {written} for the task it is written for)")


_HEADER = re.compile(r"^\s*//\s*(family|requires)\s*:(.*)$")


def header(text: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """(family, requires) from a program's ``// family:`` and ``// requires: K=V ...``
    comment lines (the library's metadata, also read in a user's file); None without a
    family line."""
    meta = {}
    for _, line, _ in program_lines(text):
        m = _HEADER.match(line)
        if m:
            meta[m.group(1)] = m.group(2).strip()
    if not meta.get("family"):
        return None
    requires = tuple(tuple(kv.split("=", 1)) for kv in meta.get("requires", "").split()
                     if "=" in kv)
    return meta["family"], requires


def variant_of(name_or_path: str, library: Mapping[str, Any], command: str,
               task_family: str, params: Mapping[str, Any] | None) -> tuple[str | None, str]:
    """(note, verdict suffix) for checking a program against a task: the note of
    :func:`variant_note` when the program (a library entry, or a file with a ``// family:``
    header) is written for another variant than the task asked, else (None, "")."""
    name, path = resolve(name_or_path, library, command)
    if name is not None:
        entry = library[name]
        what, found = f"library program {name}", (entry.family, entry.requires)
    else:
        what, found = f"program {path}", header(read_program_text(path))
        if found is None:
            return None, ""
    note = variant_note(what, *found, task_family, params)
    return note, (f" (the program is written for {written_for(*found)})" if note else "")


def add_library_file(path: str | os.PathLike, library, make_entry: Callable[[str, str], Any],
                     check: Callable[[str, str], Any]):
    """Add a program file outside the package to a program ``library`` (after the shipped
    programs), under the family its ``// family:`` header names, with the path as its
    origin. ``make_entry(stem, text)`` builds the library entry; ``check(text, source)``
    parses (and validates) it now, so a mistake is reported here with line and column."""
    text = read_program_text(path)
    entry = make_entry(Path(path).stem, text)
    if not any(line.strip().startswith("// family:") for line in text.splitlines()):
        raise ProgramError([ProgramProblem(
            "a library program needs a `// family: TASK` header naming the task it decides", 1,
            1)], str(path))
    check(text, str(path))
    library.add(entry, entry.family, when=entry.applies_to, origin=str(path))
    return entry
