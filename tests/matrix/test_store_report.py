"""The report from a real results store built in the test, and the report CLI."""

import json

from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import ResultsStore
from theorybench.matrix.report import build_report, write_report

PREDS = [
    {"theory": "ac0", "task": "parity", "verdict": "hard", "basis": "lower-bound", "status": "proven"},
    {"theory": "ac0", "task": "any", "verdict": "easy", "basis": "construction", "status": "proven"},
    {"theory": "tc0", "task": "parity", "verdict": "easy", "basis": "construction", "status": "proven"},
    {"theory": "tc0", "task": "any", "verdict": "easy", "basis": "construction", "status": "proven"},
]


def _store(path):
    store = ResultsStore(path)
    specs = {
        ("any", 8): 1.0, ("any", 16): 0.99, ("parity", 8): 0.97, ("parity", 16): 0.51,
    }
    runs = [RunSpec("in_distribution", task, n=n, seed=0) for task, n in specs]
    lg = RunSpec("length_generalization", "any", train_max_len=32,
                 eval_bins=((1, 32), (33, 64)), encoding="alibi")
    failed = RunSpec("in_distribution", "majority", n=7, seed=0)
    store.queue(runs + [lg, failed])
    for spec, acc in zip(runs, specs.values()):
        store.mark_done(spec.key, {"test_accuracy": acc})
    store.mark_done(lg.key, {"bins": {"<=32": 1.0, "33-64": 0.95}})
    store.mark_failed(failed.key, "training diverged: the loss became nan")
    store.close()


def test_report_from_a_real_store(tmp_path):
    db = tmp_path / "runs.sqlite"
    _store(db)
    rep = build_report(PREDS, ResultsStore(db).records(), store_name=str(db))
    cells = rep.empirical["in_distribution"]
    assert cells["any"].verdict == "easy" and cells["parity"].verdict == "hard"
    rows = {(r.theory, r.line): r for r in rep.rows}
    assert rows[("ac0", "in_distribution")].accuracy == 1.0
    assert rows[("tc0", "in_distribution")].precision_easy == 0.5
    assert rep.best["in_distribution"]["theory"] == "ac0"
    assert any("failed" in m for m in rep.missing)
    files = write_report(tmp_path / "out", rep)
    assert files["index.html"].stat().st_size > 10_000


def test_report_cli_with_saved_predictions(cli_proc, tmp_path):
    db = tmp_path / "runs.sqlite"
    _store(db)
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps(PREDS))
    out = tmp_path / "out"
    r = cli_proc("report", "--db", str(db), "--out", str(out), "--predictions", str(preds))
    assert r.returncode == 0, r.stderr
    assert (out / "agreement.tex").exists()


def test_report_cli_refuses_a_foreign_store(cli_proc, tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_text("these are my notes, not a database")
    before = bad.read_bytes()
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps(PREDS))
    r = cli_proc("report", "--db", str(bad), "--out", str(tmp_path / "o"), "--predictions", str(preds))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "theorybench: error:" in r.stderr
    assert bad.read_bytes() == before


def test_report_cli_bad_thresholds(cli_proc, tmp_path):
    r = cli_proc("report", "--target-accuracy", "1.5", "--predictions", "x.json")
    assert r.returncode == 2 and "--target-accuracy" in r.stderr


def _corrupt(db):
    """Two rows a crashed tool or a hand edit could leave: bad spec JSON, metrics a list."""
    import sqlite3
    con = sqlite3.connect(db)
    spec = json.dumps(RunSpec("in_distribution", "parity", n=32).to_dict())
    con.executemany("INSERT INTO runs (key, line, spec, status, metrics, created, updated) "
                    "VALUES (?, 'in_distribution', ?, 'done', ?, 1, 1)",
                    [("badjson0", "{oops", '{"test_accuracy": 1.0}'),
                     ("badlist0", spec, "[1.0]")])
    con.commit()
    con.close()


def test_report_names_unreadable_rows_and_reports_the_rest(cli, tmp_path):
    db = tmp_path / "runs.sqlite"
    _store(db)
    _corrupt(db)
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps(PREDS))
    out = tmp_path / "out"
    code, _, err = cli("report", "--db", db, "--out", out, "--predictions", preds)
    assert code == 0, err
    html = (out / "index.html").read_text()
    assert "run badjson0: spec is not JSON" in html
    assert "run badlist0: metrics are a list, not an object" in html
    code, text, err = cli("export", "--db", db, "--format", "csv")
    assert code == 0 and len(text.strip().splitlines()) == 1 + 6  # the six readable runs
    assert "badjson0" in err and "badlist0" in err
    code, text, _ = cli("runs", "--db", db, "--format", "json")
    assert {p["key"] for p in json.loads(text)["unreadable"]} == {"badjson0", "badlist0"}
    # the rest is reported as before
    from theorybench.matrix.verify import store_scan
    rep = build_report(PREDS, store_scan(db).records, store_name=str(db))
    assert rep.empirical["in_distribution"]["parity"].verdict == "hard"


def test_report_on_a_read_only_copy(tmp_path):
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    import pytest
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: a read-only file is writable")
    drop = (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            if os.geteuid() == 0 else [])
    folder, out = tempfile.mkdtemp(), tempfile.mkdtemp()
    try:
        db = os.path.join(folder, "runs.sqlite")
        _store(db)
        preds = os.path.join(out, "p.json")
        with open(preds, "w") as fh:
            json.dump(PREDS, fh)
        os.chmod(db, 0o444)
        os.chmod(folder, 0o555)
        os.chmod(out, 0o777)  # the report is written here, by the other user too
        os.chmod(preds, 0o644)
        r = subprocess.run([*drop, sys.executable, "-m", "theorybench.cli.main", "report",
                            "--db", db, "--out", os.path.join(out, "rep"), "--predictions",
                            preds], capture_output=True, text=True, timeout=300, cwd="/")
        assert r.returncode == 0, r.stderr
        assert os.listdir(folder) == ["runs.sqlite"]
        assert os.path.getsize(os.path.join(out, "rep", "index.html")) > 10_000
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)
        shutil.rmtree(out)
