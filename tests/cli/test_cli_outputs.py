"""No command writes over one of its own inputs, or over an existing file of another kind
(a results store, a checkpoint, a program, a task file), without --force (issue 31, cause
1); output paths that are empty or folders get a clear message (cause 8)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from theorybench.errors import StoreError
from theorybench.experiments.store import ResultsStore

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _program(tmp_path: Path, name: str = "prog.cr", lang: str = "crasp",
             entry: str = "majority") -> Path:
    """A copy of a library program (``formal/<lang>/library``) as a file of this test."""
    import theorybench.formal as formal
    src = Path(formal.__file__).parent / lang / "library" / f"{entry}.{lang[0]}r"
    p = tmp_path / name
    shutil.copyfile(src, p)
    return p


def _store(tmp_path: Path, name: str = "runs.sqlite") -> Path:
    db = tmp_path / name
    ResultsStore(db).close()
    return db


def _refused(result, victim: Path, before: bytes, option: str) -> None:
    code, out, err = result
    assert code == 2, (code, out, err)
    assert option in err and "--force" in err and "Traceback" not in err, err
    assert victim.read_bytes() == before  # not a byte lost


def test_export_onto_its_own_store_is_refused_by_every_spelling(cli_exit, tmp_path):
    db = _store(tmp_path)
    before = db.read_bytes()
    os.symlink(db, tmp_path / "link.csv")
    os.link(db, tmp_path / "hard.csv")
    for out in (db, tmp_path / "." / "runs.sqlite", tmp_path / "link.csv",
                tmp_path / "hard.csv"):
        _refused(cli_exit("export", "--db", str(db), "-o", str(out)), db, before, "--output")
    ResultsStore(db, readonly=True).close()  # still a store


def test_export_onto_another_store_needs_force(cli_exit, tmp_path):
    db, other = _store(tmp_path), _store(tmp_path, "other.sqlite")
    before = other.read_bytes()
    _refused(cli_exit("export", "--db", str(db), "-o", str(other)), other, before,
             "results store")
    code, _, err = cli_exit("export", "--db", str(db), "-o", str(other), "--force")
    assert code == 0 and other.read_bytes() != before
    with pytest.raises(StoreError):
        ResultsStore(other, readonly=True)
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]  # renamed, none left


def test_export_to_a_plain_file_and_to_a_folder(cli_exit, tmp_path):
    db = _store(tmp_path)
    out = tmp_path / "runs.csv"
    out.write_text("an older export\n")
    assert cli_exit("export", "--db", str(db), "-o", str(out))[0] == 0  # the same kind
    assert out.read_text() != "an older export\n"
    code, _, err = cli_exit("export", "--db", str(db), "-o", str(tmp_path))
    assert code == 2 and "is a folder" in err


@pytest.mark.parametrize("argv", [["crasp", "compile", "{p}", "--max-len", "3"],
                                  ["construct", "--program", "{p}", "--n", "3"]])
def test_compiling_a_program_onto_itself_is_refused(cli_exit, tmp_path, argv):
    prog = _program(tmp_path)
    before = prog.read_bytes()
    argv = [a.replace("{p}", str(prog)) for a in argv]
    _refused(cli_exit(*argv, "--out", str(prog)), prog, before, "--out")
    db = _store(tmp_path)
    store_bytes = db.read_bytes()
    _refused(cli_exit(*argv, "--out", str(db)), db, store_bytes, "results store")
    model = tmp_path / "model.pt"
    assert cli_exit(*argv, "--out", str(model))[0] == 0
    assert cli_exit(*argv, "--out", str(model))[0] == 0  # a model over a model: same kind
    import torch
    assert torch.load(model, weights_only=True)  # a complete file, not a torn one
    code, _, err = cli_exit(*argv, "--out", str(prog), "--force")
    assert code == 0 and prog.read_bytes() != before  # --force does what it says


@pytest.mark.parametrize("lang, entry", [("crasp", "majority"), ("brasp", "any")])
def test_a_trace_never_replaces_the_program(cli_exit, tmp_path, lang, entry):
    prog = _program(tmp_path, "prog.txt", lang, entry)  # a .txt program: a valid trace name
    before = prog.read_bytes()
    _refused(cli_exit(lang, "run", str(prog), "1 0 1", "--trace", str(prog)), prog, before,
             "--trace")
    trace = tmp_path / "t.txt"
    assert cli_exit(lang, "run", str(prog), "1 0 1", "--trace", str(trace))[0] == 0
    assert trace.read_text() and prog.read_bytes() == before


def test_circuit_dot_never_replaces_a_program_or_store(cli_exit, tmp_path):
    prog, db = _program(tmp_path), _store(tmp_path)
    for victim, words in ((prog, "program"), (db, "results store")):
        before = victim.read_bytes()
        _refused(cli_exit("circuit", "build", "parity", "--n", "4", "--dot", str(victim)),
                 victim, before, words)
    dot = tmp_path / "c.dot"
    assert cli_exit("circuit", "build", "parity", "--n", "4", "--dot", str(dot))[0] == 0
    assert dot.read_text().startswith("digraph")


def test_report_never_replaces_its_predictions_file(cli_exit, tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    preds = out / "predictions.json"  # where the report writes its own predictions table
    preds.write_text(json.dumps([{"theory": "crasp", "task": "parity", "verdict": "hard"}]))
    before = preds.read_bytes()
    _refused(cli_exit("report", "--out", str(out), "--db", str(tmp_path / "none.sqlite"),
                      "--predictions", str(preds)), preds, before, "--predictions")
    assert sorted(p.name for p in out.iterdir()) == ["predictions.json"]  # nothing written


def test_report_files_never_replace_the_store(tmp_path):
    from theorybench.matrix.verify import check_paths
    out = tmp_path / "report"
    out.mkdir()
    db = _store(out, "summary.json")  # a store named like a report file
    with pytest.raises(Exception, match="--force"):
        check_paths(out, db)
    check_paths(out, db, force=True)
    with pytest.raises(Exception, match="predictions-evidence.json"):  # verify's own file
        check_paths(tmp_path / "new", tmp_path / "new" / "predictions-evidence.json",
                    extra=("predictions-evidence.json",))


def test_sharpness_plot_into_a_folder_and_never_over_a_store(cli_exit, tmp_path):
    quick = ["sharpness", "parity", "--n", "4", "--iters", "2", "--perturbations", "2",
             "--batch", "16"]
    db = _store(tmp_path, "fig.png")  # a store with a figure's name
    before = db.read_bytes()
    _refused(cli_exit(*quick, "--plot", str(db)), db, before, "results store")
    figs = tmp_path / "figs"
    figs.mkdir()
    code, out, err = cli_exit(*quick, "--plot", str(figs))
    assert code == 0, err
    assert (figs / "sharpness_vs_n.png").read_bytes()[:4] == b"\x89PNG"
    assert not (tmp_path / "figs.png").exists() and str(figs / "sharpness_vs_n.png") in out


def test_llm_records_never_replace_the_model_file(cli_exit, tmp_path):
    models = tmp_path / "models.json"
    models.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "remote", "backend": "http", "base_url": "http://127.0.0.1:9",
         "model": "m", "timeout": 1, "max_retries": 0}]}))
    before = models.read_bytes()
    _refused(cli_exit("llm", "eval", "parity", "--n", "4", "--models", str(models),
                      "--records", str(models)), models, before, "--records")


def test_llm_export_never_replaces_a_store(cli_exit, tmp_path):
    out = tmp_path / "lm"
    out.mkdir()
    victim = _store(out, "theorybench_parity_n4_k8_plain_balanced_loglik_s0_c2.yaml")
    before = victim.read_bytes()
    _refused(cli_exit("llm", "export", "parity", "--n", "4", "--count", "2", "--out",
                      str(out)), victim, before, "results store")


@pytest.mark.parametrize("argv", [
    ["export", "--db", ""], ["runs", "--db", " "],
    ["run", "in-distribution", "--dry-run", "--db", ""],
    # these were read as the current folder or silently dropped (exit 0)
    ["run", "in-distribution", "--dry-run", "--checkpoints", ""],
    ["llm", "models", "--models", ""], ["report", "--sharpness", ""],
    ["sharpness", "parity", "--n", "4", "--trained", ""]])
def test_an_empty_path_is_named_as_empty(cli_exit, argv):
    code, _, err = cli_exit(*argv)
    assert code == 2 and "the path is empty" in err and "is a directory" not in err, err
