"""C-RASP's softmax-construction rule (theories/rules.py: counts_only,
softmax_construction_rule) and the construction evidence it cites
(constructions/evidence.py)."""

from __future__ import annotations


from theorybench.constructions import evidence as E
from theorybench.theories import rules
from theorybench.theories.base import Basis, Context, Prediction, RuleSkip, Status, Verdict
from theorybench.theories.crasp import CRASPTheory
from theorybench.theories.runner import predict_one


def test_majority_construction_is_a_fixed_count_comparison_proved_for_all_n():
    ev = E.construction_evidence("majority")
    assert ev["available"] and ev["status"] == "proven" and ev["z3_kind"] == "all-n"
    assert ev["fixed_weights"] and ev["uniform_only"] and not ev["uses_positions"]
    p = CRASPTheory().softmax_construction("majority", Context())
    assert isinstance(p, Prediction)
    # z3 proves the weights against the construction's count specification for every n;
    # the specification is the task only as far as the per-n checks went: verified
    assert (p.verdict, p.basis, p.status) == (Verdict.EASY, Basis.CONSTRUCTION,
                                              Status.VERIFIED)
    assert "fixed C-RASP program" in p.explanation and p.evidence["all_n_part"]
    assert p.evidence["verified_up_to"] == max(ev["ns"])


def test_a_growing_temperature_construction_is_no_crasp_evidence():
    skip = CRASPTheory().softmax_construction("khop", Context())
    assert isinstance(skip, RuleSkip)
    assert "weights change with n" in skip.reason and "peaked" in skip.reason
    assert "does not contradict" in skip.reason
    # the cell itself is settled by the k-hop claim and names the construction beside it
    p = predict_one("crasp", "khop:k=1")
    assert p.verdict == Verdict.HARD and "also:" in p.explanation


def test_no_construction_and_a_failed_one_skip(monkeypatch):
    skip = CRASPTheory().softmax_construction("parity", Context())
    assert isinstance(skip, RuleSkip) and "no hand-built softmax construction" in skip.reason
    bad = dict(E.construction_evidence("majority"), status="refuted")
    bad.pop("verified_up_to", None)
    monkeypatch.setattr(E, "construction_evidence", lambda label: bad)
    skip = CRASPTheory().softmax_construction("majority", Context())
    assert isinstance(skip, RuleSkip) and "did not pass its checks (refuted)" in skip.reason


def test_counts_only_names_each_reason():
    ok, why = rules.counts_only({"z3_kind": "all-n", "fixed_weights": True,
                                  "uses_positions": False, "status": "proven",
                                  "uniform_only": True})
    assert ok and "same at every n" in why
    ok, why = rules.counts_only({"z3_kind": "uniform", "fixed_weights": True,
                                  "uses_positions": True, "status": "verified <= 8",
                                  "uniform_only": True})
    assert not ok and "positional" in why and "not proved for every n" in why


def test_a_verified_construction_gives_verified_status(monkeypatch):
    ev = dict(E.construction_evidence("majority"), status="verified <= 11", verified_up_to=11)
    monkeypatch.setattr(E, "construction_evidence", lambda label: ev)
    p = rules.softmax_construction_rule(CRASPTheory(), "majority", Context(),
                                         lambda e: (True, "admitted"), "C-RASP")
    assert p.status == Status.VERIFIED and p.evidence["verified_up_to"] == 11


def test_compiled_evidence_checks_every_input_and_catches_a_broken_compile(monkeypatch):
    from theorybench.formal.crasp.programs import library
    prog = library()["majority"].program
    ev = E.compiled_evidence(prog, 6)
    assert ev["compiled"] and ev["status"] == "verified" and ev["verified_up_to"] == 6
    assert ev["inputs"] == sum(2 ** n for n in range(1, 7))
    from theorybench.constructions import compiler
    real = compiler.compile_program

    def broken(program, n):
        comp = real(program, n)
        comp.weights.w_out[...] = -comp.weights.w_out   # flip every decision
        return comp
    monkeypatch.setattr(compiler, "compile_program", broken)
    E._COMPILED.clear()
    ev = E.compiled_evidence(prog, 5)
    assert ev["compiled"] and ev["status"] != "verified" and "verified_up_to" not in ev
    E._COMPILED.clear()
