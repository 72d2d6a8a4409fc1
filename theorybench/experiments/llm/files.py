"""Reading the llm line's JSON data files (prompt templates, model lists) with errors that
name the file, the line and column, and the option to change."""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import ConfigError


def read_document(path: Path, kind: str, fmt: str, option: str) -> tuple[str, dict]:
    """(text, parsed object) of a ``kind`` file whose ``"format"`` must be ``fmt``."""
    try:
        text = Path(path).read_text()
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
