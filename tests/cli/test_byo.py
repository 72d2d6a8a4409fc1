"""`theorybench byo`: the page (verdicts, programs, training), the run store keyed by the
task's definition, and the outputs that are refused before any work."""

from __future__ import annotations

import pathlib
import sqlite3

import pytest

from theorybench.cli import byo
from theorybench.formal.brasp.programs import PROGRAMS as BRASP_PROGRAMS
from theorybench.formal.crasp.programs import PROGRAMS as CRASP_PROGRAMS
from theorybench.tasks import registry

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks"

TASK = '''NAME = "has_a"
ALPHABET = ("a", "b")
LENGTHS = (1, 12)


def label(x):
    return (x == 0).any(axis=1)
'''


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped(), CRASP_PROGRAMS.scoped(), BRASP_PROGRAMS.scoped():
        yield


@pytest.fixture
def tiny(monkeypatch):
    """A budget of a few training steps and small exact checks: the test is about the
    plumbing, not the verdicts."""
    monkeypatch.setitem(byo.BUDGETS, "quick", byo.Budget(
        max_n=6, time_limit_s=5.0, steps=20, prove_timeout_s=5.0, train_max_n=8))


def test_byo_on_the_anbncn_program(cli, tmp_path, tiny):
    out = tmp_path / "page"
    code, text, err = cli("byo", EXAMPLES / "anbncn.cr", "--out", out, "--no-train")
    assert code == 0, err
    md = (out / "anbncn.md").read_text()
    assert "| crasp | Easy (con, verified" in md
    assert "| C-RASP | C-RASP | " + str(EXAMPLES / "anbncn.cr") in md
    assert "compiled softmax transformer" in md and "verified on all" in md
    assert "Skipped (--no-train)." in md
    page = (out / "anbncn.html").read_text()
    assert page.startswith("<!doctype html>") and "<details><summary>Easy (con" in page
    assert "program: C-RASP (C-RASP) from" in text and "page: " in text


@pytest.mark.usefixtures("one_torch_thread", "tiny")
def test_byo_trains_once_per_definition(cli, tmp_path):
    task = tmp_path / "has_a.py"
    task.write_text(TASK)
    out = tmp_path / "page"
    code, text, err = cli("byo", task, "--out", out)
    assert code == 0, err
    assert "trained n=7:" in text and "trained n=8:" in text   # train_ns first, then the largest
    md = (out / "has_a.md").read_text()
    assert "(2 trained now, 0 already there for this definition)" in md
    code, text, _ = cli("byo", task, "--out", out)
    assert code == 0 and "2 run(s) already in" in text
    task.write_text(TASK + "# edited: a new definition\n")
    code, text, _ = cli("byo", task, "--out", out)
    assert code == 0 and "already in" not in text
    assert "(2 trained now, 0 already there" in (out / "has_a.md").read_text()
    with sqlite3.connect(out / "runs.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM runs WHERE status='done'").fetchone()[0] == 4


def test_byo_reports_a_supplied_program_outside_plain_crasp(cli, tmp_path, tiny):
    write_cab(tmp_path)
    code, text, err = cli("byo", tmp_path / "cab.py", "--out", tmp_path / "p", "--no-train")
    assert code == 0, err
    assert ("program: C-RASP (C-RASP[periodic, local]) from " + str(tmp_path / "cab.cr")
            + ", supplied with the task; evidence for: no column") in text
    md = (tmp_path / "p" / "cab.md").read_text()
    assert "not attempted: `crasp prove` handles plain C-RASP" in md
    # the supplied program decides nothing; the cell comes from the catalogue rule
    # ("contains ab" embeds Sigma* b: a -> a, b -> c, suffix b)
    assert "| crasp | Hard (red, cited) | reduction from the language catalogue |" in md


def test_byo_refuses_before_any_work(cli, tmp_path, tiny):
    task = tmp_path / "has_a.py"
    task.write_text(TASK)
    code, _, err = cli("byo", "parity", "--no-train")
    assert code == 2 and "is not a task file: byo takes the path of a .py task file" in err
    code, _, err = cli("byo", task, "--out", task, "--no-train")
    assert code == 2 and "is a file; give a folder" in err
    out = tmp_path / "page"
    out.mkdir()
    store = out / "has_a.md"   # a results store where the page would go
    sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.commit()
    before = store.read_bytes()
    code, _, err = cli("byo", task, "--out", out, "--no-train")
    assert code == 2 and "is an existing results store" in err and "Traceback" not in err
    assert store.read_bytes() == before and not (out / "has_a.html").exists()
    code, _, err = cli("byo", task, "--out", out, "--no-train", "--force")
    assert code == 0, err
    assert (out / "has_a.md").read_text().startswith("# theorybench byo: has_a")


@pytest.mark.parametrize("bad", [
    TASK.replace("return (x == 0).any(axis=1)", "return x"),              # wrong shape
    TASK.replace('NAME = "has_a"', 'NAME = "parity"'),                    # a built-in's name
    TASK + "CRASP = '// alphabet: a b\\nout = # \"a\" > 1\\n'\n",          # a wrong program
])
def test_a_bad_task_file_loses_nothing(cli, tmp_path, tiny, bad):
    """A bad task file given to byo or run: one line, and the page and the store already
    there (from a good version of the file) keep their bytes."""
    task = tmp_path / "has_a.py"
    task.write_text(TASK)
    out = tmp_path / "page"
    assert cli("byo", task, "--out", out, "--no-train")[0] == 0
    store = out / "runs.sqlite"
    sqlite3.connect(store).execute("CREATE TABLE t (x)").connection.commit()
    kept = {p: p.read_bytes() for p in out.iterdir()}
    task.write_text(bad)
    for argv in (["byo", task, "--out", out], ["run", "in-distribution", "--tasks", task,
                                                "--db", store, "--executor", "inprocess"]):
        code, _, err = cli(*argv)
        assert code == 2 and str(task) in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1, err
    assert {p: p.read_bytes() for p in out.iterdir()} == kept


def write_cab(folder: pathlib.Path) -> None:
    """"contains ab" over {a, b, c} and a local program for it (#import prev): plain C-RASP
    has no program for it."""
    (folder / "cab.py").write_text(
        'NAME = "cab"\nALPHABET = ("a", "b", "c")\nLENGTHS = (2, 16)\n\n\n'
        "def label(x):\n    return ((x[:, :-1] == 0) & (x[:, 1:] == 1)).any(axis=1)\n")
    (folder / "cab.cr").write_text('// alphabet: a b c\n#import prev\n'
                                   'ab_here = "b" && #[prev] "a" == 1\nout = # ab_here > 0\n')


def test_the_crasp_cell_names_a_supplied_program_outside_its_fragment(cli, tmp_path):
    write_cab(tmp_path)
    code, text, err = cli("explain", "crasp", tmp_path / "cab.py", "--max-n", "6")
    assert code == 0, err
    assert text.startswith("crasp on cab: Hard (red, cited)")
    assert "rule: reduction from the language catalogue" in text
    assert (f"the program supplied in {tmp_path / 'cab.cr'} is in C-RASP[periodic, local], "
            "not plain C-RASP, so it is no evidence for this column") in text
