"""The task suite: the single source of truth for every task (docs/theories.md §9).

``tasks.get("majority", n=15)`` builds a validated instance (``tasks.get("khop:k=2", n=16)``
a variant's: a task is named by a :class:`TaskRef`, ``khop:k=2``); ``tasks.families()`` lists
the registered families and ``tasks.grid(name)`` a family's parameter grid (valid n,
default n lists for analysis and training, studied variants). Families live one per
file in a subpackage per kind.
"""

from .base import PAD, Batch, DecisionFunction, Param, Task
from .ref import TaskRef, Variant, family, get
from .registry import KINDS, Grid, families, grid, grids, load_task_file, register
from .spec import SYNTAX, TaskSpec, parse_refs, parse_task, parse_task_list, task_label
from .user import split_file_ref

__all__ = ["PAD", "Batch", "DecisionFunction", "Param", "Task", "KINDS", "Grid", "families",
           "family", "get", "grid", "grids", "register", "SYNTAX", "TaskSpec", "parse_task",
           "parse_task_list", "task_label", "TaskRef", "Variant", "parse_refs",
           "load_task_file", "split_file_ref"]
