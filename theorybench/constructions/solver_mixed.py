"""z3 proof for models that mix uniform and peaked heads, with MLPs anywhere (bounded
Dyck-k: two counting layers, a matching head, a counting layer), at one n.

:func:`.solver.prove_peaked` needs every layer peaked and no MLP before the last
attention layer, because it keeps each hidden quantity as an exact table over the few
positions it depends on; a counting layer makes every quantity depend on the whole prefix,
so the tables cannot be built. Here every hidden quantity is a z3 variable defined by its
equation over the token variables (as in :func:`.solver.prove_uniform`), and the model is
the HARD model: every peaked head replaced by its argmax. Three obstacles and how they are
met, all soundly:

1. A score ``(x_i Wq) . (x_j Wk)`` is a product of two hidden quantities: nonlinear real
   arithmetic. Lemma (z3, per query coordinate and position): the coordinate takes one of
   finitely many values on every valid input; the set is found by asking z3 for a value
   outside the set found so far until it answers unsat (at most MAX_VALUES values; the key
   side is tried when the query side has more). With ``q in {v_1..v_m}`` proved, the
   product is the linear term ``If(q = v_1, v_1 k, ...)``, equal to ``q k`` on every valid
   input.
2. The argmax: z3 proves each peaked head's claimed score gap gamma (its argmax beats every
   other key by >= gamma before beta) at every position that matters, then an integer
   variable per query selects the argmax key's value.
3. The softmax: with gap g and at most L keys the mass off the argmax is <= (L - 1)
   e^(-beta g) (the rational bound of :func:`.z3_encoding.off_argmax_mass`), so the head's output is
   within that times the range of its values (a finite set again, by the same lemma) of the
   hard output. The error is propagated through the later layers with |W|^T bounds
   (uniform heads average errors, they do not grow them; ReLU is 1-Lipschitz). A peaked
   head that reads an already perturbed stream would need bounds on its scores' shift; the
   method then answers ``unknown`` and says so (no construction here needs it).

The hard model's margin >= hard_margin is the last z3 query; the certificate is ``proved``
(real arithmetic, this n) when the propagated error stays below it. A solver timeout, a
value set larger than MAX_VALUES or an exhausted gap gives ``unknown``, never ``proved``.
"""

from __future__ import annotations

import time
from fractions import Fraction

from ..errors import EnumerationTooLarge
from .base import Certificate, Construction
from .solver import TIMEOUT_MS
from .z3_encoding import (abs_bound, affine, argmax_index, bind_state, counterexample,
                          encode_inputs, exact, load_z3, gap_violation, margin_violation,
                          mlp_error, off_argmax_mass, rational, readout_error, relu_mlp,
                          round_up, scored_positions, select, softmax_proof, solve,
                          uniform_average)

#: Largest value set the finite-value lemma collects for one quantity at one position.
MAX_VALUES = 12
#: Longest input the mixed method accepts (its formula has about L^2 (width + dk) terms).
MAX_MIXED_LEN = 16


class _Undecided(Exception):
    """A lemma the method needs was not established (timeout, too many values)."""


def _values(s, term, timeout_ms, what):
    """The finite set of values ``term`` takes on every valid input (z3, incrementally),
    as Fractions, or _Undecided. Returns (values, z3 checks made)."""
    z3 = load_z3()
    found: list[Fraction] = []
    checks = 0
    while len(found) <= MAX_VALUES:
        s.push()
        if found:
            s.add(z3.And(*[term != rational(v) for v in found]))
        r = solve(s, timeout_ms)
        checks += 1
        if r == "sat":
            v = s.model().eval(term, model_completion=True)
            found.append(Fraction(v.numerator_as_long(), v.denominator_as_long()))
        s.pop()
        if r == "unsat":
            return found, checks
        if r == "unknown":
            raise _Undecided(f"the value set of {what} was not decided (solver timeout)")
    raise _Undecided(f"{what} takes more than {MAX_VALUES} values; the score is not "
                     f"linearised")


def _value_sets(s, terms, timeout_ms, what, tally):
    """The proved value set (:func:`_values`) of each position's term in ``terms``;
    ``what`` names the quantity in messages. The checks made are added to ``tally[0]``
    as they happen, so a quantity undecided part-way still counts the earlier ones."""
    sets = []
    for i, term in enumerate(terms):
        v, n_ = _values(s, term, timeout_ms, f"{what} at position {i + 1}")
        tally[0] += n_
        sets.append(v)
    return sets


def _product(qv, q, k):
    """q * k as a linear term, given q's proved value set qv (k any linear term)."""
    z3 = load_z3()
    if len(qv) == 1:
        return k * rational(qv[0])
    term = k * rational(qv[-1])
    for v in qv[-2::-1]:
        term = z3.If(q == rational(v), k * rational(v), term)
    return term


def prove_mixed(c: Construction, timeout_ms: int = TIMEOUT_MS,
                max_len: int = MAX_MIXED_LEN) -> Certificate:
    """Hard model by z3 with linearised peaked scores, gaps proved, then the softmax error
    bound (module docstring). Real arithmetic, every valid input of this n."""
    t0 = time.perf_counter()
    details: dict = {"scope": f"n={c.n}", "lemmas": [], "heads": []}

    def done(status, claim, **kw):
        return Certificate(c.name, c.n, "z3-mixed", status, claim,
                           time.perf_counter() - t0, details=details, **kw)

    if c.length > max_len:
        raise EnumerationTooLarge(
            f"--verify z3 (mixed uniform/peaked attention) takes inputs of length <= "
            f"{max_len}; n={c.n} gives length {c.length}, about {c.length ** 2:,} score "
            f"terms per head plus their value-set lemmas; use --verify interval (every "
            f"input) or the sampled check at this n")
    w = c.weights
    s, xs, state = encode_inputs(c)
    L = len(xs)
    outs = scored_positions(w, L)
    delta = [Fraction(0)] * w.width         # bound on |soft - hard| per channel
    trace = []
    checks = 0
    try:
        for li, layer in enumerate(w.layers):
            last = li == len(w.layers) - 1
            new = [list(r) for r in state]
            add = [Fraction(0)] * w.width
            uniform = layer.uniform_heads()
            for h in range(layer.heads):
                vals = [affine(state[j], layer.wv[h]) for j in range(L)]
                if uniform[h]:
                    head = uniform_average(vals, layer.wv.shape[2])
                    herr = abs_bound(layer.wv[h], delta)
                else:
                    head, herr, n_checks = _peaked_head(
                        c, s, li, h, layer, state, vals, delta, L,
                        outs if last else list(range(L)), timeout_ms, details, trace)
                    checks += n_checks
                    if isinstance(head, str):
                        return done(*_split(head), counterexample=herr)
                for i in range(L):
                    if head[i] is not None:
                        new[i] = [a + b for a, b in zip(new[i], affine(head[i], layer.wo[h]))]
                add = [a + b for a, b in zip(add, abs_bound(layer.wo[h], herr))]
            delta = [a + b for a, b in zip(delta, add)]
            if layer.w1.shape[1]:
                new = [relu_mlp(row, layer) for row in new]
                delta = mlp_error(layer, delta)
            state = bind_state(s, new, li + 1)
    except _Undecided as exc:
        details["z3_checks"] = checks
        return done("unknown", f"not decided: {exc}")
    details["z3_checks"] = checks
    viol = margin_violation(c, xs, [state[i] for i in outs])
    s.push()
    s.add(viol)
    r = solve(s, timeout_ms)
    cex = counterexample(s.model(), xs) if r == "sat" else None
    s.pop()
    details["hard_margin_solver"] = r
    if r != "unsat":
        return done("refuted" if r == "sat" else "unknown",
                    f"the hard-attention model's margin {c.hard_margin} "
                    + ("fails on the input shown" if r == "sat" else "was not decided "
                       "(solver timeout)"), counterexample=cex)
    err = readout_error(w, delta)
    trace.append({"readout_error": float(err)})
    details["softmax_error"] = trace
    if err >= c.hard_margin:
        return done("unknown", f"hard model, gaps and value sets proved, but the softmax "
                    f"error bound {float(err):.3g} is not below the hard margin "
                    f"{c.hard_margin}: beta too small for this proof")
    return done("proved", **softmax_proof(
        c, err, f"the finite value sets that linearise the peaked scores, each peaked head's "
        f"score gap and the hard-attention margin {c.hard_margin} (uniform heads exact)"))


def _split(msg):
    status, _, claim = msg.partition(":")
    return status, claim.strip()


def _peaked_head(c, s, li, h, layer, state, vals, delta, L, queries, timeout_ms, details,
                 trace):
    """Hard output terms (per query; None elsewhere), the error bound of the head's value
    output, and the number of z3 checks; or ("status: claim", counterexample, checks)."""
    z3 = load_z3()
    gamma = c.gaps[li]
    if gamma is None:
        return f"unknown: layer {li + 1} has a peaked head but claims no score gap", None, 0
    if any(d != 0 for d in delta):
        return (f"unknown: peaked head {h + 1} of layer {li + 1} reads a stream already "
                f"perturbed by an earlier softmax; bounding its score shift is not "
                f"implemented in the mixed method"), None, 0
    dk = layer.wq.shape[2]
    Q = [affine(state[i], layer.wq[h]) for i in range(L)]
    K = [affine(state[j], layer.wk[h]) for j in range(L)]
    tally = [0]               # z3 checks made for this head
    sides = []                # per coordinate: ("q" | "k", value sets per position)
    for k in range(dk):
        where = f"coordinate {k + 1} of layer {li + 1} head {h + 1}"
        try:
            sides.append(("q", _value_sets(s, [q[k] for q in Q], timeout_ms,
                                           f"query {where}", tally)))
        except _Undecided:
            sides.append(("k", _value_sets(s, [kk[k] for kk in K], timeout_ms,
                                           f"key {where}", tally)))
    details["lemmas"].append({
        "layer": li + 1, "head": h + 1,
        "finite_values": [{"coordinate": k + 1, "side": side,
                           "values": sorted({str(v) for vs in sets for v in vs})}
                          for k, (side, sets) in enumerate(sides)]})

    def score(i, j):
        terms = []
        for k, (side, sets) in enumerate(sides):
            if side == "q":
                terms.append(_product(sets[i], Q[i][k], K[j][k]))
            else:
                terms.append(_product(sets[j], K[j][k], Q[i][k]))
        return z3.Sum(terms)

    scores = {(i, j): z3.Real(f"sc{li}_{h}_{i}_{j}") for i in queries for j in range(i + 1)}
    for (i, j), v in scores.items():
        s.add(v == score(i, j))
    viol = z3.Or(*[gap_violation(scores, i, gamma) for i in queries])
    s.push()
    s.add(viol)
    r = solve(s, timeout_ms)
    tally[0] += 1
    cex = counterexample(s.model(), [z3.Int(f"x{i + 1}") for i in range(L)]) \
        if r == "sat" else None
    s.pop()
    if r != "unsat":
        return ((f"refuted: the score gap {gamma} of layer {li + 1} head {h + 1} fails on "
                 f"the input shown") if r == "sat" else
                (f"unknown: the score gap {gamma} of layer {li + 1} head {h + 1} was not "
                 f"decided (solver timeout)")), cex, tally[0]
    # the range of every value coordinate over keys and inputs (for the softmax error)
    dv = layer.wv.shape[2]
    vrange = []
    for k in range(dv):
        sets = _value_sets(s, [v[k] for v in vals], timeout_ms, f"value coordinate {k + 1} "
                           f"of layer {li + 1} head {h + 1}", tally)
        allv = {v for vs in sets for v in vs}
        vrange.append(max(allv) - min(allv))
    beta = exact(layer.beta[h])
    off = off_argmax_mass(beta, gamma, L)
    herr = [round_up(off * vr) for vr in vrange]
    trace.append({"layer": li + 1, "head": h + 1, "gap": str(gamma),
                  "mass_off_argmax": float(off), "value_range": [str(v) for v in vrange]})
    details["heads"].append({"layer": li + 1, "head": h + 1, "gap": str(gamma),
                             "proved": "z3 unsat"})
    head = [None] * L
    for i in queries:
        a = argmax_index(s, scores, i, f"arg{li}_{h}_{i}")
        head[i] = [select(a, list(range(i + 1)), [vals[j][k] for j in range(i + 1)])
                   for k in range(dv)]
    return head, herr, tally[0]
