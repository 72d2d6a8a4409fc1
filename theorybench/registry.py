"""The one registry idiom of theorybench: every extension point is a :class:`Registry` (a
named set of things: task families, theories, positional encodings, experiment lines, CLI
commands) or a :class:`Library` (one theory model's artifacts per task family: C-RASP and
B-RASP programs, circuit builders, MPC algorithms, BAPO protocols, constructions, proof
specs).

A leaf like :mod:`theorybench.errors`: it imports nothing of the package but the errors, so
every layer may use it. ``docs/extending.md`` shows how to add to each registry.

Loading is lazy: a registry may be given the modules whose import fills it, imported on the
first lookup or listing, so a command that needs none of them does not pay for importing
every builder.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import sys
from importlib import metadata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterable, Iterator, TypeVar

from .errors import ConfigError, TheorybenchError

T = TypeVar("T")

#: The origin of what theorybench itself registers (see :func:`origin_of`).
BUILTIN = "builtin"
#: The environment variable naming theory files (here, so that every layer that starts
#: workers can pass it on without importing the theories).
THEORY_FILES_ENV = "THEORYBENCH_THEORIES"


def origin_of(module: str | None) -> str:
    """``"builtin"`` for a module of theorybench, else the module's name (or file)."""
    if not module or module == "theorybench" or module.startswith("theorybench."):
        return BUILTIN
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None)
    return module if module != "__main__" or not path else str(path)


def _caller_module(depth: int = 2) -> str | None:
    try:
        return sys._getframe(depth).f_globals.get("__name__")
    except ValueError:  # a shallower stack than asked for (called from C)
        return None


def entry_point_items(group: str) -> Iterator[tuple[Any, Any]]:
    """``(entry point, item)`` for every item the entry points of ``group`` load to (an
    entry point may load to one object or a list or tuple of them); one that does not load
    is a :class:`ConfigError` naming it and the fix."""
    for ep in metadata.entry_points(group=group):
        try:
            obj = ep.load()
        except Exception as exc:
            raise ConfigError(f"entry point {ep.name} = {ep.value} ({group}) does not "
                              f"load: {type(exc).__name__}: {exc}; fix or uninstall the "
                              "package that declares it") from None
        for item in obj if isinstance(obj, (list, tuple)) else [obj]:
            yield ep, item


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean a, b?)`` for the known names close to ``name``, else ``""``."""
    close = difflib.get_close_matches(str(name), list(known), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""


class _Lazy:
    """The modules whose import fills a registry, imported once on first use. ``modules``
    is a sequence of absolute module names, or a callable returning one (a package scan);
    the callable may also fill the registry itself (program files) and return nothing."""

    def __init__(self, modules: Iterable[str] | Callable[[], Iterable[str]]):
        self._modules = modules if callable(modules) else tuple(modules)
        self._loaded = False
        self._loading = False

    def load(self) -> None:
        # ``_loading`` stops the recursion when a module being imported looks itself up
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            names = self._modules() if callable(self._modules) else self._modules
            for m in names:
                importlib.import_module(m)
            self._loaded = True
        finally:
            self._loading = False


class Registry(Generic[T]):
    """A named registry of ``kind`` (a word for messages: "task", "theory", "encoding").

    ``register`` is a decorator (``@reg.register`` or ``@reg.register("name")``) and a
    function (``reg.register(obj, name="x")``); the name defaults to the object's ``name``
    attribute. A second object under a taken name is refused; registering the same object
    again is a no-op (a module imported twice). ``get`` raises ``error`` (default
    :class:`ConfigError`) with a "did you mean" hint and the known names.
    """

    def __init__(self, kind: str, modules: Iterable[str] | Callable[[], Iterable[str]] = (),
                 error: type[TheorybenchError] = ConfigError, plural: str | None = None,
                 check: Callable[[str, T], None] | None = None):
        self.kind = kind
        self.plural = plural or f"{kind}s"
        self.error = error
        self._check = check
        self._items: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._lazy = _Lazy(modules)

    # ---- adding ------------------------------------------------------------------------
    def register(self, obj: Any = None, *, name: str | None = None, origin: str | None = None):
        """Add ``obj`` (decorator or call); see the class docstring."""
        if isinstance(obj, str) and name is None:  # @reg.register("name")
            return lambda o: self._add(o, obj, origin or origin_of(_caller_module()))
        if obj is None:
            return lambda o: self._add(o, name, origin or origin_of(_caller_module()))
        return self._add(obj, name, origin or origin_of(_caller_module()))

    def _add(self, obj: T, name: str | None, origin: str) -> T:
        key = name if name is not None else getattr(obj, "name", None)
        if not key or not isinstance(key, str):
            raise TypeError(f"a {self.kind} needs a name: give name= or a `name` attribute "
                            f"({obj!r})")
        if self._check is not None:
            self._check(key, obj)
        if key in self._items and self._items[key] is not obj:
            raise TypeError(f"{self.kind} {key!r} registered twice (first by "
                            f"{self._origins[key]}); choose another name")
        self._items[key] = obj
        self._origins.setdefault(key, origin)
        return obj

    def unregister(self, name: str) -> None:
        """Remove ``name`` (for a user file's tests; a no-op if absent)."""
        self._items.pop(name, None)
        self._origins.pop(name, None)

    @contextlib.contextmanager
    def scoped(self) -> Iterator["Registry[T]"]:
        """Everything registered inside the ``with`` block is removed at its end (a test's
        registrations do not leak into other tests)."""
        self._lazy.load()
        items, origins = dict(self._items), dict(self._origins)
        try:
            yield self
        finally:
            self._items.clear()
            self._items.update(items)
            self._origins.clear()
            self._origins.update(origins)

    # ---- lookup ------------------------------------------------------------------------
    def get(self, name: str) -> T:
        self._lazy.load()
        if name not in self._items:
            raise self.error(f"unknown {self.kind} {name!r}{did_you_mean(name, self._items)}; "
                             f"known {self.plural}: {', '.join(self._items) or '(none)'}")
        return self._items[name]

    def origin(self, name: str) -> str:
        self.get(name)
        return self._origins[name]

    def names(self) -> list[str]:
        """Every name, in registration order."""
        self._lazy.load()
        return list(self._items)

    def items(self) -> list[tuple[str, T]]:
        self._lazy.load()
        return list(self._items.items())

    def values(self) -> list[T]:
        return [obj for _, obj in self.items()]

    def as_dict(self) -> dict[str, T]:
        """A copy, name -> object (mutating it leaves the registry alone)."""
        self._lazy.load()
        return dict(self._items)

    def __contains__(self, name: object) -> bool:
        self._lazy.load()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._items)} registered)"


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One artifact of a :class:`Library`: the families it is for, an optional further
    condition on the task instance, and where it came from."""

    families: tuple[str, ...]
    artifact: T
    origin: str = BUILTIN
    when: Callable[[Any], bool] | None = field(default=None, compare=False)

    def applies_to(self, task: Any) -> bool:
        if not any(fam in self.families for fam in lineage(task)):
            return False
        return self.when is None or isinstance(task, str) or bool(self.when(task))


def lineage(task: Any) -> list[str]:
    """The family names an artifact may be registered under for ``task``: its own, then
    those of the family classes it inherits its definition from (a built-in family
    re-registered under another name as a subclass runs the same code, so the artifacts
    of the original are offered to it; every rule still checks an artifact against the
    task it is used for before it counts). A name is only itself."""
    if isinstance(task, str):
        return [task]
    cls = task if isinstance(task, type) else type(task)
    out = [family_of(task)]
    for c in getattr(cls, "__mro__", ())[1:]:
        name = c.__dict__.get("name")
        if isinstance(name, str) and name and name not in out:
            out.append(name)
    return out


def family_of(task: Any) -> str:
    """The family name of a task instance, a task class or a name. A matrix variant label
    (``khop:k=2``) is kept whole: whether a family's artifact serves a variant is the
    caller's decision, not the library's."""
    return task if isinstance(task, str) else str(getattr(task, "name", ""))


class Library(Generic[T]):
    """The artifacts of one theory model, per task family (``kind``: "C-RASP program",
    "circuit builder", "MPC algorithm", ...).

    ``@lib.provides("parity", "all")`` registers an artifact for those families;
    ``lib.add(artifact, *families)`` does the same for artifacts that are not functions
    (program files). ``for_task(task)`` lists ``(origin, artifact)`` for a task instance
    (or family name), in registration order; ``families()`` lists the families covered.
    """

    def __init__(self, kind: str, modules: Iterable[str] | Callable[[], Iterable[str]] = ()):
        self.kind = kind
        self.module = ""  # the module that declared it (set by artifact_library)
        self._entries: list[Entry[T]] = []
        self._lazy = _Lazy(modules)

    def provides(self, *families: str, when: Callable[[Any], bool] | None = None,
                 origin: str | None = None, first: bool = False):
        """Decorator: register the decorated artifact for ``families`` (and, with ``when``,
        only for task instances it accepts); ``first`` puts it before the artifacts already
        there (a user's artifact taking precedence over the shipped one)."""
        where = origin or origin_of(_caller_module())

        def wrap(artifact: T) -> T:
            self.add(artifact, *families, when=when, origin=where, first=first)
            return artifact
        return wrap

    def add(self, artifact: T, *families: str, when: Callable[[Any], bool] | None = None,
            origin: str | None = None, first: bool = False) -> T:
        if not families or not all(isinstance(f, str) and f for f in families):
            raise TypeError(f"a {self.kind} needs the task families it is for, e.g. "
                            f"provides('parity')")
        entry = Entry(tuple(families), artifact, origin or origin_of(_caller_module()), when)
        if first:
            self._lazy.load()  # before the shipped artifacts, also those loaded later
        if not any(e.artifact is artifact and e.families == entry.families
                   for e in self._entries):  # a module imported twice adds nothing
            self._entries.insert(0 if first else len(self._entries), entry)
        return artifact

    def for_task(self, task: Any) -> list[tuple[str, T]]:
        """``(origin, artifact)`` for every artifact that applies to ``task``."""
        self._lazy.load()
        found = [e for e in self._entries if e.applies_to(task)]
        # the task's own family's artifacts first, then those of the families it inherits
        # from (any inherits all's code, but all's program decides all, not any)
        own = family_of(task)
        found.sort(key=lambda e: own not in e.families)
        return [(e.origin, e.artifact) for e in found]

    def first(self, task: Any) -> T | None:
        found = self.for_task(task)
        return found[0][1] if found else None

    def by_family(self) -> "ByFamily[T]":
        """A live read-only mapping family -> its first artifact."""
        return ByFamily(self)

    def remove(self, artifact: T) -> int:
        """Take ``artifact`` out of the library (every entry of it); returns how many
        entries went (a task file edited since it supplied the artifact)."""
        before = len(self._entries)
        self._entries[:] = [e for e in self._entries if e.artifact is not artifact]
        return before - len(self._entries)

    def families(self) -> list[str]:
        """Every family with at least one artifact, in registration order."""
        self._lazy.load()
        out: dict[str, None] = {}
        for e in self._entries:
            out.update(dict.fromkeys(e.families))
        return list(out)

    def entries(self) -> list[Entry[T]]:
        self._lazy.load()
        return list(self._entries)

    @contextlib.contextmanager
    def scoped(self) -> Iterator["Library[T]"]:
        """Artifacts added inside the ``with`` block are removed at its end."""
        self._lazy.load()
        saved = list(self._entries)
        try:
            yield self
        finally:
            self._entries[:] = saved

    def __repr__(self) -> str:
        return f"Library({self.kind!r}, {len(self._entries)} artifacts)"


class ByFamily(Mapping, Generic[T]):
    """family -> the first artifact of a :class:`Library` for it: a live, read-only view
    for code that looks artifacts up by family name (``name in view``, ``view[name]``)."""

    def __init__(self, lib: Library[T]):
        self._lib = lib

    def __getitem__(self, family: str) -> T:
        found = self._lib.for_task(family)
        if not found:
            raise KeyError(family)
        return found[0][1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lib.families())

    def __len__(self) -> int:
        return len(self._lib.families())


#: Every library by kind, so that `theorybench tasks --coverage` and the family check find
#: them without knowing the theory models (filled by :func:`artifact_library`).
LIBRARIES: Registry[Library] = Registry("artifact library", plural="artifact libraries")


def artifact_library(kind: str, modules: Iterable[str] | Callable[[], Iterable[str]] = (),
                     column: str | None = None) -> Library:
    """A new :class:`Library`, listed in :data:`LIBRARIES` under ``column`` (default
    ``kind``), the name of its column in the coverage table."""
    lib: Library = Library(kind, modules)
    lib.module = _caller_module() or ""
    LIBRARIES.register(lib, name=column or kind, origin=origin_of(lib.module))
    return lib


__all__ = ["Registry", "Library", "ByFamily", "Entry", "LIBRARIES", "artifact_library",
           "family_of", "origin_of", "did_you_mean", "BUILTIN", "THEORY_FILES_ENV",
           "entry_point_items"]
