"""Verify a BAPO protocol against a decision function: all inputs, all splits, all G.

For every split k and every input, the verifier computes the selected prefix tokens,
then lets an adversary choose which min(b, |selected|) of them reach h (the BAPO definition of
Schnabel et al., NeurIPS 2025, arXiv 2505.08140). With few selected tokens every choice
is tried; when the number of (input, choice) pairs would exceed ``max_choices`` per
split it falls back to a randomized adversary (``random_choices`` random subsets per
input plus the first-b and last-b subsets) and says so in the result.

Declared bandwidth is enforced: f must return exactly ``a`` bits (0/1) per input, g one
decision per (input, position) row, h one output per input; a violation raises
:class:`ResourceLimitError` naming the split and the offending input. A wrong answer is
reported (not raised) as the first failing (input, split, G); ``raise_for_failure``
turns it into a :class:`VerificationError`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ResourceLimitError, VerificationError
from .protocol import Protocol, pack_g, selected_mask

#: Inputs enumerated exhaustively up to this many; sampled beyond.
MAX_INPUTS = 1 << 16
#: Uniform draws from the natural input space behind the estimate of the valid-input count.
INFO_SAMPLES = 1 << 15
#: Error probability of the one-sided (Clopper-Pearson) bound on the valid fraction.
INFO_DELTA = 1e-6


@dataclass
class VerifyResult:
    """Outcome of one verification, JSON-ready through ``to_dict``."""

    ok: bool
    protocol: dict[str, Any]
    length: int
    splits: list[int]
    inputs: int
    choices: int
    inputs_mode: str
    adversary: str
    failure: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "protocol": self.protocol, "length": self.length,
                "splits": self.splits, "inputs": self.inputs, "g_choices": self.choices,
                "inputs_mode": self.inputs_mode, "adversary": self.adversary,
                "failure": self.failure, "notes": self.notes}

    def raise_for_failure(self) -> "VerifyResult":
        if not self.ok:
            fl = self.failure or {}
            raise VerificationError(
                f"protocol {self.protocol.get('name')} ({self.protocol.get('a')}, "
                f"{self.protocol.get('b')}) fails at split k={fl.get('split')} on input "
                f"{fl.get('input')} with G={fl.get('G')}: expected {fl.get('expected')}, "
                f"got {fl.get('got')}")
        return self


def verification_inputs(df, rng: np.random.Generator, max_inputs: int = MAX_INPUTS,
                        samples: int = 4096) -> tuple[np.ndarray, str]:
    """All inputs when there are at most ``max_inputs``, else task samples plus uniform ones."""
    if df.space_size() <= max_inputs:
        return df.enumerate(limit=max_inputs), "exhaustive"
    parts = []
    if df.sample is not None:
        parts.append(np.asarray(df.sample(rng, samples // 2), dtype=np.int64))
    cols = [np.asarray(c)[rng.integers(0, len(c), size=samples)] for c in df.choices]
    uni = np.stack(cols, axis=1).astype(np.int64)
    if df.valid is not None:
        uni = uni[np.asarray(df.valid(uni), dtype=bool)]
    parts.append(uni)
    return np.concatenate(parts), f"sampled ({sum(len(p) for p in parts)} inputs)"


@dataclass
class PrefixInformation:
    """A lower bound on the information a split can carry: ``bits`` <= log2 D, D the number
    of distinct prefixes x[:j] of valid inputs with j = L - 1 - b (the first L - 1 - b tokens
    of the largest split's prefix, the part attention with b tokens cannot deliver).

    Why this number: D never shrinks with j (every prefix of a valid input extends to one),
    so the generic (a, b)-BAPO - g selects the last b prefix tokens, f sends the index of the
    rest among the D_(k-b) possibilities - solves every function of this input space once
    2^a >= D. A protocol verified only at such n is indistinguishable from that lookup table,
    whatever the task; ``binds(a)`` says the declared bandwidth is below the bound, so a
    correct run there is evidence about the task. ``how`` is 'exact' (all valid inputs
    enumerated), 'distinct prefixes among the checked inputs' (a certified count) or the
    sampled bound on the valid-input count (valid fraction of uniform draws, one-sided exact
    binomial bound, wrong with probability <= INFO_DELTA, divided by the completions of a
    prefix).
    """

    length: int
    b: int
    prefix_length: int
    bits: float
    how: str

    def binds(self, a: int) -> bool:
        return a < self.bits - 1e-9

    def to_dict(self) -> dict[str, Any]:
        return {"length": self.length, "b": self.b, "prefix_length": self.prefix_length,
                "log2_prefixes_at_least": round(self.bits, 3), "how": self.how}


def prefix_information(df, b: int, rng: np.random.Generator,
                       inputs: np.ndarray | None = None, exhaustive: bool = False,
                       samples: int = INFO_SAMPLES) -> PrefixInformation:
    """:class:`PrefixInformation` of ``df`` for attention width ``b``: exact when ``inputs``
    are all valid inputs (``exhaustive``) or the space is small, else the larger of the
    certified distinct count among ``inputs`` and the sampled estimate."""
    L = df.length
    j = max(L - 1 - max(b, 0), 0)
    if j == 0:
        return PrefixInformation(L, b, 0, 0.0, "exact (empty prefix)")
    if inputs is None and df.space_size() <= MAX_INPUTS:
        inputs, exhaustive = df.enumerate(limit=MAX_INPUTS), True
    seen = 0.0
    if inputs is not None and len(inputs):
        d = len(np.unique(np.asarray(inputs, dtype=np.int64)[:, :j], axis=0))
        seen = math.log2(d)
        if exhaustive:
            return PrefixInformation(L, b, j, seen, "exact (all valid inputs)")
    radices = [len(c) for c in df.choices]
    completions = sum(math.log2(r) for r in radices[j:])
    if df.valid is None:
        # a product space: every natural prefix occurs
        return PrefixInformation(L, b, j, sum(math.log2(r) for r in radices[:j]),
                                 "exact (product space)")
    cols = [np.asarray(c)[rng.integers(0, len(c), size=samples)] for c in df.choices]
    hits = int(np.asarray(df.valid(np.stack(cols, axis=1).astype(np.int64)), bool).sum())
    lo = binomial_lower(hits, samples, INFO_DELTA)
    est = (math.log2(lo) + math.log2(df.space_size()) - completions) if lo > 0 else 0.0
    if est > seen:
        return PrefixInformation(
            L, b, j, est, f"sampled: {hits} of {samples} uniform inputs valid (exact binomial "
                          f"lower bound, error probability {INFO_DELTA:g}), over at most "
                          f"2^{completions:.2f} completions per prefix")
    return PrefixInformation(L, b, j, seen, "distinct prefixes among the checked inputs")


def binomial_lower(hits: int, n: int, delta: float) -> float:
    """The one-sided Clopper-Pearson bound: the least p with P(Bin(n, p) >= hits) >= delta
    (bisection on the exact tail, summed in log space)."""
    if n <= 0 or hits <= 0:
        return 0.0
    i = np.arange(hits)
    logc = (math.lgamma(n + 1) - np.array([math.lgamma(v + 1) for v in i])
            - np.array([math.lgamma(n - v + 1) for v in i]))

    def upper_tail(p: float) -> float:
        below = np.exp(logc + i * math.log(p) + (n - i) * math.log1p(-p)).sum()
        return 1.0 - float(below)

    lo, hi = 0.0, hits / n
    for _ in range(80):
        mid = (lo + hi) / 2
        if mid <= 0 or upper_tail(mid) < delta:
            lo = mid
        else:
            hi = mid
    return lo


def _render(df, row: np.ndarray) -> str:
    task = getattr(df, "task", None)
    try:
        return task.render(row) if task is not None else " ".join(map(str, row.tolist()))
    except Exception:  # rendering is only for the message
        return " ".join(map(str, row.tolist()))


def _choices_for(sel: np.ndarray, b: int, rng: np.random.Generator, max_choices: int,
                 random_choices: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(row index, arrive mask) for every adversarial G of every row; flag if randomized."""
    N, k = sel.shape
    count = sel.sum(axis=1)
    rows_out = [np.nonzero(count <= b)[0]]
    masks_out = [sel[count <= b]]
    randomized = False
    for s in np.unique(count[count > b]):
        s = int(s)
        rows = np.nonzero(count == s)[0]
        pos = np.nonzero(sel[rows])[1].reshape(len(rows), s)  # selected positions, sorted
        n_comb = math.comb(s, b)
        if len(rows) * n_comb <= max_choices:
            combos = np.array(list(itertools.combinations(range(s), b)), dtype=np.int64)
            chosen = pos[:, combos]  # (R, C, b)
            r_idx = np.repeat(rows, n_comb)
            chosen = chosen.reshape(-1, b)
        else:
            randomized = True
            t = random_choices
            keys = rng.random((len(rows), t, s))
            keys[:, 0, :] = np.arange(s)  # first b
            keys[:, 1 % t, :] = -np.arange(s)  # last b
            pick = np.argsort(keys, axis=2)[:, :, :b]
            chosen = np.take_along_axis(np.repeat(pos[:, None, :], t, axis=1), pick, axis=2)
            r_idx = np.repeat(rows, t)
            chosen = chosen.reshape(-1, b)
        m = np.zeros((len(r_idx), k), dtype=bool)
        np.put_along_axis(m, chosen, True, axis=1)
        rows_out.append(r_idx)
        masks_out.append(m)
    return np.concatenate(rows_out), np.concatenate(masks_out), randomized


def verify(protocol: Protocol, df, rng: np.random.Generator | None = None,
           splits: list[int] | None = None, max_inputs: int = MAX_INPUTS,
           max_choices: int = 1 << 20, random_choices: int = 16,
           inputs: np.ndarray | None = None) -> VerifyResult:
    """Run ``protocol`` on every input (or a sample), every split and every adversarial G."""
    rng = rng if rng is not None else np.random.default_rng(0)
    L = df.length
    if inputs is None:
        X, mode = verification_inputs(df, rng, max_inputs)
    else:
        X, mode = np.asarray(inputs, dtype=np.int64), f"given ({len(inputs)} inputs)"
    ks = list(splits) if splits is not None else list(protocol.splits or range(1, L))
    expected = np.asarray(df.evaluate(X), dtype=np.int64).reshape(-1)
    meta = protocol.to_dict()
    total_choices, randomized_any = 0, False
    for k in ks:
        prefix, suffix = X[:, :k], X[:, k:]
        bits = np.asarray(_call(protocol, "f", k, prefix))
        if bits.ndim != 2 or bits.shape != (len(X), protocol.a):
            raise ResourceLimitError(
                f"protocol {protocol.name}: at split k={k} the prefix oracle f returned an array "
                f"of shape {bits.shape}, but it declares a={protocol.a} bits per input (expected "
                f"shape ({len(X)}, {protocol.a})); make f return exactly a bits")
        bad = ~np.isin(bits, (0, 1)).all(axis=1)
        if bad.any():
            i = int(np.argmax(bad))
            raise ResourceLimitError(
                f"protocol {protocol.name}: at split k={k} f returned non-bit values "
                f"{bits[i].tolist()} on input {_render(df, X[i])}; f must return 0/1 bits")
        sel = _call(protocol, "g", k, X, k)
        if sel.shape != (len(X), k):
            raise ResourceLimitError(
                f"protocol {protocol.name}: g must return one decision per (input, position) "
                f"row at split k={k}")
        r_idx, arrive, randomized = _choices_for(sel, protocol.b, rng, max_choices,
                                                 random_choices)
        randomized_any |= randomized
        gt, gp = pack_g(prefix[r_idx], arrive, protocol.b)
        out = np.asarray(_call(protocol, "h", k, bits[r_idx], gt, gp, suffix[r_idx], k))
        out = out.reshape(-1)
        if out.shape != r_idx.shape:
            raise ResourceLimitError(
                f"protocol {protocol.name}: h returned {out.shape[0]} outputs for "
                f"{len(r_idx)} (input, G) pairs at split k={k}")
        total_choices += len(r_idx)
        wrong = out != expected[r_idx]
        if wrong.any():
            # the first failing input in input order, then its first failing G
            cand = np.nonzero(wrong)[0]
            j = cand[np.lexsort((cand, r_idx[cand]))[0]]
            i = int(r_idx[j])
            G = [(int(t), int(p)) for t, p in zip(gt[j], gp[j]) if p >= 0]
            failure = {"split": k, "input": _render(df, X[i]), "input_ids": X[i].tolist(),
                       "G": G, "selected": np.nonzero(sel[i])[0].tolist(),
                       "expected": int(expected[i]), "got": int(out[j])}
            return VerifyResult(False, meta, L, ks, len(X), total_choices, mode,
                                _adv(randomized_any, random_choices), failure)
    return VerifyResult(True, meta, L, ks, len(X), total_choices, mode,
                        _adv(randomized_any, random_choices))


def _call(protocol: Protocol, which: str, k: int, *args):
    """Call f, g (through :func:`selected_mask`) or h; a crash becomes a VerificationError
    naming the protocol, the function and the split."""
    fn = {"f": protocol.f, "h": protocol.h,
          "g": lambda x, kk: selected_mask(protocol, x, kk)}[which]
    try:
        return fn(*args)
    except (ValueError, IndexError, TypeError, KeyError, ArithmeticError) as exc:
        raise VerificationError(
            f"protocol {protocol.name} ({protocol.a}, {protocol.b}): {which} raised "
            f"{type(exc).__name__} at split k={k}: {exc}") from exc


def _adv(randomized: bool, t: int) -> str:
    return f"randomized ({t} choices per input where too many)" if randomized else "exhaustive"


__all__ = ["verify", "VerifyResult", "verification_inputs", "prefix_information",
           "PrefixInformation", "MAX_INPUTS"]
