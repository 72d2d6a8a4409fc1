"""Circuit families proved equal to the task's specification by z3, at each given n.

Enumeration checks a builder's circuit on every input only while there are at most 2^16
of them (n <= 16 for the bit tasks). Here the circuit and an independent specification of
the task are both written as z3 formulas over the task's tokens, and z3 is asked for an
input on which they differ (a miter):

* tokens: one bit-vector variable per position, constrained to the position's choices
  (``DecisionFunction.choices``) and, for tasks with a domain restriction (distinct
  queries, a mask with exactly k ones), to the restriction, written here;
* the circuit: its input bits read the tokens exactly as :class:`~theorybench.formal.
  circuits.encoding.Encoding` does (bit j is ``token[pos_j] == tok_j``), then every live
  gate becomes one formula, in topological order: AND/OR/NOT as Boolean connectives,
  THR_k and MAJ as a comparison of the bit-vector sum of their inputs (ZeroExt of each
  input bit, enough bits that the sum cannot wrap) with k resp. half the fan-in;
* the specification: the task's definition, written from its docstring and not from the
  circuit: parity = XOR of the bits, majority = 2 * popcount > n, all/any = AND/OR,
  sparse_* = the same over the task's fixed support S, index_* = the queried bits read
  from the data word by a bit-vector shift (tokens) or a bitwise AND with the mask,
  binary_add = the top bit of the (n+1)-bit sum of the two summands, dyck (one bracket
  type) = every prefix height (a signed bit-vector sum of +-1) at least 0, at most the
  depth bound, and the final height 0.

``unsat`` (no input where they differ) proves the circuit equal to the specification at
that n - for that n only, not for all n. ``sat`` gives a counterexample input; it is
decoded to tokens and confirmed with the numpy circuit evaluator and the task's own
reference (``df.evaluate``): a counterexample the reference does not confirm is reported
as "unknown" (a bug here), never as a refutation. A solver timeout is "unknown", never
"proved". The specification is tied to the task's reference by a finite check: at the
proved n it is evaluated on ``spec_samples`` inputs (task and uniform samples) and must
agree with ``df.evaluate`` on every one (``tests/proofs/test_circuit_proofs.py`` also
checks it on every input at small n).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np
import z3

from .. import tasks
from ..errors import TaskParameterError, TheoryError
from ..registry import BUILTIN, artifact_library
from ..formal.circuits.builders import Built, build, builders_for
from ..formal.circuits.evaluate import evaluate
from ..formal.circuits.ir import AND, CONST, INPUT, MAJ, NOT, OR, THR, Circuit
from ..formal.circuits.verify import decode, uniform_inputs

#: Default z3 time limit of one proof (seconds).
DEFAULT_TIMEOUT_S = 120.0


# ---- the specifications -----------------------------------------------------------------
def _bv(bits: list[z3.BoolRef]) -> z3.BitVecRef:
    """Bits (index i = weight 2^i) as one bit-vector of len(bits) bits."""
    parts = [z3.If(b, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) for b in reversed(bits)]
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _popcount(bits: list[z3.BoolRef], width: int) -> z3.BitVecRef:
    return z3.Sum([z3.ZeroExt(width - 1, _bv([b])) for b in bits])


def _xor(bits: list[z3.BoolRef]) -> z3.BoolRef:
    return functools.reduce(z3.Xor, bits) if bits else z3.BoolVal(False)


def _is(task, tok, i: int, symbol: str) -> z3.BoolRef:
    return tok[i] == task.index[symbol]


@dataclass(frozen=True)
class Spec:
    """A task family's definition as z3 formulas over the tokens."""

    text: str                                                   # the definition, in words
    formula: Callable[[Any, Any, list], z3.BoolRef]             # (task, df, tokens) -> Bool
    domain: Callable[[Any, Any, list], list] | None = None      # extra constraints
    applies: Callable[[Any], str | None] = lambda task: None    # why not (None: it applies)
    #: for a symmetric task, the value as a function g(s, n) of the number s of ones
    symmetric: Callable[[z3.BitVecRef, int], z3.BoolRef] | None = None
    symmetric_text: str = ""


def _bits(task, tok, positions):
    return [_is(task, tok, i, "1") for i in positions]


def _majority(task, df, tok):
    n = task.n
    w = (2 * n).bit_length() + 1
    return z3.UGT(2 * _popcount(_bits(task, tok, range(n)), w), z3.BitVecVal(n, w))


def _query_bits(task, tok):
    """The data word X, and the queried bits (tokens mode) or the mask word Y (mask)."""
    n = task.n
    x = _bv(_bits(task, tok, range(n)))
    if task.mode == "mask":
        return x, _bv(_bits(task, tok, range(n, 2 * n)))
    w = max(n, tok[n].size())           # X and the shift amount share one width
    xw = z3.ZeroExt(w - n, x) if w > n else x
    out = []
    for p in range(task.k):
        q = tok[n + p]
        q = z3.ZeroExt(w - q.size(), q) if w > q.size() else q
        out.append(z3.Extract(0, 0, z3.LShR(xw, q - 2)) == 1)  # x_q, q = position + 2
    return x, out


def _query_formula(task, df, tok):
    x, q = _query_bits(task, tok)
    if task.mode == "tokens":
        return {"all": z3.And, "any": z3.Or, "parity": _xor}[task.op](q)
    n = task.n
    hit = x & q
    if task.op == "all":
        return hit == q
    if task.op == "any":
        return hit != 0
    w = n.bit_length() + 1
    return z3.Extract(0, 0, _popcount([z3.Extract(i, i, hit) == 1 for i in range(n)], w)) == 1


def _query_domain(task, df, tok):
    n = task.n
    if task.mode == "mask":
        w = n.bit_length() + 1
        return [_popcount(_bits(task, tok, range(n, 2 * n)), w) == task.k]
    return [z3.Distinct(*tok[n:])] if task.k > 1 else []


def _binary_add(task, df, tok):
    pos_a, pos_b, _ = task._positions()
    n = task.n
    a = _bv([_is(task, tok, int(p), "1") for p in pos_a])
    b = _bv([_is(task, tok, int(p), "1") for p in pos_b])
    s = z3.ZeroExt(1, a) + z3.ZeroExt(1, b)
    j = n if df.name == "carry_out" else int(df.name.rsplit("_", 1)[1])
    return z3.Extract(j, j, s) == 1


def _dyck1(task, df, tok):
    """Height h_j = #"(" - #")" among the first j brackets (running bit-vector counts)."""
    n = task.n
    # the depth bound in force, declared by the task (min(D, n/2) when bounded, n/2 when
    # not: every Dyck word of length n stays below n/2 anyway)
    cap = getattr(task, "cap", None)
    w = (n + 1).bit_length() + 1
    opens = closes = z3.BitVecVal(0, w)
    conds = []
    for i in range(n):
        opens = opens + z3.If(tok[i] == task.index["("], z3.BitVecVal(1, w), z3.BitVecVal(0, w))
        closes = closes + z3.If(tok[i] == task.index[")"], z3.BitVecVal(1, w),
                                z3.BitVecVal(0, w))
        conds.append(z3.UGE(opens, closes))                     # h_j >= 0
        if cap is not None and cap < n:
            conds.append(z3.ULE(opens, closes + cap))           # h_j <= cap
    conds.append(opens == closes)                               # h_n = 0
    return z3.And(*conds)


_SHIPPED: dict[str, Spec] = {
    "all": Spec("AND of the n bits", lambda t, d, x: z3.And(_bits(t, x, range(t.n)))),
    "any": Spec("OR of the n bits", lambda t, d, x: z3.Or(_bits(t, x, range(t.n)))),
    "parity": Spec("XOR of the n bits", lambda t, d, x: _xor(_bits(t, x, range(t.n))),
                   symmetric=lambda s, n: z3.Extract(0, 0, s) == 1,
                   symmetric_text="the lowest bit of s"),
    "majority": Spec("2 * popcount(x) > n (bit-vector sum of the zero-extended bits)",
                     _majority, symmetric=lambda s, n: z3.UGT(z3.ZeroExt(1, s) * 2,
                                                               z3.BitVecVal(n, s.size() + 1)),
                     symmetric_text="2 s > n"),
    "sparse_all": Spec("AND of the bits of the task's support S",
                       lambda t, d, x: z3.And(_bits(t, x, t.support))),
    "sparse_any": Spec("OR of the bits of the task's support S",
                       lambda t, d, x: z3.Or(_bits(t, x, t.support))),
    "sparse_parity": Spec("XOR of the bits of the task's support S",
                          lambda t, d, x: _xor(_bits(t, x, t.support))),
    "index": Spec("x_q: bit q-1 of the data word X read by a logical shift X >> (q - 1)",
                  _query_formula, _query_domain),
    "index_all": Spec("AND of the queried bits (tokens: X >> (q_p - 1); mask: X & Y == Y)",
                      _query_formula, _query_domain),
    "index_any": Spec("OR of the queried bits (tokens: X >> (q_p - 1); mask: X & Y != 0)",
                      _query_formula, _query_domain),
    "index_parity": Spec("XOR of the queried bits (tokens: X >> (q_p - 1); mask: parity of "
                         "popcount(X & Y))", _query_formula, _query_domain),
    "binary_add": Spec("bit j of the (n+1)-bit sum ZeroExt(a) + ZeroExt(b) (j = n: the "
                       "carry-out)", _binary_add),
    "dyck": Spec("one bracket type: every prefix height >= 0 (and <= the cap), final height 0",
                 _dyck1, applies=lambda t: None if t.k == 1 else
                 f"only one bracket type has a specification here (k={t.k})"),
    "dyck_bounded": Spec("one bracket type: every prefix height in 0..D, final height 0",
                         _dyck1, applies=lambda t: None if t.k == 1 else
                         f"only one bracket type has a specification here (k={t.k})"),
}


#: z3 specifications per task family (the registry idiom of :mod:`theorybench.registry`).
CIRCUIT_SPECS = artifact_library("circuit proof spec", column="circuit spec")
for _family, _spec in _SHIPPED.items():
    CIRCUIT_SPECS.add(_spec, _family, origin=BUILTIN)


SPECS: Mapping[str, Spec] = CIRCUIT_SPECS.by_family()


def families() -> list[str]:
    """Families with both a circuit builder and a z3 specification."""
    return [f for f in SPECS if builders_for(f, "tc0")]


# ---- the circuit ------------------------------------------------------------------------
def circuit_formulas(c: Circuit, bits: list[z3.BoolRef],
                     cut: dict[tuple[int, ...], tuple[z3.BitVecRef, int]] | None = None
                     ) -> list[z3.BoolRef]:
    """The circuit's outputs as z3 formulas of its input bits, built gate by gate.

    ``cut`` maps an argument tuple of threshold gates to a (bit-vector, width) standing for
    the sum of those arguments (a cut point, see :func:`symmetric_cut`)."""
    alive = c.live()
    val: dict[int, z3.BoolRef] = {}
    sums: dict[tuple[int, ...], tuple[z3.BitVecRef, int]] = dict(cut or {})

    # one width for every sum (no sum of at most `fan` ones can wrap around), so that the
    # sum of a tuple extending another tuple by its last argument is that sum plus one
    # bit: threshold gates over the prefixes of one sequence (dyck) share their sums
    fan = max((len(c.args[v]) for v, k in enumerate(c.kinds) if k in (MAJ, THR)), default=1)
    width = (fan + 1).bit_length() + 1

    def one(a):
        return z3.ZeroExt(width - 1, _bv([val[a]]))

    def total(args):
        hit = sums.get(args)
        if hit is None:
            prev = sums.get(args[:-1]) if len(args) > 1 else None
            if prev is not None and prev[1] == width:
                hit = (prev[0] + one(args[-1]), width)
            else:
                hit = (z3.Sum([one(a) for a in args]) if len(args) > 1 else one(args[0]),
                       width)
            sums[args] = hit
        return hit

    for v, kind in enumerate(c.kinds):
        if not alive[v] and kind != INPUT:
            continue
        if kind == INPUT:
            val[v] = bits[c.params[v]]
        elif kind == CONST:
            val[v] = z3.BoolVal(bool(c.params[v]))
        elif kind == NOT:
            val[v] = z3.Not(val[c.args[v][0]])
        elif kind == AND:
            val[v] = z3.And([val[a] for a in c.args[v]])
        elif kind == OR:
            val[v] = z3.Or([val[a] for a in c.args[v]])
        elif kind in (MAJ, THR):
            s, w = total(c.args[v])
            m = len(c.args[v])
            # MAJ: sum > m/2, i.e. 2 sum > m; THR_k: sum >= k (unsigned, no wrap-around)
            val[v] = (z3.UGT(z3.ZeroExt(1, s) * 2, z3.BitVecVal(m, w + 1)) if kind == MAJ
                      else z3.UGE(s, z3.BitVecVal(c.params[v], w)))
        else:  # pragma: no cover - the IR has no other kinds
            raise TheoryError(f"unknown gate kind {kind!r} at node {v}")
    return [val[o] for o in c.outputs]


def symmetric_cut(c: Circuit) -> tuple[int, ...] | None:
    """The argument tuple A if the output depends on the inputs only through threshold
    (THR/MAJ) gates that all read exactly A, each input once: then the output is a function
    G of the single number sum(A). None otherwise."""
    if len(c.outputs) != 1:
        return None
    tuples = {c.args[v] for v, k in enumerate(c.kinds) if c.live()[v] and k in (MAJ, THR)}
    if len(tuples) != 1:
        return None
    (A,) = tuples
    if len(set(A)) != len(A) or any(c.kinds[a] != INPUT for a in A):
        return None
    seen, stack = set(), [c.outputs[0]]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if c.kinds[v] == INPUT:
            return None             # an input reached around the threshold gates
        if c.kinds[v] not in (MAJ, THR):
            stack.extend(c.args[v])
    return A


# ---- the proof --------------------------------------------------------------------------
@dataclass
class CircuitProof:
    """The outcome of one miter at one n."""

    status: str                          # "proved" | "counterexample" | "unknown"
    family: str
    n: int
    params: dict[str, Any]
    view: str
    spec: str
    builder: str
    basis: str
    input_bits: int
    gates: int
    depth: int
    seconds: float
    reason: str = ""
    counterexample: list[int] | None = None     # token ids
    counterexample_text: str | None = None
    circuit_value: int | None = None
    reference_value: int | None = None
    spec_samples: int = 0                       # spec = reference on this many inputs
    timeout_s: float = DEFAULT_TIMEOUT_S
    rlimit_used: int = 0                        # z3's resource count over all queries
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def statement(self) -> str:
        if self.status == "proved":
            how = ("two UNSAT queries through s = #ones" if "sum cut" in
                   str(self.extra.get("method", "")) else "UNSAT miter")
            return (f"z3: the {self.basis} circuit for {self.family}(n={self.n}) equals the "
                    f"specification ({self.spec}) on every input ({how}, "
                    f"{self.seconds:.2f} s); at n={self.n} only")
        if self.status == "counterexample":
            return (f"z3: the circuit for {self.family}(n={self.n}) differs from the task on "
                    f"{self.counterexample_text}: circuit {self.circuit_value}, reference "
                    f"{self.reference_value}")
        return f"unknown at n={self.n}: {self.reason}"


def _token_vars(df) -> tuple[list[z3.BitVecRef], list[z3.BoolRef]]:
    top = max(max(c) for c in df.choices)
    w = max(2, int(top).bit_length() + 1)
    tok = [z3.BitVec(f"t{i}", w) for i in range(len(df.choices))]
    dom = [z3.Or([t == int(v) for v in ch]) for t, ch in zip(tok, df.choices)]
    return tok, dom


def check_spec(b: Built, x: np.ndarray, tok=None) -> int:
    """Evaluate the family's z3 specification on the token rows ``x`` (invalid rows are
    dropped) and compare with the task's reference; raise :class:`TheoryError` at the
    first disagreement (the specification is then wrong, not the circuit). Returns the
    number of rows checked."""
    df, spec = b.df, SPECS[b.task.name]
    if tok is None:
        tok = _token_vars(df)[0]
    x = np.asarray(x, dtype=np.int64)
    if df.valid is not None and len(x):
        x = x[df.valid(x)]
    want = np.asarray(df.evaluate(x), dtype=np.int64)
    f = spec.formula(b.task, df, tok)
    for row, y in zip(x.tolist(), want.tolist()):
        got = z3.simplify(z3.substitute(f, *[(t, z3.BitVecVal(int(v), t.size()))
                                             for t, v in zip(tok, row)]))
        if not (z3.is_true(got) or z3.is_false(got)) or int(z3.is_true(got)) != int(y):
            raise TheoryError(
                f"the z3 specification of {b.task.name} disagrees with the task's reference "
                f"at n={b.task.n} on {b.task.render(np.array(row))} (spec {got}, reference "
                f"{y}); the specification in theorybench/proofs/circuits.py is wrong")
    return len(x)


def _spec_check(b: Built, spec: Spec, tok, samples: int, rng) -> int:
    """:func:`check_spec` on ``samples`` task and uniform samples."""
    if samples <= 0:
        return 0
    df = b.df
    parts = [np.asarray(df.sample(rng, samples)), uniform_inputs(df, rng, samples)]
    return check_spec(b, np.concatenate([p for p in parts if len(p)])[:samples], tok)


def prove_built(b: Built, circuit: Circuit | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                spec_samples: int = 64, seed: int = 0, rlimit: int | None = None,
                max_wires: int | None = None) -> CircuitProof:
    """Miter of ``circuit`` (default ``b.circuit``) against the family's specification.

    ``timeout_s`` bounds the time; ``rlimit`` (optional) bounds z3's resource count, which
    unlike time does not depend on the machine's load (the theory rules use it, so that a
    cell does not change with the load); ``max_wires`` leaves larger circuits unproved."""
    task, df = b.task, b.df
    c = circuit if circuit is not None else b.circuit
    t0 = time.perf_counter()
    base = dict(family=task.name, n=task.n,
                params={k: v for k, v in task.values.items() if k != "n"}, view=df.name,
                builder=b.builder.description, basis=b.builder.basis,
                input_bits=b.encoding.n_bits, gates=c.size, depth=c.depth,
                timeout_s=float(timeout_s))
    spec = SPECS.get(task.name)
    why = (f"no z3 specification of {task.name} is written (families with one: "
           f"{', '.join(sorted(SPECS))})" if spec is None else spec.applies(task))
    if why is None and len(c.outputs) != 1:
        why = f"the circuit has {len(c.outputs)} outputs; only one-output circuits are proved"
    if why is None and max_wires is not None and c.wires > max_wires:
        why = (f"the circuit has {c.wires:,} wires, above this check's budget of {max_wires:,} "
               f"(`theorybench circuit prove {task.name} --n {task.n}` has no budget)")
    if why is None and df.valid is not None and spec.domain is None:
        why = f"{task.name} restricts its inputs and no z3 domain is written for it"
    if why is not None:
        return CircuitProof("unknown", spec=spec.text if spec else "", seconds=0.0,
                            reason=why, **base)
    base["seconds"] = 0.0
    tok, dom = _token_vars(df)
    n_spec = _spec_check(b, spec, tok, spec_samples, np.random.default_rng(seed))
    base.update(spec=spec.text, spec_samples=n_spec)
    deadline = t0 + timeout_s

    used = [0]

    def count(sv) -> int:  # z3's resource counter (process-wide, so read before and after)
        st = sv.statistics()
        return int(st.get_key_value("rlimit count")) if "rlimit count" in st.keys() else 0

    def solve(*fs):
        sv = z3.Solver()
        sv.set("timeout", max(1, int((deadline - time.perf_counter()) * 1000)))
        if rlimit is not None:  # a deterministic budget (z3's resource count), unlike time;
            sv.set("rlimit", max(1, int(rlimit) - used[0]))  # relative to the current count
        sv.add(*fs)
        before = count(sv)
        res = sv.check()
        used[0] += max(0, count(sv) - before)
        base["rlimit_used"] = used[0]
        return sv, res

    def confirm(row: np.ndarray, **extra) -> CircuitProof:
        text = task.render(row[0])
        base["seconds"] = time.perf_counter() - t0
        if df.valid is not None and not bool(df.valid(row)[0]):
            return CircuitProof("unknown", reason=f"z3's counterexample {text} is outside the "
                                f"task's domain (the z3 domain here is wrong)", **base, **extra)
        got = int(decode(c, evaluate(c, b.encoding.encode(row)))[0])
        want = int(np.asarray(df.evaluate(row))[0])
        if got == want:
            return CircuitProof("unknown", reason=f"z3's counterexample {text} is not "
                                f"confirmed: circuit and reference both give {got} (the "
                                f"specification or the gate encoding here is wrong)",
                                **base, **extra)
        return CircuitProof("counterexample", counterexample=row[0].tolist(),
                            counterexample_text=text, circuit_value=got, reference_value=want,
                            **base, **extra)

    def no_answer(sv, step: str, **extra) -> CircuitProof:
        base["seconds"] = time.perf_counter() - t0
        limit = f"{timeout_s:g} s" + (f" or {rlimit:,} resource units" if rlimit else "")
        return CircuitProof("unknown", reason=f"z3 gave no answer ({sv.reason_unknown()}) "
                            f"within {limit} ({step})", **base, **extra)

    bits = [tok[int(p)] == int(t) for p, t in zip(b.encoding.pos.tolist(),
                                                   b.encoding.tok.tolist())]
    A = _data_cut(b, c) if spec.symmetric is not None and spec.domain is None else None
    if A is not None:
        # a symmetric circuit: output = G(s) with s = the number of ones. Two z3 steps:
        # (1) G(s) = g(s) for every s in 0..n; (2) spec(x) = g(popcount(x)) for every x.
        # Together: circuit(x) = G(popcount(x)) = g(popcount(x)) = spec(x).
        n = len(A)
        w = (n + 1).bit_length() + 1
        sv_ = z3.BitVec("s", w)
        extra = {"extra": {"method": f"sum cut: the output is G(s) of s = #ones (checked on "
                                     f"the circuit's structure: every path from an input to "
                                     f"the output passes a threshold gate reading the same "
                                     f"{n} data bits); z3 proved "
                                     f"G(s) = {spec.symmetric_text} for s in 0..{n} and "
                                     f"spec(x) = {spec.symmetric_text} at s = popcount(x)"}}
        G = circuit_formulas(c, bits, cut={A: (sv_, w)})[0]
        sv, res = solve(z3.ULE(sv_, n), G != spec.symmetric(sv_, n))
        if res == z3.unknown:
            return no_answer(sv, "step 1, G(s) = g(s)", **extra)
        if res == z3.sat:
            ones = sv.model().eval(sv_, model_completion=True).as_long()
            row = np.zeros((1, len(tok)), dtype=np.int64)
            row[0, [int(b.encoding.pos[c.params[a]]) for a in A[:ones]]] = task.index["1"]
            return confirm(row, **extra)
        xs = _bits(task, tok, range(task.n))
        sv, res = solve(*dom, spec.formula(task, df, tok)
                        != spec.symmetric(_popcount(xs, w), n))
        if res != z3.unsat:
            base["seconds"] = time.perf_counter() - t0
            return (no_answer(sv, "step 2, spec = g(popcount)", **extra) if res == z3.unknown
                    else CircuitProof("unknown", reason="the specification is not the "
                                      "symmetric function written beside it (a bug here)",
                                      **base, **extra))
        base["seconds"] = time.perf_counter() - t0
        return CircuitProof("proved", **base, **extra)
    out = circuit_formulas(c, bits)[0]
    extra = {"extra": {"method": "miter: z3 searches an input where circuit != specification"}}
    sv, res = solve(*dom, *(spec.domain(task, df, tok) if spec.domain else []),
                    out != spec.formula(task, df, tok))
    if res == z3.unsat:
        base["seconds"] = time.perf_counter() - t0
        return CircuitProof("proved", **base, **extra)
    if res == z3.unknown:
        return no_answer(sv, "miter", **extra)
    m = sv.model()
    return confirm(np.array([[m.eval(t, model_completion=True).as_long() for t in tok]],
                            dtype=np.int64), **extra)


def _data_cut(b: Built, c: Circuit) -> tuple[int, ...] | None:
    """:func:`symmetric_cut`, kept only if the tuple is exactly the n data bits
    [x_i = 1], i = 0..n-1, each once (so its sum is popcount(x))."""
    A = symmetric_cut(c)
    if A is None or len(A) != b.task.n:
        return None
    one = b.task.index["1"]
    pos = [int(b.encoding.pos[c.params[a]]) for a in A]
    toks = [int(b.encoding.tok[c.params[a]]) for a in A]
    if sorted(pos) != list(range(b.task.n)) or any(t != one for t in toks):
        return None
    return A


def prove(family: str, n: int, params: dict | None = None, basis: str = "tc0",
          timeout_s: float = DEFAULT_TIMEOUT_S, spec_samples: int = 64,
          seed: int = 0, rlimit: int | None = None,
          max_wires: int | None = None) -> CircuitProof:
    """Build ``family``'s ``basis`` circuit at ``n`` and prove it against the spec."""
    task = tasks.get(family, n=n, **(params or {}))
    return prove_built(build(task, basis), timeout_s=timeout_s, spec_samples=spec_samples,
                       seed=seed, rlimit=rlimit, max_wires=max_wires)


@functools.lru_cache(maxsize=128)
def _prove_cached(family, n, params_key, basis, timeout_s, rlimit, max_wires):
    return prove(family, n, dict(params_key), basis, timeout_s, spec_samples=16,
                 rlimit=rlimit, max_wires=max_wires)


def prove_each(family: str, ns, params: dict | None = None, basis: str = "tc0",
               timeout_s: float = 10.0, rlimit: int | None = None,
               max_wires: int | None = None) -> list[CircuitProof]:
    """One proof per n (cached in the process); an n the family rejects is replaced by
    n + 1, and skipped if that is rejected too."""
    out = []
    key = tuple(sorted((params or {}).items()))
    for n in ns:
        for m in (int(n), int(n) + 1):   # e.g. majority wants an odd n
            try:
                out.append(_prove_cached(family, m, key, basis, float(timeout_s), rlimit,
                                         max_wires))
                break
            except TaskParameterError:
                continue
    return out
