"""All theories: imports every theory module so its ``@register_theory`` runs."""

from __future__ import annotations

import importlib
import pkgutil

from ..errors import TheoryError
from .base import Theory, registered

#: Matrix column order (THEORY.md order); theories not listed come after, by name.
ORDER = ("star_free", "star_free_pos", "ac0", "tc0", "crasp", "mpc", "bapo", "sensitivity")
_SKIP = {"base", "registry", "growth"}


def _load() -> None:
    pkg = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name not in _SKIP and not info.name.startswith("_"):
            importlib.import_module(f"{__package__}.{info.name}")


def theories() -> dict[str, type[Theory]]:
    _load()
    reg = registered()
    rank = {n: i for i, n in enumerate(ORDER)}
    return dict(sorted(reg.items(), key=lambda kv: (rank.get(kv[0], len(ORDER)), kv[0])))


def theory(name: str) -> Theory:
    reg = theories()
    if name not in reg:
        raise TheoryError(f"unknown theory {name!r}; known theories: {', '.join(reg) or '(none)'}")
    return reg[name]()
