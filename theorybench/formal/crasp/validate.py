"""Static checks of a C-RASP program: every problem, each with its position and reason.

``problems(program, alphabet)`` returns the full list (nothing stops at the first):

* names defined twice, names that are reserved words or clash with an import;
* references to undefined names (with a "did you mean" hint);
* imports of unknown predicates, predicates used with the wrong arity (a binary
  predicate as a value, a unary one as a count guard, a guard that was not imported);
* type errors: a count where a Boolean is needed (operands of ! && ||, the body of #,
  the condition of ``if``) and a Boolean where a count is needed (comparisons, + - *,
  min/max), branches of a conditional of different types;
* cycles among definitions (definitions may refer forwards; the program must be a DAG);
* token literals not in the alphabet, when one is given (program or caller);
* an empty program, or an output (the last definition) that is not Boolean.

``check(program, alphabet)`` raises :class:`ProgramError` with all of them, or returns
the :class:`Checked` program: types of every definition and an evaluation order.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from dataclasses import dataclass

from ...errors import ProgramError, ProgramProblem
from ..program_files import read_program_text
from . import ast as A
from .grammar import KEYWORDS
from .parser import parse, parse_partial
from .predicates import BinaryPredicate, UnaryPredicate, lookup

BOOL, COUNT = "bool", "count"
_BOOL_OPS = (A.Not, A.And, A.Or)
_COUNT_OPS = (A.Add, A.Sub, A.Scale, A.Min, A.Max)


@dataclass
class Checked:
    program: A.Program
    types: dict[str, str]          # definition name -> "bool" | "count"
    order: list[str]               # definitions in an evaluation (topological) order
    predicates: dict[str, UnaryPredicate | BinaryPredicate]


def _prob(msg: str, node) -> ProgramProblem:
    pos = getattr(node, "pos", None)
    return ProgramProblem(msg, *(pos or (None, None)))


def _refs(e: A.Expr) -> list[A.Ref]:
    return [n for n in e.walk() if isinstance(n, A.Ref)]


def _cycles(deps: dict[str, list[str]]) -> list[list[str]]:
    """One representative cycle per strongly connected component that has a cycle."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in deps.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in deps.get(v, ()):
                out.append(_path_in(comp, deps))

    for v in deps:
        if v not in index:
            strong(v)
    return out


def _path_in(comp: list[str], deps) -> list[str]:
    members = set(comp)
    start = min(comp)
    path, seen, v = [start], {start}, start
    while True:
        nxt = sorted(w for w in deps.get(v, ()) if w in members)
        w = start if start in nxt else next((x for x in nxt if x not in seen), start)
        if w == start:
            return path + [start]
        path.append(w)
        seen.add(w)
        v = w


def _toposort(deps: dict[str, list[str]], names: list[str]) -> list[str]:
    order, state = [], {}

    def visit(v):
        if state.get(v) is not None:
            return
        state[v] = 1
        for w in deps.get(v, ()):
            if w in deps:
                visit(w)
        state[v] = 2
        order.append(v)

    for n in names:
        visit(n)
    return order


def analyse(program: A.Program, alphabet=None, require_bool_output: bool = True):
    """(problems, Checked-or-None)."""
    probs: list[ProgramProblem] = []
    alphabet = alphabet if alphabet is not None else program.alphabet
    preds: dict[str, UnaryPredicate | BinaryPredicate] = {}
    for s in program.statements:
        if isinstance(s, A.Import):
            if s.name in preds:
                probs.append(_prob(f"predicate {s.name} is imported twice", s))
                continue
            p = lookup(s.name)
            if p is None:
                probs.append(_prob(
                    f"unknown predicate {s.name!r}: the built-ins are first, pos_even, "
                    f"pos_odd, mod_P_R (i mod P = R), prev/pred (j = i-1), prev_K/predK "
                    f"(j = i-K)", s))
            else:
                preds[s.name] = p
    defs: dict[str, A.Assign] = {}
    for d in program.definitions:
        if d.name in KEYWORDS:
            probs.append(_prob(f"{d.name!r} is a reserved word and cannot be defined", d))
        if d.name in defs:
            first = defs[d.name].pos
            where = f" (first defined at line {first[0]})" if first else ""
            probs.append(_prob(f"{d.name} is defined twice{where}; give it another name", d))
            continue
        if d.name in preds:
            probs.append(_prob(f"{d.name} is already an imported predicate", d))
        defs[d.name] = d
    if not defs:
        # located at 1:1 (where a definition can go) so that every problem has a place
        probs.append(ProgramProblem("the program has no definitions; write one per line as "
                                    "`NAME = expr` (the last one is the output, e.g. "
                                    "`out = # \"1\" > 0`)", 1, 1))

    deps: dict[str, list[str]] = {}
    for name, d in defs.items():
        deps[name] = []
        for r in _refs(d.expr):
            if r.name in defs:
                deps[name].append(r.name)
            elif r.name in preds:
                if isinstance(preds[r.name], BinaryPredicate):
                    probs.append(_prob(f"{r.name} is a binary predicate: use it as a count "
                                       f"guard #[{r.name}] expr, not as a value", r))
            else:
                known = list(defs) + list(preds)
                close = difflib.get_close_matches(r.name, known, n=1)
                hint = (f" (did you mean {close[0]}?)" if close else
                        f"; define it on a line `{r.name} = expr` or correct the name")
                lookup_p = lookup(r.name)
                if lookup_p is not None:
                    hint = f" (it is a built-in predicate: add `#import {r.name}`)"
                probs.append(_prob(f"{r.name} is not defined{hint}", r))
        for n in d.expr.walk():
            if isinstance(n, A.Count) and n.guard is not None:
                g = preds.get(n.guard)
                if g is None:
                    hint = (f"add `#import {n.guard}`" if lookup(n.guard) is not None
                            else "guards are imported binary predicates such as prev")
                    probs.append(_prob(f"count guard {n.guard} is not an imported "
                                       f"predicate ({hint})", n))
                elif not isinstance(g, BinaryPredicate):
                    probs.append(_prob(f"count guard {n.guard} is a unary predicate; a guard "
                                       f"must be binary (e.g. prev)", n))
            if isinstance(n, A.Token) and alphabet is not None and n.symbol != A.EOS \
                    and n.symbol not in alphabet:
                probs.append(_prob(f"token \"{n.symbol}\" is not in the alphabet "
                                   f"{{{', '.join(alphabet)}}}", n))
    cyc = _cycles(deps)
    in_cycle = set()
    for c in cyc:
        in_cycle.update(c)
        probs.append(_prob("definitions form a cycle: " + " -> ".join(c)
                           + " (a C-RASP program is a DAG: each name may use only names "
                           "that do not depend on it)", defs[c[0]]))
    types: dict[str, str] = {}
    order = _toposort({k: v for k, v in deps.items() if k not in in_cycle},
                      [n for n in defs if n not in in_cycle])

    def need(e, want, where):
        t = infer(e)
        if t is not None and t != want:
            what = "a count" if t == COUNT else "a Boolean"
            probs.append(_prob(f"{what} is used where a "
                               f"{'Boolean' if want == BOOL else 'count'} is needed ({where}): "
                               f"{A.expr_text(e)}", e))

    def infer(e: A.Expr):
        if isinstance(e, (A.Token, A.BoolConst)):
            return BOOL
        if isinstance(e, A.IntConst):
            return COUNT
        if isinstance(e, A.Ref):
            if e.name in preds:
                return BOOL if isinstance(preds[e.name], UnaryPredicate) else None
            return types.get(e.name)
        if isinstance(e, _BOOL_OPS):
            op = {A.Not: "operand of !", A.And: "operand of &&", A.Or: "operand of ||"}[type(e)]
            for c in e.children():
                need(c, BOOL, op)
            return BOOL
        if isinstance(e, A.Compare):
            need(e.left, COUNT, f"operand of {e.op}")
            need(e.right, COUNT, f"operand of {e.op}")
            return BOOL
        if isinstance(e, A.Count):
            need(e.body, BOOL, "the body of #")
            return COUNT
        if isinstance(e, _COUNT_OPS):
            op = {A.Add: "+", A.Sub: "-", A.Scale: "*", A.Min: "min", A.Max: "max"}[type(e)]
            for c in e.children():
                need(c, COUNT, f"operand of {op}")
            return COUNT
        if isinstance(e, A.Cond):
            need(e.cond, BOOL, "the condition of if")
            a, b = infer(e.then), infer(e.otherwise)
            if a is not None and b is not None and a != b:
                probs.append(_prob("the branches of `A if C else B` have different types "
                                   f"({a} and {b})", e))
                return None
            return a or b
        raise TypeError(f"not an expression: {e!r}")

    for name in order:
        types[name] = infer(defs[name].expr)
    out = program.output
    last = program.definitions[-1] if program.definitions else None
    # the output is the LAST definition: report it there (when its name repeats an earlier
    # one, that line already has the "defined twice" problem and its type is not known)
    if (require_bool_output and out is not None and defs.get(out) is last
            and types.get(out) == COUNT):
        probs.append(_prob(f"the output {out} (the last definition) is a count; it must be "
                           f"Boolean, e.g. {out}_pos = {out} > 0", last))
    probs.sort(key=lambda p: (p.line or 0, p.column or 0))
    if probs:
        return probs, None
    return probs, Checked(program, types, order, preds)


def lint(text: str, source_name: str = "<program>", alphabet=None) -> list[ProgramProblem]:
    """Every syntax AND validation problem of program text, in line order.

    Lines with syntax errors are left out of validation; references to names defined on
    such lines are not reported again, nor is the output check when the last definition
    line is among them."""
    program, syntax, broken = parse_partial(text, source_name)
    found = list(syntax)
    if program.definitions or not syntax:
        last_broken = bool(syntax) and syntax[-1].line is not None and (
            not program.definitions or (program.definitions[-1].pos or (0,))[0] < syntax[-1].line)
        for p in analyse(program, alphabet, require_bool_output=not last_broken)[0]:
            if any(p.message.startswith(f"{name} is not defined") for name in broken):
                continue
            if p.message.startswith("the program has no definitions") and syntax:
                continue
            found.append(p)
    found.sort(key=lambda p: (p.line or 0, p.column or 0))
    return found


def problems(program: A.Program, alphabet=None, require_bool_output: bool = True):
    """Every problem of ``program`` (empty list if it is valid)."""
    return analyse(program, alphabet, require_bool_output)[0]


def check(program: A.Program, alphabet=None, require_bool_output: bool = True) -> Checked:
    """The checked program, or :class:`ProgramError` listing every problem."""
    probs, checked = analyse(program, alphabet, require_bool_output)
    if probs:
        raise ProgramError(probs, program.source_name)
    return checked


def load(text: str, source_name: str = "<program>", alphabet=None) -> A.Program:
    """Parse and validate program text: the program, or one :class:`ProgramError` with every
    syntax problem, else every validation problem (:func:`.validate.check`; token literals
    against ``alphabet``, by default the program's ``// alphabet:`` line)."""
    program = parse(text, source_name)
    check(program, alphabet)
    return program


def parse_file(path: str | Path, alphabet=None) -> A.Program:
    """Load (parse and validate) a ``.cr`` file, read by the shared loader (regular files
    of bounded size)."""
    return load(read_program_text(path), str(path), alphabet)
