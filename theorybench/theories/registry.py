"""The theories of the matrix, in column order.

The registry is explicit: ``THEORY_MODULES`` names each theory module once, in column
order, and each module lists its classes in its own ``THEORIES`` tuple. Modules are
imported on first use, so a command that needs no theory does not pay for loading them.
"""

from __future__ import annotations

import importlib

from ..errors import TheoryError
from .base import Theory

#: One module per theory, in matrix column order.
THEORY_MODULES = ("star_free", "ac0", "tc0", "crasp", "mpc", "bapo", "sensitivity")


def theories() -> dict[str, type[Theory]]:
    """Every theory class by name, in column order."""
    out: dict[str, type[Theory]] = {}
    for mod in THEORY_MODULES:
        for cls in importlib.import_module(f"{__package__}.{mod}").THEORIES:
            if not cls.name or cls.name in out:
                raise TheoryError(f"theory class {cls.__name__} has no name or a duplicate one")
            out[cls.name] = cls
    return out


def theory(name: str) -> Theory:
    reg = theories()
    if name not in reg:
        raise TheoryError(f"unknown theory {name!r}; known theories: {', '.join(reg) or '(none)'}")
    return reg[name]()
