"""The registry of task families: name -> class, filled by ``@register`` in each family file."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from ..errors import TaskParameterError
from .base import Task

KINDS = ("boolean", "retrieval", "sparse", "arithmetic", "graphs", "dyck")
_FAMILIES: dict[str, type[Task]] = {}
_loaded = False


def register(cls: type[Task]) -> type[Task]:
    """Class decorator: add a task family to the registry under ``cls.name``."""
    if not cls.name or cls.kind not in KINDS:
        raise TypeError(f"{cls.__name__} needs a name and a kind in {KINDS}")
    if cls.name in _FAMILIES and _FAMILIES[cls.name] is not cls:
        raise TypeError(f"task family {cls.name!r} registered twice")
    _FAMILIES[cls.name] = cls
    return cls


def _load() -> None:
    """Import every family module once (each kind is a subpackage of ``tasks``)."""
    global _loaded
    if _loaded:
        return
    for kind in KINDS:
        pkg = importlib.import_module(f"{__package__}.{kind}")
        for info in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{info.name}")
    _loaded = True


def families() -> dict[str, type[Task]]:
    """All registered families by name, in suite order (by kind, then name)."""
    _load()
    order = {k: i for i, k in enumerate(KINDS)}
    return dict(sorted(_FAMILIES.items(), key=lambda kv: (order[kv[1].kind], kv[1].order, kv[0])))


def family(name: str) -> type[Task]:
    fams = families()
    if name not in fams:
        import difflib
        close = difflib.get_close_matches(name, fams, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise TaskParameterError(
            f"unknown task {name!r}{hint}; known tasks: {', '.join(fams)}")
    return fams[name]


def get(name: str, **params: Any) -> Task:
    """A task instance with validated parameters, e.g. ``get("majority", n=15)``."""
    return family(name)(**params)
