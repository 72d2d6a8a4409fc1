"""SAT frontier: exact keys at large b, every SAT/UNSAT answer cross-checked by brute force
at tiny sizes, a flat frontier past the largest split, and a time limit for the whole
search."""

import itertools
import math
import time

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.bapo.cnf import set_keys
from theorybench.formal.bapo.frontier import (MAX_FRONTIER_ROWS, frontier, saturation_b,
                                              solve_point, solve_split)


def df_of(name, **kw):
    return tasks.get(name, **kw).decision_view()[0]


def test_large_b_is_not_a_false_unsat():
    # parity at n = 4 needs no bits once every token can arrive (b >= 3); at b >= 33 the
    # old int64 key of arriving sets wrapped, sets collided and z3 answered UNSAT
    df = df_of("parity", n=4)
    assert [solve_split(df, k, 0, 33).status for k in range(1, df.length)] == ["sat"] * 3
    assert solve_point(df, 0, 40).status == "sat"  # verified inside
    fr = frontier(df, 3, 40)
    assert all(fr.min_a[b] == 0 and fr.status[b] == "exact" for b in range(3, 41))
    assert fr.min_a[0] == fr.min_a[2] == 1


def test_set_keys_are_exact_beyond_int64():
    # k = 40 binary positions: keys reach 2^80, so they must be Python ints and distinct
    rng = np.random.default_rng(0)
    k, c = 40, 30
    pos = np.sort(np.stack([rng.choice(k, size=c, replace=False) for _ in range(500)]), axis=1)
    tok = rng.integers(0, 2, size=pos.shape)
    pos[::7, -5:] = -1  # padding
    keys = set_keys(k, [2] * k, pos, tok)
    assert keys.dtype == object and max(keys) >= 1 << 63
    sets = {tuple((int(p), int(t)) for p, t in zip(pr, tr) if p >= 0) for pr, tr in zip(pos, tok)}
    assert len(set(keys.tolist())) == len(sets)


# ---- independent check: brute force over the selection oracle g -----------------------
def _colourable(nodes, edges, colours):
    """Can ``nodes`` be coloured with ``colours`` colours so that no edge is monochrome?"""
    colour = {}
    adj = {v: set() for v in nodes}
    for u, v in edges:
        adj[u].add(v)
        adj[v].add(u)

    def go(i):
        if i == len(nodes):
            return True
        v = nodes[i]
        for c in range(colours):
            if all(colour.get(u) != c for u in adj[v]):
                colour[v] = c
                if go(i + 1):
                    return True
                del colour[v]
        return False

    return go(0)


def _brute_min_a(df, k, b, max_a):
    """Smallest a <= max_a for which an (a, b)-BAPO exists at split k, found without the
    CNF: for every selection table g, prefixes p, p' must get different messages iff some
    suffix s gives (p, s) and (p', s) different outputs while the adversary can deliver the
    same arriving set to both; h then exists by construction. None if above max_a."""
    X = df.enumerate()
    y = np.asarray(df.evaluate(X)).tolist()
    rows = [tuple(r) for r in X.tolist()]
    idx = [{t: j for j, t in enumerate(c)} for c in df.choices]
    prefixes = sorted({r[:k] for r in rows})
    suffixes = sorted({r[k:] for r in rows})
    slots = [(s, i, v) for s in suffixes for i in range(k) for v in range(len(df.choices[i]))]
    best = None
    for bits in itertools.product((0, 1), repeat=len(slots)):
        g = dict(zip(slots, bits))
        arriving = {}
        for r, out in zip(rows, y):
            p, s = r[:k], r[k:]
            sel = [i for i in range(k) if g[(s, i, idx[i][p[i]])]]
            legal = [sel] if len(sel) <= b else list(itertools.combinations(sel, b))
            for G in legal:
                arriving.setdefault((s, tuple((i, p[i]) for i in G)), {}).setdefault(out, set()).add(p)
        edges = set()
        for by_out in arriving.values():
            for o1, o2 in itertools.combinations(sorted(by_out), 2):
                edges |= {(u, v) for u in by_out[o1] for v in by_out[o2]}
        for a in range(0, (max_a if best is None else best - 1) + 1):
            if _colourable(prefixes, edges, 2 ** a):
                best = a
                break
        if best == 0:
            break
    return best


CASES = [("parity", dict(n=3)), ("majority", dict(n=3)), ("index", dict(n=2)),
         ("binary_add", dict(n=1))]


@pytest.mark.parametrize("name,kw", CASES)
def test_every_frontier_answer_matches_brute_force(name, kw):
    df = df_of(name, **kw)
    max_a, max_b = 2, df.length
    for b in [*range(max_b + 1), 40]:  # b = 40 gives keys past int64 in the old encoding
        for k in range(1, df.length):
            truth = _brute_min_a(df, k, b, max_a)
            for a in range(max_a + 1):
                st = solve_split(df, k, a, b).status
                expect = "sat" if truth is not None and a >= truth else "unsat"
                assert st == expect, (name, k, a, b, st, truth)
    fr = frontier(df, max_a, max_b)
    for b in range(max_b + 1):
        truths = [_brute_min_a(df, k, b, max_a) for k in range(1, df.length)]
        want = None if None in truths else max(truths)
        assert fr.min_a[b] == want, (name, b)
        assert fr.status[b] == ("exact" if want is not None else "above max_a")


def test_huge_bounds_are_summarised():
    df = df_of("parity", n=4)
    fr = frontier(df, 10 ** 6, 10 ** 9, timeout_s=60)
    assert len(fr.min_a) == MAX_FRONTIER_ROWS and saturation_b(df) == 3
    assert fr.note and "1000000000" in fr.note.replace(",", "")
    assert fr.pareto() == [(1, 0), (0, 3)]


def test_time_limit_bounds_the_whole_search():
    df = df_of("parity", n=12)
    t0 = time.perf_counter()
    fr = frontier(df, 3, 6, timeout_s=2.0)
    took = time.perf_counter() - t0
    assert "time limit" in fr.status.values()
    assert took < 2.0 + 10  # one z3 parse past the limit at most, never the whole search


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0.0, -1.0])
def test_timeout_must_be_finite_positive(bad):
    from theorybench.errors import TaskParameterError
    with pytest.raises(TaskParameterError, match="finite"):
        frontier(df_of("parity", n=3), 1, 1, timeout_s=bad)


def test_cli_frontier_caps_rows(cli, capsys):
    rc, out, err = cli("bapo", "frontier", "parity", "--n", "4", "--max-b", "1000000")
    assert rc == 0 and out.count("exact") == MAX_FRONTIER_ROWS and "not listed" in err
    assert math.isfinite(len(out))
