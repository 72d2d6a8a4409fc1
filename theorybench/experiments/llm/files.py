"""Reading the llm line's JSON data files (prompt templates, model lists) with errors that
name the file, the line and column, and the option to change."""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import ConfigError

#: Largest data file read (prompt and model files are a few kilobytes).
MAX_BYTES = 1 << 22


def read_document(path: Path, kind: str, fmt: str, option: str) -> tuple[str, dict]:
    """(text, parsed object) of a ``kind`` file whose ``"format"`` must be ``fmt``."""
    path = Path(path)
    if "\x00" in str(path):
        raise ConfigError(f"{kind} file {str(path)!r} is not a valid path (a NUL byte); "
                          f"pass a JSON file to {option}")
    if path.exists() and not path.is_file():  # a directory, a device, a FIFO
        raise ConfigError(f"{kind} file {path} is not a regular file; pass a JSON file "
                          f"to {option}")
    if path.exists() and path.stat().st_size > MAX_BYTES:
        raise ConfigError(f"{kind} file {path} is larger than {MAX_BYTES:,} bytes; "
                          f"pass the JSON file to {option}")
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise ConfigError(f"{kind} file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{kind} file {path} cannot be read ({exc.strerror or exc}); "
                          f"pass an existing file to {option}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{kind} file {path}:{exc.lineno}:{exc.colno}: not valid JSON "
                          f"({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise ConfigError(f"{kind} file {path}: expected a JSON object with "
                          f"\"format\": \"{fmt}\"")
    return text, data
