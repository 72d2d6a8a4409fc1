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
from . import user as user_files
from .base import Theory

#: One module per theory, in matrix column order.
THEORY_MODULES = ("star_free", "ac0", "tc0", "crasp", "mpc", "bapo", "sensitivity", "huang_lg")


def _check(name: str, cls: type[Theory]) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Theory)):
        raise TheoryError(f"{cls!r} is not a Theory subclass; a theory subclasses "
                          f"theorybench.theories.base.Theory")


def _columns() -> tuple[str, ...]:
    """Import the shipped theory modules and register their ``THEORIES`` in column order
    (before anything a user registers, whatever imported first)."""
    user = THEORY_REGISTRY.items()
    origins = {name: THEORY_REGISTRY._origins.get(name) for name, _ in user}
    for name, _ in user:
        THEORY_REGISTRY.unregister(name)
    for mod in THEORY_MODULES:
        for cls in importlib.import_module(f"{__package__}.{mod}").THEORIES:
            if not cls.name or cls.name in THEORY_REGISTRY._items:
                raise TheoryError(f"theory class {cls.__name__} has no name or a duplicate one")
            THEORY_REGISTRY.register(cls, origin=BUILTIN)
    for name, cls in user:
        THEORY_REGISTRY.register(cls, name=name, origin=origins[name])
    user_files.load_external(THEORY_REGISTRY)  # THEORYBENCH_THEORIES, entry points
    return ()


#: Every theory class by name, in column order.
THEORY_REGISTRY: Registry[type[Theory]] = Registry("theory", _columns, error=TheoryError,
                                                   plural="theories", check=_check)


def theories() -> dict[str, type[Theory]]:
    """Every theory class by name, in column order."""
    return THEORY_REGISTRY.as_dict()


def shipped_theories() -> list[str]:
    """The names of the theories theorybench ships, in column order."""
    return [n for n in THEORY_REGISTRY.names() if THEORY_REGISTRY.origin(n) == BUILTIN]


def theory(name: str) -> Theory:
    """A theory by name, or the one theory of a theory file (``./mine.py``)."""
    names = resolve_names([name])
    if len(names) != 1:
        raise TheoryError(f"{name} defines {len(names)} theories ({', '.join(names)}); name "
                          "one of them")
    return THEORY_REGISTRY.get(names[0])()


def selection(names) -> list[str] | None:
    """The theories a command's ``--theory`` / arguments select: None (every registered
    theory) when none is given; names alone select just those; a theory file adds its
    theories beside every shipped one (a new column is scored against the others)."""
    names = [n for n in (names or []) if str(n).strip()]
    if not names:
        return None
    out = resolve_names(names)
    if any(user_files.is_theory_file(n) for n in names):
        out = list(dict.fromkeys(shipped_theories() + out))
    return out


def resolve_names(names) -> list[str]:
    """Theory names as given, each theory file (a name ending in ``.py``) loaded and
    replaced by the names of the theories it defines; unknown names are left for the
    caller to refuse."""
    out: list[str] = []
    for n in names:
        if user_files.is_theory_file(n):
            THEORY_REGISTRY.names()   # the shipped theories first: a file may not shadow them
            out += user_files.register_file(n, THEORY_REGISTRY)
        else:
            out.append(n)
    return list(dict.fromkeys(out))
