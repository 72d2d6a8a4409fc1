"""C-RASP programs from partially ordered automata, against Python's ``re`` as the oracle,
and the partial-order test against R-triviality computed on the transition monoid."""

import itertools
import pathlib
import re

import numpy as np
import pytest

from theorybench.formal import crasp
from theorybench.formal.automata import DFA
from theorybench.formal.automata.monoid import transition_monoid
from theorybench.formal.crasp.from_automaton import partially_ordered, program_for
from theorybench.tasks.user_regular import from_regex
from theorybench.theories.base import Context, RuleSkip, Status, Verdict, check_json
from theorybench.theories.crasp import CRASPTheory

AB, ABC = ("a", "b"), ("a", "b", "c")
CASES = [("a*b*", AB), ("(a|b)*a(a|b)*b(a|b)*", AB), ("a(a|b|c)*", ABC), ("b*ab*", AB),
         ("(a|b)*ab(a|b)*", AB), ("c*a(a|b|c)*b(a|c)*", ABC), ("a*b*a*b*", AB),
         ("(a|b)*a(a|b)*a(a|b)*", AB), ("b*|b*a(a|b)*", AB)]
NOT_PO = [("(ab)*", AB), ("(a|b)*b", AB), ("(a|b|c)*ab(a|b|c)*", ABC), ("(aa)*", AB)]


def regex_dfa(pattern, alphabet) -> DFA:
    t = from_regex(pattern, alphabet)
    return DFA(tuple(alphabet), np.asarray(t.delta), np.asarray(t.accept), int(t.start)).minimize()


@pytest.mark.parametrize("pattern,alphabet", CASES)
def test_program_equals_the_regex_on_every_short_word(pattern, alphabet):
    prog = program_for(regex_dfa(pattern, alphabet))
    assert not isinstance(prog, str), prog
    assert crasp.parse(crasp.to_text(prog)) == prog          # valid program text
    rx = re.compile(pattern)
    for m in range(0, 9):
        words = ["".join(w) for w in itertools.product(alphabet, repeat=m)]
        got = np.asarray(crasp.run(prog, [list(w) for w in words], alphabet=alphabet).accept,
                         dtype=bool)
        want = np.array([bool(rx.fullmatch(w)) for w in words])
        assert np.array_equal(got, want), (pattern, [w for w, g, x in zip(words, got, want)
                                                     if g != x][:3])


@pytest.mark.parametrize("pattern,alphabet", NOT_PO)
def test_no_program_when_a_cycle_passes_two_states(pattern, alphabet):
    got = program_for(regex_dfa(pattern, alphabet))
    assert isinstance(got, str) and "not partially ordered" in got


def r_trivial(dfa: DFA) -> bool:
    """(xy)^w x == (xy)^w for all x, y of the transition monoid (R-triviality)."""
    E = transition_monoid(dfa).elements
    then = lambda x, y: y[x]                      # word x, then word y (state maps)

    def omega(m):
        p = m
        for _ in range(len(m) + 1):
            p = then(p, m)
        while not np.array_equal(then(p, p), p):
            p = then(p, m)
        return p
    for x in E:
        for y in E:
            w = omega(then(x, y))
            if not np.array_equal(then(w, x), w):
                return False
    return True


@pytest.mark.parametrize("pattern,alphabet", CASES + NOT_PO)
def test_partial_order_is_r_triviality(pattern, alphabet):
    dfa = regex_dfa(pattern, alphabet)
    assert partially_ordered(dfa)[0] == r_trivial(dfa)


def test_rule_decides_a_task_file_and_stays_out_of_the_others(tmp_path):
    theory, ctx = CRASPTheory(), Context(max_n=8)
    files = {"t7": ('"0", "1"', 'REGEX = "0*1*0*1*"'),
             "abs": ('"a", "b"', 'REGEX = "(ab)*"'),
             "two": ('"a", "b"', 'def label(x):\n    return (x == 0).sum(1) >= 2')}
    paths = {}
    for key, (alpha, body) in files.items():
        path = pathlib.Path(tmp_path) / f"{key}_po.py"
        path.write_text(f'NAME = "{key}_po"\nALPHABET = ({alpha})\nLENGTHS = (1, 40)\n{body}\n')
        paths[key] = str(path)
    p = theory.from_automaton(paths["t7"], ctx)
    assert p.verdict == Verdict.EASY and p.status == Status.VERIFIED
    check_json(p.evidence)
    assert p.evidence["exact_automaton"] and p.evidence["check"]["ok"]
    p = theory.from_automaton(paths["two"], ctx)          # a learned automaton
    assert p.verdict == Verdict.EASY and not p.evidence["exact_automaton"]
    assert isinstance(theory.from_automaton(paths["abs"], ctx), RuleSkip)
    assert isinstance(theory.from_automaton("parity", ctx), RuleSkip)
    assert isinstance(theory.from_automaton("index", ctx), RuleSkip)
