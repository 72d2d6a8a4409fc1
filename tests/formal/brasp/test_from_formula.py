"""B-RASP[pos] programs written from template formulas (formal/brasp/from_formula.py): run
by the real interpreter, each agrees with an independent per-word oracle at lengths beyond
the search; a count formula gets no program; the Star-free[pos] column uses such a program
only after its automaton rules, and says that it reads the length."""

from __future__ import annotations

import itertools
import textwrap

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError
from theorybench.formal.brasp.from_formula import formula_program, program_text
from theorybench.formal.brasp.check import program_answers
from theorybench.formal.search import circuits as S
from theorybench.tasks.registry import load_task_file
from theorybench.theories.registry import theory

CASES = {
    "pal": ("ab", "(x == x[:, ::-1]).all(axis=1)", lambda w: w == w[::-1]),
    "cp": ("ab", "(x[:, :x.shape[1] // 2] == x[:, x.shape[1] // 2:]).all(axis=1)",
           lambda w: w[: len(w) // 2] == w[len(w) // 2:]),
    "cp_all": ("ab", "(x.shape[1] % 2 == 0) & (x[:, :x.shape[1] // 2] == "
                     "x[:, x.shape[1] // 2: x.shape[1] // 2 * 2]).all(axis=1)",
               lambda w: len(w) % 2 == 0 and w[: len(w) // 2] == w[len(w) // 2:]),
    "feq": ("abc", "x[:, 0] == x[:, -1]", lambda w: w[0] == w[-1]),
    "srt": ("ab", "(np.diff(x, axis=1) >= 0).all(axis=1)", lambda w: "ba" not in w),
    "atb": ("abc", "((x == 1) & (np.cumsum(x == 0, axis=1) - (x == 0) > 0)).any(axis=1)",
            lambda w: "a" in w and "b" in w[w.index("a"):]),
    "no_ab": ("abc", "~((x[:, :-1] == 0) & (x[:, 1:] == 1)).any(axis=1)",
              lambda w: "ab" not in w),
    "firstb_or_alla": ("ab", "(x == 0).all(axis=1) | (x[:, 0] == 1)",
                       lambda w: set(w) == {"a"} or w[0] == "b"),
}


def family(tmp_path, name, lengths="(1, 300)"):
    alphabet, expr, _ = CASES[name]
    valid = "def VALID(n):\n    return n % 2 == 0\n" if name == "cp" else ""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""\
        import numpy as np
        NAME = "bf_{name}"
        ALPHABET = {tuple(alphabet)!r}
        LENGTHS = {lengths}
        def label(x):
            return {expr}
        """) + valid)
    return load_task_file(path, export=False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_the_oracle_beyond_the_search(tmp_path, name):
    fam = family(tmp_path, name)
    res = S.search(tasks.get(fam.name, n=8), "ac0")
    assert res.formula is not None, res.reason
    prog = formula_program(res.formula, res.letters)
    oracle = CASES[name][2]
    k = len(res.letters)
    for n in (1, 2, 5, 6, 15, 16, 17, 18, 40):
        if name == "cp" and n % 2:
            continue
        task = tasks.get(fam.name, n=n)
        ids = np.array([list(task.vocab).index(s) for s in res.letters])
        if k ** n <= 1 << 12:
            rows = np.array(list(itertools.product(range(k), repeat=n)))
        else:
            rows = np.random.default_rng(n).integers(0, k, size=(300, n))
            rows[::3] = rows[::3, ::-1] if name != "pal" else np.concatenate(
                [rows[::3, : (n + 1) // 2], rows[::3, : n // 2][:, ::-1]], 1)
            if name in ("cp", "cp_all") and n % 2 == 0:
                rows[1::3, n // 2:] = rows[1::3, : n // 2]
            if name == "srt":
                rows[1::3] = np.sort(rows[1::3], axis=1)
        want = np.array(["1" if oracle("".join(res.letters[i] for i in r)) else "0"
                         for r in rows])
        got = program_answers(prog, task, ids[rows])
        assert np.array_equal(got, want), (name, n, program_text(res.formula, res.letters))


def test_a_count_formula_has_no_program():
    res = S.search(tasks.get("majority", n=9), "tc0")
    assert res.formula is not None and res.formula.basis == "tc0"
    with pytest.raises(TaskParameterError):
        formula_program(res.formula, res.letters)


def test_star_free_pos_uses_it_after_the_automaton_rules(tmp_path):
    pal = family(tmp_path, "pal")
    p = theory("star_free_pos").predict(pal.name)
    assert p.verdict.value == "easy" and p.rule == "B-RASP[pos] program from the template formula"
    assert "template formula" in p.evidence["program"]
    assert "lenpred" in p.evidence["extensions"]   # it reads n (j == n + 1 - i)
    # a regular task keeps its automaton's cell
    feq = family(tmp_path, "feq")
    assert theory("star_free_pos").predict(feq.name).rule != \
        "B-RASP[pos] program from the template formula"
