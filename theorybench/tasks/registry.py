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
from ..registry import Registry, did_you_mean
from .base import Param, Task

KINDS = ("boolean", "retrieval", "sparse", "arithmetic", "graphs", "dyck")


def _family_modules() -> list[str]:
    """Every family module: each kind is a subpackage of ``tasks``, and a file there is
    a family (adding a task is adding one file, see docs/extending.md)."""
    out = []
    for kind in KINDS:
        pkg = importlib.import_module(f"{__package__}.{kind}")
        out.extend(f"{pkg.__name__}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__))
    return out


def _check(name: str, cls: type[Task]) -> None:
    if cls.kind not in KINDS:
        raise TypeError(f"{cls.__name__} needs a name and a kind in {KINDS}")


#: The task families by name (the one registry of the idiom in :mod:`theorybench.registry`).
FAMILIES: Registry[type[Task]] = Registry("task", _family_modules, error=TaskParameterError,
                                          check=_check)
# Read by code that still looks families up by hand (theories/runner.py, theories/base.py);
# the same dict object the registry fills.
_FAMILIES: dict[str, type[Task]] = FAMILIES._items


def register(cls: type[Task]) -> type[Task]:
    """Class decorator: add a task family to the registry under ``cls.name``."""
    if not cls.name or cls.kind not in KINDS:
        raise TypeError(f"{cls.__name__} needs a name and a kind in {KINDS}")
    return FAMILIES.register(cls, name=cls.name)


def families() -> dict[str, type[Task]]:
    """All registered families by name, in suite order (by kind, then name)."""
    order = {k: i for i, k in enumerate(KINDS)}
    return dict(sorted(FAMILIES.items(),
                       key=lambda kv: (order[kv[1].kind], kv[1].order, kv[0])))


def family(name: str) -> type[Task]:
    if name not in FAMILIES:
        fams = families()
        raise TaskParameterError(
            f"unknown task {name!r}{did_you_mean(name, fams)}; known tasks: {', '.join(fams)}")
    return FAMILIES.get(name)


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
