"""A task's identity for checkpoints, caches and the results store: family, parameters and
a digest of the family's definition.

The digest hashes the *code* that defines a family: the module of its class, the modules of
its base classes, and the helper modules of the task package that these import (the Dyck
and graph families share ``common.py``, bit tasks ``bits.py``, every family ``base.py``).
Each module is hashed as its syntax tree with docstrings dropped, so that a comment, a
docstring or a reformatting leaves the digest as it was, while any change to what the code
does (a label rule, a sampler, a vocabulary) gives a new one. The registry and the task
syntax (``registry.py``, ``spec.py``) and this module say nothing about what a task
computes and are left out.

A class whose source cannot be read (built at run time, or from a zip without sources) is
hashed by its module and qualified name only; :func:`definition_digest` is then as good as
the name.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import os
import sys
import types
from functools import lru_cache
from typing import Any

from .base import Task
from .registry import family as _family

#: Modules of this package that define no task behaviour (left out of every digest).
_INFRASTRUCTURE = {__package__} | {f"{__package__}.{m}" for m in ("registry", "spec", "digest")}
DIGEST_LENGTH = 16


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _module_text(name: str) -> str:
    """The docstring-free syntax tree of module ``name`` as text (its name when it has no
    readable source)."""
    module = sys.modules.get(name)
    try:  # the base modules are shared by every family: parse each file version once
        st = os.stat(module.__file__)
        stamp = (st.st_mtime_ns, st.st_size)
    except (AttributeError, TypeError, OSError):
        stamp = None
    return _parsed(name, getattr(module, "__file__", None), stamp)


@lru_cache(maxsize=256)
def _parsed(name: str, file: str | None, stamp: tuple | None) -> str:
    module = sys.modules.get(name)
    try:
        source = inspect.getsource(module) if module is not None else None
    except (OSError, TypeError, ValueError):  # no file, a built-in, undecodable bytes
        source = None
    if source is None:
        return f"<module {name} without source>"
    try:
        return ast.dump(_strip_docstrings(ast.parse(source)))
    except SyntaxError:  # a source that does not parse is hashed as it is
        return source


def _package_of(module_name: str) -> str:
    return module_name.rsplit(".", 1)[0] if "." in module_name else module_name


def _modules(cls: type) -> list[str]:
    """The modules that define ``cls``: those of its classes (MRO), then, transitively, the
    modules of its package or of the task package that these import, sorted."""
    roots = {__package__, _package_of(cls.__module__)}

    def ours(name: str) -> bool:
        return (name not in _INFRASTRUCTURE and name in sys.modules
                and any(name == r or name.startswith(r + ".") for r in roots))

    todo = [k.__module__ for k in cls.__mro__ if k is not object and ours(k.__module__)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in vars(sys.modules[name]).values():
            if isinstance(value, types.ModuleType):
                dep = value.__name__
            else:
                dep = getattr(value, "__module__", None)
            if isinstance(dep, str) and dep not in seen and ours(dep):
                todo.append(dep)
    return sorted(seen)


@lru_cache(maxsize=None)  # per class object: a reloaded module gives new classes
def _class_digest(cls: type) -> str:
    h = hashlib.sha256()
    h.update(f"{cls.__module__}.{cls.__qualname__}\n".encode())
    for name in _modules(cls):
        h.update(f"{name}\n".encode())
        h.update(_module_text(name).encode())
    return h.hexdigest()[:DIGEST_LENGTH]


def definition_digest(family: str | type[Task]) -> str:
    """16 hex digits of SHA-256 over the code that defines task ``family`` (a registered
    name or a :class:`Task` subclass); see the module docstring for what is hashed."""
    cls = _family(family) if isinstance(family, str) else family
    return _class_digest(cls)


def canonical_params(family: str | type[Task], params: dict[str, Any] | None = None
                     ) -> dict[str, Any]:
    """Every declared parameter but ``n`` (the size), with its default where ``params``
    leaves it out, as JSON values (``khop`` and ``khop:k=<default>`` are one task)."""
    cls = _family(family) if isinstance(family, str) else family
    given = dict(params or {})
    given.pop("n", None)  # the size is not part of the task's identity
    out = {p.name: given.pop(p.name, p.default) for p in cls.params if p.name != "n"}
    out.update(given)  # an undeclared name stays visible, so that it cannot match by accident
    return json.loads(json.dumps(out, sort_keys=True, default=str))


def task_identity(family: str | type[Task], params: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """``{"family", "params", "digest"}``: what a checkpoint, a cache entry or a stored run
    records to say which task it belongs to."""
    cls = _family(family) if isinstance(family, str) else family
    return {"family": cls.name, "params": canonical_params(cls, params),
            "digest": definition_digest(cls)}
