"""Rule bodies shared by several theories: circuit constructions and circuit lower bounds
(AC0, TC0), the softmax-construction and counts-only rules (C-RASP), group witnesses in a
syntactic monoid (Star-free, C-RASP), and rules that rest on a checked claim of
``proofs/`` (BAPO, C-RASP).

Each function returns a :class:`~theorybench.theories.base.Prediction` or a
:class:`~theorybench.theories.base.RuleSkip`; a theory class only chooses which to run, in
basis order (construction, lower bound, reduction, theorem).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np

from .. import tasks
from ..formal.automata import aperiodicity, find_failing_view
from ..formal.language import is_language
from ..formal.sensitivity import average_sensitivity
from ..formal.sensitivity_closed import binary_encoding, closed_form_by_bits, describe
from .base import Basis, Context, Prediction, RuleSkip, Status, Theory, Verdict
from .prediction import STATUS_ORDER
from .regular import exact_check, task_automaton
from .sensitivity import sensitivity_profile
from .sensitivity_sampling import series_growth
from ..formal.circuits.hardness import checked
from ..formal.circuits.theorems import AC0_IN_TC0, BOPPANA, PROJECTION_CLOSURE
from ..errors import ResourceLimitError
from ..formal.circuits.builders import builders_for
from ..formal.circuits.verify import construction_table, default_ns
from ..formal.search import circuits as circuit_search
from ..formal.user_models import outside_basis

#: Boppana rule: the fitted exponent c of as(m) ~ m^c must be at least this.
MIN_EXPONENT = 0.3
#: Largest number of free input bits the exact sensitivity is computed for.
MAX_SENS_BITS = 18
#: The series' distribution when tokens of a larger alphabet were written in binary.
BINARY_TOKENS = ("uniform on the binary encoding of the tokens (ceil(log2 k) bits per "
                 "position of k symbols, codes >= k read as the last symbol)")


def construction_rule(theory: Theory, family: str, basis: str, ctx: Context,
                      searched: bool = False, given: tuple | None = None) -> Prediction | RuleSkip:
    """A builder whose circuits are verified for every n tried, with bounded depth and
    polynomial size -> Easy (verified <= N: the construction is checked, not proved, for
    every n). ``searched``: instead of the library's builder, a uniform family found by the
    circuit template search (:mod:`theorybench.formal.search.circuits`), run the same way
    (a separate rule, after the exact-automaton rule, so a proof from a given automaton
    comes first). ``given``: (a builder, evidence to add) found by another rule (the junta
    circuit), run the same way."""
    ns = list(default_ns(family))
    dropped: list[str] = []
    found = which = None
    if given is not None:
        which = given[0]
    elif searched:
        if builders_for(family, basis):
            return RuleSkip(f"the library has a {basis} builder for {family} (used by the "
                            "construction rule); no search")
        found, which = circuit_search.builder_for(family, basis)
        if which is None:
            return RuleSkip(f"the circuit template search found no uniform "
                            f"{'AND/OR/NOT' if basis == 'ac0' else 'threshold'} family: "
                            f"{found.reason}", {"circuit_search": found.to_dict()})
    elif not builders_for(family, basis):
        outside = outside_basis(family, basis)  # circuits of a task file, in another basis
        return RuleSkip(f"no {'AND/OR/NOT' if basis == 'ac0' else 'threshold or AND/OR/NOT'} "
                        f"circuit builder for {family}" + "".join(
                            f"; the circuit supplied in {o['origin']} uses {o['gates']}, so it "
                            f"is evidence for {o['basis'].upper()} only" for o in outside),
                        {"supplied_outside_basis": outside} if outside else {})
    while True:
        # an n whose circuit exceeds the builders' limits is left out (and said so), not
        # turned into a crashed rule: the smaller n still verify the builder
        try:
            res = construction_table(family, basis, ns=ns, seed=ctx.seed, builder=which)
            break
        except ResourceLimitError as exc:
            if len(ns) <= 1:
                return RuleSkip(f"no n of {family} fits the circuit builders: {exc}")
            dropped.append(f"n={ns.pop()}: {exc}")
    ev: dict[str, Any] = {"construction": res.to_dict()}
    if found is not None:
        ev["circuit_search"] = {**found.to_dict(), "status_note": (
            "a template formula found by search names a constant-depth, polynomial-size "
            "circuit at every length by construction; its agreement with the task is checked "
            f"on every input up to n = {found.checked_n} and on the construction table's "
            "lengths below, not proved for all n")}
    if given is not None:
        ev.update(given[1])
    if dropped:
        ev["sizes_left_out"] = dropped[-1:]
    if not res.verified:
        bad = next(ch for ch in res.checks if ch.errors)
        return RuleSkip(f"the {res.builder.basis} builder for {family} disagrees with the task "
                        f"at n={bad.n} ({bad.errors} of {bad.checked} inputs)", ev)
    if len(res.checks) < 3:
        return RuleSkip(f"only {len(res.checks)} sizes could be built; need 3 to fit growth", ev)
    if not res.constant_depth:
        return RuleSkip(f"depth grows ({res.depth_fit.formula})", ev)
    if not res.polynomial_size:
        return RuleSkip(f"size grows {res.size_fit.kind} ({res.size_fit.formula})", ev)
    last = res.checks[-1]
    exh = [ch.n for ch in res.checks if ch.exhaustive]
    if basis == "tc0" and res.builder.basis == "ac0":
        ev["theorem"] = AC0_IN_TC0.to_dict()
    # a fixed builder checked up to the largest n: the all-n claim extrapolates from it
    ev["verified_up_to"] = int(last.n)
    expl = (f"{res.builder.description}: verified against the task reference for n in "
            f"{[ch.n for ch in res.checks]} (exhaustively up to n={max(exh) if exh else 'none'}, "
            f"on samples beyond); depth stays {last.depth} and size grows as "
            f"{res.size_fit.formula} ({res.size_fit.kind}), so the family is in "
            f"{basis.upper()}")
    return theory.prediction(family, Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED, ev, expl)


@functools.lru_cache(maxsize=64)
def _sensitivity_series(family: str) -> tuple[tuple[int, ...], tuple[float, ...], str] | str:
    ms, values = [], []
    why, dist, alphabet = "", "uniform", []
    for n in tasks.family(family).analysis_ns:
        try:
            df = tasks.get(family, n=n).decision_view()[0]
        except Exception as exc:  # noqa: BLE001 - an n the family rejects
            why = str(exc)
            continue
        if df.valid is not None:
            return (f"{family}'s input space has a domain restriction (a partial function), "
                    f"where Boppana's bound is not stated")
        if any(len(c) > 2 for c in df.choices):
            # tokens in binary: an AC0 family over one-hot tokens gives one for this
            # function (formal/sensitivity_closed.py, binary_encoding); only over a fixed
            # alphabet - where it grows with n (edge or query tokens) the bits per token
            # grow too, and a fit over a few small m reads that as a power of m
            sizes = sorted({len(c) for c in df.choices if len(c) > 2})
            if alphabet and sizes != alphabet:
                return (f"{family}'s alphabet grows with n ({alphabet} then {sizes} symbols "
                        f"per position), so its binary encoding is no fixed-alphabet view")
            alphabet = sizes
            df, dist = binary_encoding(df), BINARY_TOKENS
        m = sum(1 for c in df.choices if len(c) == 2)
        if m > MAX_SENS_BITS:
            break
        if ms and m <= ms[-1]:
            continue
        res = average_sensitivity(df, distribution="uniform", method="auto")
        ms.append(m)
        values.append(float(res.value))
    if len(ms) < 3:
        return f"fewer than three sizes with at most {MAX_SENS_BITS} free bits {why}".strip()
    return tuple(ms), tuple(values), dist


def _growth_rows(family: str, ctx: Context, ms, values, dist: str):
    """(rows, where they come from) of the series whose growth the Boppana rule reads.

    A task on bits (no binary encoding) is the Sensitivity column's function under the
    same uniform distribution, so the rule reads that column's series (exact values, then
    sampled ones up to n = 64: :func:`.sensitivity.sensitivity_profile`) and its one
    classification (:func:`.sensitivity_sampling.series_growth`): the same series gets the
    same class in every column. A task whose tokens were written in binary is another
    function; its own exact series is classified by the same function."""
    if dist == "uniform":
        prof = sensitivity_profile(family, ctx)
        if "error" not in prof:
            return prof["values"], "the Sensitivity column's series (uniform distribution)"
    rows = [{"n": None, "free_positions": int(m), "average_sensitivity": float(v),
             "ci_low": float(v), "ci_high": float(v), "exact": True}
            for m, v in zip(ms, values)]
    return rows, "exact values on the binary encoding" if dist != "uniform" else \
        "exact values (the Sensitivity column's series could not be measured)"


def sensitivity_lower_bound(theory: Theory, family: str, ctx: Context,
                            model: str = "a constant-depth polynomial-size AND/OR/NOT "
                                         "family") -> Prediction | RuleSkip:
    """Average sensitivity growing like m^c (c >= MIN_EXPONENT) in the number m of input
    bits -> not in AC0 (Boppana 1997: depth-d size-s circuits have average sensitivity
    O((log s)^(d-1)), polylogarithmic for polynomial size and constant depth). Shared by
    the AC0 theory and Star-free[pos] (whose programs define FO[Arb] = non-uniform AC0
    languages), with one threshold.

    A closed form (formal/sensitivity_closed.py: parity m, majority ~ sqrt(2m/pi), MOD_k
    ~ 2m/k, each a power of m for every m) decides first, when the task's function was
    checked equal to the form's on every input (exact values up to MAX_SENS_BITS bits) and
    the form matches every measured value; the identity is checked up to N, so the cell is
    ``verified ≤ N`` (exhaustive). Otherwise the growth class of the measured series
    decides, read by the one classification every column uses
    (:func:`.sensitivity_sampling.series_growth`, :func:`_growth_rows`): a power law m^c
    with c >= MIN_EXPONENT, or faster (exponential on the measured range), gives Hard,
    ``extrapolated`` - a fit over m <= 64 cannot tell m^c from (log m)^3 (the fit of
    (log m)^3 on small m has exponent ~1.65)."""
    series = _sensitivity_series(family)
    if isinstance(series, str):
        return RuleSkip(series)
    ms, values, dist = series
    closed = closed_form_by_bits(family, ms, values)
    ev: dict[str, Any] = {"input_bits": list(ms), "average_sensitivity": list(values),
                          "distribution": dist, "theorem": BOPPANA.to_dict(),
                          "min_exponent": MIN_EXPONENT}
    rows, source = _growth_rows(family, ctx, ms, values, dist)
    growth = series_growth(rows)
    fit = growth.fit
    xs = [int(rows[i]["free_positions"]) for i in growth.kept]
    ys = [float(rows[i]["average_sensitivity"]) for i in growth.kept]
    ev.update(growth=growth.to_dict(), growth_series=source, growth_bits=xs)
    if growth.constant_at:
        # a family constant at some lengths (#a = #b is false at every odd length) has
        # sensitivity 0 there; a circuit family for every length is one for the others
        ev["constant_at_bits"] = growth.constant_at
    if isinstance(closed, dict) and closed["agrees"] and closed["shape"] == "all" \
            and closed["power"] is not None and Fraction(closed["power"]) >= MIN_EXPONENT:
        ev.update(closed_form=closed, verified_up_to=max(closed["checked_ns"]),
                  verified_how="exhaustive")
        expl = (f"{describe(closed)}: as = Theta(m^{closed['power']}) for every m; {model} "
                f"has polylog(m) average sensitivity (Boppana 1997), so none computes "
                f"{family}")
        return theory.prediction(family, Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED,
                                 ev, expl)
    faster = fit.decided and (fit.kind == "exponential"
                              or (fit.kind == "poly" and (fit.exponent or 0) >= MIN_EXPONENT))
    if not (faster and ys[-1] > ys[0]):
        return RuleSkip(f"average sensitivity grows as {fit.formula} ({fit.kind}"
                        f"{'' if fit.decided else ', undecided'}), not like m^c with c >= "
                        f"{MIN_EXPONENT}", ev)
    expl = (f"average sensitivity under the uniform distribution grows as {fit.formula} "
            f"({fit.kind}) over m = {xs} input bits ({source}); {model} has polylog(m) "
            f"average sensitivity (Boppana 1997), so none computes {family} (extrapolated "
            f"from m <= {xs[-1]}: a fit cannot exclude polylog growth)")
    return theory.prediction(family, Verdict.HARD, Basis.LOWER_BOUND, Status.EXTRAPOLATED,
                             ev, expl)


#: The AC0 theory's name for the shared rule.
boppana_rule = sensitivity_lower_bound


def reduction_rule(theory: Theory, family: str, basis: str, ctx: Context) -> Prediction | RuleSkip:
    """A projection from a problem with a known lower bound, verified by running it."""
    results = checked(family, basis, ctx.seed)
    if not results:
        return RuleSkip(f"no projection to {family} from a problem with a known "
                        f"{basis.upper()} lower bound is in the catalogue")
    failed = []
    for known, red, chk in results:
        if not chk.ok:
            failed.append({"reduction": red.name, "check": chk.to_dict()})
            continue
        thm = known.ac0 if basis == "ac0" else known.tc0
        ev = {"reduction": red.name, "source_problem": known.problem.name, "check": chk.to_dict(),
              "theorem": thm.to_dict(), "closure": PROJECTION_CLOSURE.to_dict()}
        # The theorem holds for all n, but the projection is checked only on instances up
        # to the largest n run: the cell is "verified <= N", never "proven" (a wrong map
        # can pass at small n and fail later).
        status = Status.CONDITIONAL if thm.conditional else Status.VERIFIED
        cond = f", conditional on {thm.condition}" if thm.conditional else ""
        ev["verified_up_to"] = max(c.n for c in chk.by_n)
        if thm.conditional:
            ev["condition"] = thm.condition
        else:
            ev["proof"] = (f"checked projection {red.name} from {known.problem.name}, whose "
                           f"lower bound is {thm.name}; the projection is checked for n <= "
                           f"{ev['verified_up_to']}, not for all n")
        expl = (f"{red.name} is a projection, checked on {chk.to_dict()['checked']} instances "
                f"(n = {[c.n for c in chk.by_n]}); {thm.name} ({thm.source.split(';')[0]}), so "
                f"{family} is not in {basis.upper()}{cond}")
        return theory.prediction(family, Verdict.HARD, Basis.REDUCTION, status, ev, expl)
    return RuleSkip(f"every candidate reduction to {family} failed its check", {"failed": failed})


# ---- the aperiodicity lower bound (C-RASP and Star-free share it) -------------------------

#: Longest witness word u w^i z evaluated beyond the automaton's check length.
WITNESS_MAX_LEN = 48


def _word(dfa, spelled: str) -> tuple[int, ...]:
    if spelled == "(empty word)":
        return ()
    index = {a: i for i, a in enumerate(dfa.alphabet)}
    return tuple(index[a] for a in spelled.split(" "))


def witness_beyond(dfa, view, wit: dict[str, Any], check_len: int) -> dict[str, Any]:
    """Outputs of the witness words u w^i z from the reference and the automaton for every
    i whose word is longer than ``check_len`` (up to WITNESS_MAX_LEN letters): the group is
    claimed for all lengths, so it is tested past the lengths the automaton was checked on."""
    u, w, z = (_word(dfa, wit[k]) for k in ("access", "word", "suffix"))
    rows = []
    i = 0
    while len(w) and len(u) + i * len(w) + len(z) <= WITNESS_MAX_LEN:
        word = u + w * i + z
        if len(word) > check_len:
            ref = int(view.membership(np.array([word], dtype=np.int64))[0])
            got = int(dfa.evaluate(np.array([word]))[0])
            rows.append({"i": i, "length": len(word), "reference": ref, "automaton": got})
        i += 1
    return {"lengths": [r["length"] for r in rows],
            "agrees": all(r["reference"] == r["automaton"] for r in rows),
            "tested": len(rows), "rows": rows[:12]}


def group_witness(family: str, ctx: Context, need: str = "star-free"):
    """A non-aperiodic checked minimal automaton of the family's language (or a two-letter
    restriction) whose domain has ``need``, with its group witness REQUIRED to agree with
    the task's reference on u w^i z, within the check length and beyond it. Returns
    (label, learn result, witness) or a RuleSkip. Used by C-RASP's and Star-free's
    group rules (docs/theories.md §1, §4)."""
    limit = int(ctx.options.get("monoid_limit", 20000))
    exact = _exact_group(family, ctx, limit)
    if exact is not None:
        return exact
    ok, why = is_language(family)
    if not ok:
        return RuleSkip(f"not a language: {why}; the automaton rules do not apply")
    check = ctx.options.get("check_len")
    check_len = int(check) if check else None
    seen: dict[str, Any] = {}

    def test(dfa, view):
        good, wit = aperiodicity(dfa, limit, view=view)
        if not good and wit is not None:
            seen["view"] = view
        return good, wit

    found = find_failing_view(family, test, need, check_len)
    if isinstance(found, str):
        return RuleSkip(found)
    label, res, wit = found
    if wit.get("reference_agrees") is not True:
        return RuleSkip(f"the group witness ({label}) disagrees with the task's reference on "
                        f"u w^i z: automaton {wit.get('outputs_u_w^i_z')}, reference "
                        f"{wit.get('reference_outputs')}", {"witness": wit})
    beyond = witness_beyond(res.dfa, seen["view"], wit, res.check_len)
    wit = {**wit, "beyond_check_len": beyond}
    if not beyond["agrees"]:
        return RuleSkip(f"the group witness ({label}) agrees up to the check length "
                        f"{res.check_len} but not beyond it", {"witness": wit})
    return label, res, wit


def _exact_group(family: str, ctx: Context, limit: int):
    """The group witness of a task that gives its automaton (REGEX or DFA), or None when it
    gives none: the task's own minimal automaton (every word of every length is in its
    domain), compared with the task's oracle on all small inputs, and the witness words'
    outputs recomputed from the task's automaton table."""
    auto = task_automaton(family, ctx, learned=False)
    if isinstance(auto, RuleSkip):
        return None
    chk = exact_check(str(family))
    if isinstance(chk, str):
        return RuleSkip(chk)
    good, wit = aperiodicity(auto.dfa, limit)
    if good:
        return RuleSkip(f"the task's own {auto.dfa.size}-state automaton is aperiodic")
    table = tasks.family(family).table
    u, w, z = (_word(auto.dfa, wit[k]) for k in ("access", "word", "suffix"))
    ref = [int(table.run(np.array([u + w * i + z], dtype=np.int64))[0])
           for i in range(len(wit["outputs_u_w^i_z"]))]
    wit = {**wit, "reference_outputs": ref, "reference_agrees": ref == wit["outputs_u_w^i_z"]}
    if not wit["reference_agrees"]:
        return RuleSkip("the group witness disagrees with the task's automaton table",
                        {"witness": wit})
    return "the task's own automaton", chk, wit


# ---- checked claims of proofs/ ------------------------------------------------------------

_CLAIM_STATUS = {"proven": Status.PROVEN, "conditional": Status.CONDITIONAL,
                 "cited": Status.CITED}


def claim_rule(theory: Theory, family: str, ctx: Context) -> Prediction | RuleSkip:
    """A claim of ``proofs/claims`` that settles this cell: its check is run and the
    cell takes the claim's verdict with the certificate's status (a failed check, or a
    certificate without a status the cell can carry, settles nothing).

    The claim is matched by the task's function (:func:`proofs.claims.settled_by`): the
    claim's reference task itself keeps the certificate's status; a task whose function
    agrees with the reference only up to a checked size N gets at most ``verified <= N``,
    and its evidence says so (``function_match``)."""
    from ..proofs import claims
    found = claims.settled_by(theory.name, str(family))
    if not found:
        return RuleSkip(f"no claim of proofs/ settles {theory.name} on {family} (no claim's "
                        f"reference task has its function)")
    claim, verdict, match = found[0]
    cert = claims.certificate(claim.name)
    ev = {"claim": claim.name, "certificate": cert.to_dict(),
          "function_match": match.to_dict()}
    if not cert.ok:
        return RuleSkip(f"claim {claim.name}: its check failed", ev)
    status = cert.status
    if status.startswith("verified"):
        ev["verified_up_to"] = int(cert.n_reached)
        st = Status.VERIFIED
    elif status in _CLAIM_STATUS:
        st = _CLAIM_STATUS[status]
    else:
        return RuleSkip(f"claim {claim.name}: status {status!r} cannot settle a cell", ev)
    if not match.all_n and STATUS_ORDER.index(st) <= STATUS_ORDER.index(Status.VERIFIED):
        # the task agrees with the claim's reference only as far as it was compared
        ev["verified_up_to"] = min(ev.get("verified_up_to", match.up_to), match.up_to)
        st = Status.VERIFIED
    if st == Status.PROVEN:
        ev["proof"] = f"claim {claim.name} (theorybench claim {claim.name})"
        ev["identity"] = {"object": f"the claim's reference task {match.reference}",
                          "all_n": True, "how": match.to_dict()["why"]}
    if st == Status.CONDITIONAL:
        ev["condition"] = "; ".join(cert.conditions) or "a step named in the certificate"
        # a claim conditional on a lemma of its own proof that is not proved (not on an
        # open separation of complexity classes): the matrix keeps it out of the precision
        # statistics unless asked (matrix.agreement, include_missing_lemmas)
        ev["missing_lemma"] = list(cert.conditions) or [ev["condition"]]
    if st == Status.CITED:
        ev["why_cited"] = ("the claim rests on cited steps whose theorem numbers were not "
                           "checked here: " + "; ".join(
                               s.get("statement", "") if isinstance(s, dict) else str(s)
                               for s in cert.to_dict().get("steps", [])
                               if (s.get("kind") if isinstance(s, dict) else "") == "cited"))
    same = ("" if match.all_n else
            f"; {family} computes the claim's reference {match.reference} on every input "
            f"at n = {list(match.ns)}, not checked beyond")
    return theory.prediction(
        family, Verdict(verdict.lower()), Basis.THEOREM, st, ev,
        f"{claim.title}: `theorybench claim {claim.name}` ({cert.status}; "
        f"checked up to n = {cert.n_reached}){same}")


# ---- a verified softmax construction (constructions/) --------------------------------------

def counts_only(ev: dict[str, Any]) -> tuple[bool, str]:
    """Whether a construction is C-RASP evidence: the same weights at every n, no
    positional information, one layer of uniform heads without MLP (z3's all-n class),
    proved for every n. Its decision is then [n a(last) + sum_t g_t #t > 0]: a comparison
    of token counts with #true, after a case split on the current token - a C-RASP program
    of fixed size (Yang & Chiang, COLM 2024: comparisons of linear combinations of counts).
    Anything else (weights or temperature growing with n, positional features) is a
    softmax transformer C-RASP does not model, consistent with any C-RASP verdict."""
    if (ev.get("z3_kind") == "all-n" and ev.get("fixed_weights")
            and not ev.get("uses_positions") and ev.get("status") == "proven"):
        return True, ("its weights are the same at every n, it reads no position and has one "
                      "layer of uniform heads without MLP, so its decision compares token "
                      "counts with #true: a fixed C-RASP program")
    why = []
    if not ev.get("fixed_weights"):
        betas = [b for b in ev.get("beta_by_n", {}).values() if b is not None]
        why.append("its weights change with n" + (f" (temperature {ev['temperature']})"
                                                   if betas else
                                                   f" (largest weight {ev['max_weight_by_n']})"))
    if ev.get("uses_positions"):
        why.append("it reads positional features")
    if not ev.get("uniform_only"):
        why.append("it uses peaked (non-uniform) attention")
    if ev.get("status") != "proven":
        why.append(f"it is {ev.get('status')}, not proved for every n")
    return False, "; ".join(why) or "it is outside the all-n class"


def softmax_construction_rule(theory: Theory, family: str, ctx: Context, admits,
                              model: str) -> Prediction | RuleSkip:
    """A hand-built softmax transformer for ``family`` (constructions/), verified at every
    n of its range (:func:`constructions.evidence.construction_evidence`), is evidence for
    Easy only when ``admits(evidence)`` says it fits the theory's model; otherwise the rule
    skips and says why the construction is consistent with the theory's other verdicts.
    Status: proven only with the z3 proof for every n, else verified <= N."""
    from ..constructions.evidence import construction_evidence, construction_sentence
    ev0 = construction_evidence(family)
    if not ev0.get("available"):
        return RuleSkip(f"no hand-built softmax construction: {ev0.get('reason')}")
    ev: dict[str, Any] = {"softmax_construction": ev0}
    desc = construction_sentence(ev0)
    if ev0["status"] != "proven" and "verified_up_to" not in ev0:
        return RuleSkip(f"the construction for {family} did not pass its checks "
                        f"({ev0['status']})", ev)
    ok, why = admits(ev0)
    if not ok:
        ev["consistency"] = (f"{desc}; but {why}, so under {model} it is no evidence for Easy "
                             f"and does not contradict this theory's verdict")
        return RuleSkip(ev["consistency"], ev)
    if ev0["status"] == "proven":
        # z3 proves the weights right against the construction's count specification at
        # every n; that specification is the task only as far as the per-n checks compared
        # them (one status policy: a finite identity gives verified <= N, not proven)
        ev["all_n_part"] = ev0["all_n"]["claim"]
        ev["identity"] = {"object": "the construction's count specification", "all_n": False,
                          "checked_up_to": int(max(ev0["ns"])),
                          "how": "the model against the task's labels on every input"}
        ev["verified_up_to"] = int(max(ev0["ns"]))
        st = Status.VERIFIED
    else:
        ev["verified_up_to"] = int(ev0["verified_up_to"])
        st = Status.VERIFIED
    return theory.prediction(family, Verdict.EASY, Basis.CONSTRUCTION, st, ev,
                             f"{desc}; {why} ({model})")
