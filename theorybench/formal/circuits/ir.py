"""The circuit IR: a DAG of unbounded fan-in AND/OR, NOT, MAJORITY and THRESHOLD gates.

A :class:`Circuit` has ``n_inputs`` input nodes (ids ``0..n_inputs-1``), optional
constant nodes, and gates added in topological order (a gate may only read nodes that
already exist, so every circuit is acyclic by construction). Gate semantics, for inputs
b_1..b_m in {0,1}:

* ``AND``: all b_i = 1 (fan-in >= 1, unbounded)      * ``OR``: some b_i = 1
* ``NOT``: 1 - b_1 (fan-in exactly 1)
* ``MAJ``: sum b_i > m/2 (strict; fan-in >= 1)        * ``THR`` with parameter k:
  sum b_i >= k, 1 <= k <= m (an input may be repeated to give it a weight).

Measures (the convention of AC0/TC0 circuit complexity, e.g. Vollmer, "Introduction to
circuit complexity", 1999, ch. 4, where negations are pushed to the inputs for free):
``size`` counts AND/OR/MAJ/THR gates, ``depth`` is the longest input-output path counting
those gates; NOT gates are free and reported separately in ``gate_counts`` and in
``depth_with_not``. AC0 = constant depth, polynomial size, AND/OR/NOT; TC0 adds MAJ/THR.

Structural hashing merges identical gates (same kind, parameter and inputs; inputs of the
symmetric gates are sorted), ``not_(not_(x))`` is ``x``, and a one-input AND/OR is its
input. Bad gates (wrong fan-in, bad threshold, unknown node) raise :class:`CircuitError`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from ...errors import ProgramError, ProgramProblem, ResourceLimitError

INPUT, CONST, AND, OR, NOT, MAJ, THR = "INPUT", "CONST", "AND", "OR", "NOT", "MAJ", "THR"
GATE_KINDS = (AND, OR, NOT, MAJ, THR)
AC0_KINDS = frozenset({AND, OR, NOT})
TC0_KINDS = frozenset({AND, OR, NOT, MAJ, THR})
BASES = {"ac0": AC0_KINDS, "tc0": TC0_KINDS}
#: Most wires (gate inputs) one circuit may have: the quadratic builders reach it near
#: n = 5800 (about 2 GiB of node lists); larger circuits are refused while being built.
MAX_WIRES = 1 << 25


class CircuitError(ProgramError):
    """A malformed circuit (bad fan-in, threshold, node reference or basis)."""

    def __init__(self, message: str):
        super().__init__([ProgramProblem(message)], source_name="circuit")


def _flatten(xs: Iterable[Any]) -> list[int]:
    out: list[int] = []
    for x in xs:
        if isinstance(x, (list, tuple, range)):
            out.extend(_flatten(x))
        else:
            out.append(int(x))
    return out


class Circuit:
    """A Boolean circuit over ``n_inputs`` bits; see the module docstring."""

    def __init__(self, n_inputs: int, name: str = "", input_names: Sequence[str] | None = None):
        if isinstance(n_inputs, bool) or not isinstance(n_inputs, int) or n_inputs < 0:
            raise CircuitError(f"n_inputs must be a non-negative integer, got {n_inputs!r}")
        self.n_inputs = n_inputs
        self.name = name
        if input_names is not None and len(input_names) != n_inputs:
            raise CircuitError(f"{len(input_names)} input names given for {n_inputs} inputs")
        self.input_names = list(input_names) if input_names else [f"x{i}" for i in range(n_inputs)]
        self.kinds: list[str] = [INPUT] * n_inputs
        self.args: list[tuple[int, ...]] = [()] * n_inputs
        self.params: list[int] = [i for i in range(n_inputs)]  # input index / const value / k
        self.outputs: list[int] = []
        self.output_names: list[str] = []
        self._memo: dict[tuple, int] = {}
        self._wire_count = 0
        self._consts: dict[int, int] = {}

    # ---- construction ---------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.kinds)

    def input(self, i: int) -> int:
        if not 0 <= int(i) < self.n_inputs:
            raise CircuitError(f"input index {i} out of range 0..{self.n_inputs - 1}")
        return int(i)

    def const(self, value: int | bool) -> int:
        v = int(bool(value))
        if v not in self._consts:
            self._consts[v] = self._append(CONST, (), v)
        return self._consts[v]

    def _append(self, kind: str, args: tuple[int, ...], param: int) -> int:
        self._wire_count += len(args)
        if self._wire_count > MAX_WIRES:  # refuse while building, before memory runs out
            raise ResourceLimitError(
                f"the circuit passes {MAX_WIRES:,} wires while it is built ({len(self.kinds):,} "
                f"nodes so far, {self.n_inputs:,} inputs); use a smaller n")
        self.kinds.append(kind)
        self.args.append(args)
        self.params.append(param)
        return len(self.kinds) - 1

    def _check_args(self, kind: str, args: list[int]) -> None:
        for a in args:
            if not 0 <= a < len(self.kinds):
                raise CircuitError(
                    f"{kind} gate reads node {a}, which does not exist (nodes 0..{len(self.kinds) - 1}; "
                    f"add a gate's inputs before the gate)")

    def gate(self, kind: str, args: Iterable[Any], param: int | None = None) -> int:
        """Add (or reuse) a gate; validates fan-in and parameter. Returns its node id."""
        kind = str(kind).upper()
        args_l = _flatten(args)
        if kind not in GATE_KINDS:
            raise CircuitError(f"unknown gate kind {kind!r}; use one of {', '.join(GATE_KINDS)}")
        self._check_args(kind, args_l)
        m = len(args_l)
        if kind == NOT:
            if m != 1:
                raise CircuitError(f"NOT takes exactly one input, got {m}")
            a = args_l[0]
            if self.kinds[a] == NOT:
                return self.args[a][0]
            if self.kinds[a] == CONST:
                return self.const(1 - self.params[a])
            param = 0
        elif kind in (AND, OR):
            if m == 0:
                raise CircuitError(f"{kind} needs at least one input (use const({int(kind == AND)}) "
                                   f"for an empty {kind})")
            if param not in (None, 0):
                raise CircuitError(f"{kind} takes no parameter, got {param!r}")
            args_l = sorted(set(args_l))
            if len(args_l) == 1:
                return args_l[0]
            param = 0
        elif kind == MAJ:
            if m == 0:
                raise CircuitError("MAJ needs at least one input")
            if param not in (None, 0):
                raise CircuitError(f"MAJ takes no parameter, got {param!r}")
            args_l = sorted(args_l)
            param = 0
        else:  # THR
            if m == 0:
                raise CircuitError("THR needs at least one input")
            if param is None or isinstance(param, bool) or int(param) != param:
                raise CircuitError(f"THR needs an integer threshold k, got {param!r}")
            param = int(param)
            if not 1 <= param <= m:
                raise CircuitError(
                    f"THR threshold k={param} must be between 1 and its fan-in {m} "
                    f"(k <= 0 is the constant 1, k > fan-in the constant 0: use const())")
            args_l = sorted(args_l)
        key = (kind, tuple(args_l), param)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        node = self._append(kind, tuple(args_l), param)
        self._memo[key] = node
        return node

    def and_(self, *xs: Any) -> int:
        return self.gate(AND, xs)

    def or_(self, *xs: Any) -> int:
        return self.gate(OR, xs)

    def not_(self, x: int) -> int:
        return self.gate(NOT, [x])

    def maj(self, *xs: Any) -> int:
        return self.gate(MAJ, xs)

    def thr(self, k: int, *xs: Any) -> int:
        return self.gate(THR, xs, k)

    def eq_const(self, bits: Sequence[int], value: int) -> int:
        """AND of literals: the bits (LSB first) spell ``value``."""
        lits = [b if (value >> j) & 1 else self.not_(b) for j, b in enumerate(bits)]
        return self.and_(*lits) if lits else self.const(1)

    def set_outputs(self, *nodes: Any, names: Sequence[str] | None = None) -> "Circuit":
        outs = _flatten(nodes)
        self._check_args("output", outs)
        if not outs:
            raise CircuitError("a circuit needs at least one output")
        self.outputs = outs
        self.output_names = list(names) if names else [f"y{i}" for i in range(len(outs))]
        return self

    @classmethod
    def from_gates(cls, n_inputs: int, gates: Sequence[Sequence[Any]],
                   outputs: Sequence[int], name: str = "") -> "Circuit":
        """Build from a gate list: each ``(kind, [args...])`` or ``(kind, [args...], k)``;
        node ``n_inputs + j`` is gate j. Every gate is validated (:class:`CircuitError`)."""
        c = cls(n_inputs, name=name)
        ids: list[int] = list(range(n_inputs))
        for j, g in enumerate(gates):
            if not isinstance(g, (list, tuple)) or len(g) not in (2, 3):
                raise CircuitError(f"gate {j} must be (kind, args) or (kind, args, k), got {g!r}")
            kind, args = g[0], g[1]
            if str(kind).upper() == CONST:
                ids.append(c.const(int(args)))
                continue
            try:
                mapped = [ids[int(a)] for a in _flatten(args)]
            except IndexError:
                raise CircuitError(f"gate {j} ({kind}) reads a node that is not defined before it; "
                                   f"nodes so far are 0..{len(ids) - 1}") from None
            try:
                ids.append(c.gate(kind, mapped, g[2] if len(g) == 3 else None))
            except CircuitError as exc:
                raise CircuitError(f"gate {j}: {exc.problems[0].message}") from None
        bad = [o for o in outputs if not 0 <= int(o) < len(ids)]
        if bad:
            raise CircuitError(f"output node(s) {bad} do not exist (nodes 0..{len(ids) - 1})")
        return c.set_outputs([ids[int(o)] for o in outputs])

    # ---- measures -------------------------------------------------------------------
    def live(self) -> list[bool]:
        """Which nodes some output depends on (cached until the circuit changes)."""
        key = (len(self.kinds), tuple(self.outputs))
        cached = getattr(self, "_live_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        alive = [False] * len(self.kinds)
        stack = list(self.outputs)
        while stack:
            v = stack.pop()
            if not alive[v]:
                alive[v] = True
                stack.extend(self.args[v])
        self._live_cache = (key, alive)
        return alive

    def _depths(self, count_not: bool) -> list[int]:
        d = [0] * len(self.kinds)
        for v, kind in enumerate(self.kinds):
            if kind in GATE_KINDS:
                base = max(d[a] for a in self.args[v])
                d[v] = base + (1 if (kind != NOT or count_not) else 0)
        return d

    @property
    def depth(self) -> int:
        """Longest path counting AND/OR/MAJ/THR gates (NOT free)."""
        d = self._depths(False)
        return max((d[o] for o in self.outputs), default=0)

    @property
    def depth_with_not(self) -> int:
        d = self._depths(True)
        return max((d[o] for o in self.outputs), default=0)

    def gate_counts(self) -> dict[str, int]:
        """Live gates by kind (all five kinds listed)."""
        alive = self.live()
        c = Counter(k for k, a in zip(self.kinds, alive) if a and k in GATE_KINDS)
        return {k: int(c.get(k, 0)) for k in GATE_KINDS}

    @property
    def size(self) -> int:
        """Live AND/OR/MAJ/THR gates (NOT free)."""
        gc = self.gate_counts()
        return sum(v for k, v in gc.items() if k != NOT)

    @property
    def wires(self) -> int:
        """Total fan-in of live gates (gate-input connections)."""
        alive = self.live()
        return sum(len(a) for a, live in zip(self.args, alive) if live)

    def kinds_used(self) -> set[str]:
        alive = self.live()
        return {k for k, a in zip(self.kinds, alive) if a and k in GATE_KINDS}

    def in_basis(self, basis: str) -> bool:
        if basis not in BASES:
            raise CircuitError(f"unknown basis {basis!r}; use ac0 or tc0")
        return self.kinds_used() <= BASES[basis]

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "inputs": self.n_inputs, "outputs": len(self.outputs),
                "depth": self.depth, "depth_with_not": self.depth_with_not, "size": self.size,
                "wires": self.wires, "gate_counts": self.gate_counts(),
                "basis": "ac0" if self.in_basis("ac0") else "tc0"}

    # ---- export ---------------------------------------------------------------------
    def _label(self, v: int) -> str:
        k = self.kinds[v]
        if k == INPUT:
            return self.input_names[self.params[v]]
        if k == CONST:
            return str(self.params[v])
        if k == THR:
            return f"THR>={self.params[v]}"
        return k

    def to_networkx(self):
        """A networkx DiGraph of the live nodes; edges point from a gate's input to the gate.
        Node attributes: kind, param, label; outputs carry ``output`` = their name."""
        import networkx as nx

        g = nx.DiGraph(name=self.name)
        alive = self.live()
        for v in range(len(self.kinds)):
            if alive[v] or self.kinds[v] == INPUT:
                g.add_node(v, kind=self.kinds[v], param=self.params[v], label=self._label(v))
        for v in range(len(self.kinds)):
            if alive[v]:
                for a in self.args[v]:
                    g.add_edge(a, v)
        for o, nm in zip(self.outputs, self.output_names):
            g.nodes[o]["output"] = nm
        return g

    def to_dot(self) -> str:
        """Graphviz dot text of the live circuit."""
        alive = self.live()
        lines = [f'digraph "{self.name or "circuit"}" {{', "  rankdir=BT;"]
        shape = {INPUT: "box", CONST: "box", NOT: "invtriangle"}
        for v in range(len(self.kinds)):
            if alive[v] or self.kinds[v] == INPUT:
                lines.append(f'  n{v} [label="{self._label(v)}", shape={shape.get(self.kinds[v], "ellipse")}];')
        for v in range(len(self.kinds)):
            if alive[v]:
                for a in self.args[v]:
                    lines.append(f"  n{a} -> n{v};")
        for o, nm in zip(self.outputs, self.output_names):
            lines.append(f'  out_{nm} [label="{nm}", shape=doublecircle];')
            lines.append(f"  n{o} -> out_{nm};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return (f"Circuit({self.name!r}, inputs={self.n_inputs}, size={self.size}, "
                f"depth={self.depth})")
