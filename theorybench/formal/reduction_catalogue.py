"""A catalogue of checked task-to-task reductions (issue 11, defect 8).

Each :class:`Entry` is an explicit map of instances of one task variant (the source S) to
instances of another (the target T), vectorized over a batch, with the size blow-up
n -> n' of the task's parameter n. :meth:`Entry.check` runs
:meth:`~theorybench.formal.reductions.Reduction.check`: label(T(map(x))) == label(S(x))
on every source instance for the n where there are at most ``exhaustive_limit`` of them
and on ``samples`` random ones (drawn from the source's own distribution) otherwise - the
check says which, with K; half of them from the task's distribution, half uniform over
its instance space - plus well-formed images and, for projections, the dependency
map (fan-out, and whether it is monotone: split-preserving).

The catalogue only states and checks the maps. Whether a theory may use one - whether its
class of "easy" problems is closed under precomposition with the map, or whether the
argument behind a Hard verdict transfers through it - is the theory's business
(:mod:`theorybench.theories.closures`), and so is the direction (Hard: S -> T;
Easy: T -> S). A check up to N is a finite check: a verdict resting on it is at best
``verified <= N`` (the maps below are not proved for all n here).

Entries:

* ``reach_undirected -> reach_directed`` (double every edge): {u, w} becomes u>w, w>u;
  s, t unchanged; n' = 2n (the target's automatic V' = 2n + 2 >= V = n + 2, the extra
  nodes are isolated). Connectivity in G equals reachability in the symmetric digraph.
* ``dyck:k=1 -> dyck`` (k = 2): the inclusion of the alphabet {(, )} into the 2k brackets.
  The bracket ids coincide, so on token arrays the map is the identity: it is recorded as
  an *inclusion* (the source instance space is a proper subset of the target's, checked),
  never as a reduction of a problem to itself. Dyck-1 = Dyck-k restricted to words over
  {(, )}. n' = n.
* ``index -> index_all / index_any / index_parity`` (each in mode ``tokens`` and ``mask``,
  the family's default k): x q -> x P q (n+1) .. (n+k-1) with the padding P = 1^(k-1) for
  AND, 0^(k-1) for OR and XOR, so the k - 1 extra queries are neutral; mask mode writes
  y_j = [q = j] for j <= n and y_j = 1 on the padding. n' = n + k - 1.
* ``khop:k=K -> khop:k=K'`` (K < K' <= 3, the same alphabet): X -> X T with the tail
  T = X_(n-1) X_n X_(n-1) ... of K' - K letters. From the end, find walks back through
  the tail one position per hop (each tail letter's latest earlier occurrence is two
  back; the first tail letter X_(n-1) last occurred at n - 1, so find lands on n), so
  after K' - K hops the chain is at position n of X and the remaining K hops are X's.
  The prefix X is unchanged, so find inside it is X's. The tail has no immediate
  repeats (X_(n-1) != X_n). n' = n + K' - K, n >= 2. It is a reduction of the hop at the
  last position (the task's main decision function) only: khop is a per-position task.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import tasks
from ..errors import TaskParameterError
from .reductions import Reduction, ReductionCheck, task_problem

#: blow-up classes, weakest last; a theory accepts a class up to its tolerance
BLOWUPS = ("identity", "linear", "polynomial")


@dataclass
class Entry:
    """One catalogue reduction: S (family + params) -> T (family + params), n -> n'.

    size:     n -> n' (the target's parameter n), exact ints.
    size_formula / blowup: the same as text, and its class in :data:`BLOWUPS`.
    ns:       the source n it is checked at.
    inclusion: the map is declared to be the inclusion of a smaller instance space (the
              identity on token arrays); the check must confirm a proper inclusion.
    main_only: the map preserves only the main decision function (per-position tasks).
    searched: found by :mod:`theorybench.formal.search.reductions` (not stated by hand);
              then ``letter_map`` (source token -> target token, the same at every
              position), ``positions`` ("identity": output j reads input j; "reversal")
              and ``coverage`` (which lengths of the two tasks the map covers) say what it
              is; ``negated``: the map sends label 1 to label 0 and back (every class
              the closures name is closed under complement). An identity on token arrays between two *different* task definitions is
              a map like any other here: the two functions agree on every checked input.
    """

    name: str
    source_family: str
    source_params: dict[str, Any]
    target_family: str
    target_params: dict[str, Any]
    map: Callable[[np.ndarray, int], np.ndarray]
    size: Callable[[int], int]
    size_formula: str
    blowup: str
    ns: tuple[int, ...]
    kind: str = "projection"
    doc: str = ""
    inclusion: bool = False
    main_only: bool = False
    extra_target_params: Callable[[int], dict[str, Any]] = field(default=lambda n: {})
    searched: bool = False
    letter_map: dict[str, str] | None = None
    positions: str = ""
    coverage: str = ""
    #: labels are complemented: label(T(map(x))) = 1 - label(S(x)) (0/1 labels)
    negated: bool = False
    _checks: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        if self.blowup not in BLOWUPS:
            raise TaskParameterError(f"blow-up {self.blowup!r} of {self.name} is not one of "
                                     f"{', '.join(BLOWUPS)}")

    @property
    def source_label(self) -> str:
        return tasks.task_label(self.source_family, self.source_params)

    @property
    def target_label(self) -> str:
        return tasks.task_label(self.target_family, self.target_params)

    def reduction(self) -> Reduction:
        return Reduction(
            name=self.name, source=_mixed(task_problem(self.source_family, **self.source_params)),
            target_family=self.target_family,
            target_params=lambda n: {**self.target_params, "n": self.size(n),
                                     **self.extra_target_params(n)},
            map=self.map, kind=self.kind, doc=self.doc,
            label_map=(lambda y: 1 - np.asarray(y)) if self.negated else None)

    def check(self, samples: int = 2000, seed: int = 0,
              exhaustive_limit: int = 1 << 16) -> ReductionCheck:
        """Run the check at every n of ``ns`` (cached per entry and arguments)."""
        key = (samples, seed, exhaustive_limit)
        if key not in self._checks:
            self._checks[key] = self.reduction().check(
                self.ns, samples=samples, rng=np.random.default_rng(seed),
                exhaustive_limit=exhaustive_limit)
        return self._checks[key]

    @property
    def position_preserving(self) -> bool:
        """A searched letter map with identity positions: output token j is the image of
        input token j under one letter map (the same at every position)."""
        return self.searched and self.letter_map is not None and self.positions == "identity"

    def problems(self, chk: ReductionCheck) -> list[str]:
        """Why the check does not support this entry (empty when it does)."""
        out = []
        if not chk.labels_preserved:
            out.append(f"labels not preserved or invalid images: {chk.counterexample}")
        if self.kind == "projection" and not chk.is_projection:
            out.append("an output token depends on two input positions")
        distinct = self.source_label != self.target_label
        if chk.is_identity and not (self.inclusion and chk.is_inclusion) and not (
                self.searched and distinct):
            out.append("the map is the identity on the instances and not a checked proper "
                       "inclusion of instance spaces: the task is the source problem itself "
                       "(a premise check, not a reduction)")
        if self.inclusion and not chk.is_inclusion:
            out.append("declared an inclusion, but the check did not confirm the identity "
                       "on a proper subset of the target's instances")
        for c in chk.by_n:
            if c.target_n != self.size(c.n):
                out.append(f"target n {c.target_n} at n={c.n} differs from {self.size_formula}")
        return out

    def to_dict(self, chk: ReductionCheck | None = None) -> dict[str, Any]:
        d = {"name": self.name, "source": self.source_label, "target": self.target_label,
             "size": self.size_formula, "blowup": self.blowup, "kind": self.kind,
             "inclusion": self.inclusion, "main_decision_function_only": self.main_only,
             "doc": self.doc, "ns": list(self.ns),
             **({"searched": True, "letter_map": self.letter_map, "positions": self.positions,
                 "coverage": self.coverage, "labels_complemented": self.negated}
                if self.searched else {}),
             "sizes": {n: self.size(n) for n in self.ns}}
        if chk is not None:
            d["check"] = {k: v for k, v in chk.to_dict().items() if k != "by_n"}
            d["check"]["by_n"] = [{k: v for k, v in c.to_dict().items()
                                   if k not in ("dependency", "projection_violations")}
                                  for c in chk.by_n]
            d["verified_up_to"] = chk.verified_up_to
            d["problems"] = self.problems(chk)
        return d


def _mixed(prob):
    """The source problem, sampled half from the task's own distribution and half uniformly
    over its instance space (rejection on ``valid``), so a sampled check does not see only
    the generator's instances (reach: not only two disjoint paths)."""
    import dataclasses
    own = prob.sample
    uniform = dataclasses.replace(prob, sample=None)

    def sample(rng, n, count):
        half = count // 2
        parts = [np.asarray(own(rng, n, count - half), dtype=np.int64)]
        if half:
            parts.append(uniform.draw(rng, n, half))
        return np.concatenate(parts)

    return dataclasses.replace(prob, sample=sample,
                               doc=prob.doc + "; sampled: half the task's distribution, half "
                                              "uniform")


# ---- the maps ---------------------------------------------------------------------------

def _task(family: str, **params):
    return tasks.get(family, **params)


def double_edges(x: np.ndarray, n: int) -> np.ndarray:
    """reach_undirected (n edges) -> reach_directed (2n edges): {u, w} -> u>w, w>u."""
    src_t = _task("reach_undirected", n=n)
    tgt_t = _task("reach_directed", n=2 * n)
    x = np.asarray(x, dtype=np.int64)
    u, w = src_t.decode(x)
    out = np.empty((len(x), 2 * n + 3), dtype=np.int64)
    out[:, 0:2 * n:2] = tgt_t.edge_ids(u, w)
    out[:, 1:2 * n:2] = tgt_t.edge_ids(w, u)
    out[:, 2 * n] = tgt_t.query_id
    out[:, 2 * n + 1:] = x[:, n + 1:]        # node ids: node u has id u in both tasks
    return out


def one_way_edges(x: np.ndarray, n: int) -> np.ndarray:
    """A WRONG map, kept for the tests: {u, w} -> u>w only (loses w -> u)."""
    src_t = _task("reach_undirected", n=n)
    tgt_t = _task("reach_directed", n=2 * n)
    x = np.asarray(x, dtype=np.int64)
    u, w = src_t.decode(x)
    e = tgt_t.edge_ids(u, w)
    out = np.empty((len(x), 2 * n + 3), dtype=np.int64)
    out[:, 0:2 * n:2] = e
    out[:, 1:2 * n:2] = e
    out[:, 2 * n] = tgt_t.query_id
    out[:, 2 * n + 1:] = x[:, n + 1:]
    return out


def identity(x: np.ndarray, n: int) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def index_padding(op: str, k: int, mode: str) -> Callable[[np.ndarray, int], np.ndarray]:
    """index (x, q) -> index_<op> with k queries: x P q (n+1) .. (n+k-1), P neutral."""
    pad = 1 if op == "all" else 0

    def map_(x: np.ndarray, n: int) -> np.ndarray:
        x = np.asarray(x, dtype=np.int64)
        m = len(x)
        n2 = n + k - 1
        bits = np.concatenate([x[:, :n], np.full((m, k - 1), pad, dtype=np.int64)], axis=1)
        q = x[:, n] - 2                                   # 0-based queried position
        if mode == "mask":
            y = np.zeros((m, n2), dtype=np.int64)
            y[np.arange(m), q] = 1
            y[:, n:] = 1
            return np.concatenate([bits, y], axis=1)
        extra = np.broadcast_to(np.arange(n + 2, n2 + 2, dtype=np.int64), (m, k - 1))
        return np.concatenate([bits, x[:, n:n + 1], extra], axis=1)

    return map_


def khop_tail(extra: int) -> Callable[[np.ndarray, int], np.ndarray]:
    """khop -> khop with ``extra`` more hops: X -> X X_(n-1) X_n X_(n-1) ..."""
    def map_(x: np.ndarray, n: int) -> np.ndarray:
        x = np.asarray(x, dtype=np.int64)
        if n < 2:
            raise TaskParameterError("the k-hop tail needs n >= 2 (it copies X_(n-1))")
        cols = [x[:, n - 2] if i % 2 == 0 else x[:, n - 1] for i in range(extra)]
        return np.concatenate([x, np.stack(cols, axis=1)], axis=1)
    return map_


# ---- the entries ------------------------------------------------------------------------

def _default(family: str, param: str):
    return next(p.default for p in tasks.family(family).params if p.name == param)


def _build() -> list[Entry]:
    out = [Entry(
        name="reach_undirected -> reach_directed (double every edge)",
        source_family="reach_undirected", source_params={},
        target_family="reach_directed", target_params={},
        map=double_edges, size=lambda n: 2 * n, size_formula="n' = 2n", blowup="linear",
        ns=(2, 4, 6, 8),
        doc="edge {u, w} -> u>w, w>u (tokens 2i, 2i+1 read edge i); '?', s, t unchanged; "
            "the target has V' = 2n + 2 nodes, the source's n + 2 keep their ids")]
    dyck_k = _default("dyck", "k")
    if dyck_k != 1:
        out.append(Entry(
            name=f"dyck:k=1 -> dyck:k={dyck_k} (inclusion of the alphabet {{(, )}})",
            source_family="dyck", source_params={"k": 1},
            target_family="dyck", target_params={"k": dyck_k},
            map=identity, size=lambda n: n, size_formula="n' = n", blowup="identity",
            ns=(2, 4, 6, 8, 10, 12, 14, 16), inclusion=True,
            doc="words over ( ) are words over the 2k brackets with the same ids; Dyck-1 is "
                "Dyck-k restricted to them (the identity on token arrays: an inclusion)"))
    for fam, op in (("index_all", "all"), ("index_any", "any"), ("index_parity", "parity")):
        k = _default(fam, "k")
        for mode in ("tokens", "mask"):
            params = {} if mode == _default(fam, "mode") else {"mode": mode}
            pad = "1" if op == "all" else "0"
            out.append(Entry(
                name=f"index -> {fam}{':mode=' + mode if params else ''} (pad {pad}^{k - 1}, "
                     f"{k - 1} neutral queries)",
                source_family="index", source_params={},
                target_family=fam, target_params=params,
                map=index_padding(op, k, mode), size=(lambda k: lambda n: n + k - 1)(k),
                size_formula=f"n' = n + {k - 1}", blowup="linear", ns=tuple(range(1, 13)),
                doc=f"x q -> x {pad}^{k - 1} then the queries q, n+1, .., n+{k - 1}"
                    + (" as a bit mask" if mode == "mask" else " as tokens")))
    for k1, k2 in ((1, 2), (1, 3), (2, 3)):
        out.append(Entry(
            name=f"khop:k={k1} -> khop:k={k2} (tail X_(n-1) X_n ..., {k2 - k1} letters)",
            source_family="khop", source_params={} if k1 == _default("khop", "k") else {"k": k1},
            target_family="khop", target_params={} if k2 == _default("khop", "k") else {"k": k2},
            map=khop_tail(k2 - k1), size=(lambda d: lambda n: n + d)(k2 - k1),
            size_formula=f"n' = n + {k2 - k1}", blowup="linear", ns=(2, 3, 4, 5, 6, 7, 8),
            main_only=True,
            doc="the hop at the last position; the tail walks back to position n in "
                f"{k2 - k1} hops"))
    return out


@functools.lru_cache(maxsize=1)
def catalogue() -> tuple[Entry, ...]:
    """Every catalogue entry (built once)."""
    return tuple(_build())


def entry(name: str) -> Entry:
    for e in catalogue():
        if e.name == name:
            return e
    raise TaskParameterError(f"no catalogue reduction named {name!r}; known: "
                             f"{'; '.join(e.name for e in catalogue())}")


def into(label: str) -> list[Entry]:
    """Entries whose target is the task ``label`` (canonical spelling)."""
    return [e for e in catalogue() if e.target_label == label]


def out_of(label: str) -> list[Entry]:
    """Entries whose source is the task ``label``."""
    return [e for e in catalogue() if e.source_label == label]


__all__ = ["Entry", "catalogue", "entry", "into", "out_of", "BLOWUPS", "double_edges",
           "one_way_edges", "index_padding", "khop_tail"]
