"""Which catalogue reductions a theory may use, and the rule that uses them.

:mod:`theorybench.formal.reduction_catalogue` states and checks maps S -> T between task
variants. A map alone says nothing about a theory: "S reduces to T" gives "S is easy if
T is" only when the theory's class of easy problems is closed under precomposition with
the map, and then it gives both directions at once - T Easy => S Easy, and, as its
contrapositive, S Hard => T Hard. Where a class is not known to be closed under the map,
a Hard verdict can still transfer if the *argument* behind it does (a one-way
communication lower bound survives any split-preserving map); then only Hard
propagates. Each :class:`Closure` says which maps (kind, blow-up) it admits, in which
directions, for which source arguments, and why (with its source).

The closures, per theory (a theory class may set ``reduction_closures`` itself; these
are the defaults, keyed by theory name because the theory modules are maintained
separately):

* ac0, tc0 - projections of polynomial blow-up, both directions: AC0 and TC0 are closed
  under polynomial-size projections (projections as in Skyum & Valiant 1985; the closure
  is immediate: each output token is a constant or a function of one input token, i.e.
  of O(log n) input bits, a polynomial-size depth-2 circuit per bit, substituted below
  T's circuit).
* mpc - projections of polynomial blow-up and fan-out at most :data:`MPC_FANOUT`, both
  directions: each machine maps the tokens it holds (O(1) output tokens per input token,
  constants written by anyone) in one local step, so an R-round algorithm for T gives
  an (R + O(1))-round one for S; log n' = Theta(log n) keeps Omega(log n) bounds.
* bapo - split-preserving projections (monotone dependency map), both directions: an
  (a, b)-BAPO for T yields one for S (the argument in :mod:`theorybench.formal.bapo.hardness`,
  which uses it for Hard; the same construction is the Easy direction).
* crasp - (i) inclusions (the identity on a sub-alphabet), both directions: a program for
  T with its token tests for letters outside S's alphabet replaced by false is a program
  over S's alphabet that decides S (immediate); (ii) split-preserving projections of
  polynomial blow-up, Hard only, and only when the source's Hard rests on the one-way
  communication bound: the images of a conflict set of prefixes of S at a split are a
  conflict set of T at the image split, so T's one-way complexity at length L' >= S's at
  L, and with L' <= poly(L) it still outgrows P log(L'+1). (C-RASP is not known here to be
  closed under such maps, so nothing transfers for Easy, nor for Hard verdicts resting on
  other arguments such as flip-flop.)
* star_free - (i) inclusions, both directions (the same substitution in a B-RASP
  program or star-free expression); (ii) split-preserving projections, Hard only, for a
  source whose Hard rests on growing residual (Myhill-Nerode) classes, which transfer the same
  way.
* star_free_pos - inclusions only, both directions (a B-RASP[pos] program for T runs on
  S's words unchanged).
* sensitivity - none: its verdicts are about a distribution, which a map changes.

A map that preserves only a per-position task's main decision function (khop: the hop at
the last position) is not applied to cells, whose verdicts are about every position.
Only direct catalogue edges are used (no chains), and only between the matrix's default
rows and the task asked for, so ``predict`` of one cell agrees with the matrix.

Searched maps. For a task not shipped with theorybench (a task file, an entry point, a
family registered by user code), the rule also uses the maps that
:mod:`theorybench.formal.search.reductions` finds between it and the shipped rows of
``ctx.universe`` (letter maps with identity or reversed positions, checked on every input
up to N; at best ``verified <= N``). The search is not run for the shipped rows: their
cells come from their own rules and the static catalogue, which keeps the default matrix
as it was and ``predict`` over it as fast. Besides the closures above, a searched letter
map with identity positions (output token j = phi(input token j), one phi for every
position) is admitted by:

* crasp - both directions: C-RASP is closed under inverse homomorphisms (Yang, Veseli et
  al., cited in :mod:`.crasp`); for a letter-to-letter map the program for T with each
  token test Q_a replaced by the OR of Q_b over the letters b that phi sends to a decides
  S (immediate).
* star_free, star_free_pos - both directions: the same substitution in a star-free
  expression or a B-RASP[pos] program (star-free languages form a variety, closed under
  inverse morphisms: Schützenberger 1965, Eilenberg 1976).

A searched map may complement the labels. Every class above is closed under complement
(negate the circuit's output, the program's final Boolean, h's answer, the MPC output in
one more local step; a star-free language's complement is star-free), and the Hard
arguments named (one-way communication rows, residual classes) count the same for a
function and its complement, so a complemented map transfers like the plain one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import tasks
from ..formal import reduction_catalogue as RC
from ..formal.reduction_catalogue import BLOWUPS
from ..formal.search.reductions import search
from ..registry import BUILTIN, Registry
from ..tasks import TaskRef
from .prediction import (STATUS_ORDER, Basis, Context, Prediction, RuleSkip, Status, Verdict,
                         find_fit,
                         to_jsonable)
from .universe import default_tasks

#: Largest fan-out (output tokens per input token) the MPC closure admits.
MPC_FANOUT = 4
RULE_NAME = "checked reduction from the catalogue"


@dataclass(frozen=True)
class Closure:
    maps: str                 # "projection", "split-preserving", "inclusion"
    hard: bool = True
    easy: bool = False
    max_blowup: str = "polynomial"
    max_fanout: int | None = None
    #: rules of the source cell whose argument transfers (None: any - a true closure)
    hard_arguments: tuple[str, ...] | None = None
    why: str = ""

    def admits(self, entry, chk) -> str | None:
        """None if the map is of this closure's kind, else why not."""
        if BLOWUPS.index(entry.blowup) > BLOWUPS.index(self.max_blowup):
            return f"blow-up {entry.blowup} exceeds {self.max_blowup}"
        if self.maps == "letter":
            if not getattr(entry, "position_preserving", False):
                return "not a searched letter map with identity positions"
            if not _reads_own_position(chk):
                return "the check saw an output token read another position"
            return None
        if self.maps == "inclusion":
            return None if chk.is_inclusion else "not an inclusion of instance spaces"
        if entry.kind != "projection" or not chk.is_projection:
            return "not a checked projection"
        if self.maps == "split-preserving" and not chk.is_split_preserving:
            return "the projection is not split-preserving (its dependency map is not monotone)"
        if self.max_fanout is not None and (chk.max_fanout or 0) > self.max_fanout:
            return f"fan-out {chk.max_fanout} exceeds {self.max_fanout}"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"maps": self.maps, "hard": self.hard, "easy": self.easy,
                "max_blowup": self.max_blowup, "max_fanout": self.max_fanout,
                "hard_arguments": self.hard_arguments, "why": self.why}


_CIRCUITS = ("closed under polynomial-size projections (Skyum & Valiant 1985): each output "
             "token is a constant or a function of one input token (O(log n) bits, a "
             "polynomial-size depth-2 circuit per bit, substituted below T's circuit)")
_INCL = ("closed under restriction to a sub-alphabet: a program for T with its token tests "
         "for letters outside S's alphabet replaced by false decides S (immediate)")
_LETTER = ("closed under inverse letter-to-letter maps: a program for T with each token "
           "test Q_a replaced by the OR of Q_b over the letters b the map sends to a decides "
           "S (immediate)")
_SHIPPED_CLOSURES: dict[str, tuple[Closure, ...]] = {
    "ac0": (Closure("projection", easy=True, why="AC0 is " + _CIRCUITS),),
    "tc0": (Closure("projection", easy=True, why="TC0 is " + _CIRCUITS),),
    "mpc": (Closure("projection", easy=True, max_fanout=MPC_FANOUT,
                    why="a projection of bounded fan-out is one local step per machine "
                        "(each maps the tokens it holds), so R rounds for T give R + O(1) "
                        "for S; a polynomial blow-up keeps log n' = Theta(log n)"),),
    "bapo": (Closure("split-preserving", easy=True,
                     why="a split-preserving projection turns an (a, b)-BAPO for T into one "
                         "for S (formal/bapo/hardness.py; Schnabel et al., NeurIPS 2025, "
                         "BAPO definition cited)"),),
    "crasp": (Closure("inclusion", easy=True, max_blowup="identity",
                      why="C-RASP is " + _INCL),
              Closure("letter", easy=True, max_blowup="identity",
                      why="C-RASP is closed under inverse homomorphisms (Yang, Veseli et "
                          "al.; cited): in particular it is " + _LETTER),
              Closure("split-preserving", hard_arguments=("one-way communication",),
                      why="the one-way communication lower bound transfers through a "
                          "split-preserving map: images of conflicting prefixes of S "
                          "conflict for T at the image split, and L' <= poly(L)")),
    "star_free": (Closure("inclusion", easy=True, max_blowup="identity",
                          why="star-free languages are " + _INCL),
                  Closure("letter", easy=True, max_blowup="identity",
                          why="star-free languages form a variety, closed under inverse "
                              "morphisms (Schützenberger 1965; Eilenberg 1976): they are "
                              + _LETTER),
                  Closure("split-preserving", hard_arguments=("residual classes grow",),
                          why="growing residual (Myhill-Nerode) classes transfer through a "
                              "split-preserving map, as a one-way communication bound does")),
    "star_free_pos": (Closure("inclusion", easy=True, max_blowup="identity",
                              why="B-RASP[pos] is " + _INCL),
                      Closure("letter", easy=True, max_blowup="identity",
                              why="B-RASP[pos] is " + _LETTER),),
    "sensitivity": (),
}
#: theory name -> the closures its cells transfer under (the registry idiom; a user theory
#: registers its own, or sets ``reduction_closures`` on its class)
CLOSURES: Registry[tuple[Closure, ...]] = Registry("closure set")
for _theory, _closures in _SHIPPED_CLOSURES.items():
    CLOSURES.register(_closures, name=_theory)
NO_CLOSURE = {"sensitivity": "verdicts are about the task's distribution, which a map "
                             "changes; no reduction is applied"}


def closures_of(theory) -> tuple[Closure, ...]:
    own = getattr(type(theory), "reduction_closures", None)
    if own is not None:
        return tuple(own)
    return CLOSURES.get(theory.name) if theory.name in CLOSURES else ()


def _reads_own_position(chk) -> bool:
    """Every checked output token j was seen to depend on input token j or on none."""
    return bool(chk.by_n) and all(
        c.dependency is not None and c.source_length == c.target_length
        and all(d in (j, -1) for j, d in enumerate(c.dependency)) for c in chk.by_n)


# ---- the rule ---------------------------------------------------------------------------

def universe(family: str, ctx: Context | None = None) -> list[str]:
    """The tasks a cell may take a reduction from or to: those the runner handed over
    (``ctx.universe``, the matrix's default rows), else the default rows, and the task
    itself."""
    rows = ctx.universe if ctx is not None and ctx.universe is not None else default_tasks()
    return list(dict.fromkeys([*rows, family]))


def _weakest(*statuses: Status) -> Status:
    return max(statuses, key=lambda s: STATUS_ORDER.index(s))


def _argument(p: Prediction) -> str:
    return p.rule


def _combine(src: Prediction, chk) -> tuple[Status, dict[str, Any]] | None:
    """The cell's status (no stronger than the source's nor the check's ``verified <= N``)
    and the evidence keys that status needs; None if the source's status is unusable."""
    sev = to_jsonable(src.evidence)
    if src.status not in STATUS_ORDER:
        return None
    st = _weakest(src.status, Status.VERIFIED)
    ev: dict[str, Any] = {}
    if st == Status.VERIFIED:
        n = chk.verified_up_to
        if src.status == Status.VERIFIED:
            n = min(n, int(sev.get("verified_up_to") or n))
        ev["verified_up_to"] = int(n)
    elif st == Status.EXTRAPOLATED:
        fit = find_fit(sev)
        if fit is None:
            return None
        ev["fit"] = fit
    elif st == Status.CONDITIONAL:
        if not sev.get("condition"):
            return None
        ev["condition"] = sev["condition"]
    elif st == Status.CITED:
        if not sev.get("why_cited"):
            return None
        ev["why_cited"] = sev["why_cited"]
    return st, ev


def catalogue_rule(theory, family: str, ctx: Context, own_of) -> Prediction | RuleSkip:
    """Hard from a Hard source S with a checked S -> family; Easy from an Easy target T with
    a checked family -> T, where the theory's closures admit the map and direction.
    ``own_of(label)`` is the theory's own prediction (its rules without this one)."""
    cls = closures_of(theory)
    if not cls:
        return RuleSkip("no reduction is applied by this theory: "
                        + NO_CLOSURE.get(theory.name, "no closure property is recorded"))
    near = set(universe(family, ctx))
    cands = [("hard", e) for e in RC.into(family) if e.source_label in near]
    cands += [("easy", e) for e in RC.out_of(family) if e.target_label in near]
    found = searched(family, ctx)
    if found is not None:
        cands += [("hard", e) for e in found.into(family)]
        cands += [("easy", e) for e in found.out_of(family)]
    if not cands:
        return RuleSkip(f"no catalogue reduction into or out of {family} among the matrix's "
                        "tasks" + (f"; the reduction search found no map ({found.evaluations:,}"
                                   f" label evaluations)" if found is not None else ""),
                        {"search": found.to_dict()} if found is not None else {})
    fired: list[tuple[str, Any, Any, Prediction, Closure, Status, dict]] = []
    notes = []
    for direction, e in cands:
        other = e.source_label if direction == "hard" else e.target_label
        if e.main_only and any(tasks.family(f).output != "final"
                               for f in (e.source_family, e.target_family)):
            notes.append(f"{e.name}: preserves only the main decision function of a "
                         f"per-position task; cells are about every position")
            continue
        pred = own_of(other)
        want = Verdict.HARD if direction == "hard" else Verdict.EASY
        if pred.verdict != want:
            notes.append(f"{e.name}: {theory.name} on {other} is {pred.verdict.value}, not "
                         f"{want.value}")
            continue
        chk = e.check(seed=ctx.seed)
        bad = e.problems(chk)
        if bad:
            notes.append(f"{e.name}: check failed: {bad[0]}")
            continue
        why_not = []
        for c in cls:
            if direction == "easy" and not c.easy:
                why_not.append(f"{c.maps}: Easy does not transfer")
                continue
            if direction == "hard" and not c.hard:
                continue
            if (direction == "hard" and c.hard_arguments is not None
                    and _argument(pred) not in c.hard_arguments):
                why_not.append(f"{c.maps}: the source's Hard rests on '{pred.rule}', not on "
                               f"{' / '.join(c.hard_arguments)}")
                continue
            reason = c.admits(e, chk)
            if reason:
                why_not.append(f"{c.maps}: {reason}")
                continue
            comb = _combine(pred, chk)
            if comb is None:
                why_not.append(f"the source cell's status {pred.status.value} has no usable "
                               "evidence")
                break
            fired.append((direction, e, chk, pred, c, *comb))
            break
        else:
            notes.append(f"{e.name}: not admitted ({'; '.join(why_not) or 'no closure'})")
    verdicts = {d for d, *_ in fired}
    if len(verdicts) > 1:
        return RuleSkip("conflicting reductions: a Hard source and an Easy target both "
                        "reach this task, so the theory's own cells contradict each other",
                        {"conflict": [f"{d}: {e.name}" for d, e, *_ in fired]})
    if not fired:
        return RuleSkip("no admitted catalogue reduction has a decided cell at its other end"
                        f" ({'; '.join(notes)})", {"catalogue": notes})
    fired.sort(key=lambda f: STATUS_ORDER.index(f[5]))
    direction, e, chk, pred, c, status, extra = fired[0]
    other = pred.task
    src_cell = {"theory": pred.theory, "task": other, "verdict": pred.verdict.value,
                "basis": pred.basis.value, "status": pred.status.value,
                "status_label": pred.status_label, "rule": pred.rule,
                "explanation": pred.explanation}
    verdict = Verdict.HARD if direction == "hard" else Verdict.EASY
    sampled = chk.sampled
    full = ", ".join(str(c2.n) for c2 in chk.by_n if c2.exhaustive)
    checked = (f"checked on every source instance for n = {full}"
               + (f" and on K = {', '.join(f'{k} (n={n})' for n, k in sampled.items())} "
                  "random instances" if sampled else ""))
    ev = {"reduction": e.to_dict(chk), "source_cell" if direction == "hard" else "target_cell":
          src_cell, "closure": c.to_dict(), "direction": direction,
          "reduction_status": f"verified ≤ {chk.verified_up_to} (source n)",
          "other_reductions": [f"{d}: {x.name}" for d, x, *_ in fired[1:]], **extra}
    arrow = f"{other} -> {family}" if direction == "hard" else f"{family} -> {other}"
    if e.searched:
        ev["search"] = {"found_by": "formal/search/reductions.py", "letter_map": e.letter_map,
                        "positions": e.positions, "coverage": e.coverage,
                        "checked": f"every input at n = {list(e.ns)}",
                        "status_note": f"at best verified ≤ {chk.verified_up_to}: the map was "
                                       "found by search and checked on every input up to "
                                       f"n = {chk.verified_up_to}, not proved for all n"}
    if chk.is_inclusion:
        ev["map"] = ("the inclusion of the source's instances into the target's: the identity "
                     "on token arrays, the source's instance space a proper subset of the "
                     "target's (checked at every n)")
    expl = (f"{theory.name} says {verdict.value} on {other} ({pred.status_label}, rule "
            f"'{pred.rule}'); the catalogue reduction {arrow} ({e.name}; {e.size_formula}, "
            f"{e.blowup}; {checked}"
            + ("; an inclusion of instance spaces, the identity on token arrays"
               if chk.is_inclusion else "")
            + f") carries it to {family}: {c.why}")
    return Prediction(theory.name, family, verdict, Basis.REDUCTION, status, ev, expl)


def shipped(family: str) -> bool:
    """Whether the task's family ships with theorybench (its registry origin)."""
    return tasks.registry.FAMILIES.origin(TaskRef.of(family).family) == BUILTIN


def searched(family: str, ctx: Context | None = None):
    """The reduction search's result for a task not shipped with theorybench, against the
    shipped rows of the universe (cached by the identities of both); None for a shipped
    task (module docstring)."""
    if shipped(family):
        return None
    rows = [r for r in universe(family, ctx) if r != family and shipped(r)]
    return search(family, rows)


__all__ = ["Closure", "CLOSURES", "closures_of", "catalogue_rule", "universe", "RULE_NAME",
           "MPC_FANOUT", "searched", "shipped"]
