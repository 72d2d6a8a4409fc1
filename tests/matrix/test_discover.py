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


# ---- staged training: a scripted trainer, the real scheduling ------------------------------

class _Spec:
    def __init__(self, task, n, seed):
        self.task, self.n, self.seed = task, n, seed
        self.key = f"{task}-{n}-{seed}"
        self.training = type("T", (), {"steps": 100})()


class _Cell:
    def __init__(self, verdict):
        self.verdict = verdict


def _scripted(monkeypatch, script, order):
    """``script``: task -> {n: "learned" | "not" | "open"}; cells follow the matrix rule
    over the n trained so far. ``order`` collects (task, n) as waves train them."""
    from theorybench.experiments import sweep
    trained: dict[str, set] = {}

    def fake_stages(c, profile, seeds):
        return [[_Spec(c.name, n, s) for s in seeds] for n in sorted(script[c.name])]

    def fake_sweep(line, tasks=None, specs=(), **kw):
        for s in specs:
            if (s.task, s.n) not in order:
                order.append((s.task, s.n))
            trained.setdefault(s.task, set()).add(s.n)
        return {"ran": len(specs), "skipped_done": 0, "failed": 0}

    def fake_outcomes(cands, records):
        out = {}
        for c in cands:
            got = [script[c.name][n] for n in sorted(trained.get(c.name, ()))]
            out[c.name] = _Cell("hard" if "not" in got else "inconclusive" if "open" in got
                                else "easy")
        return out

    class _Store:
        def __init__(self, *a, **k):
            pass

        def records(self, line):
            return []

    monkeypatch.setattr(D, "_stages", fake_stages)
    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    monkeypatch.setattr(D, "outcomes", fake_outcomes)
    monkeypatch.setattr(D, "ResultsStore", _Store)


def test_staged_training_stops_each_candidate_once_its_verdict_is_fixed(monkeypatch):
    script = {"easy": {8: "learned", 16: "learned", 32: "learned"},
              "hard8": {8: "not", 16: "learned", 32: "learned"},
              "open8": {8: "open", 16: "learned", 32: "not"},
              "open32": {8: "learned", 16: "learned", 32: "open"}}
    order: list = []
    _scripted(monkeypatch, script, order)
    cands = [_cand(name, {"x": "easy", "y": "hard"}) for name in script]
    started, summary = D.train_staged(cands, "db", seeds=(0, 1, 2), workers=1,
                                      progress=False)
    assert [c.name for c in started] == list(script)
    trained = {t: sorted(n for u, n in order if u == t) for t in script}
    assert trained == {"easy": [8, 16, 32], "hard8": [8], "open8": [8, 32],
                       "open32": [8, 16, 32]}
    assert summary["stopped_early"] == ["hard8"] and summary["skipped_between"] == ["open8"]
    # every wave trains one n of each candidate in it, smallest n first
    assert order.index(("easy", 8)) < order.index(("easy", 16)) < order.index(("easy", 32))


def test_staged_training_stops_joining_at_the_settle_target(monkeypatch):
    script = {f"t{i}": {8: "learned" if i % 2 else "open"} for i in range(8)}
    order: list = []
    _scripted(monkeypatch, script, order)
    cands = [_cand(name, {"x": "easy", "y": "hard"}) for name in script]
    started, summary = D.train_staged(cands, "db", workers=1, window=2, settle=2,
                                      progress=False)
    # t0 open, t1 settled, t2 open, t3 settled: the target is met, t4.. never start
    assert [c.name for c in started] == ["t0", "t1", "t2", "t3"]
    assert summary["not_trained"] == 4


def test_the_deadline_leaves_candidates_partly_trained_and_not_settled(monkeypatch):
    import time
    script = {"a": {8: "learned", 16: "learned"}, "b": {8: "learned", 16: "learned"}}
    order: list = []
    _scripted(monkeypatch, script, order)
    cands = [_cand(name, {"x": "easy", "y": "hard"}) for name in script]
    started, summary = D.train_staged(cands, "db", workers=1, progress=False,
                                      deadline=time.time() - 1)
    assert order == [] and summary["cut_by_deadline"]
    assert summary["left_partly_trained"] == ["a", "b"]
    d = D.Discovery(1, [], cands, cands, started, {"a": _Cell("easy")}, summary,
                    {}, [])
    assert d.settled() == [] and d.partial() == {"a", "b"}


def test_length_refutations_read_only_a_theorys_own_length_prediction():
    c = _cand("t", {"crasp": "hard", "tc0": "easy", "huang_lg": "unknown"})
    c.length = {"huang_lg": "hard"}          # crasp and tc0 have no length-line entry
    assert D.refutes(c, "easy", length=True) == ["huang_lg"]
    assert D.refutes(c, "hard", length=True) == []
    assert D.refutes(c, "easy") == ["crasp"]


def test_length_specs_are_the_next_symbol_objective_on_one_encoding(tmp_path):
    from theorybench.tasks.registry import FAMILIES, load_task_file
    c = next(x for x in D.generate(["dfa:2:2"]) if x.dfa.size == 2)
    path = tmp_path / f"{c.name}.py"
    path.write_text(c.file_text())
    with FAMILIES.scoped():
        load_task_file(path)
        specs = D.length_specs(c, "quick", (0, 1, 2))
    assert [s.seed for s in specs] == [0, 1, 2]
    assert {(s.objective, s.encoding, s.train_max_len, s.eval_bins[-1][1]) for s in specs} \
        == {("next_symbol", D.LENGTH_ENCODING, 32, 256)}
    assert "LENGTHS = (1, 256)" in c.file_text()   # the bins up to 256 can be filled


def test_a_length_line_that_never_fits_the_training_lengths_is_not_read():
    from theorybench.matrix.cells import Aggregate, EmpiricalCell, Thresholds

    def cell(first, last):
        bins = {"<=32": Aggregate.of([first] * 3, [256] * 3),
                "129-256": Aggregate.of([last] * 3, [256] * 3)}
        return EmpiricalCell("t", "length_generalization", "hard", Thresholds(),
                             by_config={"small/nope": bins}, best_config="small/nope")
    c = _cand("t", {"huang_lg": "unknown"})
    c.length = {"huang_lg": "easy"}
    d = D.Discovery(1, [], [c], [c], [c], {}, {}, {}, [], {"t": cell(0.5, 0.0)}, {})
    assert d.length_verdict("t") == D.NOT_FITTED
    assert D.refutes(c, d.length_verdict("t"), length=True) == []
    d.length_cells["t"] = cell(1.0, 0.0)        # fitted, fails beyond: read, and refutes
    assert d.length_verdict("t") == "hard" and D.refutes(c, "hard", length=True) == ["huang_lg"]


def test_a_resumed_store_holding_larger_n_takes_the_same_path(monkeypatch):
    """Runs of a larger n already in the store (from a longer earlier run) must not decide
    an earlier step: the resumed schedule is the fresh one."""
    from theorybench.experiments import sweep
    script = {"hard16": {8: "open", 16: "not", 32: "learned"},
              "easy": {8: "learned", 16: "learned", 32: "learned"}}

    class _Rec:
        def __init__(self, key):
            self.key, self.metrics, self.spec = key, {"wall_s": 1.0}, {}

    every = [_Rec(f"{t}-{n}-{s}") for t in script for n in script[t] for s in (0, 1, 2)]

    class _Store:
        def __init__(self, *a, **k):
            pass

        def records(self, line):
            return every

    def fake_outcomes(cands, records):
        seen = {}
        for r in records:
            t, n, _ = r.key.split("-")
            seen.setdefault(t, set()).add(int(n))
        out = {}
        for c in cands:
            got = [script[c.name][n] for n in sorted(seen.get(c.name, ()))]
            out[c.name] = _Cell("hard" if "not" in got else "inconclusive" if "open" in got
                                else "easy")
        return out

    order: list = []
    monkeypatch.setattr(D, "_stages", lambda c, p, seeds: [[_Spec(c.name, n, s) for s in seeds]
                                                            for n in sorted(script[c.name])])
    monkeypatch.setattr(sweep, "run_sweep", lambda line, specs=(), **kw: order.extend(
        (s.task, s.n) for s in specs) or {"ran": 0, "skipped_done": len(specs), "failed": 0})
    monkeypatch.setattr(D, "outcomes", fake_outcomes)
    monkeypatch.setattr(D, "ResultsStore", _Store)
    cands = [_cand(name, {"x": "easy", "y": "hard"}) for name in script]
    _, summary = D.train_staged(cands, "db", workers=1, progress=False)
    # n = 8 open -> straight to the largest n; n = 16 (not learned, in the store) is skipped
    assert sorted({n for t, n in order if t == "hard16"}) == [8, 32]
    assert summary["skipped_between"] == ["hard16"]
