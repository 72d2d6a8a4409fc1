"""Exact circuit synthesis with z3: the smallest circuit of depth <= d computing a function.

Model (the AC0/TC0 size convention of :mod:`.ir`): gates g_1..g_s of unbounded fan-in;
each reads literals - an input or its negation, an earlier gate or its negation (NOT is
free) - and is AND or OR (basis ``ac0``) or also THR_k, "at least k of its inputs"
(basis ``tc0``; MAJ is THR with k = floor(m/2)+1). A THR gate may read a literal several
times, as the IR allows (``thr(k, a, a, b)``): its inputs are a multiset, i.e. positive
integer weights on literals, so the tc0 model is threshold gates with arbitrary integer
weights. (An earlier encoding allowed each literal once; z3 then reported XOR at depth 2
as impossible with 2 gates and found a 3-gate circuit with two equal gates that the IR
merged into the 2-gate circuit THR_3(x0, x1, not g, not g) - an UNSAT certificate false in
the IR's own model.) The output is g_s, possibly negated. Depth = the longest chain of
gates. A size-0 "circuit" is a constant or a literal.

``synthesize`` tries s = 0, 1, 2, ... up to ``max_size``. Every gate except the output must
feed a later gate, which loses nothing: removing unused gates from a circuit keeps its
function and does not increase its depth, so "UNSAT at every s' < s" is a certificate that
no circuit of depth <= d and size < s exists (Kojevnikov, Kulikov, Yaroslavtsev, "Finding
efficient circuits using SAT-solvers", SAT 2009, use the same encoding idea for fan-in 2).
Every z3 call has a timeout; a timed-out call makes the result ``unknown`` with the sizes
proven impossible so far, never a hang.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import tasks
from ...errors import EnumerationTooLarge, TheoryError
from .encoding import Encoding
from .evaluate import evaluate
from .ir import Circuit

MAX_BITS = 10


@dataclass
class SynthResult:
    """``status``: found (``circuit`` is a smallest one), none (no circuit up to
    ``max_size``) or unknown (z3 timed out); ``impossible_sizes`` were proven UNSAT."""

    status: str
    basis: str
    depth: int
    max_size: int
    circuit: Circuit | None = None
    impossible_sizes: list[int] = field(default_factory=list)
    timeout_s: float = 0.0
    seconds: float = 0.0
    message: str = ""

    @property
    def size(self) -> int | None:
        return self.circuit.size if self.circuit is not None else None

    def to_dict(self) -> dict[str, Any]:
        c = self.circuit
        return {"status": self.status, "basis": self.basis, "depth_bound": self.depth,
                "max_size": self.max_size, "size": self.size,
                "circuit_depth": c.depth if c else None,
                "gate_counts": c.gate_counts() if c else None,
                "impossible_sizes": list(self.impossible_sizes), "timeout_s": self.timeout_s,
                "seconds": round(self.seconds, 3), "message": self.message}


def _size0(rows: np.ndarray, target: np.ndarray, names) -> Circuit | None:
    n = rows.shape[1]
    c = Circuit(n, input_names=names)
    if (target == target[0]).all():
        return c.set_outputs(c.const(int(target[0])))
    for i in range(n):
        if (rows[:, i] == target).all():
            return c.set_outputs(c.input(i))
        if (rows[:, i] != target).all():
            return c.set_outputs(c.not_(c.input(i)))
    return None


def _solve_size(rows, target, s, depth, basis, timeout_ms, names):
    import z3

    r, n = rows.shape
    deadline = time.perf_counter() + timeout_ms / 1000.0
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout_ms)))
    nsrc = lambda j: 2 * n + 2 * j  # literal sources available to gate j  # noqa: E731
    use = [[z3.Bool(f"u_{j}_{a}") for a in range(nsrc(j))] for j in range(s)]
    # multiplicity of each literal in a THR gate (1 wherever AND/OR use it)
    mult = [[z3.Int(f"m_{j}_{a}") for a in range(nsrc(j))] for j in range(s)]
    is_and = [z3.Bool(f"and_{j}") for j in range(s)]
    is_thr = [z3.Bool(f"thr_{j}") for j in range(s)]
    k = [z3.Int(f"k_{j}") for j in range(s)]
    lev = [z3.Int(f"lev_{j}") for j in range(s)]
    out_neg = z3.Bool("out_neg")
    val = [[z3.Bool(f"v_{j}_{t}") for t in range(r)] for j in range(s)]
    for j in range(s):
        solver.add(z3.Or(use[j]))
        solver.add(lev[j] >= 1, lev[j] <= depth)
        if basis == "ac0":
            solver.add(z3.Not(is_thr[j]))
        else:
            solver.add(z3.Implies(is_thr[j], z3.Not(is_and[j])))
            for u, m_ in zip(use[j], mult[j]):
                solver.add(z3.If(u, m_ >= 1, m_ == 0))
                solver.add(z3.Implies(z3.Not(is_thr[j]), z3.Implies(u, m_ == 1)))
            weight = z3.Sum(mult[j])
            solver.add(z3.Implies(is_thr[j], z3.And(k[j] >= 1, k[j] <= weight)))
        for jj in range(j):
            for a in (2 * n + 2 * jj, 2 * n + 2 * jj + 1):
                solver.add(z3.Implies(use[j][a], lev[j] >= lev[jj] + 1))
        if j < s - 1:  # every non-output gate feeds a later gate
            solver.add(z3.Or([use[jj][a] for jj in range(j + 1, s)
                              for a in (2 * n + 2 * j, 2 * n + 2 * j + 1)]))
        if time.perf_counter() > deadline:  # building the formula is slow for big s
            return "unknown", "timeout while building the formula"
        for t in range(r):
            lits = []
            for i in range(n):
                lits += [z3.BoolVal(bool(rows[t, i])), z3.BoolVal(not rows[t, i])]
            for jj in range(j):
                lits += [val[jj][t], z3.Not(val[jj][t])]
            conj = z3.And([z3.Implies(u, lit) for u, lit in zip(use[j], lits)])
            disj = z3.Or([z3.And(u, lit) for u, lit in zip(use[j], lits)])
            gate = z3.If(is_and[j], conj, disj)
            if basis == "tc0":
                cnt = z3.Sum([z3.If(lit, m_, 0) for m_, lit in zip(mult[j], lits)])
                gate = z3.If(is_thr[j], cnt >= k[j], gate)
            solver.add(val[j][t] == gate)
    for t in range(r):
        solver.add(z3.Xor(val[s - 1][t], out_neg) == bool(target[t]))
    left_ms = (deadline - time.perf_counter()) * 1000.0
    if left_ms <= 1:
        return "unknown", "timeout while building the formula"
    solver.set("timeout", int(left_ms))
    res = solver.check()
    if res == z3.unsat:
        return "unsat", None
    if res != z3.sat:
        return "unknown", solver.reason_unknown()
    m = solver.model()
    c = Circuit(n, input_names=names)
    nodes: list[int] = []
    for j in range(s):
        lits = []
        thr = basis == "tc0" and z3.is_true(m.eval(is_thr[j], model_completion=True))
        for a in range(nsrc(j)):
            if z3.is_true(m.eval(use[j][a], model_completion=True)):
                base = c.input(a // 2) if a < 2 * n else nodes[(a - 2 * n) // 2]
                times = m.eval(mult[j][a], model_completion=True).as_long() if thr else 1
                lits += [base if a % 2 == 0 else c.not_(base)] * times
        if thr:
            kk = m.eval(k[j], model_completion=True).as_long()
            nodes.append(c.thr(kk, *lits))
        elif z3.is_true(m.eval(is_and[j], model_completion=True)):
            nodes.append(c.and_(*lits))
        else:
            nodes.append(c.or_(*lits))
    outn = nodes[-1]
    if z3.is_true(m.eval(out_neg, model_completion=True)):
        outn = c.not_(outn)
    return "sat", c.set_outputs(outn)


def synthesize(rows: np.ndarray, target: np.ndarray, depth: int, basis: str = "ac0",
               max_size: int = 8, timeout_s: float = 30.0,
               names: list[str] | None = None) -> SynthResult:
    """Smallest circuit (size <= ``max_size``, depth <= ``depth``) with output ``target[t]``
    on input row ``rows[t]`` (rows need not be all of {0,1}^n: other inputs are free)."""
    rows = np.asarray(rows, dtype=np.uint8)
    target = np.asarray(target).astype(np.int64)
    if basis not in ("ac0", "tc0"):
        raise TheoryError(f"unknown basis {basis!r}; use ac0 or tc0")
    if depth < 1 or max_size < 0:
        raise TheoryError(f"need depth >= 1 and max_size >= 0, got depth={depth}, max_size={max_size}")
    if timeout_s <= 0:
        raise TheoryError(f"timeout must be positive, got {timeout_s}")
    if rows.ndim != 2 or len(rows) != len(target) or len(rows) == 0:
        raise TheoryError("rows must be a non-empty (count, n) array with one target per row")
    if not np.isin(target, (0, 1)).all():
        raise TheoryError("synthesis needs a Boolean function: targets must be 0 or 1")
    t0 = time.perf_counter()
    out = SynthResult("none", basis, depth, max_size, timeout_s=timeout_s)
    c0 = _size0(rows, target, names)
    if c0 is not None:
        out.status, out.circuit = "found", c0
    else:
        out.impossible_sizes.append(0)
        for s in range(1, max_size + 1):
            left = timeout_s - (time.perf_counter() - t0)
            if left <= 0:
                out.status = "unknown"
                out.message = f"time limit of {timeout_s:g} s reached before size {s}"
                break
            status, c = _solve_size(rows, target, s, depth, basis, left * 1000, names)
            if status == "unsat":
                out.impossible_sizes.append(s)
            elif status == "sat":
                out.status, out.circuit = "found", c
                break
            else:
                out.status = "unknown"
                out.message = (f"z3 gave up at size {s} (timeout {timeout_s:g} s; reason: {c}); "
                               f"sizes {out.impossible_sizes} are proven impossible")
                break
    if out.circuit is not None:  # never trust, always check
        got = evaluate(out.circuit, rows)[:, 0]
        if (got != target).any():
            raise AssertionError("synthesized circuit does not match its specification")
    if out.status == "none":
        out.message = f"no circuit of depth <= {depth} and size <= {max_size} exists ({basis})"
    out.seconds = time.perf_counter() - t0
    return out


def task_truth_table(family: str, n: int, params: dict | None = None):
    """Encoded inputs, binary outputs and bit names of a task's main decision function."""
    task = tasks.get(family, n=n, **(params or {}))
    df = task.decision_view()[0]
    enc = Encoding.of(df)
    if enc.n_bits > MAX_BITS:
        raise EnumerationTooLarge(
            f"{family} at n={n} has {enc.n_bits} input bits; exact synthesis handles at most "
            f"{MAX_BITS} (use a smaller n, or `theorybench circuit build` for large n)")
    x = df.enumerate()
    y = np.asarray(df.evaluate(x), dtype=np.int64)
    if not np.isin(y, (0, 1)).all():
        raise TheoryError(f"{family}'s decision function is not Boolean; synthesis needs 0/1 outputs")
    return enc.encode(x), y, enc.names


def synthesize_task(family: str, n: int, depth: int, basis: str = "ac0",
                    params: dict | None = None, max_size: int = 8,
                    timeout_s: float = 30.0) -> SynthResult:
    rows, y, names = task_truth_table(family, n, params)
    res = synthesize(rows, y, depth, basis, max_size, timeout_s, names)
    if res.circuit is not None:
        res.circuit.name = f"{family}(n={n}) smallest depth<={depth} {basis}"
    return res
