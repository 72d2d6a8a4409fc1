"""The claim framework: a result with its statement, assumptions, proof text and a check.

A :class:`Claim`'s ``check(max_n)`` returns a :class:`Certificate`: one :class:`Step` per
step of the proof, each saying how it was established -

* ``machine``: checked by computer, with which tool, for all n (a z3 proof with unbounded
  integers, an identity over every n) or up to a stated n (a finite check);
* ``by_hand``: an argument in the proof text that no computer checked;
* ``cited``: a published theorem, with paper and theorem (without a number when the
  number was not checked against the paper), and whether its premise was checked;
* ``missing``: a step the proof needs and this project has not established (the claim is
  then conditional on it).

The overall status uses the five statuses of docs/theories.md ("Statuses and bases"):

1. ``proven`` only if every step is ``machine`` for all n, or ``cited`` with a checked
   premise and a theorem reference that was checked;
2. otherwise ``conditional`` if a step is ``missing`` (conditional on the named steps);
3. otherwise ``cited`` if a step is a citation whose premise or reference is unchecked;
4. otherwise ``verified ≤ N`` with N the smallest bound of the finite machine steps (the
   by-hand steps carry the rest; a finite check never becomes ``proven``).

A machine step that fails makes the certificate ``failed`` (``ok`` is false): the check
rejected the lemma instance, and no status is claimed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ...errors import ConfigError

KINDS = ("machine", "by_hand", "cited", "missing")
STATUSES = ("proven", "verified ≤ N", "extrapolated", "conditional", "cited")
FAILED = "failed"


@dataclass
class Step:
    """One step of a claim's proof and how it was established."""

    name: str
    kind: str
    statement: str
    ok: bool = True                  # machine steps: did the check pass
    all_n: bool = False              # machine steps: established for every n
    up_to: int | None = None         # machine steps: largest n checked (finite checks)
    tool: str = ""                   # what checked it (z3, Reduction.check, enumeration ...)
    cite: str = ""                   # cited steps: paper and theorem
    premise_checked: bool = False    # cited steps: the premise about this problem was checked
    reference_checked: bool = False  # cited steps: the theorem number was checked in the paper
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    scope: str = ""                  # machine steps: what was covered, when it is not
    #                                  "every input up to n = up_to" (e.g. "on 12 protocols
    #                                  at n = 66"); replaces that phrase in how()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"step kind {self.kind!r} is not one of {KINDS}")

    @property
    def status(self) -> str:
        if self.kind == "machine":
            if not self.ok:
                return FAILED
            if self.all_n:
                return "proven"
            if self.up_to is None and self.scope:  # not an "every input up to n" check
                return f"checked {self.scope}"
            return f"verified ≤ {self.up_to}"
        if self.kind == "cited":
            return "proven" if (self.premise_checked and self.reference_checked) else "cited"
        if self.kind == "missing":
            return "conditional"
        return "by hand"

    def how(self) -> str:
        if self.kind == "machine":
            scope = "for every n" if self.all_n else (self.scope or f"up to n = {self.up_to}")
            verdict = "checked" if self.ok else "FAILED"
            return f"by computer ({self.tool}), {verdict} {scope}"
        if self.kind == "cited":
            premise = "premise checked" if self.premise_checked else "premise not checked"
            ref = "" if self.reference_checked else "; theorem number not checked"
            return f"cited: {self.cite} ({premise}{ref})"
        if self.kind == "missing":
            return "MISSING: not established here; the claim is conditional on it"
        return "by hand (proof text)"

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "kind": self.kind, "statement": self.statement,
             "status": self.status, "how": self.how(), "seconds": round(self.seconds, 3)}
        if self.kind == "machine":
            d.update(ok=self.ok, all_n=self.all_n, up_to=self.up_to, tool=self.tool)
            if self.scope:
                d["scope"] = self.scope
        if self.kind == "cited":
            d.update(cite=self.cite, premise_checked=self.premise_checked,
                     reference_checked=self.reference_checked)
        if self.details:
            d["details"] = self.details
        return d


@dataclass
class Certificate:
    """What ``Claim.check(max_n)`` established, step by step, and the overall status."""

    claim: str
    title: str
    max_n: int
    steps: list[Step]
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.steps)

    @property
    def failed_steps(self) -> list[str]:
        return [s.name for s in self.steps if not s.ok]

    @property
    def conditions(self) -> list[str]:
        return [s.name for s in self.steps if s.kind == "missing"]

    @property
    def n_reached(self) -> int | None:
        bounds = [s.up_to for s in self.steps if s.kind == "machine" and not s.all_n
                  and s.up_to is not None]
        return min(bounds) if bounds else None

    @property
    def status(self) -> str:
        if not self.ok:
            return FAILED
        stats = [s.status for s in self.steps]
        if all(st == "proven" for st in stats):
            return "proven"
        if "conditional" in stats:
            return "conditional"
        if "cited" in stats:
            return "cited"
        n = self.n_reached
        return f"verified ≤ {n}" if n is not None else "cited"

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "title": self.title, "max_n": self.max_n,
                "status": self.status, "ok": self.ok, "n_reached": self.n_reached,
                "conditional_on": self.conditions, "failed_steps": self.failed_steps,
                "seconds": round(self.seconds, 3),
                "steps": [s.to_dict() for s in self.steps]}

    def to_markdown(self) -> str:
        out = [f"# Certificate: {self.claim}", "", f"**{self.title}**", "",
               f"- status: **{self.status}**", f"- check run with max_n = {self.max_n} "
               f"in {self.seconds:.2f} s"]
        if self.conditions:
            out.append(f"- conditional on: {', '.join(self.conditions)}")
        if self.failed_steps:
            out.append(f"- FAILED steps: {', '.join(self.failed_steps)}")
        out += ["", "| step | status | how | time |", "|---|---|---|---|"]
        for s in self.steps:
            out.append(f"| {s.name} | {s.status} | {s.how()} | {s.seconds:.2f} s |")
        out.append("")
        for s in self.steps:
            out += [f"## {s.name}", "", s.statement, "", f"*{s.how()}*"]
            if s.details:
                out.append("")
                for k, v in s.details.items():
                    if not k.startswith("_"):
                        out.append(f"- {k}: {v}")
            out.append("")
        return "\n".join(out)


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0


@dataclass
class Claim:
    """A result of the study: statement, assumptions, proof (Markdown) and its check.

    ``steps(max_n)`` returns the proof's steps with their checks run up to ``max_n``;
    ``min_n`` is the smallest max_n the check accepts, ``default_n`` the test-suite size.
    ``settles``: the matrix cells the claim decides, as (theory, reference task in the
    CLI's task syntax, verdict): the claim settles the cell of every task whose function
    is checked to be the reference's (:mod:`.match`); the reference's own cell takes the
    certificate's status, any other at most ``verified <= N`` (N the largest size checked).
    """

    name: str
    title: str
    statement: str
    assumptions: list[str]
    proof: str
    steps: Callable[[int], list[Step]]
    min_n: int = 1
    default_n: int = 4
    max_allowed_n: int = 64
    settles: tuple[tuple[str, str, str], ...] = ()

    def check(self, max_n: int | None = None) -> Certificate:
        n = self.default_n if max_n is None else max_n
        if not isinstance(n, int) or isinstance(n, bool) or not (
                self.min_n <= n <= self.max_allowed_n):
            raise ConfigError(
                f"claim {self.name}: max_n must be an integer in {self.min_n}.."
                f"{self.max_allowed_n}, got {max_n!r} (small values check fast; the "
                f"certificate says how far each step got)")
        t0 = time.perf_counter()
        steps = self.steps(n)
        return Certificate(self.name, self.title, n, steps, time.perf_counter() - t0)

    def to_markdown(self) -> str:
        assume = "\n".join(f"- {a}" for a in self.assumptions)
        return (f"# {self.name}: {self.title}\n\n## Statement\n\n{self.statement}\n\n"
                f"## Assumptions\n\n{assume}\n\n## Proof\n\n{self.proof}\n")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "statement": self.statement,
                "assumptions": self.assumptions, "proof": self.proof,
                "settles": [{"theory": t, "task": k, "verdict": v} for t, k, v in self.settles]}
