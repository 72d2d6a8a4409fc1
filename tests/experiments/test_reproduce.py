"""Reproductions: the shipped language files against independent definitions, the plan
(every published row run or listed with its reason), the reading of a table, and the
command end to end on a language file of one's own."""

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ConfigError
from theorybench.cli.main import main
from theorybench.experiments import reproduce as rep
from theorybench.experiments.data import sizes_in_range
from theorybench.experiments.protocols import get_protocol
from theorybench.experiments.published import (AUTHORS_DATA, AUTHORS_LENGTHS, LANGUAGE,
                                               PAPERS, authors_windows, language_file,
                                               published_rows)
from theorybench.matrix import reproduction


def _blocks(w):
    return [(k, len(list(g))) for k, g in itertools.groupby(w)]


def _tomita3(w):
    # no maximal block of 1s of odd length directly followed by a block of 0s of odd length
    b = _blocks(w)
    return not any(s == "1" and m % 2 and t == "0" and k % 2
                   for (s, m), (t, k) in zip(b, b[1:]))


def _d(n):
    # D_n by its recursive definition, as a recognizer: D_0 = {""}, D_n = (a D_{n-1} b)*
    def member(w, level):
        if level == 0:
            return w == ""
        if w == "":
            return True
        depth = 0
        for i, c in enumerate(w):
            depth += 1 if c == "a" else -1
            if depth < 0:
                return False
            if depth == 0:
                return member(w[1:i], level - 1) and member(w[i + 1:], level)
        return False
    return lambda w: member(w, n)


def _counted(w, letters):
    k = len(w) // len(letters)
    return k > 0 and w == "".join(c * k for c in letters)


def _balanced(w, pair):
    depth = 0
    for c in w:
        depth += (c == pair[0]) - (c == pair[1])
        if depth < 0:
            return False
    return depth == 0


def _expression_end(w, i):
    # where the prefix-notation expression starting at i ends (None: it does not)
    if i >= len(w):
        return None
    arity = {"0": 0, "1": 0, "~": 1, "+": 2, ">": 3}[w[i]]
    j = i + 1
    for _ in range(arity):
        j = _expression_end(w, j)
        if j is None:
            return None
    return j


# independent definitions (Python, no automata code) of every shipped language
ORACLES = {
    "tomita1": lambda w: set(w) <= {"1"},
    "tomita2": lambda w: w == "10" * (len(w) // 2),
    "tomita3": _tomita3,
    "tomita4": lambda w: "000" not in w,
    "tomita5": lambda w: w.count("0") % 2 == 0 and w.count("1") % 2 == 0,
    "tomita6": lambda w: (w.count("0") - w.count("1")) % 3 == 0,
    "tomita7": lambda w: len(_blocks(w)) <= 4 and (not w or len(_blocks(w)) < 4
                                                  or w[0] == "0"),
    "aa_star": lambda w: set(w) <= {"a"} and len(w) % 2 == 0,
    "aaaa_star": lambda w: set(w) <= {"a"} and len(w) % 4 == 0,
    "abab_star": lambda w: w == "abab" * (len(w) // 4),
    "d2": _d(2), "d3": _d(3), "d4": _d(4), "d12": _d(12),
    "a_b_c_d_e_star": lambda w: list(w) == sorted(w),
    "ab_d_bc": lambda w: w.count("d") >= 1 and set(w[:w.rfind("d")]) <= {"a", "b"}
    and set(w[w.rfind("d") + 1:]) <= {"b", "c"} and "d" not in w[:w.rfind("d")],
    "zot_z_t": lambda w: "0" in w and set(w[w.rfind("0") + 1:]) <= {"2"},
    "anbn": lambda w: _counted(w, "ab"), "anbncn": lambda w: _counted(w, "abc"),
    "anbncndn": lambda w: _counted(w, "abcd"),
    "shuffle2": lambda w: _balanced(w, "()") and _balanced(w, "[]"),
    "bool3": lambda w: _expression_end(w, 0) == len(w),
}


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_shipped_language_equals_its_definition(name):
    family = tasks.registry.load_task_file(language_file(name), export=False)
    alphabet = family.ALPHABET if hasattr(family, "ALPHABET") else None
    task = tasks.get(family.name, n=2)
    letters = [t for i, t in enumerate(task.vocab) if i != task.pad_id]
    # every word up to length 10, or up to the length where there are 2^16 of them
    for n in (m for m in range(1, 11) if len(letters) ** m <= 2 ** 16):
        words = np.array(list(itertools.product(range(len(letters)), repeat=n)))
        labels = tasks.get(family.name, n=n).label(words)
        want = [int(ORACLES[name]("".join(letters[i] for i in w))) for w in words]
        assert list(np.asarray(labels).astype(int)) == want, (name, n, alphabet)


def test_every_shipped_language_has_an_oracle_here():
    shipped = {p.stem for p in language_file("d2").parent.glob("*.py")}
    assert shipped == set(ORACLES)


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_plan_runs_or_explains_every_row(paper):
    rows = published_rows(paper)
    planned = rep.plan(paper, "quick")
    assert [p.row for p in planned] == rows          # none dropped, in order
    for p in planned:
        assert bool(p.specs) != bool(p.skipped), p.row.row_id
        if p.specs:
            proto = get_protocol(paper)
            assert [s.seed for s in p.specs] == list(proto.seeds[:2])
            assert all(s.encoding == p.row.encoding for s in p.specs)
            assert all(s.objective == ("next_symbol" if p.row.kind == LANGUAGE
                                       else "membership") for s in p.specs)
            assert all(tuple(s.eval_bins) == proto.eval_bins for s in p.specs)
            for s in p.specs:  # the spec names a task the trainer can build at every length
                assert sizes_in_range(s.task, s.param_dict, 1, s.train_max_len), p.row.row_id
    keys = Counter(s.key for p in planned for s in p.specs)
    assert max(keys.values()) == 1


def test_huang_plan_runs_dyck_and_parity_under_both_encodings():
    planned = {p.row.row_id: p for p in rep.plan("huang2025", "quick")}
    for row in ("dyck1 / learned_offsets", "dyck1 / nope", "parity / learned_offsets",
                "parity / nope"):
        assert planned[row].specs, row
    # the recorded architecture is kept under the paper budget, noted when replaced
    paper = {p.row.row_id: p for p in rep.plan("huang2025", "paper")}
    assert paper["parity / nope"].size == "4l2h256w" and paper["parity / nope"].lr == 1e-4
    assert planned["parity / nope"].size != "4l2h256w" and planned["parity / nope"].notes
    dyck = planned["dyck1 / nope"].specs[0]
    assert (dyck.task, dyck.param_dict) == ("dyck", {"k": 1})


def _runs(bins_per_seed, train):
    return [{"seed": i, "status": "done", "error": None,
             "metrics": {"bins": dict(zip(("<=50", "51-100", "101-150"), b)),
                         "train_accuracy": t, "steps": 100, "stop_reason": "target",
                         "wall_s": 1.0}}
            for i, (b, t) in enumerate(zip(bins_per_seed, train))]


def test_reading_uses_fitted_seeds_only_and_the_same_rule_for_the_paper():
    proto = get_protocol("huang2025")
    planned = {p.row.row_id: p for p in rep.plan("huang2025", "smoke")}
    parity = planned["parity / learned_offsets"]      # published 100 / 83.0 / 62.1
    # an unfitted seed that "generalizes" is left out; the fitted one is read
    row = reproduction.summarize(parity, _runs([(1, 0.95, 0.95), (0.9, 0.5, 0.5)],
                                               [1.0, 0.93])[::-1][::-1], proto)
    assert row["published_reading"] == "does not generalize"
    assert row["ours"]["fitted"] == 1 and row["ours"]["mean"] == [1, 0.95, 0.95]
    assert row["reading"] == "generalizes" and row["agrees"] is False
    row = reproduction.summarize(parity, _runs([(1, 1, 1)], [0.9]), proto)
    assert row["reading"] == "does not generalize" and "no seed fitted" in row["basis"]
    assert row["agrees"] and row["by_rule"]   # agrees, but measured nothing: marked
    table = reproduction.build("huang2025", proto, "smoke", [parity], [_runs([(1, 1, 1)],
                                                                              [0.9])])
    assert (table["agree"], table["compared_measured"]) == (1, 0)
    assert "*by rule*" in reproduction.markdown(table)
    lo, hi = row["ours"]["mean_all_seeds"][0], 1
    assert lo == hi
    # the Wilson interval covers the mean and is inside [0, 1]
    row = reproduction.summarize(parity, _runs([(1, 0.8, 0.6), (1, 0.9, 0.7)], [1, 1]), proto)
    (a, b) = row["ours"]["wilson95"][2]
    assert 0 <= a < 0.65 < b <= 1 and row["ours"]["seed_range"][2] == [0.6, 0.7]
    skipped = next(p for p in planned.values() if p.skipped)
    assert reproduction.summarize(skipped, [], proto)["status"] == "not run"


def test_a_disagreement_is_explained_with_each_fitted_seed():
    proto = get_protocol("huang2025")
    dyck = {p.row.row_id: p for p in rep.plan("huang2025", "smoke")}["dyck1 / nope"]
    runs = _runs([(1, 1, 1), (1, 0.6, 0.0), (1, 1, 1)], [1.0, 1.0, 0.9])
    row = reproduction.summarize(dyck, runs, proto)
    assert row["published_reading"] == "generalizes" and row["agrees"] is False
    text = reproduction.explain(row)
    # the unfitted seed 2 is not among the fitted ones; the split is named with figures
    assert "1 of 2 generalize" in text and "seed 1: 100.0 / 60.0 / 0.0" in text
    assert "seed 2" not in text
    md = reproduction.markdown(reproduction.build("huang2025", proto, "smoke", [dyck], [runs]))
    assert "## Disagreements" in md and "1 of 2 generalize" in md


def test_the_grid_plans_every_point_once_and_reads_the_best_fitted_one():
    proto = get_protocol("huang2025")
    planned = rep.plan("huang2025", "smoke", rows=["dyck1/nope", "parity"], grid=True)
    points = [p for p in planned if p.grid]
    # the authors' sweep: 3 layers x 2 widths x 3 head counts, one run each; an
    # algorithmic row (parity) has no grid and stays one row
    assert len(points) == 18 and len({p.size for p in points}) == 18
    assert all(len(p.specs) == 1 and p.specs[0].size == p.size for p in points)
    assert [p.row.row_id for p in planned if p.specs and not p.grid] == \
        ["parity / learned_offsets", "parity / nope"]
    runs = []
    for i, p in enumerate(points):
        if i == 3:      # generalizes
            runs.append(_runs([(1, 1, 0.97)], [1.0]))
        elif i == 5:    # the best beyond the training lengths, but never fitted: not read
            runs.append(_runs([(0.9, 1, 1)], [0.9]))
        else:
            runs.append(_runs([(1, 0.7, 0.2)], [1.0]))
    others = [p for p in planned if not p.grid]
    table = reproduction.build("huang2025", proto, "smoke", points + others,
                               runs + [[] for _ in others])
    row = next(r for r in table["rows"] if r.get("grid"))
    assert row["architecture"] == f"best of 18: {points[3].size}"
    assert row["reading"] == "generalizes" and row["agrees"] is True   # published 100/100/100
    assert (row["grid"]["fitted"], row["grid"]["generalize"]) == (17, 1)
    assert sum(1 for r in table["rows"] if r.get("grid")) == 1     # one row of the table
    md = reproduction.markdown(table)
    assert "## The architecture grid" in md and "17 of 18 points fitted" in md
    # no point fitted: read by the rule, and said so
    table = reproduction.build("huang2025", proto, "smoke", points,
                               [_runs([(0.5, 0.5, 0.5)], [0.5]) for _ in points])
    row = table["rows"][0]
    assert row["reading"] == "does not generalize" and row["by_rule"]
    assert row["architecture"] == "grid of 18: none fitted"


def test_reproduce_a_language_file_of_ones_own(tmp_path, capsys):
    path = tmp_path / "ab_or_ba.py"
    path.write_text('NAME = "ab_or_ba_lg"\nALPHABET = ("a", "b")\nLENGTHS = (1, 200)\n'
                    'REGEX = "(ab|ba)*"\n')
    out, db = tmp_path / "out", tmp_path / "r.sqlite"
    args = ["reproduce", "--task", str(path), "--protocol", "huang2025", "--budget", "smoke",
            "--out", str(out), "--db", str(db), "--executor", "inprocess"]
    assert main(args) == 0
    table = json.loads((out / "huang2025-ab_or_ba-smoke.json").read_text())
    assert [r["encoding"] for r in table["rows"]] == ["learned_offsets", "nope"]
    assert all(r["status"] == "run" and r["ours"]["finished"] == 1 for r in table["rows"])
    assert table["compared"] == 0            # no published figure for one's own language
    md = (out / "huang2025-ab_or_ba-smoke.md").read_text()
    assert "ab_or_ba.py" in md
    # a second call trains nothing again: the store has every run; the table is rendered
    # again and keeps the timing of the call that trained
    capsys.readouterr()
    assert main(args) == 0
    assert "0 to run" in capsys.readouterr().err
    again = json.loads((out / "huang2025-ab_or_ba-smoke.json").read_text())
    assert again["wall_s"] == table["wall_s"] and again["rendered_again"] is True
    assert "rendered again" in (out / "huang2025-ab_or_ba-smoke.md").read_text()
    # --out over the store it reads is refused before any work
    assert main(args[:-4] + ["--db", str(db), "--out", str(db)]) == 2


def test_reproduce_refuses_bad_arguments(capsys):
    assert main(["reproduce"]) == 2
    assert "name a paper" in capsys.readouterr().err
    assert main(["reproduce", "huang2025", "--protocol", "huang2025"]) == 2
    assert "--protocol goes with --task" in capsys.readouterr().err


def test_rows_and_train_through_select_and_retrain_without_touching_the_full_table(
        tmp_path, capsys):
    planned = rep.plan("huang2025", "quick", rows=["dyck1", "d-3/nope"], train_through=True)
    run = {p.row.row_id for p in planned if p.specs}
    assert run == {"dyck1 / learned_offsets", "dyck1 / nope", "d-3 / nope"}
    assert all(p.skipped for p in planned if not p.specs)
    assert sum("not selected by --rows" in (p.skipped or "") for p in planned) > 40
    for p in planned:
        for s in p.specs:   # no early stop: one check, at the last step
            assert s.training.eval_every == s.training.steps == rep.BUDGETS["quick"].steps
        assert not p.specs or any("trained through" in n for n in p.notes)
    usual = {p.row.row_id: p.specs for p in rep.plan("huang2025", "quick")}
    # a trained-through run is another run in the store, not the early-stopped one
    assert all(s.key != u.key for p in planned for s, u in zip(p.specs, usual[p.row.row_id]))
    with pytest.raises(Exception, match="no row named 'dyck2'.*dyck1"):
        rep.plan("huang2025", "quick", rows=["dyck2"])
    # the command: its own file names, so the paper's full table is never replaced
    out = tmp_path / "out"
    args = ["reproduce", "huang2025", "--rows", "tomita1/nope", "--train-through",
            "--budget", "smoke", "--out", str(out), "--db", str(tmp_path / "r.sqlite"),
            "--executor", "inprocess"]
    assert main(args) == 0
    assert sorted(f.name for f in out.iterdir()) == ["huang2025-rows-through-smoke.json",
                                                     "huang2025-rows-through-smoke.md"]
    table = json.loads((out / "huang2025-rows-through-smoke.json").read_text())
    assert [(r["task"], r["encoding"]) for r in table["rows"] if r["status"] == "run"] \
        == [("tomita1", "nope")]
    assert any("trained through" in n for r in table["rows"] for n in r["notes"])
    capsys.readouterr()
    assert main(["reproduce", "huang2025", "--rows", " , ", "--dry-run"]) == 2
    assert "--rows is empty" in capsys.readouterr().err


def test_language_budget_notes_follow_each_authors_dataset_config():
    # the authors' configs draw 200 strings for D-2 but 10,000 for D-3 (100 epochs at
    # batch 16 either way): one shared "about 200 strings" note was wrong for most rows
    rows = {r.name: r for r in published_rows("huang2025") if r.encoding == "nope"}
    assert "over 200 strings" in rows["d-2"].budget and "1,300 steps" in rows["d-2"].budget
    assert "over 10,000 strings" in rows["d-3"].budget and "62,500 steps" in rows["d-3"].budget
    # D-3's config says 2-50 but the data committed beside it reaches 100; D-4's agree
    assert "config was changed" in rows["d-3"].budget
    assert "config was changed" not in rows["d-4"].budget
    assert "no configuration" in rows["dyck1"].budget


def test_language_rows_say_at_which_lengths_the_authors_data_trains_and_tests():
    rows = {r.name: r for r in published_rows("huang2025") if r.encoding == "nope"}
    assert set(AUTHORS_DATA) == set(AUTHORS_LENGTHS) <= set(rows)
    for name, (_, (count, distinct), (lo, hi), bins) in AUTHORS_DATA.items():
        assert 1 <= lo <= hi and distinct <= count and len(bins) == 3
        train_hi, eval_bins = authors_windows("huang2025", name)
        # the run trains through the authors' longest training string, no further
        assert hi <= train_hi < hi + 5
        # its last bin ends at the window the authors' last file was drawn from, which
        # that file's longest string reaches or nearly (10 strings of (aa)* end at 194)
        assert 0 <= eval_bins[-1][1] - max(b for _, b in bins[1:]) <= 10
        assert eval_bins[0] == (1, train_hi)
        note = [n for n in rows[name].notes if "committed data" in n]
        assert note and f"lengths {lo}-{hi}" in note[0]
    # a language without committed data says so instead of inventing lengths
    assert any("no committed data" in n for n in rows["dyck1"].notes)
    assert authors_windows("huang2025", "dyck1") is None
    assert authors_windows("huang2025", "parity") is None
    assert authors_windows("bhattamishra2020", "tomita1") is None


def test_authors_windows_train_and_test_each_language_at_its_data_lengths(capsys):
    base = {p.row.row_id: p for p in rep.plan("huang2025", "quick", rows=["d-3", "dyck1",
                                                                            "parity"])}
    theirs = {p.row.row_id: p for p in rep.plan("huang2025", "quick",
                                                 rows=["d-3", "dyck1", "parity"],
                                                 windows="authors")}
    d3 = theirs["d-3 / nope"].specs[0]
    assert (d3.train_max_len, d3.eval_bins) == (100, ((1, 100), (101, 200), (201, 300)))
    assert d3.key != base["d-3 / nope"].specs[0].key
    assert any("--windows authors" in n for n in theirs["d-3 / nope"].notes)
    # rows without committed data, and the algorithmic rows, keep the protocol's lengths
    for row in ("dyck1 / nope", "parity / nope"):
        assert theirs[row].specs[0].key == base[row].specs[0].key
    assert any("no committed data" in n for n in theirs["dyck1 / nope"].notes)
    with pytest.raises(ConfigError, match="--windows"):
        rep.plan("huang2025", "quick", rows=["d-3"], windows="mine")
    assert main(["reproduce", "huang2025", "--rows", "tomita1/nope", "--windows", "authors",
                 "--dry-run", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("bins <=100 / 101-150" in n for r in out["rows"] for n in r["notes"])


def test_a_table_names_the_bins_of_a_row_that_does_not_use_the_protocols():
    planned = [p for p in rep.plan("huang2025", "smoke", rows=["tomita1/nope", "d-2/nope"],
                                   windows="authors") if p.specs]
    def run(bins):
        return {"seed": 0, "status": "done", "error": None,
                "metrics": {"bins": bins, "train_accuracy": 1.0, "steps": 40,
                            "stop_reason": "target"}}
    runs = [[run({"<=100": 1.0, "101-150": 1.0})] if p.row.name == "tomita1" else
            [run({"<=50": 1.0, "51-100": 1.0, "101-150": 1.0})] for p in planned]
    table = reproduction.build("huang2025", get_protocol("huang2025"), "smoke", planned, runs)
    md = reproduction.markdown(table)
    line = next(l for l in md.splitlines() if l.startswith("| tomita1 "))
    assert "(bins <=100 / 101-150)" in line
    line = next(l for l in md.splitlines() if l.startswith("| d-2 "))
    assert "(bins" not in line       # d-2's committed data has the protocol's lengths


def test_paper_budget_trains_languages_by_the_authors_recipe_and_quick_says_so():
    paper = {p.row.row_id: p for p in rep.plan("huang2025", "paper")}
    quick = {p.row.row_id: p for p in rep.plan("huang2025", "quick")}
    d3 = paper["d-3 / nope"].specs[0].training
    assert (d3.lr, d3.batch_size, d3.steps, d3.weight_decay, d3.schedule) == \
        (1e-5, 16, 62_500, 0.1, "constant")
    assert d3.eval_every == d3.steps            # no early stop: one fit check, at the end
    assert paper["d-3 / nope"].specs[0].objective == "next_symbol_set"
    assert quick["d-3 / nope"].specs[0].objective == "next_symbol"
    d2 = paper["d-2 / nope"].specs[0].training  # 200 strings: 13 batches x 100 epochs
    assert (d2.steps, d2.batch_size) == (1_300, 16)
    abab = paper["(abab)* / nope"].specs[0].training
    assert (abab.steps, abab.batch_size) == (4_800, 4)
    # the algorithmic rows keep the protocol's own settings
    par = paper["parity / nope"].specs[0].training
    assert (par.lr, par.batch_size, par.schedule) == (1e-4, 64, "linear")
    # quick keeps its own training (and its store keys) and names what it replaces
    q = quick["d-3 / nope"]
    assert q.specs[0].training.lr == 1e-3 and q.specs[0].training.steps == 1_500
    assert any("authors' recipe" in n and "is replaced" in n for n in q.notes)


def test_steps_and_objective_overrides_plan_other_runs_and_say_so():
    base = {p.row.row_id: p for p in rep.plan("huang2025", "quick", rows=["dyck1", "parity"])}
    over = {p.row.row_id: p for p in rep.plan("huang2025", "quick", rows=["dyck1", "parity"],
                                               steps=8000, train_through=True,
                                               objective="next_symbol_set")}
    d = over["dyck1 / nope"].specs[0]
    assert (d.training.steps, d.training.eval_every, d.training.warmup) == (8000, 8000, 100)
    assert d.objective == "next_symbol_set" and d.key != base["dyck1 / nope"].specs[0].key
    assert over["parity / nope"].specs[0].objective == "membership"   # languages only
    assert any("--objective" in n for n in over["dyck1 / nope"].notes)
    assert any("--steps" in n for n in over["parity / nope"].notes)
    # under the paper budget --steps cuts the authors' recipe short, nothing else of it
    cut = [p for p in rep.plan("huang2025", "paper", rows=["d-3/nope"], steps=600) if p.specs]
    t = cut[0].specs[0].training
    assert (t.steps, t.eval_every, t.lr, t.batch_size) == (600, 600, 1e-5, 16)
    with pytest.raises(ConfigError, match="--objective"):
        rep.plan("huang2025", "quick", rows=["dyck1"], objective="membership")
    with pytest.raises(ConfigError, match="--steps"):
        rep.plan("huang2025", "quick", rows=["dyck1"], steps=0)
