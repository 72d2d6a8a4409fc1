"""B-RASP text syntax: parse/print round trips, syntax errors with positions, validation."""

import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorybench.errors import ProgramError
from theorybench.formal.brasp import ast as A
from theorybench.formal.brasp import dsl as B
from theorybench.formal.brasp.parser import parse, parse_lines
from theorybench.formal.brasp.validate import problems

sys.path.insert(0, os.path.dirname(__file__))
from brasp_gen import rand_program  # noqa: E402

EXAMPLE = '''// a comment
alphabet "0" "1"
one = "1"            // trailing comment with "quotes"
seen0 = leftmost j < i ["0"(j)] true : false
prev = rightmost j < i [true] one(j) && !seen0(i) : false
pos = rightmost j [j == i - 1 || j % 2 == 0 && n >= 3] "1"(j) : one
out = !seen0 && (one || prev)
output out
'''


def test_example_parses_to_expected_tree():
    p = parse(EXAMPLE)
    assert [s.name for s in p.stmts] == ["one", "seen0", "prev", "pos", "out"]
    assert p.alphabet == ("0", "1") and p.output == "out"
    seen0 = p.stmts[1]
    assert isinstance(seen0, A.Attend) and seen0.direction == "leftmost" and seen0.mask == "<"
    assert seen0.score == A.Tok("0", "j", True)
    pos = p.stmts[3]
    assert pos.mask == "" and isinstance(pos.score, A.Or)
    assert pos.score.args[0] == A.PosCmp("==", A.Var("j"), A.Arith("-", A.Var("i"), A.Int(1)))
    # precedence: ! > && > ||
    out = p.stmts[4].expr
    assert isinstance(out, A.And) and isinstance(out.args[0], A.Not)
    assert isinstance(out.args[1], A.Or)
    assert A.depth(p) == 2 and A.uses_positions(p)  # prev attends and reads seen0


def test_print_parse_round_trip_example():
    p = parse(EXAMPLE)
    assert parse(A.to_text(p)) == p


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_round_trip_random_programs(seed, positional):
    prog = rand_program(np.random.default_rng(seed), positional)
    text = A.to_text(prog)
    again, errs = parse_lines(text)
    assert not errs, (text, errs)
    assert again == prog
    assert A.to_text(again) == text


def test_dsl_builds_the_parsed_program():
    b = B.Builder(alphabet=("0", "1"))
    b.let("seen0", B.leftmost(B.tok("0", "j"), B.TRUE, B.FALSE, mask="<"))
    b.let("out", ~B.ref("seen0") & B.tok("1"))
    built = b.build()
    parsed = parse('alphabet "0" "1"\nseen0 = leftmost j < i ["0"(j)] true : false\n'
                   'out = !seen0 && "1"\n')
    assert built == parsed


def test_several_syntax_errors_reported_with_positions():
    text = ('x = leftmost j < [a(j)] b(j) : c\n'
            'y = &&\n'
            'n = 1\n'
            'w = a $ b\n'
            'ok = true\n')
    with pytest.raises(ProgramError) as ei:
        parse(text, "bad.br")
    probs = ei.value.problems
    assert [(p.line, p.column) for p in probs] == [(1, 18), (2, 5), (3, 1), (4, 7)]
    assert "expected i" in probs[0].message
    assert "'&&'" in probs[1].message and "a name" in probs[1].message
    assert "reserved" in probs[2].message
    assert "'$'" in probs[3].message
    assert str(ei.value).startswith("bad.br:1:18:")


def test_validator_reports_every_problem():
    text = ('alphabet "0" "1"\n'
            'a = "2" || b\n'
            'b = leftmost j < i [x && "1"(j)] a(j) : a(j)\n'
            'a = j == 1\n'
            'c = rightmost j == i [true] true : false\n'
            'output d\n')
    prog, errs = parse_lines(text)
    assert not errs
    probs = problems(prog)
    msgs = [(p.line, p.message) for p in probs]
    assert any(l == 2 and "'2' is not in the declared alphabet" in m for l, m in msgs)
    assert any(l == 2 and "'b' is not defined" in m for l, m in msgs)
    assert any(l == 3 and "say x(i) or x(j)" in m for l, m in msgs)
    assert any(l == 3 and "a(j) in a default" in m for l, m in msgs)
    assert any(l == 4 and "defined again" in m for l, m in msgs)
    assert any(l == 4 and "position j in a position-wise" in m for l, m in msgs)
    assert any(l == 5 and "mask j == i" in m for l, m in msgs)
    assert any(l == 6 and "output 'd' is not defined" in m for l, m in msgs)
    assert all(p.column is not None for p in probs)


def test_plain_brasp_rejects_positions():
    text = 'x = leftmost j [j == 1] "1"(j) : false\n'
    parse(text)  # fine as B-RASP[pos]
    with pytest.raises(ProgramError, match="needs B-RASP\\[pos\\]"):
        parse(text, positional=False)


def test_empty_program_and_bare_token_in_score():
    with pytest.raises(ProgramError, match="no statements"):
        parse("// nothing\n")
    with pytest.raises(ProgramError, match='say "a"\\(i\\) or "a"\\(j\\)'):
        parse('x = leftmost j < i ["a"] true : false\n')


def test_multi_valued_output_round_trip():
    text = 'A = "a"\nB = "b"\noutput "x": A, "y": B, else "_"\n'
    p = parse(text)
    assert p.multi and p.classes == (("x", "A"), ("y", "B")) and p.otherwise == "_"
    assert parse(A.to_text(p)) == p
    with pytest.raises(ProgramError, match="output 'C' is not defined"):
        parse('A = "a"\noutput "x": C, else "_"\n')
