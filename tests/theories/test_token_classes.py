"""Star-free on growing alphabets (docs/theories.md §1, "Growing alphabets"): symbols a
program must tell apart, counted with witnesses, bound the token predicates a B-RASP
program needs."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.token_classes import separated_clique
from theorybench.theories.base import Basis, Context, Status, Verdict, status_problem
from theorybench.theories.star_free import StarFreePosTheory, StarFreeTheory


def test_index_query_tokens_are_pairwise_separated_as_an_independent_check_says():
    n = 6
    task = tasks.get("index", n=n)
    sep = separated_clique("index", n)
    queries = [t for t in task.vocab if t.startswith("q")]
    assert sorted(sep.clique) == sorted(queries) and sep.full_class and sep.exhaustive
    # independently: x = e_a with query q_a is accepted, with query q_b rejected
    ids = {t: k for k, t in enumerate(task.vocab)}
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            if a == b:
                continue
            x = [ids["0"]] * n + [ids[f"q{a}"]]
            x[a - 1] = ids["1"]
            y = list(x)
            y[-1] = ids[f"q{b}"]
            got = task.label(np.array([x, y], dtype=np.int64)).tolist()
            assert got == [1, 0]


@pytest.mark.parametrize("family", ["index", "index_all", "index_any", "index_parity",
                                    "edge_exists"])
def test_star_free_is_hard_on_growing_alphabets(family):
    p = StarFreeTheory().predict(family, Context())
    assert (p.verdict, p.basis, p.status) == (Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED)
    assert p.rule == "symbols a fixed program cannot tell apart"
    assert status_problem(p) is None
    ev = p.evidence
    rows = ev["separated_symbols"]
    assert all(r["whole_class"] and r["clique_size"] == r["largest_class"] for r in rows)
    assert ev["verified_up_to"] == rows[-1]["n"]
    sizes = list(ev["largest_class_by_n"].values())
    assert sizes[-1] > sizes[0] and ev["growth"]["kind"] != "bounded"
    # every witness is a real one: the rendered input and its one-token change disagree
    task = tasks.get(family, n=rows[-1]["n"])
    for w in rows[-1]["witnesses"]:
        x = task.parse(w["input"])
        y = np.array(x, dtype=np.int64).copy()
        assert task.vocab[y[w["position"]]] == w["symbols"][0]
        y[w["position"]] = task.vocab.index(w["symbols"][1])
        df = task.decision_view()[0]
        got = np.asarray(df.evaluate(np.stack([np.asarray(x, dtype=np.int64), y])))
        assert got[0] == w["label"] and got[1] != got[0]


def test_positions_keep_index_easy_and_edge_exists_hard():
    pos = StarFreePosTheory()
    p = pos.predict("index", Context())
    assert p.verdict == Verdict.EASY and "tokpos" in p.evidence.get("extensions", [])
    p = pos.predict("edge_exists", Context())
    assert (p.verdict, p.status, p.rule) == (Verdict.HARD, Status.VERIFIED,
                                             "symbols a fixed program cannot tell apart")
    # edges ending at the same node spell the same number: those must be told apart
    clique = p.evidence["separated_symbols"][-1]["clique"]
    assert len({c.rsplit("v", 1)[-1] for c in clique}) == 1 and len(clique) >= 3


def test_a_fixed_alphabet_is_no_case_for_the_rule():
    out = StarFreeTheory().r_token_classes("kv_retrieval", Context())
    assert "the same at every n" in out.reason
