"""One-way communication matrices of decision functions, counted exactly and vectorized.

For a :class:`~theorybench.tasks.base.DecisionFunction` ``df`` of fixed length ``L`` and a
split ``k`` (1 <= k <= L-1), the communication matrix ``M_k`` has one row per prefix
``x_1..x_k`` and one column per suffix ``x_(k+1)..x_L`` (each position ranging over
``df.choices[i]``), with entry ``f(x)``. The number of distinct rows of ``M_k`` is the
number of different messages a one-way protocol from the prefix holder to the suffix
holder needs at that split, so ``ceil(log2 rows)`` is the exact minimal one-way message
length in bits. This is also the minimal prefix bandwidth ``a`` of a BAPO with ``b = 0``
(Schnabel et al., "Lost in transmission", NeurIPS 2025, arXiv 2505.08140, Definition 1
with no attended tokens: the suffix oracle sees only f's ``a`` bits, the suffix and k), and
the quantity behind the C-RASP communication bound (docs/theories.md §4).

Method (exact, no hashing). Write ``f`` on the whole product space in lexicographic
(mixed-radix) order, in chunks so memory stays bounded. Rows at split ``L`` are the values
``f(x)`` themselves; a row at split ``k`` is the concatenation, over the token ``c`` at
position ``k+1``, of the rows at split ``k+1`` of ``x_1..x_k c``. So the class (row id) of
every prefix at split ``k`` is the dense rank of the tuple of class ids of its children,
computed with ``np.unique(..., return_inverse=True)`` one child column at a time. All
splits together cost about ``2 * |space|`` sorted elements: n = 24 binary inputs
(2^24 rows) take a few seconds, most of it evaluating ``f``.

Invalid inputs (``df.valid`` false) get the value "undefined", treated as one more
output value; a prefix whose whole row is undefined (it has no valid completion) is not
counted, since it never occurs. For a total function the count is exact; for a partial
function it is the number of distinct rows of the partial matrix, which is an upper bound
on the minimal message count (a protocol may merge rows that agree wherever both are
defined - finding the fewest such merges is graph colouring). A sound LOWER bound for a
partial function is a clique of pairwise conflicting rows (:func:`conflict_rows_by_split`).

Where the space is too large to enumerate, :func:`sampled_rows_lower_bound` counts the
exact rows of sampled prefixes (a lower bound), and :func:`communication_profile` gives a
family's row counts by n, exact where the space allows and sampled otherwise: the
measurements behind the C-RASP communication rule (:mod:`theorybench.theories.crasp`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Iterable

import numpy as np

from .. import tasks
from ..errors import EnumerationTooLarge, TaskParameterError
from .resources import check_memory, fmt_count

#: Default largest product space counted (2^24 = n 24 binary inputs).
DEFAULT_LIMIT = 1 << 24
#: Inputs evaluated per call to ``df.evaluate``.
CHUNK = 1 << 18
_UNDEF = -1


def _radices(df) -> list[int]:
    return [len(c) for c in df.choices]


def space_size(df) -> int:
    """Size of the natural input space of ``df`` (product of the choice counts)."""
    return math.prod(_radices(df))


def _check_limit(df, limit: int) -> int:
    size = space_size(df)
    if size > limit:
        name = getattr(getattr(df, "task", None), "name", "this task")
        raise EnumerationTooLarge(
            f"the communication matrix of {name} ({getattr(df, 'name', '')}) needs all "
            f"{size:,} inputs, more than the limit {limit:,}; use a smaller n, or raise the limit "
            f"(limit=, --limit on the command line) if memory allows (about 30 bytes per "
            f"input: n=24 binary takes 0.5 GB)")
    return size


def _digits_tokens(choices, start: int, stop: int) -> np.ndarray:
    """Inputs number ``start..stop-1`` of the product of ``choices`` (lexicographic)."""
    radices = [len(c) for c in choices]
    width = max(radices, default=1)
    table = np.zeros((len(radices), width), dtype=np.int64)
    for i, c in enumerate(choices):
        table[i, : len(c)] = c
    idx = np.arange(start, stop, dtype=np.int64)
    digits = np.empty((stop - start, len(radices)), dtype=np.int64)
    for pos in range(len(radices) - 1, -1, -1):
        digits[:, pos] = idx % radices[pos]
        idx //= radices[pos]
    return table[np.arange(len(radices))[None, :], digits]


def iter_chunks(df, chunk: int = CHUNK):
    """Yield (start, inputs) blocks covering the product space in lexicographic order.

    The trailing positions whose product fits in ``chunk`` are enumerated once (the low
    block). One buffer is filled with it once and reused: per block only the few leading
    columns change, so a block costs a write of those columns, not a copy of the whole
    block. The yielded array is overwritten by the next block; copy it to keep it.
    """
    radices = _radices(df)
    L = len(radices)
    j0, low = L, 1
    while j0 > 0 and low * radices[j0 - 1] <= chunk:
        j0 -= 1
        low *= radices[j0]
    low_tokens = _digits_tokens(df.choices[j0:], 0, low)
    high_total = math.prod(radices[:j0])
    per = max(1, chunk // low)
    buf = np.empty((per * low, L), dtype=np.int64)
    buf[:, j0:] = np.tile(low_tokens, (per, 1))
    for h in range(0, high_total, per):
        g = min(per, high_total - h)
        x = buf[: g * low]
        if j0:
            high = _digits_tokens(df.choices[:j0], h, h + g)
            view = x[:, :j0].view()
            view.shape = (g, low, j0)  # splits an axis: always a view, never a copy
            view[:] = high[:, None, :]
        yield h * low, x


def bytes_needed(size: int) -> int:
    """Peak memory of the exact computation over ``size`` inputs: the values (int64) and
    the per-split keys and class ids built from them."""
    return 32 * int(size)


def evaluate_all(df, limit: int = DEFAULT_LIMIT, chunk: int = CHUNK) -> np.ndarray:
    """``f`` on the whole product space in lexicographic order, int64; invalid -> -1.

    Raises :class:`EnumerationTooLarge` beyond ``limit``.
    """
    size = _check_limit(df, limit)
    check_memory(bytes_needed(size),
                 f"enumerating the {fmt_count(size)} inputs of length {df.length:,}",
                 "use a smaller n")
    out = np.empty(size, dtype=np.int64)
    for start, x in iter_chunks(df, chunk):
        stop = start + len(x)
        vals = np.asarray(df.evaluate(x), dtype=np.int64).reshape(-1)
        if vals.shape[0] != stop - start:
            raise TaskParameterError(
                f"evaluate of {getattr(df, 'name', 'the decision function')} returned "
                f"{vals.shape[0]} values for {stop - start} inputs")
        if np.any(vals < 0):
            raise TaskParameterError("decision function values must be non-negative integers")
        if df.valid is not None:
            vals = np.where(np.asarray(df.valid(x), dtype=bool), vals, _UNDEF)
        out[start:stop] = vals
    return out


def _dense(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks of non-negative int keys (equal keys, equal ranks) and their count."""
    if len(keys) == 0:
        return keys.astype(np.int64), 0
    top = int(keys.max())
    if top < 4 * len(keys) + 1024:  # counting sort: linear time
        present = np.zeros(top + 1, dtype=bool)
        present[keys] = True
        rank = np.cumsum(present) - 1
        return rank[keys].astype(np.int64, copy=False), int(rank[-1]) + 1
    uniq, inv = np.unique(keys, return_inverse=True)
    return inv.reshape(-1).astype(np.int64, copy=False), len(uniq)


def class_ids_by_split(values: np.ndarray, radices: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """For every split k = 0..L: (class id of each prefix, bool 'class is all-undefined').

    ``values`` is f on the whole space in mixed-radix order (-1 = undefined). Entry k of
    the result has ``prod(radices[:k])`` class ids; two prefixes share an id iff their
    rows of the communication matrix at split k are equal.
    """
    L = len(radices)
    ids, m = _dense(values - _UNDEF)  # shift so 'undefined' (-1) ranks first
    undef = np.zeros(m, dtype=bool)
    if np.any(values == _UNDEF):
        undef[0] = True
    out: list[tuple[np.ndarray, np.ndarray]] = [None] * (L + 1)  # type: ignore[list-item]
    out[L] = (ids, undef)
    for k in range(L - 1, -1, -1):
        r = radices[k]
        child = ids.reshape(-1, r)
        key, span, c = child[:, 0], m, 1
        while True:  # fold as many child columns into one int64 key as fit in 62 bits
            c0 = c
            while c < r and span * m < (1 << 62):
                key = key * m + child[:, c]
                span *= m
                c += 1
            if c == c0 and c < r:  # one column does not fit: cannot happen for m < 2^31
                raise EnumerationTooLarge("too many row classes to rank exactly")
            key, count = _dense(key)
            if c >= r:
                break
            span = count
        new_undef = np.zeros(count, dtype=bool)
        if undef.any():  # a total function has no undefined rows: skip the gather
            new_undef[key] = np.all(undef[child], axis=1)
        ids, m, undef = key, count, new_undef
        out[k] = (ids, undef)
    return out


def _splits(L: int, splits: Iterable[int] | None) -> list[int]:
    if splits is None:
        return list(range(1, L))
    ks = sorted(set(int(k) for k in splits))
    bad = [k for k in ks if k < 0 or k > L]
    if bad:
        raise TaskParameterError(f"splits {bad} are outside 0..{L} for an input of length {L}")
    return ks


def distinct_rows_by_split(df, splits: Iterable[int] | None = None,
                           limit: int = DEFAULT_LIMIT) -> dict[int, int]:
    """Exact number of distinct (not all-undefined) rows of the communication matrix, by split.

    ``splits`` defaults to 1..L-1 (prefix and suffix both non-empty). The first k
    positions form the prefix. Raises :class:`EnumerationTooLarge` if the input space is
    larger than ``limit``.
    """
    radices = _radices(df)
    ks = _splits(len(radices), splits)
    values = evaluate_all(df, limit)
    return distinct_rows_from_values(values, radices, ks)


def distinct_rows_from_values(values: np.ndarray, radices: list[int],
                              splits: Iterable[int] | None = None) -> dict[int, int]:
    """As :func:`distinct_rows_by_split`, from precomputed values (mixed-radix order)."""
    ks = _splits(len(radices), splits)
    table = class_ids_by_split(np.asarray(values, dtype=np.int64), list(radices))
    return {k: int((~table[k][1]).sum()) for k in ks}


def bits(rows: int) -> int:
    """ceil(log2 rows): bits needed to name one of ``rows`` messages (0 for rows <= 1)."""
    return 0 if rows <= 1 else int(math.ceil(math.log2(rows)))


def one_way_cc(df, splits: Iterable[int] | None = None,
               limit: int = DEFAULT_LIMIT) -> tuple[int, dict[int, int]]:
    """(max over splits of ceil(log2 distinct rows), {split k: distinct rows}).

    The first value is the exact deterministic one-way (prefix -> suffix) communication
    complexity of ``df`` over the given splits, which equals the minimal ``a`` of a
    ``(a, 0)``-BAPO (see the module docstring).
    """
    table = distinct_rows_by_split(df, splits, limit)
    best = max((bits(r) for r in table.values()), default=0)
    return best, table


#: The minimal prefix-oracle bandwidth of a BAPO with b = 0 is the one-way complexity.
b0_bandwidth = one_way_cc


def communication_matrix(df, k: int, limit: int = 1 << 16) -> np.ndarray:
    """The explicit matrix at split k (rows: prefixes, columns: suffixes; -1 undefined).

    For inspection and small cases only (``limit`` bounds the space).
    """
    radices = _radices(df)
    (k,) = _splits(len(radices), [k])
    values = evaluate_all(df, limit)
    return values.reshape(math.prod(radices[:k]), math.prod(radices[k:]))


# ---- partial functions: rows that must get different messages --------------------------------
#: Most distinct rows at one split for which the greedy clique is extended across patterns.
GREEDY_ROWS = 4096


def unique_rows(rows: np.ndarray) -> np.ndarray:
    """Distinct rows, fast: each row viewed as one opaque item (order is irrelevant)."""
    rows = np.ascontiguousarray(rows)
    flat = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1])))[:, 0]
    _, first = np.unique(flat, return_index=True)
    return rows[first]


def conflict_clique(distinct: np.ndarray) -> int:
    """Size of a clique of pairwise conflicting rows (rows that differ at a column where
    both are defined; -1 = undefined): the largest group of rows with one definedness
    pattern (any two differ where both are defined), greedily extended (up to
    GREEDY_ROWS rows) by rows - most defined entries first - that conflict with every
    row already chosen."""
    defined = distinct >= 0
    patterns = unique_rows(defined)
    if len(patterns) == 1:
        return int(len(distinct))
    flat = np.ascontiguousarray(defined).view(np.dtype((np.void, defined.shape[1])))[:, 0]
    _, pattern = np.unique(flat, return_inverse=True)
    pattern = pattern.reshape(-1)
    counts = np.bincount(pattern)
    best = int(counts.argmax())
    if len(distinct) > GREEDY_ROWS:
        return int(counts[best])
    clique = distinct[pattern == best]
    rest = np.flatnonzero(pattern != best)
    for r in rest[np.argsort(-defined[rest].sum(axis=1), kind="stable")]:
        row = distinct[r]
        both = (clique >= 0) & (row >= 0)
        if (both & (clique != row)).any(axis=1).all():
            clique = np.vstack([clique, row])
    return int(len(clique))


def conflict_rows_by_split(df, limit: int = DEFAULT_LIMIT) -> dict[int, int]:
    """For a PARTIAL decision function (``df.valid``): a sound lower bound on the number of
    one-way messages at each split. Two prefixes need different messages iff their rows
    differ at a column where both are defined (they "conflict"); the fewest messages is
    the chromatic number of the conflict graph, and any clique bounds it from below.
    Counting all distinct rows would NOT be a lower bound: rows that differ only in where
    they are undefined may share a message. The clique is :func:`conflict_clique` (all
    distinct rows where every live prefix has the same definedness pattern, e.g. a split
    inside index's data bits). Prefixes with no valid completion are ignored; for a
    total function the count is the number of distinct rows."""
    values = evaluate_all(df, limit)
    sizes = _radices(df)
    out = {}
    for k in range(1, len(sizes)):
        rows = values.reshape(math.prod(sizes[:k]), -1)
        rows = rows[(rows >= 0).any(axis=1)]
        out[k] = conflict_clique(unique_rows(rows)) if len(rows) else 0
    return out


# ---- sampled lower bound, for spaces too large to enumerate ----------------------------------
#: Evaluations per n for the sampled lower bound (prefix samples x all suffixes).
SAMPLED_BUDGET = 1 << 16
#: Largest suffix space (columns) enumerated for the sampled lower bound.
SAMPLED_COLUMNS = 256


def sampled_rows_lower_bound(df, rng: np.random.Generator, budget: int = SAMPLED_BUDGET):
    """A lower bound on the distinct rows of ``df``'s communication matrix when the full
    space is too large: at the split k with the shortest prefix whose suffix space has at
    most SAMPLED_COLUMNS columns, prefixes drawn from the task's distribution get their
    EXACT rows (every suffix evaluated); distinct rows among them are distinct rows of the
    matrix. Only for total functions (no ``valid``). None if not applicable or saturated
    (rows >= half the distinct prefixes drawn: the sample, not the task, is the limit)."""
    if df.valid is not None:
        return None
    sizes = [len(c) for c in df.choices]
    k = next((k for k in range(1, len(sizes)) if math.prod(sizes[k:]) <= SAMPLED_COLUMNS), None)
    if k is None:
        return None
    cols = math.prod(sizes[k:])
    grids = np.meshgrid(*[np.asarray(c, dtype=np.int64) for c in df.choices[k:]], indexing="ij")
    suffixes = np.stack([g.reshape(-1) for g in grids], axis=1)
    draws = max(16, budget // cols)
    prefixes = np.unique(np.asarray(df.sample(rng, draws))[:, :k], axis=0)
    x = np.concatenate([np.repeat(prefixes, cols, axis=0), np.tile(suffixes, (len(prefixes), 1))],
                       axis=1)
    values = np.asarray(df.evaluate(x)).reshape(len(prefixes), cols)
    rows = len(np.unique(values, axis=0))
    if 2 * rows >= len(prefixes) and 10 * len(prefixes) >= 9 * draws:
        return None  # nearly every draw a new prefix and a new row: the sample is the limit
    return {"rows": rows, "split": k, "prefixes": int(len(prefixes)), "columns": cols}


# ---- a family's row counts by n ------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def communication_profile(family: str, max_space: int, seed: int = 0) -> dict[str, Any]:
    """Distinct-row counts of the main decision function by n: EXACT (max over all splits;
    for partial functions the sound bound of :func:`conflict_rows_by_split`) at the n of
    the family's ``analysis_ns`` (and a few more within its range) whose input space is at most
    ``max_space``; if fewer than four n allow that, the SAMPLED lower bounds of
    :func:`sampled_rows_lower_bound` at every n instead (one method per series, so that
    the growth fit compares like with like)."""
    cls = tasks.family(family)
    low = min(cls.analysis_ns)  # below the family's analysis range instances degenerate
    extra = {n for n in (2, 3, 4, 6, 8) if n >= low}  # (index_parity at n = k = 3)
    insts = []
    for n in sorted(set(cls.analysis_ns) | extra):
        try:
            task = tasks.get(family, n=n)
        except TaskParameterError:  # an n the family does not take (e.g. even majority)
            continue
        if task.decision_view()[0].length >= 2:
            insts.append(task)
    exact = {"ns": [], "lengths": [], "max_rows": [], "argmax_split": [],
             "method": "exact, max over splits"}
    if insts and insts[0].decision_view()[0].valid is not None:
        exact["method"] = ("exact, max over splits, of rows that must get different messages "
                           "(partial function: a clique of pairwise conflicting rows)")
    for task in insts:
        df = task.decision_view()[0]
        if df.space_size() > max_space:
            continue
        table = (distinct_rows_by_split(df, limit=max_space) if df.valid is None
                 else conflict_rows_by_split(df, limit=max_space))
        k, r = max(table.items(), key=lambda kv: kv[1])
        exact["ns"].append(task.n)
        exact["lengths"].append(int(df.length))
        exact["max_rows"].append(int(r))
        exact["argmax_split"].append(int(k))
    if len(exact["ns"]) >= 4:
        return exact
    rng = np.random.default_rng(seed)
    sampled = {"ns": [], "lengths": [], "max_rows": [], "argmax_split": [], "prefixes": [],
               "method": "sampled lower bound (exact rows of sampled prefixes, all suffixes)"}
    for task in insts:
        lb = sampled_rows_lower_bound(task.decision_view()[0], rng)
        if lb is None:
            break
        sampled["ns"].append(task.n)
        sampled["lengths"].append(int(task.decision_view()[0].length))
        sampled["max_rows"].append(lb["rows"])
        sampled["argmax_split"].append(lb["split"])
        sampled["prefixes"].append(lb["prefixes"])
    return sampled if len(sampled["ns"]) > len(exact["ns"]) else exact


__all__ = ["distinct_rows_by_split", "distinct_rows_from_values", "one_way_cc", "b0_bandwidth",
           "communication_matrix", "evaluate_all", "bytes_needed", "class_ids_by_split", "bits", "space_size",
           "DEFAULT_LIMIT", "unique_rows", "conflict_clique", "conflict_rows_by_split",
           "sampled_rows_lower_bound", "communication_profile", "GREEDY_ROWS", "SAMPLED_BUDGET",
           "SAMPLED_COLUMNS"]
