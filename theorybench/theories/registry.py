"""The theories of the matrix, in column order (the registry idiom of
:mod:`theorybench.registry`).

``THEORY_MODULES`` names each shipped theory module once, in column order, and each module
lists its classes in its own ``THEORIES`` tuple; the modules are imported on the first
lookup, so a command that needs no theory does not pay for loading them. Another theory
(a user's module) is added with ``@THEORY_REGISTRY.register``; it becomes the last column.
"""

from __future__ import annotations

import importlib

from ..errors import TheoryError
from ..registry import BUILTIN, Registry
from .base import Theory

#: One module per theory, in matrix column order.
THEORY_MODULES = ("star_free", "ac0", "tc0", "crasp", "mpc", "bapo", "sensitivity")


def _check(name: str, cls: type[Theory]) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Theory)):
        raise TheoryError(f"{cls!r} is not a Theory subclass; a theory subclasses "
                          f"theorybench.theories.base.Theory")


def _columns() -> tuple[str, ...]:
    """Import the shipped theory modules and register their ``THEORIES`` in column order
    (before anything a user registers, whatever imported first)."""
    user = THEORY_REGISTRY.items()
    for name, _ in user:
        THEORY_REGISTRY.unregister(name)
    for mod in THEORY_MODULES:
        for cls in importlib.import_module(f"{__package__}.{mod}").THEORIES:
            if not cls.name or cls.name in THEORY_REGISTRY._items:
                raise TheoryError(f"theory class {cls.__name__} has no name or a duplicate one")
            THEORY_REGISTRY.register(cls, origin=BUILTIN)
    for name, cls in user:
        THEORY_REGISTRY.register(cls, name=name)
    return ()


#: Every theory class by name, in column order.
THEORY_REGISTRY: Registry[type[Theory]] = Registry("theory", _columns, error=TheoryError,
                                                   plural="theories", check=_check)


def theories() -> dict[str, type[Theory]]:
    """Every theory class by name, in column order."""
    return THEORY_REGISTRY.as_dict()


def theory(name: str) -> Theory:
    return THEORY_REGISTRY.get(name)()
