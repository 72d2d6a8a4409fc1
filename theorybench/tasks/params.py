"""Declared task parameters: type, default, valid range, meaning, and how to list them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TaskParameterError


@dataclass(frozen=True)
class Param:
    """A declared task parameter: its type, default, valid range and meaning."""

    name: str
    type: type
    default: Any
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple | None = None
    #: How listings show the default when its literal value says little (e.g. "first k").
    shown: str = ""
    #: A constraint beyond the range, for listings (e.g. "odd", "even", "k<n").
    note: str = ""

    def coerce(self, value: Any) -> Any:
        """Convert ``value`` (possibly a CLI string) to this parameter's type, or raise."""
        if self.type is int:
            if isinstance(value, bool):
                raise self._bad(value, "an integer")
            if isinstance(value, (int, np.integer)):
                value = int(value)
            elif isinstance(value, float) and value.is_integer():
                value = int(value)
            elif isinstance(value, str):
                try:
                    value = int(value.strip())
                except ValueError:
                    raise self._bad(value, "an integer") from None
            else:
                raise self._bad(value, "an integer")
            if self.minimum is not None and value < self.minimum:
                raise TaskParameterError(
                    f"parameter {self.name}={value} is too small: it must be >= {self.minimum}"
                    f" ({self.doc})")
            if self.maximum is not None and value > self.maximum:
                raise TaskParameterError(
                    f"parameter {self.name}={value} is too large: it must be <= {self.maximum}"
                    f" ({self.doc})")
        elif self.type is bool:
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    value = True
                elif low in ("0", "false", "no", "off"):
                    value = False
                else:
                    raise self._bad(value, "true or false")
            elif not isinstance(value, (bool, np.bool_)):
                raise self._bad(value, "true or false")
            value = bool(value)
        elif self.type is str:
            if not isinstance(value, str):
                raise self._bad(value, "a string")
        if self.choices is not None and value not in self.choices:
            raise TaskParameterError(
                f"parameter {self.name}={value!r} is not one of {', '.join(map(repr, self.choices))}")
        return value

    def _bad(self, value: Any, what: str) -> TaskParameterError:
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            what += f" (valid: {lo} <= {self.name} <= {hi})"
        elif lo is not None:
            what += f" (valid: {self.name} >= {lo})"
        return TaskParameterError(f"parameter {self.name}={value!r} is not {what}: {self.doc}")

    def describe(self) -> str:
        """``name=default (range, note)`` for listings, e.g. ``n=15 (1<=n<=65536, odd)``."""
        parts = []
        if self.choices:
            parts.append("in {" + ",".join(map(str, self.choices)) + "}")
        elif self.minimum is not None or self.maximum is not None:
            lo = "" if self.minimum is None else f"{self.minimum}<="
            hi = "" if self.maximum is None else f"<={self.maximum}"
            parts.append(f"{lo}{self.name}{hi}")
        if self.note:
            parts.append(self.note)
        default = self.shown or str(self.default)
        return f"{self.name}={default}" + (f" ({', '.join(parts)})" if parts else "")
