"""The registry of circuit builders: one constant-depth circuit family per task family
that has one, plus the gadgets the builders share.

A builder is ``fn(task, df, enc) -> Circuit`` for the task's main decision function ``df``
over the bit encoding ``enc`` (see :mod:`.encoding`). Its ``basis`` is the smallest of
ac0/tc0 its gates belong to (checked on every built circuit: ``Circuit.in_basis``). The
builders live in :mod:`.families_basic` (boolean, sparse) and :mod:`.families_structured`
(retrieval, arithmetic, graphs, dyck). No builder exists for reach_directed or
reach_undirected: no constant-depth, polynomial-size construction of reachability is
known (it is NL- resp. L-complete; see :mod:`theorybench.theories.tc0`).

A circuit that computes a non-binary decision function (e.g. the k-hop token at the last
position) has one output per value: ``circuit.output_values[j]`` is the value whose
indicator output j is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ...errors import ResourceLimitError, TheoryError
from ...registry import artifact_library, origin_of
from ...tasks.base import DecisionFunction, Task
from .encoding import Encoding
from .ir import MAX_WIRES, Circuit, CircuitError

#: Most input bits of a built circuit: an early refusal for sizes far beyond any builder
#: (the wire count is also bounded while a circuit is built, see ``ir.MAX_WIRES``). The
#: theories build edge_exists at n = 48 (5,145 bits), so the bound sits well above that.
MAX_INPUT_BITS = 1 << 14


@dataclass(frozen=True)
class Builder:
    family: str
    basis: str  # "ac0" or "tc0"
    fn: Callable[[Task, DecisionFunction, Encoding], Circuit]
    description: str
    source: str = ""

    def to_dict(self):
        return {"family": self.family, "basis": self.basis, "description": self.description,
                "source": self.source}


@dataclass
class Built:
    """A built circuit with everything needed to check it against the task."""

    task: Task
    df: DecisionFunction
    encoding: Encoding
    circuit: Circuit
    builder: Builder


#: Circuit builders per task family (the registry idiom of :mod:`theorybench.registry`);
#: the family modules are imported on the first lookup.
BUILDERS = artifact_library(
    "circuit builder", [f"{__package__}.{m}" for m in
                        ("families_basic", "families_structured", "families_dyck", "families_kv")],
    column="circuit")


def builder(family: str, basis: str, description: str, source: str = ""):
    """Decorator registering ``fn(task, df, enc) -> Circuit`` for ``family``."""
    if basis not in ("ac0", "tc0"):
        raise ValueError(f"basis must be ac0 or tc0, got {basis!r}")

    def wrap(fn):
        BUILDERS.add(Builder(family, basis, fn, description, source), family,
                     origin=origin_of(fn.__module__))
        return fn
    return wrap


def all_builders() -> dict[str, list[Builder]]:
    return {fam: [b for _, b in BUILDERS.for_task(fam)] for fam in BUILDERS.families()}


def builders_for(family: str, basis: str = "tc0") -> list[Builder]:
    """Builders usable in ``basis``: ac0 takes only AND/OR/NOT builders, tc0 takes all
    (ac0 ones first, since AC0 is contained in TC0)."""
    if basis not in ("ac0", "tc0"):
        raise TheoryError(f"unknown circuit basis {basis!r}; use ac0 or tc0")
    found = [b for _, b in BUILDERS.for_task(family)]
    if basis == "ac0":
        return [b for b in found if b.basis == "ac0"]
    return [b for b in found if b.basis == "ac0"] + [b for b in found if b.basis == "tc0"]


def build(task: Task, basis: str = "tc0", which: Builder | None = None,
          view: int | str = 0) -> Built:
    """Build the circuit for one decision function of ``task`` (default the main one,
    ``view`` an index or a name from ``task.decision_view()``) in ``basis``."""
    cands = [which] if which else builders_for(task.name, basis)
    if not cands:
        raise TheoryError(
            f"no {basis} circuit builder for task {task.name}; families with builders: "
            f"{', '.join(sorted(k for k in all_builders() if builders_for(k, basis)))} "
            f"(`theorybench explain {basis} {task.name}` says what the theory derives instead)")
    b = cands[0]
    views = task.decision_view()
    if isinstance(view, str):
        named = [d for d in views if d.name == view]
        if not named:
            raise TheoryError(f"task {task.name} has no decision function {view!r}; it has: "
                              f"{', '.join(d.name for d in views[:12])}")
        df = named[0]
    else:
        df = views[int(view)]
    enc = Encoding.of(df)
    if enc.n_bits > MAX_INPUT_BITS:  # checked before any gate is built
        raise ResourceLimitError(
            f"{task.name} at n={task.n} has {enc.n_bits:,} input bits; circuits are built for "
            f"at most {MAX_INPUT_BITS:,} (the builders are up to quadratic in the inputs and "
            f"a circuit has at most {MAX_WIRES:,} wires); use a smaller n")
    c = b.fn(task, df, enc)
    if not c.outputs:
        raise CircuitError(f"builder for {task.name} produced a circuit without outputs")
    if not c.in_basis(b.basis):
        raise CircuitError(f"builder for {task.name} claims {b.basis} but uses "
                           f"{sorted(c.kinds_used())}")
    c.name = c.name or f"{task.name}(n={task.n}) [{b.basis}]"
    return Built(task, df, enc, c, b)


# ---- gadgets shared by the builders ---------------------------------------------------
def parity_dnf(c: Circuit, lits: Sequence[int]) -> int:
    """XOR of a constant number of literals as a DNF: OR over the 2^(m-1) odd assignments
    (depth 2, size 2^(m-1) + 1; only for constant m)."""
    m = len(lits)
    if m == 0:
        return c.const(0)
    if m == 1:
        return lits[0]
    terms = []
    for a in range(1 << m):
        if bin(a).count("1") % 2:
            terms.append(c.and_(*[lits[j] if (a >> j) & 1 else c.not_(lits[j]) for j in range(m)]))
    return c.or_(*terms)


def exactly(c: Circuit, lits: Sequence[int], j: int) -> int:
    """[sum of lits == j] with two threshold gates: THR_j AND NOT THR_{j+1}."""
    m = len(lits)
    if j < 0 or j > m:
        return c.const(0)
    ge = c.thr(j, *lits) if j >= 1 else c.const(1)
    gt = c.thr(j + 1, *lits) if j + 1 <= m else c.const(0)
    return c.and_(ge, c.not_(gt))


def parity_threshold(c: Circuit, lits: Sequence[int]) -> int:
    """XOR of any number of literals in TC0: OR over odd j of exactly-j (depth 3,
    m threshold gates + m/2 ANDs + 1 OR)."""
    m = len(lits)
    if m == 0:
        return c.const(0)
    return c.or_(*[exactly(c, lits, j) for j in range(1, m + 1, 2)])


def equal_bits(c: Circuit, xs: Sequence[int], ys: Sequence[int]) -> int:
    """[xs == ys] bitwise: AND over i of (x_i AND y_i) OR (NOT x_i AND NOT y_i)."""
    return c.and_(*[c.or_(c.and_(x, y), c.and_(c.not_(x), c.not_(y))) for x, y in zip(xs, ys)])
