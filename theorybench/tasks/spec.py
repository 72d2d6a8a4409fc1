"""One command-line syntax for tasks and their variants, shared by every command.

A task is ``FAMILY`` or ``FAMILY:KEY=VALUE[:KEY=VALUE...]`` (``khop:k=2``,
``khop:k=2:alphabet=4``, ``dyck:k=1``); a value with commas is written in brackets
(``sparse_parity:positions=[1,5,9]``); a list is comma-separated (``majority,khop:k=2``)
and may also be given as several words. The older spelling of parameters separated by
commas (``khop:k=2,alphabet=4``) is still read, with a deprecation note on stderr.
Every task is read by :meth:`.ref.TaskRef.parse` and spelled by ``str(TaskRef)``; the
``(family, params)`` pairs here are that reference's parts, for callers that want them.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable

from ..errors import TaskParameterError
from .ref import SYNTAX, TaskRef, spell, split_top
from .user import split_file_ref

TaskSpec = tuple[str, dict[str, Any]]


def parse_task(text: str, *, allow_n: bool = False, n: int | None = None) -> TaskSpec:
    """``"khop:k=2"`` -> ``("khop", {"k": 2})``, values coerced and checked by the family
    (together at ``n`` when given, else at some size the family accepts).

    ``n`` is refused as a parameter unless ``allow_n``: commands choose sizes with their
    own options. One task: a comma inside a value needs no brackets here."""
    ref = TaskRef.parse(text if "[" in text or "," not in text else _bracket(text),
                        allow_n=allow_n, n=n)
    return ref.family, dict(ref.written)


def parse_refs(values: str | Iterable[str], *, allow_n: bool = False,
               warn=None) -> list[TaskRef]:
    """A comma-separated list (or several such words) -> ``[TaskRef, ...]`` in order
    (duplicates kept: callers that plan work drop them with a note)."""
    words = [values] if isinstance(values, str) else list(values)
    out: list[tuple[str, list[str], str]] = []
    old_spelling = False
    for word in words:
        for piece in filter(None, (p.strip() for p in split_top(word, ","))):
            head = split_top(piece, ":")[0]
            if "=" in head and out:
                # old spelling: "khop:k=2,alphabet=4" continues the previous task's params
                name, pairs, text = out[-1]
                out[-1] = (name, pairs + split_top(piece, ":"), f"{text},{piece}")
                old_spelling = True
                continue
            name, *pairs = split_top(piece, ":")
            if out and out[-1][1] and ":" not in piece and not name.strip().isidentifier() \
                    and not split_file_ref(piece):
                _refuse_bare_list(out[-1][2], piece)
            out.append((name, pairs, piece))
    if old_spelling:
        (warn or _stderr)("note: parameters separated by commas (khop:k=2,alphabet=4) are "
                          "deprecated; write khop:k=2:alphabet=4 (commas separate tasks; a "
                          "value with commas goes in brackets: positions=[1,5,9])")
    if not out:
        raise TaskParameterError(f"no task given; write {SYNTAX}")
    return [TaskRef.parse(":".join([name, *pairs]), allow_n=allow_n) if pairs else
            TaskRef.parse(name, allow_n=allow_n) for name, pairs, _ in out]


def parse_task_list(values: str | Iterable[str], *, allow_n: bool = False,
                    warn=None) -> list[TaskSpec]:
    """A comma-separated list (or several such words) -> ``[(family, params), ...]``, the
    parameters as written (``khop:k=1`` keeps k=1, so run specs keep their stored keys)."""
    return [(r.family, dict(r.written)) for r in parse_refs(values, allow_n=allow_n, warn=warn)]


def _refuse_bare_list(before: str, piece: str) -> None:
    """``positions=1,5,9`` in a list: the commas cut the value; say how to write it."""
    key, _, value = before.rpartition(":")[2].partition("=")
    raise TaskParameterError(
        f"{piece.strip()!r} after {before!r} is not a task: commas separate tasks, so a "
        f"value with commas goes in brackets ({key}=[{value},{piece.strip()},...])")


def task_label(name: str, params: dict[str, Any] | None = None) -> str:
    """The canonical spelling (``str(TaskRef)``): the bare family when every parameter is
    its default, the others sorted by name."""
    return spell(name, params or {})


def _bracket(text: str) -> str:
    """One task whose values hold commas (``positions=1,5,9``): bracket each such value."""
    name, *pairs = text.strip().split(":")
    out = [name]
    for pair in pairs:
        key, sep, value = pair.partition("=")
        out.append(f"{key}{sep}[{value}]" if "," in value else pair)
    return ":".join(out)


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr)
