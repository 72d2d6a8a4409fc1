"""z3 proofs about a construction's real-arithmetic model, from its actual weights (each
float64 weight taken as the exact rational it is).

* ``prove_all_n``: a one-layer uniform-attention model with no positional information
  (Majority) computes an affine function of the token counts divided by n; the claim
  "margin >= hard_margin for every input of every allowed length" is then linear in the
  integer counts and n, and z3 proves it for all n at once.
* ``prove_uniform``: every head uniform (Wq or Wk exactly 0, so the softmax is exactly
  1/i): the model is linear arithmetic with ReLU case splits over the token variables;
  z3 proves margin >= hard_margin on every valid input of this n.
* ``prove_peaked``: every head peaked. z3 proves (1) each head's score gap: its argmax
  beats every other key by >= gamma (before beta) on every valid input, heads before the
  last layer attending to a fixed position; (2) the hard model (argmax attention) has
  margin >= hard_margin. Then the softmax's deviation is bounded soundly: with gap g and L
  keys the mass off the argmax is <= (L - 1) e^(-beta g) <= (L - 1) / T_K(beta g), T_K the
  Taylor polynomial of e^x (T_K(x) <= e^x for x >= 0: a rational bound). The error is
  propagated channel by channel through the later layers (score shifts eat into the gap,
  |W|^T bounds through values, MLPs and readout) and must stay below the hard margin.

A solver timeout gives ``unknown``, never ``proved``.
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction

import numpy as np

from ..errors import EnumerationTooLarge
from .base import Certificate, Construction
from .model import Layer, Weights

#: Default solver timeout per query (milliseconds).
TIMEOUT_MS = 60_000
#: Largest exact table (entries) the peaked method builds for one score.
MAX_TABLE = 1 << 16
#: Largest input length the symbolic methods accept (cost grows like n^2 to n^3 terms).
MAX_Z3_LEN = {"uniform": 64, "peaked": 24}


def _z3():
    import z3
    return z3


def fr(x) -> Fraction:
    return Fraction(float(x))


def zq(f: Fraction):
    z3 = _z3()
    return z3.Q(f.numerator, f.denominator) if f.denominator != 1 else z3.RealVal(f.numerator)


def _check(solver, timeout_ms):
    z3 = _z3()
    solver.set("timeout", int(timeout_ms))
    r = solver.check()
    if r == z3.unsat:
        return "unsat"
    return "sat" if r == z3.sat else "unknown"


def _token_vars(c: Construction):
    z3 = _z3()
    choices = [tuple(ch) for ch in c.task.input_space()]
    xs = [z3.Int(f"x{i + 1}") for i in range(len(choices))]
    dom = [z3.Or(*[x == t for t in ch]) for x, ch in zip(xs, choices)]
    if c.valid is not None:
        dom.append(c.valid(xs))
    return xs, choices, dom


def _select(x, choices, values):
    """z3 term: values[k] where x == choices[k] (the last is the default)."""
    z3 = _z3()
    term = values[-1]
    for t, v in zip(choices[-2::-1], values[-2::-1]):
        term = z3.If(x == t, v, term)
    return term


def _violation(c: Construction, logits, ys, mu):
    """z3 formula: some scored output has margin < mu. ``logits``: per output position a
    list of terms; ``ys``: the spec label (Bool for one logit, Int term otherwise)."""
    z3 = _z3()
    out = []
    for z, y in zip(logits, ys):
        if len(z) == 1:
            out.append(z3.If(y, z[0], -z[0]) < zq(mu))
        else:
            zy = _select(y, list(range(len(z))), z)
            out += [z3.And(y != k, zy - z[k] < zq(mu)) for k in range(len(z))]
    return z3.Or(*out)


def _counterexample(model, xs):
    return [model.eval(x, model_completion=True).as_long() for x in xs]


def _too_long(c, kind, limit=None):
    limit = MAX_Z3_LEN[kind] if limit is None else limit
    if c.length > limit:
        raise EnumerationTooLarge(
            f"--verify z3 ({kind} attention) takes inputs of length <= {limit}; "
            f"n={c.n} gives length {c.length}, whose formula has about {c.length ** 3:,} "
            f"terms; use --verify interval for a smaller n, or the sampled check at this n")


# ---- all n (uniform, no positions) ---------------------------------------------------------
def prove_all_n(c: Construction, timeout_ms: int = TIMEOUT_MS) -> Certificate:
    """For every n (with ``c.n_ok``): margin * n >= hard_margin * n with hard_margin = 1/n
    scaled out; see the module docstring. Preconditions are checked on the weights."""
    z3 = _z3()
    t0 = time.perf_counter()
    w = c.weights
    why = []
    if c.count_spec is None:
        why.append("the construction states no label in terms of the counts")
    if len(w.layers) != 1 or not all(w.layers[0].uniform_heads()) or w.layers[0].w1.shape[1]:
        why.append("the model is not one layer of uniform heads without MLP")
    if w.pos.any():
        why.append("the model uses positional information")
    if w.output != "last" or w.w_out.shape[1] != 1:
        why.append("the model has not one logit at the last position")
    if why:
        return Certificate(c.name, c.n, "z3-all-n", "unknown",
                           "no all-n statement: " + "; ".join(why), time.perf_counter() - t0)
    layer = w.layers[0]
    V = w.embed.shape[0]
    E = [[fr(v) for v in row] for row in w.embed]
    wout = [fr(v) for v in w.w_out[:, 0]]
    # u_t = E[t] Wv Wo, summed over heads: what one token of type t adds to the average
    u = np.zeros((V, w.width), dtype=object)
    u[:] = Fraction(0)
    for h in range(layer.heads):
        wv = np.array([[fr(v) for v in r] for r in layer.wv[h]], dtype=object)
        wo = np.array([[fr(v) for v in r] for r in layer.wo[h]], dtype=object)
        u = u + np.dot(np.dot(np.array(E, dtype=object), wv), wo)
    a = [sum((wout[k] * E[t][k] for k in range(w.width)), Fraction(0)) for t in range(V)]
    g = [sum((wout[k] * u[t][k] for k in range(w.width)), Fraction(0)) for t in range(V)]
    n = z3.Int("n")
    cs = [z3.Int(f"count{t}") for t in range(V)]
    last = z3.Int("last")
    s = z3.Solver()
    s.add(n >= 1, z3.Sum(cs) == n, *[ct >= 0 for ct in cs], last >= 0, last < V)
    s.add(*[z3.Implies(last == t, cs[t] >= 1) for t in range(V)])
    if c.n_ok is not None:
        s.add(c.n_ok(n))
    # n * logit = n (w.E[last] + b) + sum_t count_t (w.u_t)
    b = fr(w.b_out[0])
    nlogit = (n * (_select(last, list(range(V)), [zq(v) for v in a]) + zq(b))
              + z3.Sum([cs[t] * zq(g[t]) for t in range(V)]))
    y = c.count_spec(cs, n)
    # claimed margin 1/n * k: hard_margin * n at this n, a constant in n
    scaled = c.hard_margin * c.n
    s.add(z3.If(y, nlogit, -nlogit) < zq(scaled))
    r = _check(s, timeout_ms)
    status = {"unsat": "proved", "sat": "refuted"}.get(r, "unknown")
    cert = Certificate(
        c.name, c.n, "z3-all-n", status,
        claim=(f"for every length n >= 1 allowed by the task and every input, n * margin "
               f">= {scaled} (margin >= {scaled}/n), so the decision equals the label: the "
               f"model is the affine function of the token counts above, proved by z3 "
               f"(linear integer/real arithmetic) for all n at once"),
        seconds=time.perf_counter() - t0, margin=f"{scaled}/n",
        details={"scope": "all n", "solver": r})
    if r == "sat":
        m = s.model()
        cert.details["counterexample_counts"] = {
            "n": m.eval(n).as_long(), **{f"count{t}": m.eval(cs[t]).as_long() for t in range(V)},
            "last": m.eval(last).as_long()}
    return cert


# ---- uniform attention, this n ------------------------------------------------------------
def _affine(state, W, b=None):
    """Terms of state @ W (+ b): state is a list of terms (or Fractions)."""
    z3 = _z3()
    out = []
    for col in range(W.shape[1]):
        terms = [state[k] * zq(fr(W[k, col])) for k in range(W.shape[0]) if W[k, col] != 0]
        if b is not None and b[col] != 0:
            terms.append(zq(fr(b[col])))
        out.append(z3.Sum(terms) if terms else z3.RealVal(0))
    return out


def prove_uniform(c: Construction, timeout_ms: int = TIMEOUT_MS) -> Certificate:
    """Every head uniform: the exact model in z3 over the token variables; proves margin
    >= hard_margin on every valid input of length n (or refutes with an input)."""
    z3 = _z3()
    t0 = time.perf_counter()
    _too_long(c, "uniform")
    w = c.weights
    xs, choices, dom = _token_vars(c)
    L = len(xs)
    s = z3.Solver()
    s.add(*dom)
    state = []
    for i in range(L):
        vals = [[zq(fr(w.embed[t, k] + 0.0) + fr(w.pos[i, k])) for t in choices[i]]
                for k in range(w.width)]
        row = []
        for k in range(w.width):
            v = z3.Real(f"s0_{i}_{k}")
            s.add(v == _select(xs[i], list(choices[i]), vals[k]))
            row.append(v)
        state.append(row)
    for li, layer in enumerate(w.layers):
        new = [list(r) for r in state]
        for h in range(layer.heads):
            vals = [_affine(state[j], layer.wv[h]) for j in range(L)]
            for i in range(L):
                avg = [z3.Sum([vals[j][k] for j in range(i + 1)]) / (i + 1)
                       for k in range(layer.wv.shape[2])]
                add = _affine(avg, layer.wo[h])
                new[i] = [a + b for a, b in zip(new[i], add)]
        if layer.w1.shape[1]:
            for i in range(L):
                pre = _affine(new[i], layer.w1, layer.b1)
                hid = [z3.If(p > 0, p, 0) for p in pre]
                new[i] = [a + b for a, b in zip(new[i], _affine(hid, layer.w2, layer.b2))]
        state = []
        for i in range(L):
            row = []
            for k in range(w.width):
                v = z3.Real(f"s{li + 1}_{i}_{k}")
                s.add(v == new[i][k])
                row.append(v)
            state.append(row)
    outs = [L - 1] if w.output == "last" else list(range(L))
    logits = [_affine(state[i], w.w_out, w.b_out) for i in outs]
    spec = c.spec(xs)
    ys = [spec] if w.output == "last" else list(spec)
    s.add(_violation(c, logits, ys, c.hard_margin))
    r = _check(s, timeout_ms)
    status = {"unsat": "proved", "sat": "refuted"}.get(r, "unknown")
    return Certificate(
        c.name, c.n, "z3-uniform", status,
        claim=(f"in real arithmetic, on every valid input of n={c.n}, the margin is >= "
               f"{c.hard_margin} (uniform heads are exact averages; z3 over the "
               f"{L} token variables)"),
        seconds=time.perf_counter() - t0, margin=str(c.hard_margin) if r == "unsat" else None,
        counterexample=_counterexample(s.model(), xs) if r == "sat" else None,
        details={"scope": f"n={c.n}", "solver": r})


# ---- peaked attention, this n --------------------------------------------------------------
class _Table:
    """A hard-model quantity at one position as an exact function of the tokens at the
    positions ``support`` (sorted): ``values`` has shape (|choices| per support position)
    + (width,), entries Fractions."""

    def __init__(self, support, values):
        self.support, self.values = tuple(support), values

    def apply(self, W) -> "_Table":
        Wf = _fmat(W)
        return _Table(self.support, np.dot(self.values, Wf) if self.values.ndim else None)


def _fmat(W):
    out = np.empty(W.shape, dtype=object)
    for idx in np.ndindex(W.shape):
        out[idx] = fr(W[idx])
    return out


def _expand(t: _Table, support, sizes):
    """``t.values`` broadcast onto the axes of ``support`` (a superset of t.support)."""
    shape = [sizes[p] if p in t.support else 1 for p in support] + [t.values.shape[-1]]
    return t.values.reshape(shape)


def _joint(a: _Table, b: _Table, sizes, op):
    support = tuple(sorted(set(a.support) | set(b.support)))
    entries = math.prod(sizes[p] for p in support)
    if entries > MAX_TABLE:
        raise EnumerationTooLarge(
            f"an exact score table over positions {support} has {entries:,} entries (more "
            f"than {MAX_TABLE:,}); use --verify interval at a smaller n")
    return support, op(_expand(a, support, sizes), _expand(b, support, sizes))


def _term(xs, choices, support, values):
    """z3 term of a scalar table (shape = choices over support)."""
    if not support:
        return zq(values[()]) if isinstance(values, np.ndarray) else zq(values)
    p = support[0]
    subs = [_term(xs, choices, support[1:], values[k]) for k in range(len(choices[p]))]
    return _select(xs[p], list(choices[p]), subs)


def _ebound(x: Fraction, K: int = 80) -> Fraction:
    """A rational >= e^(-x) for x >= 0: 1 / T_K(x') with x' <= x on a 2^-20 grid."""
    if x <= 0:
        return Fraction(1)
    xd = Fraction(math.floor(x * 2**20), 2**20)
    term, total = Fraction(1), Fraction(1)
    for k in range(1, K + 1):
        term = term * xd / k
        total += term
    return 1 / total


def _up_grid(f: Fraction) -> Fraction:
    """f rounded up to a 2^-64 grid (keeps the propagated bounds small and sound)."""
    return Fraction(math.ceil(f * 2**64), 2**64)


def prove_peaked(c: Construction, timeout_ms: int = TIMEOUT_MS,
                 max_len: int | None = None) -> Certificate:
    """Hard model + score gaps by z3, then the softmax error bound (module docstring).
    ``max_len`` overrides the length guard MAX_Z3_LEN["peaked"] for callers that know
    the cost (kv_retrieval at length 35: about 15 s)."""
    z3 = _z3()
    t0 = time.perf_counter()
    _too_long(c, "peaked", max_len)
    w = c.weights
    xs, choices, dom = _token_vars(c)
    L = len(xs)
    sizes = {p: len(choices[p]) for p in range(L)}
    details: dict = {"scope": f"n={c.n}", "layers": []}

    def done(status, claim, **kw):
        return Certificate(c.name, c.n, "z3-peaked", status, claim,
                           time.perf_counter() - t0, details=details, **kw)

    for li, layer in enumerate(w.layers):
        if any(layer.uniform_heads()):
            return done("unknown", f"layer {li + 1} mixes uniform heads into a peaked model; "
                        "the z3 method handles all-uniform or all-peaked models (use "
                        "--verify interval)")
        if li < len(w.layers) - 1 and layer.w1.shape[1]:
            return done("unknown", f"layer {li + 1} has an MLP before the last attention "
                        "layer, which the z3 method does not model (use --verify interval)")
        if c.gaps[li] is None:
            return done("unknown", f"layer {li + 1} claims no score gap")
    # hard states as exact tables
    state = []
    for i in range(L):
        vals = np.empty((sizes[i], w.width), dtype=object)
        for a, t in enumerate(choices[i]):
            for k in range(w.width):
                vals[a, k] = fr(w.embed[t, k]) + fr(w.pos[i, k])
        state.append(_Table((i,), vals))
    solver_log = []
    stats = []           # per layer/head: maxima for the error propagation
    s = z3.Solver()
    s.add(*dom)
    final_terms = None
    for li, layer in enumerate(w.layers):
        last_layer = li == len(w.layers) - 1
        gamma = c.gaps[li]
        queries = ([L - 1] if w.output == "last" else list(range(L))) if last_layer \
            else list(range(L))
        new_vals = [st for st in state]
        head_outs = {}      # last layer: per head per query, the z3 terms of Wo v_argmax
        for h in range(layer.heads):
            Q = [st.apply(layer.wq[h]) for st in state]
            Kt = [st.apply(layer.wk[h]) for st in state]
            Vt = [st.apply(layer.wv[h]) for st in state]
            stats.append({
                "layer": li, "head": h, "beta": fr(layer.beta[h]), "gamma": gamma,
                "Q": [max(abs(v) for t in Q for v in t.values[..., k].ravel())
                      for k in range(layer.wq.shape[2])],
                "K": [max(abs(v) for t in Kt for v in t.values[..., k].ravel())
                      for k in range(layer.wk.shape[2])],
                "Vrange": [max(v for t in Vt for v in t.values[..., k].ravel())
                           - min(v for t in Vt for v in t.values[..., k].ravel())
                           for k in range(layer.wv.shape[2])],
                "wq": layer.wq[h], "wk": layer.wk[h], "wv": layer.wv[h], "wo": layer.wo[h]})
            scores = {}
            for i in queries:
                for j in range(i + 1):
                    sup, tab = _joint(Q[i], Kt[j], sizes, lambda a, b: (a * b).sum(axis=-1))
                    scores[i, j] = _term(xs, choices, sup, tab)
            for i in queries:
                keys = range(i + 1)
                if last_layer:
                    # gap: some key beats all others by gamma (violation: none does)
                    viol = z3.And(*[z3.Or(*[scores[i, j] - scores[i, k] < zq(gamma)
                                            for k in keys if k != j] or [z3.BoolVal(False)])
                                    for j in keys])
                else:
                    # positional head: the argmax at the first tokens, for every input
                    target = _argmax_at_first(Q[i], Kt, i, sizes)
                    viol = z3.Or(*[scores[i, target] - scores[i, k] < zq(gamma)
                                   for k in keys if k != target] or [z3.BoolVal(False)])
                g = z3.Solver()
                g.add(*dom, viol)
                r = _check(g, timeout_ms)
                solver_log.append(r)
                if r != "unsat":
                    details["layers"].append({"layer": li + 1, "head": h + 1, "query": i + 1,
                                              "gap": r})
                    return done("refuted" if r == "sat" else "unknown",
                                f"the score gap {gamma} of layer {li + 1} head {h + 1} at "
                                f"position {i + 1} " + ("fails on the input shown" if r == "sat"
                                                        else "was not decided (timeout)"),
                                counterexample=_counterexample(g.model(), xs) if r == "sat"
                                else None)
                if not last_layer:
                    out = Vt[target].apply(layer.wo[h])
                    sup, tab = _joint(new_vals[i], out, sizes, lambda a, b: a + b)
                    new_vals[i] = _Table(sup, tab)
                else:
                    a = z3.Int(f"arg{li}_{h}_{i}")
                    s.add(a >= 0, a <= i)
                    for j in keys:
                        s.add(z3.Implies(a == j, z3.And(*[scores[i, j] >= scores[i, k]
                                                          for k in keys])))
                    outs = [Vt[j].apply(layer.wo[h]) for j in keys]
                    head_outs[h, i] = [
                        _select(a, list(keys), [_term(xs, choices, o.support, o.values[..., k])
                                                for o in outs])
                        for k in range(w.width)]
            details["layers"].append({"layer": li + 1, "head": h + 1, "gap": str(gamma),
                                      "proved": "z3 unsat"})
        if not last_layer:
            state = new_vals
        else:
            final_terms = {}
            for i in queries:
                row = [_term(xs, choices, state[i].support, state[i].values[..., k])
                       for k in range(w.width)]
                for h in range(layer.heads):
                    row = [r_ + o for r_, o in zip(row, head_outs[h, i])]
                if layer.w1.shape[1]:
                    pre = _affine(row, layer.w1, layer.b1)
                    hid = [z3.If(p > 0, p, 0) for p in pre]
                    row = [r_ + o for r_, o in zip(row, _affine(hid, layer.w2, layer.b2))]
                final_terms[i] = row
    logits = [_affine(final_terms[i], w.w_out, w.b_out) for i in sorted(final_terms)]
    spec = c.spec(xs)
    ys = [spec] if w.output == "last" else list(spec)
    s.add(_violation(c, logits, ys, c.hard_margin))
    r = _check(s, timeout_ms)
    details["hard_margin_solver"] = r
    if r != "unsat":
        return done("refuted" if r == "sat" else "unknown",
                    f"the hard-attention model's margin {c.hard_margin} "
                    + ("fails on the input shown" if r == "sat" else "was not decided"),
                    counterexample=_counterexample(s.model(), xs) if r == "sat" else None)
    err, trace = _propagate(w, stats, L)
    details["softmax_error"] = trace
    if err is None or err >= c.hard_margin:
        return done("unknown", f"hard model and gaps proved, but the softmax error bound "
                    f"{'(gap exhausted)' if err is None else float(err)} is not below the "
                    f"hard margin {c.hard_margin}: beta too small for this proof")
    soft = c.hard_margin - err
    return done("proved",
                f"in real arithmetic, on every valid input of n={c.n}, the softmax model's "
                f"margin is >= {float(soft):.6g}: z3 proved each head's score gap and the "
                f"hard-attention margin {c.hard_margin}; the softmax error is <= "
                f"{float(err):.3g} (rational bound on e^(-beta gap), propagated)",
                margin=f"{float(soft):.6g}")


def _argmax_at_first(Qi: _Table, Kt, i, sizes):
    """The key maximising the score with every token at its first choice (a candidate
    for a positional head's fixed target; z3 then proves it for every input)."""
    q = Qi.values[(0,) * len(Qi.support)]
    best, arg = None, 0
    for j in range(i + 1):
        k = Kt[j].values[(0,) * len(Kt[j].support)]
        v = sum((a * b for a, b in zip(q, k)), Fraction(0))
        if best is None or v > best:
            best, arg = v, j
    return arg


def _absT(W):
    return np.abs(np.asarray(W, dtype=np.float64))


def _matT(W, delta):
    """|W|^T delta, exact (W: (d, e), delta: d Fractions) -> e Fractions, rounded up."""
    A = _absT(W)
    return [_up_grid(sum((fr(A[k, col]) * delta[k] for k in range(A.shape[0]) if A[k, col]),
                         Fraction(0))) for col in range(A.shape[1])]


def _propagate(w: Weights, stats, L):
    """Bound on |soft margin - hard margin| over all inputs, or None if a gap is used up."""
    delta = [Fraction(0)] * w.width
    trace = []
    si = 0
    for li, layer in enumerate(w.layers):
        add = [Fraction(0)] * w.width
        for h in range(layer.heads):
            st = stats[si]
            si += 1
            dq, dk = _matT(st["wq"], delta), _matT(st["wk"], delta)
            ds = sum((st["Q"][k] * dk[k] + dq[k] * (st["K"][k] + dk[k])
                      for k in range(len(dq))), Fraction(0))
            g = st["gamma"] - 2 * ds
            if g <= 0:
                return None, trace
            off = min(Fraction(1), (L - 1) * _ebound(st["beta"] * g))
            dv = _matT(st["wv"], delta)
            herr = [_up_grid(dv[k] + off * st["Vrange"][k]) for k in range(len(dv))]
            out = _matT(st["wo"], herr)
            add = [a + b for a, b in zip(add, out)]
            trace.append({"layer": li + 1, "head": h + 1, "score_shift": float(ds),
                          "gap_left": float(g), "mass_off_argmax": float(off)})
        delta = [a + b for a, b in zip(delta, add)]
        if layer.w1.shape[1]:
            hid = _matT(layer.w1, delta)
            delta = [a + b for a, b in zip(delta, _matT(layer.w2, hid))]
    C = w.w_out.shape[1]
    if C == 1:
        err = _matT(w.w_out, delta)[0]
    else:
        err = max(_matT((w.w_out[:, [y]] - w.w_out[:, [k]]), delta)[0]
                  for y in range(C) for k in range(C) if y != k)
    trace.append({"readout_error": float(err)})
    return err, trace
