"""Inclusions between the theories (theories/lattice.py): the declared edges, and the
transfer of verdicts on synthetic rows of cells (issue 29, item 1)."""

import pytest

from theorybench.errors import TheoryError
from theorybench.theories import lattice
from theorybench.theories.base import Basis, Prediction, Status, Verdict, status_problem
from theorybench.theories.lattice import EDGES, RULE_NAME, Edge

COLUMNS = ("star_free", "star_free_pos", "ac0", "tc0", "crasp", "mpc", "bapo", "sensitivity")


def cell(theory, verdict=Verdict.UNKNOWN, status=Status.NONE, **ev):
    basis = Basis.NONE if verdict == Verdict.UNKNOWN else Basis.CONSTRUCTION
    return Prediction(theory, "t", verdict, basis, status, dict(ev), f"{theory} own",
                      rule="" if verdict == Verdict.UNKNOWN else f"{theory} rule",
                      tried=[{"rule": f"{theory} rule", "basis": basis.value,
                              "outcome": "fired" if verdict != Verdict.UNKNOWN else "no"}])


def row(**decided):
    out = {t: cell(t) for t in COLUMNS}
    out.update(decided)
    return out


def verified(theory, verdict, n=10):
    return cell(theory, verdict, Status.VERIFIED, verified_up_to=n)


# ---- the declared edges ------------------------------------------------------------------

def test_declared_edges_are_acyclic_and_leave_out_what_is_false():
    lattice.check_acyclic(EDGES)
    pairs = {(e.lower, e.upper) for e in EDGES}
    assert ("star_free", "crasp") not in pairs        # flip-flop: star-free, not C-RASP
    assert ("star_free_pos", "mpc") not in pairs      # numerical predicates are no scans
    assert not {"bapo", "sensitivity"} & {t for p in pairs for t in p}
    for e in EDGES:   # every edge is backed: a checked number or an argument written out
        assert e.numbered or len(e.proof) > 100, e.name
        assert e.source and e.conditions


def test_a_cycle_or_a_loop_is_refused_with_its_members():
    cyc = [Edge("a", "b", "", "", False, ""), Edge("b", "c", "", "", False, ""),
           Edge("c", "a", "", "", False, "")]
    with pytest.raises(TheoryError, match="cycle: .*a.*b.*c"):
        lattice.check_acyclic(cyc)
    with pytest.raises(TheoryError, match="loop"):
        lattice.check_acyclic([Edge("a", "a", "", "", False, "")])
    lattice.check_acyclic(cyc[:2])    # a chain is fine


def test_related_and_consulted_columns():
    assert lattice.related(["ac0"]) == {"star_free", "star_free_pos", "ac0", "tc0"}
    assert lattice.related(["sensitivity"]) == {"sensitivity"}
    # a source's own conflicts decide whether it transfers, so one step further
    assert {"crasp", "mpc"} <= lattice.consulted(["ac0"])


# ---- transfers ---------------------------------------------------------------------------

def test_easy_transfers_up_along_every_path_and_nowhere_else():
    out = lattice.apply(row(star_free=verified("star_free", Verdict.EASY, 9)))
    for t in ("star_free_pos", "ac0", "tc0", "mpc"):
        p = out[t]
        assert p.verdict == Verdict.EASY and p.rule == RULE_NAME, t
        assert p.basis == Basis.THEOREM and p.status == Status.VERIFIED
        assert p.evidence["verified_up_to"] == 9 and status_problem(p) is None
        assert p.evidence["lattice"]["source_cell"]["theory"] == "star_free"
        assert p.tried[-1] == {"rule": RULE_NAME, "basis": "theorem", "outcome": "fired"}
    assert out["tc0"].evidence["lattice"]["path"] == "star_free ⊆ star_free_pos ⊆ ac0 ⊆ tc0"
    for t in ("crasp", "bapo", "sensitivity"):   # no inclusion reaches them
        assert out[t].verdict == Verdict.UNKNOWN, t
    assert "inclusion" not in " ".join(t["rule"] for t in out["bapo"].tried)
    assert out["crasp"].tried[-1]["rule"] == RULE_NAME   # said why nothing transferred


def test_hard_transfers_down_and_keeps_its_condition():
    tc0 = cell("tc0", Verdict.HARD, Status.CONDITIONAL, condition="TC0 != NL")
    out = lattice.apply(row(tc0=tc0))
    for t in ("ac0", "star_free_pos", "star_free", "crasp"):
        p = out[t]
        assert p.verdict == Verdict.HARD and p.status == Status.CONDITIONAL, t
        assert p.evidence["condition"] == "TC0 != NL" and status_problem(p) is None
        assert p.evidence["lattice"]["direction"] == "down"
    assert out["mpc"].verdict == Verdict.UNKNOWN    # tc0 is not below mpc
    assert out["tc0"] is tc0                        # the source itself is untouched


def test_status_is_the_weaker_of_the_cell_and_the_edges():
    ident = {"object": "the task's automaton", "all_n": True, "how": "its definition"}
    proven = cell("ac0", Verdict.HARD, Status.PROVEN, proof="closed form for every m",
                  identity=ident)
    out = lattice.apply(row(ac0=proven))
    p = out["star_free_pos"]
    assert p.status == Status.PROVEN and "closed form for every m" in p.evidence["proof"]
    assert "star_free_pos ⊆ ac0" in p.evidence["proof"] and p.evidence["identity"] == ident
    assert status_problem(p) is None
    # the same source through an edge cited without a number or an argument: cited
    cited_edges = [Edge("star_free_pos", "ac0", "claimed", "a paper", False, "")]
    p = lattice.apply(row(ac0=proven), edges=cited_edges)["star_free_pos"]
    assert p.status == Status.CITED and "star_free_pos ⊆ ac0" in p.evidence["why_cited"]
    assert status_problem(p) is None
    # extrapolated: the fit travels with the cell
    fit = {"kind": "poly", "formula": "n^0.5", "candidates": {}}
    ex = cell("ac0", Verdict.HARD, Status.EXTRAPOLATED, growth=fit)
    p = lattice.apply(row(ac0=ex))["star_free"]
    assert p.status == Status.EXTRAPOLATED and p.evidence["fit"] == fit


def test_the_strongest_candidate_wins_whatever_the_column_order():
    tc0 = cell("tc0", Verdict.HARD, Status.CONDITIONAL, condition="TC0 != NL")
    ac0 = verified("ac0", Verdict.HARD, 7)
    for r in (row(tc0=tc0, ac0=ac0), dict(reversed(list(row(tc0=tc0, ac0=ac0).items())))):
        p = lattice.apply(r)["star_free"]
        assert p.status == Status.VERIFIED and p.evidence["verified_up_to"] == 7
        assert p.evidence["lattice"]["source_cell"]["theory"] == "ac0"
        assert any(c.startswith("tc0") for c in p.evidence["lattice"]["other_candidates"])


def test_a_decided_cell_is_never_overwritten():
    own = cell("ac0", Verdict.EASY, Status.CITED, why_cited="a paper")
    out = lattice.apply(row(star_free=verified("star_free", Verdict.EASY), ac0=own))
    assert out["ac0"] is own


def test_a_missing_lemma_does_not_transfer():
    lemma = cell("tc0", Verdict.HARD, Status.CONDITIONAL, condition="lemma 3",
                 missing_lemma=["lemma 3"])
    out = lattice.apply(row(tc0=lemma))
    assert out["ac0"].verdict == Verdict.UNKNOWN
    assert "missing lemma" in out["ac0"].tried[-1]["outcome"]


def test_a_planted_contradiction_is_reported_in_both_cells_and_blocks_transfers():
    easy = verified("star_free", Verdict.EASY)
    hard = verified("ac0", Verdict.HARD)
    out = lattice.apply(row(star_free=easy, ac0=hard))
    for t, other in (("star_free", "ac0"), ("ac0", "star_free")):
        assert out[t].verdict != Verdict.UNKNOWN          # both verdicts kept, not hidden
        conf = out[t].evidence["lattice_conflict"]
        assert conf[0]["other_cell"]["theory"] == other
        assert conf[0]["path"] == "star_free ⊆ star_free_pos ⊆ ac0"
    assert "lattice_conflict" not in easy.evidence      # the inputs are not modified
    assert out["star_free_pos"].verdict == Verdict.UNKNOWN   # between the two: undecided
    assert out["mpc"].verdict == Verdict.UNKNOWN        # a contradicted source is blocked


def test_the_runner_marks_a_conflict_and_predict_one_agrees(monkeypatch):
    from theorybench.theories import runner
    planted = {"star_free": verified("star_free", Verdict.EASY),
               "ac0": verified("ac0", Verdict.HARD)}

    def fake(theory, family, ctx):
        p = planted.get(theory.name) or cell(theory.name)
        return Prediction(p.theory, family, p.verdict, p.basis, p.status, dict(p.evidence),
                          p.explanation, p.rule, list(p.tried))

    monkeypatch.setattr(runner, "_safe_predict", fake)
    monkeypatch.setattr(runner.registry.Theory, "predict",
                        lambda self, fam, ctx=None: fake(self, fam, ctx))
    names = ["ac0", "star_free", "tc0", "star_free_pos"]
    cells = runner.predict_matrix(names, ["parity"], progress=False)
    by = {p.theory: p for p in cells}
    assert [p.theory for p in cells] == names
    assert runner.cell(by["ac0"]).endswith("[lattice conflict]")
    assert runner.cell(by["star_free"]).endswith("[lattice conflict]")
    assert by["tc0"].verdict == Verdict.UNKNOWN   # star_free is contradicted: no transfer
    # a single cell computes the columns the inclusions consult, so it is the matrix's
    for name in ("ac0", "tc0", "star_free_pos"):
        one = runner.predict_one(name, "parity")
        assert (one.verdict, one.status, one.rule) == \
            (by[name].verdict, by[name].status, by[name].rule)
        assert bool(one.evidence.get("lattice_conflict")) == (name == "ac0")
