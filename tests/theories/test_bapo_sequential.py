"""BAPO protocols for khop, dyck_bounded and dyck; the Majority -> reach_undirected reduction."""

import networkx as nx
import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.bapo import Protocol, verify
from theorybench.formal.bapo.hardness import counting_graph, majority_to_reach
from theorybench.formal.bapo.khop import khop_protocol
from theorybench.formal.bapo.library import protocols_for
from theorybench.formal.bapo.sequential import automaton_protocol, stack_protocol
from theorybench.theories.base import Basis, Context, Status, Verdict
from theorybench.formal.communication import one_way_cc
from theorybench.formal.mpc.dyck import dyck_automaton
from theorybench.theories.registry import theory


def df_of(name, **kw):
    return tasks.get(name, **kw).decision_view()[0]


@pytest.mark.parametrize("K,A,n", [(1, 4, 8), (2, 3, 9), (3, 2, 10), (2, 4, 6)])
def test_khop_protocol_verifies_exhaustively(K, A, n):
    df = df_of("khop", n=n, k=K, alphabet=A)
    p = khop_protocol(n, K, A)
    r = verify(p, df, max_inputs=1 << 17)
    assert r.ok and r.inputs_mode == "exhaustive", r.failure
    assert p.a == int(np.ceil(np.log2(A))) + A * K * int(np.ceil(np.log2(A + 1))) and p.b == 0


def test_khop_protocol_needs_the_last_prefix_symbol():
    good = khop_protocol(7, 2, 3)

    def f(prefix):  # forget x_(s-1): send symbol 0 instead
        bits = good.f(prefix).copy()
        bits[:, :2] = 0
        return bits

    broken = Protocol("no-last", good.a, 0, f=f, h=good.h)
    r = verify(broken, df_of("khop", n=7, k=2, alphabet=3))
    assert not r.ok and r.failure["expected"] != r.failure["got"]


def test_dyck_bounded_automaton_protocols():
    for k, D in [(1, 2), (2, 2), (1, 3)]:
        delta, start, acc = dyck_automaton(k, D)
        p = automaton_protocol(delta, start, acc, np.arange(2 * k), "stack")
        assert p.a == int(np.ceil(np.log2(len(delta))))
        for n in (2, 6, 8):
            assert verify(p, df_of("dyck_bounded", n=n, k=k, D=D)).ok
    names = [p.name for p in protocols_for(df_of("dyck_bounded", n=8))]
    assert names[0] == "stack-automaton" and "learned-dfa" in names
    for p in protocols_for(df_of("dyck_bounded", n=8)):
        assert verify(p, df_of("dyck_bounded", n=8)).ok, p.name


def test_stack_protocol_matches_exact_b0_bandwidth():
    for k, ns in [(1, (2, 4, 8, 12)), (2, (2, 4, 6, 8)), (3, (2, 4, 6))]:
        for n in ns:
            df = df_of("dyck", n=n, k=k)
            p = stack_protocol(n, k)
            assert verify(p, df).ok, (k, n)
            assert p.a == one_way_cc(df)[0], (k, n)


def test_counting_graph_components_are_paths():
    rng = np.random.default_rng(0)
    n = 9
    x = rng.integers(0, 2, size=(20, n))
    u, w, s, T, V = counting_graph(x, n)
    for r in range(len(x)):
        g = nx.Graph()
        g.add_nodes_from(range(V))
        g.add_edges_from(zip(u[r].tolist(), w[r].tolist()))
        end = n * (n + 1) // 2 + int(x[r].sum())
        assert nx.has_path(g, s, end)
        assert nx.has_path(g, s, T) == (2 * x[r].sum() > n)


def test_majority_to_reach_is_a_checked_monotone_projection():
    chk = majority_to_reach().check([3, 5, 7])
    assert chk.ok and chk.is_projection
    dep = [d for d in chk.by_n[-1].dependency if d >= 0]
    assert dep == sorted(dep) and len(set(dep)) == 7


def test_bapo_rules_on_new_families():
    ctx = Context()
    p = theory("bapo").predict("khop", ctx)
    assert p.verdict == Verdict.EASY and p.evidence["a"] == 14 and p.evidence["b"] == 0
    p = theory("bapo").predict("dyck_bounded", ctx)
    assert p.verdict == Verdict.EASY and p.evidence["protocol"] == "stack-automaton"
    p = theory("bapo").predict("dyck", ctx)  # settled only by its claim (EXACT-HALF, checked)
    assert p.verdict == Verdict.HARD and p.rule == "checked claim of proofs/"
    assert p.evidence["claim"] == "bapo-dyck" and p.status == Status.VERIFIED
    assert "condition" not in p.evidence
    p = theory("bapo").predict("reach_undirected", ctx)
    assert p.verdict == Verdict.HARD and p.basis == Basis.REDUCTION
    assert "counting graph" in p.evidence["reduction"]
