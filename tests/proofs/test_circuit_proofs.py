"""z3 proofs of circuit families (theorybench/proofs/circuits.py): the specifications are
the tasks' references, proofs at n = 64, wrong circuits refuted with a confirmed
counterexample, and no answer never reported as a proof."""

import copy
import json

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.circuits.builders import build
from theorybench.formal.circuits.evaluate import evaluate
from theorybench.formal.circuits.ir import AND, MAJ, OR, THR
from theorybench.formal.circuits.verify import decode
from theorybench.proofs.circuits import SPECS, check_spec, families, prove, prove_built

#: (family, params, n) with every input enumerated (the spec against the reference)
SMALL = [("all", {}, 8), ("any", {}, 8), ("parity", {}, 9), ("majority", {}, 9),
         ("sparse_all", {}, 10), ("sparse_any", {}, 10), ("sparse_parity", {}, 10),
         ("index", {}, 6), ("index_all", {}, 5), ("index_any", {}, 5), ("index_parity", {}, 5),
         ("index_any", {"mode": "mask"}, 5), ("index_all", {"mode": "mask", "k": 2}, 5),
         ("index_parity", {"mode": "mask", "k": 2}, 5), ("binary_add", {}, 4),
         ("binary_add", {"layout": "interleaved"}, 4), ("dyck", {"k": 1}, 10),
         ("dyck_bounded", {"k": 1}, 10), ("dyck_bounded", {"k": 1, "D": 1}, 8)]


def test_every_family_with_a_spec_has_a_builder_and_is_listed():
    assert set(families()) == set(SPECS)
    assert {f for f, _, _ in SMALL} == set(SPECS)


@pytest.mark.parametrize("family,params,n", SMALL)
def test_spec_equals_the_reference_on_every_input(family, params, n):
    b = build(tasks.get(family, n=n, **params))
    x = b.df.enumerate()
    assert check_spec(b, x) == len(x[b.df.valid(x)] if b.df.valid is not None else x) > 0


@pytest.mark.parametrize("family,params,n", [
    ("all", {}, 64), ("any", {}, 64), ("parity", {}, 64), ("majority", {}, 65),
    ("sparse_all", {}, 64), ("sparse_any", {}, 64), ("sparse_parity", {}, 64),
    ("index", {}, 64), ("index_parity", {}, 64), ("index_any", {"mode": "mask"}, 64),
    ("binary_add", {}, 64)])
def test_proved_at_n_64(family, params, n):
    r = prove(family, n, params, timeout_s=120)
    assert r.status == "proved", r.reason
    assert r.n == n and r.spec_samples > 0 and "at n=" in r.statement()


def test_parity_and_majority_go_through_the_sum_cut():
    assert "sum cut" in prove("parity", 64).extra["method"]
    assert "sum cut" in prove("majority", 65).extra["method"]
    assert "miter" in prove("all", 64).extra["method"]


def _mutated(b, pick):
    """A copy of the circuit with one live gate changed by ``pick(c, v) -> bool``."""
    c = copy.deepcopy(b.circuit)
    c.__dict__.pop("_eval_plan", None)
    live = c.live()
    for v in range(len(c.kinds)):
        if live[v] and pick(c, v):
            return c
    raise AssertionError("no gate to change")


def _check_refuted(b, c):
    r = prove_built(b, circuit=c, timeout_s=120)
    assert r.status == "counterexample", r.reason
    row = np.array([r.counterexample])
    # the reference confirms: the changed circuit and the task disagree on that input
    got = int(decode(c, evaluate(c, b.encoding.encode(row)))[0])
    want = int(b.df.evaluate(row)[0])
    assert got == r.circuit_value and want == r.reference_value and got != want
    # and the original circuit is right there
    assert int(decode(b.circuit, evaluate(b.circuit, b.encoding.encode(row)))[0]) == want
    return r


def test_parity_with_one_threshold_changed_is_refuted_at_64():
    b = build(tasks.get("parity", n=64))

    def bump(c, v):
        if c.kinds[v] == THR and c.params[v] == 31:
            c.params[v] = 30
            return True
        return False
    _check_refuted(b, _mutated(b, bump))


def test_majority_gate_replaced_by_a_threshold_is_refuted():
    b = build(tasks.get("majority", n=65))

    def swap(c, v):
        if c.kinds[v] == MAJ:
            c.kinds[v], c.params[v] = THR, 34   # should be 33 (= majority of 65)
            return True
        return False
    r = _check_refuted(b, _mutated(b, swap))
    assert sum(r.counterexample) == 33


@pytest.mark.parametrize("family,n", [("all", 64), ("index_any", 32), ("binary_add", 64)])
def test_and_or_swapped_is_refuted(family, n):
    b = build(tasks.get(family, n=n))

    def swap(c, v):
        if c.kinds[v] in (AND, OR) and len(c.args[v]) > 1:
            c.kinds[v] = OR if c.kinds[v] == AND else AND
            return True
        return False
    _check_refuted(b, _mutated(b, swap))


def test_no_answer_is_unknown_never_proved():
    r = prove("dyck", 32, {"k": 1}, timeout_s=0.2)
    assert r.status == "unknown" and "no answer" in r.reason
    r = prove("dyck_bounded", 32, {"k": 1}, rlimit=10_000)
    assert r.status == "unknown" and "resource" in r.reason
    r = prove("dyck_bounded", 64, {"k": 1}, max_wires=1000)
    assert r.status == "unknown" and "wires" in r.reason


def test_families_without_a_spec_are_unknown_with_the_reason():
    r = prove("khop", 8)
    assert r.status == "unknown" and "no z3 specification" in r.reason
    r = prove("dyck", 8, {"k": 2})
    assert r.status == "unknown" and "one bracket type" in r.reason


def test_cli_prove(cli, capsys):
    code, out, _ = cli("circuit", "prove", "parity", "--n", "16,64")
    assert code == 0 and out.count("result:  PROVED") == 2 and "n=64 only" in out
    code, out, _ = cli("circuit", "prove", "dyck:k=1", "--n", "32", "--timeout", "0.2",
                       "--format", "json")
    assert code == 3 and json.loads(out)[0]["status"] == "unknown"
    code, out, err = cli("circuit", "prove", "parity", "--n", "6x")
    assert code != 0 and "not an integer" in out + err


def test_theory_cells_name_the_n_proved():
    from theorybench.theories.ac0 import PROOF_NS, AC0Theory
    from theorybench.theories.tc0 import TC0Theory
    p = AC0Theory().predict("sparse_parity")
    assert p.verdict.value == "easy" and p.status.value == "verified"   # not "proven"
    assert p.evidence["z3_proof"]["proved_ns"] == list(PROOF_NS)
    assert "proved equal to the reference by z3 for n = 32, 64" in p.explanation
    q = TC0Theory().predict("majority")
    assert q.status.value == "verified" and q.evidence["z3_proof"]["proved_ns"] == [33, 65]
    k = AC0Theory().predict("khop")
    assert k.evidence["z3_proof"]["proved_ns"] == [] and "by z3" not in k.explanation
