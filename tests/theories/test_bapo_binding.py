"""The BAPO flat-bandwidth check can fail: a protocol whose declared bandwidth covers the
whole prefix at every checked n is no evidence (issue 29: the k-hop table's 14 to 38 bits
exceeded the prefix information at every analysis n, so any function would have passed)."""

import math

import numpy as np
import pytest

import theorybench.theories.bapo as bapo_theory
from theorybench import tasks
from theorybench.formal.bapo import Protocol
from theorybench.formal.bapo.verify import binomial_lower, prefix_information
from theorybench.theories.prediction import status_problem
from theorybench.theories.base import Context, RuleSkip, Status, Verdict
from theorybench.theories.registry import theory


def df_of(name, **kw):
    return tasks.get(name, **kw).decision_view()[0]


def prefix_dump(n: int, width: int = 14) -> Protocol:
    """A majority 'protocol' that sends the first ``width`` prefix bits: correct while the
    prefix fits in ``width`` bits, i.e. a lookup table, not a constant-bandwidth protocol."""

    def f(prefix):
        out = np.zeros((len(prefix), width), dtype=np.int64)
        m = min(prefix.shape[1], width)
        out[:, :m] = prefix[:, :m]
        return out

    def h(bits, gt, gp, suffix, k):
        return (2 * (bits.sum(axis=1) + suffix.sum(axis=1)) > n).astype(np.int64)

    return Protocol("prefix-dump", width, 0, f=f, h=h, description="sends the prefix")


def test_a_prefix_dump_protocol_is_not_flat_bandwidth_evidence(monkeypatch):
    # the old check called Majority (BAPO-hard) Easy with this protocol: verified at every
    # analysis n (all <= 11, prefixes of at most 10 bits) with a declared a = 14 at each
    monkeypatch.setattr(bapo_theory, "protocols_for", lambda df: [prefix_dump(df.task.n)])
    out = theory("bapo").library_protocol("majority", Context())
    assert isinstance(out, RuleSkip), out
    assert "covers the whole prefix" in out.reason
    ext = out.evidence["protocols"]["prefix-dump"]["larger_n"]
    # n = 17 is the first (odd) n whose 16 prefix bits exceed 14: checked there, it fails
    assert ext["n"] == 17 and ext["row"]["prefix_information"]["log2_prefixes_at_least"] == 16
    assert not ext["row"]["ok"] and ext["row"]["failure"]
    rows = out.evidence["protocols"]["prefix-dump"]["bandwidth_by_n"]
    assert rows and all(r["ok"] and not r["binds"] for r in rows.values())


def test_khop_table_is_checked_where_its_bandwidth_binds():
    # khop:k=2's table has a = 2 + 4*2*3 = 26 bits, above the ~2^16 prefixes of n <= 10:
    # the rule must go on to an n where 2^26 messages no longer cover the prefixes
    p = theory("bapo").library_protocol("khop:k=2", Context())
    assert p.verdict == Verdict.EASY and p.status == Status.VERIFIED
    rows = p.evidence["bandwidth_by_n"]
    assert not any(rows[n]["binds"] for n in (4, 5, 6, 7, 8, 9, 10))
    (m,) = p.evidence["binding_n"]
    assert m > 10 and rows[m]["ok"] and p.evidence["verified_up_to"] == m
    assert rows[m]["prefix_information"]["log2_prefixes_at_least"] > 26
    # and the bound is below the truth: 4 * 3^(m-2) valid prefixes of length m - 1
    assert rows[m]["prefix_information"]["log2_prefixes_at_least"] <= math.log2(4 * 3 ** (m - 2))
    assert "sampled" in p.evidence["verified_how"]


def test_prefix_information_exact_and_sampled():
    rng = np.random.default_rng(1)
    info = prefix_information(df_of("khop", n=6), 0, rng)
    assert info.how.startswith("exact") and info.bits == pytest.approx(math.log2(4 * 3 ** 4))
    assert info.binds(8) and not info.binds(9)
    # b attended tokens leave L - 1 - b to f; a product space is exact without sampling
    info = prefix_information(df_of("majority", n=21), 3, rng)
    assert info.prefix_length == 17 and info.bits == 17 and "product" in info.how
    # too large to enumerate: a lower bound, below the true 4 * 3^10 and near it
    info = prefix_information(df_of("khop", n=12), 0, rng)
    assert "sampled" in info.how
    assert math.log2(4 * 3 ** 10) - 1.5 < info.bits <= math.log2(4 * 3 ** 10)


def test_binomial_lower_bound():
    assert binomial_lower(0, 100, 1e-6) == 0.0
    lo = binomial_lower(50, 100, 1e-6)
    assert 0.2 < lo < 0.5
    # its defining property: P(Bin(100, lo) >= 50) is about delta
    from math import comb
    tail = sum(comb(100, i) * lo ** i * (1 - lo) ** (100 - i) for i in range(50, 101))
    assert tail == pytest.approx(1e-6, rel=1e-3)


# ---- the SAT frontier rule (issue 29 item 3: a found protocol is evidence) ----------------

def test_sat_frontier_finds_the_index_protocol_itself():
    # no library: z3 finds a (0, 1)-BAPO at every n with <= 2^9 inputs, the verifier
    # passes its tables; one table per n is a flat series, not one object: extrapolated,
    # with the flat fit and how far it was checked in the evidence
    p = theory("bapo").sat_frontier_rule("index", Context())
    assert p.verdict == Verdict.EASY and p.status == Status.EXTRAPOLATED
    assert status_problem(p) is None and p.evidence["fit"]["kind"] == "bounded"
    assert (p.evidence["a"], p.evidence["b"]) == (0, 1)
    checks = p.evidence["protocol_checks"]
    assert len(checks) >= 3 and set(checks.values()) == {"verified"}
    assert p.evidence["checked_up_to"] == max(checks) and "z3" in p.evidence["solver"]


def test_sat_frontier_growth_is_no_verdict():
    out = theory("bapo").sat_frontier_rule("majority", Context())
    assert isinstance(out, RuleSkip) and "grows" in out.reason and "proves nothing" in out.reason
    b1 = out.evidence["sat_frontier_min_a_by_b"][1]
    assert len(set(b1.values())) > 1


def test_sat_frontier_flat_only_over_the_whole_prefix_is_no_evidence(monkeypatch):
    # a frontier flat at a = 3, b = 2 over n = 3..5 says nothing: 2^3 messages plus two
    # tokens carry every prefix of length <= 4, so any function has such a protocol
    fake = {n: {"n": n, "min_a_by_b": {0: 3, 1: 3, 2: 3}, "pareto": [],
                "status": {0: "exact", 1: "exact", 2: "exact"}} for n in (3, 4, 5)}
    monkeypatch.setattr(bapo_theory, "_frontier_ns", lambda fam, ctx: [3, 4, 5])
    monkeypatch.setattr(bapo_theory, "sat_frontier", lambda fam, n: fake[n])
    out = theory("bapo").sat_frontier_rule("parity", Context())
    assert isinstance(out, RuleSkip)
    assert "covers the whole prefix" in out.evidence["b=2"]


def test_sat_frontier_protocol_that_fails_its_check_is_not_used(monkeypatch):
    real = bapo_theory.solve_point

    def tampered(df, a, b, **kw):
        pt = real(df, a, b, **{**kw, "check": False})
        pt.verification = {"ok": False}
        return pt

    monkeypatch.setattr(bapo_theory, "solve_point", tampered)
    out = theory("bapo").sat_frontier_rule("index", Context())
    assert isinstance(out, RuleSkip)
    assert set(out.evidence["b=1"]["protocol_checks"].values()) == {"failed"}


# ---- the other checks of the bapo rules, each shown to reject a wrong object -------------

def test_growing_library_bandwidth_is_not_flat():
    # majority's count protocol: (ceil(log2 n), 0) verifies at every n but grows
    out = theory("bapo").library_protocol("majority", Context())
    assert isinstance(out, RuleSkip) and "grows" in out.reason
    rows = out.evidence["protocols"]["majority-count"]
    assert all(r["ok"] for r in rows.values()) and len({r["a"] for r in rows.values()}) > 1


def test_monotone_check_rejects_reordered_dependencies():
    assert bapo_theory._monotone([0, -1, 1, 1, 3])
    assert not bapo_theory._monotone([0, 2, 1])
    assert not bapo_theory._monotone(None)


def test_reversed_majority_is_no_split_preserving_reduction(monkeypatch):
    # reversing the input keeps Majority's labels (a correct reduction) but not the order
    # of positions, so splits are not preserved and hardness must not transfer by it
    from theorybench.formal.bapo import hardness

    ((red, note, ns),) = hardness.reductions_into("majority")
    red.map = lambda x, n: np.asarray(x)[:, ::-1]
    assert red.check(ns, rng=np.random.default_rng(0)).ok  # labels kept: only order fails
    monkeypatch.setattr(bapo_theory, "reductions_into", lambda fam: [(red, note, ns)])
    out = theory("bapo").hard_reduction("majority", Context(options={"bapo_no_sat": True}))
    assert isinstance(out, RuleSkip) and "failed their check" in out.reason


def test_sat_frontier_ignores_lengths_where_the_task_is_constant(tmp_path):
    # copies ww defined at every n: constant 0 at odd n (a = 0 there), a = 1 with b = 1 at
    # even n (the attention finds a mismatching position); the zig-zag 1, 0, 1, 0 once
    # read as growth
    path = tmp_path / "ww_all.py"
    path.write_text('NAME = "ww_all_bapo"\nALPHABET = ("a", "b")\nLENGTHS = (2, 64)\n'
                    "def label(x):\n    h = x.shape[1] // 2\n"
                    "    return (x.shape[1] % 2 == 0) & (x[:, :h] == x[:, h:2 * h]).all(axis=1)\n")
    p = theory("bapo").sat_frontier_rule(str(path), Context())
    assert p.verdict == Verdict.EASY and status_problem(p) is None
    ev = p.evidence
    assert ev["constant_at_n"] and all(n % 2 for n in ev["constant_at_n"])
    assert (ev["a"], ev["b"]) == (1, 1)
    assert all(v == "verified" for v in ev["protocol_checks"].values())
