"""The catalogue-language search: maps checked against per-word oracles written here.

Oracles: Python's ``re`` on spelled words, and the flip-flop definition one word at a time.
C-RASP-definable languages (programs written out in comments) must get no map: the rule
would otherwise call a C-RASP language Hard.
"""

import itertools
import pathlib
import re

import numpy as np
import pytest

from theorybench.formal.automata import DFA
from theorybench.formal.crasp.flipflop import flip_flop_oracle
from theorybench.formal.language import INVALID
from theorybench.formal.search.languages import (FLIP_FLOP, LAST_B, Morphism, check_map,
                                                 embed_last_b, flip_flop_to_last_b, prove_map,
                                                 right_zero_pairs)
from theorybench.formal.automata.monoid import transition_monoid
from theorybench.tasks.user_regular import from_regex
from theorybench.theories.base import Context, RuleSkip, Status, Verdict, check_json
from theorybench.theories.crasp import CRASPTheory


def regex_dfa(pattern: str, alphabet=("a", "b")) -> DFA:
    t = from_regex(pattern, alphabet)
    return DFA(tuple(alphabet), np.asarray(t.delta), np.asarray(t.accept), int(t.start)).minimize()


def words(k: int, m: int):
    return np.array(list(itertools.product(range(k), repeat=m)), dtype=np.int64).reshape(-1, m)


def image_oracle(mor: Morphism, word) -> tuple[int, ...]:
    return tuple(mor.prefix) + tuple(x for a in word for x in mor.images[a]) + tuple(mor.suffix)


def test_apply_matches_the_per_word_concatenation():
    rng = np.random.default_rng(3)
    for _ in range(20):
        images = tuple(tuple(int(x) for x in rng.integers(0, 3, rng.integers(0, 3)))
                       for _ in range(3))
        mor = Morphism(tuple(rng.integers(0, 3, rng.integers(0, 3))), images,
                       tuple(rng.integers(0, 3, rng.integers(0, 3))), 1)
        w = words(3, 4)
        got = {}
        for length, (rows, imgs) in mor.apply(w).items():
            for r, img in zip(rows, imgs):
                assert len(img) == length
                got[int(r)] = tuple(int(x) for x in img)
        assert got == {r: image_oracle(mor, w[r]) for r in range(len(w))}


def test_flip_flop_is_the_inverse_image_of_last_b():
    mor, proof = flip_flop_to_last_b()
    assert proof["ok"]
    for m in range(0, 8):
        for w in itertools.product(range(3), repeat=m):
            img = image_oracle(mor, w)
            assert (len(img) > 0 and img[-1] == 1) == bool(flip_flop_oracle(w))


def test_a_wrong_map_fails_the_product_check_and_the_direct_check():
    wrong = Morphism((), ((1,), (0,), ()), (), 1)           # s0 and s1 swapped
    proof = prove_map(FLIP_FLOP, LAST_B.dfa, wrong)
    assert not proof["ok"] and proof["counterexample"]["why"] == "labels differ"
    chk = check_map(FLIP_FLOP, wrong, lambda x: LAST_B.label(x), 6, 64)
    assert not chk["ok"]


def brute_right_zero(dfa: DFA):
    mon = transition_monoid(dfa)
    E = mon.elements
    comp = lambda x, y: tuple(E[y][E[x]])            # word x, then word y
    out = set()
    for e in range(1, mon.size):
        for f in range(1, mon.size):
            if e < f and comp(e, e) == tuple(E[e]) and comp(f, f) == tuple(E[f]) \
                    and comp(e, f) == tuple(E[f]) and comp(f, e) == tuple(E[e]):
                out.add((e, f))
    return mon, out


@pytest.mark.parametrize("pattern", ["(a|b)*b", "(a|b)*bb(a|b)*", "(a|b)*ab(a|b)*",
                                     "(a|b)*a(a|b)*b(a|b)*", "(ab)*", "a(a|b)*"])
def test_right_zero_pairs_against_brute_force(pattern):
    dfa = regex_dfa(pattern)
    mon, want = brute_right_zero(dfa)
    assert set(right_zero_pairs(mon, limit=10**6)) == want


ALPH3 = ("a", "b", "c")
#: languages with a map, each over {a, b, c}, with their regex (the oracle)
MAPPED = ["(a|b|c)*ab(a|b|c)*", "(a|b|c)*bb(a|b|c)*", "(a|b|c)*c", "(a|b|c)*abc(a|b|c)*",
          "a(a|b|c)*a|b(a|b|c)*b|c(a|b|c)*c|a|b|c"]


@pytest.mark.parametrize("pattern", MAPPED)
def test_found_map_is_right_on_every_short_word(pattern):
    dfa = regex_dfa(pattern, ALPH3)
    emb = embed_last_b(dfa)
    assert not isinstance(emb, str), emb
    check_json(emb.to_dict())
    rx = re.compile(pattern)
    mor = emb.morphism
    for m in range(1, 9):
        for w in itertools.product(range(2), repeat=m):
            img = "".join(ALPH3[x] for x in image_oracle(mor, w))
            assert (int(bool(rx.fullmatch(img))) == mor.value) == (w[-1] == 1), (pattern, w)


#: C-RASP-definable languages over {a, b} (programs in the comments): no map may exist.
IN_CRASP = [
    "(a|b)*a(a|b)*",            # #[a] >= 1
    "(a|b)*a(a|b)*b(a|b)*",     # #[b and #[a] >= 1] >= 1
    "a(a|b)*",                  # #[a and #[true] == 1] >= 1
    "b*ab*a(a|b)*",             # #[a] >= 2
    "(ab)*",                    # at a: #a == #b + 1, at b: #a == #b, no violation, #a == #b
    "b*ab*",                    # #[a] == 1
]


@pytest.mark.parametrize("pattern", IN_CRASP)
def test_no_map_into_a_crasp_language(pattern):
    got = embed_last_b(regex_dfa(pattern))
    assert isinstance(got, str) and "right-zero" in got


def test_undefined_lengths_are_never_used():
    # Sigma* b defined only at lengths >= 3 (INVALID below): no image may be shorter
    dfa = DFA(("a", "b"), np.array([[1, 2], [3, 4], [3, 4], [5, 6], [5, 6], [5, 6], [5, 6]]),
              np.array([INVALID, INVALID, INVALID, INVALID, INVALID, 0, 1]), 0).minimize()
    emb = embed_last_b(dfa)
    assert not isinstance(emb, str), emb
    mor = emb.morphism
    for m in range(1, 7):
        for w in itertools.product(range(2), repeat=m):
            img = image_oracle(mor, w)
            assert len(img) >= 3
            assert (dfa.evaluate(np.array([img]))[0] == mor.value) == (w[-1] == 1)


THEORY = CRASPTheory()
CTX = Context(max_n=8)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("langs")
    out = {}
    for key, text in {
        "has_bb": 'NAME = "has_bb_t"\nALPHABET = ("a", "b")\nLENGTHS = (2, 40)\n'
                  'REGEX = "(a|b)*bb(a|b)*"\n',
        "subseq": 'NAME = "subseq_ab_t"\nALPHABET = ("a", "b")\nLENGTHS = (2, 40)\n'
                  'REGEX = "(a|b)*a(a|b)*b(a|b)*"\n',
        "ab_star": 'NAME = "ab_star_t"\nALPHABET = ("a", "b")\nLENGTHS = (1, 40)\n'
                   'REGEX = "(ab)*"\n',
        "ends": 'NAME = "ends_eq_t"\nALPHABET = ("a", "b")\nLENGTHS = (2, 40)\n'
                'def label(x):\n    return x[:, 0] == x[:, -1]\n',
    }.items():
        path = pathlib.Path(root) / f"{key}.py"
        path.write_text(text)
        out[key] = str(path)
    return out


def test_rule_on_a_given_automaton(files):
    p = THEORY.from_catalogue_language(files["has_bb"], CTX)
    assert p.verdict == Verdict.HARD and p.status == Status.CITED
    check_json(p.evidence)
    assert p.evidence["exact_automaton"] is True
    assert p.evidence["embedding"]["direct_check"]["ok"]
    assert "for every length" in p.evidence["map_status"]
    assert p.evidence["flip_flop_to_last_b"]["product_check"]["ok"]


def test_rule_on_a_label_only_task_uses_the_learned_automaton(files):
    p = THEORY.from_catalogue_language(files["ends"], CTX)
    assert p.verdict == Verdict.HARD and p.evidence["exact_automaton"] is False
    assert p.evidence["verified_up_to"] >= 8


def test_rule_stays_silent_on_crasp_languages(files):
    assert isinstance(THEORY.from_catalogue_language(files["subseq"], CTX), RuleSkip)
    # bounded Dyck-1 has a C-RASP program (Yang & Chiang 2024); the rule must not say Hard
    assert isinstance(THEORY.from_catalogue_language("dyck_bounded", CTX), RuleSkip)
    assert isinstance(THEORY.from_catalogue_language("majority", CTX), RuleSkip)


def test_ab_star_is_not_called_hard(files):
    # (ab)* has a C-RASP program (IN_CRASP above); its one-way communication is 0 or 1 bit
    # by the parity of the length, which once fitted as growth and gave a false Hard
    p = THEORY.predict(files["ab_star"], CTX)
    assert p.verdict != Verdict.HARD, p.explanation
