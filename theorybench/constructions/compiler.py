"""C-RASP -> causal softmax transformer, for the unguarded core of C-RASP (a first cut).

Supported nodes: token tests (and "<eos>"), true/false, integer constants, names,
! && ||, the six comparisons, unguarded counts #phi, + - k*x, min, max. Refused, with
the node and its line: guarded counts #[g], conditionals, #import predicates.

Semantics as the interpreter's (1-based positions, the end marker appended, acceptance
at it, ``accept="eos"``): the model reads w followed by "<eos>" (the last token id) and
its one logit is the output definition minus 1/2 at the end position.

Representation at position i (every channel written once, so the residual stream ends
holding every definition): a Boolean is exactly 0 or 1; a count c is held as c / i
(uniform causal attention averages a Boolean channel: #phi / i); the constant k as k *
inv_i (positional feature inv_i = 1/i). A comparison of count expressions tests an
integer d = x - y held as d / i with i <= N (N = n + 1 positions): d > 0 iff d / i >=
1/N, so [d > 0] = ReLU(N d/i) - ReLU(N d/i - 1) is exact 0/1; d >= 0 is d + 1 > 0; ==
is (>=) - (>); And = ReLU(a + b - 1), Or = a + b - And, Not = 1 - a, min(x, y) = x -
ReLU(x - y). Every MLP is exact piecewise-linear arithmetic; no LayerNorm. Layers are
scheduled from the dependency graph: an average needs its body one MLP earlier, an MLP
needs its inputs one attention (or MLP) earlier. The acceptance margin is 1/2 in real
arithmetic for every input of length <= n.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import ConfigError, EnumerationTooLarge, ProgramError, ProgramProblem
from ..formal.crasp import Interpreter
from ..formal.crasp import ast as A
from ..formal.crasp.validate import check
from ..tasks.base import product_space
from .model import Weights, empty_layer


@dataclass
class _Val:
    kind: str                      # "bool" or "count"
    form: dict                     # channel -> Fraction coefficient
    ready: int                     # stage after which every channel of the form exists


@dataclass
class Compiled:
    weights: Weights
    vocab: tuple[str, ...]         # program alphabet + ("<eos>",)
    n: int
    definitions: dict = field(default_factory=dict)   # name -> (kind, form)

    def shape(self) -> dict:
        w = self.weights
        return {"layers": len(w.layers), "heads": [l.heads for l in w.layers],
                "width": w.width, "mlp": [int(l.w1.shape[1]) for l in w.layers],
                "parameters": w.parameter_count(), "max_len": w.max_len}


_SOURCE = ["<program>"]     # the file named in refusals (set by compile_program)


def _refuse(node, what):
    pos = getattr(node, "pos", None)
    line, col = (pos if pos else (None, None))
    raise ProgramError(source_name=_SOURCE[0], problems=[ProgramProblem(
        f"{what} is not supported by the transformer compiler (supported: token tests, "
        f"true/false, integers, ! && ||, comparisons, unguarded #, + - k*, min, max)",
        line, col)])  # noqa: E124


class _Builder:
    def __init__(self, vocab, n):
        self.vocab, self.n = vocab, n
        self.channels = [f"tok:{t}" for t in vocab] + ["one", "inv"]
        self.heads = []            # (stage, value form, out channel)
        self.units = []            # (stage, pre form, {out channel: coeff})

    def new(self, name):
        self.channels.append(f"{name}#{len(self.channels)}")
        return self.channels[-1]

    @staticmethod
    def lin(*pairs):
        out = {}
        for coeff, form in pairs:
            for ch, v in form.items():
                out[ch] = out.get(ch, Fraction(0)) + coeff * v
        return {k: v for k, v in out.items() if v != 0}

    def mlp_stage(self, ready):          # MLP stages are odd: 2l + 1
        s = ready + 1
        return s if s % 2 == 1 else s + 1

    def attn_stage(self, ready):         # attention stages are even: 2l
        s = ready + 1
        return s if s % 2 == 0 else s + 1

    def relu_channel(self, name, pre, ready):
        st = self.mlp_stage(ready)
        ch = self.new(name)
        self.units.append((st, pre, {ch: Fraction(1)}))
        return ch, st

    def step(self, d, ready, name):
        """[d > 0] for an integer d held as d / i: exact 0/1 channel."""
        N = Fraction(self.n + 1)
        st = self.mlp_stage(ready)
        ch = self.new(name)
        self.units.append((st, self.lin((N, d)), {ch: Fraction(1)}))
        self.units.append((st, self.lin((N, d), (Fraction(-1), {"one": Fraction(1)})),
                           {ch: Fraction(-1)}))
        return ch, st


def compile_program(program: A.Program, n: int, alphabet=None) -> Compiled:
    """The transformer for ``program`` on inputs of length <= n. The program is validated
    first, as by every other consumer (:func:`theorybench.formal.crasp.check`: a name
    defined twice, an undefined name, a cycle, an empty program are that ProgramError, with
    line and column); then nodes outside the supported core are refused, with their line."""
    checked = check(program, program.alphabet or alphabet)
    _SOURCE[0] = program.source_name
    for s in program.statements:
        if isinstance(s, A.Import):
            _refuse(s, f"#import {s.name}")
    vocab = tuple(program.alphabet or alphabet or program.tokens()) + (A.EOS,)
    b = _Builder(vocab, n)
    env: dict[str, _Val] = {}
    one = {"one": Fraction(1)}

    def ev(e) -> _Val:
        if isinstance(e, A.Token):
            ch = f"tok:{e.symbol}"
            return _Val("bool", {ch: Fraction(1)} if ch in b.channels else {}, -1)
        if isinstance(e, A.BoolConst):
            return _Val("bool", dict(one) if e.value else {}, -1)
        if isinstance(e, A.IntConst):
            return _Val("count", {"inv": Fraction(e.value)} if e.value else {}, -1)
        if isinstance(e, A.Ref):
            if e.name not in env:
                _refuse(e, f"the name {e.name!r} (an imported predicate)")
            return env[e.name]
        if isinstance(e, A.Not):
            a = ev(e.arg)
            return _Val("bool", b.lin((Fraction(1), one), (Fraction(-1), a.form)), a.ready)
        if isinstance(e, (A.And, A.Or)):
            x, y = ev(e.left), ev(e.right)
            pre = b.lin((Fraction(1), x.form), (Fraction(1), y.form), (Fraction(-1), one))
            ch, st = b.relu_channel("and", pre, max(x.ready, y.ready))
            if isinstance(e, A.And):
                return _Val("bool", {ch: Fraction(1)}, st)
            return _Val("bool", b.lin((Fraction(1), x.form), (Fraction(1), y.form),
                                      (Fraction(-1), {ch: Fraction(1)})), st)
        if isinstance(e, A.Compare):
            x, y = ev(e.left), ev(e.right)
            r = max(x.ready, y.ready)
            d = b.lin((Fraction(1), x.form), (Fraction(-1), y.form))
            inv = {"inv": Fraction(1)}
            if e.op in (">", "<"):
                dd = d if e.op == ">" else b.lin((Fraction(-1), d))
                ch, st = b.step(dd, r, "cmp")
                return _Val("bool", {ch: Fraction(1)}, st)
            if e.op in (">=", "<="):
                dd = d if e.op == ">=" else b.lin((Fraction(-1), d))
                ch, st = b.step(b.lin((Fraction(1), dd), (Fraction(1), inv)), r, "cmp")
                return _Val("bool", {ch: Fraction(1)}, st)
            ge, st = b.step(b.lin((Fraction(1), d), (Fraction(1), inv)), r, "ge")
            gt, _ = b.step(d, r, "gt")
            eq = {ge: Fraction(1), gt: Fraction(-1)}
            if e.op == "==":
                return _Val("bool", eq, st)
            return _Val("bool", b.lin((Fraction(1), one), (Fraction(-1), eq)), st)
        if isinstance(e, A.Count):
            if e.guard is not None:
                _refuse(e, f"the guarded count #[{e.guard}]")
            body = ev(e.body)
            st = b.attn_stage(body.ready)
            ch = b.new("count")
            b.heads.append((st, body.form, ch))
            return _Val("count", {ch: Fraction(1)}, st)
        if isinstance(e, (A.Add, A.Sub)):
            x, y = ev(e.left), ev(e.right)
            sign = Fraction(1) if isinstance(e, A.Add) else Fraction(-1)
            return _Val("count", b.lin((Fraction(1), x.form), (sign, y.form)),
                        max(x.ready, y.ready))
        if isinstance(e, A.Scale):
            x = ev(e.arg)
            return _Val("count", b.lin((Fraction(e.factor), x.form)), x.ready)
        if isinstance(e, (A.Min, A.Max)):
            x, y = ev(e.left), ev(e.right)
            # min = x - ReLU(x - y); max = x + ReLU(y - x)
            diff = (b.lin((Fraction(1), x.form), (Fraction(-1), y.form)) if isinstance(e, A.Min)
                    else b.lin((Fraction(1), y.form), (Fraction(-1), x.form)))
            ch, st = b.relu_channel("minmax", diff, max(x.ready, y.ready))
            sign = Fraction(-1) if isinstance(e, A.Min) else Fraction(1)
            return _Val("count", b.lin((Fraction(1), x.form), (sign, {ch: Fraction(1)})), st)
        if isinstance(e, A.Cond):
            _refuse(e, "the conditional (A if C else B)")
        _refuse(e, f"the node {type(e).__name__}")

    defs = {d.name: d for d in program.definitions}
    for name in checked.order:  # definitions may refer forwards: build in dependency order
        env[name] = ev(defs[name].expr)
    out = env[program.output]
    if out.kind != "bool":
        _refuse(program.definitions[-1], "a count-valued output")
    return _assemble(b, env, out, n)


def _assemble(b: _Builder, env, out: _Val, n: int) -> Compiled:
    stages = [s for s, _, _ in b.heads] + [s for s, _, _ in b.units] + [0]
    layers_n = max(stages) // 2 + 1
    c = {ch: k for k, ch in enumerate(b.channels)}
    d, L, V = len(b.channels), n + 1, len(b.vocab)
    E = np.zeros((V, d))
    for t, tok in enumerate(b.vocab):
        E[t, c[f"tok:{tok}"]] = 1.0
    P = np.zeros((L, d))
    P[:, c["one"]] = 1.0
    P[:, c["inv"]] = 1.0 / np.arange(1, L + 1)
    layers = []
    for li in range(layers_n):
        hs = [(f, ch) for s, f, ch in b.heads if s == 2 * li]
        us = [(f, o) for s, f, o in b.units if s == 2 * li + 1]
        layer = empty_layer(d, heads=max(1, len(hs)), mlp=len(us))
        for h, (form, ch) in enumerate(hs):
            for k, v in form.items():
                layer.wv[h, c[k], 0] = float(v)
            layer.wo[h, 0, c[ch]] = 1.0
        for u, (form, outs) in enumerate(us):
            for k, v in form.items():
                if k == "one":
                    layer.b1[u] += float(v)     # the constant as a bias (exact)
                else:
                    layer.w1[c[k], u] = float(v)
            for k, v in outs.items():
                layer.w2[u, c[k]] = float(v)
        layers.append(layer)
    w_out = np.zeros((d, 1))
    for k, v in out.form.items():
        w_out[c[k], 0] = float(v)
    weights = Weights(E, P, layers, w_out, np.array([-0.5]), "last", tuple(b.channels))
    defs = {name: (v.kind, {k: float(x) for k, x in v.form.items()}) for name, v in env.items()}
    return Compiled(weights, b.vocab, n, defs)


def definition_values(comp: Compiled, state: np.ndarray, name: str) -> np.ndarray:
    """A definition's value at every position from the final residual stream (B, L, d):
    Booleans as read (0/1 up to float error), counts rescaled by i."""
    kind, form = comp.definitions[name]
    c = {ch: k for k, ch in enumerate(comp.weights.channels)}
    v = np.zeros(state.shape[:2])
    for k, x in form.items():
        v = v + x * state[:, :, c[k]]
    if kind == "count":
        v = v * np.arange(1, state.shape[1] + 1)[None, :]
    return v


def check_compiled(program: A.Program, comp: Compiled, tokens: np.ndarray,
                   count_tol: float = 1e-6) -> dict:
    """Every definition at every position and the acceptance of the compiled model against
    the interpreter on ``tokens`` (B, n) (ids into the program alphabet). Booleans must be
    within 1e-9 of 0/1 and equal; counts within ``count_tol``. Returns the worst errors,
    the smallest acceptance margin and the first disagreeing row (or None)."""
    import torch

    alphabet = comp.vocab[:-1]
    run = Interpreter(program, alphabet).run(tokens, alphabet, accept="eos")
    ext = np.concatenate([tokens, np.full((len(tokens), 1), len(alphabet))], axis=1)
    from .model import SetTransformer
    model = SetTransformer(comp.weights)
    with torch.no_grad():
        res = model.residual(torch.as_tensor(ext))
        logit = (res[:, -1] @ model.w_out + model.b_out).numpy()[:, 0]
        state = res.numpy()
    bad = np.zeros(len(tokens), dtype=bool)
    worst = {"bool": 0.0, "count": 0.0}
    for name, (kind, _) in comp.definitions.items():
        got = definition_values(comp, state, name)
        want = np.asarray(run.values[name], dtype=np.float64)
        err = np.abs(got - want)
        worst[kind] = max(worst[kind], float(err.max(initial=0.0)))
        bad |= (err > (1e-9 if kind == "bool" else count_tol)).any(axis=1)
    margin = np.where(run.accept, logit, -logit)
    bad |= margin <= 0
    first = int(np.argmax(bad)) if bad.any() else None
    return {"bool_error": worst["bool"], "count_error": worst["count"],
            "min_margin": float(margin.min(initial=np.inf)), "inputs": int(len(tokens)),
            "ok": first is None, "counterexample": None if first is None else
            [alphabet[t] for t in tokens[first]]}


#: Largest number of inputs the exhaustive check of a compiled program runs.
MAX_PROGRAM_INPUTS = 1 << 18


def verify_compiled(program: A.Program, comp: Compiled, method: str = "exhaustive",
                    rng: np.random.Generator | None = None, samples: int = 10_000):
    """A :class:`Certificate` for the compiled model against the interpreter.

    ``exhaustive``: every input of every length 1..n (each definition at each position
    and acceptance, float64). ``interval``: the acceptance logit enclosed in real
    arithmetic on those inputs (``proved`` for lengths <= n). ``sampled``: ``samples``
    random inputs of uniformly random length 1..n."""
    import math
    import time

    from .base import Certificate
    from .interval import enclose, margin_lower
    t0 = time.perf_counter()
    A_ = len(comp.vocab) - 1
    n = comp.n
    name = program.source_name
    if method == "sampled":
        from .check import check_length
        check_length(n + 1)
        rng = rng if rng is not None else np.random.default_rng(0)
        lengths = rng.integers(1, n + 1, size=samples)
        groups = [(m, rng.integers(0, A_, size=(int((lengths == m).sum()), m)))
                  for m in np.unique(lengths)]
    elif method in ("exhaustive", "interval"):
        total = sum(A_ ** m for m in range(1, n + 1))
        if total > MAX_PROGRAM_INPUTS:
            raise EnumerationTooLarge(
                f"every input of length <= {n} over {A_} symbols is {total:,} inputs (more "
                f"than {MAX_PROGRAM_INPUTS:,}); use a smaller --n (about "
                f"{int(math.log(MAX_PROGRAM_INPUTS, max(A_, 2)))}) or --verify sampled")
        groups = [(m, product_space([tuple(range(A_))] * m)) for m in range(1, n + 1)]
    else:
        raise ConfigError(f"--verify {method} is not available for compiled programs; use "
                          f"exhaustive, interval or sampled")
    worst = {"bool_error": 0.0, "count_error": 0.0, "min_margin": np.inf}
    bad = None
    count = 0
    for m, x in groups:
        if not len(x):
            continue
        count += len(x)
        if method == "interval":
            alphabet = comp.vocab[:-1]
            acc = Interpreter(program, alphabet).run(x, alphabet, accept="eos").accept
            ext = np.concatenate([x, np.full((len(x), 1), A_)], axis=1)
            mg = margin_lower(*enclose(comp.weights, ext), acc.astype(np.int64))
            worst["min_margin"] = min(worst["min_margin"], float(mg.min()))
            if bad is None and (mg <= 0).any():
                bad = [alphabet[t] for t in x[int(np.argmax(mg <= 0))]]
            continue
        r = check_compiled(program, comp, x)
        for k in ("bool_error", "count_error"):
            worst[k] = max(worst[k], r[k])
        worst["min_margin"] = min(worst["min_margin"], r["min_margin"])
        if bad is None and not r["ok"]:
            bad = r["counterexample"]
    ok = bad is None
    what = {"exhaustive": f"every input of length 1..{n} ({count:,})",
            "interval": f"every input of length 1..{n} ({count:,})",
            "sampled": f"{count:,} random inputs of length 1..{n}"}[method]
    if method == "interval":
        claim = (f"in real arithmetic the compiled model accepts exactly as the interpreter "
                 f"on {what}, logits enclosed by outward-rounded interval arithmetic")
    else:
        claim = (f"float64: every definition at every position equals the interpreter's "
                 f"(Booleans within 1e-9, counts within 1e-6) and acceptance agrees on {what}")
    return Certificate(
        construction=f"compiled:{name}", n=n, method=f"{method}-program",
        status=("proved" if method == "interval" else "verified") if ok else
        ("unknown" if method == "interval" else "refuted"),
        claim=claim, seconds=time.perf_counter() - t0, inputs=count,
        margin="1/2" if ok and method == "interval" else None,
        observed_margin=worst["min_margin"], counterexample=None,
        details={k: v for k, v in worst.items() if k != "min_margin"} |
        ({"counterexample": " ".join(bad)} if bad else {}))
