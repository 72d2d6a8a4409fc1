"""Transformers with set weights, and their verification (docs/theories.md §9 tasks).

``build("majority", n=15)`` returns a :class:`Construction`: a causal softmax transformer
(:class:`SetTransformer`, float64 by default) with hand-set weights for that task instance,
its shape, the inverse temperature it needs as a function of n and the margin it
guarantees. :mod:`.check` runs it on every input (float64 and float32) or on samples;
:mod:`.interval` encloses its real-arithmetic outputs on every input; :mod:`.solver`
proves it with z3 (uniform attention exactly; peaked attention through a hard model, a
score gap and a bound on the softmax error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Callable

from .. import tasks
from ..errors import TaskParameterError
from ..registry import BUILTIN, artifact_library
from .base import Certificate, Construction
from .counting import dyck1, majority
from .model import SetTransformer, Weights, margins
from .retrieval import index, induction, kv_retrieval

#: Hand-set transformers per task family (the registry idiom of
#: :mod:`theorybench.registry`): each is ``build(task) -> Construction``.
CONSTRUCTIONS = artifact_library("construction", column="construction")
for _fams, _build in ((("majority",), majority), (("dyck", "dyck_bounded"), dyck1),
                      (("index",), index), (("khop",), induction),
                      (("kv_retrieval",), kv_retrieval)):
    CONSTRUCTIONS.add(_build, *_fams, origin=BUILTIN)


#: task family -> builder of its construction (a live view of :data:`CONSTRUCTIONS`)
BUILDERS: Mapping[str, Callable[..., Construction]] = CONSTRUCTIONS.by_family()


def supported() -> list[str]:
    return sorted(BUILDERS)


def build(task: str, n: int, **params) -> Construction:
    """The construction for ``tasks.get(task, n=n, **params)``."""
    if task not in BUILDERS:
        raise TaskParameterError(
            f"no construction for task {task!r}; constructions exist for: "
            f"{', '.join(supported())}")
    return BUILDERS[task](tasks.get(task, n=n, **params))


__all__ = ["BUILDERS", "CONSTRUCTIONS", "Certificate", "Construction", "SetTransformer",
           "Weights", "build", "margins", "supported"]
