"""One command-line syntax for tasks and their variants, shared by every command.

A task is ``FAMILY`` or ``FAMILY:KEY=VALUE[:KEY=VALUE...]`` (``khop:k=2``,
``khop:k=2:alphabet=4``, ``dyck:k=1``); a list is comma-separated (``majority,khop:k=2``)
and may also be given as several words. The older spelling of parameters separated by
commas (``khop:k=2,alphabet=4``) is still read, with a deprecation note on stderr.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable

from ..errors import TaskParameterError
from .registry import families

TaskSpec = tuple[str, dict[str, Any]]

SYNTAX = "FAMILY or FAMILY:KEY=VALUE[:KEY=VALUE], comma-separated (e.g. majority,khop:k=2)"


def parse_task(text: str, *, allow_n: bool = False) -> TaskSpec:
    """``"khop:k=2"`` -> ``("khop", {"k": 2})``, values coerced and checked by the family.

    ``n`` is refused unless ``allow_n``: commands choose sizes with their own options.
    """
    name, *pairs = [p.strip() for p in text.strip().split(":")]
    return _build(text, name, pairs, allow_n)


def parse_task_list(values: str | Iterable[str], *, allow_n: bool = False,
                    warn=None) -> list[TaskSpec]:
    """A comma-separated list (or several such words) -> ``[(family, params), ...]``."""
    words = [values] if isinstance(values, str) else list(values)
    out: list[TaskSpec] = []
    old_spelling = False
    for word in words:
        for piece in filter(None, (p.strip() for p in word.split(","))):
            head = piece.split(":")[0]
            if "=" in head and out:
                # old spelling: "khop:k=2,alphabet=4" continues the previous task's params
                name, params = out.pop()
                pairs = [f"{k}={v}" for k, v in params.items()] + piece.split(":")
                out.append(_build(piece, name, pairs, allow_n))
                old_spelling = True
                continue
            out.append(parse_task(piece, allow_n=allow_n))
    if old_spelling:
        (warn or _stderr)("note: parameters separated by commas (khop:k=2,alphabet=4) are "
                          "deprecated; write khop:k=2:alphabet=4 (commas separate tasks)")
    if not out:
        raise TaskParameterError(f"no task given; write {SYNTAX}")
    return out


def task_label(name: str, params: dict[str, Any] | None = None) -> str:
    """The canonical spelling: the bare family when every parameter is its default."""
    fam = families()[name]
    defaults = {p.name: p.default for p in fam.params}
    extra = {k: v for k, v in (params or {}).items() if defaults.get(k, object()) != v}
    return name + "".join(f":{k}={v}" for k, v in extra.items())


def _build(text: str, name: str, pairs: list[str], allow_n: bool) -> TaskSpec:
    fams = families()
    if name not in fams:
        raise TaskParameterError(f"unknown task {name!r} in {text!r}; known tasks: "
                                 f"{', '.join(fams)}")
    fam = fams[name]
    known = {p.name: p for p in fam.params}
    params: dict[str, Any] = {}
    for pair in filter(None, pairs):
        key, sep, value = (s.strip() for s in pair.partition("="))
        if not sep or not key:
            raise TaskParameterError(f"task {text!r}: {pair!r} is not KEY=VALUE; write {SYNTAX}")
        if key == "n" and not allow_n:
            raise TaskParameterError(f"task {text!r}: n is not a task parameter here; this "
                                     "command chooses the sizes with its own option")
        if key not in known:
            raise TaskParameterError(f"task {text!r}: {name} has no parameter {key!r}; its "
                                     f"parameters: {', '.join(known)}")
        try:
            params[key] = known[key].coerce(value)
        except TaskParameterError as exc:
            raise TaskParameterError(f"task {text!r}: {exc}") from None
    try:  # the combination, at a size every family accepts
        fam(**{"n": known["n"].default, **params})
    except TaskParameterError as exc:
        raise TaskParameterError(f"task {text!r}: {exc}") from None
    return name, params


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr)
