"""The C-RASP library against the task references, and each rule of the crasp theory."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.theories.base import Basis, Context, RuleSkip, Verdict, check_json
from theorybench.formal.crasp import ast as A
from theorybench.formal.crasp import check_against_task, for_task, library, sparse_program
from theorybench.formal.crasp.flipflop import (FLIP_FLOP_TO_KHOP, flip_flop_labels,
                                                 flip_flop_oracle, to_khop)
from theorybench.formal.crasp.parser import parse
from theorybench.theories.crasp import CRASPTheory, superlog_excess

# (library program, task parameters, max n checked on all inputs)
LIBRARY_CASES = [
    ("all", {}, 12), ("any", {}, 12), ("majority", {}, 13),
    ("sparse_all", {}, 12), ("sparse_any", {}, 12), ("sparse_parity", {}, 12),
    ("sparse_all", {"positions": "2,5,6"}, 10), ("sparse_parity", {"positions": "1,4,7"}, 10),
    ("dyck1", {"k": 1}, 12), ("dyck_bounded1", {}, 12), ("dyck_bounded1", {"D": 1}, 12),
    ("dyck_bounded1", {"D": 4}, 12),
]


@pytest.mark.parametrize("name,params,max_n", LIBRARY_CASES)
def test_library_program_decides_its_task(name, params, max_n):
    entry = library()[name]
    report = check_against_task(lambda t: entry.instantiate(t), entry.family, max_n, params,
                                samples=500, rng=np.random.default_rng(1))
    assert report.ok, report.counterexample
    assert report.exhaustive_up_to >= max_n - 1
    sizes = {tuple(sorted(s.items())) for s in report.sizes.values()}
    assert len(sizes) == 1                       # the same program at every n


def test_every_library_program_is_checked_above():
    assert {c[0] for c in LIBRARY_CASES} == set(library())


def test_library_program_agrees_with_task_oracle():
    """Independent of task.label: the oracle (a different method) on sampled inputs."""
    rng = np.random.default_rng(2)
    for fam, params in [("majority", {"n": 21}), ("dyck_bounded", {"n": 20, "D": 3}),
                        ("dyck", {"n": 20, "k": 1}), ("sparse_parity", {"n": 30})]:
        task = tasks.get(fam, **params)
        prog, _ = for_task(task)
        from theorybench.formal.crasp import Interpreter
        batch = task.sample(rng, 300)
        got = Interpreter(prog, task.vocab).accepts(batch.tokens, task.vocab)
        assert (got.astype(int) == task.oracle(batch.tokens)).all(), fam


def test_generated_sparse_programs_for_other_k():
    for k, pos in [(1, "3"), (2, "2,9"), (4, "1,2,5,8")]:
        for fam in ("sparse_all", "sparse_any", "sparse_parity"):
            rep = check_against_task(lambda t: for_task(t)[0], fam, 10,
                                     {"k": k, "positions": pos}, samples=300)
            assert rep.ok, (fam, k, rep.counterexample)


def test_check_finds_counterexample():
    wrong = parse('ones = # "1"\nout = ones > 0\n')  # "any" is not "all"
    rep = check_against_task(wrong, "all", 6)
    assert not rep.ok
    assert rep.counterexample["n"] == 2 and rep.counterexample["expected"] == 0


# ---- flip-flop reduction ------------------------------------------------------------

def test_flip_flop_labels_against_oracle():
    rng = np.random.default_rng(0)
    w = rng.integers(0, 3, size=(500, 9))
    assert flip_flop_labels(w).tolist() == [flip_flop_oracle(r) for r in w.tolist()]


def test_flip_flop_image_by_hand():
    # s1 r s0 r  ->  a b | a c | d c | a b | d c | a ; last set-letter s0 -> hop "b"
    img = to_khop(np.array([[1, 2, 0, 2]]), 4)
    assert img.tolist() == [[0, 1, 0, 2, 3, 2, 0, 1, 3, 2, 0]]
    task = tasks.get("khop", n=11, k=1)
    assert task.label(img)[0, -1] == task.index["b"]


def test_flip_flop_reduction_checks_and_a_broken_map_fails():
    chk = FLIP_FLOP_TO_KHOP.check([1, 2, 3, 4, 5])
    assert chk.ok and chk.is_projection and chk.by_n[-1].exhaustive
    from dataclasses import replace
    broken = replace(FLIP_FLOP_TO_KHOP, label_map=lambda y: np.where(y == 1, 1, 2))
    assert not broken.check([1, 2]).ok


# ---- the rules ---------------------------------------------------------------------------

THEORY = CRASPTheory()
CTX = Context(max_n=10)


@pytest.mark.parametrize("family", ["majority", "dyck_bounded", "sparse_parity"])
def test_construction_rule_fires(family):
    p = THEORY.verified_program(family, CTX)
    assert not isinstance(p, RuleSkip) and p.verdict == Verdict.EASY
    assert p.evidence["check"]["ok"] and p.evidence["size"]["counts"] >= 1
    check_json(p.evidence)


def test_construction_rule_skips_without_program():
    assert isinstance(THEORY.verified_program("parity", CTX), RuleSkip)


def test_aperiodicity_rule():
    p = THEORY.non_aperiodic("parity", CTX)
    assert p.verdict == Verdict.HARD and p.basis == Basis.LOWER_BOUND
    assert p.evidence["witness"]["period"] == 2
    check_json(p.evidence)
    skip = THEORY.non_aperiodic("all", CTX)
    assert isinstance(skip, RuleSkip) and "aperiodic" in skip.reason


def test_communication_rule():
    p = THEORY.communication("index", CTX)
    assert p.verdict == Verdict.HARD
    assert p.evidence["max_rows"] == [2 ** n for n in p.evidence["ns"]]  # Index: 2^n rows
    lb = p.evidence["program_counts_lower_bound"]
    assert lb[max(lb)] > lb[min(lb)]
    check_json(p.evidence)
    assert isinstance(THEORY.communication("majority", CTX), RuleSkip)
    assert isinstance(THEORY.communication("khop", CTX), RuleSkip)


def test_superlog_excess_on_closed_forms():
    ns = list(range(4, 20, 2))
    assert superlog_excess(ns, [float(n) for n in ns])["fires"]
    assert not superlog_excess(ns, [np.log2(n + 1) * 3 for n in ns])["fires"]
    assert not superlog_excess(ns[:3], [1.0, 2.0, 3.0])["fires"]


def test_superlog_excess_needs_bits_that_rise():
    # (ab)*: one bit at even lengths, none at odd ones; the three-term fit tilts upward on
    # this zig-zag (c ~ 0.36) although the task has a 2-count program
    lengths = [4, 6, 8, 9, 11, 14, 16]
    bits = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    got = superlog_excess(lengths, bits)
    assert got["coef"]["c"] >= 0.25 and not got["fires"] and got["rise"] == 0.0
    # shuffle-Dyck-2: rows only at even lengths; plurality (#a > #b, #c): 2 log L bits
    for lengths, bits in (([4, 5, 6, 7, 8], [2.3219, 0.0, 2.8074, 0.0, 3.3219]),
                          ([4, 5, 6, 8, 9, 10], [2.3219, 2.0, 3.0, 3.4594, 3.9069, 4.0875])):
        got = superlog_excess(lengths, bits)
        assert got["coef"]["c"] >= 0.25 and not got["fires"], (lengths, got)


def test_reduction_rule():
    p = THEORY.from_flip_flop("khop", CTX)
    assert p.verdict == Verdict.HARD and p.basis == Basis.REDUCTION
    assert p.evidence["reduction"]["ok"]
    # flip-flop's non-membership is cited without a lemma number, as for k = 2, 3
    assert p.status.value == "cited" and "without a lemma number" in p.evidence["why_cited"]
    check_json(p.evidence)
    assert isinstance(THEORY.from_flip_flop("majority", CTX), RuleSkip)


def test_reduction_rule_checks_the_task_not_its_name():
    """The flip-flop map is aimed at any task and kept where it preserves that task's labels
    (issue 28 "Correctness"): khop under another name gets the cell, the 2-hop task (the
    1-hop map changes its labels) and a task without odd sizes do not."""
    from theorybench.tasks.registry import FAMILIES
    base = tasks.family("khop")
    with FAMILIES.scoped():
        FAMILIES.register(type("Hops", (base,), {"name": "hops", "__module__": __name__}),
                          name="hops")
        p, q = THEORY.from_flip_flop("hops", CTX), THEORY.from_flip_flop("khop", CTX)
        assert (p.verdict, p.status, p.basis) == (q.verdict, q.status, q.basis)
        assert p.evidence["reduction"]["checked"] == q.evidence["reduction"]["checked"] > 100
        assert p.evidence["reduction"]["target"] == "hops"
    skip = THEORY.from_flip_flop("khop:k=2", CTX)
    assert isinstance(skip, RuleSkip) and "does not preserve" in skip.reason
    assert "does not apply" in THEORY.from_flip_flop("dyck", CTX).reason


def test_predict_all_families():
    verdicts = {f: THEORY.predict(f, CTX).verdict for f in tasks.families()}
    for f in ("all", "any", "majority", "sparse_all", "dyck_bounded"):
        assert verdicts[f] == Verdict.EASY
    for f in ("parity", "index", "khop", "dyck"):
        assert verdicts[f] == Verdict.HARD


def test_library_programs_use_no_positional_predicates():
    for entry in library().values():
        assert entry.program.imports == []
        assert A.size(entry.program)["counts"] <= 4
    assert sparse_program("all", (1, 2)).imports == []


# ---- soundness of the non-aperiodic rule: undefined lengths and the domain -------------------

def _odd_only_all(monkeypatch):
    """'all' defined at odd n only: the task itself is star-free on its domain, but the
    lengths where it is defined form the periodic set (SS)*S."""
    from theorybench.errors import TaskParameterError
    from theorybench.tasks import registry
    from theorybench.tasks.boolean.all import All

    class AllOdd(All):
        name = "all_odd_only"

        def check(self):
            super().check()
            if self.n % 2 == 0:
                raise TaskParameterError(f"n={self.n} is even: all_odd_only needs odd n")

    registry.families()
    monkeypatch.setitem(registry._FAMILIES, AllOdd.name, AllOdd)
    return AllOdd.name


def test_non_aperiodic_rule_ignores_groups_made_by_undefined_lengths(monkeypatch):
    from theorybench.formal.automata import aperiodicity, domain_problem, learn_view
    from theorybench.formal.language import domain_view, language_view
    fam = _odd_only_all(monkeypatch)
    # rejecting the undefined (even) lengths makes a periodic language: a naive rule on that
    # automaton would call a trivially easy task Hard
    rejecting = learn_view(language_view(fam, undefined="reject"))
    assert rejecting.status == "regular" and not aperiodicity(rejecting.dfa)[0]
    # the sound rule marks them invalid, sees the domain is not star-free, and skips
    full = language_view(fam, undefined="invalid")
    assert "not star-free" in domain_problem(domain_view(full))
    out = THEORY.non_aperiodic(fam, CTX)
    assert isinstance(out, RuleSkip) and "not star-free" in out.reason


def test_domain_problem_on_known_domains():
    from theorybench.formal.automata import domain_problem
    from theorybench.formal.language import domain_view, language_view
    assert domain_problem(domain_view(language_view("parity", undefined="invalid"))) is None
    # bounded Dyck is defined at even lengths only: its domain (even length) is periodic
    why = domain_problem(domain_view(language_view("dyck_bounded", undefined="invalid")))
    assert why is not None and "not star-free" in why
    out = THEORY.non_aperiodic("dyck_bounded", CTX)
    assert isinstance(out, RuleSkip) and "not star-free" in out.reason


def test_library_programs_proved_by_induction_stay_verified_to_the_identity():
    from theorybench.theories.base import Context, Status, status_problem
    from theorybench.theories.registry import theory
    from theorybench.theories.runner import predict_one
    for task in ("majority", "dyck:k=1", "dyck_bounded"):
        p = predict_one("crasp", task, Context())
        # every length against the specification machine; the machine against the task
        # on every input up to a finite n: verified to that n, never proven
        assert p.status == Status.VERIFIED and "z3 induction" in p.evidence["all_n_part"]
        assert p.evidence["induction"]["status"] == "proved" and status_problem(p) is None
        spec_n = p.evidence["induction"]["spec_checked_up_to_n"]
        assert p.evidence["verified_up_to"] >= spec_n == p.evidence["identity"]["checked_up_to"]
        assert "not proven" in p.explanation
    # sparse programs depend on n (the hidden set): no specification machine, stays verified
    p = theory("crasp").predict("sparse_any", Context())
    assert p.status == Status.VERIFIED and p.evidence["induction"]["status"] == "unknown"
