"""Claim: unbounded Dyck and BinaryAdd are BAPO-hard (conditional on two lower bounds).

Dyck-1: a monotone projection from EXACT-HALF (is #1 = n/2?) into Dyck-1 membership,
checked on every instance; BinaryAdd: its carry-out is Greater-Than, checked on every
input. The hardness of the two sources (EXACT-HALF and Greater-Than) for BAPOs is not
proved here: the SAT frontier gives UNSAT certificates (no (a, b)-BAPO at that input
length) at small n, which is finite evidence, and the claim is conditional on them.
"""

from __future__ import annotations

import time

import numpy as np

from ... import tasks
from ...formal.bapo.frontier import frontier
from ...formal.bapo.hardness import carry_out_is_greater_than
from ...formal.reductions import Problem, Reduction
from .base import Claim, Step
from .common import reduction_step

OPEN, CLOSE = 0, 1  # dyck token ids of "(" and ")"

EXACT_HALF = Problem(
    name="exact_half",
    fn=lambda x, n: (2 * np.asarray(x).sum(axis=1) == n).astype(np.int64),
    choices=lambda n: [(0, 1)] * n,
    doc="x in {0,1}^n (n even); 1 iff exactly n/2 of the bits are 1")


def _gt_labels(x, n):
    """Greater-Than on a_(n-1)..a_0 c_(n-1)..c_0 (MSB first): [a > c]."""
    x = np.asarray(x, dtype=np.int64)
    w = 1 << np.arange(n - 1, -1, -1, dtype=np.int64)
    return ((x[:, :n] * w).sum(axis=1) > (x[:, n:] * w).sum(axis=1)).astype(np.int64)


GREATER_THAN = Problem(name="greater_than", fn=_gt_labels,
                       choices=lambda n: [(0, 1)] * (2 * n),
                       doc="a, c in {0,1}^n, MSB first; 1 iff a > c")


def gt_to_binary_add(complement: bool = True) -> Reduction:
    """(a, c) -> "a + NOT(c) =": the carry-out of a + NOT c is [a > c]. ``complement=False``
    (c itself, not its complement) is not a reduction (a test uses it)."""
    PLUS, EQ = 2, 3

    def map_(x, n):
        x = np.asarray(x, dtype=np.int64)
        c = 1 - x[:, n:] if complement else x[:, n:]
        B = len(x)
        return np.concatenate([x[:, :n], np.full((B, 1), PLUS), c, np.full((B, 1), EQ)],
                              axis=1)

    return Reduction(name="greater_than -> binary_add: a + NOT(c) =" if complement else
                     "greater_than -> binary_add: a + c = (not a reduction)",
                     source=GREATER_THAN, target_family="binary_add",
                     target_params=lambda n: {"n": n}, map=map_, kind="projection")


def carry_identity_all_n() -> str:
    """z3, for every n (P = 2^n symbolic): a + b >= P iff a > P - 1 - b, for 0 <= a, b < P."""
    import z3
    a, b, P = z3.Ints("a b P")
    s = z3.Solver()
    s.add(P >= 2, a >= 0, b >= 0, a < P, b < P, z3.Not((a + b >= P) == (a > P - 1 - b)))
    return "proved" if s.check() == z3.unsat else "refuted"


def exact_half_to_dyck(pad: bool = True, k: int = 1) -> Reduction:
    """x -> "("^n  b(x_1) .. b(x_n)  ")"^n with b(1) = "(", b(0) = ")" (Dyck-1, length 3n).

    ``pad=False`` drops the padding: not a reduction (a test uses it)."""
    def map_(x, n):
        x = np.asarray(x, dtype=np.int64)
        body = np.where(x == 1, OPEN, CLOSE)
        if not pad:
            return body
        B = len(x)
        return np.concatenate([np.full((B, n), OPEN), body, np.full((B, n), CLOSE)], axis=1)

    return Reduction(
        name=f"exact_half -> dyck(k={k}): (^n, 1 -> (, 0 -> ), )^n" if pad else
             f"exact_half -> dyck(k={k}) without padding (not a reduction)",
        source=EXACT_HALF, target_family="dyck",
        target_params=(lambda n: {"n": 3 * n, "k": k}) if pad else (lambda n: {"n": n, "k": k}),
        map=map_, kind="projection")


def _monotone(step: Step, red: Reduction, ns) -> Step:
    """Add the order condition of a split-preserving projection: the input positions the
    output tokens depend on are non-decreasing."""
    res = red.check(ns, samples=1 << 12, rng=np.random.default_rng(0))
    ok = True
    for c in res.by_n:
        dep = [d for d in (c.dependency or []) if d >= 0]
        ok &= all(a <= b for a, b in zip(dep, dep[1:]))
    step.details["monotone (dependencies in input order)"] = ok
    step.ok = step.ok and ok
    return step


def _carry_step(max_n: int) -> Step:
    t0 = time.perf_counter()
    ns = [n for n in range(1, max_n + 1) if 4 ** n <= 1 << 16]
    ok = all(carry_out_is_greater_than(n) for n in ns)
    return Step("carry-out is Greater-Than", "machine",
                "binary_add's main decision function (the carry-out) equals [a > NOT b] "
                "on every input (NOT b = 2^n - 1 - b, so a + b >= 2^n iff a > NOT b).",
                ok=ok, up_to=max(ns), tool="enumeration of every input against the "
                "comparison computed from the token rows",
                details={"n": ns}, seconds=time.perf_counter() - t0)


def _frontier_step(name: str, family: str, params: dict, ns: list[int], statement: str,
                   timeout_s: float = 60.0) -> Step:
    t0 = time.perf_counter()
    rows, reached, note = {}, 0, None
    for n in ns:
        df = tasks.get(family, n=n, **params).decision_view()[0]
        f = frontier(df, max_a=6, max_b=2, timeout_s=timeout_s, verify_points=False)
        if any(st not in ("exact", "above max_a") for st in f.status.values()):
            # a time limit or an undecided instance refutes nothing: stop here
            note = f"n={n}: stopped ({', '.join(sorted(set(f.status.values())))})"
            break
        rows[f"n={n} (length {df.length})"] = {
            b: (f"min a = {f.min_a[b]} (a = {f.min_a[b] - 1} UNSAT)" if f.min_a[b]
                else ("min a = 0" if f.min_a[b] == 0 else "every a <= 6 UNSAT"))
            for b in sorted(f.min_a)}
        reached = n
    details = {"minimal a for b = 0, 1, 2": rows}
    if note:
        details["not reached"] = note
    ok = reached > 0
    return Step(name, "machine", statement, ok=ok, up_to=reached,
                tool="SAT frontier (z3; UNSAT = no (a, b)-BAPO at that length, every split "
                     "and adversary)", details=details,
                seconds=time.perf_counter() - t0)


def steps(max_n: int) -> list[Step]:
    half_ns = [n for n in range(2, 2 * max_n + 1, 2) if n <= 16]
    red = exact_half_to_dyck()
    red_step = _monotone(reduction_step(
        "reduction exact-half -> Dyck-1", red, half_ns,
        "x in {0,1}^n is in EXACT-HALF iff (^n b(x) )^n is a Dyck-1 word, with b(1) = (, "
        "b(0) = ): the final depth is #1 - #0 and no prefix goes below 0; a monotone "
        "projection."), red, half_ns)
    red2 = exact_half_to_dyck(k=2)
    red2_step = _monotone(reduction_step(
        "reduction exact-half -> Dyck-2", red2, half_ns,
        "The same map into Dyck-2 (the words use one bracket type only, so they are "
        "Dyck-2 words iff Dyck-1 words)."), red2, half_ns)
    dyck_ns = [n for n in range(4, 2 * max_n + 1, 2) if n <= 10]
    badd_ns = [n for n in range(2, max_n + 1) if n <= 5]
    t0 = time.perf_counter()
    from ..counter_machines import spec_for
    from ..induction import check_spec
    allz = reduction_proof_all_n()
    spec_n = check_spec(spec_for("dyck", {"k": 1}), "dyck", {"k": 1}, 12)
    all_n = Step("reduction exact-half -> Dyck-1 for every n (z3)", "machine",
                 "For every even n and every x, the Dyck-1 specification machine (depth, "
                 "bad) accepts (^n b(x) )^n iff #1(x) = n/2: one invariant per block of the "
                 "word, initial and inductive, and the acceptance test, over unbounded "
                 "integers.", ok=allz["status"] == "proved", all_n=True,
                 tool="z3 (phase invariants over the Dyck-1 specification machine of "
                      "proofs/counter_machines.py)",
                 details={"obligations": allz["obligations"],
                          "specification machine = dyck reference (every input)":
                              f"up to n = {spec_n} (it is the definition: depth never "
                              f"below 0, 0 at the end)"},
                 seconds=time.perf_counter() - t0)
    return [
        red_step, red2_step, all_n,
        Step("monotone projections transfer BAPO hardness", "by_hand",
             "If a monotone projection maps the source of size n into the target, an "
             "(a, b)-BAPO for the target gives an (a, b)-BAPO for the source (the "
             "simulation in theorybench/formal/bapo/hardness.py's module docstring)."),
        Step("EXACT-HALF is BAPO-hard", "missing",
             "No (a, b)-BAPO with constant a and b decides #1 = n/2 at every n. Not proved "
             "here: Schnabel et al. (NeurIPS 2025) prove Majority hard, and a "
             "projection cannot turn Majority's threshold into Dyck's exact zero (the "
             "final depth of a projected word is an affine function of #1)."),
        _frontier_step(
            "Dyck-1 SAT frontier", "dyck", {"k": 1}, dyck_ns,
            "At each small length, the minimal a for b = 0, 1, 2 over all BAPOs for "
            "Dyck-1 membership (evidence for the missing lemma, not a proof)."),
        _carry_step(max_n),
        Step("carry-out identity for every n (z3)", "machine",
             "For every n: a + b >= 2^n iff a > 2^n - 1 - b (linear arithmetic with 2^n a "
             "symbol); 2^n - 1 - b is b with every bit flipped.",
             ok=carry_identity_all_n() == "proved", all_n=True, tool="z3 (integers)"),
        _monotone(reduction_step(
            "reduction Greater-Than -> BinaryAdd", gt_to_binary_add(),
            [n for n in range(1, max_n + 1) if n <= 8],
            "(a, c) -> a + NOT(c) = is a monotone projection with carry-out(a + NOT c) = "
            "[a > c]."), gt_to_binary_add(), [n for n in range(1, min(max_n, 8) + 1)]),
        Step("Greater-Than is BAPO-hard", "missing",
             "No (a, b)-BAPO with constant a and b decides a > c for n-bit a (prefix) and c "
             "(suffix) at every n. Not proved here, and not among the theorems of "
             "Schnabel et al.; BinaryAdd's carry-out is this function with c = NOT b, a "
             "bitwise projection of the suffix."),
        _frontier_step(
            "BinaryAdd SAT frontier", "binary_add", {}, badd_ns,
            "At each small n, the minimal a for b = 0, 1, 2 over all BAPOs for the "
            "carry-out (evidence for the missing lemma: the minimal a at fixed b grows)."),
    ]


PROOF = r"""
**Dyck-1.** Map x in {0,1}^n to D(x) = (^n b(x_1) .. b(x_n) )^n with b(1) = ( and
b(0) = ). After the first n + i letters the depth is n + #1(x_1..x_i) - #0(x_1..x_i) >=
n - i >= 0, and in the closing block the depth falls from n + #1 - #0 to #1 - #0. So
D(x) is a Dyck-1 word iff #1 - #0 = 0 (if #1 < #0 the last prefix is negative; if
#1 > #0 the final depth is positive), i.e. iff #1 = n/2. Every output letter is a
constant or a function of one input bit, in input order: a monotone projection, which
keeps prefixes and suffixes aligned, so an (a, b)-BAPO for Dyck-1 at length 3n gives an
(a, b)-BAPO for EXACT-HALF at length n (f, g and h are rebuilt as in the hardness
module's docstring). Hence Dyck-1 is BAPO-hard if EXACT-HALF is.

A projection from Majority does not work: the final depth of a projected word is
c + d * #1 for constants c, d, so Dyck's condition "final depth 0" is an exact count
(d != 0) or does not depend on the count at all (d = 0). EXACT-HALF's hardness is the
missing lemma; the SAT frontier of Dyck-1 at small lengths shows the minimal a at fixed
b growing, which is evidence and no more.

**BinaryAdd.** a + b >= 2^n iff a > 2^n - 1 - b = NOT b (z3 proves the identity for
every n with 2^n a symbol), so the carry-out is Greater-Than of a against the bitwise
complement of b. The map (a, c) -> a + NOT(c) = sends each letter to a constant or a
function of one input letter, in order: a monotone projection from Greater-Than into
BinaryAdd's carry-out (checked on every instance up to the stated n). So BinaryAdd is
BAPO-hard if Greater-Than is. Why Greater-Than should be hard: the answer is a_j at the
highest j where a_j = b_j; the attention function can select exactly these positions,
but the adversary may withhold the highest one, and the prefix oracle does not know b.
Turning this into a lower bound for every n is the missing lemma; the SAT frontier gives
UNSAT certificates at small n.

**Status.** Conditional on the two missing lemmas. The exact-half -> Dyck-1 reduction
and the carry-out identity are proved for every n by z3; the Dyck-2 and Greater-Than
reductions are checked on every instance up to the stated n (the argument above covers
every n, by hand); the transfer of hardness along a monotone projection is by hand.
"""

CLAIM = Claim(
    name="bapo-dyck-binary-add",
    title="Unbounded Dyck (k = 1, 2) and BinaryAdd are BAPO-hard (conditional)",
    statement="No BAPO with constant (a, b) decides Dyck-1 membership, or BinaryAdd's "
              "carry-out, at every length - provided EXACT-HALF and Greater-Than are "
              "BAPO-hard.",
    assumptions=["the BAPO model of Schnabel et al., NeurIPS 2025 (arXiv 2505.08140), "
                 "Definition 1",
                 "EXACT-HALF is BAPO-hard (missing lemma)",
                 "Greater-Than is BAPO-hard (missing lemma)"],
    proof=PROOF.strip(), steps=steps, min_n=2, default_n=3, max_allowed_n=8,
    settles=(("bapo", "dyck:k=1", "Hard"), ("bapo", "dyck:k=2", "Hard"),
             ("bapo", "binary_add", "Hard")))


def reduction_proof_all_n(pad: bool = True, timeout_ms: int = 30000) -> dict:
    """z3 proof, for every n, that D(x) = (^n b(x) )^n is accepted by the Dyck-1
    specification machine of :mod:`..counter_machines` iff #1(x) = n/2: an invariant per
    phase of the word (opening block, body, closing block), each shown initial-to-step
    inductive over unbounded integers, and the acceptance test at the end.
    ``pad=False`` tries the same for the unpadded map (refuted: z3 finds a state).
    Returns {"status": "proved" | "refuted" | "unknown", "obligations": [...]}."""
    import z3

    from ..counter_machines import Z3Ops, spec_for

    spec = spec_for("dyck", {"k": 1})
    n, j, o, z, d = z3.Ints("n j o z d")
    bad = z3.Bool("bad")
    st = {"depth": d, "bad": bad}
    P = n if pad else z3.IntVal(0)
    opn = lambda s: s == "("  # noqa: E731
    cls = lambda s: s == ")"  # noqa: E731

    def tok(which):
        return lambda sym: z3.BoolVal(which(sym))

    def step(token):
        return spec.step(Z3Ops, st, tok(token))

    def sub(e, s2):
        return z3.substitute(e, (d, s2["depth"]), (bad, s2["bad"]))

    # phase invariants (j counts letters of the phase read so far)
    inv1 = z3.And(d == j, z3.Not(bad), j >= 0, j <= P)
    inv2 = z3.And(d == P + o - z, z3.Not(bad), o >= 0, z >= 0, o + z <= n)
    inv3 = z3.And(d == P + o - z - j, bad == (d < 0) if pad else z3.BoolVal(True),
                  o + z == n, j >= 0, j <= P, o >= 0, z >= 0)
    n_ok = z3.And(n >= 2, n % 2 == 0)
    obligations = {
        "opening: initial": z3.Implies(n_ok, z3.substitute(inv1, (d, z3.IntVal(0)),
                                                           (bad, z3.BoolVal(False)),
                                                           (j, z3.IntVal(0)))),
        "opening: step": z3.Implies(z3.And(n_ok, inv1, j < P),
                                    z3.substitute(sub(inv1, step(opn)), (j, j + 1))),
        "body: initial": z3.Implies(z3.And(n_ok, inv1, j == P),
                                    z3.substitute(inv2, (o, z3.IntVal(0)), (z, z3.IntVal(0)))),
        "body: step on 1": z3.Implies(z3.And(n_ok, inv2, o + z < n),
                                      z3.substitute(sub(inv2, step(opn)), (o, o + 1))),
        "body: step on 0": z3.Implies(z3.And(n_ok, inv2, o + z < n),
                                      z3.substitute(sub(inv2, step(cls)), (z, z + 1))),
        "closing: initial": z3.Implies(z3.And(n_ok, inv2, o + z == n),
                                       z3.substitute(inv3, (j, z3.IntVal(0)))),
        "closing: step": z3.Implies(z3.And(n_ok, inv3, j < P),
                                    z3.substitute(sub(inv3, step(cls)), (j, j + 1))),
        "end: accept iff #1 = n/2": z3.Implies(
            z3.And(n_ok, inv3, j == P), spec.accept(Z3Ops, st) == (2 * o == n)),
    }
    out, status = [], "proved"
    for name, f in obligations.items():
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(z3.Not(f))
        r = s.check()
        verdict = "valid" if r == z3.unsat else ("invalid" if r == z3.sat else "unknown")
        out.append(f"{name}: {verdict}")
        if verdict == "invalid":
            status = "refuted"
        elif verdict == "unknown" and status == "proved":
            status = "unknown"
    return {"status": status, "obligations": out}
