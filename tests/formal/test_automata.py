"""DFA learning, minimization, transition monoids and (quasi-)aperiodicity on languages
whose automata are known."""

import itertools

import numpy as np
import pytest

from theorybench.errors import ResourceLimitError, TaskParameterError, TheoryError
from theorybench.formal.automata import (aperiodicity, from_table, learn_dfa, learn_view,
                                           quasi_aperiodicity, residual_counts,
                                           transition_monoid)
from theorybench.formal.language import INVALID, LanguageView, is_language, language_view


class FuncView(LanguageView):
    """A language given by a Python predicate on tuples of letter indices."""

    def __init__(self, name, alphabet, pred):
        super().__init__(name, {}, tuple(alphabet))
        self.pred = pred

    def membership(self, words):
        return np.array([int(self.pred(tuple(int(a) for a in w))) for w in words],
                        dtype=np.int64)


def dyck_depth(word):
    d, top = 0, 0
    for a in word:
        d += 1 if a == 0 else -1
        if d < 0:
            return None, top
        top = max(top, d)
    return d, top


def bounded_dyck(D):
    def pred(w):
        d, top = dyck_depth(w)
        return d == 0 and top <= D
    return FuncView(f"dyck1_D{D}", "()", pred)


def test_parity_two_states_not_aperiodic_with_witness():
    res = learn_dfa("parity")
    assert res.status == "regular"
    # the empty word is undefined (rejected) in the language view: it equals even parity
    assert res.dfa.size == 2
    aper, wit = aperiodicity(res.dfa, view=language_view("parity"))
    assert not aper and wit["period"] == 2 and wit["word"] == "1"
    assert wit["reference_agrees"] and wit["reference_outputs"][:4] in ([0, 1, 0, 1], [1, 0, 1, 0])
    ok, info = quasi_aperiodicity(res.dfa)
    assert not ok and info["stability_index"] == 1


@pytest.mark.parametrize("family,states", [("all", 3), ("any", 2)])
def test_all_any_aperiodic(family, states):
    res = learn_dfa(family)
    assert res.status == "regular" and res.dfa.size == states
    assert aperiodicity(res.dfa) == (True, None)


def test_aa_star_periodic_but_quasi_aperiodic():
    view = FuncView("aa_star", "a", lambda w: len(w) % 2 == 0)
    res = learn_view(view, 6, 10)
    assert res.status == "regular" and res.dfa.size == 2
    aper, wit = aperiodicity(res.dfa, view=view)
    assert not aper and wit["cycle"] == [0, 1] and wit["reference_agrees"]
    ok, info = quasi_aperiodicity(res.dfa)
    assert ok and info["stability_index"] == 2


@pytest.mark.parametrize("D", [1, 2, 3])
def test_bounded_dyck_has_D_plus_2_states_and_is_aperiodic(D):
    res = learn_view(bounded_dyck(D), 10, 14)
    assert res.status == "regular"
    assert res.dfa.size == D + 2
    assert aperiodicity(res.dfa)[0]


def test_unbounded_dyck_is_nonregular():
    view = FuncView("dyck1", "()", lambda w: dyck_depth(w)[0] == 0)
    res = learn_view(view, 12, 14)
    assert res.status == "nonregular"
    assert res.growth["classes"] == [m + 2 for m in res.growth["m"]]  # depths 0..m, dead


def test_majority_is_nonregular():
    res = learn_dfa("majority")
    assert res.status == "nonregular"
    assert res.growth["fit"]["kind"] in ("poly", "log")


def test_flip_flop_aperiodic():
    # letters s0, s1 set the state, n keeps it; accept iff the last set letter is s1
    ff = from_table(["s0", "s1", "n"], [[0, 1, 0], [0, 1, 1]], [0, 1])
    assert aperiodicity(ff) == (True, None)
    assert transition_monoid(ff).size == 3  # identity, reset-to-0, reset-to-1


def test_cyclic_group_found():
    c3 = from_table("ab", [[1, 0], [2, 1], [0, 2]], [1, 0, 0])  # count a's mod 3
    aper, wit = aperiodicity(c3)
    assert not aper and wit["period"] == 3 and wit["word"] == "a"
    assert sorted(wit["cycle"]) == [0, 1, 2]


def _brute_equiv_classes(dfa, L=7):
    sig = {}
    for q in range(dfa.size):
        outs = []
        for length in range(L + 1):
            for w in itertools.product(range(dfa.k), repeat=length):
                s = q
                for a in w:
                    s = dfa.delta[s, a]
                outs.append(int(dfa.output[s]))
        sig[q] = tuple(outs)
    return sig


@pytest.mark.parametrize("seed", range(6))
def test_minimize_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    q = 7
    dfa = from_table("ab", rng.integers(0, q, size=(q, 2)), rng.integers(0, 2, size=q))
    small = dfa.minimize()
    reach = dfa._reachable()
    sig = _brute_equiv_classes(dfa)
    assert small.size == len({sig[int(s)] for s in reach})
    words = np.array(list(itertools.product(range(2), repeat=8)))
    assert (small.evaluate(words) == dfa.evaluate(words)).all()


def test_monoid_limit():
    c5 = from_table("ab", [[(s + 1) % 5, [1, 0, 2, 3, 4][s]] for s in range(5)], [1, 0, 0, 0, 0])
    with pytest.raises(ResourceLimitError, match="raise the limit"):
        transition_monoid(c5, limit=50)  # generates all 120 permutations of 5 states


def test_residual_counts_of_all():
    assert residual_counts(language_view("all"), [1, 2, 3]) == [3, 3, 3]


def test_language_view_rules():
    assert is_language("parity") == (True, "")
    ok, why = is_language("index")
    assert not ok and "grows with n" in why
    with pytest.raises(TheoryError, match="not a language"):
        language_view("index")
    with pytest.raises(TaskParameterError, match="cannot be set"):
        language_view("sparse_all", {"kk": 2})
    maj = language_view("majority")
    assert maj.table(2).tolist() == [0, 0, 0, 0]  # even length: undefined, rejected
    inv = language_view("majority", undefined="invalid")
    assert (inv.table(2) == INVALID).all() and inv.table(3).tolist() == [0, 0, 0, 1, 0, 1, 1, 1]
    assert maj.encode("1 0").tolist() == [1, 0]
    with pytest.raises(TheoryError, match="'2' is not in the alphabet"):
        maj.encode("1 2")


def test_khop_domain_marks_immediate_repeats_invalid():
    view = language_view("khop")
    out = view.membership(view.encode("a a b").reshape(1, -1))
    assert out[0] == INVALID
    assert view.membership(view.encode("a b a").reshape(1, -1))[0] != INVALID


def test_bad_bounds():
    with pytest.raises(TheoryError, match="at most 18"):
        learn_view(language_view("parity"), None, 40)


def test_restriction_of_dyck2_is_dyck1():
    from theorybench.formal.language import SubView, restrictions
    full = language_view("dyck")
    assert full.k == 4
    subs = {s.alphabet: s for s in restrictions(full)}
    res = learn_view(subs[("(", ")")])
    assert res.status == "nonregular"
    res = learn_view(subs[("(", "[")])  # no closing bracket: only the empty word would be in
    assert res.status == "regular" and res.dfa.size <= 2
    assert isinstance(subs[("(", ")")], SubView)


def test_real_bounded_dyck_task_automaton():
    # k=1, D=2: depths 0..2 and a dead state, plus the start state (the empty word is
    # outside every task instance and is rejected by convention)
    res = learn_dfa("dyck_bounded", {"D": 2})
    assert res.status == "regular" and res.dfa.size == 2 + 3
    assert aperiodicity(res.dfa)[0]
