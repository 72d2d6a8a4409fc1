"""The vectorized B-RASP interpreter: hand-computed traces, the naive interpreter on random
programs, variable lengths, the alphabet check."""

import os
import sys

import numpy as np
import pytest

from theorybench.errors import TaskInputError
from theorybench.formal.brasp import ast as A
from theorybench.formal.brasp.interpret import accept, run, token_position
from theorybench.formal.brasp.naive import accept_row, run_row
from theorybench.formal.brasp.parser import parse
from theorybench.formal.brasp.trace import trace_html, trace_text

sys.path.insert(0, os.path.dirname(__file__))
from brasp_gen import rand_program, rand_words  # noqa: E402

PROG = parse('''
alphabet "a" "b"
isa = "a"
first_a_later = leftmost j > i ["a"(j)] true : false
last_b_before = rightmost j < i ["b"(j)] true : false
prev_is_a = rightmost j < i [true] "a"(j) : false
leftmost_all = leftmost j [true] "b"(j) : isa
second = leftmost j [j == 2] "a"(j) : false
odd = i % 2 == 1
at_end = i == n
''')

# (word, {name: expected values by position}) computed by hand from the definitions
CASES = [
    ("a b b a", {
        "isa":           [1, 0, 0, 1],
        "first_a_later": [1, 1, 1, 0],   # some a strictly right of i
        "last_b_before": [0, 0, 1, 1],   # some b strictly left of i
        "prev_is_a":     [0, 1, 0, 0],   # token at i-1 is a
        "leftmost_all":  [0, 0, 0, 0],   # x_1 = a, so "b"(1) is false
        "second":        [0, 0, 0, 0],   # x_2 = b
        "odd":           [1, 0, 1, 0],
        "at_end":        [0, 0, 0, 1]}),
    ("b a", {
        "isa":           [0, 1],
        "first_a_later": [1, 0],
        "last_b_before": [0, 1],
        "prev_is_a":     [0, 0],
        "leftmost_all":  [1, 1],
        "second":        [1, 1],
        "odd":           [1, 0],
        "at_end":        [0, 1]}),
    ("a", {
        "isa": [1], "first_a_later": [0], "last_b_before": [0], "prev_is_a": [0],
        "leftmost_all": [0], "second": [0], "odd": [1], "at_end": [1]}),
]


@pytest.mark.parametrize("word,expected", CASES)
def test_hand_computed_traces(word, expected):
    tr = run(PROG, [word.split()])
    for name, want in expected.items():
        assert tr.values[name][0, : len(want)].astype(int).tolist() == want, name


def test_batch_with_different_lengths_equals_one_by_one():
    words = [c[0].split() for c in CASES] + [[]]
    tr = run(PROG, words)
    for r, w in enumerate(words[:-1]):
        alone = run(PROG, [w])
        for name in tr.values:
            assert (tr.values[name][r, : len(w)] == alone.values[name][0]).all()
        assert not tr.values["isa"][r, len(w):].any()  # padding is false
    assert tr.accept()[-1] == False  # noqa: E712  (the empty word is rejected)


def test_default_when_no_position_qualifies():
    p = parse('d = "b"\nx = leftmost j < i ["a"(j)] false : d\n')
    tr = run(p, [["b", "a", "b"]])
    # i=1: none -> d(1)=1; i=2: none (x_1=b) -> d(2)=0; i=3: j=2 -> value false
    assert tr.values["x"][0].astype(int).tolist() == [1, 0, 0]


def test_int_arrays_with_vocab_and_lengths():
    ids = np.array([[0, 1, 1], [1, 0, 0]])
    out = accept(PROG, ids, vocab=("a", "b"), lengths=np.array([3, 2]))
    by_words = accept(PROG, [["a", "b", "b"], ["b", "a"]])
    assert (out == by_words).all()


def test_tokens_outside_alphabet_are_named():
    with pytest.raises(TaskInputError, match="'c' is not in the program's alphabet"):
        run(PROG, [["a", "c"]])
    with pytest.raises(TaskInputError, match="input 1, token 2: 'z'"):
        run(PROG, np.array([[0, 2]]), vocab=("a", "b", "z"))


def test_tokpos():
    assert token_position("q12") == 12 and token_position("7") == 7 and token_position("a") == 0
    p = parse('bit = leftmost j < i [j == tokpos(i)] "1"(j) : false\n')
    assert accept(p, [["0", "1", "0", "q2"], ["0", "1", "0", "q3"], ["1", "q9"]]).tolist() == \
        [True, False, False]


@pytest.mark.parametrize("seed", range(40))
def test_vectorized_equals_naive_on_random_programs(seed):
    rng = np.random.default_rng(seed)
    prog = rand_program(rng, positional=bool(seed % 2), statements=int(rng.integers(1, 7)))
    words = rand_words(rng, 30)
    tr = run(prog, words)
    for r, w in enumerate(words):
        naive = run_row(prog, w)
        for name, vals in naive.items():
            assert tr.values[name][r, : len(w)].tolist() == vals, (A.to_text(prog), w, name)
        assert tr.accept()[r] == accept_row(prog, w)


def test_traces_render():
    tr = run(PROG, [["a", "b"], ["b"]])
    txt = trace_text(tr, [0])
    assert "first_a_later" in txt and txt.splitlines()[1].split()[1:] == ["a", "b"]
    assert txt.rstrip().endswith("(output at_end at position 2)")
    assert trace_text(tr).count("position") == 2 + 2  # two tables, each with a verdict line
    page = trace_html(tr)
    assert page.count("<table>") == 2 and "first_a_later" in page


@pytest.mark.parametrize("term,want", [
    ("i > 18446744073709551616 / 2", [False, False]),   # before: OverflowError
    ("i < 18446744073709551616 / 2", [True, True]),
    ("i == 36893488147419103232 % 3", [True, False]),    # 2^65 mod 3 = 2
    ("j == 18446744073709551617 % 18446744073709551616", [True, True]),  # j == 1
])
def test_division_and_modulus_of_constants_past_int64(term, want):
    # a fuzz-found traceback: np.floor_divide / np.mod on a Python int past int64
    prog = parse(f'alphabet "0" "1"\nhit = leftmost j [{term}] true : false\nout = hit && "1"\n'
                 if "j" in term else f'alphabet "0" "1"\nout = {term} && "1"\n')
    words = [["1", "1"], ["1"]]
    assert run(prog, words).accept().tolist() == want
    assert [accept_row(prog, w) for w in words] == want  # the naive interpreter agrees
