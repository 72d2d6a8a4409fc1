"""Regular tasks decided from their automaton (theories/regular.py): each rule on task files
with a REGEX or DFA, against verdicts derived by hand.

Hand derivations (syntactic monoid of the minimal automaton):
* contains "ab" over {a,b,c}: aperiodic (x^2 = x^3 for every element) - star-free, in AC0.
* MOD-3 (number of a's divisible by 3): Z3 among the images of words of every length
  (a b^(s-1)), so neither aperiodic nor quasi-aperiodic; Z3 is solvable, so ACC0 / TC0.
* (aa)* over {a,b}: Z2 (a swaps the two live states) - not aperiodic; the images of words of
  length 2 are {1, 0} with no group - quasi-aperiodic, so in AC0 (not star-free).
* the A5 word problem over a = (0 1 2 3 4), b = (0 1 2): the monoid is A5 (order 60,
  perfect), non-solvable - NC1-complete, Hard for TC0 conditional on TC0 != NC1.
Every regular language has the automaton fold (MPC) and the state protocol (BAPO): Easy.
"""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from theorybench.theories.ac0 import AC0Theory
from theorybench.theories.bapo import BAPOTheory
from theorybench.theories.base import Context, Status, Verdict, status_problem
from theorybench.theories.crasp import CRASPTheory
from theorybench.theories.mpc import MPCTheory, mpc_ns
from theorybench.theories.regular import exact_check, task_automaton
from theorybench.theories.star_free import StarFreePosTheory, StarFreeTheory
from theorybench.theories.tc0 import TC0Theory

A5_FILE = textwrap.dedent('''
    """The word problem of A5: accept iff the product of the generators is the identity."""
    NAME = "a5_word"
    ALPHABET = ("a", "b")
    LENGTHS = (1, 64)
    _GEN = {"a": (1, 2, 3, 4, 0), "b": (1, 2, 0, 3, 4)}
    _elems, _todo = [(0, 1, 2, 3, 4)], [(0, 1, 2, 3, 4)]
    while _todo:
        _p = _todo.pop()
        for _g in _GEN.values():
            _q = tuple(_g[_p[i]] for i in range(5))
            if _q not in _elems:
                _elems.append(_q)
                _todo.append(_q)
    DFA = {"start": 0, "accept": [0], "delta": {
        i: {s: _elems.index(tuple(g[p[j]] for j in range(5))) for s, g in _GEN.items()}
        for i, p in enumerate(_elems)}}
''')

FILES = {
    "contains_ab": 'NAME = "contains_ab_t"\nALPHABET = ("a", "b", "c")\nLENGTHS = (2, 64)\n'
                   'REGEX = "(a|b|c)*ab(a|b|c)*"\n',
    "mod3": 'NAME = "mod3_dfa"\nALPHABET = ("a", "b")\nLENGTHS = (1, 64)\n'
            'DFA = {"start": 0, "accept": [0], "delta": {0: {"a": 1, "b": 0}, '
            '1: {"a": 2, "b": 1}, 2: {"a": 0, "b": 2}}}\n',
    "aa_star": 'NAME = "aa_star"\nALPHABET = ("a", "b")\nLENGTHS = (1, 64)\nREGEX = "(aa)*"\n',
    "a5": A5_FILE,
}

E, H = Verdict.EASY, Verdict.HARD
#: theory class -> expected verdict per task, by hand (module docstring)
EXPECTED = {
    StarFreeTheory: {"contains_ab": E, "mod3": H, "aa_star": H, "a5": H},
    StarFreePosTheory: {"contains_ab": E, "mod3": H, "aa_star": E, "a5": H},
    AC0Theory: {"contains_ab": E, "mod3": H, "aa_star": E, "a5": H},
    TC0Theory: {"contains_ab": E, "mod3": E, "aa_star": E, "a5": H},
    MPCTheory: {"contains_ab": E, "mod3": E, "aa_star": E, "a5": E},
    BAPOTheory: {"contains_ab": E, "mod3": E, "aa_star": E, "a5": E},
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("regular")
    out = {}
    for key, text in FILES.items():
        path = pathlib.Path(root) / f"{key}.py"
        path.write_text(text)
        out[key] = str(path)
    return out


CTX = Context(max_n=8)


@pytest.mark.parametrize("theory", list(EXPECTED), ids=lambda t: t.name)
def test_each_rule_on_task_files_against_hand_derivation(theory, files):
    for key, want in EXPECTED[theory].items():
        p = theory().predict(files[key], CTX)
        assert p.verdict == want, (theory.name, key, p.explanation)
        assert status_problem(p) is None, (theory.name, key)
        assert p.evidence.get("exact") is True, (theory.name, key, p.rule)


def test_statuses_say_what_was_done(files):
    tc0 = TC0Theory().predict(files["a5"], CTX)
    assert tc0.status == Status.CONDITIONAL and tc0.evidence["condition"] == "TC0 != NC1"
    witness = tc0.evidence["monoid"]["witness"]
    assert witness["order"] == 60 and witness["derived_series_orders"] == [60, 60]
    ac0 = AC0Theory().predict(files["mod3"], CTX)
    assert ac0.status == Status.CITED and "without its number" in ac0.evidence["why_cited"]
    bapo = BAPOTheory().predict(files["a5"], CTX)
    assert bapo.status == Status.PROVEN and bapo.evidence["a"] == 6      # ceil(log2 60)
    mpc = MPCTheory().predict(files["a5"], CTX)
    assert mpc.status == Status.VERIFIED
    assert mpc.evidence["rounds_by_n"] == mpc.evidence["rounds_formula_by_n"]
    assert max(mpc.evidence["rounds_by_n"]) == 1024          # beyond the task's LENGTHS


def test_crasp_group_rule_uses_the_given_automaton(files):
    for key in ("mod3", "aa_star", "a5"):
        p = CRASPTheory().predict(files[key], CTX)
        assert p.verdict == H and p.rule == "non-aperiodic regular language", key
        assert p.evidence["restricted_to"] == "the task's own automaton"
        assert p.evidence["witness"]["reference_agrees"] is True


def test_the_given_automaton_is_compared_with_the_task(files):
    chk = exact_check(files["contains_ab"])
    assert not isinstance(chk, str) and chk.check_len >= 7 and chk.dfa.size == 3


def test_a_wrong_automaton_is_caught_by_the_comparison(files, monkeypatch):
    # a minimisation bug (here: the accepting state dropped) must not pass the oracle check
    import theorybench.theories.regular as regular
    path = files["aa_star"]
    auto = task_automaton(path, CTX, learned=False)
    bad = type(auto)(auto.dfa.__class__(auto.dfa.alphabet, auto.dfa.delta,
                                         1 - auto.dfa.output, auto.dfa.start), True, "broken")
    monkeypatch.setattr(regular, "_automaton", lambda family, check_len: bad)
    exact_check.cache_clear()
    try:
        assert isinstance(exact_check(path), str)
    finally:
        exact_check.cache_clear()


def test_mpc_sizes_come_from_the_task_not_its_name(files):
    # majority accepts odd n only; a task file is capped by its LENGTHS
    assert mpc_ns("majority") == [17, 65, 257, 1025]
    assert mpc_ns("reach_directed") == [8, 16, 32]          # declared by the task class
    assert mpc_ns(files["mod3"]) == [8, 16, 32, 64]


def test_learned_automaton_rules_on_a_built_in_family():
    # parity's learned 2-state automaton: Z2 (not quasi-aperiodic, solvable); the rules run
    # last in the matrix, so they are called directly here
    from theorybench.theories.bapo import _ns
    from theorybench.theories.regular import (bapo_automaton_rule, mpc_fold_rule, quasi_rule,
                                              solvable_rule)
    ctx = Context()
    ac0 = quasi_rule(AC0Theory(), "parity", ctx, "AC0", exact=False)
    tc0 = solvable_rule(TC0Theory(), "parity", ctx, exact=False)
    bapo = bapo_automaton_rule(BAPOTheory(), "parity", ctx, _ns("parity", ctx))
    assert (ac0.verdict, tc0.verdict, bapo.verdict) == (H, E, E)
    assert ac0.evidence["exact"] is False and ac0.evidence["verified_up_to"] >= 8
    assert bapo.status == Status.VERIFIED and bapo.evidence["a"] == 1
    assert all(status_problem(p) is None for p in (ac0, tc0, bapo))
    mpc = mpc_fold_rule(MPCTheory(), "parity", ctx, [16, 64, 256])
    assert mpc.verdict == E and mpc.evidence["rounds_by_n"] == {16: 1, 64: 1, 256: 1}
    few = mpc_fold_rule(MPCTheory(), "parity", ctx, [16, 64])
    assert "three are needed" in few.reason


def test_protocol_and_fold_checks_fail_on_a_wrong_automaton(files, monkeypatch):
    # the BAPO and MPC checks run the automaton against the task: a wrong one must not pass
    import theorybench.theories.regular as regular
    from theorybench.theories.bapo import _ns
    path = files["mod3"]
    auto = task_automaton(path, CTX, learned=False)
    wrong = auto.dfa.__class__(auto.dfa.alphabet, auto.dfa.delta[:, ::-1].copy(),
                               auto.dfa.output, auto.dfa.start)        # a and b swapped
    monkeypatch.setattr(regular, "_automaton",
                        lambda family, check_len: type(auto)(wrong, True, "swapped letters",
                                                             letter_of_token=auto.letter_of_token))
    bapo = regular.bapo_automaton_rule(BAPOTheory(), path, CTX, _ns(path, CTX))
    assert "fails against the task" in bapo.reason
    mpc = regular.mpc_fold_rule(MPCTheory(), path, CTX, [8, 16, 32])
    assert "disagrees with the task" in mpc.reason
