"""Output files that cannot destroy data: a guard run before any work, and atomic writes.

Every command that writes a file calls :func:`check_output` first (before it computes
anything) and writes through :func:`atomic_write` or :func:`atomic_path`:

- an output that is one of the command's own inputs (the same path, a symbolic link to it,
  or a hard link: the same inode) is refused, and so is an existing file of another kind
  (a results store, a checkpoint, a program, a task file), unless the user passes
  ``--force``; a folder where a file is expected is always refused;
- the bytes go to a temporary file in the output's own folder and are renamed over the
  target when complete (``os.replace`` is atomic within one file system), so a crash or
  an interrupt leaves either the old file or the new one, never a torn one.

A leaf module beside :mod:`.errors`: any layer may import it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Union

from .errors import ConfigError

PathLike = Union[str, "os.PathLike[str]"]

#: Kinds of existing file that an output of another kind never replaces without --force.
STORE, CHECKPOINT, PROGRAM, TASK_FILE = "results store", "checkpoint", "program", "task file"
#: Kinds of output that replace nothing worth protecting when they meet their own kind.
TEXT, IMAGE = "text file", "image"

_SQLITE = b"SQLite format 3\x00"
_ZIP = b"PK\x03\x04"  # torch.save's format since 1.6 (a zip archive)
_PROGRAM_SUFFIXES = {".cr": PROGRAM, ".br": PROGRAM, ".py": TASK_FILE}


def sniff(path: PathLike) -> str | None:
    """The protected kind of an existing regular file, or None (nothing to protect, or not
    a regular file): a results store by its SQLite header, a checkpoint by torch's zip or
    pickle header, a program or a task file by its suffix (.cr, .br; .py)."""
    p = Path(path)
    try:
        if not p.is_file():
            return None
        with open(p, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return None
    if head.startswith(_SQLITE):
        return STORE
    # pickle protocols 2..5 start with PROTO (0x80) and the protocol number (legacy torch.save)
    if head.startswith(_ZIP) or (len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5):
        return CHECKPOINT
    return _PROGRAM_SUFFIXES.get(p.suffix.lower())


def _inputs(inputs) -> Iterator[tuple[str, str]]:
    for item in inputs or ():
        label, value = item if isinstance(item, tuple) else ("input", item)
        if value is not None and str(value).strip():
            yield label, str(value)


def same_input(path: PathLike, inputs: Iterable) -> tuple[str, str] | None:
    """The first of ``inputs`` (paths or ``(label, path)``) that is the file ``path``, as
    ``(label, input path)``, or None."""
    text = os.fspath(path)
    return next(((label, other) for label, other in _inputs(inputs) if _same(text, other)),
                None)


def _same(out: str, other: str) -> bool:
    """The same file: one resolved path (links followed) or, both existing, one inode."""
    if os.path.realpath(out) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(out, other)
    except (OSError, ValueError):
        return False


def check_output(path: PathLike, inputs: Iterable = (), force: bool = False,
                 kind: str = TEXT, what: str = "--out") -> Path:
    """Refuse an output path before any work; returns it as a Path.

    ``inputs``: the command's input paths, each a path or ``(label, path)`` (e.g.
    ``("--db", db)``); ``kind``: what will be written (:data:`TEXT`, :data:`IMAGE`,
    :data:`CHECKPOINT`, ...); ``what``: the option named in messages. Raises
    :class:`ConfigError` when the path is empty, a folder, in a folder that does not
    exist, one of ``inputs``, or (unless ``force``) an existing file of a protected kind
    other than ``kind``. A device or pipe (``/dev/null``, ``/dev/stdout``) is allowed:
    it is written in place, as there is nothing in it to lose."""
    text = os.fspath(path) if not isinstance(path, str) else path
    if not text.strip():
        raise ConfigError(f"{what} is empty; give a file path")
    if "\x00" in text:
        raise ConfigError(f"{what} {text!r} contains a NUL byte; give a file path")
    p = Path(text)
    if _in_place(p):
        return p
    if p.is_dir():
        raise ConfigError(f"{what} {text} is a folder; give a file path (e.g. "
                          f"{p / ('output' + (_default_suffix(kind)))})")
    parent = Path(os.path.realpath(p)).parent
    if not parent.is_dir():
        why = "is a file, not a folder" if parent.exists() else "does not exist (create it first)"
        raise ConfigError(f"{what} {text} cannot be written: {p.parent} {why}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} {text} cannot be written: no permission to create files in "
                          f"{parent}")
    fix = f"choose another {what} or pass --force"
    hit = same_input(text, inputs)
    if hit and not force:
        label, other = hit
        same = "is" if os.path.realpath(text) == os.path.realpath(other) else "is a link to"
        raise ConfigError(f"{what} {text} {same} {label} {other}, which this command "
                          f"reads: writing the output there would replace it; {fix}")
    found = sniff(p)
    if found and found != kind and not force:
        raise ConfigError(f"{what} {text} is an existing {found}; writing a {kind} there "
                          f"would replace it; {fix} (to overwrite it)")
    return p


def _default_suffix(kind: str) -> str:
    return {IMAGE: ".png", CHECKPOINT: ".pt", STORE: ".sqlite"}.get(kind, ".txt")


def in_folder(path: PathLike, default_name: str) -> Path:
    """``path``, or the file ``default_name`` inside it when ``path`` is an existing folder
    (``--plot figures/`` writes ``figures/<default_name>``). A blank path is returned as
    it is, for :func:`check_output` to refuse (``Path("")`` would be the current folder)."""
    if not str(path).strip():
        return path
    p = Path(path)
    return p / default_name if p.is_dir() else p


def _in_place(path: PathLike) -> bool:
    """A device or a pipe, also through a link, or a name under /dev or /proc: written in
    place, not renamed over (``/dev/stdout`` resolves to ``pipe:[...]``, or to the file the
    shell redirected to, which a rename would detach from the process's other output)."""
    text = os.fspath(path)
    if not os.path.exists(text) or os.path.isdir(text):
        return False
    return not os.path.isfile(text) or os.path.abspath(text).startswith(("/dev/", "/proc/"))


_STD_FDS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def _open_in_place(path: PathLike, mode: str, encoding: str | None = None):
    """A file object on a device or pipe. ``/dev/stdout``, ``/dev/stderr`` and
    ``/dev/fd/N`` write through the process's own descriptor, so that the output lands
    after what the process and the shell already wrote there (reopening the name would
    start at offset 0 of a redirected file, and "w" would truncate it)."""
    import sys
    text = os.path.abspath(os.fspath(path))
    fd = _STD_FDS.get(text)
    for prefix in ("/dev/fd/", "/proc/self/fd/"):
        if text.startswith(prefix) and text[len(prefix):].isdigit():
            fd = int(text[len(prefix):])
    if fd is None:
        return open(path, mode.replace("w", "a"), encoding=encoding)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    return os.fdopen(os.dup(fd), mode, encoding=encoding)


def _mode_for(target: Path) -> int:
    """The new file's permissions: the old file's, else what ``open`` gives under the umask."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """A temporary path in ``path``'s folder for a writer that takes a path (matplotlib's
    ``savefig``, ``torch.save``, sqlite); renamed over ``path`` when the block ends without
    an exception, removed otherwise. A symbolic link is followed (its target is replaced, the
    link kept); a device or pipe is yielded as is. The temporary name keeps the suffix."""
    if _in_place(path):
        yield Path(path)
        return
    target = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}",
                               dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, _mode_for(target))
        with open(tmp, "rb+") as fh:  # on disk before the rename makes it visible
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write(path: PathLike, data: str | bytes, encoding: str = "utf-8") -> Path:
    """Write ``data`` (text in ``encoding``, or bytes) to ``path`` atomically; returns it."""
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    if _in_place(path):
        with _open_in_place(path, "wb") as fh:
            fh.write(raw)
        return Path(path)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(raw)
    return Path(path)


@contextmanager
def atomic_open(path: PathLike, mode: str = "w", encoding: str | None = "utf-8"):
    """A file object writing to a temporary file, renamed over ``path`` on success (for
    writers that stream, e.g. JSON lines)."""
    if "b" in mode:
        encoding = None
    if _in_place(path):
        with _open_in_place(path, mode, encoding) as fh:
            yield fh
        return
    with atomic_path(path) as tmp:
        with open(tmp, mode, encoding=encoding) as fh:
            yield fh
