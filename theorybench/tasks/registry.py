"""The registry of task families: name -> class, filled by ``@register`` in each family file.

``families()`` lists them in suite order; ``grid(name)`` / ``grids()`` give each family's
parameter grid for later code: its parameters, which n are valid (``valid_ns``), the
default n lists for theory analysis and for training, and the parameter variants the suite
studies (``points()``, one parameter dict per combination).
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
from dataclasses import dataclass
from typing import Any

from ..errors import TaskParameterError
from .base import Param, Task

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


@dataclass(frozen=True)
class Grid:
    """The parameter grid of one family (a view of its class attributes)."""

    family: type[Task]

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def params(self) -> tuple[Param, ...]:
        return self.family.params

    @property
    def analysis_ns(self) -> tuple[int, ...]:
        """Default n list for theory analysis (exact enumeration fits at these n)."""
        return tuple(self.family.analysis_ns)

    @property
    def train_ns(self) -> tuple[int, ...]:
        """Default n list for training experiments."""
        return tuple(self.family.train_ns)

    @property
    def distributions(self) -> tuple[str, ...]:
        return tuple(self.family.distributions)

    def valid_ns(self, lo: int | None = None, hi: int | None = None, **params: Any) -> list[int]:
        """Every valid n in [lo, hi] with the other parameters ``params`` (see
        :meth:`Task.valid_ns`)."""
        return self.family.valid_ns(lo, hi, **params)

    def is_valid(self, **params: Any) -> bool:
        return self.family.accepts(**params)

    def points(self) -> list[dict[str, Any]]:
        """Parameter dicts (without n) of the variants the suite studies: the product of
        the family's ``variants``; ``[{}]`` when it has none."""
        variants = dict(self.family.variants)
        keys = list(variants)
        return [dict(zip(keys, combo)) for combo in itertools.product(*variants.values())]


def grid(name: str) -> Grid:
    """The parameter grid of family ``name`` (:class:`TaskParameterError` if unknown)."""
    return Grid(family(name))


def grids() -> dict[str, Grid]:
    """Every family's grid, in suite order."""
    return {name: Grid(cls) for name, cls in families().items()}
