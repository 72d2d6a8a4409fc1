"""The study's theoretical results as checked claims (docs/theories.md "Statuses and bases").

``get(name).check(max_n)`` returns a :class:`Certificate` whose ``status`` is one of the
five statuses (or ``failed``); ``certificate(name, max_n)`` is the entry point for the
theories: a rule that rests on a claim puts ``certificate(...).to_dict()`` in its
evidence and takes the certificate's status.
"""

from __future__ import annotations

from ...errors import ConfigError
from .base import FAILED, KINDS, STATUSES, Certificate, Claim, Step


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
    syntax (``khop:k=2``; the bare family for its default variant)."""
    return [c for c in _claims().values()
            if any(t == theory and k == task for t, k, _ in c.settles)]


def certificate(name: str, max_n: int | None = None) -> Certificate:
    """Run claim ``name``'s check (default: its test-suite size) and return the certificate."""
    return get(name).check(max_n)


__all__ = ["Certificate", "Claim", "Step", "KINDS", "STATUSES", "FAILED", "names",
           "all_claims", "get", "settling", "certificate"]
