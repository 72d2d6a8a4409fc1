"""Length generalization by positional encoding (docs/theories.md §7a): the theory of Huang
et al., "A formal framework for understanding length generalization in transformers",
ICLR 2025 (arXiv 2410.02140), as a column that predicts per positional encoding.

The paper's idealized learner fits the task on every input up to the training length N
with the least description-length regularizer; its main theorem: a function expressed by a
Limit Transformer whose positional terms are only periodic and local is length-generalized
by that learner for N large enough, and every C-RASP[periodic, local] program (C-RASP,
Yang & Chiang 2024, with periodic unary predicates and counts guarded by j = i - c) has
such a Limit Transformer; without positional encoding, the same for plain C-RASP. Theorem
numbers were not confirmed against a copy of the paper, so the results are named.

Per encoding (``Prediction.lines``, keys ``length_generalization:ENCODING``):

* ``nope``: Easy from the crasp column's checked C-RASP program without positional terms
  (library / task-file / renamed / searched programs, a partially ordered automaton, a
  checked catalogue map); Hard from its lower bounds (a group in the monoid: periodic
  languages such as (aa)* and Parity are not in C-RASP; one-way communication; flip-flop,
  Sigma* b); the crasp cell's status is kept.
* ``learned_offsets`` (learned absolute positions with random offsets, the paper's APE):
  Easy from a NoPE program or a C-RASP[periodic, local] program supplied with a task file,
  checked here with ``check_against_task``; Hard only from results that hold with
  periodic and local predicates: the one-way communication bound (the message at a cut
  gains only the Boolean values at the c positions before it: at most 2^(cF) (L+1)^P
  rows) and Parity (the task checked to be Parity or its complement on every input up to
  max_n; cited). A group or flip-flop alone says nothing here: (aa)* is i mod 2 at the
  end marker, Sigma* b reads the previous position.

The cell pools the encodings: Easy if one is Easy, Hard if all are Hard, else Unknown;
the in-distribution and LLM lines get Unknown entries. Easy means "predicted to
length-generalize under the paper's idealized inference", the program verified up to N.
Hard reads "no program in the fragment" as "predicted to fail", as the authors read their
experiments; C-RASP is contained in the theorem's Limit Transformers, so Hard assumes no
Limit Transformer outside C-RASP decides the task (each Hard entry says so).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from .. import tasks
from ..errors import TaskParameterError, TheorybenchError
from ..formal.crasp.check import check_against_task
from ..formal.crasp.validate import load as load_crasp
from ..formal.search.languages import HUANG25
from ..formal.user_artifacts import serves_only
from ..tasks import TaskRef
from .base import (LENGTH_LINE, STATUS_ORDER, Basis, Context, Prediction, RuleSkip, Status,
                   Theory, Verdict, line_key, line_prediction, rule)
from .closures import RULE_NAME as CATALOGUE_RULE
from .crasp import CHECK_LIMIT, YC24, YV, CRASPTheory

#: The encodings this column predicts for (names of ``experiments.positional``).
NOPE, APE = "nope", "learned_offsets"
ENCODINGS = (NOPE, APE)
WORDS = {NOPE: "without positional encoding (NoPE)",
         APE: "with learned absolute positions trained with random offsets (APE)"}
FRAGMENT = {NOPE: "C-RASP (no positional terms)", APE: "C-RASP[periodic, local]"}

#: crasp rules whose Easy is a C-RASP program checked against the task (the softmax
#: construction is a transformer, not a program, so it is not taken).
PROGRAM_RULES = ("verified program", "program from a partially ordered automaton",
                 CATALOGUE_RULE)
COMMUNICATION = "one-way communication"
IDEAL = ("predicted to length-generalize under the paper's idealized inference (Limit "
         "Transformers; a transformer fitting every input up to the training length with "
         "the least description-length regularizer), not a statement about SGD")
READING = ("Hard reads the framework as its authors read their experiments: no program in "
           "the encoding's fragment, predicted not to length-generalize. The theorem proves "
           "the Easy direction; C-RASP[periodic, local] is contained in the Limit "
           "Transformers it covers, so Hard assumes that no Limit Transformer outside "
           "C-RASP decides the task")
PARITY_RESULT = (f"Parity is not expressible with only periodic and local positional terms "
                 f"(C-RASP[periodic, local] / Limit Transformers satisfying PERIODIC and "
                 f"LOCAL; {HUANG25})")
#: Fewest lengths at which a task must equal Parity before the Parity result is applied.
PARITY_MIN_NS = 4
PARITY_SPACE = 1 << 14


@dataclasses.dataclass
class Entry:
    """One encoding's prediction before it becomes a ``Prediction.lines`` entry."""

    verdict: Verdict
    status: Status
    basis: Basis
    explanation: str
    evidence: dict[str, Any]

    def line(self) -> dict[str, Any]:
        return line_prediction(self.verdict, self.status, self.explanation,
                               {"basis": self.basis.value, **self.evidence})


def _unknown(why: str, **evidence) -> Entry:
    return Entry(Verdict.UNKNOWN, Status.NONE, Basis.NONE, why, evidence)


def _slim(p: Prediction) -> dict[str, Any]:
    """A crasp cell's evidence without the other rules' (large) records, and what it was."""
    ev = {k: v for k, v in (p.evidence or {}).items() if k != "other_rules"}
    ev["crasp_cell"] = {"verdict": p.verdict.value, "rule": p.rule, "basis": p.basis.value,
                        "status": p.status_label}
    return ev


# ---- the two entries -------------------------------------------------------------------

def _nope(family: TaskRef, cell: Prediction) -> Entry:
    if cell.verdict == Verdict.EASY and cell.rule in PROGRAM_RULES:
        ev = _slim(cell)
        ev["theorem"] = (f"a function with a C-RASP program without positional terms is "
                         f"length-generalized by the idealized inference without positional "
                         f"encoding ({HUANG25}; C-RASP: {YC24})")
        return Entry(Verdict.EASY, cell.status, cell.basis,
                     f"{family} is {IDEAL}, {WORDS[NOPE]}: the crasp column has a C-RASP "
                     f"program with no positional terms for it ({cell.rule}; "
                     f"{cell.status_label}): {cell.explanation}", ev)
    if cell.verdict == Verdict.EASY:
        return _unknown(f"the crasp column's Easy for {family} rests on '{cell.rule}', not on "
                        f"a C-RASP program checked against the task, so it is not taken here",
                        crasp_cell=_slim(cell)["crasp_cell"])
    if cell.verdict == Verdict.HARD:
        ev = _slim(cell)
        ev["reading"] = READING
        return Entry(Verdict.HARD, cell.status, cell.basis,
                     f"{family} is predicted not to length-generalize {WORDS[NOPE]}: no plain "
                     f"C-RASP program decides it (crasp column, {cell.rule}; "
                     f"{cell.status_label}): {cell.explanation}", ev)
    return _unknown(f"no C-RASP program without positional terms was found for {family} and "
                    f"no lower bound for plain C-RASP applies (crasp column: "
                    f"{cell.explanation})", crasp_cell=_slim(cell)["crasp_cell"])


def _periodic_programs(family: TaskRef) -> list[dict[str, Any]]:
    """The C-RASP[periodic, local] programs supplied with the task file (records of
    :mod:`..formal.user_artifacts`), at the parameters they were supplied for."""
    cls = tasks.family(family)
    recs = [a for a in getattr(cls, "artifacts", ()) or ()
            if a.get("language") == "C-RASP" and a.get("fragment") == FRAGMENT[APE]]
    if not recs:
        return []
    probe = next((i for n in getattr(cls, "analysis_ns", ()) or range(1, 17)
                  if (i := _instance(family, n)) is not None), None)
    if probe is None or not serves_only(cls)(probe):
        return []
    return recs


def _instance(family: TaskRef, n: int):
    try:
        return tasks.get(family, n=n)
    except TaskParameterError:
        return None


def _check_periodic(family: TaskRef, rec: dict[str, Any], ctx: Context) -> Entry | str:
    """A supplied C-RASP[periodic, local] program checked against the task as the crasp
    column checks a library program; Easy, verified <= N, or why not."""
    cls = tasks.family(family)
    alphabet = tuple(cls.alphabet)
    program = load_crasp(rec["program"], rec["origin"], alphabet).with_alphabet(alphabet)
    report = check_against_task(program, family, ctx.max_n, samples=500,
                                exhaustive_limit=CHECK_LIMIT,
                                rng=np.random.default_rng(ctx.seed))
    ev = {"program": rec["program"], "origin": rec["origin"], "fragment": FRAGMENT[APE],
          "imports": list(program.imports), "check": report.to_dict()}
    if not report.ok:
        return f"the program supplied in {rec['origin']} fails its check: {report.counterexample}"
    ns = sorted(report.sizes)
    ev.update(verified_ns=ns, exhaustive_up_to=report.exhaustive_up_to,
              verified_up_to=int(ns[-1]), size=report.sizes[ns[-1]])
    sampled = [n for n in ns if n > (report.exhaustive_up_to or 0)]
    if sampled:
        ev["verified_how"] = (f"every input up to n = {report.exhaustive_up_to}, samples at "
                              f"n = {sampled}")
    ev["theorem"] = (f"a C-RASP[periodic, local] program has a Limit Transformer satisfying "
                     f"PERIODIC and LOCAL, and such functions are length-generalized by the "
                     f"idealized inference with absolute positional encodings ({HUANG25})")
    return Entry(Verdict.EASY, Status.VERIFIED, Basis.CONSTRUCTION,
                 f"{family} is {IDEAL}, {WORDS[APE]}: the C-RASP[periodic, local] program "
                 f"supplied in {rec['origin']} (imports {', '.join(program.imports)}) decides "
                 f"it; checked on all inputs up to n={report.exhaustive_up_to} and on samples "
                 f"up to n={ns[-1]}, so verified <= {ns[-1]}", ev)


def _communication_entry(family: TaskRef, p: Prediction, how: str) -> Entry:
    ev = _slim(p) if p.theory == "crasp" else {k: v for k, v in p.evidence.items()
                                               if k != "other_rules"}
    ev["extension"] = ("with periodic and local predicates the one-way message at a cut is "
                       "the P prefix counts plus the F Boolean values at the last c positions "
                       "before the cut (periodic predicates are functions of the position, "
                       "known to both sides), so the rows are at most 2^(cF) (L+1)^P and the "
                       "complexity is still O(log L)")
    ev["reading"] = READING
    return Entry(Verdict.HARD, p.status, p.basis,
                 f"{family} is predicted not to length-generalize {WORDS[APE]}: its one-way "
                 f"communication grows faster than log L ({how}; {p.status_label}), and a "
                 f"C-RASP[periodic, local] program, like a plain one, is simulated by an "
                 f"O(log L)-bit message: {p.explanation}", ev)


def _catalogue_on_communication(cell: Prediction) -> bool:
    src = (cell.evidence or {}).get("source_cell") or {}
    return cell.rule == CATALOGUE_RULE and src.get("rule") == COMMUNICATION


def parity_identity(family: TaskRef, max_n: int) -> dict[str, Any] | str:
    """Whether the task's decision function is Parity (or its complement) of its inputs
    over two letters, on every input of every n = 1..max_n it accepts: one letter read as 1,
    the same letter and the same polarity at every n. The record, or why not."""
    rows, fits = [], None
    for n in range(1, max_n + 1):
        inst = _instance(family, n)
        if inst is None:
            continue
        df = inst.decision_view()[0]
        choices = {tuple(c) for c in df.choices}
        if len(choices) != 1 or len(next(iter(choices))) != 2 or df.valid is not None:
            return (f"at n={n} the decision function's inputs are not every word over one "
                    f"two-letter alphabet")
        if df.space_size() > PARITY_SPACE:
            break
        x = np.asarray(df.enumerate(limit=PARITY_SPACE), dtype=np.int64)
        y = np.asarray(df.evaluate(x)).astype(np.int64).reshape(len(x))
        letters = next(iter(choices))
        here = set()
        for one in letters:
            odd = (x == one).sum(axis=1) % 2
            for flip in (0, 1):
                if np.array_equal(y, odd ^ flip):
                    here.add((one, flip))
        fits = here if fits is None else fits & here
        if not fits:
            return f"at n={n} the decision function is not Parity nor its complement"
        rows.append({"n": n, "inputs": int(len(x))})
    if len(rows) < PARITY_MIN_NS:
        return (f"fewer than {PARITY_MIN_NS} lengths could be checked on every input "
                f"({[r['n'] for r in rows]})")
    one, flip = sorted(fits)[0]
    vocab = tasks.get(family, n=rows[0]["n"]).vocab
    return {"object": "the complement of Parity" if flip else "Parity",
            "letter_read_as_1": vocab[int(one)], "checked": rows,
            "checked_up_to": int(rows[-1]["n"]),
            "how": "the decision function on every input at each n"}


def _parity_entry(family: TaskRef, ctx: Context) -> Entry | str:
    ident = parity_identity(family, ctx.max_n)
    if isinstance(ident, str):
        return f"not Parity: {ident}"
    n = ident["checked_up_to"]
    ev = {"parity_identity": ident, "theorem": PARITY_RESULT, "reading": READING,
          "map_checked_up_to": n,
          "why_cited": (f"the Parity result is cited from {HUANG25} without a confirmed "
                        f"theorem number; the task was identified with {ident['object']} "
                        f"on every input up to n = {n}, not for every n")}
    return Entry(Verdict.HARD, Status.CITED, Basis.THEOREM,
                 f"{family} is predicted not to length-generalize {WORDS[APE]}: its decision "
                 f"function is {ident['object']} ('{ident['letter_read_as_1']}' read as 1; "
                 f"checked on every input for n = {ident['checked'][0]['n']}..{n}), which the "
                 f"paper shows no program with only periodic and local positional terms "
                 f"expresses (cited)", ev)


def _ape(family: TaskRef, cell: Prediction, nope: Entry, ctx: Context) -> Entry:
    tried: list[str] = []
    if nope.verdict == Verdict.EASY:
        ev = dict(nope.evidence)
        ev["inclusion"] = ("a program without positional terms is a C-RASP[periodic, local] "
                           "program (a Limit Transformer may ignore its positional encoding)")
        return Entry(Verdict.EASY, nope.status, nope.basis,
                     f"{family} is {IDEAL}, {WORDS[APE]} as well: the C-RASP program without "
                     f"positional terms is in C-RASP[periodic, local] ({cell.rule}; "
                     f"{cell.status_label})", ev)
    for rec in _periodic_programs(family):
        got = _check_periodic(family, rec, ctx)
        if isinstance(got, Entry):
            return got
        tried.append(got)
    if cell.verdict == Verdict.HARD and cell.rule == COMMUNICATION:
        return _communication_entry(family, cell, "crasp column, one-way communication")
    if cell.verdict == Verdict.HARD and _catalogue_on_communication(cell):
        return _communication_entry(family, cell, "crasp column, a split-preserving catalogue "
                                                  "reduction from a task whose Hard rests on "
                                                  "one-way communication")
    ran = next((t for t in cell.tried if t["rule"] == COMMUNICATION), None)
    if ran is None or ran["outcome"] == "fired":
        out = CRASPTheory().communication(family, ctx)   # profiles are cached (lru)
        if isinstance(out, Prediction):
            return _communication_entry(family, out, "one-way communication")
        tried.append(f"one-way communication: {out.reason}")
    else:
        tried.append(f"one-way communication: {ran['outcome']}")
    par = _parity_entry(family, ctx)
    if isinstance(par, Entry):
        return par
    tried.append(par)
    if not _periodic_programs(family):
        tried.insert(0, "no C-RASP[periodic, local] program is supplied with the task and "
                        "none without positional terms was found (crasp column: "
                        f"{cell.verdict.value}" + (f", {cell.rule}" if cell.rule else "")
                     + ")")
    plain = (" The plain C-RASP lower bound of the crasp column does not apply here: "
             "periodic and local predicates express, e.g., (aa)* and Sigma* b."
             if cell.verdict == Verdict.HARD else "")
    return _unknown(f"no C-RASP[periodic, local] program and no non-expressibility result for "
                    f"C-RASP[periodic, local] for {family}: " + "; ".join(tried) + "." + plain,
                    tried=tried, crasp_cell=_slim(cell)["crasp_cell"])


def encoding_entries(family: "TaskRef | str", ctx: Context) -> dict[str, Entry]:
    """The per-encoding entries of ``family`` (cached in ``ctx.cache`` for the run; the
    crasp column's cell comes from the same cache when that column has run, else it is
    computed, with the same result either way)."""
    ref = TaskRef.of(family)
    key = ("huang_lg", "encodings", ref)
    if ctx.cache is not None and key in ctx.cache:
        return ctx.cache[key]
    try:
        cell = CRASPTheory().predict(ref, ctx)
        nope = _nope(ref, cell)
        out = {NOPE: nope, APE: _ape(ref, cell, nope, ctx)}
    except TheorybenchError as exc:
        why = f"the C-RASP analysis of {ref} failed: {type(exc).__name__}: {exc}"
        out = {e: _unknown(why) for e in ENCODINGS}
    if ctx.cache is not None:
        ctx.cache[key] = out
    return out


def _weakest(entries: list[Entry]) -> Entry:
    """The entry with the weakest status (and, among verified ones, the smallest N)."""
    return max(entries, key=lambda e: (STATUS_ORDER.index(e.status),
                                       -int(e.evidence.get("verified_up_to") or 0)))


def _strongest(entries: list[Entry]) -> Entry:
    return min(entries, key=lambda e: (STATUS_ORDER.index(e.status),
                                       -int(e.evidence.get("verified_up_to") or 0)))


def _summary(entries: dict[str, Entry]) -> str:
    return "; ".join(f"{e}: {x.verdict.value}" + (f" ({x.status.value})"
                                                  if x.verdict != Verdict.UNKNOWN else "")
                     for e, x in entries.items())


class HuangLG(Theory):
    name = "huang_lg"
    title = ("Length generalization by positional encoding (Huang et al. 2025: Limit "
             "Transformers, C-RASP[periodic, local])")
    summary = ("Predicts length generalization per positional encoding under the idealized "
               "inference of Huang et al. (ICLR 2025): with learned absolute positions (APE) "
               "a task generalizes when a C-RASP[periodic, local] program decides it, without "
               "positional encoding (NoPE) when a C-RASP program without positional terms "
               "does. Hard where a non-expressibility result for that fragment applies; the "
               "cell is Easy if some encoding is Easy, Hard if every encoding is Hard.")
    assumptions = (
        "the learner is the paper's idealized inference (Limit Transformers; fit every input "
        "up to the training length with the least description-length regularizer), not SGD",
        "APE = learned absolute positions trained with random offsets (the encoding "
        "'learned_offsets'); NoPE = no positional encoding (the encoding 'nope')",
        "Easy: a program of the encoding's fragment, checked against the task up to n = N "
        "(verified <= N), and the paper's theorem for that fragment",
        "Hard: a non-expressibility result for the encoding's fragment (plain C-RASP for "
        "NoPE; only the communication bound and Parity for C-RASP[periodic, local]), read as "
        "'predicted to fail'; this assumes no Limit Transformer outside C-RASP decides the "
        "task",
        "acceptance at an appended end marker, as in the crasp column",
        "no prediction for the in-distribution and LLM lines",
    )
    sources = (
        f"{HUANG25}: C-RASP[periodic, local] (C-RASP with periodic unary and local binary "
        "positional predicates); the main theorem (a function expressible by a Limit "
        "Transformer satisfying PERIODIC and LOCAL is length-generalized by the idealized "
        "inference); the translation of C-RASP[periodic, local] programs into such Limit "
        "Transformers; the limitation by communication complexity; Parity not expressible "
        "(theorem numbers not confirmed here, so not given)",
        YC24, YV)
    #: the crasp cell it reads already carries C-RASP's checked reductions
    reduction_closures = ()

    def _entries(self, family, ctx: Context) -> dict[str, Entry]:
        return encoding_entries(family, ctx)

    @rule("C-RASP program for some encoding", Basis.CONSTRUCTION)
    def easy_somewhere(self, family, ctx: Context):
        """Easy when some encoding's entry is Easy (a program of its fragment, checked)."""
        entries = self._entries(family, ctx)
        easy = [e for e in ENCODINGS if entries[e].verdict == Verdict.EASY]
        if not easy:
            return RuleSkip(f"no encoding is predicted to length-generalize ({_summary(entries)})")
        best = _strongest([entries[e] for e in easy])
        ev = dict(best.evidence)
        ev["encodings"] = {e: entries[e].verdict.value for e in ENCODINGS}
        return self.prediction(family, Verdict.EASY, best.basis, best.status, ev,
                               f"Easy for {' and '.join(easy)} ({_summary(entries)}). "
                               f"{best.explanation}")

    @rule("no program under any encoding", Basis.LOWER_BOUND)
    def hard_everywhere(self, family, ctx: Context):
        """Hard when every encoding's entry is Hard; the cell takes the weakest status."""
        entries = self._entries(family, ctx)
        if not all(entries[e].verdict == Verdict.HARD for e in ENCODINGS):
            return RuleSkip(f"not every encoding is predicted to fail ({_summary(entries)})")
        worst = _weakest([entries[e] for e in ENCODINGS])
        ev = dict(worst.evidence)
        ev["encodings"] = {e: {"verdict": x.verdict.value, "status": x.status.value,
                               "explanation": x.explanation} for e, x in entries.items()}
        return self.prediction(
            family, Verdict.HARD, worst.basis, worst.status, ev,
            f"Hard for every encoding ({_summary(entries)}). "
            + " ".join(f"[{e}] {entries[e].explanation}." for e in ENCODINGS))

    def predict(self, family: "TaskRef | str", context: Context | None = None) -> Prediction:
        """The pooled cell, with one ``lines`` entry per encoding and Unknown entries for
        the lines the theory says nothing about."""
        ref = TaskRef.of(family)
        ctx = context or Context()
        if ctx.cache is None:
            ctx = dataclasses.replace(ctx, cache={})
        p = copy.copy(super().predict(ref, ctx))
        entries = self._entries(ref, ctx)
        lines = {line_key(LENGTH_LINE, e): entries[e].line() for e in ENCODINGS}
        for other in ("in_distribution", "llm"):
            lines[line_key(other)] = line_prediction(
                Verdict.UNKNOWN, Status.NONE,
                f"Huang et al.'s theory is about length generalization; it predicts nothing "
                f"for the {other.replace('_', '-')} line")
        # an encoding other than the two the theory is about gets no verdict from it
        lines[line_key(LENGTH_LINE, "*")] = line_prediction(
            Verdict.UNKNOWN, Status.NONE,
            f"the theory predicts for {' and '.join(ENCODINGS)} only")
        p.lines = lines
        return p


#: The matrix columns this module defines (see registry.THEORY_MODULES).
THEORIES = (HuangLG,)
