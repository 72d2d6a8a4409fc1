"""The leaderboard's figures recomputed by hand on a small store, the references and their
digests, and `theorybench score` on a user's theory file."""

import json
import math
import shutil
import textwrap

import pytest

from theorybench.errors import StoreError
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import ResultsStore
from theorybench.matrix import reference as R
from theorybench.matrix import score as S

PREDS = [
    # T: right on any (easy) and parity (hard), wrong on majority, unknown on index
    {"theory": "T", "task": "any", "verdict": "easy", "status": "cited"},
    {"theory": "T", "task": "parity", "verdict": "hard", "status": "cited"},
    {"theory": "T", "task": "majority", "verdict": "hard", "status": "cited"},
    {"theory": "T", "task": "index", "verdict": "unknown", "status": "none"},
    # U: per-encoding: any generalizes with nope only
    {"theory": "U", "task": "any", "verdict": "easy", "status": "cited",
     "lines": {"length_generalization:rope": {"verdict": "hard", "status": "cited"}}},
    {"theory": "U", "task": "parity", "verdict": "easy", "status": "cited"},
    {"theory": "U", "task": "majority", "verdict": "easy", "status": "cited"},
    {"theory": "U", "task": "index", "verdict": "easy", "status": "cited"},
]


def _store(path):
    store = ResultsStore(path)
    acc = {("any", 8): 1.0, ("parity", 8): 0.51, ("majority", 9): 1.0, ("index", 8): 1.0}
    runs = [RunSpec("in_distribution", t, n=n, seed=0) for t, n in acc]
    bins = ((1, 16), (17, 32))
    lgs = {("any", "nope"): {"<=16": 1.0, "17-32": 0.97},
           ("any", "rope"): {"<=16": 1.0, "17-32": 0.40},
           ("parity", "nope"): {"<=16": 1.0, "17-32": 0.5}}
    lg_specs = [RunSpec("length_generalization", t, train_max_len=16, eval_bins=bins,
                        encoding=e) for t, e in lgs]
    store.queue(runs + lg_specs)
    for spec, a in zip(runs, acc.values()):
        store.mark_done(spec.key, {"test_accuracy": a, "loss_drop": 0.0,
                                   "stop_reason": "plateau"})
    for spec, b in zip(lg_specs, lgs.values()):
        store.mark_done(spec.key, {"bins": b})
    store.close()


def _wilson(k, n, z=1.959963984540054):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def test_leaderboard_figures_by_hand(tmp_path):
    db = tmp_path / "runs.sqlite"
    _store(db)
    ref = R.from_store(db, ResultsStore(db).records())
    ind = {t: c.verdict for t, c in ref.cells["in_distribution"].items()}
    assert ind == {"any": "easy", "parity": "hard", "majority": "easy", "index": "easy"}
    assert ref.cells["length_generalization:nope"]["any"].verdict == "easy"
    assert ref.cells["length_generalization:rope"]["any"].verdict == "hard"
    assert ref.cells["length_generalization"]["any"].verdict == "easy"   # best config
    board = {(e.predictor, e.line): e for e in S.leaderboard(PREDS, ref)}
    t = board[("T", "in_distribution")]
    # compared: any, parity, majority (index Unknown); right on 2 of 3
    assert (t.compared, t.agree, t.unknown, t.decided_tasks) == (3, 2, 1, 4)
    assert t.accuracy == pytest.approx(2 / 3)
    assert t.interval == pytest.approx(_wilson(2, 3))
    # observed easy: any (right), majority (wrong) -> 1/2; observed hard: parity -> 1/1
    assert t.balanced_accuracy == pytest.approx((1 / 2 + 1) / 2)
    assert t.precision_easy == 1.0 and t.precision_hard == pytest.approx(1 / 2)
    assert t.majority_baseline == pytest.approx(2 / 3)   # easy is the majority of the 3
    u = board[("U", "in_distribution")]
    assert (u.compared, u.agree) == (4, 3) and u.precision_hard is None
    # U's own rope entry against the rope line, its cell verdict elsewhere
    assert (board[("U", "length_generalization:rope")].agree,
            board[("U", "length_generalization:rope")].compared) == (1, 1)
    assert board[("U", "length_generalization:nope")].agree == 1     # any easy; parity wrong
    assert board[("U", "length_generalization:nope")].compared == 2
    easy = board[("always Easy", "in_distribution")]
    assert (easy.compared, easy.agree, easy.balanced_accuracy) == (4, 3, 0.5)
    maj = board[("majority class", "in_distribution")]
    assert maj.agree == 3
    # the theories come first on each line, best first, the baselines after them
    order = [e.predictor for e in S.leaderboard(PREDS, ref) if e.line == "in_distribution"]
    assert order == ["U", "T", "always Easy", "always Hard", "majority class"]


def test_formats_carry_the_figures(tmp_path):
    db = tmp_path / "runs.sqlite"
    _store(db)
    ref = R.from_store(db, ResultsStore(db).records())
    scored = S.Scored(S.leaderboard(PREDS, ref, {"U": "x.py"}), ref, ["T", "U"], {"T": "builtin", "U": "x.py"},
                      PREDS, {"T": "computed", "U": "computed"}, [])
    md = S.markdown(scored)
    assert "| T | 3/4 | 67% [21, 94] |" in md and "## length_generalization:rope" in md
    assert "U (x.py)" in md and "_always Hard_" in md
    rows = S.to_csv(scored).splitlines()
    assert rows[0].startswith("line,predictor,kind") and len(rows) == 1 + len(scored.entries)
    js = S.to_json(scored)
    assert js["reference"]["digest"] == ref.digest and len(js["entries"]) == len(scored.entries)


def test_shipped_references_load_with_their_digest(tmp_path):
    assert {"quick", "huang2025"} <= set(R.shipped())
    quick = R.load("quick")
    assert quick.digest == R.cells_digest(quick.cells)
    assert {"in_distribution", "length_generalization", "length_generalization:nope"} <= \
        set(quick.cells)
    assert all(s.get("commit") for s in quick.sources)
    huang = R.load("huang2025")
    assert huang.cells["length_generalization:nope"]["parity"].verdict == "hard"
    # a hand edit is refused, naming the file
    data = json.loads((R.REFERENCE_DIR / "quick.json").read_text())
    line = next(iter(data["cells"]))
    task = next(iter(data["cells"][line]))
    flipped = "hard" if data["cells"][line][task]["verdict"] == "easy" else "easy"
    data["cells"][line][task]["verdict"] = flipped
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(StoreError, match=r"edited.json is damaged: its cells' SHA-256"):
        R.load(str(bad))
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(StoreError, match="cannot be read"):
        R.load(str(tmp_path / "junk.json"))


def test_the_shipped_snapshot_is_current():
    """The shipped theories' predictions on the quick reference are cached per code digest;
    after changing a theory, refresh it: `theorybench score --refresh-snapshot` (and with
    --reference huang2025)."""
    for name in ("quick", "huang2025"):
        ref = R.load(name)
        assert ref.snapshot is not None, f"{name} has no prediction snapshot"
        assert ref.snapshot["code_digest"] == R.code_digest(), (
            f"the {name} snapshot is stale: run `theorybench score --reference {name} "
            "--refresh-snapshot`")
        assert ref.snapshot["reference_digest"] == ref.digest


MINE = '''\
NAME = "parity_is_hard"

def predict(task):
    inst = task.build(n=task.variant().valid_ns(4, 8)[0])
    x = inst.enumerate()
    y = inst.label(x)
    if y.ndim > 1:
        return "unknown", "a sequence output"
    flips = (inst.label(x ^ 1) != y).mean() if len(inst.vocab) == 2 else 0.0
    return ("hard", "flipping every bit changes the label") if flips == 1 else ("easy", "")
'''


def test_score_cli_against_a_store(tmp_path, cli):
    db = tmp_path / "runs.sqlite"
    _store(db)
    code, out, err = cli("score", "tc0", "--db", db, "--format", "json", "--max-n", "8",
                         "--save-reference", tmp_path / "mine-ref.json")
    assert code == 0, err
    got = json.loads(out)
    assert {e["predictor"] for e in got["entries"]} == {"tc0", "always Easy", "always Hard",
                                                        "majority class"}
    assert got["reference"]["sources"][0]["store_sha256"] == R.file_sha256(db)
    assert R.load(str(tmp_path / "mine-ref.json")).digest == got["reference"]["digest"]
    code, _, err = cli("score", "--db", tmp_path / "none.sqlite")
    assert code == 2 and "does not exist" in err
    code, _, err = cli("score", "--save-reference", tmp_path / "x.json")
    assert code == 2 and "--save-reference needs --db" in err
    code, _, err = cli("score", "--reference", "nonesuch")
    assert code == 2 and "unknown reference 'nonesuch'" in err


def test_score_cli_a_user_file_against_the_shipped_reference(tmp_path, cli, monkeypatch):
    """The issue's scenario: the shipped theories from the snapshot, the file computed now."""
    from theorybench.theories import registry, user
    monkeypatch.setenv(user.ENV, "")
    mine = tmp_path / "mine.py"
    mine.write_text(MINE)
    with registry.THEORY_REGISTRY.scoped():
        code, out, err = cli("score", mine, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    names = {e["predictor"] for e in got["entries"]}
    shipped = set(registry.shipped_theories())
    assert shipped | {"parity_is_hard", "majority class", "always Easy"} <= names
    assert got["origins"]["parity_is_hard"] == str(mine.resolve())
    assert got["provenance"]["parity_is_hard"] == "computed"
    e = next(x for x in got["entries"] if x["predictor"] == "parity_is_hard"
             and x["line"] == "in_distribution")
    assert e["compared"] >= 10 and e["interval"] is not None


def test_the_code_digest_ignores_prose_not_code(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('"""One doc."""\n# a comment\ndef g(x):\n    """Doc."""\n    return x + 1\n')
    a = R._code_bytes(f)
    f.write_text('"""Another doc."""\ndef g(x):\n    return x + 1  # other\n')
    assert R._code_bytes(f) == a
    f.write_text('"""Another doc."""\ndef g(x):\n    return x + 2\n')
    assert R._code_bytes(f) != a
