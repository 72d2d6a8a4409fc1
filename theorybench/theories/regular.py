"""Regular tasks decided from their automaton, shared by the Star-free, AC0, TC0, MPC and
BAPO theories (docs/theories.md, "Regular tasks").

The automaton of a task (:func:`task_automaton`): the *exact* one when the task gives it
(a task file with REGEX or DFA: ``FileTask.table`` is the task's label function at every
n), else the minimal automaton *learned* from the task's language view and checked on all
words up to a length L (:func:`..formal.automata.learn_dfa`).  It is minimised; its
transition monoid is then the syntactic monoid, and the rules read it:

* Star-free: aperiodic <=> star-free (Schutzenberger 1965) <=> B-RASP / masked hard
  attention without positions (Yang, Chiang & Angluin, NeurIPS 2024).
* AC0 (and Star-free[pos]): quasi-aperiodic syntactic morphism <=> in AC0 (Barrington,
  Compton, Straubing & Therien, JCSS 44, 1992).
* TC0: only solvable groups => in ACC0 (Barrington & Therien, JACM 35, 1988), inside TC0;
  a non-solvable group => NC1-complete (Barrington, JCSS 38, 1989), so not in TC0 unless
  TC0 = NC1 (conditional).
* MPC: the transition-function fold (:mod:`..formal.mpc.automaton`), run in the simulator.
* BAPO: the automaton protocol (:mod:`..formal.bapo.automaton`), verified.

A task file is defined only at the lengths in its LENGTHS; the rules read the automaton's
language at every length.  Finite changes do not matter: star-free, AC0, ACC0 and TC0 are each
closed under changing finitely many words, so the monoid facts decide the task.

Bases: an Easy cell that rests on one of these theorems has basis ``theorem`` (the premise,
the monoid property, was computed; no circuit or program was built), a Hard cell
``lower-bound`` (the syntactic monoid is the computed quantity); the MPC fold and the BAPO
protocol are constructions.

Statuses: the theorem numbers of these papers were not found with the search tool, so a
rule resting on one of them is ``cited`` (its premise - the monoid property - computed
exactly for a given automaton, up to L for a learned one) or ``conditional`` (TC0 Hard).
The BAPO protocol of an exact automaton needs no theorem: it is correct at every n by
construction (``proven``); MPC and learned automata are ``verified <= N``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import tasks
from ..errors import ResourceLimitError, TaskParameterError
from ..formal.automata import (DFA, aperiodicity, find_failing_view, learn_dfa,
                               quasi_aperiodicity)
from ..formal.automata.groups import solvability
from ..formal.bapo.automaton import dfa_protocol, verify_by_n
from ..formal.growth import classify_growth
from ..formal.mpc.automaton import (automaton_program, level_bound, measure_automaton,
                                    memory_constant)
from ..formal.language import is_language
from ..tasks.base import PAD
from .base import Basis, Context, Prediction, RuleSkip, Status, Theory, Verdict

SCHUTZENBERGER = ("Schutzenberger, 'On finite monoids having only trivial subgroups', "
                  "Information and Control 8 (1965): a regular language is star-free iff its "
                  "syntactic monoid is aperiodic; Yang, Chiang & Angluin, NeurIPS 2024 (arXiv "
                  "2310.13897): star-free = B-RASP = masked hard attention without positions")
BCST = ("Barrington, Compton, Straubing & Therien, 'Regular languages in NC1', JCSS 44 "
        "(1992): a regular language is in AC0 iff its syntactic morphism is quasi-aperiodic")
BT88 = ("Barrington & Therien, 'Finite monoids and the fine structure of NC1', JACM 35 "
        "(1988): a regular language whose syntactic monoid has only solvable groups is in "
        "ACC0, which is inside TC0 (MOD_m gates are threshold circuits)")
BARRINGTON89 = ("Barrington, 'Bounded-width polynomial-size branching programs recognize "
                "exactly those languages in NC1', JCSS 38 (1989); Barrington, Compton, "
                "Straubing & Therien (1992): a regular language whose syntactic monoid "
                "contains a non-solvable group is NC1-complete under AC0 reductions")
TC0_NC1 = "TC0 != NC1"


@dataclass
class TaskAutomaton:
    """The minimal automaton of a task, exact or learned, and how tokens map to letters."""

    dfa: DFA
    exact: bool
    how: str
    check_len: int | None = None
    learned: dict[str, Any] | None = None
    letter_of_token: np.ndarray | None = None

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = {"automaton_source": self.how, "states": self.dfa.size,
                              "exact": self.exact}
        if self.dfa.size <= 40:
            ev["automaton"] = self.dfa.to_dict()
        if not self.exact:
            ev["learned"] = self.learned
            ev["verified_up_to"] = int(self.check_len or 0)
        return ev

    def premise(self) -> str:
        if self.exact:
            return (f"the task's own {self.dfa.size}-state minimal automaton ({self.how}), "
                    f"exact at every n")
        return (f"the {self.dfa.size}-state minimal automaton learned from the task and "
                f"checked on all words up to length {self.check_len}")


@functools.lru_cache(maxsize=128)
def _automaton(family: str, check_len: int | None) -> TaskAutomaton | str:
    cls = tasks.family(family)
    table = getattr(cls, "table", None)
    if table is not None:
        alphabet = tuple(getattr(cls, "alphabet", ()))
        if len(alphabet) != table.delta.shape[1]:
            return "the task's automaton does not match its alphabet"
        raw = DFA(alphabet, np.asarray(table.delta, dtype=np.int64),
                  np.asarray(table.accept, dtype=np.int64), int(table.start))
        # FileTask token ids are the alphabet's indices, the automaton's letters
        return TaskAutomaton(raw.minimize(), True,
                             f"{getattr(cls, 'definition', 'automaton')} of the task file, "
                             f"{raw.size} states before minimisation",
                             letter_of_token=np.arange(len(alphabet)))
    ok, why = is_language(family)
    if not ok:
        return f"not a language: {why}; the automaton rules do not apply"
    res = learn_dfa(family, check_len=check_len)
    if res.status != "regular" or res.dfa is None:
        return f"no automaton of the task ({res.status}: {res.reason[:200]})"
    return TaskAutomaton(res.dfa, False, "learned from the task's language view",
                         int(res.check_len), res.to_dict())


@dataclass
class ExactCheck:
    """A given automaton compared with the task on every input up to ``check_len`` (the
    task's independent oracle where it has one: Python's regex engine for a REGEX), in the
    shape the group rules read from a learning result."""

    dfa: DFA
    check_len: int
    how: str

    def to_dict(self) -> dict[str, Any]:
        return {"status": "exact", "source": self.how, "dfa_states": self.dfa.size,
                "check_len": self.check_len,
                "reason": (f"the task's own automaton, compared with the task's oracle on "
                           f"every input up to n = {self.check_len}")}


#: Inputs per n the comparison of a given automaton with the task's oracle enumerates.
EXACT_CHECK_INPUTS = 1 << 12


@functools.lru_cache(maxsize=64)
def exact_check(family: str) -> ExactCheck | str:
    """The task's given automaton, minimised, compared on all inputs of every n up to the
    largest with at most EXACT_CHECK_INPUTS inputs; a mismatch is returned as a str."""
    auto = _automaton(family, None)
    if isinstance(auto, str) or not auto.exact:
        return "the task gives no automaton"
    cls = tasks.family(family)
    top = 0
    for n in cls.valid_ns(hi=64):
        task = tasks.get(family, n=n)
        if len(task.vocab) ** n > EXACT_CHECK_INPUTS:
            break
        x = task.enumerate()
        try:
            want = np.asarray(task.oracle(x)).reshape(-1)
        except NotImplementedError:
            want = np.asarray(task.label(x)).reshape(-1)
        got = auto.dfa.evaluate(x)
        if not np.array_equal(got, want):
            i = int(np.flatnonzero(got != want)[0])
            return (f"the minimised automaton disagrees with the task at n={n} on "
                    f"{task.render(x[i])}: {int(got[i])} vs {int(want[i])}")
        top = n
    return ExactCheck(auto.dfa, top, auto.how)


def task_automaton(family: str, ctx: Context, learned: bool = True
                   ) -> TaskAutomaton | RuleSkip:
    """The task's exact automaton, or (when ``learned``) its learned and checked one."""
    check = ctx.options.get("check_len")
    cls = tasks.family(family)
    if getattr(cls, "table", None) is None and not learned:
        return RuleSkip("the task gives no automaton (REGEX or DFA); the learned one is "
                        "used by a later rule")
    got = _automaton(str(family), int(check) if check else None)
    return RuleSkip(got) if isinstance(got, str) else got


def letter_map(auto: TaskAutomaton, task) -> np.ndarray:
    """Task token id -> the automaton's letter index (the pad token, never in an input,
    to letter 0)."""
    if auto.letter_of_token is not None:
        return auto.letter_of_token
    index = {a: i for i, a in enumerate(auto.dfa.alphabet)}
    missing = [t for t in task.vocab if t != PAD and t not in index]
    if missing:
        raise TaskParameterError(f"token {missing[0]!r} of {task.name} is not a letter of "
                                 f"its automaton")
    return np.array([index.get(t, 0) for t in task.vocab], dtype=np.int64)


def _limit(ctx: Context) -> int:
    return int(ctx.options.get("monoid_limit", 20000))


@functools.lru_cache(maxsize=256)
def _property(family: str, check_len: int | None, which: str, limit: int):
    auto = _automaton(family, check_len)
    test = {"aperiodic": aperiodicity, "quasi": quasi_aperiodicity,
            "solvable": solvability}[which]
    return test(auto.dfa, limit)


def monoid_fact(auto_family: str, ctx: Context, which: str):
    """(holds, info) of ``which`` (aperiodic, quasi, solvable) for the task's automaton."""
    check = ctx.options.get("check_len")
    return _property(str(auto_family), int(check) if check else None, which, _limit(ctx))


def _cite(theory: Theory, family: str, verdict: Verdict, basis: Basis, auto: TaskAutomaton,
          theorem: str, fact: dict[str, Any], expl: str,
          condition: str = "") -> Prediction:
    ev = {**auto.evidence(), "theorem": theorem, "monoid": fact}
    if condition:
        ev["condition"] = condition
        status = Status.CONDITIONAL
    else:
        status = Status.CITED
        ev["why_cited"] = (f"the theorem is cited without its number (none could be checked "
                           f"with the search tool); its premise was computed on {auto.premise()}")
    return theory.prediction(family, verdict, basis, status, ev,
                             f"{auto.premise()}: {expl}")


def _guard(fn):
    """A monoid past its limit makes the rule skip, saying so."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ResourceLimitError as exc:
            return RuleSkip(str(exc))
    return run


# ---- Star-free, AC0, TC0: monoid facts and the theorems ------------------------------------

@_guard
def aperiodic_rule(theory: Theory, family: str, ctx: Context) -> Prediction | RuleSkip:
    """Exact automaton: aperiodic -> Easy, else Hard (Schutzenberger; Yang et al.)."""
    auto = task_automaton(family, ctx, learned=False)
    if isinstance(auto, RuleSkip):
        return auto
    ok, wit = monoid_fact(family, ctx, "aperiodic")
    if ok:
        return _cite(theory, family, Verdict.EASY, Basis.THEOREM, auto, SCHUTZENBERGER,
                     {"aperiodic": True}, "its syntactic monoid is aperiodic, so the language "
                     "is star-free and a B-RASP program (a masked hard-attention transformer "
                     "without positions) recognizes it")
    return _cite(theory, family, Verdict.HARD, Basis.LOWER_BOUND, auto, SCHUTZENBERGER,
                 {"aperiodic": False, "witness": wit}, f"{wit['explanation']}; not star-free, "
                 f"so no masked hard-attention transformer without positions recognizes it")


@_guard
def quasi_rule(theory: Theory, family: str, ctx: Context, model: str, exact: bool = True
               ) -> Prediction | RuleSkip:
    """Quasi-aperiodic -> Easy (in AC0), else Hard (BCST 1992). With ``exact=False`` the
    learned automaton is used; its Hard side needs a failing view whose domain is
    quasi-aperiodic (:func:`..formal.automata.find_failing_view`)."""
    auto = task_automaton(family, ctx, learned=not exact)
    if isinstance(auto, RuleSkip):
        return auto
    if not exact and auto.exact:
        return RuleSkip("the task's exact automaton was used by the rule before")
    ok, info = monoid_fact(family, ctx, "quasi")
    if ok:
        return _cite(theory, family, Verdict.EASY, Basis.THEOREM, auto, BCST,
                     {"quasi_aperiodic": True, **info},
                     f"its syntactic morphism is quasi-aperiodic (stability index "
                     f"{info['stability_index']}), so the language is in AC0 ({model})")
    if not exact:
        check = ctx.options.get("check_len")
        found = find_failing_view(family, lambda d, v: quasi_aperiodicity(d, _limit(ctx)),
                                  "quasi-aperiodic", int(check) if check else None)
        if isinstance(found, str):
            return RuleSkip(found)
        label, _res, info = found
        info = {**info, "restricted_to": label}
    return _cite(theory, family, Verdict.HARD, Basis.LOWER_BOUND, auto, BCST,
                 {"quasi_aperiodic": False, "witness": info},
                 f"{info['explanation']}; the morphism is not quasi-aperiodic, so the "
                 f"language is not in AC0 ({model})")


@_guard
def solvable_rule(theory: Theory, family: str, ctx: Context, exact: bool = True
                  ) -> Prediction | RuleSkip:
    """Only solvable groups -> Easy (ACC0, inside TC0); a non-solvable group -> Hard,
    conditional on TC0 != NC1 (exact automaton only: a learned witness group is not
    checked against the task beyond L)."""
    auto = task_automaton(family, ctx, learned=not exact)
    if isinstance(auto, RuleSkip):
        return auto
    if not exact and auto.exact:
        return RuleSkip("the task's exact automaton was used by the rule before")
    ok, info = monoid_fact(family, ctx, "solvable")
    if ok:
        return _cite(theory, family, Verdict.EASY, Basis.THEOREM, auto, BT88,
                     {"solvable": True, **info},
                     f"every group in its syntactic monoid is solvable (maximal subgroup "
                     f"orders {info['maximal_subgroup_orders']}), so the language is in "
                     f"ACC0, inside TC0")
    if not exact:
        return RuleSkip("the learned automaton's monoid has a non-solvable group; only a "
                        "given automaton supports the conditional Hard", {"monoid": info})
    return _cite(theory, family, Verdict.HARD, Basis.LOWER_BOUND, auto, BARRINGTON89,
                 {"solvable": False, **info}, f"{info['explanation']} (order "
                 f"{info['witness']['order']}); the language is NC1-complete, hence not in "
                 f"TC0 unless TC0 = NC1", condition=TC0_NC1)


# ---- MPC and BAPO: the automaton's own algorithm and protocol -------------------------------

#: Sampled instances per n for the MPC fold (as the MPC theory's other algorithms).
MPC_INSTANCES = 1000
#: Input lengths beyond the task's own at which an exact automaton's fold is also run,
#: checked against the task's automaton table (its label function at every length).
MPC_BEYOND = (256, 1024)


def _fold_inputs(family: str, auto: TaskAutomaton, n: int, rng) -> tuple:
    """(task, x, reference labels) of sampled inputs of length n: the task's own instances
    where the task is defined, the task's automaton table beyond its lengths."""
    cls = tasks.family(family)
    try:
        task = tasks.get(family, n=n)
    except TaskParameterError:
        table = getattr(cls, "table", None)
        if table is None:
            raise
        task = tasks.get(family)
        labels = rng.integers(0, 2, size=MPC_INSTANCES)
        p1 = float(table.accept_probability(n)[n, table.start])
        labels = np.where(p1 == 0, 0, np.where(p1 == 1, 1, labels))
        x = table.sample(rng, labels, n)
        return task, x, table.run(x)
    df = task.decision_view()[0]
    x = np.asarray(df.sample(rng, MPC_INSTANCES), dtype=np.int64)
    return task, x, np.asarray(df.evaluate(x)).reshape(-1)


@_guard
def mpc_fold_rule(theory: Theory, family: str, ctx: Context, ns: list[int]
                  ) -> Prediction | RuleSkip:
    """The automaton's transition functions folded up a tree (:mod:`..formal.mpc.automaton`),
    run in the simulator on sampled inputs at growing n and checked against the task."""
    auto = task_automaton(family, ctx)
    if isinstance(auto, RuleSkip):
        return auto
    delta = float(ctx.options.get("mpc_delta", 0.5))
    rng = np.random.default_rng(ctx.seed)
    sizes = sorted(set(ns) | (set(MPC_BEYOND) if auto.exact else set()))
    rows: dict[int, dict[str, Any]] = {}
    c = None
    for n in sizes:
        task, x, want = _fold_inputs(family, auto, n, rng)
        dfa = auto.dfa
        if c is None:
            c = memory_constant(dfa.size, x.shape[1], delta)
        prog = automaton_program(dfa.delta, dfa.start, dfa.output, letter_map(auto, task))
        rows[n] = measure_automaton(task, x, want, prog, dfa.size, delta, c)
    wrong = {n: r["wrong"] for n, r in rows.items() if r["wrong_count"]}
    if wrong:
        return RuleSkip("the automaton fold disagrees with the task", {"wrong": wrong})
    ns_ = sorted(rows)
    if len(ns_) < 3:
        return RuleSkip(f"the fold ran at only {len(ns_)} sizes ({ns_}); three are needed to "
                        f"see whether its rounds grow")
    rounds = [rows[n]["rounds"] for n in ns_]
    fit = classify_growth(ns_, rounds)
    ev = {**auto.evidence(), "delta": delta, "memory_constant": round(c, 3),
          "rounds_by_n": dict(zip(ns_, rounds)),
          "rounds_formula_by_n": {n: rows[n]["rounds_formula"] for n in ns_},
          "machines_by_n": {n: rows[n]["machines"] for n in ns_},
          "s_by_n": {n: rows[n]["s"] for n in ns_}, "fit": fit.to_dict(),
          "level_bound": level_bound(delta), "algorithm": "transition-function fold",
          "verified_up_to": int(max(rows[n]["N"] for n in ns_)),
          "verified_how": f"sampled: {MPC_INSTANCES} per n at n = "
                          + ", ".join(map(str, ns_))}
    if any(rows[n]["rounds"] != rows[n]["rounds_formula"] for n in ns_):
        return RuleSkip("measured rounds differ from the fold's level count", ev)
    if not (fit.bounded or len(set(rounds[-3:])) == 1):
        return RuleSkip(f"the fold's rounds grow with n ({fit.formula})", ev)
    return theory.prediction(
        family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
        f"{auto.premise()}: its transition functions, folded up a tree of fan-in s/|Q|, "
        f"decide the task in at most {max(rounds)} rounds at n = {ns_} (memory s = "
        f"ceil({c:.3g} N^{delta}), checked on {MPC_INSTANCES} samples per n): constant rounds "
        f"for fixed delta")


@_guard
def bapo_automaton_rule(theory: Theory, family: str, ctx: Context, ns: list[int]
                        ) -> Prediction | RuleSkip:
    """The automaton protocol: f sends the state after the prefix (ceil(log2 |Q|) bits, no
    attention), verified at every n of ``ns``; proven for a given automaton (it is the
    task's label function at every n), verified <= N for a learned one."""
    auto = task_automaton(family, ctx)
    if isinstance(auto, RuleSkip):
        return auto
    if len(ns) < 1:
        return RuleSkip("no n to verify the automaton protocol at")
    insts = {n: tasks.get(family, n=n) for n in ns}
    lot = letter_map(auto, next(iter(insts.values())))
    dfa = auto.dfa
    proto = dfa_protocol(dfa.delta, dfa.start, dfa.output, lot, auto.how)
    rows = verify_by_n(proto, {n: t.decision_view()[0] for n, t in insts.items()},
                       np.random.default_rng(ctx.seed))
    bad = {n: r["failure"] for n, r in rows.items() if not r["ok"]}
    if bad:
        return RuleSkip("the automaton protocol fails against the task", {"failures": bad})
    ev = {**auto.evidence(), "protocol": proto.to_dict(), "a": proto.a, "b": 0,
          "bandwidth_by_n": rows}
    sampled = [n for n, r in rows.items() if r["inputs"] != "exhaustive"]
    expl = (f"{auto.premise()}: the ({proto.a}, 0)-BAPO whose prefix oracle sends the state "
            f"after the prefix decides the task at every split; verified at n = {list(rows)}")
    if auto.exact:
        ev["proof"] = ("for every n and split k, the state after prefix then suffix is the "
                       "state after the whole input, so h returns the automaton's output, "
                       "which is the task's label (the task is defined by this automaton); "
                       f"a = ceil(log2 {dfa.size}) = {proto.a} bits at every n")
        ev["identity"] = {"object": "the task's automaton", "all_n": True,
                          "how": "the task is defined by this automaton (its own, exact)"}
        return theory.prediction(family, Verdict.EASY, Basis.CONSTRUCTION, Status.PROVEN,
                                 ev, expl + "; correct at every n by construction")
    ev["verified_up_to"] = int(max(rows))
    if sampled:
        ev["verified_how"] = (f"exhaustive up to the largest n with <= 4096 inputs, sampled "
                              f"at n = {sampled}")
    return theory.prediction(family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
                             expl + " (a learned automaton: verified, not proved for all n)")


__all__ = ["TaskAutomaton", "ExactCheck", "exact_check", "task_automaton", "letter_map",
           "monoid_fact", "aperiodic_rule", "quasi_rule", "solvable_rule", "mpc_fold_rule",
           "bapo_automaton_rule", "SCHUTZENBERGER", "BCST", "BT88", "BARRINGTON89"]
