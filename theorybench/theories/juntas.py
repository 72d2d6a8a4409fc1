"""Rules on juntas (docs/theories.md, "Juntas"): a task whose label reads a bounded set of
positions fixed from the start and the end of the input, by the same function at every n,
detected on every input at small n (:func:`..formal.junta.find_junta`, never by the task's
name). Built on it:

* AC0: the junta's circuit - an OR over the accepted letter tuples of ANDs of one-hot token
  bits, depth 2 and the same size at every n where the offsets fit - built and verified by
  the construction machinery of the other circuit rules (:func:`.rules.construction_rule`).
* Star-free (both columns): a plain B-RASP program (:func:`..formal.junta.brasp_program`)
  checked against the task like a library program. The language it accepts is a finite
  Boolean combination of u Sigma* and Sigma* v (definite and reverse-definite events,
  Perles, Rabin & Shamir 1963; their Boolean combinations are Ginzburg's generalized
  definite languages, 1966), up to finitely many short words: star-free by the definition
  of star-free expressions (Sigma* is the complement of the empty set; McNaughton & Papert
  1971), so a masked hard-attention transformer recognizes it (Yang, Chiang & Angluin 2024:
  B-RASP programs compile to such transformers). A plain B-RASP program is also a
  B-RASP[pos] program.

Status: ``verified <= N``, N the largest n checked - the junta is seen on every input up to
its largest enumerable n and on samples at n = 32 and 64, never proved for every n.
"""

from __future__ import annotations

from typing import Any

from .. import tasks
from ..errors import TaskParameterError
from ..formal.brasp import ast as A
from ..formal.brasp.check import check_on_task
from ..formal.junta import brasp_program, circuit_builder, find_junta
from .base import Basis, Context, Prediction, RuleSkip, Status, Theory, Verdict
from .rules import construction_rule

STAR_FREE = ("a finite Boolean combination of u Sigma* and Sigma* v (definite and "
             "reverse-definite events, Perles, Rabin & Shamir 1963; generalized definite "
             "languages, Ginzburg 1966) and finitely many short words is star-free by the "
             "definition of star-free expressions (Sigma* = complement of the empty set; "
             "McNaughton & Papert 1971); B-RASP programs compile to masked hard-attention "
             "transformers (Yang, Chiang & Angluin 2024)")
AC0 = ("a junta of k positions is an OR of at most |Sigma|^k ANDs of one-hot token bits: "
       "depth 2, size independent of n (constant-depth, polynomial-size circuits: AC0)")

_BUILDERS: dict[str, Any] = {}


def _junta(family: str):
    j = find_junta(str(family))
    return RuleSkip(f"not a junta on positions fixed from the ends: {j}") \
        if isinstance(j, str) else j


def circuit_rule(theory: Theory, family: str, basis: str, ctx: Context) -> Prediction | RuleSkip:
    """The junta's circuit (depth 2, constant size), built and verified at the construction
    lengths like a library builder -> Easy, ``verified <= N``."""
    j = _junta(family)
    if isinstance(j, RuleSkip):
        return j
    key = str(family)
    if key not in _BUILDERS:
        _BUILDERS[key] = circuit_builder(key, j)
    out = construction_rule(theory, family, basis, ctx, given=(_BUILDERS[key], {
        "junta": j.to_dict(), "theorem": AC0,
        "status_note": ("the junta (its offsets and its function) is found on every input "
                        f"up to n = {max(j.checked_ns)} and on samples at n = "
                        f"{list(j.sampled_ns)}; the circuit is checked at the lengths of "
                        "the construction table, not proved for every n")}))
    if isinstance(out, Prediction):
        out.explanation = (f"{out.explanation}; the same junta at every n checked (every "
                           f"input up to n = {max(j.checked_ns)}, samples at n = "
                           f"{list(j.sampled_ns)})")
    return out


def program_rule(theory: Theory, family: str, ctx: Context) -> Prediction | RuleSkip:
    """A plain B-RASP program of the junta, checked against the task at every length of
    the junta's check and at the analysis n (every input where there are at most 2^16,
    2,000 samples beyond) -> Easy, ``verified <= N``."""
    j = _junta(family)
    if isinstance(j, RuleSkip):
        return j
    prog = brasp_program(j)
    cls = tasks.family(family)
    ns = sorted(set(j.checked_ns) | set(j.sampled_ns)
                | {n for n in cls.analysis_ns if n <= max(ctx.max_n, max(j.checked_ns))})
    rows = []
    for n in ns:
        try:
            task = tasks.get(family, n=n)
        except TaskParameterError:
            continue
        info, bad = check_on_task(prog, task, samples=2000, seed=ctx.seed)
        if bad is not None:
            return RuleSkip(f"the junta's B-RASP program fails at n={n}: {bad}",
                            {"junta": j.to_dict(), "counterexample": bad})
        rows.append({**info, "n": n})
    exhaustive = [r["n"] for r in rows if r.get("exhaustive")]
    sampled = [r["n"] for r in rows if not r.get("exhaustive")]
    top = max(r["n"] for r in rows)
    ev = {"junta": j.to_dict(), "program": "B-RASP program of the junta (formal/junta.py)",
          "text": A.to_text(prog), "by_n": rows, "depth": A.depth(prog), **A.size(prog),
          "theorem": STAR_FREE, "verified_up_to": int(top),
          "verified_how": (f"every input up to n = {max(exhaustive) if exhaustive else 'none'}"
                           + (f", samples at n = {sampled}" if sampled else "")),
          "extensions": []}
    return theory.prediction(
        family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
        f"the task is {j.describe()}, the same function at every n checked; a plain B-RASP "
        f"program of {len(prog.stmts)} statements (depth {A.depth(prog)}, the same for every "
        f"n) reads those positions and agrees with the reference at n = {[r['n'] for r in rows]}"
        f" ({ev['verified_how']}); {STAR_FREE}")


__all__ = ["circuit_rule", "program_rule"]
