"""Resource guards shared by the executable models: a memory estimate checked before an
allocation, counts too large to print digit by digit, and progress on a terminal.

A request whose estimate passes :data:`MEMORY_BUDGET` is refused *before* anything is
allocated, with a :class:`ResourceLimitError` naming the size, the estimate and the option
that changes it. Set ``THEORYBENCH_MEMORY_BUDGET`` (bytes, or with a K/M/G suffix) to move
the budget on a larger machine.
"""

from __future__ import annotations

import math
import os
import sys
import time

from ..errors import ResourceLimitError


def _budget_from_env(default: int) -> int:
    text = os.environ.get("THEORYBENCH_MEMORY_BUDGET", "").strip().upper()
    if not text:
        return default
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
    try:
        value = int(float(text.rstrip("KMGTB") or "x") * scale)
    except ValueError:
        return default
    return value if value > 0 else default


#: Largest estimated allocation of one request (bytes); 2 GiB unless the environment says.
MEMORY_BUDGET = _budget_from_env(2 << 30)


def fmt_count(v: int) -> str:
    """An exact count for a human: ``1,048,576``; past 10^15 ``2^80`` or ``about 10^24``
    (never the digits of a huge int: Python refuses to print more than 4300 of them)."""
    v = int(v)
    if abs(v) < 10 ** 15:
        return f"{v:,}"
    if v > 0 and v & (v - 1) == 0:
        return f"2^{v.bit_length() - 1}"
    return f"about 10^{int(math.log10(abs(v)))}"  # math.log10 takes ints of any size


def fmt_bytes(n: float) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}" if n / size < 1e6 else f"{fmt_count(int(n // size))} {unit}"
    return f"{int(n)} bytes"


def check_memory(nbytes: int | float, what: str, fix: str, budget: int | None = None) -> None:
    """Refuse ``what`` (e.g. "--samples 10^12 at n=64") when its estimate ``nbytes`` passes
    the budget; ``fix`` says which option to change."""
    budget = MEMORY_BUDGET if budget is None else budget
    if nbytes > budget:
        raise ResourceLimitError(
            f"{what} needs about {fmt_bytes(nbytes)} of memory, above the budget of "
            f"{fmt_bytes(budget)}; {fix} (or set THEORYBENCH_MEMORY_BUDGET on a larger "
            f"machine)")


class Progress:
    """``with Progress(total, "sensitivity") as p: ... p.update(done, note)``: a one-line
    progress bar on stderr, drawn only when stderr is a terminal and at most twice a second;
    silent in pipes, files and tests."""

    def __init__(self, total: int, label: str, stream=None, min_interval: float = 0.5):
        self.total, self.label = max(int(total), 1), label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.min_interval, self._last, self._start, self._drawn = min_interval, 0.0, time.time(), False

    def __enter__(self) -> "Progress":
        return self

    def update(self, done: int, note: str = "") -> None:
        if not self.enabled:
            return
        now = time.time()
        if now - self._last < self.min_interval and done < self.total:
            return
        self._last = now
        frac = min(max(done / self.total, 0.0), 1.0)
        bar = "#" * int(frac * 24)
        elapsed = now - self._start
        eta = f", ~{elapsed / frac - elapsed:.0f}s left" if 0 < frac < 1 and elapsed > 2 else ""
        self.stream.write(f"\r{self.label} [{bar:<24}] {done}/{self.total}{eta} {note}"[:120]
                          .ljust(80))
        self.stream.flush()
        self._drawn = True

    def __exit__(self, *exc) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()
