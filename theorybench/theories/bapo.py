"""Theory "bapo": bounded attention prefix oracles (docs/theories.md §6).

Source: Schnabel, Tomlinson, Swaminathan, Neville, "Lost in transmission: when and why LLMs
fail to reason globally", NeurIPS 2025 (arXiv 2505.08140). A problem is BAPO-easy when an
(a, b)-BAPO with a, b constant in n solves it, BAPO-hard otherwise (the paper's
definition). Results of the paper used here (cited; the theorem numbers could not be
checked against the paper with the search tool, so none are given): upper bounds Index
(0, 1), Equality/Disjointness (1, 1), a regular language with |Q| states
(ceil(log2 |Q|), 0), Match2 (0, 1); lower bounds Reachability, Majority (no
(o(log n), o(n^(1-eps)))-BAPO; tight at (ceil(log2 n), 0)), Match3; the proofs fill the
attention budget with tokens common to all prefixes and pigeonhole more prefixes than f has messages.

Rules (in order):

1. construction - a library protocol (:mod:`.bapo.library`) verified at every analysis n
   (exhaustively where the space is small, sampled beyond) with a flat declared (a, b)
   that binds at one checked n at least: 2^a below the prefixes a b-token protocol must
   tell apart (:func:`.bapo.verify.prefix_information`; below that any function passes).
   If it binds at no analysis n, the first binding n <= EXTEND_MAX_N is checked -> Easy.
2. automaton protocol (:mod:`.regular`) for a regular task.
3. construction (extrapolated) - the exact optimal b = 0 protocol (row classes of the
   communication matrix) has the same a at every measured n.
4. construction - the SAT frontier (z3) has the same least a for some b >= 1 at >= 3
   consecutive n, binding, and z3's tables pass the verifier -> Easy, verified <= N.
5. reduction - a checked monotone projection (each output token a constant or a
   function of one input token, in order) from a BAPO-hard problem (majority,
   reachability) -> Hard. Such a map keeps splits aligned, so an (a, b)-BAPO for the
   target gives an (a, b)-BAPO for the source (:mod:`.bapo.hardness` has the argument),
   and hardness transfers. reach_undirected: Majority by the counting graph.
6. a checked claim of proofs/.

Evidence always carries the exact b = 0 bandwidth by n
(:func:`.communication.one_way_cc`) and the SAT frontier (minimal a for b = 0, 1, 2) by n:
at up to two n with at most 2^7 inputs, else at the smallest n with at most 2^8.
Why growth of the b = 0 bandwidth alone proves nothing: b = 0 is one point of the
(a, b) plane. Index has b = 0 bandwidth n (the suffix's query can ask for any prefix bit,
so the prefix must send all of them) yet a (0, 1)-BAPO (attend to the queried bit).
Only a lower bound over all b - a theorem, or a reduction from a problem with one - says
Hard; the measured b = 0 growth is reported, never used as a verdict.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .. import tasks
from ..errors import EnumerationTooLarge, TheorybenchError
from ..formal.bapo.frontier import MAX_SAT_INPUTS, frontier, solve_point
from ..formal.bapo.hardness import (HARDNESS_SOURCE, HARDNESS_THEOREM_NUMBERED, open_note,
                                     reductions_into)
from ..formal.bapo.library import protocols_for
from ..formal.bapo.verify import prefix_information, verification_inputs, verify
from .base import Basis, Context, Prediction, RuleSkip, Status, Theory, Verdict, rule
from ..formal.communication import one_way_cc
from ..formal.growth import classify_growth
from .regular import bapo_automaton_rule
from .rules import claim_rule

#: Largest input space the b = 0 bandwidth / row-class protocol enumerate in predict.
BW_LIMIT = 1 << 14
#: How many of the smallest n (input space <= 2^7) get a SAT frontier in the evidence.
SAT_NS = 2
#: Largest n tried when a flat protocol covers the whole prefix at every analysis n.
EXTEND_MAX_N = 64
#: The SAT frontier rule: largest input space per n, the a and b searched, z3's time per n.
FRONTIER_INPUTS = 1 << 9
FRONTIER_A, FRONTIER_B, FRONTIER_SOLVE_S = 3, 2, 2.0
#: Inputs verified per n (all of them up to this many, a sample beyond).
VERIFY_INPUTS = 1 << 12


def _ns(family: str, ctx: Context) -> list[int]:
    cls = tasks.family(family)
    ns = [n for n in cls.analysis_ns if n <= max(ctx.max_n, 4)]
    return ns or list(cls.analysis_ns[:3])


def _df(family: str, n: int):
    return tasks.get(family, n=n).decision_view()[0]


@functools.lru_cache(maxsize=64)
def b0_by_n(family: str, ns: tuple[int, ...], limit: int = BW_LIMIT) -> dict[int, dict[str, Any]]:
    """{n: {"bits": a, "rows": {k: rows}}} for the n whose input space fits ``limit``."""
    out = {}
    for n in ns:
        try:
            df = _df(family, n)
            if df.space_size() > limit:
                continue
            a, rows = one_way_cc(df, limit=limit)
            out[n] = {"bits": a, "rows": rows}
        except (EnumerationTooLarge, ValueError) as exc:  # noqa: PERF203
            out[n] = {"error": str(exc)}
    return out


@functools.lru_cache(maxsize=64)
def sat_frontier(family: str, n: int, max_a: int = 3, max_b: int = 2,
                 timeout_s: float = 2.0) -> dict[str, Any]:
    """The SAT frontier at one tiny n (short time limit), as evidence."""
    df = _df(family, n)
    if df.space_size() > min(MAX_SAT_INPUTS, FRONTIER_INPUTS):
        return {"n": n, "skipped": f"{df.space_size()} inputs is too many for predict"}
    fr = frontier(df, max_a, max_b, timeout_s=timeout_s, verify_points=False)
    return {"n": n, "min_a_by_b": fr.min_a, "status": fr.status, "pareto": fr.pareto()}


@functools.lru_cache(maxsize=256)
def _constant_at(family: str, n: int) -> bool:
    """The task's decision function takes one value on every input at n (enumerated: the
    frontier n have at most FRONTIER_INPUTS inputs)."""
    df = _df(family, n)
    x = df.enumerate()
    if df.valid is not None:
        x = x[np.asarray(df.valid(x), dtype=bool)]
    y = np.asarray(df.evaluate(x)).reshape(len(x), -1)
    return len(x) > 0 and bool((y == y[0]).all())


def _frontier_ns(family: str, ctx: Context) -> list[int]:
    """Every n from the family's smallest analysis n up while the input space fits
    ``FRONTIER_INPUTS`` (consecutive n: the analysis list may skip the small ones)."""
    out = []
    for n in range(tasks.family(family).analysis_ns[0], max(ctx.max_n, 4) + 1):
        try:
            size = _df(family, n).space_size()
        except TheorybenchError:
            continue  # no task at this n (majority: even n)
        if size > FRONTIER_INPUTS:
            break
        out.append(n)
    return out


def _check(p, df, rng: np.random.Generator, info=None) -> dict[str, Any]:
    """Verify protocol ``p`` on ``df`` and measure whether its bandwidth binds there
    (``info``: a :class:`.bapo.verify.PrefixInformation` already measured)."""
    X, mode = verification_inputs(df, rng, VERIFY_INPUTS)
    row: dict[str, Any] = {"a": p.a, "b": p.b, "ok": False,
                           "inputs": "exhaustive" if mode == "exhaustive" else mode,
                           "inputs_checked": len(X)}
    try:
        res = verify(p, df, rng=rng, inputs=X)
        row.update(ok=res.ok, adversary=res.adversary, failure=res.failure)
    except TheorybenchError as exc:  # a declared bandwidth broken, a crash: not verified
        row.update(failure=f"{type(exc).__name__}: {exc}")
    if info is None:
        info = prefix_information(df, p.b, rng, inputs=X, exhaustive=mode == "exhaustive")
    row.update(binds=info.binds(p.a), prefix_information=info.to_dict())
    return row


def _binding_extension(family: str, name: str, a: int, b: int, after: int,
                       rng: np.random.Generator) -> dict[str, Any]:
    """The first n in (after, EXTEND_MAX_N] where (a, b) binds (the cheap sampled bound
    first), with protocol ``name`` checked there; {"reason": ...} where none does."""
    for n in range(after + 1, EXTEND_MAX_N + 1):
        try:
            df = _df(family, n)
        except TheorybenchError:
            continue  # no task at this n (majority: even n)
        info = prefix_information(df, b, rng)
        if not info.binds(a):
            continue
        same = [p for p in protocols_for(df) if p.name == name]
        if not same or same[0].bandwidth != (a, b):
            return {"n": n, "reason": f"at n = {n}, the first n where ({a}, {b}) binds, "
                                      f"'{name}' does not have that bandwidth"}
        return {"n": n, "row": _check(same[0], df, rng, info)}
    return {"reason": f"({a}, {b}) covers the whole prefix up to n = {EXTEND_MAX_N}"}


def _evidence(family: str, ctx: Context) -> dict[str, Any]:
    ns = tuple(_ns(family, ctx))
    b0 = b0_by_n(family, ns)
    ev: dict[str, Any] = {"b0_bandwidth_by_n": {n: v.get("bits", v.get("error"))
                                                 for n, v in b0.items()}}
    if not ctx.options.get("bapo_no_sat"):
        cls = tasks.family(family)
        sizes = {n: _df(family, n).space_size() for n in cls.analysis_ns}
        tiny = [n for n in cls.analysis_ns if sizes[n] <= 1 << 7][:SAT_NS]
        tiny = tiny or [n for n in cls.analysis_ns if sizes[n] <= 1 << 8][:1]
        by_n: dict[int, Any] = {}
        for n in tiny:
            try:
                by_n[n] = sat_frontier(family, n)
            except Exception as exc:  # evidence only; never hides the verdict
                by_n[n] = {"error": f"{type(exc).__name__}: {exc}"}
        if by_n:
            ev["sat_frontier_by_n"] = by_n
    return ev


class BAPOTheory(Theory):
    name = "bapo"
    title = "BAPO (bounded attention prefix oracle)"
    summary = ("A BAPO models one split of the input: a bits of prefix summary plus b "
               "attended prefix tokens, an adversary choosing which b arrive (Schnabel et al. "
               "2025). Easy = a protocol with constant (a, b), verified on all inputs and "
               "splits; Hard = a theorem of the paper or a checked reduction from Majority or "
               "Reachability.")
    assumptions = ("a transformer's cross-position communication at any split is bounded: "
                   "a bits of prefix summary plus b attended tokens (an adversary picks "
                   "which b when more are selected)",
                   "Easy = constant (a, b) in n")
    sources = ("Schnabel, Tomlinson, Swaminathan, Neville, 'Lost in transmission: when and "
               "why LLMs fail to reason globally', NeurIPS 2025, arXiv 2505.08140",)

    @rule("verified constant-bandwidth protocol", Basis.CONSTRUCTION)
    def library_protocol(self, family: str, ctx: Context):
        """A library protocol verified at every analysis n, with (a, b) flat over n, and
        binding at one checked n at least: 2^a below the number of prefixes a b-token
        protocol must tell apart (:func:`.bapo.verify.prefix_information`). Where a flat
        bandwidth covers the whole prefix at every analysis n, the first larger n (up to
        ``EXTEND_MAX_N``) where it binds is checked too; below it, any function of the
        inputs has an (a, b)-BAPO and the check could not fail (issue 29)."""
        ns = _ns(family, ctx)
        if len(ns) < 3:
            return RuleSkip(f"need at least three n to measure bandwidth, have {ns}")
        rng = np.random.default_rng(ctx.seed)
        by_name: dict[str, dict[int, Any]] = {}
        for n in ns:
            df = _df(family, n)
            for p in protocols_for(df):
                by_name.setdefault(p.name, {})[n] = _check(p, df, rng)
        if not by_name:
            return RuleSkip("no library protocol for this family", _evidence(family, ctx))
        unbound: dict[str, Any] = {}
        for name, rows in by_name.items():
            if len(rows) != len(ns) or not all(r["ok"] for r in rows.values()):
                continue
            ab = {(r["a"], r["b"]) for r in rows.values()}
            if len(ab) != 1:
                continue
            a, b = ab.pop()
            if not any(r["binds"] for r in rows.values()):
                ext = _binding_extension(family, name, a, b, max(ns), rng)
                if not (ext.get("row") or {}).get("ok"):
                    unbound[name] = {"bandwidth_by_n": rows, "larger_n": ext}
                    continue
                rows[ext["n"]] = ext["row"]
            binding = [n for n, r in rows.items() if r["binds"]]
            ev = {"protocol": name, "bandwidth_by_n": rows, "a": a, "b": b,
                  "binding_n": binding, **_evidence(family, ctx)}
            full = [n for n, r in rows.items() if r["inputs"] == "exhaustive"]
            part = sorted(set(rows) - set(full))
            ev["verified_up_to"] = int(max(rows))
            if part:
                ev["verified_how"] = (
                    (f"exhaustive at n = {full}, " if full else "")
                    + f"sampled ({', '.join(str(rows[n]['inputs_checked']) for n in part)} "
                      f"inputs) at n = {part}")
            how = ("on all inputs" if not part else
                   f"on all inputs for n in {full} and on samples beyond" if full else
                   "on sampled inputs")
            m = binding[-1]
            return self.prediction(
                family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev,
                f"the ({a}, {b})-BAPO '{name}' solves {family} at every n in {sorted(rows)} "
                f"(verified {how}, all splits and adversarial choices of G); its declared "
                f"bandwidth does not depend on n and binds at n = {binding}: at n = {m}, "
                f"2^{a} messages are fewer than the at least 2^"
                f"{rows[m]['prefix_information']['log2_prefixes_at_least']} prefixes "
                f"that {b} attended token(s) leave to f")
        if unbound:
            return RuleSkip(
                f"library protocol(s) {sorted(unbound)} verify with flat bandwidth, but it "
                f"covers the whole prefix at every checked n (any function of these inputs "
                f"has such a protocol), and no n <= {EXTEND_MAX_N} where it binds verified",
                {"protocols": unbound})
        return RuleSkip("library protocols are verified but their bandwidth grows with n",
                        {"protocols": by_name})

    @rule("automaton protocol", Basis.CONSTRUCTION)
    def automaton_protocol(self, family: str, ctx: Context):
        """A regular task (its given automaton, else the learned one): f sends the state
        after the prefix, ceil(log2 |Q|) bits, no attention; verified at every analysis n,
        proven for a given automaton (docs/theories.md, "Regular tasks")."""
        return bapo_automaton_rule(self, family, ctx, _ns(family, ctx))

    @rule("exact b=0 protocol with flat bandwidth", Basis.CONSTRUCTION)
    def row_class(self, family: str, ctx: Context):
        """The exact optimal (a, 0) protocol has the same a at every measured n."""
        b0 = b0_by_n(family, tuple(_ns(family, ctx)))
        pts = {n: v["bits"] for n, v in b0.items() if "bits" in v}
        if len(pts) < 3:
            return RuleSkip(f"b=0 bandwidth measurable at only {len(pts)} n (input space above "
                            f"{BW_LIMIT}); raise --max-n", {"b0_bandwidth_by_n": pts})
        ns = sorted(pts)
        fit = classify_growth(ns, [pts[n] for n in ns])
        tail = [pts[n] for n in ns[-3:]]
        if fit.bounded and len(set(pts.values())) == 1:
            return self.prediction(
                family, Verdict.EASY, Basis.CONSTRUCTION, Status.EXTRAPOLATED,
                {"b0_bandwidth_by_n": pts, "fit": fit.to_dict(), **_evidence(family, ctx)},
                f"the exact one-way communication complexity (b=0 bandwidth) of {family} is "
                f"{tail[-1]} bit(s) at n={ns[-3:]}: the row-class protocol is a "
                f"({tail[-1]}, 0)-BAPO at every measured n (flat only as far as measured)")
        return RuleSkip(f"b=0 bandwidth grows ({fit.formula}); growth alone proves nothing "
                        f"(Index: b=0 bandwidth n, yet (0,1))",
                        {"b0_bandwidth_by_n": pts, "fit": fit.kind})

    @rule("SAT frontier flat for b > 0", Basis.CONSTRUCTION)
    def sat_frontier_rule(self, family: str, ctx: Context):
        """For some b >= 1 the exact minimal a of the SAT frontier (z3, every input) is the
        same at every measured n where the task is not constant (at least three, all with at
        most ``FRONTIER_INPUTS``
        inputs), it binds at one of them, and z3's tables, rebuilt as a protocol, pass
        :func:`.bapo.verify.verify` at each -> Easy, ``extrapolated`` (a flat series, as for
        the b = 0 rule: the tables differ per n, so no one object was checked up to N). Growth is reported, never a verdict: Index
        has b = 0 bandwidth n yet is a (0, 1)-BAPO, and a b that grows may be beaten by a
        larger b."""
        ns = _frontier_ns(family, ctx)
        if len(ns) < 3:
            return RuleSkip(f"the SAT frontier is measured only at n with at most "
                            f"{FRONTIER_INPUTS} inputs: {ns or 'none'}, fewer than three")
        fr = {n: sat_frontier(family, n) for n in ns}
        # z3 may run out of time at the largest n: measure up to the first inexact n
        settled = ("exact", "above max_a")
        cut = next((i for i, n in enumerate(ns)
                    if any(v not in settled for v in fr[n]["status"].values())), len(ns))
        dropped, ns = ns[cut:], ns[:cut]
        if len(ns) < 3:
            return RuleSkip(f"the SAT frontier is settled only at n = {ns} (z3 did not "
                            f"finish at n = {dropped[:1]}), fewer than three",
                            {"sat_frontier_by_n": fr})
        rows = {b: {n: fr[n]["min_a_by_b"].get(b) for n in ns} for b in range(1, FRONTIER_B + 1)}
        states = {b: {n: fr[n]["status"].get(b) for n in ns} for b in rows}
        ev: dict[str, Any] = {"sat_frontier_min_a_by_b": rows, "sat_frontier_status": states,
                              "inexact_n_dropped": dropped,
                              "solver": f"z3 SAT core on a DIMACS CNF per split ({FRONTIER_SOLVE_S} "
                                        f"s per n; a <= {FRONTIER_A}, b <= {FRONTIER_B})"}
        rng = np.random.default_rng(ctx.seed)
        # an n where the task is one constant (copies ww at odd n) needs no bits and says
        # nothing about growth: flatness is judged on the other n (at least three), and
        # the protocol with the common a serves those too (an (0, b)-BAPO is an (a, b)-one)
        const = [n for n in ns if _constant_at(family, n)]
        judged = [n for n in ns if n not in const] if len(ns) - len(const) >= 3 else ns
        if const:
            ev["constant_at_n"] = const
        for b, by_n in rows.items():
            if not all(states[b][n] == "exact" for n in ns) or \
                    len({by_n[n] for n in judged}) != 1:
                continue
            a = by_n[judged[0]]
            if a is None or any(by_n[n] is None or by_n[n] > a for n in ns):
                continue
            info = {n: prefix_information(_df(family, n), b, rng) for n in ns}
            binding = [n for n in ns if info[n].binds(a)]
            if not binding:
                ev[f"b={b}"] = f"({a}, {b}) covers the whole prefix at every n in {ns}"
                continue
            checks = {}
            for n in ns:
                try:
                    pt = solve_point(_df(family, n), a, b, timeout_s=FRONTIER_SOLVE_S,
                                     check=True)
                    checks[n] = pt.status if pt.status != "sat" else (
                        "verified" if (pt.verification or {}).get("ok") else "failed")
                except TheorybenchError as exc:
                    checks[n] = f"{type(exc).__name__}: {exc}"
            if any(v != "verified" for v in checks.values()):
                ev[f"b={b}"] = {"flat_a": a, "protocol_checks": checks}
                continue
            # the same least a at every n is a flat series, not one object checked at every
            # n (each n has its own tables): an extrapolation, like the b = 0 rule's
            ev.update(protocol=f"sat({a},{b})", a=a, b=b, binding_n=binding,
                      protocol_checks=checks, checked_up_to=int(max(ns)),
                      fit=classify_growth(ns, [float(a)] * len(ns)).to_dict(),
                      verified_how="exhaustive: every input, split and adversarial G; one "
                                   "z3 table protocol per n",
                      prefix_information_by_n={n: info[n].to_dict() for n in ns})
            return self.prediction(
                family, Verdict.EASY, Basis.CONSTRUCTION, Status.EXTRAPOLATED,
                {**ev, **_evidence(family, ctx)},
                f"the SAT frontier of {family} is flat: the least a with b = {b} is {a} at "
                f"every n in {judged}"
                + (f" (0 at n = {const}, where the task is constant)" if const and judged != ns
                   else "") + f" (z3, exact), and z3's ({a}, {b})-BAPO passes the verifier at "
                f"each; {a} bits bind at n = {binding} (fewer messages than prefixes). Flat "
                f"only as far as measured: each n has its own tables")
        grows = {b: {n: (f"> {FRONTIER_A}" if a is None else a) for n, a in by_n.items()}
                 for b, by_n in rows.items() if len({by_n[n] for n in judged}) > 1}
        return RuleSkip(
            (f"the SAT frontier grows with n (least a by n: "
             + "; ".join(f"b={b}: {v}" for b, v in grows.items()) + "); growth alone proves "
             "nothing (Index: b=0 bandwidth n, yet (0,1))") if grows else
            "the SAT frontier is not exact at every measured n, or flat only where it "
            "covers the whole prefix", ev)

    @rule("checked reduction from a BAPO-hard problem", Basis.REDUCTION)
    def hard_reduction(self, family: str, ctx: Context):
        """A checked monotone projection from a BAPO-hard problem (Schnabel et al.)."""
        reds = reductions_into(family)
        if not reds:
            note = open_note(family)
            return RuleSkip("no split-preserving reduction from a BAPO-hard problem "
                            "(majority, reachability) into this family is known here"
                            + (f"; {note}" if note else ""), _evidence(family, ctx))
        for red, source_note, ns in reds:
            chk = red.check(ns, rng=np.random.default_rng(ctx.seed))
            mono = all(_monotone(c.dependency) for c in chk.by_n)
            if chk.ok and mono:
                ev = {"reduction": red.name, "check": chk.to_dict(), "source": source_note,
                      **_evidence(family, ctx)}
                # a theorem cited without its number makes the cell "cited", however well
                # the map or the premise was checked (docs/theories.md, statuses)
                status = Status.PROVEN if HARDNESS_THEOREM_NUMBERED else Status.CITED
                if status == Status.CITED:
                    ev["why_cited"] = (f"{HARDNESS_SOURCE} is cited without a theorem number; "
                                       f"the map is checked at n = {ns}")
                if chk.is_identity:
                    # no reduction at all: the task is the theorem's problem, which the
                    # identity check confirms (issue 11 item 1) - a cited theorem, premise
                    # checked on instances
                    ev["proof"] = (f"premise checked: {family}'s decision function is "
                                   f"{red.source.name} itself (labels agree on "
                                   f"{chk.to_dict()['checked']} instances at n={ns})")
                    return self.prediction(
                        family, Verdict.HARD, Basis.THEOREM, status, ev,
                        f"{family} is {red.source.name} itself (checked at n={ns}); "
                        f"{source_note}, so {family} is BAPO-hard")
                ev["proof"] = (f"checked monotone projection {red.name} from "
                               f"{red.source.name}, a problem with a cited lower bound")
                return self.prediction(
                    family, Verdict.HARD, Basis.REDUCTION, status, ev,
                    f"{red.source.name} reduces to {family} by a checked monotone projection "
                    f"(labels preserved at n={ns}); {source_note}, so {family} is BAPO-hard")
        return RuleSkip("the candidate reductions failed their check")


    @rule("checked claim of proofs/", Basis.THEOREM)
    def from_claim(self, family: str, ctx: Context):
        """A claim of ``theorybench claims`` that settles this cell (its check is run)."""
        return claim_rule(self, family, ctx)

def _monotone(dep: list[int] | None) -> bool:
    """Each output token copies at most one input position, in non-decreasing order."""
    if dep is None:
        return False
    pos = [d for d in dep if d >= 0]
    return all(a <= b for a, b in zip(pos, pos[1:]))



#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (BAPOTheory,)

__all__ = ["BAPOTheory", "b0_by_n", "sat_frontier"]
