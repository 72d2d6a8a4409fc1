"""The AC0 and TC0 theories: every rule fires where it should, and its checks can fail."""

import itertools

import numpy as np
import pytest

from theorybench import tasks
from theorybench.theories.base import (Basis, Context, RuleSkip, Status, Verdict, check_json,
                                       to_jsonable)
from theorybench.formal.circuits import hardness
from theorybench.theories.rules import boppana_rule, construction_rule, reduction_rule
from theorybench.formal.circuits.verify import construction_table
from theorybench.formal.reductions import Reduction, task_problem
from theorybench.theories.registry import theory


@pytest.fixture(scope="module")
def ac0():
    return theory("ac0")


@pytest.fixture(scope="module")
def tc0():
    return theory("tc0")


def test_ac0_construction_rule(ac0):
    p = ac0.predict("binary_add")
    # a builder checked up to some n is "verified <= N", never "proven" (issue 11)
    assert (p.verdict, p.basis, p.status) == (Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED)
    table = p.evidence["construction"]["table"]
    assert p.evidence["verified_up_to"] == max(r["n"] for r in table)
    assert p.status_label == f"verified ≤ {p.evidence['verified_up_to']}"
    assert all(r["errors"] == 0 for r in table) and max(r["n"] for r in table) >= 64
    assert p.evidence["construction"]["depth_growth"]["kind"] == "bounded"
    assert p.evidence["construction"]["size_growth"]["kind"] in ("bounded", "log", "poly")
    check_json(p.evidence)


@pytest.mark.parametrize("family", ["parity", "majority"])
def test_ac0_boppana_rule(ac0, family):
    p = ac0.predict(family)
    # the closed form holds for every m; the task's identity with it is checked up to N
    assert (p.verdict, p.basis, p.status) == (Verdict.HARD, Basis.LOWER_BOUND, Status.VERIFIED)
    ev = p.evidence
    ms, vals = ev["input_bits"], ev["average_sensitivity"]
    if family == "parity":  # closed form: as(parity_m) = m
        assert np.allclose(vals, ms)
    else:  # as(maj_m) = m * C(m-1, (m-1)/2) / 2^(m-1)
        from math import comb
        assert np.allclose(vals, [m * comb(m - 1, (m - 1) // 2) / 2 ** (m - 1) for m in ms])
    assert ev["growth"]["kind"] == "poly" and ev["growth"]["exponent"] >= 0.3
    assert "Boppana" in ev["theorem"]["source"]
    # the construction rule was tried first and skipped (no AND/OR/NOT builder)
    assert p.tried[0]["outcome"].startswith("no AND/OR/NOT circuit builder")


def test_boppana_rule_skips_low_sensitivity_and_non_binary(ac0):
    skip = boppana_rule(ac0, "all", Context())
    assert isinstance(skip, RuleSkip) and "not like" in skip.reason
    assert skip.evidence["growth"]["kind"] != "poly" or skip.evidence["growth"]["exponent"] < 0.3
    skip = boppana_rule(ac0, "sparse_parity", Context())  # as = k = 3, bounded
    assert isinstance(skip, RuleSkip)
    skip = boppana_rule(ac0, "khop", Context())
    assert isinstance(skip, RuleSkip) and "domain restriction" in skip.reason


def test_boppana_rule_judges_the_lengths_where_the_function_is_not_constant(ac0, tmp_path):
    # #a = #b is false at every odd n (sensitivity 0 there) and has sensitivity
    # 2m C(m, m/2) / 2^m at even m (m at the balanced inputs, m/2 + 1 at the inputs one
    # flip from balance), ~ sqrt(8m/pi): the zig-zag once read as bounded
    path = tmp_path / "eq_ab_file.py"
    path.write_text('NAME = "eq_ab_file"\nALPHABET = ("a", "b")\nLENGTHS = (2, 64)\n'
                    'def label(x):\n    return (x == 0).sum(1) == (x == 1).sum(1)\n')
    p = boppana_rule(ac0, str(path), Context())
    assert p.verdict == Verdict.HARD and p.status == Status.EXTRAPOLATED
    ev = p.evidence
    assert ev["constant_at_bits"] and all(m % 2 == 1 for m in ev["constant_at_bits"])
    assert not set(ev["constant_at_bits"]) & set(ev["growth_bits"])
    from math import comb
    assert np.allclose(ev["average_sensitivity"],
                       [2 * m * comb(m, m // 2) / 2 ** m if m % 2 == 0 else 0.0
                        for m in ev["input_bits"]])


@pytest.mark.parametrize("family,source", [("reach_directed", "parity"),
                                           ("reach_undirected", "parity"), ("dyck", "majority")])
def test_ac0_reduction_rule(ac0, family, source):
    p = ac0.predict(family)
    # the map is checked up to some n, not for all n: verified <= N, never proven
    assert (p.verdict, p.basis, p.status) == (Verdict.HARD, Basis.REDUCTION, Status.VERIFIED)
    assert p.evidence["verified_up_to"] == max(c["n"] for c in p.evidence["check"]["by_n"])
    chk = p.evidence["check"]
    assert chk["ok"] and chk["is_projection"] and chk["labels_preserved"]
    assert p.evidence["source_problem"] == source
    check_json(p.evidence)


def test_ac0_dyck_bounded_is_easy_and_dyck_has_no_ac0_builder(ac0):
    assert ac0.predict("dyck_bounded").verdict == Verdict.EASY
    assert construction_table("dyck", "ac0") is None


@pytest.mark.parametrize("family", ["majority", "parity", "dyck", "khop", "edge_exists"])
def test_tc0_construction_rule(tc0, family):
    p = tc0.predict(family)
    assert (p.verdict, p.basis, p.status) == (Verdict.EASY, Basis.CONSTRUCTION, Status.VERIFIED)
    assert not any("rule failed" in t["outcome"] for t in p.tried)


@pytest.mark.parametrize("family,cond", [("reach_directed", "TC0 != NL"),
                                         ("reach_undirected", "TC0 != L")])
def test_tc0_conditional_reduction_rule(tc0, family, cond):
    p = tc0.predict(family)
    assert (p.verdict, p.basis, p.status) == (Verdict.HARD, Basis.REDUCTION, Status.CONDITIONAL)
    assert p.evidence["theorem"]["condition"] == cond and cond in p.explanation
    assert p.evidence["check"]["ok"]
    assert p.tried[0]["outcome"].startswith("no threshold or AND/OR/NOT circuit builder")


def test_no_rule_for_tc0_parity_from_parity(tc0):
    # parity has no TC0 lower bound, so no reduction is offered for TC0
    assert isinstance(reduction_rule(tc0, "parity", "tc0", Context()), RuleSkip)
    assert isinstance(construction_rule(tc0, "reach_directed", "tc0", Context()), RuleSkip)


def test_majority_to_dyck_word_against_a_stack():
    for n in (1, 3, 5, 7):
        for bits in itertools.product([0, 1], repeat=n):
            word = hardness.majority_to_dyck_word(np.array([bits]), n, 0, 1)[0]
            depth, ok = 0, True
            for t in word:
                depth += 1 if t == 0 else -1
                ok &= depth >= 0
            assert len(word) == 8 * n + 2
            assert (ok and depth == 0) == (2 * sum(bits) > n)


def test_majority_projects_into_every_dyck_variant_it_names():
    # the words use one bracket type, so Dyck-1 gets the lower bound as Dyck-2 does
    # (it was registered for the default k only, leaving AC0 dyck:k=1 Unknown)
    for ref in ("dyck", "dyck:k=1"):
        found = hardness.checked(ref, "ac0")
        assert [k.problem.name for k, _, _ in found] == ["majority"]
        (_, red, chk), = found
        assert chk.ok and red.target_params(3)["n"] == 26
    assert hardness.checked("dyck:k=1", "ac0")[0][1].target_params(3)["k"] == 1
    assert hardness.checked("dyck_bounded", "ac0") == ()


def test_ac0_dyck1_is_hard_by_the_majority_projection(ac0):
    p = reduction_rule(ac0, "dyck:k=1", "ac0", Context())
    assert p.verdict.value == "hard" and "dyck:k=1" in p.evidence["reduction"]


def test_a_wrong_reduction_fails_its_check():
    good = hardness._parity_to_reach(True)

    def bad_map(x, m):  # query t = a_m instead of b_m: flips every label
        y = good.map(x, m)
        y[:, -1] = m
        return y

    bad = Reduction("broken", task_problem("parity"), "reach_directed", good.target_params,
                    bad_map, kind="projection")
    chk = bad.check((2, 3))
    assert not chk.ok and chk.counterexample is not None
    assert good.check((2, 3)).ok


def test_gap_problem_labels_match_networkx():
    import networkx as nx
    prob = hardness.gap_problem(True)
    x = prob.instances(3, 1 << 10)
    labels = prob.label(x, 3)
    u, w = hardness._pairs(3, True)
    for row, lab in zip(x, labels):
        g = nx.DiGraph()
        g.add_nodes_from(range(3))
        g.add_edges_from((int(a), int(b)) for a, b, bit in zip(u, w, row) if bit)
        assert lab == int(nx.has_path(g, 0, 2))


def test_predictions_are_reproducible_and_serializable(ac0, tc0):
    for th in (ac0, tc0):
        for fam in tasks.families():
            a = th.predict(fam, Context(seed=0)).to_dict()
            b = th.predict(fam, Context(seed=0)).to_dict()
            assert a == b and a["verdict"] != "unknown"
            to_jsonable(a)


def _fake_table(depths, sizes, errors=0):
    from theorybench.formal.circuits.builders import builders_for
    from theorybench.formal.circuits.verify import Check, ConstructionResult
    from theorybench.formal.growth import classify_growth
    ns = [4, 8, 16, 32, 64][: len(depths)]
    checks = [Check(n=n, bits=n, depth=d, size=s, wires=2 * s, gate_counts={}, checked=16,
                    exhaustive=True, errors=errors if n == ns[-1] else 0)
              for n, d, s in zip(ns, depths, sizes)]
    fits = (classify_growth(ns, depths), classify_growth(ns, sizes)) if len(ns) >= 3 else (None, None)
    return ConstructionResult("all", builders_for("all", "ac0")[0], checks, *fits)


@pytest.mark.parametrize("table,reason", [
    (lambda: _fake_table([2, 2, 2], [5, 9, 17], errors=3), "disagrees with the task at n=16"),
    (lambda: _fake_table([2, 2], [5, 9]), "need 3"),
    (lambda: _fake_table([2, 4, 6, 8, 10], [5, 9, 17, 33, 65]), "depth grows"),
    (lambda: _fake_table([2, 2, 2, 2, 2], [2 ** 4, 2 ** 8, 2 ** 16, 2 ** 32, 2 ** 64]),
     "size grows exponential"),
])
def test_construction_rule_skips_unless_verified_bounded_depth_polynomial_size(
        ac0, monkeypatch, table, reason):
    from theorybench.theories import rules
    monkeypatch.setattr(rules, "construction_table", lambda *a, **k: table())
    out = construction_rule(ac0, "all", "ac0", Context())
    assert isinstance(out, RuleSkip) and reason in out.reason
    monkeypatch.setattr(rules, "construction_table", lambda *a, **k: _fake_table([2, 2, 2], [5, 9, 17]))
    assert construction_rule(ac0, "all", "ac0", Context()).verdict == Verdict.EASY
