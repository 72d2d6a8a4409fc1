"""The study's theoretical results as checked claims (docs/theories.md "Statuses and bases").

``get(name).check(max_n)`` returns a :class:`Certificate` whose ``status`` is one of the
five statuses (or ``failed``); ``certificate(name, max_n)`` is the entry point for the
theories: a rule that rests on a claim puts ``certificate(...).to_dict()`` in its
evidence and takes the certificate's status.
"""

from __future__ import annotations

from ...errors import ConfigError
from .base import FAILED, KINDS, STATUSES, Certificate, Claim, Step
from .match import FunctionMatch, same_function


def _claims() -> dict[str, Claim]:
    from . import bapo, khop, retrieval
    # most checkable first
    out = [khop.CLAIM, bapo.CLAIM_DYCK, bapo.CLAIM_BINARY_ADD, retrieval.CLAIM1,
           retrieval.CLAIM4]
    return {c.name: c for c in out}


def names() -> list[str]:
    return list(_claims())


def all_claims() -> list[Claim]:
    return list(_claims().values())


def get(name: str) -> Claim:
    claims = _claims()
    if name not in claims:
        raise ConfigError(f"unknown claim {name!r}; the claims are: {', '.join(claims)}")
    return claims[name]


def settling(theory: str, task: str) -> list[Claim]:
    """The claims that settle the matrix cell (theory, task); ``task`` in the CLI's task
    syntax. A claim settles it when the task's function is checked to be that of one of
    the claim's reference tasks (:func:`settled_by`), not when the names agree."""
    return [c for c, _, _ in settled_by(theory, task)]


def settled_by(theory: str, task: str) -> list[tuple[Claim, str, FunctionMatch]]:
    """(claim, verdict, match) for every ``settles`` entry of column ``theory`` whose
    reference task computes the same function as ``task`` (:mod:`.match`), claims in
    :func:`all_claims` order."""
    out = []
    for c in _claims().values():
        for t, ref, verdict in c.settles:
            if t != theory:
                continue
            found = same_function(task, ref)
            if found is not None:
                out.append((c, verdict, found))
                break
    return out


def certificate(name: str, max_n: int | None = None) -> Certificate:
    """Run claim ``name``'s check (default: its test-suite size) and return the certificate."""
    return get(name).check(max_n)


__all__ = ["Certificate", "Claim", "Step", "KINDS", "STATUSES", "FAILED", "names",
           "all_claims", "get", "settling", "settled_by", "certificate", "FunctionMatch",
           "same_function"]
