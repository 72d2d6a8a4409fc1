"""The experiment lines: the registry (the idiom of :mod:`theorybench.registry`) and one
constant per shipped line, so that no module spells a line's name as a string literal.

A line trains transformers on the tasks (``trains``: its runner module has
``run(spec, device, progress, checkpoint_dir) -> metrics``) or evaluates pretrained models
(``llm``: the records come from :mod:`.llm`). docs/extending.md shows how to add one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from ..registry import Registry

IN_DISTRIBUTION = "in_distribution"
LENGTH_GENERALIZATION = "length_generalization"
LLM = "llm"


@dataclass(frozen=True)
class Line:
    """One experiment line: ``name`` (the store's ``line`` field), ``title`` (for people),
    whether it trains transformers, and the module that runs one of its specs."""

    name: str
    title: str
    trains: bool
    runner_module: str = ""
    description: str = ""

    def runner(self) -> ModuleType:
        """The module whose ``run(spec, ...)`` runs one spec of this line (imported now:
        the training modules bring torch)."""
        if not self.runner_module:
            raise TypeError(f"the {self.name} line has no training runner")
        return importlib.import_module(self.runner_module)


#: Every experiment line by name, in report order.
LINES: Registry[Line] = Registry("experiment line")
LINES.register(Line(IN_DISTRIBUTION, "in-distribution", True, f"{__package__}.in_distribution",
                    "train and test at the same n; accuracy and samples to learn"))
LINES.register(Line(LENGTH_GENERALIZATION, "length-generalization", True,
                    f"{__package__}.length_generalization",
                    "train on short inputs, test on longer ones, per length bin"))
LINES.register(Line(LLM, "LLM", False, "",
                    "few-shot prompts to pretrained language models, no training"))


def trained_lines() -> tuple[str, ...]:
    """The names of the lines that train transformers, in report order."""
    return tuple(name for name, line in LINES.items() if line.trains)


__all__ = ["LINES", "Line", "IN_DISTRIBUTION", "LENGTH_GENERALIZATION", "LLM", "trained_lines"]
