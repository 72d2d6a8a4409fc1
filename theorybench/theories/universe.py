"""The tasks of the default matrix: every family, plus the studied variants of a few.

The runner shows these rows and hands them to the theories as ``Context.universe``: the
tasks whose cells a rule may consult (the other end of a catalogue reduction), so that
``predict`` of one cell agrees with the matrix. A leaf of the theories: it imports the
task suite only.
"""

from __future__ import annotations

from .. import tasks
from ..tasks import TaskRef

#: Families whose studied variants (``tasks.grid(name).points()``) the default matrix shows:
#: the literature's verdicts differ between them (Dyck-1 vs Dyck-2; 1-hop vs 2-, 3-hop).
MATRIX_VARIANTS = ("dyck", "khop")


def default_tasks() -> list[TaskRef]:
    """The default rows: every family, plus the studied variants of MATRIX_VARIANTS, the
    default variant (the bare family) first, then the others by spelling."""
    out: list[TaskRef] = []
    for name in tasks.families():
        if name in MATRIX_VARIANTS:
            refs = {TaskRef(name, pt) for pt in tasks.grid(name).points()}
            out += sorted(refs, key=lambda r: (r != name, str(r)))
        else:
            out.append(TaskRef(name))
    return out


__all__ = ["MATRIX_VARIANTS", "default_tasks"]
