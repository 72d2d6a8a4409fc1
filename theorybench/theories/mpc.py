"""Theory "mpc": massively parallel computation with sublinear memory (docs/theories.md §5).

Sources: Sanford, Hsu, Telgarsky, "Transformers, parallel computation, and logarithmic
depth", ICML 2024 (arXiv 2402.09268): an R-round MPC protocol with local memory
s = O(N^delta) is simulated by a transformer of depth O(R), and conversely (their
simulation theorems in both directions, with stated width and machine counts; cited
without theorem numbers, which were not checked against the paper); Sanford et al.,
"Understanding transformer reasoning capabilities via graph algorithms", NeurIPS 2024
(arXiv 2405.18512) for graph connectivity.

Rules:

1. construction - the family's program (:mod:`.mpc.algorithms`) runs in the simulator
   (:mod:`.mpc.simulator`: every machine sees only its own memory and inbox, memory
   s = ceil(c N^delta) per machine and per round is enforced) on 1,000 sampled instances
   per n for growing n, every output is compared with the task's reference, a few
   instances are re-run with every machine recomputed alone (the locality check), and its
   measured round count is bounded over n at the fixed delta -> Easy (constant depth),
   status ``verified <= N`` (a fixed algorithm checked on K samples up to n = N; the
   all-n verdict extrapolates from it). A program that cannot run within memory at this
   delta (dyck with k > 1 needs delta >= 1/2 at the default memory constant) skips with
   the simulator's message.
   Where the library has no algorithm: the automaton fold of a regular task, then the
   formula of the circuit template search (formal/search/circuits.py) run as an MPC
   program (formal/mpc/formula.py) and judged the same way -> Easy, ``verified <= N``.
2. reduction - a checked reduction from 1-cycle vs 2-cycles (:mod:`.mpc.cycles`) ->
   Hard, CONDITIONAL on the 1-vs-2-cycle conjecture (the standard MPC hardness assumption,
   used for conditional lower bounds by Ghaffari, Kuhn, Uitto, FOCS 2019, and by Sanford,
   Hsu, Telgarsky 2024, whose Omega(log k) depth lower bound for k-hop induction heads,
   matching their O(log k) construction, is conditional on it; cited without theorem
   numbers): Omega(log N) rounds, hence depth Omega(log N) for transformers of sublinear
   width. Every MPC lower bound is conditional. A khop task has a fixed number of hops k,
   so the O(log k) depth is a constant there and rule 1 applies.

Task variants of the matrix (``khop:k=2``, ``dyck:k=1``) run the family's program on the
variant's instances.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import tasks
from ..errors import ResourceLimitError
from ..formal.mpc.algorithms import MPC_ALGORITHMS, algorithm_for, base_name, measure
from ..formal.mpc.cycles import CYCLE_REDUCTIONS
from ..formal.mpc.formula import formula_program
from ..formal.mpc.simulator import LocalityError
from ..formal.search import circuits as circuit_search
from .base import Basis, Context, RuleSkip, Status, Theory, Verdict, rule
from .regular import mpc_fold_rule
from ..formal.growth import classify_growth

#: The n at which a family's algorithm is measured, each moved up to the family's next
#: valid n (at most SNAP - 1 further).
DEFAULT_NS = (16, 64, 256, 1024)
SNAP = 8


#: The simulation result the Easy cells rest on (a citation: the premise "the task is solved
#: in R rounds" is what rule 1 checks on samples; the theorem itself is not checked here).
SIMULATION = ("an R-round MPC protocol with local memory O(N^delta) is simulated by a "
              "transformer of depth O(R) (Sanford, Hsu, Telgarsky, ICML 2024, arXiv "
              "2402.09268; cited without theorem number)")
#: The conditional lower bound behind the Hard cells.
CYCLES_BOUND = ("conditional on the 1-vs-2-cycles conjecture, depth Omega(log N) for "
                "connectivity at sublinear width (Sanford, Hsu, Telgarsky 2024; Sanford et "
                "al. 2024, arXiv 2405.18512; cited without theorem number)")

#: Sampled instances per n, every one checked against the task's reference.
INSTANCES = 1000
#: Of them, run again with every machine of every round recomputed alone.
LOCALITY_CHECKED = 2


def mpc_ns(family: str) -> list[int]:
    """The n the MPC rules measure at, from the task, never its name: the sizes the task
    class declares for MPC (``mpc_ns``, e.g. graph tasks whose label propagation needs as
    many rounds as the graph is long), else each of DEFAULT_NS moved up to the task's next
    valid n (majority: odd n), else - for a task whose n is capped below them - the task's
    training sizes and largest n."""
    cls = tasks.family(family)
    declared = getattr(cls, "mpc_ns", None)
    if declared:
        return [n for n in declared if cls.accepts(n=n)]
    top = cls.param("n").maximum
    out: list[int] = []
    for target in DEFAULT_NS:
        for n in range(target, target + SNAP):
            if top is not None and n > top:
                break
            if cls.accepts(n=n):
                out.append(n)
                break
    if len(out) < 3:
        extra = [n for n in (*cls.train_ns, top) if n is not None and cls.accepts(n=n)]
        out = sorted(set(out) | set(extra))[-len(DEFAULT_NS):]
    return out


@functools.lru_cache(maxsize=64)
def rounds_by_n(family: str, delta: float, seed: int = 0,
                instances: int = INSTANCES) -> dict[int, Any]:
    """{n: measure(...)} for the family's program at ``delta`` (cached per process).

    ``family`` may be a matrix variant label (``khop:k=2``), registered as a task family
    while predictions run; the program is the base family's."""
    if not MPC_ALGORITHMS.for_task(base_name(family)):
        return {}
    rng = np.random.default_rng(seed)
    return {n: measure(tasks.get(family, n=n), rng, delta, instances, strict=LOCALITY_CHECKED)
            for n in mpc_ns(family)}


class MPCTheory(Theory):
    name = "mpc"
    title = "MPC (massively parallel computation, sublinear memory)"
    summary = ("R rounds of massively parallel computation with memory N^delta per machine "
               "correspond to transformers of depth O(R) (Sanford, Hsu, Telgarsky 2024). "
               "Easy = an algorithm, run in the simulator and checked, whose rounds stay "
               "bounded as n grows; Hard = a checked reduction from 1-cycle versus 2-cycles, "
               "conditional on that conjecture.")
    assumptions = ("machines with local memory s = O(N^delta), 0 < delta < 1; rounds of local "
                   "computation and message exchange of at most s words per machine",
                   "R rounds <-> transformer depth O(R) (Sanford, Hsu, Telgarsky 2024)",
                   "Easy = rounds bounded in N at fixed delta (constant depth)")
    sources = ("Sanford, Hsu, Telgarsky, 'Transformers, parallel computation, and logarithmic "
               "depth', ICML 2024, arXiv 2402.09268",
               "Sanford et al., 'Understanding transformer reasoning capabilities via graph "
               "algorithms', NeurIPS 2024, arXiv 2405.18512",
               "Ghaffari, Kuhn, Uitto, 'Conditional hardness results for massively parallel "
               "computation from distributed lower bounds', FOCS 2019")

    @rule("algorithm with bounded rounds", Basis.CONSTRUCTION)
    def bounded_rounds(self, family: str, ctx: Context):
        """The family's MPC algorithm is correct on instances and its rounds stay flat in n."""
        delta = float(ctx.options.get("mpc_delta", 0.5))
        try:
            by_n = rounds_by_n(family, delta, ctx.seed)
        except ResourceLimitError as exc:  # the algorithm does not fit at this delta
            return RuleSkip(f"the algorithm exceeds the memory bound at delta={delta}: {exc}")
        if not by_n:
            return RuleSkip(f"no MPC algorithm for {family} in the library")
        return self._judge(family, by_n, delta, _algorithm_name(family), {})

    def _judge(self, family: str, by_n: dict, delta: float, name: str, extra: dict):
        """Easy when every sampled output is right and the rounds stay flat over n."""
        wrong = {n: {"count": r["wrong_count"], "examples": r["wrong"]}
                 for n, r in by_n.items() if r["wrong_count"]}
        if wrong:
            return RuleSkip("the algorithm disagrees with the task reference", {"wrong": wrong})
        ns = sorted(by_n)
        rounds = [by_n[n]["rounds"] for n in ns]
        fit = classify_growth(ns, rounds)
        ev = {"delta": delta, "rounds_by_n": dict(zip(ns, rounds)),
              "max_memory_by_n": {n: by_n[n]["max_memory"] for n in ns},
              "s_by_n": {n: by_n[n]["s"] for n in ns}, "fit": fit.to_dict(),
              "algorithm": name, "theorem": SIMULATION, **extra}
        if fit.bounded or len(set(rounds[-3:])) == 1:
            # a fixed algorithm run on sampled instances up to the largest n
            ev.update(verified_up_to=int(ns[-1]),
                      verified_how=(f"sampled: {min(by_n[n]['checked'] for n in ns)} per n "
                                    f"at n = {', '.join(str(n) for n in ns)}"),
                      instances_per_n={n: by_n[n]["checked"] for n in ns},
                      locality_checked_per_n={n: by_n[n]["locality_checked"] for n in ns},
                      machines_by_n={n: by_n[n]["machines"] for n in ns},
                      check=(f"{min(by_n[n]['checked'] for n in ns)} sampled instances per n "
                             f"(K samples, not all inputs) matched the task reference; the "
                             f"program never receives the input, and its round functions "
                             f"gave the same result recomputed machine by machine on "
                             f"{min(by_n[n]['locality_checked'] for n in ns)} instances per n"))
            return self.prediction(
                family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
                f"'{ev['algorithm']}' solves {family} in at most {max(rounds)} rounds with memory "
                f"s = O(N^{delta}) at n={ns} (checked against the task on "
                f"{by_n[ns[-1]]['checked']} samples per n): constant rounds, so "
                f"constant transformer depth (Sanford, Hsu, Telgarsky 2024)")
        return RuleSkip(f"the algorithm's rounds grow with n ({fit.formula})", ev)

    @rule("automaton fold", Basis.CONSTRUCTION)
    def automaton_fold(self, family: str, ctx: Context):
        """A regular task (its given automaton, else the learned one): the blocks'
        transition functions composed up a tree, run in the simulator and checked against
        the task on samples; O(1/delta) rounds (docs/theories.md, "Regular tasks")."""
        return mpc_fold_rule(self, family, ctx, mpc_ns(family))

    @rule("searched algorithm (template formula)", Basis.CONSTRUCTION)
    def searched_formula(self, family: str, ctx: Context):
        """No library algorithm: the formula the circuit template search finds
        (formal/search/circuits.py) run as an MPC program (formal/mpc/formula.py), judged
        like a library algorithm -> Easy, verified <= N. After the automaton fold, so that
        a regular task keeps its automaton's algorithm."""
        if MPC_ALGORITHMS.for_task(base_name(family)):
            return RuleSkip(f"the library has an MPC algorithm for {family}; no search")
        found, _ = circuit_search.builder_for(family, "tc0")
        if found.formula is None:
            return RuleSkip(f"the circuit template search found no formula to run: "
                            f"{found.reason}", {"circuit_search": found.to_dict()})
        delta = float(ctx.options.get("mpc_delta", 0.5))
        program = formula_program(found.formula, found.letters)
        rng = np.random.default_rng(ctx.seed)
        by_n, left_out = {}, {}
        for n in mpc_ns(family):
            try:
                by_n[n] = measure(tasks.get(family, n=n), rng, delta, INSTANCES,
                                  strict=LOCALITY_CHECKED, algorithm=program)
            except LocalityError as exc:   # a wrong program, not a small memory
                return RuleSkip(f"the formula's program failed the locality check at n={n}: "
                                f"{exc}", {"circuit_search": found.to_dict()})
            except ResourceLimitError as exc:  # a record wider than a tiny n's memory
                left_out[n] = str(exc)
        if len(by_n) < 3:
            return RuleSkip(f"the formula's program fits the memory bound at delta={delta} "
                            f"for {len(by_n)} of the measured n (need 3): {left_out}",
                            {"circuit_search": found.to_dict()})
        return self._judge(family, by_n, delta, f"template formula {found.text} (found by "
                           f"the circuit template search, every input checked at n = "
                           f"{list(found.checked_ns)})",
                           {"circuit_search": found.to_dict(),
                            **({"sizes_left_out": left_out} if left_out else {})})

    @rule("checked reduction from 1-cycle vs 2-cycles", Basis.REDUCTION)
    def cycles(self, family: str, ctx: Context):
        """1-cycle vs 2-cycles reduces to the family -> Hard, conditional on the conjecture."""
        found = CYCLE_REDUCTIONS.for_task(family.split(":", 1)[0])
        if not found:
            return RuleSkip("no reduction from 1-cycle vs 2-cycles into this family is known here")
        red = found[0][1](family)
        chk = red.check([6, 10], samples=100, rng=np.random.default_rng(ctx.seed))
        if not chk.ok:
            return RuleSkip("the reduction failed its check", {"check": chk.to_dict()})
        conj = ("1-cycle vs 2-cycles needs Omega(log N) MPC rounds at memory O(N^delta), "
                "delta < 1 (Ghaffari, Kuhn, Uitto 2019)")
        ev = {"reduction": red.name, "check": chk.to_dict(), "conjecture": conj,
              "theorem": CYCLES_BOUND,
              "condition": "the 1-vs-2-cycles conjecture: " + conj}
        delta = float(ctx.options.get("mpc_delta", 0.5))
        try:
            measured = rounds_by_n(family, delta, ctx.seed)
        except ResourceLimitError:
            measured = {}
        if measured:
            ev["label_propagation_rounds_by_n"] = {n: r["rounds"] for n, r in measured.items()}
        return self.prediction(
            family, Verdict.HARD, Basis.REDUCTION, Status.CONDITIONAL, ev,
            f"1-cycle vs 2-cycles reduces to {family} (bipartite double cover, checked on "
            f"samples); conditional on the 1-vs-2-cycle conjecture it needs Omega(log N) rounds, "
            f"so depth Omega(log N) (Sanford et al. 2024)")


def _algorithm_name(family: str) -> str:
    return algorithm_for(base_name(family)).description



#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (MPCTheory,)

__all__ = ["MPCTheory", "rounds_by_n", "mpc_ns"]
