"""What a theory rule or the report cites from this package: a construction's verification
at several n, and a compiled library program's check, summarised in the evidence
vocabulary (docs/theories.md, "Statuses and bases") and cached per process.

:func:`construction_evidence` builds the hand-built construction of a task at each n of
the family's ``analysis_ns`` whose input space has at most EVIDENCE_INPUTS inputs, and
runs on each: the float64 and float32 model on every input (``verified``, floating point),
outward-rounded interval arithmetic on every input (``proved`` for that n, real
arithmetic) and z3 (for all n at once where the weights allow it: Majority; else for that
n, up to the method's length limit). Its ``status`` is ``proven`` only when a certificate
covers every n (the z3 all-n proof), else ``verified <= N`` for the largest N up to which
every n tried passed (:func:`.verify.evidence_status`). The bound on the inputs keeps it
cheap; z3 per n runs at the largest n within its length limit only.

:func:`compiled_evidence` compiles a C-RASP program (:mod:`.compiler`) for lengths <= N and
checks every definition at every position and the acceptance against the interpreter on
every input of length 1..N (float64): ``verified <= N``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import torch

from .. import tasks
from ..errors import EnumerationTooLarge, ProgramError, TaskParameterError
from . import check, interval, solver, solver_mixed
from .verify import evidence_status, z3_kind

#: Most inputs per n for the exhaustive and interval checks of the evidence.
EVIDENCE_INPUTS = 1 << 12
#: Most inputs (all lengths 1..N together) for the compiled program's check.
COMPILED_INPUTS = 1 << 13
#: Per-query z3 timeout of the evidence (a timeout is ``unknown``, ending the series).
EVIDENCE_TIMEOUT_MS = 20_000
#: Longest input each per-n z3 method is run on for the evidence.
Z3_LEN = {"uniform": 16, "peaked": 10, "mixed": 8}

#: The hand-built constructions the report lists (task labels in the CLI syntax).
HAND_BUILT = ("majority", "dyck:k=1", "dyck_bounded", "dyck_bounded:k=2", "index",
              "khop:k=1", "kv_retrieval")


def _short(ct) -> dict[str, Any]:
    d = {"method": ct.method, "status": ct.status, "seconds": round(float(ct.seconds), 3)}
    for k in ("margin", "observed_margin", "inputs"):
        v = getattr(ct, k)
        if v is not None:
            d[k] = v
    if ct.status != "verified":
        d["claim"] = ct.claim
    if ct.counterexample is not None:
        d["counterexample"] = ct.counterexample
    return d


def _same_weights(a, b) -> bool:
    """True when the model for the larger n (b) is the smaller one's (a) with longer
    positional rows: every weight equal, the positions of a a prefix of b's."""
    wa, wb = a.weights, b.weights
    if len(wa.layers) != len(wb.layers) or wa.width != wb.width:
        return False
    same = (np.array_equal(wa.embed, wb.embed) and np.array_equal(wa.w_out, wb.w_out)
            and np.array_equal(wa.b_out, wb.b_out)
            and np.array_equal(wa.pos, wb.pos[:wa.pos.shape[0]]))
    for la, lb in zip(wa.layers, wb.layers):
        for k in ("wq", "wk", "wv", "wo", "beta", "w1", "b1", "w2", "b2"):
            x, y = getattr(la, k), getattr(lb, k)
            if x.shape != y.shape or not np.array_equal(x, y):
                return False
    return same


def _peaked_betas(c) -> list[float]:
    return [float(b) for l in c.weights.layers for b, u in zip(l.beta, l.uniform_heads())
            if not u]


def construction_evidence(label: str, max_inputs: int = EVIDENCE_INPUTS) -> dict[str, Any]:
    """:func:`_construction_evidence` with torch on one thread (tiny models: threads only
    contend; 0.3 s -> 0.03 s for 2,048 inputs on a loaded machine), restored after."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _construction_evidence(label, max_inputs)
    finally:
        torch.set_num_threads(threads)


@functools.lru_cache(maxsize=32)
def _construction_evidence(label: str, max_inputs: int = EVIDENCE_INPUTS) -> dict[str, Any]:
    """The hand-built construction for task ``label`` (CLI syntax, e.g. ``khop:k=1``),
    verified at every n of the family's analysis range with at most ``max_inputs`` inputs.
    ``available`` is False (with ``reason``) when there is none for the task."""
    from . import BUILDERS, build
    name, params = tasks.parse_task(label)
    if name not in BUILDERS:
        return {"available": False, "task": label,
                "reason": f"no hand-built construction for {name} (built for: "
                          f"{', '.join(sorted(BUILDERS))})"}
    built = []
    for n in tasks.family(name).analysis_ns:
        try:
            c = build(name, n, **params)
        except TaskParameterError as exc:
            if not built and n == max(tasks.family(name).analysis_ns):
                return {"available": False, "task": label, "reason": str(exc)}
            reason = str(exc)
            continue
        built.append(c)
    if not built:
        return {"available": False, "task": label, "reason": reason}
    first = built[0]
    kind = z3_kind(first)
    certs, by_n, ns = [], [], []
    all_n = None
    if kind == "all-n":
        all_n = solver.prove_all_n(first, EVIDENCE_TIMEOUT_MS)
        certs.append(all_n)
    rows = []
    for c in built:
        try:
            row = [check.exhaustive(c, torch.float64, limit=max_inputs),
                   check.exhaustive(c, torch.float32, limit=max_inputs),
                   interval.verify(c, limit=max_inputs)]
        except EnumerationTooLarge:
            break
        rows.append((c, row))
    # z3 per n (the costly method) at the largest n checked within its length limit only
    if kind != "all-n":
        fit = [k for k, (c, _) in enumerate(rows) if c.length <= Z3_LEN[kind]]
        if fit:
            prove = {"uniform": solver.prove_uniform, "peaked": solver.prove_peaked,
                     "mixed": solver_mixed.prove_mixed}[kind]
            rows[fit[-1]][1].append(prove(rows[fit[-1]][0], EVIDENCE_TIMEOUT_MS))
    for c, row in rows:
        certs += row
        ns.append(c.n)
        by_n.append({"n": c.n, "length": c.length, "inputs": row[0].inputs,
                     "shape": c.shape(), "beta": _peaked_betas(c),
                     "certificates": [_short(ct) for ct in row]})
    status = evidence_status(certs, ns) if ns else "unknown"
    last = built[len(ns) - 1] if ns else first
    fixed = all(_same_weights(a, b) for a, b in zip(built[:len(ns)], built[1:len(ns)]))
    ev: dict[str, Any] = {
        "available": True, "task": label, "construction": first.name,
        "summary": first.summary, "source": first.source, "z3_kind": kind,
        "temperature": first.temperature, "margin_formula": first.margin_formula,
        "layers": len(last.weights.layers), "heads": [l.heads for l in last.weights.layers],
        "width_by_n": {r["n"]: r["shape"]["width"] for r in by_n},
        "parameters_by_n": {r["n"]: r["shape"]["parameters"] for r in by_n},
        "beta_by_n": {r["n"]: (max(r["beta"]) if r["beta"] else None) for r in by_n},
        "max_weight_by_n": {c.n: float(max(np.abs(c.weights.w_out).max(),
                                           max(np.abs(getattr(l, k)).max(initial=0.0)
                                               for l in c.weights.layers
                                               for k in ("wq", "wk", "wv", "wo", "w1", "w2"))))
                            for c in built[:len(ns)]},
        "uniform_only": all(all(l.uniform_heads()) for l in first.weights.layers),
        "uses_positions": any(bool(c.weights.pos.any()) for c in built[:len(ns)]),
        "fixed_weights": bool(fixed and len(ns) >= 2),
        "ns": ns, "by_n": by_n, "status": status,
        "methods": sorted({ct.method for ct in certs}),
        "seconds": round(sum(float(ct.seconds) for ct in certs), 3)}
    if status.startswith("verified <= "):
        ev["verified_up_to"] = int(status.split()[-1])
    z3_ns = [r["n"] for r in by_n if any(x["method"].startswith("z3") and
                                         x["status"] == "proved" for x in r["certificates"])]
    ev["z3_proved_ns"] = z3_ns
    if all_n is not None:
        ev["all_n"] = _short(all_n) | {"claim": all_n.claim}
    return ev


def construction_sentence(ev: dict[str, Any]) -> str:
    """One sentence for a cell: shape, temperature, margin, what was verified how."""
    if not ev.get("available"):
        return ev.get("reason", "no construction")
    ws = sorted(set(ev["width_by_n"].values()))
    width = (f"width {ws[0]}" if len(ws) == 1 else
             f"width {ws[0]}..{ws[-1]} over n = {ev['ns'][0]}..{ev['ns'][-1]}")
    heads = sum(ev["heads"])
    how = {"proven": "z3 proved it for every n from its weights (real arithmetic)"}.get(
        ev["status"], f"{ev['status']}: every input of each n checked in float64 and "
        f"float32, interval arithmetic (real) and z3 at n = {ev['z3_proved_ns']}")
    return (f"a softmax transformer ({ev['construction']}: {ev['layers']} layer(s), {heads} "
            f"head(s), {width}; temperature: {ev['temperature']}; margin {ev['margin_formula']}) "
            f"decides it: {how}")


_COMPILED: dict = {}


def compiled_evidence(program, n_max: int, max_inputs: int = COMPILED_INPUTS) -> dict[str, Any]:
    """Compile ``program`` for lengths <= N, N the largest at most ``n_max`` whose inputs of
    length 1..N number at most ``max_inputs``, and check it against the interpreter on
    every one of them (cached per program and N)."""
    from .compiler import compile_program, verify_compiled
    A = len(program.alphabet or program.tokens())
    N, total = 0, 0
    while N < n_max and total + A ** (N + 1) <= max_inputs:
        N += 1
        total += A ** N
    key = (program, program.alphabet, N)
    if key in _COMPILED:
        return _COMPILED[key]
    if N < 1:
        out = {"compiled": False, "reason": f"even length 1 has more than {max_inputs:,} inputs"}
    else:
        try:
            comp = compile_program(program, N)
        except ProgramError as exc:
            out = {"compiled": False, "reason": str(exc)}
        else:
            cert = verify_compiled(program, comp, "exhaustive")
            out = {"compiled": True, "max_len": N, "shape": comp.shape(),
                   "status": cert.status, "inputs": cert.inputs,
                   "observed_margin": cert.observed_margin, "claim": cert.claim,
                   "seconds": round(float(cert.seconds), 3),
                   "method": "compiler + exhaustive check against the interpreter (float64)",
                   "margin": "1/2 in real arithmetic by construction (compiler docstring)"}
            if cert.status == "verified":
                out["verified_up_to"] = N
            else:
                out["counterexample"] = cert.details.get("counterexample")
    _COMPILED[key] = out
    return out
