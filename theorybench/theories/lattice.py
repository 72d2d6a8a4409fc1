"""Inclusions between the theories' classes of Easy tasks, and the rule that applies them.

An :class:`Edge` ``lower -> upper`` says: every task Easy in the ``lower`` column is Easy
in the ``upper`` column (the lower model is simulated in the upper one). So an Easy cell
transfers up and, by contraposition, a Hard cell transfers down. :func:`apply` runs on one
task's row of cells (each cell already its theory's own rules plus the reduction
catalogue) and decides Unknown cells from decided ones; the runner calls it for every row
(docs/theories.md, "Inclusions between the theories").

Conventions shared by every edge: each column judges the same object of a task, its
decision view (``task.decision_view()``: accept/reject, the answer of binary_add, the k-hop
label at the last position - for a per-position task the same statement holds at every
position, since a program of these models computes its output at every position), on
the task's valid instances only; a verdict is about one object of fixed size (program,
circuit family of fixed depth, algorithm with fixed round count) for every n. Each
simulation below maps such an object to one of the upper model for every n, with the same
outputs on every input, so it transfers the verdict whatever the input domain.

The edges (each with an all-n simulation argument, :attr:`Edge.proof`; the papers are
cited for the models, without theorem numbers where those were not checked):

* star_free -> star_free_pos: a B-RASP program is a B-RASP[pos] program that uses no
  position predicate (by definition; same masking and acceptance at the last position).
* star_free_pos -> ac0: B-RASP[pos], with the [tokpos] and [lenpred] extensions, in
  non-uniform AC0 (the argument of Hao, Angluin & Frank 2022 for unique hard attention).
* ac0 -> tc0: an AND/OR/NOT circuit is a threshold circuit (by definition).
* crasp -> tc0: C-RASP[periodic, local] (counts, linear arithmetic, min/max,
  conditionals, comparisons; the column's class) in TC0.
* star_free -> mpc, crasp -> mpc: each B-RASP attention and each C-RASP count is a
  prefix (or suffix) scan, O(1/delta) MPC rounds with memory O(N^delta) per machine.

Not edges: star_free -> crasp (the flip-flop language is star-free and not in C-RASP,
Huang et al. 2025); star_free_pos -> mpc (arbitrary numerical predicates of (i, j, n) are
not scans); bapo and sensitivity (their verdicts are about another resource: prefix
bandwidth, a distribution).

The rule. A cell is a *source* when it is decided with a status of :data:`STATUS_ORDER`
and is not conditional on a missing lemma of its own proof (``evidence["missing_lemma"]``,
set by ``rules.claim_rule``; such a cell is a conjecture and is kept out of the
statistics, so it decides nothing else). For an Unknown cell X, every path of edges from
a source Easy cell Y up to X, and from X up to a source Hard cell Z, is a candidate; its
status is the weakest of the source cell's and of every edge on the path
(:data:`STATUS_ORDER`), and the strongest candidate wins (then the shortest path, then the
column order). Since a transferred cell could only pass on what its own source passes on
along a longer path, this is the fixpoint of transferring along single edges, computed
without depending on the order of the cells. A decided cell is never overwritten. A
contradiction - a decided Easy cell below a decided Hard cell, the two joined by a path -
is recorded in both cells (``evidence["lattice_conflict"]``; the runner marks the cells)
and neither transfers past it: an Unknown cell between the two stays Unknown. The declared
edges must not form a cycle: :func:`check_acyclic` refuses one at import.

Basis of a transferred cell: ``theorem`` - the cell rests on the inclusion of the two
classes (a theorem about the models) applied to the other column's verdict on the same
task; no map between tasks is involved, so it is not a ``reduction``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..errors import TheoryError
from .prediction import STATUS_ORDER, Basis, find_fit, Prediction, Status, Verdict, to_jsonable

RULE_NAME = "inclusion between theories"

HAF22 = ("Hao, Angluin & Frank, 'Formal language recognition by hard attention transformers: "
         "perspectives from circuit complexity', TACL 10 (2022) 800-810 (UHAT and GUHAT "
         "recognize only AC0 languages; cited without theorem number)")
YCA24 = ("Yang, Chiang & Angluin, 'Masked hard-attention transformers recognize exactly the "
         "star-free languages', NeurIPS 2024 (arXiv 2310.13897): B-RASP, section 3")
YC24 = ("Yang & Chiang, 'Counting like transformers', COLM 2024 (arXiv 2404.04393): C-RASP; "
        "Huang et al., ICLR 2025 (arXiv 2410.02140), Def. 8: the periodic and local "
        "predicates")
GSZ11 = ("Goodrich, Sitchinava & Zhang, 'Sorting, searching, and simulation in the MapReduce "
         "framework', ISAAC 2011 (prefix sums in O(log_s N) rounds; cited without theorem "
         "number, the tree argument is written out in the proof)")

_SCAN = ("A prefix scan in MPC (input in order, a block of b = Theta(s) consecutive positions "
         "per machine, s = c N^delta words per machine, M = O(N^(1-delta)) machines): a tree of "
         "fan-in F = s / w over the machines (w = the words of one record) has depth "
         "ceil(log_F M) <= ceil((1 - delta) / delta) + 1 for N large enough; each machine folds "
         "its block locally, the folds go up one level per round, each parent sends every "
         "child the fold of the blocks before it (two rounds per level), and each machine "
         "finishes its block locally - O(1/delta) rounds for any associative operation on "
         "O(1)-word records (formal/mpc/scan.py implements it; " + GSZ11 + "). A suffix scan is "
         "the same tree read right to left, a fold over all positions plus a broadcast is "
         "the same up and down.")


@dataclass(frozen=True)
class Edge:
    """Easy in ``lower`` implies Easy in ``upper`` for every task (module docstring).

    ``theorem``: the inclusion as a statement; ``source``: the papers it rests on;
    ``numbered``: whether the source's theorem number was checked; ``conditions``: the
    conventions under which the edge applies; ``proof``: an all-n argument written out
    here (a simulation). The edge is ``proven`` with a checked theorem number or a written
    argument, else ``cited`` (a transferred cell is then at best cited)."""

    lower: str
    upper: str
    theorem: str
    source: str
    numbered: bool
    conditions: str
    proof: str = ""

    @property
    def name(self) -> str:
        return f"{self.lower} ⊆ {self.upper}"

    @property
    def status(self) -> Status:
        return Status.PROVEN if (self.numbered or self.proof) else Status.CITED

    def to_dict(self) -> dict[str, Any]:
        return {"edge": self.name, "lower": self.lower, "upper": self.upper,
                "theorem": self.theorem, "source": self.source, "numbered": self.numbered,
                "status": self.status.value, "conditions": self.conditions,
                "proof": self.proof}


EDGES: tuple[Edge, ...] = (
    Edge("star_free", "star_free_pos",
         "B-RASP ⊆ B-RASP[pos]", YCA24, False,
         "same masking (strict), same acceptance (at the last position), same alphabet",
         proof="by definition: a B-RASP program is a B-RASP[pos] program without position "
               "comparisons, and the two columns check programs of fixed size the same way"),
    Edge("star_free_pos", "ac0",
         "B-RASP[pos] (with [tokpos] and [lenpred]) ⊆ non-uniform AC0", HAF22, False,
         "AC0 reads tokens as bits (one-hot for larger alphabets, so a token naming a "
         "position is O(n) input bits); [tokpos] and [lenpred] need their position "
         "predicates computable in AC0 - true for every predicate B-RASP[pos] can write "
         "(comparisons of +, -, %, / terms in i, j, n and token-named positions)",
         proof="simulation for each n (Hao, Angluin & Frank's argument for unique hard "
               "attention, written for B-RASP[pos]): every Boolean vector P of the fixed "
               "program becomes n wires P(1..n). A position-wise statement is a Boolean "
               "formula of fixed size per position. A position comparison between i and j "
               "is, for fixed n, a constant, or with tokpos a function of the tokens at i "
               "and j only: a DNF over their one-hot bits of size O(n^2) per pair (i, j). "
               "An attention statement 'P(i) = the value at the leftmost (rightmost) j in "
               "the mask with score(i, j), else default(i)' is first(i, j) = score(i, j) "
               "AND the AND of NOT score(i, j') over the j' in the mask that the attention "
               "prefers to j (left of j for leftmost, right of j for rightmost), then P(i) = "
               "OR_j (first(i, j) AND value(i, j)) OR (default(i) AND the AND over the j in "
               "the mask of NOT score(i, j)): constant depth, O(n^2) gates per statement beyond the score's. "
               "A program of fixed length thus gives circuits of depth O(program length) "
               "and size poly(n) for every n, with the program's output at every position."),
    Edge("ac0", "tc0", "AC0 ⊆ TC0", "by definition of the two circuit classes", False,
         "both columns judge constant-depth polynomial-size circuit families reading the "
         "same bit encoding of the task",
         proof="by definition: AND and OR are threshold gates (AND of m inputs = at least m "
               "of them, OR = at least 1), NOT is a TC0 gate, so an AC0 circuit family is a "
               "TC0 circuit family of the same depth and size"),
    Edge("crasp", "tc0", "C-RASP[periodic, local] ⊆ TC0", YC24, False,
         "C-RASP accepts at an appended end marker (or, with --accept last, at the last "
         "position): a constant position for each n, computed like any other",
         proof="simulation for each n: a Boolean vector becomes n wires; a count "
               "#[guard] phi at position i is the sum of the wires phi(j), j <= i (with the "
               "local guard j = i - K, the single wire phi(i - K)); a periodic predicate "
               "of i is a constant for fixed i. A count-valued expression (+, -, constant "
               "multiples, min, max, conditionals over counts) is at each position a "
               "piecewise linear function of the program's fixed number of counts: "
               "min(a, b) = a if a <= b else b, so every comparison in the program is a "
               "fixed Boolean combination of comparisons L(counts) >= c with L an integer "
               "linear form of fixed coefficients. Each such comparison is one threshold "
               "gate over the wires phi_k(j), weighted by L's coefficients (a weight a is "
               "|a| copies of the wire; a negative weight is a copy of NOT phi with the "
               "threshold shifted), O(n) wires per gate. The program's fixed length gives "
               "constant depth and size poly(n) for every n; the output position is the "
               "end marker n + 1 (or n)."),
    Edge("star_free", "mpc", "B-RASP ⊆ MPC with O(1/delta) rounds", YCA24 + "; " + GSZ11,
         False,
         "the MPC column's Easy: a round count bounded in N at a fixed delta with memory "
         "O(N^delta) per machine; the input in order, consecutive blocks per machine",
         proof="simulation: every machine keeps, for each position of its block, the values "
               "of the program's Boolean vectors (a fixed number of words per position). A "
               "position-wise statement is local. An attention statement (no position "
               "predicates in B-RASP) has a score and a value that are Boolean formulas of "
               "the vectors at i and at j; for each of the finitely many assignments t of "
               "the i-side atoms they become unary predicates S_t(j), V_t(j). The leftmost "
               "(rightmost) j < i with S_t(j) and its V_t(j) is an exclusive prefix scan with "
               "the associative operation 'first (last) record whose flag is set' on "
               "records (S_t(j), V_t(j)); j > i is a suffix scan, no mask a fold and a "
               "broadcast. Each position then reads the result of its own t locally. "
               + _SCAN + " A fixed program is a fixed number of scans: O(1/delta) rounds, "
               "bounded in N; the output at the last position goes to machine 0 in one "
               "round."),
    Edge("crasp", "mpc", "C-RASP[periodic, local] ⊆ MPC with O(1/delta) rounds",
         YC24 + "; " + GSZ11, False,
         "the MPC column's Easy: a round count bounded in N at a fixed delta with memory "
         "O(N^delta) per machine; words of O(log N) bits hold counts",
         proof="simulation: every machine keeps, for each position of its block, the "
               "program's Boolean vectors and counts (a fixed number of words per position; "
               "a count is at most N + 1, one word). A count #phi is an inclusive prefix scan "
               "with + over phi(j); a locally guarded count #[j = i - K] phi reads phi(i - K), "
               "held by the same or the previous machine once b > K (one round; the finitely "
               "many smaller N take a bounded number of rounds anyway); a periodic predicate "
               "of i is local (a machine knows its index and b). Arithmetic, min, max, "
               "conditionals, comparisons and Boolean operations are local. " + _SCAN
               + " A fixed program is a fixed number of scans: O(1/delta) rounds, bounded in "
               "N; the output at the end marker (the totals: a fold) goes to machine 0."),
)


def check_acyclic(edges: Sequence[Edge]) -> None:
    """Raise :class:`TheoryError` naming a cycle of ``edges`` (an inclusion cycle would
    make two classes equal, which no edge states; it is a declaration error)."""
    succ: dict[str, list[str]] = {}
    for e in edges:
        if e.lower == e.upper:
            raise TheoryError(f"inclusion edge {e.name} is a loop; remove it")
        succ.setdefault(e.lower, []).append(e.upper)
    state: dict[str, int] = {}   # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in succ.get(node, ()):
            if state.get(nxt) == 1:
                cyc = path[path.index(nxt):] + [node, nxt] if nxt in path else [node, nxt]
                raise TheoryError("the declared inclusions between theories form a cycle: "
                                  + " ⊆ ".join(dict.fromkeys(cyc[:-1])) + f" ⊆ {nxt}; "
                                  "remove one of these edges")
            if state.get(nxt) is None:
                visit(nxt, path + [node])
        state[node] = 2

    for node in list(succ):
        if state.get(node) is None:
            visit(node, [])


check_acyclic(EDGES)


def _paths(edges: Sequence[Edge]) -> dict[tuple[str, str], list[tuple[Edge, ...]]]:
    """Every path (a tuple of edges) between every pair of theories; the graph is small
    and acyclic."""
    succ: dict[str, list[Edge]] = {}
    for e in edges:
        succ.setdefault(e.lower, []).append(e)
    out: dict[tuple[str, str], list[tuple[Edge, ...]]] = {}

    def walk(start: str, node: str, path: tuple[Edge, ...]) -> None:
        for e in succ.get(node, ()):
            p = path + (e,)
            out.setdefault((start, e.upper), []).append(p)
            walk(start, e.upper, p)

    for start in dict.fromkeys(e.lower for e in edges):   # declaration order: deterministic
        walk(start, start, ())
    return out


def related(theories: Iterable[str], edges: Sequence[Edge] = EDGES) -> set[str]:
    """The theories whose cells can decide a cell of ``theories``: those below them (an
    Easy comes up) and above them (a Hard comes down), transitively; and themselves."""
    paths = _paths(edges)
    want = set(theories)
    return want | {a for (a, b) in paths if b in want} | {b for (a, b) in paths if a in want}


def consulted(theories: Iterable[str], edges: Sequence[Edge] = EDGES) -> set[str]:
    """The cells :func:`apply` reads to decide the cells of ``theories``: the related
    columns, and theirs in turn (whether a related cell may transfer depends on its own
    conflicts, :func:`apply`)."""
    return related(related(theories, edges), edges)


def _rank(st: Status) -> int:
    return STATUS_ORDER.index(st)


def is_source(p: Prediction) -> bool:
    """Whether a decided cell may decide others (module docstring)."""
    return (p.verdict != Verdict.UNKNOWN and p.status in STATUS_ORDER
            and not (p.evidence or {}).get("missing_lemma"))


def _status_evidence(src: Prediction, path: tuple[Edge, ...]) -> tuple[Status, dict] | None:
    """The transferred status (the weakest of the source's and the edges') and the
    evidence keys it needs (``prediction.status_problem``); None when the source's
    evidence lacks them."""
    sev = to_jsonable(src.evidence or {})
    st = max([src.status, *(e.status for e in path)], key=_rank)
    if st == Status.PROVEN:
        if not (sev.get("identity") or {}).get("all_n"):
            return None   # the source is not proven under the one status policy
        return st, {"proof": (" ; ".join(f"{e.name}: {e.proof or e.theorem}" for e in path)
                              + f" ; and {src.theory} on {src.task} is {src.verdict.value} for "
                              f"all n: {sev.get('proof', '')}"),
                    "identity": sev["identity"]}
    if st == Status.VERIFIED:
        n = sev.get("verified_up_to")
        if not isinstance(n, int) or isinstance(n, bool):
            return None
        ev = {"verified_up_to": n}
        if sev.get("verified_how"):
            ev["verified_how"] = sev["verified_how"]
        return st, ev
    if st == Status.EXTRAPOLATED:
        fit = find_fit(sev)
        return None if fit is None else (st, {"fit": fit})
    if st == Status.CONDITIONAL:
        return (st, {"condition": sev["condition"]}) if sev.get("condition") else None
    if st == Status.CITED:
        why = sev.get("why_cited") if src.status == Status.CITED else None
        if src.status != Status.CITED:
            cited = [e.name for e in path if e.status == Status.CITED]
            why = (f"the inclusion(s) {', '.join(cited)} are cited without a checked theorem "
                   "number or a written argument")
        return (st, {"why_cited": why}) if why else None
    return None


def _source_cell(p: Prediction) -> dict[str, Any]:
    return {"theory": p.theory, "task": str(p.task), "verdict": p.verdict.value,
            "basis": p.basis.value, "status": p.status.value, "status_label": p.status_label,
            "rule": p.rule}


def apply(row: Mapping[str, Prediction], edges: Sequence[Edge] = EDGES,
          order: Sequence[str] | None = None) -> dict[str, Prediction]:
    """One task's cells by theory -> the same cells with the inclusions applied (module
    docstring). Cells that change are copies; the input cells are not modified. ``order``
    (the column order) breaks ties between equally strong candidates."""
    order = list(order or row)
    col = {t: i for i, t in enumerate(order)}
    edges = [e for e in edges if e.lower in row and e.upper in row]
    paths = _paths(edges)
    out = dict(row)
    conflicts: dict[str, list[dict[str, Any]]] = {}
    for (lo, up), ps in paths.items():
        a, b = row[lo], row[up]
        if a.verdict == Verdict.EASY and b.verdict == Verdict.HARD:
            via = " ⊆ ".join([lo] + [e.upper for e in ps[0]])
            for here, there in ((lo, b), (up, a)):
                conflicts.setdefault(here, []).append(
                    {"path": via, "other_cell": _source_cell(there),
                     "missing_lemma": bool((there.evidence or {}).get("missing_lemma")),
                     "why": f"{lo} is Easy and {up} is Hard on {a.task}, but every task Easy "
                            f"in {lo} is Easy in {up} ({via}): one of the two cells is wrong"})
    blocked = {t for t in conflicts}
    for x, p in row.items():
        if x in conflicts:
            q = copy.copy(p)
            q.evidence = {**(p.evidence or {}), "lattice_conflict": conflicts[x]}
            out[x] = q
            continue
        if p.verdict != Verdict.UNKNOWN or not any(x in k for k in paths):
            continue
        cands, notes = [], []
        for (lo, up), ps in paths.items():
            if up == x:
                other, want = row[lo], Verdict.EASY
            elif lo == x:
                other, want = row[up], Verdict.HARD
            else:
                continue
            if other.verdict != want:
                continue
            if not is_source(other):
                notes.append(f"{other.theory} is {want.value} but "
                             + ("conditional on a missing lemma"
                                if (other.evidence or {}).get("missing_lemma")
                                else f"with status {other.status.value}") + ": not transferred")
                continue
            if other.theory in blocked:
                notes.append(f"{other.theory} is {want.value} but contradicted by another "
                             "column (lattice_conflict there): not transferred")
                continue
            for path in ps:
                got = _status_evidence(other, path)
                if got is None:
                    notes.append(f"{other.theory}: its {other.status.value} status has no "
                                 "usable evidence")
                    continue
                cands.append((want, _rank(got[0]), len(path), col.get(other.theory, 0),
                              other, path, got))
        verdicts = {c[0] for c in cands}
        if len(verdicts) > 1:
            notes.append("an Easy column below and a Hard column above: contradicting "
                         "neighbours, nothing transferred")
            cands = []
        if not cands:
            q = copy.copy(p)
            q.tried = list(p.tried) + [{"rule": RULE_NAME, "basis": Basis.THEOREM.value,
                                        "outcome": "; ".join(notes) or
                                        "no column joined to this one by an inclusion "
                                        "decides this task in the transferring direction"}]
            out[x] = q
            continue
        cands.sort(key=lambda c: c[1:4])
        want, _, _, _, src, path, (status, extra) = cands[0]
        out[x] = _transferred(p, src, path, want, status, extra,
                              [f"{c[4].theory} via {' ⊆ '.join([c[5][0].lower] + [e.upper for e in c[5]])}"
                               for c in cands[1:]])
    return out


def _transferred(p: Prediction, src: Prediction, path: tuple[Edge, ...], verdict: Verdict,
                 status: Status, extra: dict, others: list[str]) -> Prediction:
    chain = " ⊆ ".join([path[0].lower] + [e.upper for e in path])
    direction = "up" if verdict == Verdict.EASY else "down"
    ev: dict[str, Any] = {
        # flat per-edge fields rather than a list of edge dicts: explain renders a list of
        # dicts as a table, unreadable with a proof in one column
        "lattice": {"path": chain, "direction": direction,
                    "edges": [e.name for e in path],
                    "edge_status": {e.name: e.status.value for e in path},
                    "edge_proof": {e.name: e.proof or "(none written; cited)" for e in path},
                    "source_cell": _source_cell(src), "other_candidates": others},
        "theorem": {"name": "; ".join(e.theorem for e in path), "statement": chain
                    + (": Easy transfers up" if verdict == Verdict.EASY
                       else ": Hard transfers down (contraposition)"),
                    "source": "; ".join(dict.fromkeys(e.source for e in path)),
                    "condition": "; ".join(e.conditions for e in path)},
        **extra}
    if (p.evidence or {}).get("other_rules"):
        ev["other_rules"] = p.evidence["other_rules"]
    for key in ("extensions",):   # a [tokpos]/[lenpred] Easy keeps its mark upwards
        if verdict == Verdict.EASY and (src.evidence or {}).get(key):
            ev[key] = list(src.evidence[key])
    expl = (f"{src.theory} says {verdict.value} on {src.task} ({src.status_label}, rule "
            f"'{src.rule}'); by the inclusion {chain} ("
            + "; ".join(e.theorem for e in path) + f") {verdict.value} transfers {direction} "
            f"to {p.theory}")
    return Prediction(p.theory, p.task, verdict, Basis.THEOREM, status, ev, expl,
                      rule=RULE_NAME,
                      tried=list(p.tried) + [{"rule": RULE_NAME, "basis": Basis.THEOREM.value,
                                              "outcome": "fired"}])


__all__ = ["Edge", "EDGES", "RULE_NAME", "apply", "check_acyclic", "consulted", "is_source",
           "related"]
