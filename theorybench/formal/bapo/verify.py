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


__all__ = ["verify", "VerifyResult", "verification_inputs", "MAX_INPUTS"]
