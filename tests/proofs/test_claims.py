"""The claims of theorybench/proofs: framework statuses, each claim's check at small n,
a wrong variant of every checked lemma rejected, and the CLI."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ConfigError
from theorybench.formal.crasp.flipflop import flip_flop_oracle
from theorybench.formal.crasp.programs import for_task
from theorybench.proofs import claims as C
from theorybench.proofs.claims import bapo, khop, retrieval
from theorybench.proofs.claims.base import Certificate, Step
from theorybench.proofs.claims.common import reduction_step


# ---- the status rules -----------------------------------------------------------------

def _cert(*steps):
    return Certificate("c", "t", 3, list(steps))


def test_status_rules():
    proof = Step("z3", "machine", "s", all_n=True, tool="z3")
    finite = Step("enum", "machine", "s", up_to=7)
    finite2 = Step("enum2", "machine", "s", up_to=5)
    hand = Step("hand", "by_hand", "s")
    cited_ok = Step("thm", "cited", "s", cite="X, Thm 1", premise_checked=True,
                    reference_checked=True)
    cited_unchecked = Step("thm", "cited", "s", cite="X", premise_checked=True)
    missing = Step("lemma", "missing", "s")
    assert _cert(proof, cited_ok).status == "proven"
    assert _cert(proof, finite, finite2).status == "verified ≤ 5"
    # a finite check with a by-hand generalisation is never proven
    assert _cert(proof, finite, hand).status == "verified ≤ 7"
    assert _cert(finite, cited_unchecked).status == "cited"
    assert _cert(finite, cited_unchecked, missing).status == "conditional"
    assert _cert(finite, missing).conditions == ["lemma"]
    bad = Step("enum", "machine", "s", ok=False, up_to=3)
    assert _cert(proof, bad).status == "failed" and not _cert(proof, bad).ok
    with pytest.raises(ValueError):
        Step("x", "guess", "s")


def test_certificate_serialises():
    cert = C.certificate("khop-not-crasp", 3)
    d = json.loads(json.dumps(cert.to_dict()))
    assert d["status"] == cert.status and len(d["steps"]) == len(cert.steps)
    md = cert.to_markdown()
    assert "| step | status |" in md and "flip-flop is not in C-RASP" in md


def test_registry_and_bad_input():
    assert C.names()[0] == "khop-not-crasp" and len(C.names()) == 5
    with pytest.raises(ConfigError, match="unknown claim"):
        C.get("nope")
    with pytest.raises(ConfigError, match="max_n"):
        C.get("khop-not-crasp").check(0)
    with pytest.raises(ConfigError, match="max_n"):
        C.get("khop-not-crasp").check(1000)


@pytest.mark.parametrize("name,status", [
    ("khop-not-crasp", "cited"), ("bapo-dyck", "verified ≤ 6"),
    ("bapo-binary-add", "conditional"),
    ("crasp-retrieval-size", "verified ≤ 2"), ("crasp-softmax-width", "verified ≤ 2")])
def test_each_claim_checks_at_small_n(name, status):
    cert = C.certificate(name)
    assert cert.ok, cert.failed_steps
    assert cert.status == status  # none of them is proven: each has a cited, missing or
    # by-hand step (the retrieval claims: finite machine checks plus proof text)
    for s in cert.steps:
        if s.kind == "machine":
            assert s.all_n or (s.up_to is not None and s.up_to >= 1) or s.scope


# ---- claim 2: flip-flop -> k-hop ------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3])
def test_khop_reduction_against_the_oracle(k):
    """Independent of Reduction.check: the k-hop task's literal oracle on the images."""
    red = khop.flip_flop_to_khop(k)
    m = 4
    w = np.array(list(itertools.product(range(3), repeat=m)), dtype=np.int64)
    x = red.apply(w, m)
    t = tasks.get("khop", **red.target_params(m))
    hop = t.oracle(x)[:, -1]
    want = np.array([t.vocab.index("c") if flip_flop_oracle(r) else t.vocab.index("b")
                     for r in w])
    assert np.array_equal(hop, want)
    assert t.valid_inputs(x).all()


def test_khop_non_reduction_rejected():
    # r -> a c instead of d c: "a" no longer marks set-letters only
    bad = khop.flip_flop_to_khop(1, images=((0, 1), (0, 2), (0, 2)))
    step = reduction_step("bad", bad, [1, 2, 3], "s")
    assert not step.ok and "counterexample" in step.details
    # the k = 1 tail used for k = 2 hops one step too few
    red = khop.flip_flop_to_khop(2)
    red.map = khop.flip_flop_to_khop(1).map
    red.target_params = lambda m: {"n": 2 * m + 3, "k": 2, "alphabet": 4}
    assert not reduction_step("bad tail", red, [1, 2, 3], "s").ok


# ---- claim 3: Dyck and BinaryAdd --------------------------------------------------------

def test_exact_half_reduction_and_its_wrong_variant():
    good = bapo._monotone(reduction_step("r", bapo.exact_half_to_dyck(), [2, 4, 6], "s"),
                          bapo.exact_half_to_dyck(), [2, 4, 6])
    assert good.ok and good.details["monotone (dependencies in input order)"]
    bad = reduction_step("r", bapo.exact_half_to_dyck(pad=False), [2, 4], "s")
    assert not bad.ok  # ") (" has as many ones as zeros but is not a Dyck word


def test_reversed_projection_is_not_monotone():
    red = bapo.exact_half_to_dyck()
    inner = red.map
    red.map = lambda x, n: inner(np.asarray(x)[:, ::-1], n)  # still a reduction (count)
    step = bapo._monotone(reduction_step("rev", red, [2, 4], "s"), red, [2, 4])
    assert not step.ok and not step.details["monotone (dependencies in input order)"]


def test_bapo_frontier_step_reports_unsat():
    step = bapo._frontier_step("f", "binary_add", {}, [2, 3], "s")
    assert step.ok and step.up_to == 3
    rows = step.details["minimal a for b = 0, 1, 2"]
    assert "a = 2 UNSAT" in rows["n=3 (length 8)"][0]


# ---- claim 1: simulation lemma and fooling set ------------------------------------------

def test_simulation_lemma_and_a_protocol_with_a_bug():
    task = tasks.get("dyck", n=4, k=1)
    prog, _ = for_task(task)
    assert retrieval.simulation_check(prog, tuple(task.vocab), 8)["ok"]
    # dropping a count from the message: prefixes with the same message now differ
    assert not retrieval.simulation_check(prog, tuple(task.vocab), 8, drop=1)["ok"]


# ---- CLI ---------------------------------------------------------------------------------

def test_cli_claims(cli):
    code, out, _ = cli("claims", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert {r["claim"] for r in rows} == set(C.names())
    code, out, _ = cli("claim", "khop-not-crasp", "--max-n", "3", "--format", "json")
    assert code == 0 and json.loads(out)["max_n"] == 3
    code, out, _ = cli("claim", "khop-not-crasp", "--max-n", "3")
    assert code == 0 and out.startswith("# Certificate: khop-not-crasp")
    code, _, err = cli("claim", "nope")
    assert code == 2 and "unknown claim" in err
    code, _, err = cli("claim", "khop-not-crasp", "--max-n", "99")
    assert code == 2 and "max_n" in err


def test_homomorphic_layout_premise():
    red = khop.flip_flop_to_khop(2)
    step = reduction_step("r", red, [1, 2, 3], "s")
    assert khop.homomorphic_layout(step.details["_dependency"], 2)
    # a map whose first frame token depends on w_1 is not h(s0 w) T
    bad = {1: [0, -1, 0, 0, -1, -1, -1]}
    assert not khop.homomorphic_layout(bad, 2)


def test_settling_names_the_cells():
    assert [c.name for c in C.settling("crasp", "khop:k=2")] == ["khop-not-crasp"]
    assert [c.name for c in C.settling("bapo", "binary_add")] == ["bapo-binary-add"]
    assert C.settling("bapo", "majority") == []


def test_exact_half_reduction_proved_for_every_n_and_unpadded_refuted():
    assert bapo.reduction_proof_all_n()["status"] == "proved"
    bad = bapo.reduction_proof_all_n(pad=False)
    assert bad["status"] == "refuted"
    assert any("body: step on 0: invalid" in o for o in bad["obligations"])


def test_greater_than_reduction_and_its_wrong_variant():
    assert bapo.carry_identity_all_n() == "proved"
    good = reduction_step("gt", bapo.gt_to_binary_add(), [1, 2, 3, 4], "s")
    assert good.ok
    assert not reduction_step("gt", bapo.gt_to_binary_add(complement=False), [2, 3], "s").ok
    x = np.array(list(itertools.product((0, 1), repeat=6)))
    want = [int(int("".join(map(str, r[:3])), 2) > int("".join(map(str, r[3:])), 2)) for r in x]
    assert bapo._gt_labels(x, 3).tolist() == want


@pytest.mark.parametrize("k", [1, 2, 3])
def test_khop_reduction_for_every_m_and_a_bad_image_refuted(k):
    assert khop.reduction_proof_all_m(k)["status"] == "proved"
    assert khop.abstraction_agrees(k, 4) == 4
    bad = khop.reduction_proof_all_m(k, images=((0, 1), (0, 2), (0, 2)))
    assert bad["status"] == "refuted"
