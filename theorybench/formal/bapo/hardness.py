"""BAPO-hard source problems and split-preserving reductions from them into task families.

Schnabel et al. (NeurIPS 2025, arXiv 2505.08140) prove Reachability (no
(o(m^(1/c) log m), o(m^(1-2/c)))-BAPO for graphs with m = Omega(nodes) edges, any integer
c >= 3; the instance is the edge list followed by s and t), Majority (no
(o(log n), o(n^(1-eps)))-BAPO for any 0 < eps < 1) and Match3 BAPO-hard (cited: the
theorem numbers could not be checked against the paper with the search tool, so none are
given). A reduction transfers that only if it keeps prefixes and suffixes
aligned: here a monotone projection (every output token a constant or a function of one
input token, the input positions in non-decreasing order), so that the image of a split
of the source is a split of the target. Then an (a, b)-BAPO for the target yields an
(a, b)-BAPO for the source, whatever the fan-out:

* f' = f on the image of the prefix (it depends on the prefix only);
* g' selects x_i iff g selects one of x_i's images (g' can compute them and the target
  suffix from x_i, i and the source suffix);
* h' rebuilds, from the delivered source tokens, their selected images, adds the
  selected constant tokens of the target prefix, and hands any b of these to h (all of
  them if fewer). Each delivered source token has a selected image, so when the source
  adversary delivers b tokens there are at least b; when it delivers all selected ones
  h' has every selected target token. Either way that is a legal adversarial choice
  for the target protocol, so h answers correctly.

A polynomial blow-up of the length does not matter: a constant (a, b) for the target at
every length would give one for the source. The theory checks label preservation and
the projection/monotonicity property with
:class:`~theorybench.formal.reductions.Reduction` before using one.

Majority -> reach_undirected (:func:`majority_to_reach`), the counting graph: nodes
(i, c) for 0 <= c <= i <= n, for every bit i and count c an edge
{(i-1, c), (i, c + x_i)} (i + 1 edges, each a function of x_i alone, in order of i),
then the constant edges {(n, c), T} for c > n/2 and the query (s, t) = ((0, 0), T).
Every node has at most one edge to the next layer and one from the previous, so the
components of the layered part are paths through the layers; the path of (0, 0) ends
at (n, #ones), and T joins only ends of paths, so (0, 0) and T are connected iff
#ones > n/2. (n + 1)^2 / 2 edges (even for odd n) over (n+1)(n+2)/2 + 1 nodes.
"""

from __future__ import annotations

import functools

import numpy as np

from ... import tasks
from ...errors import TheorybenchError
from ...tasks import TaskRef
from ...tasks.digest import task_identity
from .. import reductions as R


def majority_problem() -> "R.Problem":
    """Majority on {0,1}^n, n odd: [number of ones > n/2] (defined here, not by a task)."""
    return R.Problem(
        name="majority (BAPO-hard)",
        fn=lambda x, n: (2 * np.asarray(x).sum(axis=1) > n).astype(np.int64),
        choices=lambda n: [(0, 1)] * n,
        doc="Majority; BAPO-hard by Schnabel et al. (NeurIPS 2025; cited)")


def reachability_problem(directed: bool = True) -> "R.Problem":
    """s-t reachability on an edge list "e_1 .. e_n ? s t" (labels by boolean closure).

    The token space is the reach task's (so the reduction is the identity); the label is
    recomputed here from the token strings by repeated squaring of the adjacency
    matrix, independently of the task's own reference.
    """
    fam = "reach_directed" if directed else "reach_undirected"

    def task(n):
        return tasks.get(fam, n=n)

    def fn(x, n):
        t = task(n)
        x = np.asarray(x, dtype=np.int64)
        V = t.V
        node = {tok: int(tok[1:]) - 1 for tok in t.vocab if tok.startswith("v") and tok[1:].isdigit()}
        sep = ">" if directed else "-"
        ends = np.full((len(t.vocab), 2), -1, dtype=np.int64)
        for i, tok in enumerate(t.vocab):
            if sep in tok:
                u, v = tok.split(sep)
                ends[i] = (int(u[1:]) - 1, int(v[1:]) - 1)
        B = len(x)
        adj = np.zeros((B, V, V), dtype=bool)
        e = ends[x[:, :n]]
        rows = np.repeat(np.arange(B), n)
        adj[rows, e[:, :, 0].ravel(), e[:, :, 1].ravel()] = True
        if not directed:
            adj |= adj.transpose(0, 2, 1)
        reach = adj | np.eye(V, dtype=bool)[None]
        for _ in range(max(1, int(np.ceil(np.log2(V))) + 1)):
            reach = reach | (np.einsum("bij,bjk->bik", reach.astype(np.int64),
                                       reach.astype(np.int64)) > 0)
        s = np.array([node[t.vocab[v]] for v in x[:, n + 1]])
        tt = np.array([node[t.vocab[v]] for v in x[:, n + 2]])
        return reach[np.arange(B), s, tt].astype(np.int64)

    return R.Problem(
        name=f"{'directed' if directed else 'undirected'} reachability (BAPO-hard)",
        fn=fn, choices=lambda n: task(n).decision_view()[0].choices,
        enumerate=lambda n: task(n).decision_view()[0].enumerate(),
        valid=lambda x, n: (task(n).decision_view()[0].valid or (lambda y: np.ones(len(y), bool)))(x),
        sample=lambda rng, n, count: task(n).decision_view()[0].sample(rng, count),
        doc="graph reachability; BAPO-hard by Schnabel et al. (NeurIPS 2025; cited)")


def counting_graph(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """Edges (u, w) (batch, E) of the counting graph of the rows ``x``, 0-based nodes,
    with the query (s, t) and the node count V (see the module docstring)."""
    x = np.asarray(x, dtype=np.int64)
    layer = [(i, c) for i in range(1, n + 1) for c in range(i)]
    li = np.array([i for i, _ in layer], dtype=np.int64)
    lc = np.array([c for _, c in layer], dtype=np.int64)

    def node(i, c):
        return i * (i + 1) // 2 + c

    T = (n + 1) * (n + 2) // 2
    u = np.broadcast_to(node(li - 1, lc), (len(x), len(layer)))
    w = node(li, lc + x[:, li - 1])
    top = np.arange(n // 2 + 1, n + 1)
    u = np.concatenate([u, np.broadcast_to(node(n, top), (len(x), len(top)))], axis=1)
    w = np.concatenate([w, np.full((len(x), len(top)), T, dtype=np.int64)], axis=1)
    return u, w, node(0, 0), T, T + 1


def majority_to_reach(directed: bool = False, family: str | None = None) -> "R.Reduction":
    """Majority -> reach_undirected (or reach_directed) by the counting graph; ``family``:
    another family with the same edge-list instances (checked by the caller)."""
    fam = family or ("reach_directed" if directed else "reach_undirected")

    def params(n):
        E = (n + 1) ** 2 // 2
        return {"n": E, "nodes": (n + 1) * (n + 2) // 2 + 1}

    def map_(x, n):
        t = tasks.get(fam, **params(n))
        u, w, s, T, _ = counting_graph(x, n)
        B = len(x)
        q = np.broadcast_to(np.array([t.query_id, s, T], dtype=np.int64), (B, 3))
        return np.concatenate([t.edge_ids(u, w), q], axis=1)

    return R.Reduction(
        name=f"majority -> {fam} (counting graph)", source=majority_problem(),
        target_family=fam, target_params=params, map=map_, kind="projection",
        doc="edges {(i-1, c), (i, c + x_i)} in order of i, then {(n, c), T} for c > n/2; "
            "query ((0, 0), T)")


#: The BAPO-hardness results of Majority and Reachability (Schnabel et al., NeurIPS 2025)
#: are cited without a theorem number, so a cell resting on them is "cited", whatever was
#: checked about the map.
HARDNESS_SOURCE = "Schnabel et al., NeurIPS 2025 (BAPO-hardness of Majority and Reachability)"
HARDNESS_THEOREM_NUMBERED = False
#: Largest instance space on which :func:`computes` compares a task with a problem on
#: every instance; above it, on MATCH_SAMPLES instances of the problem's own sampler
#: (seed 0).
MATCH_LIMIT = 1 << 12
MATCH_SAMPLES = 2000


def computes(family: str, problem: "R.Problem", ns) -> bool:
    """Whether the task ``family``'s main decision function is ``problem`` at every n of
    ``ns``: the same instance space (token choices per position) and the same label on
    every instance (all of them up to MATCH_LIMIT, else MATCH_SAMPLES sampled ones). A
    task that does not build at one of the n does not match. This, not the task's name,
    decides which hardness reductions are offered for it."""
    return _computes(str(family), _digest(family), problem.name, tuple(ns))


def _digest(family: str) -> str:
    ref = TaskRef.of(family)
    return task_identity(ref.family, dict(ref.params))["digest"]


#: problem name -> the problem, for the cache of :func:`_computes` (keyed by name)
_PROBLEMS: dict[str, "R.Problem"] = {}


@functools.lru_cache(maxsize=256)
def _computes(family: str, digest: str, problem: str, ns: tuple[int, ...]) -> bool:
    prob = _PROBLEMS[problem]
    ref = TaskRef.of(family)
    for n in ns:
        try:
            if not ref.variant().accepts(n=n):
                return False
            task = ref.build(n=n)
            if task.output != "final":
                return False
            df = task.decision_view()[0]
            want = [tuple(c) for c in prob.choices(n)]
            if [tuple(c) for c in df.choices] != want:
                return False
            x = (prob.instances(n, MATCH_LIMIT) if df.space_size() <= MATCH_LIMIT else
                 prob.draw(np.random.default_rng(0), n, MATCH_SAMPLES))
            if df.valid is not None and not np.asarray(df.valid(x), dtype=bool).all():
                return False
            got = np.asarray(df.evaluate(x)).reshape(len(x)).astype(np.int64)
        except TheorybenchError:
            return False
        if not np.array_equal(got, prob.label(x, n).astype(np.int64)):
            return False
    return True


def _problem(p: "R.Problem") -> "R.Problem":
    _PROBLEMS[p.name] = p
    return p


def reductions_into(family: str) -> list[tuple["R.Reduction", str, list[int]]]:
    """Candidate (reduction, why the source is hard, the n to check it at) into ``family``,
    offered where the task's function is checked to be the source problem (or, for the
    counting graph, undirected reachability) - never by the task's name."""
    out = []
    maj = _problem(majority_problem())
    if computes(family, maj, (3, 5, 7)):
        red = R.Reduction(
            name=f"majority -> {family} (identity)", source=maj,
            target_family=str(family), target_params=lambda n: {"n": n},
            map=lambda x, n: x, kind="projection",
            doc="the task's decision function is Majority itself")
        out.append((red, "Majority is BAPO-hard (Schnabel et al., NeurIPS 2025, cited without a "
                         "theorem number: no "
                         "(o(log n), o(n^(1-eps)))-BAPO solves it)", [3, 5, 7]))
    directed = _problem(reachability_problem(True))
    if computes(family, directed, (2, 4)):
        red = R.Reduction(
            name=f"reachability -> {family} (identity)", source=directed,
            target_family=str(family), target_params=lambda n: {"n": n},
            map=lambda x, n: x, kind="projection",
            doc="the task's decision function is directed s-t reachability on an edge list")
        out.append((red, "Reachability is BAPO-hard (Schnabel et al., NeurIPS 2025, cited without "
                         "a theorem number; edge list followed by the query, with "
                         "nodes = n + 2 so that edges = Omega(nodes))", [2, 4]))
    if computes(family, _problem(reachability_problem(False)), (2, 4)):
        out.append((majority_to_reach(False, family=str(family)),
                    "Majority is BAPO-hard (Schnabel et al., NeurIPS 2025, cited without a "
                    "theorem number); the "
                    "counting-graph projection keeps splits aligned and (a, b) unchanged",
                    [3, 5, 7]))
    return out


def carry_out_is_greater_than(n: int, family: str = "binary_add") -> bool:
    """Check on every input that ``family``'s main decision function equals [a > NOT b]
    (Greater-Than), a and b read at the positions the task declares (``_positions()``, as
    binary_add does); False for a task without that layout.

    a + b >= 2^n iff a > 2^n - 1 - b, and 2^n - 1 - b is b with every bit flipped. So the
    carry-out is the first (from the top) position where a_j = b_j, read off a_j (0 if
    none): a comparison of a with the complement of b, computed here independently of
    the task's reference from the token rows.
    """
    try:
        t = tasks.get(str(family), n=n)
        layout = getattr(t, "_positions", None)
        if layout is None:
            return False
        df = t.decision_view()[0]
        pos_a, pos_b, _ = layout()
        x = df.enumerate()
    except (TheorybenchError, TypeError, ValueError):
        return False
    w = (1 << np.arange(n, dtype=np.int64))
    a = (x[:, pos_a] * w).sum(axis=1)
    not_b = ((1 - x[:, pos_b]) * w).sum(axis=1)
    return bool(np.array_equal(np.asarray(df.evaluate(x)).reshape(-1), (a > not_b).astype(int)))


def open_note(family: str) -> str | None:
    """Why neither a constant protocol nor a hardness reduction is given, where known: for
    a task whose main decision function is checked to be Greater-Than (not its name)."""
    ns = [2, 3, 4, 5, 6]
    if not all(carry_out_is_greater_than(n, family) for n in ns):
        return None
    return (f"{family}'s main decision function is Greater-Than: it equals "
            f"[a > NOT b] (checked on all inputs at n={ns}). Greater-Than is not "
            f"among the problems of Schnabel et al. used here (cited), no split-preserving "
            f"reduction from Majority or Reachability into it is known, and no "
            f"constant-bandwidth protocol is known here (the selected matching positions "
            f"a_j = b_j must deliver the highest one, which an adversary may withhold); "
            f"the slowly growing SAT frontier at tiny n decides nothing")


__all__ = ["HARDNESS_SOURCE", "HARDNESS_THEOREM_NUMBERED", "majority_problem", "reachability_problem", "reductions_into", "counting_graph",
           "majority_to_reach", "carry_out_is_greater_than", "open_note"]
