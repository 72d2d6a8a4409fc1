"""Proofs for every length: a C-RASP program decides a task's language, by induction.

The program and the task's specification are counter machines
(:mod:`.counter_machines`). Run side by side on one word, their joint state after p
positions is (program counts c, specification registers s, p). An invariant I(c, s, p)
proves the program correct for every length when z3 shows

1. I holds initially (c = 0, s = s0, p = 0);
2. I is inductive: I(c, s, p) and one more token a give I(c', s', p + 1);
3. I implies the answers agree: at every valid length p, the program's output at the
   end marker (one more step, on the end marker) equals the specification's acceptance.

The invariant is found, not guessed: candidate facts from templates (bounds, linear
equalities among registers with coefficients in {-1, 0, 1}, a Boolean register equal to
a sign test of a count) are kept only if every joint state reached by the words of length
at most ``sample_len`` satisfies them, then pruned to the largest inductive subset
(Houdini: drop what z3 refutes as a step, repeat). Step 3 is checked last. A failed
step 3 is not a disproof: the shortest counterexample is searched exhaustively with the
interpreter against the task's reference, and without one the answer is "unknown".

What a "proved" answer covers: for every length, the program equals the specification
machine (z3, unbounded integers); the specification equals the task's reference on every
input up to ``spec_check_n`` (a finite check, stated in the result); the translation of
the program into a machine equals the interpreter on every word up to ``translation_len``.
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import z3

from .. import tasks
from ..errors import TaskParameterError
from ..formal import crasp
from ..formal.crasp import ast as A
from .counter_machines import (NotACounterMachine, NumpyOps, ProgramMachine, SpecMachine,
                               Z3Ops, spec_for, SPEC_FAMILIES)
from .counter_machines import tok_is as machine_tok

#: Largest number of words of one length enumerated by the finite checks.
MAX_WORDS = 1 << 16


@dataclass
class InductionResult:
    status: str                       # "proved" | "counterexample" | "unknown"
    family: str
    params: dict[str, Any]
    spec: str
    invariant: list[str] = field(default_factory=list)
    counterexample: str | None = None
    reason: str = ""
    spec_check_n: int = 0             # spec = task reference on every input up to this n
    translation_len: int = 0          # machine = interpreter on every word up to this length
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "family": self.family, "params": self.params,
                "specification": self.spec, "invariant": self.invariant,
                "counterexample": self.counterexample, "reason": self.reason,
                "spec_checked_up_to_n": self.spec_check_n,
                "translation_checked_up_to_length": self.translation_len,
                "seconds": round(self.seconds, 3)}

    def summary(self) -> str:
        if self.status == "proved":
            return (f"PROVED for every length: the program accepts exactly the words the "
                    f"specification machine accepts ({self.spec}); the specification equals "
                    f"the {self.family} reference on every input up to n = "
                    f"{self.spec_check_n} (a finite check)")
        if self.status == "counterexample":
            return f"COUNTEREXAMPLE: {self.counterexample!r} ({self.reason})"
        return f"UNKNOWN: {self.reason}"


def _words(size: int, length: int) -> np.ndarray:
    """Every word of ``length`` letters over ``range(size)``, lexicographic (int64 rows)."""
    if length == 0:
        return np.zeros((1, 0), dtype=np.int64)
    idx = np.arange(size ** length, dtype=np.int64)  # size ** length <= MAX_WORDS
    return np.stack(np.unravel_index(idx, (size,) * length), axis=1).astype(np.int64)


def _lengths(limit_words: int, size: int, up_to: int) -> list[int]:
    return [L for L in range(up_to + 1) if size ** L <= limit_words]


def _task_words(spec: SpecMachine, family: str, params: dict, up_to: int):
    """(n, words as alphabet indices, their strings, the reference's answers) for every
    valid n <= up_to whose words can all be enumerated."""
    for n in range(1, up_to + 1):
        if len(spec.alphabet) ** n > MAX_WORDS:
            return
        try:
            task = tasks.get(family, n=n, **params)
        except TaskParameterError:
            continue  # n not valid for the family (Majority's even n)
        vocab = list(task.vocab)
        ids = np.array([vocab.index(s) for s in spec.alphabet], dtype=np.int64)
        words = _words(len(spec.alphabet), n)
        ref = np.asarray(task.label(ids[words])).reshape(-1).astype(bool)
        yield n, words, [" ".join(spec.alphabet[i] for i in w) for w in words], ref


def check_spec(spec: SpecMachine, family: str, params: dict, max_n: int) -> int:
    """The largest n <= max_n up to which ``spec`` equals the task's reference on every
    input of every valid length; raises if they differ (a wrong specification)."""
    checked = 0
    for n, words, strings, ref in _task_words(spec, family, params, max_n):
        got = spec.accepts(words)
        if not np.array_equal(ref, got):
            bad = int(np.flatnonzero(ref != got)[0])
            raise AssertionError(f"the {family} specification machine disagrees with the "
                                 f"reference at {strings[bad]!r}")
        checked = n
    return checked


def check_translation(machine: ProgramMachine, alphabet: tuple[str, ...], up_to: int) -> int:
    """The largest length up to which the machine's acceptance equals the interpreter's."""
    done = 0
    for L in _lengths(MAX_WORDS, len(alphabet), up_to):
        if L == 0:
            continue
        words = _words(len(alphabet), L)
        strings = [" ".join(alphabet[i] for i in w) for w in words]
        want = np.asarray(crasp.run(machine.program, strings, alphabet=alphabet).accept, dtype=bool)
        got = machine.accepts(words, alphabet)
        if not np.array_equal(want, got):
            bad = int(np.flatnonzero(want != got)[0])
            raise AssertionError(f"counter-machine translation disagrees with the "
                                 f"interpreter on {strings[bad]!r}")
        done = L
    return done


def shortest_counterexample(program: A.Program, spec: SpecMachine, family: str,
                            params: dict, up_to: int) -> str | None:
    """The shortest word (of a valid length <= up_to) on which the program's answer differs
    from the task's reference, by exhaustive search with the interpreter."""
    for _, _, strings, ref in _task_words(spec, family, params, up_to):
        got = np.asarray(crasp.run(program, strings, alphabet=spec.alphabet).accept,
                         dtype=bool)
        diff = np.flatnonzero(ref != got)
        if len(diff):
            return strings[int(diff[0])]
    return None


# ---- the joint machine, concretely and in z3 -----------------------------------------------

def _reached_states(machine: ProgramMachine, spec: SpecMachine, length: int):
    """Every joint state (c, s, p) reached by the words of length <= ``length``."""
    rows = []
    for L in _lengths(MAX_WORDS, len(spec.alphabet), length):
        words = _words(len(spec.alphabet), L)
        ops = NumpyOps(words.shape[:1])
        c, s = machine.init(ops), spec.init(ops)
        rows.append((c, s, np.zeros(len(words), dtype=np.int64)))
        for col in range(L):
            tok_is = machine_tok(spec.alphabet, words[:, col])
            c, _ = machine.step(ops, c, tok_is, ops.bool_(False))
            s = spec.step(ops, s, tok_is)
            rows.append((c, s, np.full(len(words), col + 1, dtype=np.int64)))
    return rows


@dataclass
class _Candidate:
    text: str
    build: Any          # (vals: dict name -> value, ops) -> Boolean


def _candidates(int_names: list[str], bool_names: list[str]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for v in int_names:
        if v != "p":
            out.append(_Candidate(f"{v} >= 0", lambda x, o, v=v: x[v] >= 0))
            out.append(_Candidate(f"{v} <= p", lambda x, o, v=v: x[v] <= x["p"]))
    # linear equalities with up to three terms, coefficients +-1, constant 0
    for size in (2, 3):
        for names in itertools.combinations(int_names, size):
            for signs in itertools.product((1, -1), repeat=size - 1):
                coef = (1,) + signs
                text = " ".join(("+ " if c > 0 else "- ") + n
                                for c, n in zip(coef, names))[2:] + " == 0"

                def build(x, o, names=names, coef=coef):
                    total = 0
                    for c, n in zip(coef, names):
                        total = total + (x[n] if c > 0 else -x[n])
                    return total == 0
                out.append(_Candidate(text, build))
    for b in bool_names:
        for v in int_names:
            if v == "p":
                continue
            out.append(_Candidate(f"{b} == ({v} > 0)",
                                  lambda x, o, b=b, v=v: x[b] == (x[v] > 0)))
            out.append(_Candidate(f"{b} == ({v} == 0)",
                                  lambda x, o, b=b, v=v: x[b] == (x[v] == 0)))
    for b in bool_names:
        out.append(_Candidate(f"{b}", lambda x, o, b=b: x[b]))
        out.append(_Candidate(f"!{b}", lambda x, o, b=b: o.not_(x[b])))
    return out


def prove(program: A.Program, family: str, params: dict[str, Any] | None = None, *,
          spec_check_n: int = 12, sample_len: int = 8, search_len: int = 12,
          bmc_len: int = 40, timeout_s: float = 60.0) -> InductionResult:
    """Prove that ``program`` decides ``family`` (with ``params``) at every length, or
    find the shortest counterexample, or say why neither was reached."""
    t0 = time.perf_counter()
    params = dict(params or {})
    spec = spec_for(family, params)
    res = InductionResult("unknown", family, params, spec.description if spec else "")
    if spec is None:
        res.reason = (f"no specification machine for {family} {params or ''}: induction is "
                      f"available for {', '.join(SPEC_FAMILIES)}")
        return _done(res, t0)
    try:
        machine = ProgramMachine.of(program)
    except NotACounterMachine as exc:
        res.reason = str(exc)
        return _done(res, t0)
    res.spec_check_n = check_spec(spec, family, params, spec_check_n)
    res.translation_len = check_translation(machine, spec.alphabet, sample_len)

    cex = shortest_counterexample(program, spec, family, params, search_len)
    if cex is not None:
        res.status, res.counterexample = "counterexample", cex
        res.reason = (f"the program's answer on this word differs from the {family} "
                      f"reference (the shortest such word, by exhaustive search)")
        return _done(res, t0)

    cnames = [f"c{i}" for i in range(len(machine.counts))]
    shown = dict(zip(cnames, machine.names))
    int_regs = [r for r, k in spec.registers if k == "int"]
    bool_regs = [r for r, k in spec.registers if k == "bool"]
    ints = cnames + [f"s.{r}" for r in int_regs] + ["p"]
    bools = [f"s.{r}" for r in bool_regs]
    cands = _candidates(ints, bools)

    # keep what every reached state satisfies
    for c, s, p in _reached_states(machine, spec, sample_len):
        vals = {**dict(zip(cnames, c)), **{f"s.{k}": v for k, v in s.items()}, "p": p}
        ops = NumpyOps(p.shape)
        cands = [cd for cd in cands if bool(np.all(cd.build(vals, ops)))]

    # the symbolic joint step
    z = Z3Ops
    cur = {n: z3.Int(n) for n in ints}
    cur.update({n: z3.Bool(n) for n in bools})
    a = z3.Int("a")
    tok_is = lambda sym: (a == spec.alphabet.index(sym)) if sym in spec.alphabet \
        else z3.BoolVal(False)
    c_new, _ = machine.step(z, [cur[n] for n in cnames], tok_is, z3.BoolVal(False))
    s_new = spec.step(z, {r: cur[f"s.{r}"] for r, _ in spec.registers}, tok_is)
    nxt = {**dict(zip(cnames, c_new)), **{f"s.{k}": v for k, v in s_new.items()},
           "p": cur["p"] + 1}
    token_ok = z3.And(a >= 0, a < len(spec.alphabet))
    init = {**{n: z3.IntVal(0) for n in cnames},
            **{f"s.{k}": v for k, v in spec.init(z).items()}, "p": z3.IntVal(0)}

    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout_s * 1000)))

    def valid(formula) -> str:
        solver.push()
        solver.add(z3.Not(formula))
        r = solver.check()
        solver.pop()
        return "valid" if r == z3.unsat else ("unknown" if r == z3.unknown else "invalid")

    cands = [cd for cd in cands if valid(cd.build(init, z)) == "valid"]
    while True:  # Houdini: the largest inductive subset of the candidates
        hyp = z3.And([cd.build(cur, z) for cd in cands] + [token_ok])
        keep = []
        for cd in cands:
            verdict = valid(z3.Implies(hyp, cd.build(nxt, z)))
            if verdict == "unknown":
                res.reason = f"z3 returned unknown on the step of {cd.text} (timeout?)"
                return _done(res, t0)
            if verdict == "valid":
                keep.append(cd)
        if len(keep) == len(cands):
            break
        cands = keep
        if time.perf_counter() - t0 > timeout_s:
            res.reason = f"the invariant search ran past {timeout_s:g} s"
            return _done(res, t0)

    inv = z3.And([cd.build(cur, z) for cd in cands])
    _, out_eos = machine.step(z, [cur[n] for n in cnames], lambda s: z3.BoolVal(False),
                              z3.BoolVal(True))
    agree = out_eos == spec.accept(z, {r: cur[f"s.{r}"] for r, _ in spec.registers})
    verdict = valid(z3.Implies(z3.And(inv, spec.valid_length(z, cur["p"])), agree))
    res.invariant = [_readable(cd.text, shown) for cd in cands]
    if verdict == "valid":
        res.status = "proved"
        res.reason = "z3: the invariant holds initially, is inductive, and implies agreement"
        return _done(res, t0)
    word = bounded_search(machine, spec, search_len + 1, bmc_len,
                          max(1.0, timeout_s - (time.perf_counter() - t0)))
    if isinstance(word, str):
        _confirm(program, word, family, params)
        res.status, res.counterexample = "counterexample", word
        res.reason = (f"the program's answer on this word differs from the specification "
                      f"(the shortest such word: exhaustive search up to length {search_len}, "
                      f"then z3 bounded model checking)")
    else:
        res.reason = (f"no counterexample up to length {word} (exhaustive to {search_len}, "
                      f"z3 beyond), but the candidate invariants (bounds, linear equalities, "
                      f"sign tests) do not imply agreement at the end marker (z3: {verdict})")
    return _done(res, t0)


def _confirm(program: A.Program, word: str, family: str, params: dict) -> None:
    """A counterexample found against the specification, confirmed against the reference."""
    syms = word.split()
    task = tasks.get(family, n=len(syms), **params)
    ref = bool(np.asarray(task.label(task.parse(word)[None, :])).reshape(-1)[0])
    if bool(crasp.run(program, [word]).accept[0]) == ref:
        raise AssertionError(f"the {family} specification machine is wrong at {word!r}")


def bounded_search(machine: ProgramMachine, spec: SpecMachine, start: int, stop: int,
                   timeout_s: float) -> str | int:
    """The shortest word of a valid length in ``start..stop`` on which the program and the
    specification disagree (z3 over symbolic tokens), or the last length fully searched."""
    z = Z3Ops
    solver = z3.Solver()
    deadline = time.perf_counter() + timeout_s
    c, s = machine.init(z), spec.init(z)
    toks = []
    for L in range(1, stop + 1):
        a = z3.Int(f"a{L}")
        toks.append(a)
        solver.add(a >= 0, a < len(spec.alphabet))
        tok_is = (lambda a: lambda sym: (a == spec.alphabet.index(sym))
                  if sym in spec.alphabet else z3.BoolVal(False))(a)
        c, _ = machine.step(z, c, tok_is, z3.BoolVal(False))
        s = spec.step(z, s, tok_is)
        if L < start:
            continue
        if not z3.is_true(z3.simplify(spec.valid_length(z, z3.IntVal(L)))):
            continue
        _, out = machine.step(z, c, lambda sym: z3.BoolVal(False), z3.BoolVal(True))
        left = deadline - time.perf_counter()
        if left <= 0:
            return L - 1
        solver.set("timeout", max(1, int(left * 1000)))
        solver.push()
        solver.add(out != spec.accept(z, s))
        r = solver.check()
        if r == z3.sat:
            m = solver.model()
            word = " ".join(spec.alphabet[m.eval(t, model_completion=True).as_long()]
                            for t in toks)
            solver.pop()
            return word
        solver.pop()
        if r == z3.unknown:
            return L - 1
    return stop


def _readable(text: str, shown: dict[str, str]) -> str:
    return re.sub(r"\bc\d+\b", lambda m: shown.get(m.group(0), m.group(0)), text)


def _done(res: InductionResult, t0: float) -> InductionResult:
    res.seconds = time.perf_counter() - t0
    return res
