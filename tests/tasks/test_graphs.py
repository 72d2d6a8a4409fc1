"""Tests of the graph tasks (edge_exists, reach_directed, reach_undirected): labels against
networkx, the structure the generators promise, counts over all inputs, parsing, bad input."""

from __future__ import annotations

import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorybench import tasks
from theorybench.cli.main import main
from theorybench.errors import EnumerationTooLarge, TaskInputError, TaskParameterError
from theorybench.tasks.graphs.common import random_subsets, reachable

GRAPHS = ("edge_exists", "reach_directed", "reach_undirected")


def _cases():
    for name in GRAPHS:
        for n in (2, 4, 10, 24):
            for dist in tasks.family(name).distributions:
                if dist == "cycles" and n < 6:
                    continue
                yield name, n, {}, dist
    yield "edge_exists", 7, {"directed": True}, "balanced"
    yield "edge_exists", 30, {"directed": True, "nodes": 40}, "balanced"
    yield "edge_exists", 2, {"nodes": 3}, "balanced"          # M = n + 1: one non-edge
    yield "reach_directed", 8, {"nodes": 25}, "paths"
    yield "reach_undirected", 12, {"nodes": 30}, "random"
    yield "reach_undirected", 40, {}, "cycles"


@pytest.mark.parametrize("name,n,params,dist", list(_cases()))
def test_label_equals_networkx_oracle(name, n, params, dist):
    task = tasks.get(name, n=n, **params)
    batch = task.sample(np.random.default_rng(n), 600, dist)
    assert batch.tokens.shape == (600, task.input_length())
    assert np.array_equal(batch.labels, task.label(batch.tokens))
    assert np.array_equal(batch.labels, task.oracle(batch.tokens))
    assert task.pad_id is None and np.all(batch.lengths == task.input_length())
    if dist != "uniform":
        assert abs(int(batch.labels.sum()) - 300) <= 1        # exactly balanced


def _graph(task, row):
    sep = ">" if task.directed else "-"
    g = nx.DiGraph() if task.directed else nx.Graph()
    edges = [tuple(task.vocab[t].split(sep)) for t in row[: task.n]]
    g.add_edges_from(edges)
    return g, edges


@pytest.mark.parametrize("name", ["reach_directed", "reach_undirected"])
@pytest.mark.parametrize("n", [2, 6, 16])
def test_paths_generator_structure(name, n):
    task = tasks.get(name, n=n)
    batch = task.sample(np.random.default_rng(1), 300)
    for row, y in zip(batch.tokens.tolist(), batch.labels.tolist()):
        g, edges = _graph(task, row)
        assert len(set(edges)) == n and g.number_of_nodes() == n + 2
        comps = list(nx.weakly_connected_components(g) if task.directed
                     else nx.connected_components(g))
        assert sorted(len(c) for c in comps) == [n // 2 + 1, n // 2 + 1]
        for c in comps:                       # each component is a path of n/2 edges
            h = g.subgraph(c)
            assert h.number_of_edges() == n // 2
            if task.directed:
                assert nx.is_directed_acyclic_graph(h)
                assert max(d for _, d in h.out_degree()) <= 1
            else:
                assert nx.is_tree(h) and max(d for _, d in h.degree()) <= 2
        s, t = task.vocab[row[n + 1]], task.vocab[row[n + 2]]
        same = any(s in c and t in c for c in comps)
        assert s != t and same == bool(y)     # positives on one path, negatives across


@pytest.mark.parametrize("n", [6, 10, 20])
def test_cycles_generator_structure(n):
    task = tasks.get("reach_undirected", n=n)
    batch = task.sample(np.random.default_rng(2), 300, "cycles")
    for row, y in zip(batch.tokens.tolist(), batch.labels.tolist()):
        g, edges = _graph(task, row)
        assert len(set(edges)) == n and all(d == 2 for _, d in g.degree())
        sizes = sorted(len(c) for c in nx.connected_components(g))
        assert sizes == ([n] if y else [n // 2, n // 2])
        s, t = task.vocab[row[n + 1]], task.vocab[row[n + 2]]
        if y:   # antipodal on the single cycle
            assert nx.shortest_path_length(g, s, t) == n // 2


@pytest.mark.parametrize("directed", [False, True])
def test_edge_exists_balanced_generator(directed):
    task = tasks.get("edge_exists", n=12, directed=directed)
    batch = task.sample(np.random.default_rng(3), 2000)
    edges = batch.tokens[:, :12]
    assert all(len(set(r)) == 12 for r in edges.tolist())     # n distinct edges
    query = batch.tokens[:, 13]
    assert np.array_equal((edges == query[:, None]).any(axis=1), batch.labels == 1)
    # the present query is uniform over the list positions
    hits = np.argmax(edges == query[:, None], axis=1)[batch.labels == 1]
    assert np.bincount(hits, minlength=12).min() > 40


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("directed", [False, True])
def test_edge_exists_enumeration_counts(n, directed):
    task = tasks.get("edge_exists", n=n, directed=directed)
    M = task.M
    x = task.enumerate()
    assert x.shape == (M ** (n + 1), n + 2)
    y = task.label(x)
    assert np.array_equal(y, task.oracle(x))
    assert int(y.sum()) == M ** (n + 1) - M * (M - 1) ** n   # q among n draws


@pytest.mark.parametrize("name", ["reach_directed", "reach_undirected"])
def test_reach_enumeration_against_oracle(name):
    task = tasks.get(name, n=2)
    x = task.enumerate()
    V, M = task.V, task.M
    assert x.shape == (M ** 2 * V ** 2, 5)
    y = task.label(x)
    assert np.array_equal(y, task.oracle(x))
    # s = t is reachable for every edge list; V * M^2 such inputs
    assert int(y[x[:, 3] == x[:, 4]].sum()) == V * M ** 2
    # s != t (V(V-1) ordered pairs): the 2M - 1 two-edge lists holding the edge st, plus
    # the paths s-u-t through one of the V - 2 other nodes, listed in either order
    assert int(y.sum()) == V * (V - 1) * (2 * M - 1 + 2 * (V - 2)) + V * M ** 2
    assert int(y.sum()) == (900 if task.directed else 324)


@pytest.mark.parametrize("name", GRAPHS)
def test_analysis_sizes_fit_enumeration(name):
    for n in tasks.family(name).analysis_ns:
        assert tasks.get(name, n=n).decision_view()[0].space_size() <= 1 << 22


def test_enumerate_too_large_gives_advice():
    with pytest.raises(EnumerationTooLarge, match="use sample"):
        tasks.get("reach_directed", n=6).enumerate()


@pytest.mark.parametrize("name", GRAPHS)
def test_decision_view(name):
    task = tasks.get(name, n=4)
    view = task.decision_view()[0]
    edges = tuple(range(task.V, task.V + task.M))
    assert view.choices[:4] == (edges,) * 4
    assert view.choices[4] == (task.index["?"],)
    if name == "edge_exists":
        assert view.choices[5:] == (edges,)
    else:
        assert view.choices[5:] == (tuple(range(task.V)),) * 2
    x = view.sample(np.random.default_rng(0), 200)
    assert np.array_equal(view.evaluate(x), task.oracle(x))


def test_vocabulary_layout():
    t = tasks.get("reach_directed", n=2)
    assert t.vocab[:4] == ("v1", "v2", "v3", "v4") and t.vocab[-1] == "?"
    assert t.vocab[4:7] == ("v1>v2", "v1>v3", "v1>v4") and len(t.vocab) == 4 + 12 + 1
    u = tasks.get("reach_undirected", n=2)
    assert u.vocab[4:10] == ("v1-v2", "v1-v3", "v1-v4", "v2-v3", "v2-v4", "v3-v4")
    e = tasks.get("edge_exists", n=256)
    assert e.V == 33 and e.M >= 512                           # smallest V with M >= 2n


def test_reachable_against_networkx_on_dense_random_graphs():
    rng = np.random.default_rng(4)
    for directed in (False, True):
        V, n, count = 9, 12, 400
        src = rng.integers(0, V, size=(count, n))
        dst = rng.integers(0, V, size=(count, n))
        s, t = rng.integers(0, V, size=count), rng.integers(0, V, size=count)
        got = reachable(src, dst, s, t, V, directed)
        for r in range(count):
            g = nx.DiGraph() if directed else nx.Graph()
            g.add_nodes_from(range(V))
            g.add_edges_from(zip(src[r].tolist(), dst[r].tolist()))
            assert got[r] == nx.has_path(g, int(s[r]), int(t[r]))


def test_random_subsets_uniform():
    x = random_subsets(np.random.default_rng(5), 120000, 5, 2, extra=1)
    assert all(len(set(r)) == 3 for r in x[:2000].tolist())
    codes = x[:, 0] * 25 + x[:, 1] * 5 + x[:, 2]
    counts = np.bincount(codes, minlength=125)
    used = counts[counts > 0]
    assert len(used) == 60                       # ordered triples of distinct elements
    assert np.abs(used - 2000).max() < 6 * np.sqrt(2000)
    # the sparse method (universe >= 8 * take): draw with replacement, redraw repeats
    y = random_subsets(np.random.default_rng(6), 120000, 16, 1, extra=1)
    assert np.all(y[:, 0] != y[:, 1])
    counts = np.bincount(y[:, 0] * 16 + y[:, 1], minlength=256)
    used = counts[counts > 0]
    assert len(used) == 240 and np.abs(used - 500).max() < 6 * np.sqrt(500)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["reach_directed", "reach_undirected"]), st.integers(1, 4), st.data())
def test_render_parse_label_property(name, half, data):
    n = 2 * half
    task = tasks.get(name, n=n)
    V = task.V
    node = st.integers(1, V)
    pairs = data.draw(st.lists(st.tuples(node, node).filter(lambda p: p[0] != p[1]),
                               min_size=n, max_size=n))
    s, t = data.draw(node), data.draw(node)
    sep = ">" if task.directed else "-"
    text = " ".join(f"v{min(a, b) if not task.directed else a}{sep}"
                    f"v{max(a, b) if not task.directed else b}" for a, b in pairs)
    text += f" ? v{s} v{t}"
    row = task.parse(text)
    assert task.render(row) == text
    g = nx.DiGraph() if task.directed else nx.Graph()
    g.add_nodes_from(range(1, V + 1))
    g.add_edges_from(pairs)
    assert task.label(row[None])[0] == int(nx.has_path(g, s, t))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(0, 80), st.booleans())
def test_edge_exists_parameters_property(n, nodes, directed):
    need = 2
    while (need * (need - 1) // (1 if directed else 2)) < n + 1:
        need += 1
    if nodes and nodes < need:
        with pytest.raises(TaskParameterError, match=f"nodes={nodes}"):
            tasks.get("edge_exists", n=n, nodes=nodes, directed=directed)
        return
    t = tasks.get("edge_exists", n=n, nodes=nodes, directed=directed)
    assert t.M >= n + 1 and (nodes == 0 or t.V == nodes)
    assert len(t.vocab) == t.V + t.M + 1


@pytest.mark.parametrize("name,params,match", [
    ("reach_directed", {"n": 5}, "n=5 is odd.*even n >= 2"),
    ("reach_undirected", {"n": 1}, "n=1"),
    ("reach_directed", {"n": 0}, "n=0"),
    ("reach_directed", {"n": 4, "nodes": 5}, "nodes=5 is too small.*>= 6"),
    ("edge_exists", {"n": 0}, "n=0"),
    ("edge_exists", {"n": 10, "nodes": 4}, "nodes=4 is too small"),
    ("edge_exists", {"n": 4, "directed": "maybe"}, "directed='maybe'"),
    ("reach_undirected", {"n": 4, "nodes": 2000}, "nodes=2000 is too large"),
])
def test_bad_parameters(name, params, match):
    with pytest.raises(TaskParameterError, match=match):
        tasks.get(name, **params)


def test_cycles_needs_six_edges():
    with pytest.raises(TaskParameterError, match="cycles.*n >= 6.*n=4"):
        tasks.get("reach_undirected", n=4).sample(np.random.default_rng(0), 5, "cycles")
    with pytest.raises(TaskParameterError, match="distribution 'cycles' is not offered"):
        tasks.get("reach_directed", n=8).sample(np.random.default_rng(0), 5, "cycles")


@pytest.mark.parametrize("name,text,match", [
    ("reach_directed", "v1>v2 v2>v3 ? v1", "expects 5 tokens"),
    ("reach_directed", "v1>v2 v2 ? v1 v3", "token 2 .*must be edge tokens"),
    ("reach_directed", "v1>v2 v2>v3 v1 v1 v3", "token 3 .*query marker"),
    ("reach_directed", "v1>v2 v2>v3 ? v1>v2 v3", "two node tokens"),
    ("reach_directed", "v1>v2 v2>v9 ? v1 v3", "'v2>v9' is not in the vocabulary"),
    ("reach_undirected", "v2-v1 v2-v3 ? v1 v3", "'v2-v1' is not in the vocabulary"),
    ("edge_exists", "v1-v2 v2-v3 ? v1", "query of edge_exists must be an edge token"),
])
def test_bad_instances(name, text, match):
    with pytest.raises(TaskInputError, match=match):
        tasks.get(name, n=2).parse(text)


def test_label_rejects_malformed_token_rows():
    t = tasks.get("reach_directed", n=2)
    with pytest.raises(TaskInputError, match="not a valid reach_directed input"):
        t.label(np.zeros((1, 5), dtype=np.int64))


def test_cli_label_and_bad_input(capsys):
    assert main(["label", "reach_directed", "--n", "2", "v1>v2 v2>v3 ? v1 v3"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    base = [sys.executable, "-m", "theorybench.cli.main", "label", "reach_directed"]
    bad = subprocess.run(base + ["--n", "3", "v1>v2 v2>v3 v3>v4 ? v1 v3"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert "n=3 is odd" in bad.stderr and "Traceback" not in bad.stderr
