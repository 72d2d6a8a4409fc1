"""Closed forms of average sensitivity, proven for every input length, and the exhaustive
check that matches one to a task (docs/theories.md §7).

A closed form is matched to a task by its function, never by the task's name: at each
checked n the task's decision function is evaluated on every input of its natural space
and compared with the closed form's function (:func:`match_closed_form`). The identity is
then *checked up to N* (``verified ≤ N``), while the formula is *proven* for the function
at every length m (the derivations below). Average sensitivity is the deterministic one of
:mod:`.sensitivity` under the uniform distribution (for {0,1}^m the total influence,
O'Donnell, *Analysis of Boolean Functions*, 2014, ch. 2, Def. 2.27).

Symmetric functions (f(x) = g(|x_S|) on the relevant bits S, m = |S|).  A flip of bit i
changes f iff g(W) != g(W + 1), where W ~ Bin(m - 1, 1/2) is the weight of the other m - 1
bits (either value of x_i gives the same pair of neighbouring weights).  Summing over the
m bits,

    as(f) = m * P[g(W) != g(W + 1)],  W ~ Bin(m - 1, 1/2)                          (*)

for every m and every g.  The named forms are (*) for one g per m, and are closed under
counting the other symbol (w -> m - w) and negating the output, so a task that counts
either token, or outputs the complement, matches the same form:

* parity, g(w) = w mod 2: every flip changes f, P = 1, **as = m** (linear).
* AND / OR, g(w) = [w = m] or [w = 0]: only the weight step m-1 <-> m (or 0 <-> 1),
  P = 2^(1-m), **as = m 2^(1-m)** -> 0.
* majority, g(w) = [w >= t], t = floor(m/2) + 1 or ceil(m/2) (the two tie rules; the
  same for odd m): P = C(m-1, t-1) / 2^(m-1), **as = m C(m-1, t-1) / 2^(m-1)**, for odd m
  m C(m-1, (m-1)/2) / 2^(m-1) ~ sqrt(2m/pi) by Stirling's formula (O'Donnell 2014, §2.3,
  total influence of Maj_n; the limit is recomputed with sympy in :func:`limit_ratio`).
* MOD_k, g(w) = [w = r (mod k)], k >= 3 and r fixed: g changes between w and w + 1 iff
  w = r - 1 or w = r (mod k), so **as = m P[W mod k in {r-1, r}]**; by the roots-of-unity
  filter P[W = j (mod k)] = (1/k) sum_l w^(-jl) ((1 + w^l)/2)^(m-1) (w = e^(2 pi i/k))
  and |(1 + w^l)/2| = |cos(pi l/k)| < 1 for l != 0, so P -> 2/k and as ~ 2m/k (linear).

Index (the multiplexer over tokens): data bits x_1..x_N and one query position holding one
of N symbols, f = the queried bit. Exactly one data bit (the queried one) is sensitive at
every x; the query position is sensitive iff some other data bit differs from the queried
one, which fails only when all N bits are equal: **as = 1 + (1 - 2^(1-N)) = 2 - 2^(1-N)**.
With the query written in binary on m address bits (N = 2^m, :func:`binary_encoding`),
each address bit flip moves the query to another data bit, which differs with probability
1/2: **as = 1 + m/2** (the classical multiplexer).

Juntas: a function of k relevant positions has s(f, x) <= k at every x (only those
positions can be sensitive), so **as <= k**; bounded when k is the same at every n.

Boppana's bound on larger alphabets (:func:`binary_encoding`): position i with k_i
choices is written as the index of its symbol in binary on ceil(log2 k_i) bits, most
significant first, and a code >= k_i reads as the last choice. The AC0 circuits of this
project read a larger alphabet one-hot (:mod:`.circuits.encoding`); each one-hot bit is an
AND of ceil(log2 k_i) literals of the code (an OR of such ANDs for the last choice), so an
AC0 family for the task over one-hot inputs gives one for the encoded function (depth + 2,
size + O(sum k_i log k_i)). Boppana's polylog bound on the encoded function's average
sensitivity (Boppana, IPL 63(5), 1997) thus speaks about the task: a tokens task over
{a, b, c} gets a figure.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .. import tasks
from ..errors import TheorybenchError
from ..tasks.base import DecisionFunction, product_space

#: Largest input space the identity with a closed form's function is checked on.
CHECK_LIMIT = 1 << 18
#: MOD_k forms are tried for k up to this, and identified only once m >= 2k was checked.
MAX_MODULUS = 7
SOURCE = ("O'Donnell, 'Analysis of Boolean Functions' (2014), ch. 2 (total influence; "
          "Maj_n in §2.3); derivations in theorybench/formal/sensitivity_closed.py")


@dataclass(frozen=True)
class ClosedForm:
    """One closed form: its function, the formula in m (sympy syntax) and its value."""

    key: str
    function: str
    formula: str
    derivation: str
    #: exact as at size m (m = relevant bits, or data bits N for index)
    value: Callable[[int], Fraction]
    #: g_m for a symmetric form (None for index / junta); params e.g. {"k": 3, "r": 0}
    profile: Callable[[int, dict], np.ndarray] | None = None
    params: dict = field(default_factory=dict)
    #: lim as(m)/m as m grows (0: sublinear)
    ratio_limit: Fraction = Fraction(0)
    #: c with as(m) = Theta(m^c) (None: bounded or vanishing); above every polylog if c > 0
    power: Fraction | None = None

    def at(self, m: int) -> Fraction:
        return self.value(m)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "function": self.function, "formula": self.formula,
                "params": dict(self.params), "derivation": self.derivation,
                "power": None if self.power is None else str(self.power), "source": SOURCE}


def _mod_hits(m: int, k: int, r: int) -> Fraction:
    """P[W mod k in {r-1, r}], W ~ Bin(m-1, 1/2), exactly."""
    hits = sum(math.comb(m - 1, w) for w in range(m) if w % k in {(r - 1) % k, r % k})
    return Fraction(hits, 2 ** (m - 1))


def _threshold(m: int) -> int:
    return m // 2 + 1


PARITY = ClosedForm(
    "parity", "XOR of the relevant bits", "m",
    "every flip changes the parity of the weight, so s(f, x) = m at every x",
    lambda m: Fraction(m), lambda m, p: np.arange(m + 1) % 2, ratio_limit=Fraction(1),
    power=Fraction(1))
AND_OR = ClosedForm(
    "and_or", "AND (or OR) of the relevant bits", "m*2**(1-m)",
    "only the weight step between m-1 and m (0 and 1 for OR) changes f: "
    "P[W = m-1] = 2^(1-m) in (*)",
    lambda m: Fraction(m, 2 ** (m - 1)), lambda m, p: (np.arange(m + 1) == m).astype(int))
MAJORITY = ClosedForm(
    "majority", "majority of the relevant bits, [weight >= floor(m/2)+1] (or its tie "
    "rule ceil(m/2))", "m*binomial(m-1, floor(m/2))/2**(m-1)",
    "only the step between weights t-1 and t changes f: P[W = t-1] = C(m-1, t-1)/2^(m-1) "
    "in (*); for odd m = 2j+1 this is m C(2j, j)/4^j ~ sqrt(2m/pi) (Stirling), and "
    "as/m = C(2j, j)/4^j <= 1/sqrt(2j+1) -> 0 (induction: a_(j+1) = a_j (2j+1)/(2j+2) "
    "and ((2j+1)/(2j+2))^2 <= (2j+1)/(2j+3))",
    lambda m: Fraction(m * math.comb(m - 1, _threshold(m) - 1), 2 ** (m - 1)),
    lambda m, p: (np.arange(m + 1) >= _threshold(m)).astype(int), power=Fraction(1, 2))
INDEX = ClosedForm(
    "index", "the data bit named by a query position with N symbols", "2 - 2**(1-m)",
    "the queried bit is always sensitive; the query is sensitive unless all N data bits "
    "are equal (probability 2^(1-N))", lambda m: 2 - Fraction(2, 2 ** m))
INDEX_BINARY = ClosedForm(
    "index_binary", "the multiplexer: m address bits select one of 2^m data bits",
    "1 + m/2", "the selected data bit is always sensitive; an address flip selects another "
    "data bit, which differs with probability 1/2", lambda m: 1 + Fraction(m, 2))


def mod_form(k: int, r: int) -> ClosedForm:
    """[weight = r (mod k)] on the relevant bits (k >= 3; k = 2 is parity)."""
    return ClosedForm(
        f"mod{k}", f"[number of counted symbols = {r} mod {k}] over the relevant bits",
        f"m*P[Bin(m-1,1/2) mod {k} in {{{(r - 1) % k}, {r}}}] ~ 2m/{k}",
        f"g changes between weights w and w+1 iff w = {(r - 1) % k} or {r} (mod {k}); the "
        f"roots-of-unity filter gives P -> 2/{k}",
        lambda m: m * _mod_hits(m, k, r),
        lambda m, p: (np.arange(m + 1) % k == r).astype(int), {"k": k, "r": r},
        Fraction(2, k), Fraction(1))


SYMMETRIC = (PARITY, AND_OR, MAJORITY)


def limit_ratio(form: ClosedForm, shape: str) -> Fraction:
    """lim as / F as the number F of free positions grows, for a form whose size m is F
    (shape ``all``; F - 1 for index) or fixed (shape ``fixed``: 0). The limits are the
    forms' ``ratio_limit`` (their derivations above; tests/formal/test_sensitivity_closed.py
    recomputes them with sympy - majority through the bound C(2j, j)/4^j <= 1/sqrt(2j+1),
    since sympy needs tens of seconds for the binomial itself)."""
    return Fraction(0) if shape == "fixed" else form.ratio_limit


# ---- identification ----------------------------------------------------------------

@dataclass
class Layout:
    """One n: the relevant positions and what the task's function is on them."""

    n: int
    free: int
    relevant: list[int]
    kind: str  # "symmetric", "index", "junta"
    size: int  # m (symmetric), N (index), k (junta)
    profile: np.ndarray | None = None  # g(w) for symmetric (0/1, counting choice 1)


def _evaluate(df: DecisionFunction) -> tuple[np.ndarray, np.ndarray] | str:
    size = df.space_size()
    if size > CHECK_LIMIT:
        return f"{size:,} inputs, above the check limit {CHECK_LIMIT:,}"
    x = product_space(df.choices, CHECK_LIMIT)
    if df.valid is not None and not np.asarray(df.valid(x), dtype=bool).all():
        return "a domain restriction (some inputs of the product space are not inputs)"
    f = np.asarray(df.evaluate(x)).reshape(len(x))
    if len(np.unique(f)) > 2:
        return "more than two output values"
    return x, (f == f.max()).astype(np.int8)


def layout(df: DecisionFunction) -> Layout | str:
    """What the task's function is at this n, found and checked on every input, or why
    no closed form can be matched."""
    got = _evaluate(df)
    if isinstance(got, str):
        return got
    x, f = got
    radices = [len(c) for c in df.choices]
    free = [i for i, k in enumerate(radices) if k > 1]
    relevant, post = [], 1
    strides = []
    for k in reversed(radices):
        strides.append(post)
        post *= k
    strides = strides[::-1]
    for i in free:
        v = f.reshape(-1, radices[i], strides[i])
        if (v != v[:, :1, :]).any():
            relevant.append(i)
    n = int(getattr(df.task, "n", df.length))
    binary = [i for i in relevant if radices[i] == 2]
    if len(binary) == len(relevant):
        d = np.stack([x[:, i] == df.choices[i][1] for i in relevant], 1) if relevant \
            else np.zeros((len(x), 0), dtype=bool)
        w = d.sum(1)
        g = np.full(len(relevant) + 1, -1)
        for wv in range(len(relevant) + 1):  # a loop over weights, not inputs
            vals = np.unique(f[w == wv])
            if len(vals) > 1:
                break
            g[wv] = vals[0] if len(vals) else -1
        else:
            return Layout(n, len(free), relevant, "symmetric", len(relevant), g)
    wide = [i for i in relevant if radices[i] > 2]
    if len(wide) == 1 and radices[wide[0]] == len(binary) and binary:
        q = wide[0]
        d = np.stack([x[:, i] == df.choices[i][1] for i in binary], 1).astype(np.int8)
        used, negated = set(), None
        for sym in df.choices[q]:  # a loop over query symbols, not inputs
            rows = x[:, q] == sym
            for neg in ((0, 1) if negated is None else (negated,)):
                same = ((d[rows] ^ neg) == f[rows][:, None]).all(0)
                if same.sum() == 1:
                    negated = neg
                    used.add(int(np.flatnonzero(same)[0]))
                    break
            else:
                break
        else:
            if len(used) == len(binary):
                return Layout(n, len(free), relevant, "index", len(binary))
    return Layout(n, len(free), relevant, "junta", len(relevant))


def _symmetric_match(form: ClosedForm, layouts: list[Layout]) -> bool:
    for lay in layouts:
        g = lay.profile
        if g is None or (g < 0).any():
            return False
        want = form.profile(lay.size, form.params)
        # counting the other symbol (w -> m - w) and the complement give the same as
        if not any(np.array_equal(h, want) or np.array_equal(1 - h, want)
                   for h in (g, g[::-1])):
            return False
    return True


def _mod_candidates(layouts: list[Layout]) -> list[ClosedForm]:
    top = max(lay.size for lay in layouts)
    out = []
    for k in range(3, MAX_MODULUS + 1):
        if top < 2 * k:  # two periods seen at least
            continue
        out += [mod_form(k, r) for r in range(k)]
    return out


@dataclass
class ClosedFormMatch:
    """A closed form whose function the task's was checked against at ``checked_ns``."""

    form: ClosedForm
    shape: str  # "all" (size grows with the free positions) or "fixed"
    checked_ns: list[int]
    sizes: dict[int, int]  # n -> m at the checked n
    values: dict[int, float]  # n -> closed-form as at the checked n
    limit: str  # lim as / free positions
    sublinear: bool
    bound_only: bool = False  # a junta's as <= k, not an equality

    def size_at(self, free: int) -> int:
        """m at a row with ``free`` free positions (any n, checked or not)."""
        if self.shape == "fixed":
            return next(iter(self.sizes.values()))
        return free - 1 if self.form.key == "index" else free

    def to_dict(self) -> dict[str, Any]:
        return {**self.form.to_dict(), "shape": self.shape, "checked_ns": self.checked_ns,
                "sizes": self.sizes, "values": self.values, "limit_as_over_n": self.limit,
                "sublinear": self.sublinear, "bound_only": self.bound_only,
                "identity": (f"the task's function equals {self.form.function} on every "
                             f"input at n = {self.checked_ns} (exhaustive)")}


def match_closed_form(views: list[tuple[int, DecisionFunction]]
                      ) -> ClosedFormMatch | str:
    """The closed form whose function the task's decision functions (``(n, df)`` pairs,
    at least three n whose space is at most CHECK_LIMIT) all equal, or why none."""
    layouts, why = [], []
    for n, df in views:
        try:
            lay = layout(df)
        except (TheorybenchError, ValueError, MemoryError) as exc:
            lay = f"{type(exc).__name__}: {exc}"
        if isinstance(lay, str):
            why.append(f"n={n}: {lay}")
        else:
            layouts.append(lay)
    if len(layouts) < 3:
        return ("the task's function was checked at fewer than three n"
                + (f" ({'; '.join(why[:2])})" if why else ""))
    kinds = {lay.kind for lay in layouts}
    sizes = [lay.size for lay in layouts]
    if all(len(lay.relevant) == lay.free for lay in layouts):
        shape = "all"
    elif len(set(sizes)) == 1:
        shape = "fixed"
    else:
        return (f"the relevant positions grow ({sizes}) but are not all the free "
                f"positions; no closed form is stated for that shape")
    forms: list[ClosedForm] = []
    if kinds == {"symmetric"}:
        forms = [fm for fm in SYMMETRIC + tuple(_mod_candidates(layouts))
                 if _symmetric_match(fm, layouts)]
    elif kinds == {"index"}:
        forms = [INDEX]
    bound_only = False
    if not forms:
        if shape != "fixed":
            return (f"the task's function is none of parity, AND/OR, majority, MOD_k "
                    f"(k <= {MAX_MODULUS}) or index at n = {[l.n for l in layouts]}")
        k = sizes[0]
        forms = [ClosedForm("junta", f"a function of {k} relevant positions", str(k),
                            "only the k relevant positions can be sensitive: s <= k",
                            lambda m, k=k: Fraction(k))]
        bound_only = True
    form = forms[0]
    lim = limit_ratio(form, shape)
    return ClosedFormMatch(
        form, shape, [lay.n for lay in layouts], {lay.n: lay.size for lay in layouts},
        {lay.n: float(form.at(lay.size)) for lay in layouts}, str(lim),
        sublinear=bool(lim == 0), bound_only=bound_only)


# ---- the binary encoding -----------------------------------------------------------

def binary_encoding(df: DecisionFunction) -> DecisionFunction:
    """``df`` on bits: position i with k_i > 1 choices becomes ceil(log2 k_i) bits holding
    the index of its symbol, most significant first; a code >= k_i reads as the last
    choice; single-choice positions vanish. Every input is valid (a total function)."""
    radices = [len(c) for c in df.choices]
    widths = [max(0, math.ceil(math.log2(k))) if k > 1 else 0 for k in radices]
    table = np.zeros((len(radices), max(radices)), dtype=np.int64)
    for i, c in enumerate(df.choices):
        table[i, :len(c)] = c
    weights = [1 << np.arange(b - 1, -1, -1) for b in widths]

    def decode(bits: np.ndarray) -> np.ndarray:
        bits = np.asarray(bits, dtype=np.int64)
        out = np.empty((len(bits), len(radices)), dtype=np.int64)
        col = 0
        for i, b in enumerate(widths):  # a loop over positions, not inputs
            code = bits[:, col:col + b] @ weights[i] if b else np.zeros(len(bits), np.int64)
            out[:, i] = table[i, np.minimum(code, radices[i] - 1)]
            col += b
        return out

    def encode(tokens: np.ndarray) -> np.ndarray:
        tokens = np.asarray(tokens, dtype=np.int64)
        cols = []
        for i, b in enumerate(widths):
            if not b:
                continue
            lookup = np.zeros(int(table[i].max()) + 1, dtype=np.int64)
            lookup[list(df.choices[i])] = np.arange(radices[i])
            code = lookup[tokens[:, i]]
            cols.append((code[:, None] >> np.arange(b - 1, -1, -1)[None, :]) & 1)
        return np.concatenate(cols, 1) if cols else np.zeros((len(tokens), 0), np.int64)

    bits = sum(widths)
    return replace(df, name=f"{df.name} (binary encoding)", choices=((0, 1),) * bits,
                   evaluate=lambda b: df.evaluate(decode(b)),
                   sample=lambda rng, count: encode(df.sample(rng, count)), valid=None,
                   description=f"{df.description} - tokens in binary, {bits} bits",
                   sensitive_positions=None)




# ---- the closed form against measured values -----------------------------------------

#: A sampled value agrees with a closed form within this many standard errors.
Z_SAMPLED = 4.0


def check_against(match: ClosedFormMatch, rows: list[dict[str, Any]]) -> tuple[bool, list[dict]]:
    """Compare the closed form with every measured row (``n``, ``free_positions``,
    ``average_sensitivity``, ``ci_low``, ``ci_high``, ``exact``): an exact value must equal
    it (a junta's must not exceed it), a sampled one lie within Z_SAMPLED standard errors
    (half the 95 % interval / 1.96) plus what draws that all missed a rare event cannot
    exclude. Returns (all agree, one record per row)."""
    out, ok_all = [], True
    for r in rows:
        m = match.size_at(int(r["free_positions"]))
        want = float(match.form.at(m))
        got = float(r["average_sensitivity"])
        se = max(float(r["ci_high"]) - float(r["ci_low"]), 0.0) / 2 / 1.96
        # S draws that all missed an event of probability p leave p <= 3/S (95 %, the
        # rule of three), and s(f, x) <= free positions: a degenerate interval (All at
        # n = 64: every draw 0) still bounds the mean only that far
        rare = 3.0 / max(int(r.get("samples") or 1), 1) * int(r["free_positions"])
        tol = 1e-9 * max(1.0, abs(want)) + (0.0 if r.get("exact") else Z_SAMPLED * se + rare)
        ok = got <= want + tol if match.bound_only else abs(got - want) <= tol
        ok_all &= ok
        out.append({"n": int(r["n"]), "m": m, "closed_form": want, "measured": got,
                    "exact": bool(r.get("exact")), "agrees": bool(ok)})
    return ok_all, out


@functools.lru_cache(maxsize=256)
def _match_family(family: str, ns: tuple[int, ...]) -> ClosedFormMatch | str:
    views = []
    for n in ns:
        try:
            df = tasks.get(family, n=n).decision_view()[0]
        except (TheorybenchError, ValueError):
            continue
        if df.space_size() <= CHECK_LIMIT:
            views.append((n, df))
    return match_closed_form(views)


def closed_form_for(family: str, rows: list[dict[str, Any]]) -> dict[str, Any] | str:
    """The closed form of ``family``'s main decision function, its function checked on
    every input at the exactly measured n of ``rows`` (spaces up to CHECK_LIMIT), and
    compared with every row (:func:`check_against`); or why none applies. ``agrees`` is
    False when the formula misses a measured value: the form is then no evidence."""
    ns = tuple(sorted({int(r["n"]) for r in rows if r.get("exact")}))
    match = _match_family(family, ns)
    if isinstance(match, str):
        return match
    ok, table = check_against(match, rows)
    return {**match.to_dict(), "agrees": ok, "check": table}


def closed_form_by_bits(family: str, ms, values) -> dict[str, Any] | str:
    """:func:`closed_form_for` on a series of exact values indexed by the number m of
    input bits (Boppana's series: the first analysis n with each m), or why none."""
    rows, seen = [], set()
    for n in tasks.family(family).analysis_ns:
        try:
            df = tasks.get(family, n=n).decision_view()[0]
        except (TheorybenchError, ValueError):
            continue
        if df.valid is not None or any(len(c) > 2 for c in df.choices):
            return "the series is not of a function on bits"
        m = sum(len(c) == 2 for c in df.choices)
        if m in ms and m not in seen:
            seen.add(m)
            v = float(values[list(ms).index(m)])
            rows.append({"n": n, "free_positions": m, "average_sensitivity": v,
                         "ci_low": v, "ci_high": v, "exact": True})
    return closed_form_for(family, rows)


def describe(cf: dict[str, Any]) -> str:
    """A matched closed form (``closed_form_for``) in words, for a cell's explanation."""
    what = "at most" if cf["bound_only"] else "exactly"
    return (f"the task's function is {cf['function']} (checked on every input at n = "
            f"{cf['checked_ns']}), whose average sensitivity is {what} {cf['formula']} for "
            f"every m (proven: {cf['derivation']}; m = {_sizes_words(cf)}), matching every "
            f"measured value")


def _sizes_words(cf: dict[str, Any]) -> str:
    if cf["shape"] == "fixed":
        return f"{next(iter(cf['sizes'].values()))} at every n"
    return "the data bits" if cf["key"] == "index" else "the number of free positions"


__all__ = ["ClosedForm", "ClosedFormMatch", "Layout", "PARITY", "AND_OR", "MAJORITY",
           "INDEX", "INDEX_BINARY", "mod_form", "limit_ratio", "layout",
           "match_closed_form", "binary_encoding", "check_against", "closed_form_for",
           "closed_form_by_bits",
           "describe", "CHECK_LIMIT"]
