"""Claims: unbounded Dyck is BAPO-hard (``bapo-dyck``); BinaryAdd is BAPO-hard, conditional
on Greater-Than (``bapo-binary-add``).

Dyck: a monotone projection from EXACT-HALF (is #1 = n/2?) into Dyck-1/Dyck-2 membership,
proved for every n by z3 and checked on every small instance; EXACT-HALF itself is
BAPO-hard by a fooling construction (proof text of ``bapo-dyck``; its size arithmetic is
proved by z3 for every a, b, the construction is run against concrete protocols by
:mod:`theorybench.formal.bapo.exact_count`, and exact UNSAT certificates cover small n).
BinaryAdd: its carry-out is Greater-Than; Greater-Than's hardness is the missing lemma,
with UNSAT certificates at small n as evidence only.
"""

from __future__ import annotations

import time

import numpy as np

from ... import tasks
from ...formal.bapo.exact_count import (exact_half_df, greater_than_df, min_prefix_length,
                                        run_construction, size_arithmetic_all_ab,
                                        split_min_a)
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


#: (a, b) the fooling construction is run at, by max_n (each at n = 2 k0(a, b)).
_CONSTRUCTION_AB = ((3, ((0, 1), (1, 0), (1, 1))),
                    (5, ((0, 2), (1, 2), (2, 0))),
                    (7, ((2, 1),)))


def _construction_step(max_n: int, homogeneous: bool = True) -> Step:
    t0 = time.perf_counter()
    pairs = [ab for lim, abs_ in _CONSTRUCTION_AB if max_n >= lim for ab in abs_]
    rows, ok, count = {}, True, 0
    for a, b in pairs:
        r = run_construction(a, b, rng=np.random.default_rng(0), homogeneous=homogeneous)
        ok &= r["ok"]
        count += r["protocols"]
        bad = [row for row in r["rows"] if row.get("check") != "ok"]
        rows[f"(a, b) = ({a}, {b}) at n = {r['n']}"] = (
            f"{r['protocols']} protocols, every witness checked" if not bad else
            f"REJECTED: {bad[:2]}")
    ns = sorted({2 * min_prefix_length(a, b) for a, b in pairs})
    return Step(
        "EXACT-HALF construction run on concrete protocols", "machine",
        "The construction of the EXACT-HALF lemma, executed against concrete (a, b)-BAPOs "
        "(counting prefix oracles, attention to ones / zeros / windows / everything, random "
        "tables) at n = 2 k0(a, b): for each it finds a yes and a no instance on which h "
        "sees the same f bits, suffix and delivered set, and an independent re-check "
        "confirms the labels, the legality of the delivered set for both inputs and the "
        "equal views. A sanity check of the construction, not of every protocol.",
        ok=ok and bool(pairs), up_to=None,
        scope=f"on {count} protocols at n = {', '.join(map(str, ns))} (not every protocol)",
        tool="theorybench.formal.bapo.exact_count.fooling_witness + check_witness "
             "(selections recomputed with formal.bapo.protocol.selected_mask)",
        details={"runs": rows}, seconds=time.perf_counter() - t0)


def _split_sat_step(name: str, statement: str, dfs: list[tuple[int, object, int]],
                    max_b: int, timeout_s: float = 30.0) -> Step:
    t0 = time.perf_counter()
    rows, reached, note = {}, 0, None
    for n, df, k in dfs:
        res = split_min_a(df, k, max_a=8, max_b=max_b, timeout_s=timeout_s)
        if any(": " in v for v in res.values()):  # a timeout refutes nothing
            note = f"n={n}: stopped ({res})"
            break
        rows[f"n={n}, split k={k}"] = res
        reached = n
    details = {"minimal a per b at that split (smaller a: UNSAT)": rows}
    if note:
        details["not reached"] = note
    return Step(name, "machine", statement, ok=reached > 0, up_to=reached,
                tool="SAT at one split (formal.bapo.frontier.solve_split, z3; UNSAT at "
                     "one split = no (a, b)-BAPO at that length)",
                details=details, seconds=time.perf_counter() - t0)


def _exact_half_reduction_steps(max_n: int) -> list[Step]:
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
    return [red_step, red2_step, all_n]


_TRANSFER = Step(
    "monotone projections transfer BAPO hardness", "by_hand",
    "If a monotone projection maps the source of size n into the target, an (a, b)-BAPO "
    "for the target gives an (a, b)-BAPO for the source (the simulation in "
    "theorybench/formal/bapo/hardness.py's module docstring).")


def steps_dyck(max_n: int) -> list[Step]:
    sat_ns = [n for n in range(2, 2 * max_n + 3, 2) if n <= 12]
    dyck_ns = [n for n in range(4, 2 * max_n + 1, 2) if n <= 10]
    t0 = time.perf_counter()
    arith = size_arithmetic_all_ab()
    arith_step = Step(
        "EXACT-HALF lemma: room for the construction, every a and b (z3)", "machine",
        "For all a, b >= 0, with m = 2^a, M = m + 1, W = M b and any k >= k0(a, b) = "
        "4^M (m + M b - 1) + 1: some type holds m + M b positions (4^M types), every "
        "suffix count d_s = k - W - s lies in 0..k, and the free positions can take the "
        "ones the designated positions leave to reach W.",
        ok=arith["status"] == "proved", all_n=True,
        tool="z3 (nonlinear integer arithmetic, 2^a and 4^M as symbols with m >= 1, "
             "4^M >= 16)", details={"obligations": arith["obligations"]},
        seconds=time.perf_counter() - t0)
    return _exact_half_reduction_steps(max_n) + [
        _TRANSFER,
        Step("EXACT-HALF is BAPO-hard", "by_hand",
             "For every a, b >= 0 and every even n with n/2 >= k0(a, b) = 4^M (m + M b - 1) "
             "+ 1 (m = 2^a, M = m + 1), no (a, b)-BAPO decides EXACT-HALF at length n: the "
             "fooling construction of the proof text (types of prefix positions under "
             "M fixed suffixes, a block inside one type, pigeonhole on f). So no constant "
             "(a, b) works at every n."),
        arith_step,
        _construction_step(max_n),
        _split_sat_step(
            "EXACT-HALF at split n/2: UNSAT certificates", 
            "At small even n, the minimal a for b = 0..3 over all BAPOs at the split "
            "k = n/2 used by the lemma (every smaller a is UNSAT: no (a, b)-BAPO at that "
            "length). The lemma's bound k0 is far larger; these are the exact small cases.",
            [(n, exact_half_df(n), n // 2) for n in sat_ns], max_b=3),
        _frontier_step(
            "Dyck-1 SAT frontier", "dyck", {"k": 1}, dyck_ns,
            "At each small length, the minimal a for b = 0, 1, 2 over all BAPOs for "
            "Dyck-1 membership, every split (small-n evidence beside the proof)."),
    ]


def steps_binary_add(max_n: int) -> list[Step]:
    badd_ns = [n for n in range(2, max_n + 1) if n <= 5]
    gt_ns = [n for n in range(2, max_n + 1) if n <= 4]
    return [
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
        _TRANSFER,
        Step("Greater-Than is BAPO-hard", "missing",
             "No (a, b)-BAPO with constant a and b decides a > c for n-bit a (prefix) and c "
             "(suffix) at every n. Not proved here, and not among the theorems of "
             "Schnabel et al. The EXACT-HALF construction does not carry over: it fixes the "
             "separating suffixes before it chooses the positions of the block, and a "
             "suffix that separates two prefixes for Greater-Than agrees with both above "
             "their highest differing position, so it depends on (and shows g) where the "
             "block is. The one-way case b = 0 needs a >= n (the 2^n rows at split n are "
             "pairwise distinct), which says nothing about b >= 1 (Index has 2^n rows and is "
             "a (0, 1)-BAPO)."),
        _split_sat_step(
            "Greater-Than at split n: UNSAT certificates",
            "At small n, the minimal a for b = 0..3 over all BAPOs at the split between a "
            "and c (every smaller a UNSAT). Evidence for the missing lemma, not a proof: "
            "at these n the minimum is a = n at b = 0 and a + b = n - 1 for 1 <= b < n.",
            [(n, greater_than_df(n), n) for n in gt_ns], max_b=3),
        _frontier_step(
            "BinaryAdd SAT frontier", "binary_add", {}, badd_ns,
            "At each small n, the minimal a for b = 0, 1, 2 over all BAPOs for the "
            "carry-out, every split (evidence for the missing lemma)."),
    ]


PROOF_DYCK = r"""
**EXACT-HALF is BAPO-hard.** EXACT-HALF asks, for x in {0,1}^n (n even), whether
#1(x) = n/2. Fix a, b >= 0 and an (a, b)-BAPO (f, g, h) for EXACT-HALF at length n, and look
at the split k = n/2 only (a BAPO must be right at every split). Put m = 2^a, M = m + 1,
W = M b, and suppose k >= k0(a, b) = 4^M (m + M b - 1) + 1. The argument is the
fooling/pigeonhole argument of the BAPO lower bounds (fill the attention with tokens common
to the prefixes compared, find two prefixes on which f collides, give a suffix that
separates them), with one extra step for g, which sees the whole suffix.

1. *Suffixes first.* For s = 0..m let S_s = 1^(d_s) 0^(k - d_s) with d_s = n/2 - W - s
   (0 <= d_s <= k since W + m <= k).
2. *Types.* Give each prefix position i < k the type
   tau(i) = (g(S_s, k, 0, i), g(S_s, k, 1, i)) for s = 0..m: 2M bits, so 4^M types. Since
   k > 4^M (m + M b - 1), some type T holds at least m + M b positions. Write T_s for its
   pair of bits under S_s.
3. *Block and designated positions.* Take m positions of type T as the block
   beta_1 < ... < beta_m. For every s with T_s != (0, 0) take b further positions R_s of
   type T (disjoint) and give them a value v_s that g selects under S_s (v_s = 1 if
   T_s = (., 1), else 0). Set the remaining (free) positions so that all non-block
   positions hold exactly W ones: the designated ones are at most M b = W, and there are
   at least W free positions (k - m - M b >= M b), so this is possible.
4. *Prefixes.* P_t (t = 0..m) has 1 on beta_1..beta_t, 0 on the other block positions, and
   the common filler: #1(P_t) = W + t. f has at most 2^a = m messages on these M = m + 1
   prefixes, so f(P_s) = f(P_t) for some s < t.
5. *The fooling pair.* x = P_s S_s has W + s + d_s = n/2 ones: a yes-instance;
   x' = P_t S_s has n/2 + (t - s) ones: a no-instance. Under the suffix S_s every position
   of type T has the selection pattern T_s. If T_s = (0, 0), no block position is
   selected whatever its value, so x and x' have the same selected tokens (the common
   filler's) and the adversary delivers the same set. Otherwise the b tokens on R_s (same
   positions, same value v_s in both inputs) are selected in both, at least b tokens are
   selected, and the adversary delivers exactly these. In both cases h receives the same
   f bits, the same G, the same suffix and the same k on x and x', and errs on one.

So no (a, b)-BAPO solves EXACT-HALF at any even n >= 2 k0(a, b); for constant a and b that
is every large n: EXACT-HALF is BAPO-hard. (The bound is weak - it allows a to grow like
log log n - and hardness is all that is claimed.)

**Dyck-1 (and Dyck-2).** Map x in {0,1}^n to D(x) = (^n b(x_1) .. b(x_n) )^n with
b(1) = ( and b(0) = ). After the first n + i letters the depth is n + #1(x_1..x_i) -
#0(x_1..x_i) >= n - i >= 0, and in the closing block the depth falls from n + #1 - #0 to
#1 - #0. So D(x) is a Dyck-1 word iff #1 - #0 = 0, i.e. iff #1 = n/2. Every output letter
is a constant or a function of one input bit, in input order: a monotone projection, which
keeps prefixes and suffixes aligned, so an (a, b)-BAPO for Dyck-1 at length 3n gives an
(a, b)-BAPO for EXACT-HALF at length n (f, g and h rebuilt as in the hardness module's
docstring). The words use one bracket type, so the same map reduces to Dyck-2. Hence
Dyck-1 and Dyck-2 are BAPO-hard. (A projection from Majority cannot work: the final depth
of a projected word is an affine function of #1, so "depth 0 at the end" is an exact
count.)

**What is checked by computer.** The reduction for every n (z3 invariants), and on every
instance at small n (labels, projection, monotone order); the size arithmetic of step 2-3
for all a and b (z3); the construction itself, run against concrete protocols at
n = 2 k0(a, b) with every witness re-checked (labels, legal delivered sets, equal views);
exact UNSAT certificates at the split n/2 for small n. **By hand:** the fooling argument
(steps 1-5 for an arbitrary protocol) and the transfer of hardness along a monotone
projection. By the project's convention a claim with by-hand steps carries the status
of its finite checks (verified ≤ N), never "proven".
"""

PROOF_BINARY_ADD = r"""
**BinaryAdd.** a + b >= 2^n iff a > 2^n - 1 - b = NOT b (z3 proves the identity for
every n with 2^n a symbol), so the carry-out is Greater-Than of a against the bitwise
complement of b. The map (a, c) -> a + NOT(c) = sends each letter to a constant or a
function of one input letter, in order: a monotone projection from Greater-Than into
BinaryAdd's carry-out (checked on every instance up to the stated n). So BinaryAdd is
BAPO-hard if Greater-Than is.

**Greater-Than (missing).** The answer is a_j at the highest j where a_j != c_j; the
attention function can select the positions where a_j != c_j, but an adversary may
withhold the highest one, and the prefix oracle does not know c. The fooling construction
that proves EXACT-HALF hard does not carry over: it fixes the separating suffixes before
choosing where the block of the compared prefixes lies, while a suffix separating two
prefixes for Greater-Than must agree with both above their highest differing position,
so it depends on where the block is, and g sees it. The exact UNSAT certificates at the
split between a and c (n <= 4: minimal a = n - 1 - b for 1 <= b < n) are evidence and no
more; the claim is conditional on this lemma.

**Status.** Conditional on "Greater-Than is BAPO-hard". The carry-out identity is proved
for every n by z3; the Greater-Than reduction is checked on every instance up to the
stated n (the argument above covers every n, by hand); the transfer of hardness along a
monotone projection is by hand.
"""

_BAPO_DEF = ("the BAPO model of Schnabel et al., NeurIPS 2025 (arXiv 2505.08140): an "
             "(a, b)-BAPO must be right at every split and for every adversarial choice")

CLAIM_DYCK = Claim(
    name="bapo-dyck",
    title="Unbounded Dyck (k = 1, 2) is BAPO-hard, through EXACT-HALF",
    statement="No BAPO with constant (a, b) decides Dyck-1 or Dyck-2 membership at every "
              "length. The source, EXACT-HALF (#1 = n/2?), has no (a, b)-BAPO at any even "
              "n >= 2 (4^M (m + M b - 1) + 1), m = 2^a, M = m + 1.",
    assumptions=[_BAPO_DEF,
                 "monotone projections transfer BAPO hardness (by hand, formal/bapo/"
                 "hardness.py)"],
    proof=PROOF_DYCK.strip(), steps=steps_dyck, min_n=2, default_n=3, max_allowed_n=8,
    settles=(("bapo", "dyck:k=1", "Hard"), ("bapo", "dyck:k=2", "Hard")))

CLAIM_BINARY_ADD = Claim(
    name="bapo-binary-add",
    title="BinaryAdd is BAPO-hard (conditional on Greater-Than)",
    statement="No BAPO with constant (a, b) decides BinaryAdd's carry-out at every length - "
              "provided Greater-Than is BAPO-hard.",
    assumptions=[_BAPO_DEF, "Greater-Than is BAPO-hard (missing lemma)"],
    proof=PROOF_BINARY_ADD.strip(), steps=steps_binary_add, min_n=2, default_n=3,
    max_allowed_n=8, settles=(("bapo", "binary_add", "Hard"),))


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
