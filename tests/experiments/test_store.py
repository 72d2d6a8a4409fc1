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
