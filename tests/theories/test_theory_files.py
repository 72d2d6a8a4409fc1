"""Theory files: a user's theory through predict, explain, the pool, a fresh process, check
and the per-line predictions; broken files get one line naming the file and line."""

import itertools
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from theorybench.errors import TheoryError
from theorybench.matrix.agreement import agreement, on_line
from theorybench.matrix.reference import RefCell
from theorybench.tasks import TaskRef
from theorybench.theories import registry, user
from theorybench.theories.base import Context, status_problem
from theorybench.theories.runner import check_file, explain_text, predict_matrix, predict_one

# written as a newcomer would: numpy only, small n, a reason in words
SYMMETRIC = '''\
import numpy as np

NAME = "symmetric_only"
ASSUMPTIONS = ("attention averages: only the counts of the symbols matter",)

def predict(task):
    for n in task.variant().valid_ns(3, 7)[:2]:
        inst = task.build(n=n)
        x = inst.enumerate()
        y = inst.label(x)
        if y.ndim > 1:
            return "unknown", "a sequence output"
        counts = np.stack([(x == t).sum(1) for t in range(len(inst.vocab))], 1)
        first = {}
        for c, v in zip(map(tuple, counts), y.tolist()):
            if first.setdefault(c, v) != v:
                return "hard", f"two inputs with equal counts differ at n={n}"
    return "easy", "the label depends on the counts only"

def predict_length(task, encoding):
    return "hard" if encoding == "rope" else None
'''


def _symmetric_oracle(ref: str) -> str:
    """Independent of the file: the label is invariant under every permutation of the
    positions of each input (checked by permuting, not by counting)."""
    t = TaskRef.of(ref)
    for n in t.variant().valid_ns(3, 7)[:2]:
        inst = t.build(n=n)
        x = inst.enumerate()
        y = inst.label(x)
        for perm in itertools.permutations(range(n)):
            if not np.array_equal(inst.label(x[:, list(perm)]), y):
                return "hard"
    return "easy"


@pytest.fixture
def scoped(monkeypatch):
    monkeypatch.setenv(user.ENV, "")   # restored at teardown: loads export the file there
    with registry.THEORY_REGISTRY.scoped():
        yield


@pytest.fixture
def mine(tmp_path, scoped):
    path = tmp_path / "mine.py"
    path.write_text(SYMMETRIC)
    return path


def test_predict_matches_an_independent_oracle(mine):
    tasks = ["parity", "majority", "index", "dyck:k=1"]
    preds = predict_matrix([str(mine)], tasks, Context(max_n=8), progress=False)
    got = {p.task: p.verdict.value for p in preds}
    assert got == {t: _symmetric_oracle(t) for t in tasks}
    assert set(got.values()) == {"easy", "hard"}      # both verdicts occur
    for p in preds:
        assert p.theory == "symmetric_only" and status_problem(p) is None
        assert p.status.value == "cited" and "why_cited" in p.evidence
        assert p.lines["length_generalization:rope"]["verdict"] == "hard"
        assert "length_generalization:nope" not in p.lines       # None: as predict says


def test_explain_and_the_per_line_reading(mine):
    p = predict_one(str(mine), "majority", Context(max_n=8))
    text = explain_text(p, registry.theory("symmetric_only"))
    assert "symmetric_only on majority: Easy" in text and "length_generalization:rope" in text
    d = p.to_dict()
    assert on_line(d, "length_generalization:rope")[0] == "hard"
    assert on_line(d, "length_generalization:nope")[0] == "easy"
    assert on_line(d, "in_distribution")[0] == "easy"
    cells = {"length_generalization:rope": {"majority": RefCell("majority", "x", "easy")},
             "in_distribution": {"majority": RefCell("majority", "x", "easy")}}
    rows = {r.line: r for r in agreement([d], cells)}
    assert rows["length_generalization:rope"].agree == 0
    assert rows["in_distribution"].agree == 1


def test_pool_workers_and_a_fresh_process(mine):
    one = predict_matrix([str(mine)], ["parity", "index"], Context(max_n=8), progress=False,
                         workers=1)
    two = predict_matrix([str(mine)], ["parity", "index"], Context(max_n=8), progress=False,
                         workers=2)
    assert [p.verdict for p in one] == [p.verdict for p in two]
    # a spawned process knows the file through the environment the load exported
    assert str(mine) in os.environ[user.ENV]
    env = {**os.environ, user.ENV: str(mine)}
    out = subprocess.run([sys.executable, "-m", "theorybench.cli.main", "predict", "--theory",
                          "symmetric_only", "--task", "parity,index", "--format", "json"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    cells = json.loads(out.stdout)
    cells = cells if isinstance(cells, list) else cells.get("cells", cells.get("predictions"))
    got = {c["task"]: c["verdict"] for c in cells}
    assert got == {"parity": "easy", "index": "hard"}


def test_a_raising_or_mistyped_predict_costs_one_cell(tmp_path, scoped):
    path = tmp_path / "flaky.py"
    path.write_text(textwrap.dedent('''\
        NAME = "flaky"
        def predict(task):
            if task.family == "index":
                raise ValueError("no idea about retrieval")
            if task.family == "majority":
                return 42
            return "easy", "fine"
        '''))
    preds = {p.task: p for p in predict_matrix([str(path)], ["parity", "index", "majority"],
                                               Context(max_n=8), progress=False)}
    assert preds["parity"].verdict.value == "easy"
    assert preds["index"].verdict.value == "unknown"
    assert f"{path}:4: predict raised ValueError: no idea about retrieval" in \
        preds["index"].explanation
    assert preds["majority"].verdict.value == "unknown"
    assert f"{path}:2: predict returned int 42" in preds["majority"].explanation
    got = check_file(path, ["parity", "index"], Context(max_n=8))
    assert len(got["problems"]) == 1 and "raised ValueError" in got["problems"][0]


def test_an_unbacked_status_claim_is_shown_as_cited(tmp_path, scoped):
    path = tmp_path / "bold.py"
    path.write_text('NAME = "bold"\n'
                    'def predict(task):\n'
                    '    return {"verdict": "easy", "status": "proven", "explanation": "trust me"}\n')
    p = predict_one(str(path), "parity", Context(max_n=8))
    assert p.status.value == "cited" and p.evidence["status_claimed"] == "proven"
    assert status_problem(p) is None
    assert check_file(path, ["parity"])["warnings"]


def test_the_theory_class_contract(tmp_path, scoped):
    path = tmp_path / "classy.py"
    path.write_text(textwrap.dedent('''\
        from theorybench.theories.base import Basis, RuleSkip, Status, Theory, Verdict, rule

        class Binary(Theory):
            name = "binary_alphabet"
            @rule("two symbols", Basis.THEOREM)
            def two(self, family, ctx):
                inst = family.build(n=family.variant().valid_ns(3, 9)[0])
                if len(inst.vocab) == 2:
                    return self.prediction(family, Verdict.EASY, Basis.THEOREM, Status.CITED,
                                           {"why_cited": "a toy"}, "two symbols")
                return RuleSkip("more than two symbols")
        '''))
    preds = {p.task: p.verdict.value for p in predict_matrix([str(path)], ["parity", "index"],
                                                             Context(max_n=8), progress=False)}
    assert preds == {"parity": "easy", "index": "unknown"}


def test_loading_twice_is_one_column_and_names_do_not_collide(mine, tmp_path):
    assert registry.resolve_names([str(mine)]) == ["symmetric_only"]
    assert registry.resolve_names([str(mine)]) == ["symmetric_only"]
    other = tmp_path / "copy" / "mine.py"
    other.parent.mkdir()
    other.write_text(SYMMETRIC + "\n# another file\n")
    with pytest.raises(TheoryError, match=r"copy/mine.py:3: the name 'symmetric_only' is the "
                                          r"theory of .*choose another name"):
        registry.resolve_names([str(other)])


BROKEN = {
    "syntax": ("NAME = 'x'\ndef predict(task)\n    return 'easy'\n",
               r"broken.py:2:\d+: the theory file does not parse"),
    "import": ("NAME = 'x'\nimport not_a_module_anywhere\n",
               r"broken.py:2: importing the theory file failed: ModuleNotFoundError"),
    "no name": ("def predict(task):\n    return 'easy'\n", r"broken.py: .*has no NAME"),
    "bad name": ("NAME = 'My Theory'\ndef predict(task):\n    return 'easy'\n",
                 r"broken.py:1: NAME 'My Theory' is not a column name"),
    "shipped name": ("NAME = 'crasp'\ndef predict(task):\n    return 'easy'\n",
                     r"broken.py:1: the name 'crasp' is a shipped theory; choose another"),
    "arity": ("NAME = 'x'\ndef predict():\n    return 'easy'\n",
              r"broken.py:2: predict must take 1 argument"),
    "not a function": ("NAME = 'x'\npredict = 'easy'\n",
                       r"broken.py:2: predict must be a function"),
    "nothing": ("NAME = 'x'\n", r"defines neither `def predict\(task\):` nor a Theory subclass"),
    "bad THEORIES": ("THEORIES = (1,)\n", r"broken.py:1: THEORIES must be a non-empty tuple"),
    "bad ASSUMPTIONS": ("NAME = 'x'\nASSUMPTIONS = 3\ndef predict(task):\n    return 'easy'\n",
                        r"broken.py:2: ASSUMPTIONS must be a tuple of strings"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_theory_files_get_one_line(kind, tmp_path, scoped, cli):
    text, pattern = BROKEN[kind]
    path = tmp_path / "broken.py"
    path.write_text(text)
    with pytest.raises(TheoryError, match=pattern):
        registry.resolve_names([str(path)])
    code, out, err = cli("theory", "check", path)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("theorybench: error: ") and str(path) in err


@pytest.mark.parametrize("bad", ["missing.py", "folder.py", "data.txt"])
def test_unusable_paths(bad, tmp_path, scoped, cli):
    (tmp_path / "folder.py").mkdir()
    (tmp_path / "data.txt").write_text("x")
    code, _, err = cli("predict", "--theory", tmp_path / bad, "--task", "parity")
    if bad == "data.txt":   # not a theory file by its name: an unknown theory name
        assert code == 2 and "unknown theory" in err
    else:
        assert code == 2 and "theory file" in err and "Traceback" not in err


def test_theory_check_cli(mine, cli):
    code, out, err = cli("theory", "check", mine, "--task", "parity,index")
    assert code == 0, err
    assert "symmetric_only on parity: Easy (thm, cited) · rope: Hard" in out
    assert out.strip().endswith("OK")


def test_default_encodings_are_registered():
    from theorybench.experiments.lines import LENGTH_GENERALIZATION
    from theorybench.experiments.positional import ENCODINGS
    from theorybench.theories.base import LENGTH_LINE
    assert LENGTH_LINE == LENGTH_GENERALIZATION
    assert all(e in ENCODINGS for e in user.LENGTH_ENCODINGS)


def test_verify_and_report_take_a_theory_file(mine, tmp_path):
    """verify's prediction step (pool workers) and the report's leaderboard."""
    from theorybench.experiments.spec import RunSpec
    from theorybench.experiments.store import ResultsStore
    from theorybench.matrix.report import build_report
    from theorybench.matrix.verify import derive_predictions
    names = registry.selection([str(mine)])
    assert names[-1] == "symmetric_only" and names[:-1] == registry.shipped_theories()
    preds = derive_predictions(max_n=8, progress=False, theories=["symmetric_only"],
                               tasks=["parity", "index"], workers=2)
    assert {p["task"]: p["verdict"] for p in preds} == {"parity": "easy", "index": "hard"}
    db = tmp_path / "runs.sqlite"
    store = ResultsStore(db)
    specs = [RunSpec("in_distribution", t, n=8, seed=0) for t in ("parity", "index")]
    store.queue(specs)
    for spec, acc in zip(specs, (0.5, 1.0)):
        store.mark_done(spec.key, {"test_accuracy": acc, "loss_drop": 0.0,
                                   "stop_reason": "plateau"})
    store.close()
    rep = build_report(preds, ResultsStore(db).records(), constructions=False)
    board = rep.tables["leaderboard"].records
    mine_row = next(r for r in board if r["predictor"] == "symmetric_only")
    # parity observed Hard (predicted Easy), index observed Easy (predicted Hard)
    assert (mine_row["compared"], mine_row["agree"]) == (2, 0)
    assert mine_row["origin"] == str(mine.resolve())
