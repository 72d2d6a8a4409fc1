"""Bit-parallel, level-batched evaluation of a :class:`~.ir.Circuit` on a batch of inputs.

Inputs are packed 64 per machine word (``uint64``): input bit i of the batch becomes a row
of words, bit b of word w holding example ``64 w + b``. The live gates are grouped by level
(longest path from the inputs, NOT counted so that a level only reads earlier levels) and
by kind; every group is evaluated with one numpy gather plus a reduction over all its
gates at once, so the Python overhead is per level and kind, not per gate:

* AND / OR: ``bitwise_and`` / ``bitwise_or`` reduction over the gathered input words
  (gates of different fan-in are padded with the neutral constant);
* NOT: bitwise complement;
* MAJ / THR: ``method="bitslice"`` adds the input bit-planes with a tree of vectorized
  ripple-carry adders (a count held as bit-planes, O(fan-in) word operations), then compares
  the count with each gate's threshold bit-serially; ``method="unpack"`` unpacks to bytes
  and sums with numpy. ``benchmarks/bench_circuits.py`` measures both; "auto" uses
  bit-slicing, which was faster there.

Memory is bounded by evaluating the batch in chunks of words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ir import AND, CONST, GATE_KINDS, INPUT, MAJ, NOT, OR, THR, Circuit, CircuitError

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_CHUNK_BYTES = 1 << 25


@dataclass
class _Group:
    kind: str          # AND, OR, NOT, THR (MAJ compiled to THR)
    nodes: np.ndarray  # (g,) slot of each gate's output
    args: np.ndarray   # (g, f) slots of inputs, padded with a neutral slot
    k: np.ndarray | None = None  # (g,) thresholds


@dataclass
class _Plan:
    n_slots: int
    zero: int
    ones: int
    input_slots: np.ndarray
    input_idx: np.ndarray
    const_slots: list[tuple[int, int]]
    groups: list[_Group]
    out_slots: np.ndarray
    max_gather: int


def _compile(c: Circuit) -> _Plan:
    alive = c.live()
    live_nodes = [v for v in range(len(c.kinds)) if alive[v] or c.kinds[v] == INPUT]
    slot = {v: i for i, v in enumerate(live_nodes)}
    zero, ones = len(live_nodes), len(live_nodes) + 1
    level: dict[int, int] = {}
    buckets: dict[tuple[int, str], list[int]] = {}
    for v in live_nodes:
        kind = c.kinds[v]
        if kind in GATE_KINDS:
            level[v] = 1 + max(level[a] for a in c.args[v])
            key = (level[v], THR if kind == MAJ else kind)
            buckets.setdefault(key, []).append(v)
        else:
            level[v] = 0
    groups: list[_Group] = []
    max_gather = 1
    for (lev, kind), vs in sorted(buckets.items()):
        # split by fan-in (powers of two) to bound padding waste
        by_width: dict[int, list[int]] = {}
        for v in vs:
            f = len(c.args[v])
            by_width.setdefault(1 << max(0, (f - 1).bit_length()), []).append(v)
        for width, ws in sorted(by_width.items()):
            f = max(len(c.args[v]) for v in ws)
            pad = ones if kind == AND else zero
            args = np.full((len(ws), f), pad, dtype=np.int64)
            for r, v in enumerate(ws):
                args[r, : len(c.args[v])] = [slot[a] for a in c.args[v]]
            k = None
            if kind == THR:
                k = np.array([len(c.args[v]) // 2 + 1 if c.kinds[v] == MAJ else c.params[v]
                              for v in ws], dtype=np.int64)
            groups.append(_Group(kind, np.array([slot[v] for v in ws]), args, k))
            max_gather = max(max_gather, args.size * (4 if kind == THR else 1))
    inputs = [v for v in live_nodes if c.kinds[v] == INPUT]
    consts = [(slot[v], c.params[v]) for v in live_nodes if c.kinds[v] == CONST]
    return _Plan(len(live_nodes) + 2, zero, ones,
                 np.array([slot[v] for v in inputs], dtype=np.int64),
                 np.array([c.params[v] for v in inputs], dtype=np.int64),
                 consts, groups, np.array([slot[o] for o in c.outputs], dtype=np.int64),
                 max_gather)


def plan_for(c: Circuit) -> _Plan:
    """The compiled evaluation plan, cached on the circuit until it changes."""
    key = (len(c.kinds), tuple(c.outputs))
    cached = getattr(c, "_eval_plan", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    if not c.outputs:
        raise CircuitError("the circuit has no outputs; call set_outputs() first")
    plan = _compile(c)
    c._eval_plan = (key, plan)
    return plan


def pack_bits(x: np.ndarray) -> tuple[np.ndarray, int]:
    """(batch, n) 0/1 array -> ((n, words) uint64, batch)."""
    x = np.asarray(x)
    if x.ndim != 2:
        raise CircuitError(f"inputs must be a 2-d (batch, n_inputs) array, got shape {x.shape}")
    batch = x.shape[0]
    words = -(-batch // 64)
    xt = np.zeros((x.shape[1], words * 64), dtype=bool)
    xt[:, :batch] = x.T
    return np.packbits(xt, axis=1, bitorder="little").view(np.uint64), batch


def unpack_bits(words: np.ndarray, batch: int) -> np.ndarray:
    """(rows, words) uint64 -> (batch, rows) uint8."""
    by = np.ascontiguousarray(words).view(np.uint8)
    bits = np.unpackbits(by, axis=1, bitorder="little")[:, :batch]
    return bits.T.copy()


def _count_ge(cols: np.ndarray, k: np.ndarray) -> np.ndarray:
    """cols (g, f, W) uint64 bit-planes; returns (g, W): popcount over f >= k, bit-sliced."""
    g, f, w = cols.shape
    nums = [cols]  # list of bit-planes (LSB first), each (g, m, W)
    m = f
    while m > 1:
        if m % 2:
            nums = [np.concatenate([p, np.zeros((g, 1, w), np.uint64)], axis=1) for p in nums]
            m += 1
        a = [p[:, 0::2] for p in nums]
        b = [p[:, 1::2] for p in nums]
        carry = np.zeros_like(a[0])
        out = []
        for ai, bi in zip(a, b):
            x = ai ^ bi
            out.append(x ^ carry)
            carry = (ai & bi) | (carry & x)
        out.append(carry)
        nums, m = out, m // 2
    planes = [p[:, 0] for p in nums]  # (g, W) each, LSB first
    gt = np.zeros((g, w), np.uint64)
    eq = np.full((g, w), _ALL, np.uint64)
    kk = k.astype(np.int64)
    if (kk >= (1 << len(planes))).any():
        # a threshold above the largest count representable: never reached
        big = kk >= (1 << len(planes))
    else:
        big = None
    for bit in range(len(planes) - 1, -1, -1):
        kb = np.where((kk >> bit) & 1, _ALL, np.uint64(0))[:, None].astype(np.uint64)
        cb = planes[bit]
        gt |= eq & cb & ~kb
        eq &= ~(cb ^ kb)
    res = gt | eq
    if big is not None:
        res[big] = 0
    return res


def _count_ge_unpack(cols: np.ndarray, k: np.ndarray) -> np.ndarray:
    g, f, w = cols.shape
    bits = np.unpackbits(cols.view(np.uint8), axis=2, bitorder="little")  # (g, f, 64W)
    counts = bits.sum(axis=1, dtype=np.int32)
    ge = counts >= k[:, None]
    return np.packbits(ge, axis=1, bitorder="little").view(np.uint64).reshape(g, w)


def evaluate_packed(c: Circuit, words: np.ndarray, method: str = "auto") -> np.ndarray:
    """Evaluate on packed inputs (n_inputs, W) uint64 -> (n_outputs, W) uint64."""
    if method not in ("auto", "bitslice", "unpack"):
        raise CircuitError(f"unknown threshold method {method!r}; use auto, bitslice or unpack")
    count_ge = _count_ge_unpack if method == "unpack" else _count_ge
    plan = plan_for(c)
    words = np.asarray(words, dtype=np.uint64)
    if words.ndim != 2 or words.shape[0] != c.n_inputs:
        raise CircuitError(f"packed inputs must have shape ({c.n_inputs}, words), got {words.shape}")
    total = words.shape[1]
    step = max(1, min(total, _CHUNK_BYTES // (8 * max(plan.n_slots, plan.max_gather))))
    out = np.empty((len(plan.out_slots), total), dtype=np.uint64)
    for lo in range(0, max(total, 1), step):
        hi = min(total, lo + step)
        w = hi - lo
        vals = np.empty((plan.n_slots, w), dtype=np.uint64)
        vals[plan.zero] = 0
        vals[plan.ones] = _ALL
        vals[plan.input_slots] = words[plan.input_idx, lo:hi]
        for s, v in plan.const_slots:
            vals[s] = _ALL if v else 0
        for grp in plan.groups:
            if grp.kind == NOT:
                vals[grp.nodes] = ~vals[grp.args[:, 0]]
                continue
            cols = vals[grp.args]  # (g, f, w)
            if grp.kind == AND:
                vals[grp.nodes] = np.bitwise_and.reduce(cols, axis=1)
            elif grp.kind == OR:
                vals[grp.nodes] = np.bitwise_or.reduce(cols, axis=1)
            else:
                vals[grp.nodes] = count_ge(cols, grp.k)
        out[:, lo:hi] = vals[plan.out_slots]
    return out


def evaluate(c: Circuit, x: np.ndarray, method: str = "auto") -> np.ndarray:
    """Evaluate on a (batch, n_inputs) 0/1 array -> (batch, n_outputs) uint8."""
    x = np.asarray(x)
    if x.ndim != 2 or x.shape[1] != c.n_inputs:
        raise CircuitError(f"inputs must have shape (batch, {c.n_inputs}), got {x.shape}")
    words, batch = pack_bits(x)
    if batch == 0:
        return np.zeros((0, len(c.outputs)), dtype=np.uint8)
    return unpack_bits(evaluate_packed(c, words, method), batch)


def gate_input_evaluations(c: Circuit, batch: int) -> int:
    """Gate-input evaluations one call on ``batch`` inputs performs (live wires x batch)."""
    return c.wires * batch
