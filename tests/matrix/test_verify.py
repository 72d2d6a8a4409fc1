"""`verify` end to end on a tiny profile: predictions, both experiment lines, the report."""

import json
from dataclasses import replace

import pytest

from theorybench.experiments import profiles
from theorybench.experiments.store import ResultsStore
from theorybench.experiments.trainer import TrainingConfig
from theorybench.matrix.verify import load_predictions, verify
from theorybench.errors import StoreError


@pytest.fixture
def tiny_profile(monkeypatch):
    training = TrainingConfig(steps=30, batch_size=16, lr=3e-3, warmup=3, eval_every=10,
                              eval_count=32, target=0.99, final_eval_count=64)
    tiny = replace(profiles.PROFILES["smoke"], name="tiny", in_tasks=("any",), lg_tasks=("any",),
                   ns={"any": (4,)}, in_training=training, lg_training=training,
                   lg_encodings=("nope",), train_max_len=8, eval_bins=((1, 8), (9, 16)),
                   llm_tasks=())  # no llm runs here (tests/matrix/test_llm_matrix.py has them)
    monkeypatch.setitem(profiles.PROFILES, "tiny", tiny)
    return "tiny"


def test_verify_tiny_profile_end_to_end(tmp_path, tiny_profile):
    db, out = tmp_path / "runs.sqlite", tmp_path / "report"
    logs = []
    files = verify(profile=tiny_profile, out=out, db=db, max_n=6, progress=False,
                   log=logs.append, theories=["ac0", "sensitivity"], tasks=["any", "parity"])
    recs = ResultsStore(db).records()
    assert {r.line for r in recs} == {"in_distribution", "length_generalization"}
    assert all(r.status == "done" for r in recs)
    summary = json.loads((out / "summary.json").read_text())
    assert {p["theory"] for p in summary["predictions"]} == {"ac0", "sensitivity"}
    assert "any" in summary["empirical"]["in_distribution"]
    assert files["index.html"].exists() and "heatmap.png" in files
    # parity has predictions but no runs: the report says so
    assert any("parity" in m for m in summary["missing"])
    # a second verify resumes: nothing is trained again
    verify(profile=tiny_profile, out=out, db=db, max_n=6, progress=False, log=logs.append,
           theories=["ac0"], tasks=["any"])
    assert any("0 run(s) trained" in line for line in logs)
    assert len(ResultsStore(db).records()) == len(recs)
    saved = load_predictions(out / "predictions-evidence.json")
    assert {p["task"] for p in saved} == {"any"} and all("evidence" in p for p in saved)
    table = load_predictions(out / "predictions.json")  # the report's table reads back too
    assert {(p["theory"], p["task"]) for p in table} == {("ac0", "any")}


def test_verify_checks_its_arguments_before_any_work(tmp_path, tiny_profile):
    from theorybench.errors import ConfigError
    afile = tmp_path / "a-file"
    afile.write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        verify(profile=tiny_profile, out=afile, db=tmp_path / "db.sqlite", progress=False,
               log=lambda s: None)
    foreign = tmp_path / "foreign.sqlite"
    foreign.write_text("not a store")
    with pytest.raises(StoreError):
        verify(profile=tiny_profile, out=tmp_path / "o", db=foreign, progress=False,
               log=lambda s: None)
    assert foreign.read_text() == "not a store" and not (tmp_path / "o").exists()
    # a device would block SQLite, an empty --out used to run everything first
    for kw, match in ((dict(out=tmp_path / "o", db="/dev/zero"), "not a regular file"),
                      (dict(out="", db=tmp_path / "db.sqlite"), "--out is empty")):
        with pytest.raises(StoreError, match=match):
            verify(profile=tiny_profile, progress=False, log=lambda s: None, **kw)
    with pytest.raises(ConfigError, match="unknown profile"):
        verify(profile="smok", out=tmp_path / "o", db=tmp_path / "db.sqlite", progress=False,
               log=lambda s: None)


def test_load_predictions_rejects_bad_files(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("{not json")
    with pytest.raises(StoreError, match="not JSON"):
        load_predictions(bad)
    bad.write_text('{"a": 1}')
    with pytest.raises(StoreError, match="not a list of predictions"):
        load_predictions(bad)
    with pytest.raises(StoreError, match="does not exist"):
        load_predictions(tmp_path / "missing.json")
    # found by the long CLI fuzz run: a binary file and a device were tracebacks
    bad.write_bytes(b"[\xf8\x00\x01]")
    with pytest.raises(StoreError, match="not UTF-8 text"):
        load_predictions(bad)
    with pytest.raises(StoreError, match="not a regular file"):
        load_predictions("/dev/zero")


# ---- issue 31, cause 5: a hand-edited predictions file is checked field by field ----
GOOD = {"theory": "sensitivity", "task": "parity", "verdict": "hard", "basis": "lower-bound",
        "status": "verified", "status_label": "verified ≤ 8", "rule": "as-growth",
        "evidence": {"verified_up_to": 8}, "explanation": "grows with n", "tried": []}


@pytest.mark.parametrize("field, value, message", [
    ("verdict", "maybe", "verdict 'maybe' is not one of easy, hard, unknown"),
    ("verdict", "Easy", "write 'easy': values are lower case"),
    ("verdict", None, "verdict None is not one of"),
    ("status", "bogus", "status 'bogus' is not one of proven, verified"),
    ("basis", "guess", "basis 'guess' is not one of construction"),
    ("theory", 5, "theory 5 is not a name"),
    ("task", "", "task '' is not a name"),
    ("evidence", 3, "evidence is int, not an object"),
    ("explanation", ["x"], "explanation is list, not text"),
    ("tried", "none", "tried is str, not a list"),
    ("tried", [{"rule": "r", "basis": "none", "outcome": "fired"}, 1],
     "tried entry 1 is not an object with rule, basis and outcome"),
])
def test_edited_predictions_are_refused_naming_file_entry_and_field(tmp_path, field, value,
                                                                    message):
    path = tmp_path / "p.json"
    edited = dict(GOOD, task="majority")
    edited[field] = value
    path.write_text(json.dumps([GOOD, edited]))
    with pytest.raises(StoreError) as err:
        load_predictions(path)
    text = str(err.value)
    assert message in text and f"predictions file {path}" in text and "entry 1" in text


def test_predictions_in_every_written_spelling_are_read(tmp_path):
    path = tmp_path / "p.json"
    old = {k: v for k, v in GOOD.items() if k not in ("basis", "status", "tried", "rule")}
    entries = [GOOD, dict(GOOD, status="verified ≤ 12"), dict(GOOD, status="conjectured"), old,
               dict(GOOD, evidence=None)]
    path.write_text(json.dumps(entries))
    got = load_predictions(path)
    assert len(got) == 5 and got[3]["status"] == "none" and got[3]["basis"] == "none"
    path.write_text(json.dumps([GOOD, "hard"]))
    with pytest.raises(StoreError, match="entry 1: is str, not an object"):
        load_predictions(path)


def test_a_number_past_pythons_digit_limit_is_not_json(tmp_path):
    # json.loads raises a bare ValueError there, which escaped as a traceback
    path = tmp_path / "p.json"
    path.write_text("[" + "9" * 5000 + "]")
    with pytest.raises(StoreError, match=f"predictions file {path} is not JSON"):
        load_predictions(path)


def test_null_evidence_and_text_fields_still_give_a_report(tmp_path):
    # found by the file fuzz: evidence null was accepted, then a TypeError in explain_text
    from theorybench.matrix.report import build_report, write_report

    path = tmp_path / "p.json"
    path.write_text(json.dumps([dict(GOOD, evidence=None, status="cited", status_label="cited",
                                     tried=None, explanation=None, rule=None)]))
    preds = load_predictions(path)
    assert preds[0]["evidence"] == {} and preds[0]["tried"] == []
    files = write_report(tmp_path / "rep", build_report(preds, [], constructions=False))
    assert "sensitivity" in files["index.html"].read_text()
