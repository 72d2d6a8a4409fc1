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

The z3 terms of the model (embedding, uniform averages, argmax selection, ReLU MLP,
readout) and the rational softmax error bounds are those of :mod:`.z3_encoding`, shared
with :mod:`.solver_mixed`. A solver timeout gives ``unknown``, never ``proved``.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from ..errors import EnumerationTooLarge
from .base import Certificate, Construction
from .model import Weights
from .z3_encoding import (abs_bound, affine, argmax_index, bind_state, counterexample,
                          encode_inputs, exact, gap_violation, load_z3, margin_violation,
                          mlp_error, off_argmax_mass, rational, readout_error, relu_mlp,
                          round_up, scored_positions, select, softmax_proof, solve,
                          token_variables, uniform_average)

#: Default solver timeout per query (milliseconds).
TIMEOUT_MS = 60_000
#: Largest exact table (entries) the peaked method builds for one score.
MAX_TABLE = 1 << 16
#: Largest input length the symbolic methods accept (cost grows like n^2 to n^3 terms).
MAX_Z3_LEN = {"uniform": 64, "peaked": 24}


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
    z3 = load_z3()
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
    E = [[exact(v) for v in row] for row in w.embed]
    wout = [exact(v) for v in w.w_out[:, 0]]
    # u_t = E[t] Wv Wo, summed over heads: what one token of type t adds to the average
    u = np.zeros((V, w.width), dtype=object)
    u[:] = Fraction(0)
    for h in range(layer.heads):
        wv = np.array([[exact(v) for v in r] for r in layer.wv[h]], dtype=object)
        wo = np.array([[exact(v) for v in r] for r in layer.wo[h]], dtype=object)
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
    b = exact(w.b_out[0])
    nlogit = (n * (select(last, list(range(V)), [rational(v) for v in a]) + rational(b))
              + z3.Sum([cs[t] * rational(g[t]) for t in range(V)]))
    y = c.count_spec(cs, n)
    # claimed margin 1/n * k: hard_margin * n at this n, a constant in n
    scaled = c.hard_margin * c.n
    s.add(z3.If(y, nlogit, -nlogit) < rational(scaled))
    r = solve(s, timeout_ms)
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
def prove_uniform(c: Construction, timeout_ms: int = TIMEOUT_MS) -> Certificate:
    """Every head uniform: the exact model in z3 over the token variables; proves margin
    >= hard_margin on every valid input of length n (or refutes with an input)."""
    t0 = time.perf_counter()
    _too_long(c, "uniform")
    w = c.weights
    s, xs, state = encode_inputs(c)
    L = len(xs)
    for li, layer in enumerate(w.layers):
        new = [list(r) for r in state]
        for h in range(layer.heads):
            vals = [affine(state[j], layer.wv[h]) for j in range(L)]
            for i, avg in enumerate(uniform_average(vals, layer.wv.shape[2])):
                new[i] = [a + b for a, b in zip(new[i], affine(avg, layer.wo[h]))]
        if layer.w1.shape[1]:
            new = [relu_mlp(row, layer) for row in new]
        state = bind_state(s, new, li + 1)
    s.add(margin_violation(c, xs, [state[i] for i in scored_positions(w, L)]))
    r = solve(s, timeout_ms)
    status = {"unsat": "proved", "sat": "refuted"}.get(r, "unknown")
    return Certificate(
        c.name, c.n, "z3-uniform", status,
        claim=(f"in real arithmetic, on every valid input of n={c.n}, the margin is >= "
               f"{c.hard_margin} (uniform heads are exact averages; z3 over the "
               f"{L} token variables)"),
        seconds=time.perf_counter() - t0, margin=str(c.hard_margin) if r == "unsat" else None,
        counterexample=counterexample(s.model(), xs) if r == "sat" else None,
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
        out[idx] = exact(W[idx])
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
        return rational(values[()]) if isinstance(values, np.ndarray) else rational(values)
    p = support[0]
    subs = [_term(xs, choices, support[1:], values[k]) for k in range(len(choices[p]))]
    return select(xs[p], list(choices[p]), subs)


def prove_peaked(c: Construction, timeout_ms: int = TIMEOUT_MS,
                 max_len: int | None = None) -> Certificate:
    """Hard model + score gaps by z3, then the softmax error bound (module docstring).
    ``max_len`` overrides the length guard MAX_Z3_LEN["peaked"] for callers that know
    the cost (kv_retrieval at length 35: about 15 s)."""
    z3 = load_z3()
    t0 = time.perf_counter()
    _too_long(c, "peaked", max_len)
    w = c.weights
    xs, choices, dom = token_variables(c)
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
                vals[a, k] = exact(w.embed[t, k]) + exact(w.pos[i, k])
        state.append(_Table((i,), vals))
    solver_log = []
    stats = []           # per layer/head: maxima for the error propagation
    s = z3.Solver()
    s.add(*dom)
    final_terms = None
    for li, layer in enumerate(w.layers):
        last_layer = li == len(w.layers) - 1
        gamma = c.gaps[li]
        queries = scored_positions(w, L) if last_layer else list(range(L))
        new_vals = [st for st in state]
        head_outs = {}      # last layer: per head per query, the z3 terms of Wo v_argmax
        for h in range(layer.heads):
            Q = [st.apply(layer.wq[h]) for st in state]
            Kt = [st.apply(layer.wk[h]) for st in state]
            Vt = [st.apply(layer.wv[h]) for st in state]
            stats.append({
                "layer": li, "head": h, "beta": exact(layer.beta[h]), "gamma": gamma,
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
                    viol = gap_violation(scores, i, gamma)
                else:
                    # positional head: the argmax at the first tokens, for every input
                    target = _argmax_at_first(Q[i], Kt, i, sizes)
                    viol = z3.Or(*[scores[i, target] - scores[i, k] < rational(gamma)
                                   for k in keys if k != target] or [z3.BoolVal(False)])
                g = z3.Solver()
                g.add(*dom, viol)
                r = solve(g, timeout_ms)
                solver_log.append(r)
                if r != "unsat":
                    details["layers"].append({"layer": li + 1, "head": h + 1, "query": i + 1,
                                              "gap": r})
                    return done("refuted" if r == "sat" else "unknown",
                                f"the score gap {gamma} of layer {li + 1} head {h + 1} at "
                                f"position {i + 1} " + ("fails on the input shown" if r == "sat"
                                                        else "was not decided (timeout)"),
                                counterexample=counterexample(g.model(), xs) if r == "sat"
                                else None)
                if not last_layer:
                    out = Vt[target].apply(layer.wo[h])
                    sup, tab = _joint(new_vals[i], out, sizes, lambda a, b: a + b)
                    new_vals[i] = _Table(sup, tab)
                else:
                    a = argmax_index(s, scores, i, f"arg{li}_{h}_{i}")
                    outs = [Vt[j].apply(layer.wo[h]) for j in keys]
                    head_outs[h, i] = [
                        select(a, list(keys), [_term(xs, choices, o.support, o.values[..., k])
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
                final_terms[i] = relu_mlp(row, layer) if layer.w1.shape[1] else row
    s.add(margin_violation(c, xs, [final_terms[i] for i in sorted(final_terms)]))
    r = solve(s, timeout_ms)
    details["hard_margin_solver"] = r
    if r != "unsat":
        return done("refuted" if r == "sat" else "unknown",
                    f"the hard-attention model's margin {c.hard_margin} "
                    + ("fails on the input shown" if r == "sat" else "was not decided"),
                    counterexample=counterexample(s.model(), xs) if r == "sat" else None)
    err, trace = _propagate(w, stats, L)
    details["softmax_error"] = trace
    if err is None or err >= c.hard_margin:
        return done("unknown", f"hard model and gaps proved, but the softmax error bound "
                    f"{'(gap exhausted)' if err is None else float(err)} is not below the "
                    f"hard margin {c.hard_margin}: beta too small for this proof")
    return done("proved", **softmax_proof(
        c, err, f"each head's score gap and the hard-attention margin {c.hard_margin}"))


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
            dq, dk = abs_bound(st["wq"], delta), abs_bound(st["wk"], delta)
            ds = sum((st["Q"][k] * dk[k] + dq[k] * (st["K"][k] + dk[k])
                      for k in range(len(dq))), Fraction(0))
            g = st["gamma"] - 2 * ds
            if g <= 0:
                return None, trace
            off = off_argmax_mass(st["beta"], g, L)
            dv = abs_bound(st["wv"], delta)
            herr = [round_up(dv[k] + off * st["Vrange"][k]) for k in range(len(dv))]
            out = abs_bound(st["wo"], herr)
            add = [a + b for a, b in zip(add, out)]
            trace.append({"layer": li + 1, "head": h + 1, "score_shift": float(ds),
                          "gap_left": float(g), "mass_off_argmax": float(off)})
        delta = [a + b for a, b in zip(delta, add)]
        if layer.w1.shape[1]:
            delta = mlp_error(layer, delta)
    err = readout_error(w, delta)
    trace.append({"readout_error": float(err)})
    return err, trace
