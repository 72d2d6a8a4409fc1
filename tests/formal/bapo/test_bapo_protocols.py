"""BAPO: verifier catches broken protocols; library protocols verify; SAT frontier."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import EnumerationTooLarge, ResourceLimitError, VerificationError
from theorybench.formal.bapo import Protocol, verify
from theorybench.formal.bapo.frontier import frontier, solve_point
from theorybench.formal.bapo.library import protocols_for, row_class_protocol
from theorybench.formal.communication import one_way_cc


def df_of(name, **kw):
    return tasks.get(name, **kw).decision_view()[0]


def parity_protocol(a=1):
    return Protocol("parity", a, 0, f=lambda pre: (pre.sum(1) % 2)[:, None],
                    h=lambda bits, gt, gp, suf, k: (bits[:, 0] + suf.sum(1)) % 2)


def test_correct_protocol_verifies():
    assert verify(parity_protocol(), df_of("parity", n=6)).ok


def test_wrong_answer_reported_with_place():
    bad = Protocol("bad", 1, 0, f=lambda pre: (pre.sum(1) % 2)[:, None],
                   h=lambda bits, gt, gp, suf, k: suf.sum(1) % 2)
    r = verify(bad, df_of("parity", n=6))
    assert not r.ok and r.failure["split"] == 1 and r.failure["expected"] != r.failure["got"]
    with pytest.raises(VerificationError, match="split k=1"):
        r.raise_for_failure()


def test_exceeding_declared_a_is_caught():
    # declares a=0 but f sends a bit
    cheat = Protocol("cheat", 0, 0, f=lambda pre: (pre.sum(1) % 2)[:, None],
                     h=lambda bits, gt, gp, suf, k: (bits[:, 0] + suf.sum(1)) % 2)
    with pytest.raises(ResourceLimitError, match="declares a=0"):
        verify(cheat, df_of("parity", n=5))


def needs3(b):
    """A b-token protocol for the parity of positions 0..2 that needs all three tokens."""
    return Protocol("needs3", 0, b, g=lambda suf, k, tok, pos: pos < 3,
                    h=lambda bits, gt, gp, suf, k: (np.where(gp >= 0, gt, 0).sum(1)
                                                    + suf[:, :max(0, 3 - k)].sum(1)) % 2)


def test_exceeding_declared_b_is_caught_by_adversary():
    # sparse_parity of positions 1,2,3 with b=1: g selects all three, h needs them all
    df = df_of("sparse_parity", n=6)
    r = verify(needs3(1), df)
    assert not r.ok and len(r.failure["G"]) == 1 and len(r.failure["selected"]) >= 2


@pytest.mark.parametrize("name,kw", [
    ("parity", dict(n=8)), ("all", dict(n=7)), ("any", dict(n=7)), ("majority", dict(n=7)),
    ("sparse_all", dict(n=8)), ("sparse_parity", dict(n=8, positions="2,5,8")),
    ("index", dict(n=6)), ("index_all", dict(n=6, k=3)), ("index_any", dict(n=5, k=2, mode="mask")),
    ("index_parity", dict(n=6, k=2)), ("edge_exists", dict(n=3))])
def test_library_protocols_verify(name, kw):
    df = df_of(name, **kw)
    ps = protocols_for(df)
    assert ps
    for p in ps:
        assert verify(p, df).ok, p.name


def test_library_bandwidth_is_flat_for_index():
    ab = {(p.a, p.b) for n in (4, 8, 16) for p in protocols_for(df_of("index", n=n))}
    assert ab == {(0, 1)}


@pytest.mark.parametrize("name,kw", [("binary_add", dict(n=3)), ("khop", dict(n=5)),
                                     ("majority", dict(n=9))])
def test_row_class_protocol_is_exact_b0(name, kw):
    df = df_of(name, **kw)
    p = row_class_protocol(df)
    assert verify(p, df).ok
    assert p.a == one_way_cc(df)[0]


def test_sat_b0_agrees_with_communication():
    for name, n in (("parity", 6), ("majority", 7)):
        df = df_of(name, n=n)
        fr = frontier(df, 3, 0, timeout_s=60)
        assert fr.min_a[0] == one_way_cc(df)[0]


def test_sat_finds_index_protocol_and_proves_b0_a0_impossible():
    df = df_of("index", n=3)
    assert solve_point(df, 0, 1).status == "sat"  # verified inside
    res = solve_point(df, 0, 0)
    assert res.status == "unsat" and "certificate" in res.to_dict()


def test_sat_parity_needs_a_bit():
    df = df_of("parity", n=5)
    assert solve_point(df, 0, 1).status == "unsat"
    assert solve_point(df, 1, 0).status == "sat"


def test_sat_too_large_says_so():
    with pytest.raises(EnumerationTooLarge, match="smaller n"):
        solve_point(df_of("parity", n=30), 1, 0)


@pytest.mark.parametrize("n", [3, 5, 9, 15])
def test_majority_protocol_has_theorem4_bandwidth(n):
    # Theorem 4 of Schnabel et al.: a (ceil(log2 n), 0)-BAPO; never below the exact b=0 optimum
    from theorybench.formal.bapo.library import majority_protocol
    df = df_of("majority", n=n)
    p = majority_protocol(n)
    assert (p.a, p.b) == (int(np.ceil(np.log2(n))), 0)
    assert verify(p, df).ok and p.a >= one_way_cc(df)[0]


def test_frontier_rejects_negative_bounds():
    from theorybench.errors import TaskParameterError
    with pytest.raises(TaskParameterError, match="must be >= 0"):
        frontier(df_of("parity", n=4), -1, 1)


def test_trivial_protocol_and_one_token_short():
    # the (0, L-1) attend-all protocol verifies; with b = L-2 the adversary withholds a token
    from theorybench.formal.bapo.library import trivial_protocol
    for name, n in (("binary_add", 2), ("reach_directed", 2)):
        df = df_of(name, n=n)
        p = trivial_protocol(df)
        assert (p.a, p.b) == (0, df.length - 1) and verify(p, df).ok
    df = df_of("binary_add", n=2)
    L = df.length

    def h(bits, gt, gp, suf, k):  # rebuild from what arrived, 0 where a token is missing
        x = np.zeros((len(suf), L), dtype=np.int64)
        rows = np.nonzero(gp >= 0)
        x[rows[0], gp[rows]] = gt[rows]
        x[:, k:] = suf
        return df.evaluate(x)

    short = Protocol("short", 0, L - 2, g=lambda s, k, t, p: np.ones(len(t), bool), h=h)
    r = verify(short, df)
    assert not r.ok and r.failure["split"] == L - 1 and len(r.failure["G"]) == L - 2


def test_crashing_protocol_is_a_verification_error():
    bad = Protocol("crash", 0, 0, h=lambda bits, gt, gp, suf, k: suf[:, 99])
    with pytest.raises(VerificationError, match="h raised IndexError at split k=1"):
        verify(bad, df_of("parity", n=4))


def test_randomized_adversary_when_choices_are_too_many():
    # forcing the randomized adversary (max_choices=1) must still catch a b=2 protocol that
    # needs all three selected tokens, and must say that it randomized
    df = df_of("sparse_parity", n=6)
    r = verify(needs3(2), df, max_choices=1, rng=np.random.default_rng(0))
    assert r.adversary.startswith("randomized") and not r.ok
    assert len(r.failure["G"]) == 2 and len(r.failure["selected"]) == 3
    good = protocols_for(df)[0]
    assert verify(good, df, max_choices=1).ok
