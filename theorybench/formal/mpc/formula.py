"""An MPC program for a template formula of :mod:`theorybench.formal.search.circuits`.

A formula found by the circuit template search is a uniform description of the task (one
or two atoms over the positions of a string, joined by AND or OR), so it also gives an MPC
algorithm with a constant number of rounds; the MPC theory runs it in the simulator like a
library algorithm (sampled instances checked against the task, locality checked, rounds
measured over n). Per atom, one value lands on machine 0:

* first, last, unary: each machine tests the positions it holds; an AND / OR tree fold;
* ends: the machine holding x_(L-1) sends it to machine 0 (one round), then a fold;
* next, mirror, half (pairs (i, p(i))): the position p(i) sends (i, x_p(i)) to the machine
  holding i - one message per position, so at most 2b <= s words sent and received per
  machine - then each machine tests its pairs; an AND / OR fold;
* before (some i < j: (x_i, x_j) in R): each letter's first and last position, a min/max
  tree fold of 2|A| words; machine 0 then tests first(a) < last(b) for (a, b) in R (all:
  the same test for the complement of R, negated);
* count: each letter's count, a sum fold of |A| words; machine 0 compares.

A tree fold over M = O(N^(1-delta)) machines with fan-in s / w takes O(1/delta) rounds
(:func:`.scan.tree_fold`), so the rounds are bounded in N for a fixed delta.
"""

from __future__ import annotations

import numpy as np

from ...errors import TaskParameterError
from ..search.circuits import pairs
from .scan import put, tree_fold
from .simulator import FILL, Network, Step

_AND = (np.minimum, [1])
_OR = (np.maximum, [0])


def _letters(task, letters: tuple[str, ...]) -> np.ndarray:
    """Token id -> letter index (-1 for another token)."""
    vocab = list(task.vocab)
    missing = [s for s in letters if s not in vocab]
    if missing:
        raise TaskParameterError(f"the formula's letters {missing} are not tokens of {task.name}")
    ids = [vocab.index(s) for s in letters]
    lut = np.full(len(vocab), -1, dtype=np.int64)
    lut[ids] = np.arange(len(ids))
    return lut


def _index(lut: np.ndarray, tok: np.ndarray) -> np.ndarray:
    live = tok != FILL
    return np.where(live, lut[np.clip(tok, 0, len(lut) - 1)], -1)


def _atom(net: Network, atom, lut: np.ndarray, k: int, col: int, scratch: int) -> None:
    """Leave the atom's truth (0/1) at word ``col`` of machine 0."""
    L, b = net.N, net.block
    table = np.zeros((k + 1, k + 1), dtype=bool)   # row / column k: not a letter
    sets = np.zeros(k + 1, dtype=bool)
    if atom.kind in ("first", "last", "unary"):
        sets[sorted(atom.rel)] = True
    elif atom.kind != "count":
        for p, q in atom.rel:
            table[p, q] = True
    every = atom.quant == "all"
    combine = _AND if every else _OR

    def held(ids, mem):
        tok = mem[..., :b]
        pos = ids[..., None] * b + np.arange(b)
        return tok, pos, (tok != FILL) & (pos < L), _index(lut, tok)

    def value(mem, v):
        return Step(put(mem, col, np.asarray(v, dtype=np.int64)[..., None]))

    if atom.kind in ("first", "last", "unary"):
        def local(ids, mem, inbox):
            tok, pos, live, idx = held(ids, mem)
            hit = live & sets[np.where(idx >= 0, idx, k)]
            if atom.kind == "unary":
                return value(mem, np.all(~live | hit, -1) if every else np.any(hit, -1))
            at = 0 if atom.kind == "first" else L - 1
            return value(mem, np.any(hit & (pos == at), -1))
        net.round(local, f"{atom.kind}: local test")
        tree_fold(net, col, 1, *(combine if atom.kind == "unary" else _OR), f"{atom.kind} fold")
        return

    if atom.kind == "ends":
        owner = (L - 1) // b

        def send(ids, mem, inbox):
            last = mem[..., (L - 1) - owner * b]
            return Step(mem, np.where(ids == owner, 0, -1)[..., None],
                        np.where(ids == owner, last, 0)[..., None, None])

        def local(ids, mem, inbox):
            tok, pos, live, idx = held(ids, mem)
            got = inbox.valid[..., 0] if inbox.valid.shape[-1] else np.zeros(ids.shape, bool)
            data = inbox.data[..., 0, 0] if inbox.valid.shape[-1] else np.full(ids.shape, FILL)
            other = _index(lut, np.where(got, data, FILL))
            a = np.where(idx[..., 0] >= 0, idx[..., 0], k)
            c = np.where(other >= 0, other, k)
            return value(mem, (ids == 0) & got & table[a, c])
        net.round(send, "ends: x_(L-1) to machine 0")
        net.round(local, "ends: test on machine 0")
        tree_fold(net, col, 1, *_OR, "ends fold")
        return

    if atom.kind in ("next", "mirror", "half"):
        pr = pairs(atom.kind, L)       # the pairs (i, p(i)) the search checked
        if pr is None:                 # half at odd L: "L even and ..." is false
            def constant(ids, mem, inbox):
                return value(mem, np.zeros(ids.shape, dtype=bool))
            net.round(constant, "half at odd L: false")
            tree_fold(net, col, 1, *combine, f"{atom.kind} fold")
            return
        i_of, j_of = pr                # position p(i) sends its token to i's machine
        dest_of = np.full(net.M * b, -1, dtype=np.int64)
        first_of = np.full(net.M * b, -1, dtype=np.int64)
        dest_of[j_of] = i_of // b
        first_of[j_of] = i_of

        def send(ids, mem, inbox):
            tok, pos, live, idx = held(ids, mem)
            flat = np.minimum(pos, len(dest_of) - 1)
            d = np.where(live, dest_of[flat], -1)
            data = np.stack([np.where(d >= 0, first_of[flat], 0), np.where(d >= 0, tok, 0)], -1)
            return Step(mem, d, data)

        def local(ids, mem, inbox):
            if inbox.data.shape[-2] == 0:      # no pair at this length: an empty range
                return value(mem, np.full(ids.shape, every))
            ok = inbox.valid
            i = np.where(ok, inbox.data[..., 0] - ids[..., None] * b, 0)
            mine = np.take_along_axis(mem[..., :b], np.clip(i, 0, b - 1), axis=-1)
            a, c = _index(lut, mine), _index(lut, np.where(ok, inbox.data[..., 1], FILL))
            t = table[np.where(a >= 0, a, k), np.where(c >= 0, c, k)]
            return value(mem, np.all(~ok | t, -1) if every else np.any(ok & t, -1))
        net.round(send, f"{atom.kind}: partners to the machine of i")
        net.round(local, f"{atom.kind}: local pair tests")
        tree_fold(net, col, 1, *combine, f"{atom.kind} fold")
        return

    if atom.kind == "before":
        BIG = np.int64(1) << 40
        rel = table[:k, :k] if not every else ~table[:k, :k]

        def local(ids, mem, inbox):
            tok, pos, live, idx = held(ids, mem)
            onehot = live[..., None] & (idx[..., None] == np.arange(k))
            lo = np.where(onehot, pos[..., None], BIG).min(axis=-2)
            hi = np.where(onehot, pos[..., None], -1).max(axis=-2)
            return Step(put(mem, scratch, np.concatenate([lo, hi], -1)))

        def merge(x, y):
            return np.concatenate([np.minimum(x[..., :k], y[..., :k]),
                                   np.maximum(x[..., k:], y[..., k:])], -1)

        def test(ids, mem, inbox):
            lo, hi = mem[..., scratch:scratch + k], mem[..., scratch + k:scratch + 2 * k]
            some = np.any(rel & (lo[..., :, None] < hi[..., None, :]), axis=(-2, -1))
            return value(mem, ~some if every else some)
        net.round(local, "before: first and last positions")
        tree_fold(net, scratch, 2 * k, merge, [BIG] * k + [-1] * k, "before: min/max fold")
        net.round(test, "before: test on machine 0")
        return

    if atom.kind == "count":
        left = np.array([a in atom.left for a in range(k)])
        right = np.array([a in atom.right for a in range(k)])

        def local(ids, mem, inbox):
            tok, pos, live, idx = held(ids, mem)
            counts = (live[..., None] & (idx[..., None] == np.arange(k))).sum(axis=-2)
            return Step(put(mem, scratch, counts))

        def test(ids, mem, inbox):
            c = mem[..., scratch:scratch + k]
            s, t = (c * left).sum(-1), (c * right).sum(-1)
            v = {">": s > t, ">=": s >= t, "=": s == t, "!=": s != t}[atom.op]
            return value(mem, v)
        net.round(local, "count: local counts")
        tree_fold(net, scratch, k, np.add, [0] * k, "count: sum fold")
        net.round(test, "count: compare on machine 0")
        return
    raise ValueError(atom.kind)


def formula_program(formula, letters: tuple[str, ...]):
    """``program(net, task)`` evaluating ``formula`` (letters named by token strings)."""
    def program(net: Network, task) -> None:
        lut = _letters(task, letters)
        k, b, m = len(letters), net.block, len(formula.atoms)
        for j, atom in enumerate(formula.atoms):
            _atom(net, atom, lut, k, b + j, b + m)

        def finish(ids, mem, inbox):
            vals = mem[..., b:b + m] == 1
            v = vals.all(-1) if formula.join != "or" else vals.any(-1)
            return Step(put(mem, 0, v.astype(np.int64)[..., None]))
        net.round(finish, "combine the atoms on machine 0")
    program.__name__ = program.__qualname__ = "template_formula"
    return program


__all__ = ["formula_program"]
