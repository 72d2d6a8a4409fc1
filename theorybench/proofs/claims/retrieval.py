"""Claims 1 and 4: C-RASP needs exponential program size for binary-address retrieval;
a softmax construction's width on retrieval, and the separation.

The family BINADDR_m (defined here as a :class:`~theorybench.formal.reductions.Problem`;
not yet a task of the suite): x in {0,1}^(2^m), then an address q in {0,1}^m (most
significant bit first); the label is x_q. Length L = 2^m + m, so log2 L is about m while
the one-way communication at the cut after x is 2^m bits.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import z3

from ... import tasks
from ...formal import crasp
from ...formal.crasp.programs import for_task
from ...formal.reductions import Problem
from ..counter_machines import NumpyOps, ProgramMachine, tok_is
from .base import Claim, Step


def binaddr_labels(x: np.ndarray, m: int) -> np.ndarray:
    x = np.asarray(x, dtype=np.int64)
    N = 1 << m
    q = (x[:, N:] * (1 << np.arange(m - 1, -1, -1))).sum(axis=1)
    return x[np.arange(len(x)), q]


BINADDR = Problem(name="binaddr", fn=lambda x, m: binaddr_labels(x, m),
                  choices=lambda m: [(0, 1)] * ((1 << m) + m),
                  doc="x in {0,1}^(2^m) then an m-bit address q; label x_q")


# ---- the communication matrix at the cut after x ------------------------------------

def distinct_rows(m: int, fn=binaddr_labels) -> int:
    """Exact distinct rows of the matrix (prefix x, suffix q) -> fn, by enumeration."""
    N = 1 << m
    xs = np.array(list(itertools.product((0, 1), repeat=N)), dtype=np.int64)
    qs = np.array(list(itertools.product((0, 1), repeat=m)), dtype=np.int64)
    rows = np.empty((len(xs), len(qs)), dtype=np.int8)
    for j, q in enumerate(qs):
        full = np.concatenate([xs, np.tile(q, (len(xs), 1))], axis=1)
        rows[:, j] = fn(full, m)
    return int(len(np.unique(rows, axis=0)))


def comm_rows(m: int) -> dict[int, int]:
    """Distinct rows at every cut, by :mod:`theorybench.formal.communication` (an
    independent count: mixed-radix class refinement, not the matrix)."""
    from ...formal.communication import distinct_rows_by_split
    from ...tasks.base import DecisionFunction

    L = (1 << m) + m
    df = DecisionFunction(task=None, name=f"binaddr m={m}", choices=((0, 1),) * L,
                          evaluate=lambda x: binaddr_labels(x, m),
                          sample=lambda rng, count: rng.integers(0, 2, size=(count, L)))
    return distinct_rows_by_split(df)


def fooling_set_z3(m: int, address_bits: int | None = None, timeout_ms: int = 30000) -> str:
    """z3: any two distinct x, x' in {0,1}^(2^m) are told apart by some address q (the
    2^(2^m) prefixes form a fooling set). ``address_bits`` < m reads only that many low
    address bits (a family with a collision, for tests). 'proved' | 'refuted' | 'unknown'."""
    N = 1 << m
    a = m if address_bits is None else address_bits
    x, y = z3.BitVec("x", N), z3.BitVec("y", N)
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(x != y)
    for q in range(N):
        read = q % (1 << a)  # the position the (possibly truncated) address reads
        s.add(z3.Extract(read, read, x) == z3.Extract(read, read, y))
    r = s.check()
    return "proved" if r == z3.unsat else ("refuted" if r == z3.sat else "unknown")


def size_bound(m: int) -> dict:
    """The certified lower bound on the number s of counts of a C-RASP program for
    BINADDR_m: (k + 1)^s >= 2^(2^m) messages at the cut k = 2^m."""
    N = 1 << m
    s = math.ceil(N / math.log2(N + 1))
    return {"m": m, "length": N + m, "rows": f"2^{N}", "s >=": s,
            "bits per count": math.ceil(math.log2(N + m + 1))}


# ---- the simulation lemma ---------------------------------------------------------------

SIMULATION_PROGRAMS = (("majority", {}), ("dyck", {"k": 1}), ("dyck_bounded", {"k": 1, "D": 2}),
                       ("all", {}), ("any", {}))


def simulation_check(program, alphabet: tuple[str, ...], length: int, drop: int = 0) -> dict:
    """At every cut k of every word of ``length``: the message "the program's counts after
    the prefix" (all but the last ``drop`` of them) determines the answer on every
    suffix, and takes at most (k + 1)^s values. Acceptance comes from the interpreter,
    the counts from the counter-machine view. Returns {"ok", "cuts", "worst" ...}."""
    machine = ProgramMachine.of(program)
    s = len(machine.counts)
    A = len(alphabet)
    words = np.array(list(itertools.product(range(A), repeat=length)), dtype=np.int64)
    strings = [" ".join(alphabet[i] for i in w) for w in words]
    acc = np.asarray(crasp.run(program, strings, alphabet=alphabet).accept, dtype=np.int8)
    ops = NumpyOps(words.shape[:1])
    state = machine.init(ops)
    ok, worst = True, 0
    for k in range(1, length):
        state, _ = machine.step(ops, state, tok_is(alphabet, words[:, k - 1]), ops.bool_(False))
        kept = state[: s - drop] if drop else state
        msg = np.stack([np.asarray(c, dtype=np.int64) for c in kept], axis=1) \
            if kept else np.zeros((len(words), 0), dtype=np.int64)
        # rows: the answers of every prefix on every suffix (words are in lexicographic
        # order, so prefix p's suffixes are one contiguous block)
        rows = acc.reshape(A ** k, A ** (length - k))
        pmsg = msg.reshape(A ** k, A ** (length - k), -1)[:, 0, :]
        _, mid = np.unique(pmsg, axis=0, return_inverse=True)
        mid = mid.reshape(-1)
        n_msgs = int(mid.max()) + 1
        # within one message, every row must be the same
        first = np.full(n_msgs, -1)
        first[mid[::-1]] = np.arange(len(mid))[::-1]
        same = np.all(rows == rows[first[mid]], axis=1)
        ok &= bool(same.all()) and n_msgs <= (k + 1) ** (s - drop)
        worst = max(worst, n_msgs)
    return {"ok": ok, "counts": s - drop, "length": length, "max messages": worst,
            "bits": (s - drop) * math.ceil(math.log2(length + 1))}


def generated_program(rng: np.random.Generator, counts: int = 3):
    """A random C-RASP program over {0, 1}: counts of tokens and of earlier Booleans,
    comparisons with constants and multiples, Boolean combinations (the output is the
    last Boolean). Used to test the simulation lemma beyond the library."""
    from ...formal.crasp.parser import parse

    lines, ints, bools = [], [], ['"0"', '"1"']
    for i in range(counts):
        body = bools[int(rng.integers(len(bools)))]
        if len(bools) > 2 and rng.random() < 0.5:
            other = bools[int(rng.integers(len(bools)))]
            body = f"({body} {'&&' if rng.random() < 0.5 else '||'} {other})"
        lines.append(f"C{i} = # {body}")
        ints.append(f"C{i}")
        a, b = (ints[int(rng.integers(len(ints)))] for _ in range(2))
        op = ("<", "<=", "==", ">")[int(rng.integers(4))]
        rhs = f"{int(rng.integers(1, 3))} * {b} + {int(rng.integers(0, 2))}"
        lines.append(f"B{i} = {a} {op} {rhs}")
        bools.append(f"B{i}")
    lines.append(f"OUT = B{counts - 1} || !{bools[-2] if counts > 1 else 'B0'}")
    return parse("\n".join(lines), "<generated>")


def _simulation_step(max_len: int, generated: int = 8) -> Step:
    t0 = time.perf_counter()
    results, ok, reached = {}, True, max_len
    for fam, params in SIMULATION_PROGRAMS:
        task = tasks.get(fam, n=4 if fam != "majority" else 3, **params)
        prog, _ = for_task(task)
        alphabet = tuple(task.vocab)
        L = max(1, min(max_len, int(math.log(1 << 16) / math.log(len(alphabet)))))
        reached = min(reached, L)
        r = simulation_check(prog, alphabet, L)
        ok &= r["ok"]
        results[f"{fam} {params or ''}".strip()] = (f"{r['counts']} counts, length {L}: "
                                                  f"{'ok' if r['ok'] else 'FAILED'}, at most "
                                                  f"{r['max messages']} messages")
    rng = np.random.default_rng(0)
    L = max(1, min(max_len, 14))
    gen_ok = 0
    for _ in range(generated):
        r = simulation_check(generated_program(rng), ("0", "1"), L)
        gen_ok += int(r["ok"])
    ok &= gen_ok == generated
    reached = min(reached, L)
    results[f"{generated} generated programs (seed 0, 3 counts each)"] = (
        f"length {L}: {gen_ok}/{generated} ok")
    return Step("simulation lemma on concrete programs", "machine",
                "A C-RASP program without positional imports and with s counts gives a "
                "one-way protocol whose message at a cut k is its s counts (each in 0..k, "
                "s * ceil(log2(n + 1)) bits): on every word and every cut, prefixes with "
                "the same counts have the same answers on every suffix.",
                ok=ok, up_to=reached, tool="interpreter (answers) and counter-machine "
                "view (counts), every word, every cut", details=results,
                seconds=time.perf_counter() - t0)


def lower_bound_steps(max_m: int) -> list[Step]:
    t0 = time.perf_counter()
    enum_ms = [m for m in range(1, max_m + 1) if m <= 4]
    rows = {m: distinct_rows(m) for m in enum_ms}
    comm = {m: comm_rows(m) for m in enum_ms}
    # the cut after x has 2^(2^m) rows, and no cut has more
    ok_rows = all(rows[m] == 2 ** (1 << m) == comm[m][1 << m] == max(comm[m].values())
                  for m in enum_ms)
    s_rows = Step("exact rows at the cut (enumeration)", "machine",
                  "At the cut after x the communication matrix of BINADDR_m has exactly "
                  "2^(2^m) distinct rows.", ok=ok_rows, up_to=max(enum_ms),
                  tool="enumeration of the whole matrix (np.unique on rows), cross-checked "
                       "by formal.communication.distinct_rows_by_split at every cut",
                  details={f"m={m}": f"{r} rows at the cut after x; the largest over all "
                                     f"{len(comm[m])} cuts: {max(comm[m].values())}"
                           for m, r in rows.items()},
                  seconds=time.perf_counter() - t0)
    t1 = time.perf_counter()
    z = {m: fooling_set_z3(m) for m in range(1, max_m + 1)}
    s_z3 = Step("fooling set (z3, each m)", "machine",
                "For each m <= M: every two distinct x, x' in {0,1}^(2^m) differ at some "
                "address q (z3 over bit-vectors of width 2^m: the negation is UNSAT), so "
                "the 2^(2^m) prefixes are a fooling set.",
                ok=all(v == "proved" for v in z.values()), up_to=max_m,
                tool="z3 bit-vectors", details={f"m={m}": v for m, v in z.items()},
                seconds=time.perf_counter() - t1)
    bound = Step("certified size bound per m", "machine",
                 "With (k + 1)^s >= rows at the cut k = 2^m: s >= 2^m / log2(2^m + 1).",
                 ok=s_z3.ok, up_to=max_m, tool="arithmetic on the z3-certified rows",
                 details={f"m={m}": size_bound(m) for m in range(1, max_m + 1)})
    return [s_rows, s_z3, bound]


def claim1_steps(max_m: int) -> list[Step]:
    return [_simulation_step(max(2, 2 * max_m)),
            Step("simulation lemma for every program", "by_hand",
                 "Every count at position i > k is the count at k plus a count over "
                 "positions k+1..i of formulas that depend on the counts and the token "
                 "there, so the suffix holder can finish the run from the s counts at k."),
            *lower_bound_steps(max_m),
            Step("fooling set for every m", "by_hand",
                 "Two distinct x, x' differ at some position q, and the query q tells them "
                 "apart: 2^(2^m) rows at every m."),
            Step("softmax transformers solve BINADDR_m with width O(m)", "missing",
                 "No construction for the binary-address family in "
                 "theorybench/constructions yet (Index with one query token per "
                 "position is there; see claim crasp-softmax-width).")]


PROOF1 = r"""
**Task.** BINADDR_m: x in {0,1}^N with N = 2^m, then an address q in {0,1}^m; the answer
is x_q. The length is n = N + m, so log2(n + 1) is about m.

**Simulation lemma.** Let P be a C-RASP program without positional predicates, with s
count terms. It is a counter machine: at every position each count is its value at the
previous position plus a 0/1 formula of the current token and of the counts defined
before it at this position (the program is straight-line), so the s counts at i are a
function of the s counts at i - 1 and the token at i. Cut the
input after k letters. The prefix holder sends the s counts at k (each in 0..k, so
s * ceil(log2(k + 1)) <= s * ceil(log2(n + 1)) bits); the suffix holder continues the
machine from these counts over the suffix and reads the output. So the number of
distinct rows of the communication matrix at that cut is at most (k + 1)^s. (With
positional imports the message also carries k mod p and the last letter: local bits.)

**Fooling set.** At the cut k = N the matrix has 2^N distinct rows: two distinct x, x'
differ at some position q, and the suffix q separates them.

**Bound.** (N + 1)^s >= 2^N gives s >= N / log2(N + 1) = 2^m / log2(2^m + 1): the number of
counts (hence the program size) is exponential in m, while the length is 2^m + m and a
softmax transformer needs only to compare an m-bit address with positions (the upper side,
missing here for this family).

**What is checked.** The simulation lemma on every word and cut for the library programs
(Majority, Dyck-1, bounded Dyck-1, All, Any) up to the stated length; the exact row counts
by enumeration for m <= 4; the fooling set by z3 for each m <= M; the bound as
arithmetic. The lemma for every program and the fooling set for every m are by hand (both
are short and general).
"""

CLAIM1 = Claim(
    name="crasp-retrieval-size",
    title="C-RASP needs program size exponential in the key length m for binary-address "
          "retrieval",
    statement="Every C-RASP program (without positional predicates) deciding BINADDR_m at "
              "length 2^m + m has at least 2^m / log2(2^m + 1) count terms; softmax "
              "transformers solve the family with width polynomial in m (upper side "
              "missing here).",
    assumptions=["C-RASP as in Yang & Chiang (COLM 2024), without positional predicates",
                 "program size is at least the number of count terms"],
    proof=PROOF1.strip(), steps=claim1_steps, min_n=1, default_n=3, max_allowed_n=8)


# ---- claim 4: width separation ------------------------------------------------------------

def softmax_step(ns: list[int]) -> Step:
    """The committed Index construction (one query token), verified exhaustively at each
    n, with its width."""
    t0 = time.perf_counter()
    from ...constructions import build
    from ...constructions.check import exhaustive

    rows, ok, reached = {}, True, 0
    for n in ns:
        c = build("index", n=n)
        cert = exhaustive(c)
        width = c.shape()["width"]
        s_min = math.ceil(n / math.log2(n + 1))
        rows[f"n={n}"] = (f"width {width}, {cert.status} on {cert.inputs} inputs "
                          f"(float64); C-RASP needs >= {s_min} counts; ratio "
                          f"{s_min / width:.2f}")
        if not cert.ok:
            ok = False
            break
        reached = n
    return Step("softmax construction for Index, width by n", "machine",
                "The committed construction for index (x in {0,1}^n, one query token) "
                "decides every input correctly (float64, exhaustive), with the width "
                "reported by n; the C-RASP lower bound at the same n is n / log2(n + 1) "
                "counts (the simulation lemma with 2^n rows at the cut after x).",
                ok=ok, up_to=reached, tool="constructions.check.exhaustive",
                details=rows, seconds=time.perf_counter() - t0)


def claim4_steps(max_m: int) -> list[Step]:
    return [*lower_bound_steps(max_m),
            softmax_step([n for n in range(2, 2 * max_m + 3, 2) if n <= 12]),
            Step("a softmax construction for BINADDR_m of width poly(m)", "missing",
                 "Not in theorybench/constructions: the separation in m needs it; the "
                 "Index construction (query tokens) shows a constant width against C-RASP's "
                 "n / log2(n + 1) counts at the measured n."),
            Step("asymptotic separation", "by_hand",
                 "With both sides: C-RASP needs 2^m / log2(2^m + 1) counts, softmax width "
                 "poly(m); the ratio is exponential in m.")]


PROOF4 = r"""
**Lower side** (claim crasp-retrieval-size): s >= 2^m / log2(2^m + 1) counts for BINADDR_m.

**Upper side.** A softmax layer can retrieve x_q by an attention score that peaks at the
position named by the query (theorybench/constructions/retrieval.py: the score
2tj - j^2 = t^2 - (j - t)^2 has a gap of 1 at the wanted key). For Index with a query
token the committed construction has constant width; it is verified on every input at
the measured n, and the certificate shows width and the C-RASP bound side by side. For
the binary-address family the construction must first decode the m address bits into a
position (width O(m) for the address and the positional code); that construction is
missing, so the exponential separation in m is conditional on it.
"""

CLAIM4 = Claim(
    name="crasp-softmax-width",
    title="Exponential width separation between C-RASP and softmax attention on retrieval",
    statement="On binary-address retrieval BINADDR_m, C-RASP needs 2^m / log2(2^m + 1) "
              "counts while a softmax transformer of width poly(m) suffices.",
    assumptions=["the assumptions of claim crasp-retrieval-size",
                 "width of a construction = its residual-stream dimension"],
    proof=PROOF4.strip(), steps=claim4_steps, min_n=1, default_n=2, max_allowed_n=6)
