"""discover: the enumeration against a brute-force oracle, the equivalence with known
families, the ranking, determinism, and a found task file through `task check`."""

import itertools

import numpy as np
import pytest

from theorybench.errors import ConfigError
from theorybench.formal.automata.dfa import DFA
from theorybench.formal.automata.enumerate import minimal_languages, words_upto
from theorybench.matrix import discover as D


def _signature(delta, out, words):
    state = np.zeros(len(words), dtype=np.int64)
    for col in range(words.shape[1]):
        state = delta[state, words[:, col]]
    return out[state].tobytes()


def test_each_language_once_against_brute_force():
    """Every table with at most 3 states over {a, b}, reachable or not, read on every word
    up to length 4 (two DFAs of at most 3 states that agree there are equal); the distinct
    nontrivial languages must be exactly the enumerated ones."""
    words = words_upto(2, 4)
    seen = set()
    for s in (1, 2, 3):
        for flat in itertools.product(range(s), repeat=2 * s):
            delta = np.array(flat).reshape(s, 2)
            for out in itertools.product((0, 1), repeat=s):
                o = np.array(out)
                seen.add(tuple(_signature(delta, o, w) for w in words))
    trivial = {tuple(np.full(len(w), v).tobytes() for w in words) for v in (0, 1)}
    got = [tuple(_signature(d.delta, d.output, w) for w in words)
           for d in minimal_languages("ab", 3)]
    assert len(got) == len(set(got))                       # no language twice
    assert set(got) == seen - trivial                       # and every one of them
    assert sum(d.size == 2 for d in minimal_languages("ab", 2)) == 24


def test_equivalence_with_a_known_family_up_to_renaming():
    known = D.known_signatures({2})
    odd_b = DFA(("a", "b"), np.array([[0, 1], [1, 0]]), np.array([0, 1]), 0)
    odd_a = DFA(("a", "b"), np.array([[1, 0], [0, 1]]), np.array([0, 1]), 0)
    assert D.equivalent_known(D.Candidate(odd_b, "dfa:2:2"), known) == "parity"
    assert D.equivalent_known(D.Candidate(odd_a, "dfa:2:2"), known) == "parity"
    # "the second letter is b" is no shipped family
    second_b = DFA(("a", "b"), np.array([[1, 1], [3, 2], [2, 2], [3, 3]]),
                   np.array([0, 0, 1, 0]), 0)
    assert D.equivalent_known(D.Candidate(second_b, "dfa:2:4"), known) is None


def _cand(name, cells, states=2, k=2):
    dfa = DFA(("a", "b", "c")[:k], np.zeros((states, k), dtype=np.int64),
              np.zeros(states, dtype=np.int64), 0)
    c = D.Candidate(dfa, "test", name=name, cells=cells)
    c.disagreement, c.pairs = D.disagreement(cells)
    return c


def test_ranking_on_a_hand_made_set():
    a = _cand("a", {"x": "easy", "y": "hard", "z": "hard"})            # 2 pairs
    b = _cand("b", {"x": "easy", "y": "easy", "z": "hard"}, states=3)  # 2 pairs, dearer
    c = _cand("c", {"x": "easy", "y": "unknown", "z": "easy"})          # 0 pairs
    d = _cand("d", {"x": "easy", "y": "easy", "z": "easy", "w": "hard"})  # 3 pairs
    assert (a.disagreement, b.disagreement, c.disagreement, d.disagreement) == (2, 2, 0, 3)
    assert sorted(a.pairs) == [("x", "y"), ("x", "z")]
    assert [x.name for x in D.rank([c, b, a, d])] == ["d", "a", "b", "c"]
    assert D.refutes(a, "easy") == ["y", "z"] and D.refutes(a, "inconclusive") == []
    # a second candidate of a profile waits until every profile has had its first
    a2 = _cand("a2", {"x": "easy", "y": "hard", "z": "hard"})          # a's profile
    a3 = _cand("a3", {"x": "easy", "y": "hard", "z": "hard"}, states=3)
    assert [x.name for x in D.rank([a3, c, b, a2, a, d])] == ["d", "a", "b", "c", "a2", "a3"]


def test_selection_is_deterministic_given_the_seed():
    pool = D.generate(["dfa:2:3"])
    known = D.known_signatures({2})
    one, dropped = D.select(pool, known, 20, seed=3)
    two, _ = D.select(pool, known, 20, seed=3)
    other, _ = D.select(pool, known, 20, seed=4)
    assert [c.name for c in one] == [c.name for c in two]
    assert [c.name for c in one] != [c.name for c in other]
    assert len({c.name for c in one}) == 20
    assert all(D.equivalent_known(c, known) is None for c in one)
    assert all(name not in {c.name for c in one} for name, _ in dropped)


@pytest.mark.parametrize("bad", ["dfa:1:3", "dfa:2:9", "regex:2", "dfa:x:3", "dfa:3:4"])
def test_bad_generators(bad):
    with pytest.raises(ConfigError, match="dfa:"):
        D.Generator.parse(bad)


def test_a_found_task_file_checks_and_reproduces_its_verdicts(tmp_path, cli, monkeypatch):
    from theorybench.tasks.registry import FAMILIES
    from theorybench.theories.base import Context
    monkeypatch.setenv("THEORYBENCH_TASKS", "")
    pool = D.generate(["dfa:2:3"])
    c = next(x for x in pool if x.dfa.size == 3)
    with FAMILIES.scoped():
        D.judge([c], tmp_path / "cands", Context(max_n=8), workers=1, progress=False)
        assert set(c.cells) >= {"star_free", "ac0", "tc0", "crasp"}
    path = tmp_path / f"{c.name}.py"
    path.write_text(c.file_text("Settled in distribution: (a record)."))
    with FAMILIES.scoped():   # the found file alone, as a user loads it
        code, out, err = cli("task", "check", path)
        assert code == 0, err
        code, out, err = cli("predict", "--task", path, "--theory", "star_free,ac0",
                             "--max-n", "8", "--format", "json")
        assert code == 0, err
    import json
    cells = json.loads(out)
    cells = cells if isinstance(cells, list) else cells.get("cells", cells.get("predictions"))
    assert {p["theory"]: p["verdict"] for p in cells} == {t: c.cells[t] for t in
                                                          ("star_free", "ac0")}
