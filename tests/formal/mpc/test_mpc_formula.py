"""MPC programs built from template formulas (formal/mpc/formula.py): every atom kind, run
in the simulator with the locality check, agrees with an independent per-word oracle at
lengths far beyond the search, in rounds that stay flat; the MPC rule uses it only where
the library has no algorithm."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ResourceLimitError
from theorybench.formal.mpc.algorithms import run_algorithm
from theorybench.formal.mpc.formula import formula_program
from theorybench.formal.search import circuits as S
from theorybench.tasks.registry import load_task_file
from theorybench.theories.registry import theory

#: name -> (alphabet, numpy label, oracle on the word, the atom kind the search should use)
CASES = {
    "pal": ("ab", "(x == x[:, ::-1]).all(axis=1)", lambda w: w == w[::-1], "mirror"),
    "cp": ("ab", "(x[:, :x.shape[1] // 2] == x[:, x.shape[1] // 2:]).all(axis=1)",
           lambda w: w[: len(w) // 2] == w[len(w) // 2:], "half"),
    "feq": ("abc", "x[:, 0] == x[:, -1]", lambda w: w[0] == w[-1], "ends"),
    "srt": ("ab", "(np.diff(x, axis=1) >= 0).all(axis=1)", lambda w: "ba" not in w, "next"),
    "atb": ("abc", "((x == 1) & (np.cumsum(x == 0, axis=1) - (x == 0) > 0)).any(axis=1)",
            lambda w: "a" in w and "b" in w[w.index("a"):], "before"),
    "more": ("abc", "(x == 0).sum(axis=1) > (x == 1).sum(axis=1)",
             lambda w: w.count("a") > w.count("b"), "count"),
    "lasta": ("ab", "x[:, -1] == 0", lambda w: w[-1] == "a", "last"),
    "firstb_or_alla": ("ab", "(x == 0).all(axis=1) | (x[:, 0] == 1)",
                       lambda w: set(w) == {"a"} or w[0] == "b", "unary"),
}


def family(tmp_path, name):
    alphabet, expr, _, _ = CASES[name]
    valid = "def VALID(n):\n    return n % 2 == 0\n" if name == "cp" else ""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""\
        import numpy as np
        NAME = "mf_{name}"
        ALPHABET = {tuple(alphabet)!r}
        LENGTHS = (1, 300)
        def label(x):
            return {expr}
        """) + valid)
    return load_task_file(path, export=False)


def rows_for(name, rng, k, L):
    rows = rng.integers(0, k, size=(240, L))
    # make both labels common: mirrored, copied, sorted or reversed thirds
    if name == "pal":
        rows[::3] = np.concatenate([rows[::3, : (L + 1) // 2], rows[::3, : L // 2][:, ::-1]], 1)
    if name == "cp":
        rows[::3, L // 2:] = rows[::3, : L // 2]
    if name == "srt":
        rows[::3] = np.sort(rows[::3], axis=1)
    if name == "atb":
        rows[::3] = np.sort(rows[::3] % 2, axis=1)[:, ::-1]
    if name == "firstb_or_alla":
        rows[::3] = 0
        rows[1::3, 0] = 0
    return rows


def test_half_at_an_odd_length_is_false(tmp_path):
    # copies defined at every n, rejected at odd n: the half atom reads "L even and ..."
    path = tmp_path / "cp_all.py"
    path.write_text(textwrap.dedent("""\
        NAME = "mf_cp_all"
        ALPHABET = ("a", "b")
        LENGTHS = (1, 300)
        def label(x):
            h = x.shape[1] // 2
            return (x.shape[1] % 2 == 0) & (x[:, :h] == x[:, h:2 * h]).all(axis=1)
        """))
    fam = load_task_file(path, export=False)
    res = S.search(tasks.get(fam.name, n=8), "tc0")
    assert res.formula is not None and "L even" in res.text, res.reason
    program = formula_program(res.formula, res.letters)
    rng = np.random.default_rng(2)
    for n in (17, 63, 64):
        task = tasks.get(fam.name, n=n)
        ids = np.array([list(task.vocab).index(s) for s in res.letters])
        rows = rng.integers(0, 2, size=(240, n))
        if n % 2 == 0:
            rows[::3, n // 2:] = rows[::3, : n // 2]
        want = np.array([len(r) % 2 == 0 and list(r[: n // 2]) == list(r[n // 2:])
                         for r in rows], dtype=np.int64)
        got = run_algorithm(task, ids[rows], 0.5, 4.0, program)
        assert np.array_equal(got.output, want), n
        assert (want.sum() > 0) == (n % 2 == 0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_formula_program_matches_the_oracle(tmp_path, name):
    fam = family(tmp_path, name)
    res = S.search(tasks.get(fam.name, n=8), "tc0")
    assert res.formula is not None, res.reason
    assert CASES[name][3] in {a.kind for a in res.formula.atoms}, res.text
    program = formula_program(res.formula, res.letters)
    oracle = CASES[name][2]
    rng = np.random.default_rng(1)
    rounds = []
    for n in (16, 64, 256):
        task = tasks.get(fam.name, n=n)
        ids = np.array([list(task.vocab).index(s) for s in res.letters])
        rows = rows_for(name, rng, len(ids), n)
        want = np.array([oracle("".join(res.letters[i] for i in r)) for r in rows], dtype=np.int64)
        assert 0 < want.sum() < len(want)
        got = run_algorithm(task, ids[rows], 0.5, 4.0, program)
        assert np.array_equal(got.output, want), (name, n)
        alone = run_algorithm(task, ids[rows[:2]], 0.5, 4.0, program, strict=True)
        assert np.array_equal(alone.output, want[:2])
        rounds.append(int(got.rounds.max()))
    assert max(rounds) <= 4, rounds


def test_a_wide_record_that_does_not_fit_is_a_resource_error(tmp_path):
    fam = family(tmp_path, "atb")
    res = S.search(tasks.get(fam.name, n=8), "tc0")
    task = tasks.get(fam.name, n=2)
    with pytest.raises(ResourceLimitError):
        run_algorithm(task, np.zeros((1, 2), dtype=np.int64) + list(task.vocab).index("a"),
                      0.5, 4.0, formula_program(res.formula, res.letters))


def test_mpc_rule_runs_the_searched_formula_only_without_an_algorithm(tmp_path):
    fam = family(tmp_path, "pal")
    p = theory("mpc").predict(fam.name)
    assert p.verdict.value == "easy" and p.rule == "searched algorithm (template formula)"
    assert p.status.value == "verified" and p.evidence["circuit_search"]["formula"]
    assert "sampled" in p.evidence["verified_how"]
    assert theory("mpc").predict("any").rule == "algorithm with bounded rounds"
