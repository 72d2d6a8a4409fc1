"""The registry of task families: name -> class, filled by ``@register`` in each family file.

``families()`` lists them in suite order; ``grid(name)`` / ``grids()`` give each family's
parameter grid for later code: its parameters, which n are valid (``valid_ns``), the
default n lists for theory analysis and for training, and the parameter variants the suite
studies (``points()``, one parameter dict per combination).
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import os
import pathlib
import pkgutil
import sys
from dataclasses import dataclass
from importlib import metadata  # noqa: F401 (tests patch registry.metadata)
from typing import Any

from ..errors import ConfigError, TaskParameterError
from ..registry import BUILTIN, Registry, did_you_mean, entry_point_items
from .base import Param, Task
from .user import MAX_BYTES, USER_KIND, load_family, resolve_path
from .user_program import PROGRAM_SUFFIXES

KINDS = ("boolean", "retrieval", "sparse", "arithmetic", "graphs", "dyck")


def _family_modules() -> list[str]:
    """Every family module: each kind is a subpackage of ``tasks``, and a file there is
    a family (adding a task is adding one file, see docs/extending.md)."""
    out = []
    for kind in KINDS:
        pkg = importlib.import_module(f"{__package__}.{kind}")
        out.extend(f"{pkg.__name__}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__))
    return out


def _load_all() -> tuple[str, ...]:
    """The built-in families, then the task files of ``THEORYBENCH_TASKS`` and the
    ``theorybench.tasks`` entry points (after the built-ins, which they may not shadow)."""
    for module in _family_modules():
        importlib.import_module(module)
    load_external()
    return ()


def _check(name: str, cls: type[Task]) -> None:
    if cls.kind not in KINDS and cls.kind != USER_KIND:
        raise TypeError(f"{cls.__name__} needs a name and a kind in {KINDS}")


#: The task families by name (the one registry of the idiom in :mod:`theorybench.registry`).
FAMILIES: Registry[type[Task]] = Registry("task", _load_all, error=TaskParameterError,
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
    order = {k: i for i, k in enumerate(KINDS + (USER_KIND,))}
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


# ---- task files (docs/extending.md, "Bring your own task") ------------------------------

#: The environment variable naming task files and folders of task files (os.pathsep apart).
ENV = "THEORYBENCH_TASKS"
#: The entry-point group of a package of tasks.
ENTRY_POINTS = "theorybench.tasks"


def load_task_file(path: str | os.PathLike, export: bool = True) -> type[Task]:
    """Load a task file and register its family (origin: the file's path); the same file
    loaded again is the same class. A name of a built-in family, or of another file's, is
    refused; the same file edited since it was loaded replaces its old family.

    ``export``: add the file to :data:`ENV` in this process's environment, so that pool
    workers (spawned processes) load the same file when their registry loads."""
    resolved = resolve_path(path)
    FAMILIES._lazy.load()  # the built-ins first: a file may not shadow them
    try:
        digest = hashlib.sha256(resolved.read_bytes()).hexdigest() if resolved.is_file() \
            and resolved.stat().st_size <= MAX_BYTES else None
    except OSError:
        digest = None  # load_family says why
    known = [c for c in FAMILIES._items.values() if digest and getattr(c, "origin", None)
             == str(resolved) and getattr(c, "definition_digest", None) == digest]
    cls = known[0] if known else _register_file(load_family(resolved))
    if export:
        listed = [p for p in os.environ.get(ENV, "").split(os.pathsep) if p]
        if str(resolved) not in listed and str(resolved.parent) not in listed:
            os.environ[ENV] = os.pathsep.join(listed + [str(resolved)])
    return cls


def _register_file(cls: type[Task]) -> type[Task]:
    old = FAMILIES._items.get(cls.name)
    if old is not None:
        first = FAMILIES._origins.get(cls.name, "")
        if first == BUILTIN:
            raise TaskParameterError(
                f"{cls.source.at('NAME')}: NAME {cls.name!r} is a built-in task family; "
                f"choose another name (e.g. {cls.name}_mine)")
        if first != cls.origin:
            raise TaskParameterError(
                f"{cls.source.at('NAME')}: NAME {cls.name!r} is already the task of "
                f"{first}; choose another name")
        FAMILIES.unregister(cls.name)  # this file, edited since it was loaded
        clear_caches()
    return FAMILIES.register(cls, name=cls.name, origin=cls.origin)


def clear_caches() -> int:
    """Empty every ``functools`` cache of the package's loaded modules (functions, and
    methods of their classes); returns how many. Many results are cached in-process by
    the family's *name* (a communication profile, a learned automaton, a sensitivity
    series); when a task file is edited and loaded again under the same name, those would
    serve the old definition, so loading it clears them all (recomputing is the only cost)."""
    count = 0
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "theorybench" or name.startswith("theorybench.")):
            continue
        for obj in list(vars(mod).values()):
            holders = [obj] + (list(vars(obj).values()) if isinstance(obj, type) else [])
            for item in holders:
                clear = getattr(item, "cache_clear", None)
                if callable(clear) and getattr(item, "__module__", name) == name:
                    clear()
                    count += 1
    return count


def task_files(spec: str) -> list[pathlib.Path]:
    """The task files ``spec`` (:data:`ENV`'s syntax) names: files, and the task files of
    folders - each ``*.py`` file, and each ``.cr``/``.br`` program that is not the program
    supplied with a task file of the same stem (``NAME.cr`` beside ``NAME.py``) - sorted,
    names starting with _ skipped."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(os.pathsep))):
        p = pathlib.Path(part).expanduser()
        if p.is_dir():
            py = [f for f in p.glob("*.py") if not f.name.startswith("_")]
            stems = {f.stem for f in py}
            progs = [f for suffix in PROGRAM_SUFFIXES for f in p.glob(f"*{suffix}")
                     if not f.name.startswith("_") and f.stem not in stems]
            out.extend(sorted(py + progs))
        elif p.is_file():
            out.append(p)
        else:
            raise ConfigError(f"{ENV}: {part} is neither a task file nor a folder; fix or "
                              f"unset {ENV}")
    return out


def load_external() -> list[type[Task]]:
    """Register the families of :data:`ENV` and of the :data:`ENTRY_POINTS` group. An
    entry point loads to a module with the task-file names, a package of task files, a
    path (or a list of paths) of task files or folders, or a :class:`Task` subclass."""
    out = [load_task_file(f, export=False) for f in task_files(os.environ.get(ENV, ""))]
    for ep, item in entry_point_items(ENTRY_POINTS):
        if isinstance(item, type) and issubclass(item, Task):
            try:
                out.append(FAMILIES.register(item, name=item.name,
                                             origin=f"entry point {ep.name}"))
            except TypeError as exc:
                raise ConfigError(f"entry point {ep.name} = {ep.value} ({ENTRY_POINTS}): "
                                  f"{exc}") from None
        elif isinstance(item, (str, os.PathLike)):
            out += [load_task_file(f, export=False) for f in task_files(str(item))]
        elif getattr(item, "__path__", None) and not hasattr(item, "NAME"):
            # a package of task files: the files beside its __init__
            out += [load_task_file(f, export=False)
                    for d in item.__path__ for f in task_files(d)]
        elif getattr(item, "__file__", None):
            out.append(load_task_file(item.__file__, export=False))
        else:
            raise ConfigError(f"entry point {ep.name} = {ep.value} ({ENTRY_POINTS}) "
                              f"gives {item!r}; give a task module, a task file path "
                              "or a Task subclass")
    return out


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
