"""The length-generalization column of Huang et al. 2025 (theories/huang_lg.py): one
prediction per positional encoding (NoPE, learned absolute positions), from checked
C-RASP programs and non-expressibility results, never from a task's name."""

from __future__ import annotations

import dataclasses
import pathlib
import textwrap

import pytest

from theorybench.formal.crasp.programs import PROGRAMS as CRASP_PROGRAMS
from theorybench.tasks import registry
from theorybench.theories import huang_lg
from theorybench.theories.base import (LENGTH_LINE, Basis, Context, Prediction, Status,
                                       Verdict, line_key, status_problem)
from theorybench.theories.huang_lg import APE, ENCODINGS, NOPE, Entry, HuangLG
from theorybench.theories.registry import theories

LANGUAGES = pathlib.Path(__file__).resolve().parents[2] / "theorybench" / "experiments" / \
    "languages"
KEYS = {line_key(LENGTH_LINE, NOPE), line_key(LENGTH_LINE, APE), "in_distribution", "llm",
        line_key(LENGTH_LINE, "*")}   # every other encoding: no verdict


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    """Task files and their programs do not leak into other tests."""
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped(), CRASP_PROGRAMS.scoped():
        yield


def ctx(max_n: int = 8) -> Context:
    return Context(max_n=max_n)


def predict(task, max_n: int = 8) -> Prediction:
    return HuangLG().predict(task, ctx(max_n))


def line(p: Prediction, encoding: str) -> dict:
    return p.lines[line_key(LENGTH_LINE, encoding)]


def verdicts(p: Prediction) -> tuple[str, str, str]:
    return p.verdict.value, line(p, NOPE)["verdict"], line(p, APE)["verdict"]


def assert_policy(p: Prediction) -> None:
    """The cell and every line entry justify their status by their evidence."""
    assert status_problem(p) is None, (p.task, status_problem(p))
    assert set(p.lines) == KEYS, sorted(p.lines)
    for key, entry in p.lines.items():
        as_cell = Prediction("huang_lg", str(p.task), Verdict(entry["verdict"]),
                             Basis(entry["evidence"].get("basis", "none")),
                             Status(entry["status"]), entry["evidence"], entry["explanation"])
        assert status_problem(as_cell) is None, (p.task, key, status_problem(as_cell))
        assert entry["explanation"]
    for other in ("in_distribution", "llm"):
        assert p.lines[other]["verdict"] == "unknown" and p.lines[other]["status"] == "none"
        assert "predicts nothing" in p.lines[other]["explanation"]


def write(tmp_path, name: str, body: str) -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body).lstrip())
    return path


def aa_star(tmp_path, name: str = "aa_star", letters=("a", "b"), program: bool = True):
    """(aa)* over two letters, as a REGEX task file; with a C-RASP[periodic] program."""
    a, b = letters
    body = f'NAME = "{name}"\nALPHABET = ("{a}", "{b}")\nLENGTHS = (1, 64)\nREGEX = "({a}{a})*"\n'
    if program:   # the end marker sits at position n + 1: odd exactly when n is even
        body += (f'CRASP = """// alphabet: {a} {b}\n#import pos_odd\nothers = # "{b}"\n'
                 f'out = others == 0 && pos_odd\n"""\n')
    return registry.load_task_file(write(tmp_path, f"{name}.py", body))


def cab(tmp_path):
    """"contains ab" over {a, b, c}, with a local program (#import prev)."""
    write(tmp_path, "cab.py",
          'NAME = "cab"\nALPHABET = ("a", "b", "c")\nLENGTHS = (2, 16)\n\n\n'
          "def label(x):\n    return ((x[:, :-1] == 0) & (x[:, 1:] == 1)).any(axis=1)\n")
    write(tmp_path, "cab.cr", '// alphabet: a b c\n#import prev\n'
                              'ab_here = "b" && #[prev] "a" == 1\nout = # ab_here > 0\n')
    return registry.load_task_file(tmp_path / "cab.py")


# ---- the registered column ---------------------------------------------------------------

def test_the_column_is_registered_after_the_shipped_ones():
    names = list(theories())
    assert names[-1] == "huang_lg" and "crasp" in names
    t = HuangLG()
    assert "Huang" in t.sources[0] and "2410.02140" in t.sources[0]
    assert any("idealized" in a for a in t.assumptions)


def test_the_encodings_are_the_harness_encodings():
    from theorybench.experiments.lines import LENGTH_GENERALIZATION
    from theorybench.experiments.positional import get_encoding_class
    assert LENGTH_GENERALIZATION == LENGTH_LINE
    for e in ENCODINGS:
        assert get_encoding_class(e).name == e


# ---- shipped tasks -----------------------------------------------------------------------

def test_majority_is_easy_with_and_without_positions():
    p = predict("majority")
    assert verdicts(p) == ("easy", "easy", "easy")
    assert p.basis == Basis.CONSTRUCTION and p.status == Status.VERIFIED
    assert "idealized inference" in line(p, NOPE)["explanation"]
    assert line(p, NOPE)["evidence"]["verified_up_to"] >= 8
    assert_policy(p)


def test_parity_is_hard_under_both_encodings_by_different_results():
    p = predict("parity")
    assert verdicts(p) == ("hard", "hard", "hard")
    nope, ape = line(p, NOPE), line(p, APE)
    assert nope["evidence"]["crasp_cell"]["rule"] == "non-aperiodic regular language"
    # with positions the group argument is void; the Parity result applies, cited, to the
    # function checked to be Parity on every input
    assert ape["status"] == "cited" and ape["evidence"]["parity_identity"]["object"] == "Parity"
    assert ape["evidence"]["parity_identity"]["checked_up_to"] == 8
    assert p.status == Status.CITED      # the cell is as weak as its weaker encoding
    assert_policy(p)


def test_one_way_communication_is_hard_for_both_encodings():
    p = predict("index")
    assert verdicts(p) == ("hard", "hard", "hard")
    assert "2^(cF) (L+1)^P" in line(p, APE)["evidence"]["extension"]
    assert_policy(p)


def test_hard_without_positions_only_leaves_the_cell_unknown():
    p = predict("khop", max_n=6)      # flip-flop: not in plain C-RASP; nothing for APE
    assert verdicts(p) == ("unknown", "hard", "unknown")
    assert "C-RASP[periodic, local]" in line(p, APE)["explanation"]
    assert_policy(p)


def test_a_shipped_language_file_is_predicted_per_encoding():
    fam = registry.load_task_file(LANGUAGES / "aa_star.py")
    p = predict(fam.name)
    # (aa)*: a group in its monoid - not plain C-RASP; i mod 2 would express it, but no
    # periodic program comes with the file, so APE stays Unknown, with the reason
    assert verdicts(p) == ("unknown", "hard", "unknown")
    assert "(aa)*" in line(p, APE)["explanation"]
    assert_policy(p)


# ---- task files --------------------------------------------------------------------------

def test_a_periodic_program_only_makes_ape_easy(tmp_path):
    fam = aa_star(tmp_path)
    p = predict(fam.name)
    assert verdicts(p) == ("easy", "hard", "easy")
    ape = line(p, APE)
    assert ape["status"] == "verified" and ape["evidence"]["imports"] == ["pos_odd"]
    assert "aa_star.py" in ape["evidence"]["origin"]
    assert ape["evidence"]["verified_up_to"] >= 8
    assert_policy(p)


def test_a_local_program_makes_ape_easy_where_plain_crasp_is_hard(tmp_path):
    fam = cab(tmp_path)
    p = predict(fam.name, max_n=6)
    assert verdicts(p) == ("easy", "hard", "easy")
    assert line(p, APE)["evidence"]["imports"] == ["prev"]
    assert_policy(p)


def test_a_wrong_periodic_program_is_refused_before_it_counts(tmp_path):
    from theorybench.errors import TaskParameterError
    body = ('NAME = "aa_wrong"\nALPHABET = ("a", "b")\nLENGTHS = (1, 64)\nREGEX = "(aa)*"\n'
            'CRASP = """// alphabet: a b\n#import pos_even\nout = # "b" == 0 && pos_even\n"""\n')
    with pytest.raises(TaskParameterError, match="disagrees with its label"):
        registry.load_task_file(write(tmp_path, "aa_wrong.py", body))


def test_the_verdicts_do_not_depend_on_the_name(tmp_path):
    first = aa_star(tmp_path)
    other = aa_star(tmp_path, name="evens_of_x", letters=("x", "y"))
    a, b = predict(first.name), predict(other.name)
    assert verdicts(a) == verdicts(b) == ("easy", "hard", "easy")
    # Parity under another name and other letters, given by its label only
    odd = registry.load_task_file(write(tmp_path, "blob.py", """
        NAME = "blob"
        ALPHABET = ("p", "q")
        LENGTHS = (1, 32)


        def label(x):
            return (x == 0).sum(axis=1) % 2 == 0
        """))
    p = predict(odd.name)
    assert verdicts(p) == ("hard", "hard", "hard")     # as for the shipped parity
    ident = line(p, APE)["evidence"]["parity_identity"]
    assert ident["object"] == "the complement of Parity" and ident["letter_read_as_1"] == "p"
    # a task named parity that is not Parity gets nothing from the Parity result
    fake = registry.load_task_file(write(tmp_path, "parity_named.py", """
        NAME = "parity_named"
        ALPHABET = ("0", "1")
        LENGTHS = (1, 32)


        def label(x):
            return x[:, 0] == 1
        """))
    q = predict(fake.name)
    assert "parity_identity" not in line(q, APE)["evidence"]
    assert q.verdict == Verdict.EASY      # first letter: a plain program exists


# ---- pooling and caching -----------------------------------------------------------------

def entry(verdict: Verdict, status: Status = Status.VERIFIED, n: int = 10) -> Entry:
    if verdict == Verdict.UNKNOWN:
        return Entry(verdict, Status.NONE, Basis.NONE, "nothing", {})
    ev = {"verified_up_to": n} if status == Status.VERIFIED else {"why_cited": "no number"}
    return Entry(verdict, status, Basis.CONSTRUCTION if verdict == Verdict.EASY else
                 Basis.LOWER_BOUND, f"{verdict.value} {status.value}", ev)


@pytest.mark.parametrize("nope, ape, cell, status", [
    (entry(Verdict.EASY), entry(Verdict.EASY, n=20), "easy", Status.VERIFIED),
    (entry(Verdict.HARD), entry(Verdict.EASY), "easy", Status.VERIFIED),
    (entry(Verdict.HARD, n=14), entry(Verdict.HARD, Status.CITED), "hard", Status.CITED),
    (entry(Verdict.HARD, n=14), entry(Verdict.HARD, n=9), "hard", Status.VERIFIED),
    (entry(Verdict.HARD), entry(Verdict.UNKNOWN), "unknown", Status.NONE),
    (entry(Verdict.UNKNOWN), entry(Verdict.UNKNOWN), "unknown", Status.NONE),
])
def test_the_cell_pools_the_encodings(monkeypatch, nope, ape, cell, status):
    monkeypatch.setattr(HuangLG, "_entries", lambda self, f, c: {NOPE: nope, APE: ape})
    p = HuangLG().predict("majority", ctx())
    assert p.verdict.value == cell and p.status == status
    assert status_problem(p) is None
    if cell == "hard" and status == Status.VERIFIED:
        assert p.evidence["verified_up_to"] == 9   # the weaker of the two checks
    assert line(p, NOPE)["verdict"] == nope.verdict.value
    assert line(p, APE)["verdict"] == ape.verdict.value


def untimed(d):
    """A prediction's dict without wall-clock fields (the z3 induction's seconds)."""
    if isinstance(d, dict):
        return {k: untimed(v) for k, v in d.items() if k != "seconds"}
    return [untimed(v) for v in d] if isinstance(d, list) else d


def test_the_crasp_cell_is_shared_and_the_order_does_not_matter():
    from theorybench.theories.crasp import CRASPTheory
    alone = HuangLG().predict("dyck:k=1", ctx())
    shared = dataclasses.replace(ctx(), cache={})
    CRASPTheory().predict("dyck:k=1", shared)           # the crasp column ran first
    calls = []
    real = CRASPTheory._run_rules
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(CRASPTheory, "_run_rules",
                   lambda self, f, c: calls.append(f) or real(self, f, c))
        after = HuangLG().predict("dyck:k=1", shared)
    assert not calls                                     # its own cell came from the cache
    assert untimed(after.to_dict()) == untimed(alone.to_dict())
    assert huang_lg.encoding_entries("dyck:k=1", shared) is \
        huang_lg.encoding_entries("dyck:k=1", shared)


def test_other_encodings_get_no_verdict_from_the_theory():
    from theorybench.matrix.agreement import on_line
    from theorybench.theories.runner import predict_one
    p = predict_one("huang_lg", "majority", Context(max_n=8)).to_dict()
    assert on_line(p, line_key(LENGTH_LINE, NOPE))[0] == "easy"
    assert on_line(p, line_key(LENGTH_LINE, "rope"))[0] == "unknown"
    assert on_line(p, LENGTH_LINE)[0] == "easy"     # the pooled line: the cell
