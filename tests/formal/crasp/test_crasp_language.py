"""C-RASP syntax, validation and interpretation on hand-written cases."""

import numpy as np
import pytest

from theorybench.errors import ProgramError, TaskInputError
from theorybench.formal import crasp
from theorybench.formal.crasp import ast as A
from theorybench.formal.crasp import dsl as D
from theorybench.formal.crasp.parser import parse, parse_expr

DYCK = '''// Dyck-1 (Yang & Chiang 2024), as in the public interpreter's examples
C_open = # "("
C_close = # ")"
V = C_open < C_close
CV = # V
M = (CV == 0)
B = (C_open == C_close)
D = M && B
'''


# ---- parsing and precedence ------------------------------------------------------------

PRECEDENCE = [
    ('# "a" == 0', A.Compare("==", A.Count(A.Token("a")), A.IntConst(0))),
    ('!x && y', A.And(A.Not(A.Ref("x")), A.Ref("y"))),
    ('x || y && z', A.Or(A.Ref("x"), A.And(A.Ref("y"), A.Ref("z")))),
    ('a + b < c', A.Compare("<", A.Add(A.Ref("a"), A.Ref("b")), A.Ref("c"))),
    ('a - b - c', A.Sub(A.Sub(A.Ref("a"), A.Ref("b")), A.Ref("c"))),
    ('2 * a + b', A.Add(A.Scale(2, A.Ref("a")), A.Ref("b"))),
    ('a * 3', A.Scale(3, A.Ref("a"))),
    ('1 if "1" else 0', A.Cond(A.IntConst(1), A.Token("1"), A.IntConst(0))),
    ('a if x else b if y else c',
     A.Cond(A.Ref("a"), A.Ref("x"), A.Cond(A.Ref("b"), A.Ref("y"), A.Ref("c")))),
    ('# !"a"', A.Count(A.Not(A.Token("a")))),
    ('#[prev] "a" >= 1', A.Compare(">=", A.Count(A.Token("a"), "prev"), A.IntConst(1))),
    ('min(a, b) + max(1, #true)',
     A.Add(A.Min(A.Ref("a"), A.Ref("b")), A.Max(A.IntConst(1), A.Count(A.BoolConst(True))))),
    ('minimum + iffy', A.Add(A.Ref("minimum"), A.Ref("iffy"))),
]


@pytest.mark.parametrize("text,tree", PRECEDENCE)
def test_precedence(text, tree):
    assert parse_expr(text) == tree
    assert parse_expr(A.expr_text(tree)) == tree


def test_public_syntax_features():
    """Features used by the public interpreter's .cr files: #"x" without a space, #(...)
    nesting, parenthesised comparisons, #import of pred/predK aliases, NAME-1."""
    anbn = ('// a^n b^n\n'
            'no_a_after_b = #("a" && (#"b" > 0)) == 0\n'
            'equal = (#"a" == #"b")\n'
            'anbn = no_a_after_b && equal\n')
    prog = parse(anbn)
    run = crasp.run(prog, ["a a b b", "a b a b", "a b b", ""])
    assert run.accept.tolist() == [True, False, False, True]
    shifted = parse('#import pred\n#import pred2\nn_tok = #true\n'
                    'two_back_a = (#[pred2] "a") == 1\n'
                    'out = two_back_a && (#[pred] "b" == 1) && n_tok-1 >= 2\n')
    run = crasp.run(shifted, ["a b", "a c b", "a b b", "b a b"], alphabet="abc", accept="last")
    assert run.accept.tolist() == [False, False, True, False]
    assert parse(DYCK).output == "D"


SYNTAX = [
    ("x = (a", 1, 7, "expected ')'"),
    ("x = a b", 1, 7, "unexpected 'b'"),
    ('x = "a', 1, 5, "unterminated"),
    ("= 3", 1, 1, "expected #import, a name"),
    ("x = a * b", 1, 5, "integer literal on one side"),
    ("x = a < b < c", 1, 11, "unexpected '<'"),
    ("x = true +", 1, 11, "unexpected end of line"),
]


@pytest.mark.parametrize("text,line,col,needle", SYNTAX)
def test_syntax_errors_have_positions(text, line, col, needle):
    with pytest.raises(ProgramError) as err:
        parse(text)
    (p,) = err.value.problems
    assert (p.line, p.column) == (line, col)
    assert needle in p.message


def test_all_syntax_errors_reported_at_once():
    text = "ok = # \"a\" > 0\nbad1 = (\n// fine\nbad2 = ) \nbad3 = 1 +\n"
    with pytest.raises(ProgramError) as err:
        parse(text, "f.cr")
    assert [p.line for p in err.value.problems] == [2, 4, 5]
    assert str(err.value).startswith("f.cr:2:")


# ---- validation --------------------------------------------------------------------

def test_validator_reports_every_problem_with_positions():
    prog = parse('#import foo\n#import prev\nx = # y\ny = x + 1\nz = !x && "q"\n'
                 'w = #[first] "a" + 1 > 0\nz = 3\nv = # (1 + 2)\nout = z + 1\n')
    found = crasp.problems(prog, alphabet=["a", "b"])
    msgs = [(p.line, p.column, p.message) for p in found]
    expect = [
        (1, 9, "unknown predicate 'foo'"),
        (3, 1, "cycle: x -> y -> x"),
        (5, 11, 'token "q" is not in the alphabet'),
        (6, 5, "count guard first is not an imported predicate"),
        (7, 1, "z is defined twice"),
        (8, 8, "a count is used where a Boolean is needed (the body of #)"),
        (9, 1, "the output out (the last definition) is a count"),
        (9, 7, "a Boolean is used where a count is needed (operand of +): z"),
    ]
    assert len(msgs) == len(expect), msgs
    for (line, col, msg), (eline, ecol, needle) in zip(msgs, expect):
        assert (line, col) == (eline, ecol) and needle in msg, (line, col, msg)


def test_validator_undefined_names_and_hints():
    prog = parse('ones = # "1"\nout = onse > 0 && pos_even\n')
    msgs = [p.message for p in crasp.problems(prog)]
    assert any("onse is not defined (did you mean ones?)" in m for m in msgs)
    assert any("#import pos_even" in m for m in msgs)
    with pytest.raises(ProgramError):
        crasp.check(prog)


def test_reserved_names_and_binary_predicate_as_value():
    prog = parse("#import prev\nif = 3\nout = prev\n")
    msgs = [p.message for p in crasp.problems(prog)]
    assert any("reserved word" in m for m in msgs)
    assert any("binary predicate" in m for m in msgs)


# ---- interpretation: hand-computed traces --------------------------------------------

def test_dyck_trace_by_hand():
    run = crasp.run(parse(DYCK), ["( ) ) (", "( ( ) )"], alphabet=["(", ")"])
    v = run.row_values(0)
    # positions 1..4 and EOS (5): ( ) ) (
    assert v["C_open"].tolist() == [1, 1, 1, 2, 2]
    assert v["C_close"].tolist() == [0, 1, 2, 2, 2]
    assert v["V"].tolist() == [False, False, True, False, False]
    assert v["CV"].tolist() == [0, 0, 1, 1, 1]
    assert v["D"].tolist() == [False, True, False, False, False]   # "( )" is balanced
    w = run.row_values(1)
    assert w["D"].tolist() == [False, False, False, True, True]
    assert run.accept.tolist() == [False, True]


def test_guarded_counts_and_positions_by_hand():
    prog = parse('#import prev\n#import first\n#import mod_3_1\n'
                 'after_a = #[prev] "a"\nhere = # true\n'
                 'out = after_a == 1 && "b" || first && mod_3_1\n')
    run = crasp.run(prog, ["a b a c"], alphabet=["a", "b", "c"])
    v = run.row_values(0)
    assert v["after_a"].tolist() == [0, 1, 0, 1, 0]      # x_(i-1) == a, 1-based i
    assert v["here"].tolist() == [1, 2, 3, 4, 5]         # #true = i, EOS is n+1
    assert v["out"].tolist() == [True, True, False, False, False]


def test_eos_versus_last_acceptance():
    prog = parse('ends_a = "a"\n')
    assert crasp.run(prog, ["b a"], accept="last", alphabet="ab").accept.tolist() == [True]
    assert crasp.run(prog, ["b a"], accept="eos", alphabet="ab").accept.tolist() == [False]
    eos = parse('at_end = "<eos>" && # "a" == 2\n')
    assert crasp.run(eos, ["a b a", "a"], alphabet=["a", "b"]).accept.tolist() == [True, False]
    with pytest.raises(TaskInputError):
        crasp.run(prog, [""], accept="last", alphabet="ab")


def test_empty_input_and_padding_are_harmless():
    prog = parse('z = # "0"\nout = z == 0\n')
    run = crasp.run(prog, ["", "1 1", "1 0 1 1 1"], alphabet=["0", "1"])
    assert run.accept.tolist() == [True, True, False]


def test_tokens_outside_alphabet_are_rejected_with_name():
    prog = parse('// alphabet: 0 1\nz = # "0"\nout = z == 0\n')
    with pytest.raises(TaskInputError, match="'2' is not in the program's alphabet"):
        crasp.run(prog, ["0 2"])


def test_traces_text_and_html():
    run = crasp.run(crasp.load_program("majority"), ["1 0 1"])
    text = crasp.trace_text(run)
    lines = text.splitlines()
    assert lines[0].startswith("# input 1: accept")
    assert lines[2].split() == ["token", "|", "1", "0", "1", "<eos>"]
    assert lines[3].split() == ["ones", "|", "1", "1", "2", "2"]
    assert lines[5].split() == ["*more_ones", "|", "1", "0", "1", "1"]
    html = crasp.trace_html(run)
    assert html.count("<table>") == 1 and "<td class='t'>T</td>" in html


def test_dsl_builds_the_parsed_program():
    b = D.Builder()
    o = b.let("C_open", D.count(D.tok("(")))
    c = b.let("C_close", D.count(D.tok(")")))
    v = b.let("V", o < c)
    cv = b.let("CV", D.count(v))
    m = b.let("M", cv.eq(0))
    bb = b.let("B", o.eq(c))
    b.let("D", m & bb)
    assert b.program() == parse(DYCK)
    e = 3 * D.ref("x") - D.min_(1, D.ref("y")) + D.where(D.tok("a"), 1, 0)
    assert parse_expr(A.expr_text(e)) == e
    assert -2 * D.ref("x") == A.Sub(A.IntConst(0), A.Scale(2, A.Ref("x")))


def test_size_and_depth():
    s = crasp.size(parse(DYCK))
    assert (s["counts"], s["depth"], s["definitions"]) == (3, 2, 7)
    nested = parse('x = # (# (# "a" > 1) > 1) > 0\n')
    assert crasp.size(nested)["depth"] == 3


def test_interpreter_on_task_token_ids():
    interp = crasp.Interpreter(crasp.load_program("majority"), ("0", "1"))
    x = np.array([[1, 1, 0], [0, 0, 1]])
    assert interp.accepts(x, ("0", "1")).tolist() == [True, False]
