"""A task variant as a value: ``TaskRef`` (family + fixed parameters), one parse, one spelling.

``TaskRef.parse("khop:k=2")`` is the only reader of the task syntax; ``str(ref)`` is the only
writer, ``khop:k=2`` (the bare family when every parameter is its default, the parameters
sorted by name). A value that contains a comma or a colon is written in brackets,
``sparse_parity:positions=[1,5,9]``, so that it fits in a comma-separated list of tasks;
the brackets are part of the syntax, not of the value.

A ``TaskRef`` *is* its spelling (a ``str`` subclass, immutable and hashable, equal to the
text), so it can name a row in JSON, tables, plots and the results store as it is, and
code that keys or prints by task name keeps working. ``ref.build(n=...)`` makes an
instance; ``ref.variant()`` is the family as this reference sees it (the variant's values
as parameter defaults), which is what ``tasks.family("khop:k=2")`` returns. Nothing is
registered: the task registry holds families only.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Mapping

from ..errors import TaskParameterError
from . import registry
from .base import Param, Task
from .user import split_file_ref

SYNTAX = ("FAMILY or FAMILY:KEY=VALUE[:KEY=VALUE], comma-separated (e.g. majority,khop:k=2; a "
          "value with commas in brackets: sparse_parity:positions=[1,5,9])")


def resolve_file(text: str) -> str:
    """``"./mod3.py:k=3"`` -> ``"mod3:k=3"`` with the task file loaded and registered
    (``registry.load_task_file``); any other text as it is."""
    found = split_file_ref(text)
    if found is None:
        return text
    return registry.load_task_file(found[0]).name + found[1]


#: Sizes tried, besides the family's own lists, to tell a parameter combination that fits
#: no n from one that only does not fit the family's default n (sparse_parity:k=20).
_PROBE_EXPONENTS = range(1, 18)


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets (``a:b=[1,2],c`` at "," -> 2 pieces)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def spell_value(value: Any) -> str:
    text = str(value)
    return f"[{text}]" if ("," in text or ":" in text) else text


def spell(family: str, params: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> str:
    """The canonical spelling of ``family`` with ``params``: defaults dropped, the rest
    sorted by name (no validation beyond the family's existence)."""
    items = dict(params)
    defaults = {p.name: p.default for p in registry.family(family).params}
    extra = sorted((k, v) for k, v in items.items() if defaults.get(k, object()) != v)
    return family + "".join(f":{k}={spell_value(v)}" for k, v in extra)


class TaskRef(str):
    """A task family with some parameters fixed: ``TaskRef("khop", {"k": 2})`` == "khop:k=2".

    ``family`` is the registered family name, ``params`` the non-default parameters as a
    tuple of (name, value) pairs sorted by name, values coerced by the family's
    :class:`Param` declarations. Two references are equal exactly when their spellings are.
    """

    family: str
    params: tuple[tuple[str, Any], ...]
    #: the coerced values as written, defaults included (``khop:k=1`` -> (("k", 1),)); not
    #: part of the identity, kept for run specs stored under what their user wrote
    written: tuple[tuple[str, Any], ...]

    def __new__(cls, family: str, params: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
                *, allow_n: bool = False, n: int | None = None, text: str | None = None):
        fam = registry.family(family)
        known = {p.name: p for p in fam.params}
        where = f"task {text!r}" if text is not None else f"task {family}"
        values: dict[str, Any] = {}
        for key, value in dict(params).items():
            if key == "n" and not allow_n:
                raise TaskParameterError(f"{where}: n is not a task parameter here; this "
                                         "command chooses the sizes with its own option")
            if key not in known:
                raise TaskParameterError(f"{where}: {family} has no parameter {key!r}; its "
                                         f"parameters: {', '.join(known)}")
            try:
                values[key] = known[key].coerce(value)
            except TaskParameterError as exc:
                raise TaskParameterError(f"{where}: {exc}") from None
        _check_some_n(fam, values, n, where)
        kept = tuple(sorted((k, v) for k, v in values.items() if known[k].default != v))
        self = super().__new__(cls, family + "".join(f":{k}={spell_value(v)}" for k, v in kept))
        object.__setattr__(self, "family", family)
        object.__setattr__(self, "params", kept)
        object.__setattr__(self, "written", tuple(values.items()))
        return self

    # ---- reading ---------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, *, allow_n: bool = False, n: int | None = None,
              legacy: bool = False) -> "TaskRef":
        """``"khop:k=2"`` -> ``TaskRef("khop", {"k": 2})``; the one reader of the syntax.

        ``n``: the size the caller will build at; the parameters are checked together at
        that n (else: at some n the family accepts). ``allow_n``: ``n`` may be written as
        a parameter. ``legacy``: also read ``khop[k=2]``, the row names reports wrote
        before there was one spelling (for stored files only; commands take the syntax)."""
        if isinstance(text, TaskRef) and n is None:
            return text
        if not isinstance(text, str):
            raise TaskParameterError(f"a task is a text such as khop:k=2, not {text!r}")
        raw = resolve_file(text.strip())
        if legacy and raw.endswith("]") and "[" in raw and ":" not in raw.split("[", 1)[0]:
            head, _, inner = raw[:-1].partition("[")
            raw = ":".join([head, *split_top(inner, ",")])
        name, *pairs = [p.strip() for p in split_top(raw, ":")]
        if not name:
            raise TaskParameterError(f"task {text!r}: no family name; write {SYNTAX}")
        if name not in registry.families():
            registry.family(name)  # raises, with "did you mean"
        params: dict[str, Any] = {}
        for pair in filter(None, pairs):
            key, sep, value = (s.strip() for s in pair.partition("="))
            if not sep or not key:
                raise TaskParameterError(f"task {text!r}: {pair!r} is not KEY=VALUE; write "
                                         f"{SYNTAX}")
            if key in params:
                raise TaskParameterError(f"task {text!r}: {key} is given twice; keep one")
            if value.startswith("[") and value.endswith("]"):
                value = value[1:-1].strip()
            params[key] = value
        return cls(name, params, allow_n=allow_n, n=n, text=text)

    @classmethod
    def of(cls, task: "TaskRef | str | tuple[str, Mapping[str, Any]]", **kw: Any) -> "TaskRef":
        """A reference from a reference, its spelling, or a ``(family, params)`` pair."""
        if isinstance(task, TaskRef):
            return task
        if isinstance(task, tuple):
            return cls(task[0], task[1], **kw)
        return cls.parse(task, **kw)

    # ---- using -----------------------------------------------------------------------
    @property
    def kwargs(self) -> dict[str, Any]:
        """The fixed parameters as keyword arguments (``tasks.get(ref.family, **ref.kwargs)``)."""
        return dict(self.params)

    def variant(self) -> "type[Task] | Variant":
        """The family class itself for a default reference, else its :class:`Variant`."""
        cls = registry.family(self.family)
        return Variant(cls, self.kwargs) if self.params else cls

    def build(self, n: int | None = None, **overrides: Any) -> Task:
        """An instance: ``TaskRef.parse("khop:k=2").build(n=16)``."""
        kw = {**self.kwargs, **overrides}
        if n is not None:
            kw["n"] = n
        return registry.family(self.family)(**kw)

    # ---- a value ---------------------------------------------------------------------
    def __setattr__(self, name, value):
        raise AttributeError("a TaskRef is immutable")

    def __delattr__(self, name):
        raise AttributeError("a TaskRef is immutable")

    def __reduce__(self):
        return (_restore, (self.family, self.params))

    def __repr__(self) -> str:
        return f"TaskRef({str(self)!r})"


def _restore(family: str, params: tuple) -> TaskRef:
    return TaskRef(family, params, allow_n=True)


def _check_some_n(fam: type[Task], values: dict[str, Any], n: int | None, where: str) -> None:
    """Refuse a combination of parameters only where it is wrong: at ``n`` when the caller
    builds at ``n``, else only when no size accepts it (``sparse_parity:k=20`` is valid,
    from n = 21 on, though not at the family's default n = 16)."""
    if "n" in values:
        n = values["n"]
    first = fam.param("n").default if n is None else n
    try:
        fam.validate(**{**values, "n": first})
        return
    except TaskParameterError as exc:
        error = exc
    if n is None:
        p = fam.param("n")
        lo, hi = p.minimum or 1, p.maximum or (1 << 17)
        probes = set(fam.analysis_ns) | set(fam.train_ns)
        for e in _PROBE_EXPONENTS:
            probes |= {(1 << e) - 1, 1 << e, (1 << e) + 1}
        for m in sorted(x for x in probes if lo <= x <= hi):
            if fam.accepts(**{**values, "n": m}):
                return
    raise TaskParameterError(f"{where}: {error}") from None


class Variant:
    """A family seen through a :class:`TaskRef`: the variant's values are its parameter
    defaults, so ``Variant(KHop, {"k": 2})(n=8)`` is ``KHop(n=8, k=2)`` and ``params``,
    ``validate``, ``accepts`` and ``valid_ns`` answer for k = 2. Every other attribute is
    the family's. A view, not a class: nothing is registered or subclassed."""

    def __init__(self, cls: type[Task], fixed: Mapping[str, Any]):
        self._cls = cls
        self._fixed = dict(fixed)

    @property
    def params(self) -> tuple[Param, ...]:
        return tuple(dataclasses.replace(p, default=self._fixed[p.name])
                     if p.name in self._fixed else p for p in self._cls.params)

    def param(self, name: str) -> Param:
        return next((p for p in self.params if p.name == name), None) or self._cls.param(name)

    def validate(self, **params: Any) -> dict[str, Any]:
        return self._cls.validate(**{**self._fixed, **params})

    def accepts(self, **params: Any) -> bool:
        return self._cls.accepts(**{**self._fixed, **params})

    def valid_ns(self, lo: int | None = None, hi: int | None = None, **params: Any) -> list[int]:
        return self._cls.valid_ns(lo, hi, **{**self._fixed, **params})

    def __call__(self, **params: Any) -> Task:
        return self._cls(**{**self._fixed, **params})

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._cls, attr)

    def __repr__(self) -> str:
        return f"Variant({TaskRef(self._cls.name, self._fixed, allow_n=True)})"


def family(task: "TaskRef | str") -> "type[Task] | Variant":
    """The family class of ``task`` (``"majority"``), or the :class:`Variant` a reference
    (``"khop:k=2"``) names; unknown names get the registry's "did you mean"."""
    if isinstance(task, TaskRef):
        return task.variant()
    if isinstance(task, str):
        task = resolve_file(task)
    if isinstance(task, str) and (":" in task) and task.split(":", 1)[0] in registry.families():
        return TaskRef.parse(task).variant()
    return registry.family(task)


def get(task: "TaskRef | str", **params: Any) -> Task:
    """An instance with validated parameters: ``get("majority", n=15)``,
    ``get("khop:k=2", n=16)`` (the reference's values, overridden by ``params``)."""
    return family(task)(**params)


__all__ = ["TaskRef", "Variant", "SYNTAX", "spell", "split_top", "family", "get",
           "resolve_file"]
