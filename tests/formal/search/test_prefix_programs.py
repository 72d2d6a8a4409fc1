"""Prefix programs (formal/search/programs.py, docs/theories.md "Program search"): where a
class is rare, the C-RASP search's last stage builds "every letter stood where its count
test held, and a test holds at the end marker" - (abc)* with four counts - and the crasp
column decides the task with it."""

import itertools
import re

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal import crasp
from theorybench.formal.crasp.interpret import Interpreter
from theorybench.formal.search import programs as P
from theorybench.theories.base import Basis, Context, Status, Verdict, status_problem
from theorybench.theories.crasp import CRASPTheory

REGEX_FILE = 'NAME = "{name}"\nALPHABET = {alphabet!r}\nLENGTHS = (1, 64)\nREGEX = "{regex}"\n'


@pytest.fixture(scope="module")
def star_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("prefix")
    out = {}
    for name, alphabet, regex in (("abc_star", ("a", "b", "c"), "(abc)*"),
                                  ("zxy_star", ("x", "y", "z"), "(zxy)*")):
        path = d / f"{name}.py"
        path.write_text(REGEX_FILE.format(name=name, alphabet=alphabet, regex=regex))
        out[name] = (str(path), alphabet, regex)
    return out


def _counts(program) -> int:
    return len({repr(node) for st in program.statements for node in st.expr.walk()
                if isinstance(node, crasp.ast.Count)})


def test_abc_star_gets_a_four_count_program_right_on_every_word(star_files):
    path, alphabet, regex = star_files["abc_star"]
    got = P.cached_search(tasks.get(path, n=6), "C-RASP")  # the crasp column reuses it
    assert got.program is not None, got.reason
    assert _counts(got.program) == 4
    # independent oracle: Python's re on every word of every length up to 10 (the search
    # checked its exhaustive n and samples up to 64 with the task's own automaton)
    interp = Interpreter(got.program.with_alphabet(alphabet), alphabet)
    for n in range(1, 11):
        words = np.array(list(itertools.product(range(3), repeat=n)), dtype=np.int64)
        want = [re.fullmatch(regex, "".join(alphabet[i] for i in w)) is not None for w in words]
        assert np.array_equal(interp.accepts(words, alphabet), np.array(want)), n


def test_the_crasp_column_decides_a_renamed_copy_with_the_same_program(star_files):
    # (zxy)* is (abc)* with its letters renamed: the column finds the same program for it
    # (its own search, never the other file's name) and decides it Easy, verified
    p = CRASPTheory().predict(star_files["zxy_star"][0], Context())
    assert (p.verdict, p.basis, p.status) == (Verdict.EASY, Basis.CONSTRUCTION,
                                              Status.VERIFIED), p.explanation
    assert status_problem(p) is None and "found by search" in p.explanation
    copy = P.cached_search(tasks.get(star_files["zxy_star"][0], n=6), "C-RASP")
    orig = P.cached_search(tasks.get(star_files["abc_star"][0], n=6), "C-RASP")
    assert copy.size == orig.size and _counts(copy.program) == _counts(orig.program) == 4


def test_no_prefix_stage_where_no_class_is_rare():
    # parity's examples are balanced: the stage does not run, the reason is the search's
    got = P.search(tasks.get("parity", n=4), "C-RASP", budget=5000)
    assert got.program is None and "rare class" not in got.reason
