"""Juntas on positions fixed from the ends (docs/theories.md, "Juntas"): found from the
reference function on every input, checked here against an independent brute force, and
the AC0 circuit and B-RASP program built on them."""

import itertools

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.brasp.check import check_on_task
from theorybench.formal.junta import brasp_program, find_junta
from theorybench.theories.ac0 import AC0Theory
from theorybench.theories.base import Basis, Context, Status, Verdict, status_problem
from theorybench.theories.star_free import StarFreePosTheory, StarFreeTheory

HEAD = 'NAME = "{name}"\nALPHABET = {alphabet!r}\nLENGTHS = ({lo}, 64)\n'
FILES = {
    # majority of the first five bits
    "maj_first5": (("0", "1"), 5, "def label(x):\n    return x[:, :5].sum(1) >= 3\n"),
    # the second letter and the last two vote, the first letter c flips the vote
    "vote_ends": (("a", "b", "c"), 4,
                  "def label(x):\n"
                  "    v = (x[:, 1] == 0).astype(int) + (x[:, -1] == 0) + (x[:, -2] == 1)\n"
                  "    return (v >= 2) ^ (x[:, 0] == 2)\n"),
    # x[0] and x[n-2]: at n = 1 the second offset does not fit (an exception length)
    "first_and_second_last": (("0", "1"), 1,
                              "def label(x):\n    n = x.shape[1]\n"
                              "    return (x[:, 0] == 1) & (x[:, max(n - 2, 0)] == 1) "
                              "& (n >= 2)\n"),
    # not juntas: the middle bit, a function that changes with n, every bit
    "middle_bit": (("0", "1"), 1, "def label(x):\n    return x[:, x.shape[1] // 2] == 1\n"),
    "changes_with_n": (("0", "1"), 2,
                       "def label(x):\n    return x[:, x.shape[1] % 2] == 1\n"),
    "parity_file": (("0", "1"), 1, "def label(x):\n    return x.sum(1) % 2 == 1\n"),
    # a renamed copy of vote_ends: other letters in another order, another name
    "vote_ends_renamed": (("z", "y", "x"), 4,
                          "def label(x):\n"
                          "    v = (x[:, 1] == 0).astype(int) + (x[:, -1] == 0) + (x[:, -2] == 1)\n"
                          "    return (v >= 2) ^ (x[:, 0] == 2)\n"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("juntas")
    out = {}
    for name, (alphabet, lo, body) in FILES.items():
        path = d / f"{name}.py"
        path.write_text(HEAD.format(name=name, alphabet=alphabet, lo=lo) + body)
        out[name] = str(path)
    return out


def _brute_relevant(family: str, n: int) -> tuple[set[int], dict]:
    """Relevant positions by flipping each position of each input to each other letter,
    and the label of every input - a loop over itertools.product, not the module's
    table axes."""
    task = tasks.get(family, n=n)
    k = len(task.vocab)
    words = [tuple(w) for w in itertools.product(range(k), repeat=n)]
    lab = dict(zip(words, task.label(np.array(words, dtype=np.int64)).tolist()))
    rel = set()
    for w in words:
        for i in range(n):
            for a in range(k):
                if a != w[i] and lab[w[:i] + (a,) + w[i + 1:]] != lab[w]:
                    rel.add(i)
    return rel, lab


@pytest.mark.parametrize("name", ["maj_first5", "vote_ends", "first_and_second_last"])
def test_junta_agrees_with_brute_force_on_every_small_input(files, name):
    j = find_junta(files[name])
    assert not isinstance(j, str), j
    for n in (5, 6) if name != "first_and_second_last" else (1, 2, 5, 6):
        rel, lab = _brute_relevant(files[name], n)
        if j.fits(n):
            assert rel <= set(j.positions(n)), (n, rel, j.positions(n))
            words = np.array(list(lab), dtype=np.int64)
            assert np.array_equal(j.evaluate(words), np.array(list(lab.values()), dtype=bool))
    expect = {"maj_first5": (0, 1, 2, 3, 4), "vote_ends": (-2, -1, 0, 1),
              "first_and_second_last": (-2, 0)}[name]
    assert j.coords == expect
    # the B-RASP program agrees on every input of every small n, exception lengths too
    prog = brasp_program(j)
    for n in range(FILES[name][1], 9):
        info, bad = check_on_task(prog, tasks.get(files[name], n=n))
        assert bad is None and info["exhaustive"], (n, bad)


@pytest.mark.parametrize("name", ["middle_bit", "changes_with_n", "parity_file"])
def test_non_juntas_are_refused(files, name):
    why = find_junta(files[name])
    assert isinstance(why, str) and why


def test_junta_cells_have_honest_statuses(files):
    ctx = Context()
    for T, rule in ((AC0Theory, "junta circuit"), (StarFreeTheory, "B-RASP program of a junta"),
                    (StarFreePosTheory, "B-RASP program of a junta")):
        p = T().predict(files["maj_first5"], ctx)
        assert (p.verdict, p.basis, p.status, p.rule) == (Verdict.EASY, Basis.CONSTRUCTION,
                                                          Status.VERIFIED, rule)
        assert status_problem(p) is None
        assert p.evidence["verified_up_to"] == 64
        assert p.evidence["junta"]["coords"] == [0, 1, 2, 3, 4]
    table = p.evidence["by_n"]
    assert any(r["exhaustive"] for r in table) and any(not r["exhaustive"] for r in table)
    # the AC0 circuit: depth 2 over the one-hot bits, the same size at every n
    p = AC0Theory().predict(files["maj_first5"], ctx)
    rows = p.evidence["construction"]["table"]
    assert len({r["depth"] for r in rows}) == 1 and len({r["size"] for r in rows}) == 1
    assert all(r["errors"] == 0 for r in rows)


def test_a_renamed_copy_gets_the_same_cells(files):
    ctx = Context()
    for T in (AC0Theory, StarFreeTheory):
        one = T().predict(files["vote_ends"], ctx)
        two = T().predict(files["vote_ends_renamed"], ctx)
        assert (one.verdict, one.status, one.rule, one.status_label) == \
            (two.verdict, two.status, two.rule, two.status_label)
    assert find_junta(files["vote_ends_renamed"]).coords == find_junta(files["vote_ends"]).coords
