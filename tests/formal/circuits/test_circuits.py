"""Circuit IR, bit-parallel evaluator, encoding and builders (against task references)."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import TheorybenchError
from theorybench.formal.circuits import Circuit, CircuitError, evaluate, pack_bits, unpack_bits
from theorybench.formal.circuits.builders import all_builders, build, builders_for
from theorybench.formal.circuits.encoding import Encoding
from theorybench.formal.circuits.verify import decode, verify


# ---- an independent, naive recursive evaluator -------------------------------------------
def naive(c: Circuit, x) -> list[int]:
    memo = {}

    def ev(v):
        if v not in memo:
            kind, args = c.kinds[v], [ev(a) for a in c.args[v]]
            memo[v] = {
                "INPUT": lambda: int(x[c.params[v]]),
                "CONST": lambda: c.params[v],
                "AND": lambda: int(all(args)),
                "OR": lambda: int(any(args)),
                "NOT": lambda: 1 - args[0],
                "MAJ": lambda: int(2 * sum(args) > len(args)),
                "THR": lambda: int(sum(args) >= c.params[v]),
            }[kind]()
        return memo[v]
    return [ev(o) for o in c.outputs]


def random_circuit(rng, n_inputs, gates, max_fanin=9):
    c = Circuit(n_inputs)
    nodes = list(range(n_inputs)) + [c.const(0), c.const(1)]
    for _ in range(gates):
        kind = str(rng.choice(["AND", "OR", "NOT", "MAJ", "THR"]))
        if kind == "NOT":
            nodes.append(c.not_(int(rng.choice(nodes))))
            continue
        f = int(rng.integers(1, max_fanin))
        args = [int(a) for a in rng.choice(nodes, size=f)]
        nodes.append(c.gate(kind, args, int(rng.integers(1, f + 1)) if kind == "THR" else None))
    return c.set_outputs(nodes[-4:])


@pytest.mark.parametrize("method", ["auto", "bitslice", "unpack"])
def test_evaluator_matches_naive_on_random_circuits(method):
    rng = np.random.default_rng(7)
    for _ in range(25):
        c = random_circuit(rng, 7, 50)
        x = rng.integers(0, 2, size=(150, 7))
        want = np.array([naive(c, row) for row in x])
        assert (evaluate(c, x, method) == want).all()


def test_wide_threshold_gates():
    rng = np.random.default_rng(3)
    c = Circuit(70)
    outs = [c.thr(k, range(70)) for k in (1, 2, 35, 69, 70)] + [c.maj(range(70)), c.maj(range(69))]
    c.set_outputs(outs)
    x = rng.integers(0, 2, size=(300, 70))
    x[0] = 1
    x[1] = 0
    s = x.sum(axis=1)
    want = np.stack([s >= 1, s >= 2, s >= 35, s >= 69, s >= 70, 2 * s > 70,
                     2 * x[:, :69].sum(1) > 69], axis=1)
    for m in ("bitslice", "unpack"):
        assert (evaluate(c, x, m) == want).all()


@pytest.mark.parametrize("batch", [0, 1, 63, 64, 65, 1000])
def test_pack_roundtrip(batch):
    x = np.random.default_rng(batch).integers(0, 2, size=(batch, 5))
    words, b = pack_bits(x)
    assert words.dtype == np.uint64 and words.shape == (5, -(-batch // 64))
    assert (unpack_bits(words, b) == x).all()


@pytest.mark.parametrize("make", [
    lambda c: c.gate("NOT", [0, 1]),
    lambda c: c.gate("AND", []),
    lambda c: c.gate("OR", []),
    lambda c: c.gate("MAJ", []),
    lambda c: c.gate("THR", [0, 1], 0),
    lambda c: c.gate("THR", [0, 1], 3),
    lambda c: c.gate("THR", [0, 1]),
    lambda c: c.gate("XOR", [0, 1]),
    lambda c: c.gate("AND", [0, 99]),
    lambda c: c.gate("AND", [0, 1], 2),
    lambda c: c.input(5),
])
def test_bad_gates_rejected(make):
    c = Circuit(3)
    with pytest.raises(CircuitError) as err:
        make(c)
    assert isinstance(err.value, TheorybenchError) and str(err.value)


def test_from_gates_validates_and_reports_gate_index():
    c = Circuit.from_gates(2, [("AND", [0, 1]), ("NOT", [2]), ("THR", [0, 1, 3], 2)], [4])
    assert c.size == 2 and c.depth == 2
    with pytest.raises(CircuitError, match="gate 1"):
        Circuit.from_gates(2, [("AND", [0, 1]), ("NOT", [0, 1])], [2])
    with pytest.raises(CircuitError, match="not defined before"):
        Circuit.from_gates(2, [("AND", [0, 5])], [2])
    with pytest.raises(CircuitError, match="output"):
        Circuit.from_gates(2, [("AND", [0, 1])], [7])


def test_measures_hashing_and_exports():
    c = Circuit(3)
    a = c.and_(0, 1)
    assert c.and_(1, 0) == a                       # structural hashing
    assert c.not_(c.not_(a)) == a                  # double negation
    assert c.or_(2) == 2                           # one-input OR is its input
    top = c.or_(a, c.not_(c.thr(2, 0, 1, 2)))
    unused = c.and_(0, 2)
    c.set_outputs(top)
    assert c.size == 3 and c.depth == 2 and c.depth_with_not == 3
    assert c.gate_counts() == {"AND": 1, "OR": 1, "NOT": 1, "MAJ": 0, "THR": 1}
    assert not c.in_basis("ac0") and c.in_basis("tc0")
    g = c.to_networkx()
    assert unused not in g and g.has_edge(a, top) and g.nodes[top]["output"] == "y0"
    dot = c.to_dot()
    assert dot.startswith("digraph") and "THR>=2" in dot and f"n{a} -> n{top}" in dot


def test_encoding_is_one_hot_and_literals_agree():
    task = tasks.get("khop", n=6, k=1)
    df = task.decision_view()[0]
    enc = Encoding.of(df)
    assert enc.n_bits == 6 * task.alphabet
    x = df.enumerate()[:500]
    bits = enc.encode(x)
    assert (bits.reshape(len(x), 6, task.alphabet).sum(axis=2) == 1).all()
    assert (bits.reshape(len(x), 6, task.alphabet).argmax(axis=2) == x).all()
    c = enc.circuit()
    nodes = [enc.is_(c, 2, t) for t in range(task.alphabet)]
    c.set_outputs(nodes)
    assert (evaluate(c, bits) == (x[:, 2:3] == np.arange(task.alphabet))).all()
    # binary positions: one bit; separators: none
    add = tasks.get("binary_add", n=3)
    assert Encoding.of(add.decision_view()[0]).n_bits == 6


# ---- builders against the task references ----------------------------------------------
CASES = [
    ("all", {}, (1, 4, 9)), ("any", {}, (1, 4, 9)), ("majority", {}, (1, 5, 9)),
    ("parity", {}, (1, 4, 9)), ("sparse_all", {}, (4, 8)), ("sparse_any", {"k": 2}, (4, 8)),
    ("sparse_parity", {"k": 4}, (5, 9)), ("index", {}, (2, 5, 8)),
    ("index_any", {"k": 2}, (3, 6)), ("index_all", {}, (3, 6)), ("index_parity", {}, (3, 6)),
    ("index_parity", {"mode": "mask", "k": 2}, (3, 6)), ("index_all", {"mode": "mask"}, (4, 6)),
    ("index_any", {"mode": "mask"}, (4, 6)),
    ("khop", {"k": 1}, (3, 6, 8)), ("khop", {"k": 2}, (4, 7)), ("khop", {"k": 3, "alphabet": 3}, (6, 9)),
    ("binary_add", {}, (1, 3, 6)), ("binary_add", {"layout": "interleaved"}, (2, 5)),
    ("edge_exists", {}, (1, 2, 3)), ("edge_exists", {"directed": True}, (1, 2)),
    ("dyck", {}, (2, 4, 6)), ("dyck", {"k": 1}, (2, 8, 12)), ("dyck", {"k": 3}, (4,)),
    ("dyck_bounded", {}, (2, 6, 12)), ("dyck_bounded", {"k": 2, "D": 2}, (4, 6, 8)),
    ("dyck_bounded", {"D": 1}, (6, 10)), ("dyck_bounded", {"D": 3}, (8, 14)),
]


@pytest.mark.parametrize("family,params,ns", CASES)
def test_builder_matches_reference_on_all_small_inputs(family, params, ns):
    for n in ns:
        task = tasks.get(family, n=n, **params)
        b = build(task, "tc0")
        x = b.df.enumerate()
        want = np.asarray(b.df.evaluate(x))
        got = decode(b.circuit, evaluate(b.circuit, b.encoding.encode(x)))
        assert (got == want).all(), (family, params, n)
        if task.output == "final":  # and against the independent oracle, on a subset
            sub = x[:: max(1, len(x) // 300)]
            assert (decode(b.circuit, evaluate(b.circuit, b.encoding.encode(sub)))
                    == task.oracle(sub)).all()
        if b.builder.basis == "ac0":
            assert b.circuit.in_basis("ac0")


@pytest.mark.parametrize("family,params,n", [
    ("parity", {}, 60), ("majority", {}, 61), ("index_parity", {}, 40), ("khop", {"k": 2}, 40),
    ("binary_add", {}, 40), ("edge_exists", {}, 30), ("dyck", {}, 30), ("dyck_bounded", {}, 40),
    ("index_all", {"mode": "mask", "k": 3}, 24),
])
def test_builder_matches_reference_on_samples_at_larger_n(family, params, n):
    b = build(tasks.get(family, n=n, **params), "tc0")
    chk = verify(b, np.random.default_rng(1), samples=400)
    assert chk.errors == 0 and not chk.exhaustive and chk.checked >= 400


def test_khop_builder_at_every_position():
    task = tasks.get("khop", n=6, k=2)
    for view in task.decision_view():
        b = build(task, "ac0", view=view.name)
        x = view.enumerate()
        assert (decode(b.circuit, evaluate(b.circuit, b.encoding.encode(x))) == view.evaluate(x)).all()


def test_binary_add_every_sum_bit():
    task = tasks.get("binary_add", n=4)
    for view in task.decision_view():
        b = build(task, "ac0", view=view.name)
        x = view.enumerate()
        assert (evaluate(b.circuit, b.encoding.encode(x))[:, 0] == view.evaluate(x)).all()


def test_verification_catches_a_wrong_circuit():
    task = tasks.get("majority", n=7)
    b = build(task, "tc0")
    c = b.encoding.circuit()
    c.set_outputs(c.thr(3, range(7)))  # off by one
    b.circuit = c
    chk = verify(b)
    assert chk.errors == 35 and chk.exhaustive and chk.counterexample is not None  # C(7,3)


def test_basis_selection():
    assert builders_for("parity", "ac0") == [] and builders_for("parity", "tc0")
    assert all(b.basis == "ac0" for b in builders_for("khop", "ac0"))
    assert "reach_directed" not in all_builders() and "reach_undirected" not in all_builders()
    with pytest.raises(TheorybenchError, match="no ac0 circuit builder"):
        build(tasks.get("majority", n=5), "ac0")


# ---- the bounded-depth Dyck AC0 builder (laminar-block characterization) ----------------
def bounded_dyck_count(n: int, k: int, D: int) -> int:
    """Dyck words of length n over k bracket types with depth <= D, by a walk count on the
    heights 0..D (an opening step has k choices, a closing step one): independent of both
    the task and the circuit."""
    ways = [1] + [0] * D
    for _ in range(n):
        ways = [(ways[h - 1] * k if h > 0 else 0) + (ways[h + 1] if h < D else 0)
                for h in range(D + 1)]
    return ways[0]


def check_dyck_bounded_exhaustively(n: int, k: int, D: int) -> None:
    task = tasks.get("dyck_bounded", n=n, k=k, D=D)
    b = build(task, "ac0")
    assert b.circuit.in_basis("ac0")
    x = b.df.enumerate(limit=1 << 21)
    assert len(x) == (2 * k) ** n
    got = decode(b.circuit, evaluate(b.circuit, b.encoding.encode(x)))
    assert (got == np.asarray(b.df.evaluate(x))).all(), (n, k, D)
    assert int(got.sum()) == bounded_dyck_count(n, k, D), (n, k, D)
    # the stack oracle on every accepted word and on a spread of the rejected ones
    sub = np.concatenate([x[got == 1], x[got == 0][:: max(1, int((got == 0).sum()) // 2000)]])
    assert (decode(b.circuit, evaluate(b.circuit, b.encoding.encode(sub)))
            == task.oracle(sub)).all(), (n, k, D)


def test_bounded_dyck_count_closed_forms():
    from math import comb
    assert [bounded_dyck_count(2 * m, 1, m) for m in range(1, 8)] == \
        [comb(2 * m, m) // (m + 1) for m in range(1, 8)]  # Catalan numbers
    assert [bounded_dyck_count(2 * m, 1, 2) for m in range(1, 8)] == [2 ** (m - 1) for m in range(1, 8)]
    assert bounded_dyck_count(10, 2, 1) == 2 ** 5 and bounded_dyck_count(7, 1, 3) == 0


@pytest.mark.parametrize("n,k,D", [(16, 1, 1), (16, 1, 2), (16, 1, 3), (16, 1, 8),
                                   (8, 2, 1), (8, 2, 2), (8, 2, 4), (6, 3, 2)])
def test_dyck_bounded_builder_on_every_word(n, k, D):
    check_dyck_bounded_exhaustively(n, k, D)


@pytest.mark.slow
@pytest.mark.parametrize("n,k,D", [(18, 1, d) for d in range(1, 10)]
                         + [(10, 2, d) for d in range(1, 6)] + [(8, 3, d) for d in range(1, 5)])
def test_dyck_bounded_builder_on_every_word_slow(n, k, D):
    check_dyck_bounded_exhaustively(n, k, D)


def test_circuit_size_refused_before_memory_runs_out(monkeypatch):
    from theorybench import tasks
    from theorybench.errors import ResourceLimitError
    from theorybench.formal.circuits import ir
    from theorybench.formal.circuits.builders import MAX_INPUT_BITS, build
    with pytest.raises(ResourceLimitError, match="65,536 input bits"):
        build(tasks.get("parity", n=65536), "tc0")  # before: silent for minutes
    assert 65536 > MAX_INPUT_BITS
    monkeypatch.setattr(ir, "MAX_WIRES", 100)
    with pytest.raises(ResourceLimitError, match="passes 100 wires"):
        build(tasks.get("parity", n=64), "tc0")
