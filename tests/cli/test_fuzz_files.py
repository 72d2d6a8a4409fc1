"""Fuzzed input files (issue 31, cause 5): damaged checkpoints, stores with missing tables,
columns or odd values, and predictions / sharpness files with edited enum values. Each file
is read the way a user's command reads it and must end in a result or in a one-line message
that names the file (exit 2, or a StoreError/ConfigError from the loader), never a
traceback, a hang or a changed store.

Like tests/cli/test_fuzz_cli.py: ``THEORYBENCH_FUZZ=N`` runs N cases per generator with no
time budget (default: as many as fit in about 5 seconds per generator, at least 12);
``THEORYBENCH_FUZZ_SEED`` picks another sample and ``THEORYBENCH_FUZZ_CAP`` the seconds one
case may take (default 30).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from theorybench.errors import ConfigError, StoreError

CAP_S = float(os.environ.get("THEORYBENCH_FUZZ_CAP", "30"))
BUDGET_S = 5.0
MIN_CASES = 12

#: JSON values that no field of these files takes in every position.
HOSTILE = [None, True, 0, -1, 1.5, 1e308, float("nan"), "", "x", "ü∆ 中", "9" * 400, [], [1],
           {}, {"a": 1}]


class _Cap(BaseException):
    """The time cap of one case (a BaseException: no handler in the code under test eats it)."""


def _alarm(signum, frame):
    raise _Cap()


def _fuzz(make_case, check, tmp_path: Path, salt: int) -> None:
    """Run cases from ``make_case(rng, folder)`` through ``check(case) -> problem or None``
    within the budget; fail with the problems found."""
    count = int(os.environ.get("THEORYBENCH_FUZZ", "0"))
    rng = random.Random(int(os.environ.get("THEORYBENCH_FUZZ_SEED", "20261205")) + salt)
    start, done, failures = time.time(), 0, []
    while True:
        if count and done >= count:
            break
        if not count and done >= MIN_CASES and time.time() - start > BUDGET_S:
            break
        folder = tmp_path / f"case{done}"
        folder.mkdir()
        case = make_case(rng, folder)
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, CAP_S)
        try:
            problem = check(case)
        except _Cap:
            problem = f"ran past {CAP_S:g} s"
        except Exception as exc:  # noqa: BLE001 - any escape is the failure looked for
            problem = f"traceback: {type(exc).__name__}: {exc}"[:300]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        if problem:
            failures.append((case["what"], problem))
        done += 1
    shown = "\n".join(f"{what}: {why}" for what, why in failures[:15])
    assert not failures, f"{len(failures)} of {done} fuzzed files failed:\n{shown}"


def _one_line_error(code: int, err: str, *paths: Path) -> str | None:
    """The problem with a command's end, or None: exit 0, or exit 2 with a message naming
    one of ``paths`` (the file given, or the file beside it that is wrong)."""
    if "Traceback" in err:
        return f"traceback: {err.strip()[-300:]}"
    if code == 2 and not any(str(p) in err for p in paths):
        return f"the message does not name {paths[0].name}: {err.strip()[-200:]}"
    if code not in (0, 2):
        return f"exit {code}: {err.strip()[-200:]}"
    return None


# ---- checkpoints -------------------------------------------------------------------------
def _checkpoint(folder: Path) -> Path:
    """A tiny untrained parity model at n = 5 saved as a sweep saves one."""
    import torch

    from theorybench.experiments.checkpoint import save_checkpoint
    from theorybench.experiments.data import TaskData
    from theorybench.experiments.model import ModelConfig, Transformer
    from theorybench.experiments.spec import RunSpec

    data = TaskData("parity", {}, [5])
    model = Transformer(ModelConfig(vocab_size=len(data.vocab), num_labels=len(data.label_vocab),
                                    layers=1, width=8, heads=1, max_positions=16),
                        torch.Generator().manual_seed(0))
    spec = RunSpec("in_distribution", "parity", n=5)
    return save_checkpoint(folder, "ck", model, {"spec": spec.to_dict(), "vocab": data.vocab,
                                                 "labels": data.label_vocab})


def _paths(tree, prefix=()):
    """Every (path of keys) to a value in a JSON tree, the root's children first."""
    out = []
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) \
        if isinstance(tree, list) else ()
    for k, v in items:
        out.append(prefix + (k,))
        out += _paths(v, prefix + (k,))
    return out


def _damage_checkpoint(rng: random.Random, folder: Path) -> dict:
    pt = _checkpoint(folder)
    side = pt.with_suffix(".json")
    kind = rng.choice(["truncate", "random", "flip", "sidecar_drop", "sidecar_value",
                       "sidecar_text", "sidecar_missing"])
    raw = pt.read_bytes()
    if kind == "truncate":
        cut = rng.randrange(len(raw))
        pt.write_bytes(raw[:cut])
        what = f"weights cut at {cut} of {len(raw)} bytes"
    elif kind == "random":
        size = rng.choice([0, 1, 64, 4096, len(raw)])
        pt.write_bytes(bytes(rng.randrange(256) for _ in range(size)))
        what = f"weights replaced by {size} random bytes"
    elif kind == "flip":
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        pt.write_bytes(bytes(data))
        what = "weights with flipped bytes"
    elif kind == "sidecar_text" and rng.random() < 0.3:
        # past Python's 4300-digit limit json.loads raises a bare ValueError
        side.write_text(side.read_text().replace('"width": 8', '"width": ' + "9" * 5000))
        what = "sidecar with a 5000-digit width"
    elif kind == "sidecar_text":
        text = side.read_text()
        cut = rng.randrange(len(text))
        side.write_bytes(text[:cut].encode() + rng.choice([b"", b"\xff\xfe", b"\x00"]))
        what = f"sidecar cut at {cut}"
    elif kind == "sidecar_missing":
        side.unlink()
        what = "sidecar missing"
    else:
        meta = json.loads(side.read_text())
        path = rng.choice(_paths(meta))
        parent = meta
        for k in path[:-1]:
            parent = parent[k]
        if kind == "sidecar_drop":
            del parent[path[-1]]
            what = f"sidecar without {'.'.join(map(str, path))}"
        else:
            value = rng.choice(HOSTILE)
            parent[path[-1]] = value
            what = f"sidecar {'.'.join(map(str, path))} = {value!r}"[:120]
        side.write_text(json.dumps(meta))
    task = rng.choice(["parity", "parity", "majority"])
    return {"what": f"{what} (loaded for {task})", "pt": pt, "task": task, "kind": kind}


def test_damaged_checkpoints_end_cleanly(cli_exit, tmp_path, monkeypatch, one_torch_thread):
    monkeypatch.chdir(tmp_path)

    def check(case):
        code, out, err = cli_exit("sharpness", case["task"], "--n", "5", "--trained", case["pt"],
                                  "--batch", "4", "--iters", "1", "--perturbations", "2")
        if code == 0 and case["task"] != "parity":
            return "a parity checkpoint was measured as another task"
        return _one_line_error(code, err, case["pt"], case["pt"].with_suffix(".json"))

    _fuzz(_damage_checkpoint, check, tmp_path, 1)


# ---- stores ------------------------------------------------------------------------------
def _store(folder: Path) -> Path:
    from theorybench.experiments.spec import RunSpec
    from theorybench.experiments.store import ResultsStore

    db = folder / "r.sqlite"
    specs = [RunSpec("in_distribution", "parity", n=n) for n in (4, 6)]
    with ResultsStore(db) as store:
        store.queue(specs)
        store.mark_running(specs[0].key)
        store.mark_done(specs[0].key, {"test_accuracy": 0.75, "curve": [[1, 0.5]]})
    return db


def _columns(con, table):
    return [r[1] for r in con.execute(f"PRAGMA table_info({table})")]


def _drop_column(con, table, column):
    """Any column, the primary key and indexed ones included (ALTER TABLE DROP COLUMN
    refuses those): the table is rebuilt without it."""
    keep = [c for c in _columns(con, table) if c != column]
    con.executescript(f"DROP INDEX IF EXISTS runs_line_status; "
                      f"CREATE TABLE tmp_{table} AS SELECT {', '.join(keep) or 'NULL AS x'} "
                      f"FROM {table}; DROP TABLE {table}; "
                      f"ALTER TABLE tmp_{table} RENAME TO {table};")


def _damage_store(rng: random.Random, folder: Path) -> dict:
    db = _store(folder)
    kind = rng.choice(["drop_table", "drop_column", "version", "app", "row", "truncate",
                       "random"])
    if kind in ("truncate", "random"):
        raw = db.read_bytes()
        for extra in ("-wal", "-shm"):
            Path(str(db) + extra).unlink(missing_ok=True)
        if kind == "truncate":
            cut = rng.randrange(len(raw))
            db.write_bytes(raw[:cut])
            what = f"store cut at {cut} of {len(raw)} bytes"
        else:
            db.write_bytes(bytes(rng.randrange(256) for _ in range(rng.choice([1, 100, 4096]))))
            what = "store replaced by random bytes"
        return {"what": what, "db": db, "kind": kind}
    con = sqlite3.connect(db)
    if kind == "drop_table":
        table = rng.choice(["runs", "meta", "samples"])
        con.execute(f"DROP TABLE {table}")
        what = f"no {table} table"
    elif kind == "drop_column":
        table = rng.choice(["runs", "runs", "samples", "meta"])
        column = rng.choice(_columns(con, table))
        _drop_column(con, table, column)
        what = f"no {table}.{column} column"
    elif kind == "version":
        value = rng.choice([None, 1, 2, 3, 2.0, 2.5, -1, "2", " 2", "2.0", "", "two", b"2",
                            "1", 10 ** 30])
        # a meta table without type affinity keeps numbers and blobs as they are
        con.executescript("CREATE TABLE m2 (name, value); INSERT INTO m2 SELECT * FROM meta; "
                          "DROP TABLE meta; ALTER TABLE m2 RENAME TO meta;")
        con.execute("UPDATE meta SET value=? WHERE name='schema_version'",
                    (str(value) if isinstance(value, int) and value > 2 ** 62 else value,))
        what = f"schema_version {value!r}"
    elif kind == "app":
        value = rng.choice([None, "", "theorybench", "theorybench-results ", 2])
        con.executescript("CREATE TABLE m2 (name, value); INSERT INTO m2 SELECT * FROM meta; "
                          "DROP TABLE meta; ALTER TABLE m2 RENAME TO meta;")
        con.execute("UPDATE meta SET value=? WHERE name='app'", (value,))
        what = f"app {value!r}"
    else:
        # a rebuilt runs table has no CHECK or NOT NULL left: any value can be written
        _drop_column(con, "runs", "no such column")
        column = rng.choice(["line", "spec", "status", "metrics", "error", "attempts",
                             "updated", "worker", "key"])
        value = rng.choice([None, 1, -1.5, "", "bogus", "done", "{}", "[1]", '{"task": 1}',
                            '{"test_accuracy": 2}', b"\xff"])
        con.execute(f"UPDATE runs SET {column}=?", (value,))
        what = f"runs.{column} = {value!r}"
    con.commit()
    con.close()
    return {"what": what, "db": db, "kind": kind}


def test_damaged_stores_end_cleanly(cli_exit, tmp_path, monkeypatch):
    from theorybench.experiments.store import ResultsStore

    monkeypatch.chdir(tmp_path)

    def check(case):
        db = case["db"]
        for argv in (["runs", "--db", db], ["export", "--db", db, "--format", "json"],
                     ["export", "--db", db, "--format", "csv"]):
            code, out, err = cli_exit(*argv)
            if (problem := _one_line_error(code, err, db)):
                return f"{argv[0]}: {problem}"
        before = db.read_bytes()
        try:  # what a sweep does first: open for writing
            ResultsStore(db).close()
        except StoreError as exc:
            if db.read_bytes() != before:
                return f"refused ({exc}) but the file was changed"
            if str(db) not in str(exc):
                return f"the message does not name the store: {exc}"
        return None

    _fuzz(_damage_store, check, tmp_path, 2)


# ---- predictions and sharpness files --------------------------------------------------------
PREDICTION = {"theory": "sensitivity", "task": "parity", "verdict": "hard",
              "basis": "lower-bound", "status": "verified", "status_label": "verified ≤ 8",
              "rule": "as-growth", "evidence": {"verified_up_to": 8}, "explanation": "grows",
              "tried": []}
SHARPNESS = {"task": "parity", "params": {}, "n": 5, "state": "init", "loss": 0.7,
             "accuracy": 0.5, "lambda_max": 2.0, "lambda_converged": True,
             "avg_sharpness": 1.0, "avg_sharpness_se": 0.1}


def _enum_values(rng: random.Random) -> object:
    """A value for an enum field: a right one, one in the wrong case or with blanks, a
    status as printed, or something else."""
    from theorybench.theories.base import Basis, Status, Verdict

    right = [e.value for enum in (Verdict, Basis, Status) for e in enum] + ["init", "trained"]
    word = rng.choice(right)
    return rng.choice([word, word.upper(), word.title(), f" {word}", f"{word}\n",
                       f"verified ≤ {rng.choice([1, 12, -3, 'x'])}", "conjectured", "maybe",
                       "bogus", rng.choice(HOSTILE)])


def _edited_predictions(rng: random.Random, folder: Path) -> dict:
    entries = [dict(PREDICTION), dict(PREDICTION, task="majority", verdict="easy")]
    changes = []
    for _ in range(rng.randint(1, 3)):
        entry = rng.choice(entries)
        field = rng.choice(["verdict", "verdict", "status", "status", "basis", "theory",
                            "task", "evidence", "status_label", "tried", "rule"])
        if rng.random() < 0.15:
            entry.pop(field, None)
            changes.append(f"no {field}")
        else:
            entry[field] = _enum_values(rng) if rng.random() < 0.8 else rng.choice(HOSTILE)
            changes.append(f"{field}={entry[field]!r}"[:60])
    preds = folder / "predictions.json"
    text = json.dumps(entries)
    if rng.random() < 0.1:  # past Python's 4300-digit limit json.loads raises a ValueError
        text = text.replace('"tried": []', '"tried": ' + "9" * 5000, 1)
        changes.append("a 5000-digit number")
    preds.write_text(text)
    sharp = None
    if rng.random() < 0.5:
        result = dict(SHARPNESS)
        field = rng.choice(["state", "state", "task", "n", "lambda_max", "avg_sharpness_se",
                            "params", "accuracy"])
        result[field] = _enum_values(rng) if field == "state" else rng.choice(HOSTILE)
        changes.append(f"sharpness {field}={result[field]!r}"[:60])
        sharp = folder / "sharpness.json"
        sharp.write_text(json.dumps({"results": [result, SHARPNESS]}))
    return {"what": "; ".join(changes), "preds": preds, "sharp": sharp, "out": folder / "rep"}


def test_edited_predictions_and_sharpness_files_end_cleanly(tmp_path):
    from theorybench.matrix.report import build_report, load_sharpness, write_report
    from theorybench.matrix.verify import load_predictions

    def check(case):
        try:
            preds = load_predictions(case["preds"])
        except StoreError as exc:
            return None if str(case["preds"]) in str(exc) else f"unnamed file: {exc}"
        sharp = []
        if case["sharp"] is not None:
            try:
                sharp = load_sharpness([case["sharp"]])
            except ConfigError as exc:
                return None if str(case["sharp"]) in str(exc) else f"unnamed file: {exc}"
        # accepted: the report must be written from it (what `report` does next)
        files = write_report(case["out"], build_report(preds, [], constructions=False,
                                                       sharpness=sharp))
        return None if files["index.html"].is_file() else "no index.html"

    _fuzz(_edited_predictions, check, tmp_path, 3)


def test_generators_reach_every_kind_of_damage(tmp_path):
    rng = random.Random(0)
    seen_ck, seen_store = set(), set()
    for i in range(30):
        (tmp_path / f"c{i}").mkdir()
        seen_ck.add(_damage_checkpoint(rng, tmp_path / f"c{i}")["kind"])
        (tmp_path / f"s{i}").mkdir()
        seen_store.add(_damage_store(rng, tmp_path / f"s{i}")["kind"])
    assert seen_ck == {"truncate", "random", "flip", "sidecar_drop", "sidecar_value",
                       "sidecar_text", "sidecar_missing"}
    assert seen_store == {"drop_table", "drop_column", "version", "app", "row", "truncate",
                          "random"}


@pytest.mark.parametrize("value", ["Easy", "maybe", "HARD", " easy", "bogus"])
def test_predictions_enum_values_are_refused_by_name(tmp_path, value):
    from theorybench.matrix.verify import load_predictions

    path = tmp_path / "p.json"
    path.write_text(json.dumps([dict(PREDICTION, verdict=value)]))
    with pytest.raises(StoreError, match=f"verdict {value!r} is not one of easy, hard, unknown"):
        load_predictions(path)
