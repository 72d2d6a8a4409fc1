"""The results store: lifecycle, foreign / incompatible files refused and left untouched."""

import json
import sqlite3

import pytest

from theorybench.errors import StoreError
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import SCHEMA_VERSION, ResultsStore


def specs():
    return [RunSpec("in_distribution", "parity", n=n) for n in (4, 6)] + [
        RunSpec("length_generalization", "any", train_max_len=8, eval_bins=((1, 8), (9, 16)),
                encoding="rope")]


def test_lifecycle_and_records(tmp_path):
    db = tmp_path / "r.sqlite"
    s = specs()
    with ResultsStore(db) as store:
        assert store.queue(s) == 3 and store.queue(s) == 0  # idempotent
        store.mark_running(s[0].key)
        store.mark_done(s[0].key, {"test_accuracy": 0.5, "curve": [[1, 0.5]]})
        store.mark_running(s[1].key)
        store.mark_failed(s[1].key, "RunFailed: diverged")
        store.mark_running(s[2].key)
        store.mark_done(s[2].key, {"bins": {"<=8": 1.0, "9-16": 0.5, "17-24": None}})
    with ResultsStore(db) as store:  # reopened
        assert store.counts() == {"queued": 0, "running": 0, "done": 2, "failed": 1}
        done = store.records(status="done", line="in_distribution")[0]
        assert done.key == s[0].key and done.metrics["curve"] == [[1, 0.5]]
        assert done.spec == s[0].to_dict() and done.spec["model"]["size"] == "small"
        assert store.records(status="failed")[0].error == "RunFailed: diverged"
        lg = store.records(line="length_generalization")
        assert len(lg) == 1 and lg[0].spec["eval_bins"] == [[1, 8], [9, 16]]
        assert lg[0].spec["model"]["encoding"] == "rope" and lg[0].spec["n"] is None
        assert list(lg[0].metrics["bins"]) == ["<=8", "9-16", "17-24"]  # bin order kept
        assert len(json.loads(store.export("json"))) == 3
        csv = store.export("csv").splitlines()
        assert len(csv) == 4 and "test_accuracy" in csv[0]
        assert store.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_spec_key_is_stable_and_distinct():
    a, b = RunSpec("in_distribution", "parity", n=4), RunSpec("in_distribution", "parity", n=4)
    assert a.key == b.key and hash(a) == hash(b)
    assert a.key != RunSpec("in_distribution", "parity", n=4, seed=1).key
    assert RunSpec.from_dict(a.to_dict()) == a


def test_foreign_files_refused_untouched(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_bytes(b"hello, not a database\n" * 3)
    before = text.read_bytes()
    with pytest.raises(StoreError, match="not a theorybench"):
        ResultsStore(text)
    assert text.read_bytes() == before

    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match="not a theorybench"):
        ResultsStore(other)
    assert other.read_bytes() == before


def test_other_schema_version_refused(tmp_path):
    db = tmp_path / "r.sqlite"
    ResultsStore(db).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value=? WHERE name='schema_version'", (str(SCHEMA_VERSION + 1),))
    con.commit()
    con.close()
    before = db.read_bytes()
    with pytest.raises(StoreError, match="schema version"):
        ResultsStore(db)
    assert db.read_bytes() == before


def _edited(tmp_path, sql, name="e.sqlite"):
    """A store with one done run, then changed by ``sql`` (a hand edit or a damage)."""
    db = tmp_path / name
    with ResultsStore(db) as store:
        store.queue(specs()[:1])
        store.mark_done(specs()[0].key, {"test_accuracy": 0.5})
    con = sqlite3.connect(db)
    con.executescript(sql)
    con.commit()
    con.close()
    return db


def test_schema_version_stored_as_a_number_is_the_same_version(tmp_path):
    # a meta table without type affinity keeps the integer 2: the old check compared it
    # with the text "2" and said "schema version 2, but this theorybench reads version 2"
    db = _edited(tmp_path, "DROP TABLE meta; CREATE TABLE meta (name, value); INSERT INTO meta "
                           "VALUES ('app', 'theorybench-results'), ('schema_version', 2);")
    for readonly in (True, False):
        with ResultsStore(db, readonly=readonly) as store:
            assert [r.key for r in store.records()] == [specs()[0].key]


@pytest.mark.parametrize("version, message", [
    (str(SCHEMA_VERSION + 1), f"schema version {SCHEMA_VERSION + 1}, written by a newer "
                              f"theorybench; this one reads versions 1 to {SCHEMA_VERSION}"),
    ("0", "which no theorybench wrote"),
    ("two", "schema_version is 'two', not a version number"),
    (None, "has no schema_version"),
])
def test_schema_version_messages_say_what_is_wrong(tmp_path, version, message):
    sql = ("DELETE FROM meta WHERE name='schema_version';" if version is None else
           f"UPDATE meta SET value='{version}' WHERE name='schema_version';")
    db = _edited(tmp_path, sql)
    before = db.read_bytes()
    for readonly in (True, False):
        with pytest.raises(StoreError) as err:
            ResultsStore(db, readonly=readonly)
        assert message in str(err.value) and str(db) in str(err.value)
        assert f"reads version {SCHEMA_VERSION};" not in str(err.value)
    assert db.read_bytes() == before


@pytest.mark.parametrize("sql, message", [
    ("DROP TABLE runs;", "without its runs table"),
    ("ALTER TABLE runs DROP COLUMN metrics;", "the runs table has no column metrics"),
    ("ALTER TABLE runs DROP COLUMN created;", "the runs table has no column created"),
    ("DROP TABLE samples; CREATE TABLE samples (a);",
     "the samples table has no columns key, idx, record"),
    ("DROP TABLE meta; CREATE TABLE meta (a, b);", "without the name and value columns"),
])
def test_missing_tables_and_columns_are_named_not_tracebacks(tmp_path, sql, message):
    db = _edited(tmp_path, sql)
    before = db.read_bytes()
    for readonly in (True, False):  # writing must not recreate an empty runs table either
        with pytest.raises(StoreError, match=message):
            ResultsStore(db, readonly=readonly)
    assert db.read_bytes() == before


def test_rows_with_an_unknown_status_are_named(tmp_path):
    # a runs table rebuilt by hand has lost its CHECK constraint
    db = _edited(tmp_path, "CREATE TABLE r2 AS SELECT * FROM runs; DROP TABLE runs; "
                           "ALTER TABLE r2 RENAME TO runs; UPDATE runs SET status='bogus';")
    with ResultsStore(db, readonly=True) as store:
        scan = store.scan()
    assert not scan.records
    assert [p.what for p in scan.problems] == [
        "status 'bogus' is not one of queued, running, done, failed"]


def test_directory_refused(tmp_path):
    with pytest.raises(StoreError, match="directory"):
        ResultsStore(tmp_path)


def test_sample_complexity_from_records():
    from theorybench.experiments.in_distribution import sample_complexity
    from theorybench.experiments.store import RunRecord

    def rec(size, reached, n=8, status="done"):
        spec = RunSpec("in_distribution", "parity", n=n, train_size=size).to_dict()
        return RunRecord(key=f"{n}-{size}", line="in_distribution", spec=spec, status=status,
                         metrics={"reached_target": reached}, error=None)
    got = sample_complexity([rec(128, False), rec(256, True), rec(512, True), rec(None, True),
                             rec(128, True, status="failed"), rec(128, False, n=16)])
    assert got[("parity", (), 8, "small", "nope", 0)] == 256
    assert got[("parity", (), 16, "small", "nope", 0)] is None
    assert len(got) == 2


# ---- sharing a store: leases -----------------------------------------------------------
def _dead_pid() -> int:
    import subprocess
    import sys
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: the pid names no process now
    return proc.pid


def test_claims_are_exclusive_and_dead_leases_taken_over(tmp_path):
    import socket
    import time

    from theorybench.experiments.store import new_worker_id
    s = specs()[:2]
    keys = [x.key for x in s]
    w1, w2 = new_worker_id(), new_worker_id()
    with ResultsStore(tmp_path / "r.sqlite") as store:
        store.queue(s)
        assert store.claim(keys, w1) == keys[0]
        assert store.claim(keys, w2) == keys[1]  # not the run w1 holds
        assert store.claim(keys, w2) is None and store.claim(keys, w1) is None
        assert store.outstanding(keys, w2) == (0, 1)  # w1's run, held by a live worker
        # w1 stops beating: after the timeout its run is taken over, one more attempt
        store.con.execute("UPDATE runs SET heartbeat=? WHERE key=?", (time.time() - 601, keys[0]))
        assert store.claim(keys, w2, lease_timeout=600) == keys[0]
        assert not store.mark_done(keys[0], {"test_accuracy": 0.5}, worker=w1)  # lease lost
        assert store.mark_done(keys[0], {"test_accuracy": 0.75}, worker=w2)
        rec = {r.key: r for r in store.records()}
        assert (rec[keys[0]].attempts, rec[keys[0]].worker) == (2, w2)
        assert rec[keys[0]].metrics == {"test_accuracy": 0.75}
        # a worker of this host whose process is gone: taken over at once (fresh heartbeat)
        gone = f"{socket.gethostname()}:{_dead_pid()}:abc"
        store.con.execute("UPDATE runs SET worker=?, heartbeat=? WHERE key=?",
                          (gone, time.time(), keys[1]))
        assert store.claim(keys, w1) == keys[1]
        # a stopped worker hands its runs back
        assert store.release(w1) == 1
        assert store.counts() == {"queued": 1, "running": 0, "done": 1, "failed": 0}


def test_interrupted_sweep_leaves_no_run_running(tmp_path, monkeypatch):
    from theorybench.experiments import in_distribution
    from theorybench.experiments.sweep import run_sweep
    from theorybench.experiments.trainer import TrainingConfig
    tiny = TrainingConfig(steps=4, eval_every=2, eval_count=16, final_eval_count=16)
    s = [RunSpec("in_distribution", "parity", n=n, training=tiny) for n in (4, 5)]
    real, calls = in_distribution.run, []

    def stop_at_second(spec, **kw):
        calls.append(spec.n)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C (or SIGTERM) in the middle of the second run
        return real(spec, **kw)
    monkeypatch.setattr(in_distribution, "run", stop_at_second)
    db = tmp_path / "i.sqlite"
    with pytest.raises(KeyboardInterrupt):
        run_sweep("in-distribution", specs=s, db=str(db), progress=False)
    with ResultsStore(db) as store:
        assert store.counts() == {"queued": 1, "running": 0, "done": 1, "failed": 0}
        queued = store.records(status="queued")[0]
        assert queued.spec["n"] == 5 and queued.attempts == 1 and queued.worker is None


def test_version_1_store_read_and_upgraded(tmp_path):
    db = tmp_path / "v1.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE runs (key TEXT PRIMARY KEY, line TEXT NOT NULL, spec TEXT NOT NULL,
            status TEXT NOT NULL, metrics TEXT, error TEXT, attempts INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL, updated REAL NOT NULL);
        INSERT INTO meta VALUES ('app', 'theorybench-results'), ('schema_version', '1');""")
    spec = specs()[0]
    con.execute("INSERT INTO runs VALUES (?, ?, ?, 'running', NULL, NULL, 1, 0, 0)",
                (spec.key, spec.line, json.dumps(spec.to_dict())))
    con.commit()
    con.close()
    with ResultsStore(db, readonly=True) as store:  # read as it is
        assert [r.key for r in store.records()] == [spec.key]
    with ResultsStore(db) as store:  # upgraded; the old 'running' row has no lease: taken
        assert store.con.execute("SELECT value FROM meta WHERE name='schema_version'"
                                 ).fetchone()[0] == str(SCHEMA_VERSION)
        assert store.claim([spec.key], "w") == spec.key


# ---- readers ---------------------------------------------------------------------------
def _insert(db, key, spec_text, status="done", metrics_text=None, line="in_distribution"):
    con = sqlite3.connect(db)
    con.execute("INSERT INTO runs (key, line, spec, status, metrics, created, updated) "
                "VALUES (?, ?, ?, ?, ?, 1, 1)", (key, line, spec_text, status, metrics_text))
    con.commit()
    con.close()


def test_unreadable_rows_are_skipped_and_named(tmp_path):
    db = tmp_path / "c.sqlite"
    good = specs()
    with ResultsStore(db) as store:
        store.queue(good)
        store.mark_done(good[0].key, {"test_accuracy": 0.9})
    ok_spec = json.dumps(good[0].to_dict())
    _insert(db, "bad-json", "{not json")
    _insert(db, "bad-metrics", ok_spec, metrics_text="[0.9, 0.8]")
    _insert(db, "bad-acc", ok_spec, metrics_text='{"test_accuracy": "high"}')
    _insert(db, "bad-spec", "[1, 2]", status="queued")
    _insert(db, "bad-bins", ok_spec, line="length_generalization",
            metrics_text='{"bins": {"<=8": [1]}}')
    with ResultsStore(db, readonly=True) as store:
        scan = store.scan()
        text_json, text_csv = store.export("json"), store.export("csv")
    problems = {p.key: p.what for p in scan.problems}
    assert problems == {"bad-json": "spec is not JSON",
                        "bad-metrics": "metrics are a list, not an object",
                        "bad-acc": "test_accuracy 'high' of a done run is not a number in [0, 1]",
                        "bad-spec": "spec is a list, not an object",
                        "bad-bins": "length bin <=8 accuracy [1] is not a number in [0, 1]"}
    assert sorted(r.key for r in scan.records) == sorted(s.key for s in good)
    assert len(json.loads(text_json)) == 3 and len(text_csv.splitlines()) == 4


def test_csv_cells_cannot_be_formulas(tmp_path):
    import csv as csvmod
    import io

    db = tmp_path / "f.sqlite"
    s = RunSpec("in_distribution", "parity", n=4, params=(("note", "=HYPERLINK(\"x\")"),))
    with ResultsStore(db) as store:
        store.queue([s])
        store.mark_done(s.key, {"test_accuracy": 0.5, "margin": -0.25, "tag": "@SUM(A1)",
                                "+x": 1})
        rows = list(csvmod.DictReader(io.StringIO(store.export("csv"))))
    row = rows[0]
    assert row["params.note"] == "'=HYPERLINK(\"x\")" and row["tag"] == "'@SUM(A1)"
    assert row["margin"] == "-0.25"  # a negative number stays a number
    assert row["'+x"] == "1"  # a header cell too
    with ResultsStore(db) as store:
        store.mark_failed(s.key, "-2+3 cmd|' /C calc'!A0")
        rows = list(csvmod.DictReader(io.StringIO(store.export("csv"))))
    assert rows[0]["error"].startswith("'-2+3")


def test_readers_do_not_wait_for_a_writer(tmp_path, cli):
    import time
    db = tmp_path / "w.sqlite"
    with ResultsStore(db) as store:
        store.queue(specs())
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
    writer.execute("UPDATE runs SET attempts = 7")
    try:
        t0 = time.perf_counter()
        code, out, err = cli("runs", "--db", db)
        assert code == 0, err
        code, out, err = cli("export", "--db", db, "--format", "json")
        assert code == 0, err
        assert time.perf_counter() - t0 < 10
        assert {r["attempts"] for r in json.loads(out)} == {0}  # the last committed state
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_store_being_created_by_another_process_is_not_refused(tmp_path):
    """Two sweeps starting on one new store: the second may open the file after the first
    created it but before its schema is committed (an SQLite file with no table yet). It
    must wait and share the store, not refuse it as 'not a theorybench store'."""
    import sqlite3

    from theorybench.experiments.store import ResultsStore
    path = tmp_path / "new.sqlite"
    first = sqlite3.connect(path, isolation_level=None)
    first.execute("PRAGMA journal_mode=WAL")        # the file exists, no table committed yet
    assert path.stat().st_size > 0
    store = ResultsStore(path)                       # the second process
    assert store.records() == []
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(Exception, match="not a theorybench results store"):
        ResultsStore(other)


def test_heartbeat_thread_refreshes_only_its_workers_leases(tmp_path):
    import threading
    import time

    from theorybench.experiments.store import Heartbeat
    s = specs()
    keys = [x.key for x in s]
    db = tmp_path / "r.sqlite"
    old = time.time() - 500
    with ResultsStore(db) as store:
        store.queue(s)
        assert store.claim(keys, "mine:1:a") == keys[0]
        assert store.claim(keys, "other:1:b") == keys[1]
        store.con.execute("UPDATE runs SET heartbeat=? WHERE status='running'", (old,))
        with Heartbeat(db, "mine:1:a", interval=0.02):
            deadline = time.time() + 10
            while time.time() < deadline:
                mine = store.con.execute("SELECT heartbeat FROM runs WHERE key=?",
                                         (keys[0],)).fetchone()[0]
                if mine > old:
                    break
                time.sleep(0.02)
        assert mine > old
        beats = dict(store.con.execute("SELECT key, heartbeat FROM runs"))
        assert beats[keys[1]] == old and beats[keys[2]] is None  # another's, a queued run
        assert store.counts()["running"] == 2
        # the thread stops on leaving the block
        assert not any(t.name == "theorybench-heartbeat" for t in threading.enumerate())


def test_package_keeps_the_names_of_the_single_module():
    """The store was one module; code and notebooks import these names from the package."""
    import theorybench.experiments.store as store
    from theorybench.experiments.store import export, leases, records, results, schema
    homes = {results: ["ResultsStore"], records: ["RunRecord", "RowProblem", "Scan", "read_row"],
             leases: ["Heartbeat", "new_worker_id", "worker_is_gone", "LEASE_TIMEOUT_S",
                      "HEARTBEAT_S"],
             export: ["csv_cell", "format_runs"],
             schema: ["APP", "DEFAULT_DB", "SCHEMA_VERSION", "MIN_SCHEMA_VERSION", "STATUSES",
                      "READ_TIMEOUT_S"]}
    for module, names in homes.items():
        for name in names:
            assert getattr(store, name) is getattr(module, name), name
    assert sorted(store.__all__) == sorted(n for names in homes.values() for n in names)


def test_a_short_file_of_another_kind_is_not_taken_for_a_new_store(tmp_path):
    from theorybench.errors import StoreError
    from theorybench.experiments.store import ResultsStore
    for text in (b"\n", b"key,line\n", b"x"):
        path = tmp_path / "runs.csv"
        path.write_bytes(text)
        for readonly in (True, False):
            with pytest.raises(StoreError, match="not an SQLite file"):
                ResultsStore(path, readonly=readonly)
        assert path.read_bytes() == text
