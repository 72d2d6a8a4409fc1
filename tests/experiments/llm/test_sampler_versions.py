"""A results store written before the prompt sampler changed (runs without "sampler" in
their spec: sampler 1) next to runs of the current one: never pooled, and said so; the
llm points carry lm-eval's standard error (issue 32)."""

from __future__ import annotations

import numpy as np
import pytest

from theorybench.experiments.llm.evaluate import SAMPLER, LLMSpec
from theorybench.experiments.llm.scoring import mean_stderr
from theorybench.experiments.store import RunRecord
from theorybench.matrix.llm_line import llm_cells, point_stats, sampler_notes


def _rec(task, n, correct, count, sampler=None, model="a", seed=0):
    spec = {"line": "llm", "task": task, "params": {}, "n": n, "seed": seed, "k": 8,
            "template": "plain", "order": "balanced", "scoring": "loglik", "count": count,
            "prompts_digest": "d", "model": {"name": model, "backend": "local"}}
    if sampler is not None:
        spec["sampler"] = sampler
    metrics = {"count": count, "correct": correct, "accuracy": correct / count,
               "chance": 0.5, "uniform_chance": 0.5, "unparseable": 0.0}
    return RunRecord(f"{task}{n}{model}{seed}{sampler}", "llm", spec, "done", metrics, None)


def test_runs_of_two_samplers_are_never_pooled():
    old = [_rec("majority", 5, 32, 32), _rec("majority", 9, 32, 32)]
    new = [_rec("majority", 5, 10, 32, sampler=SAMPLER)]
    cell = llm_cells(old + new)["llm"]["majority"]
    # only the current sampler's run: 10/32, and no n = 9 from the older runs
    assert cell.llm_by_n[5]["correct"] == 10 and sorted(cell.llm_by_n) == [5]
    assert "earlier sampler" not in cell.note
    (note,) = sampler_notes(old + new)
    assert "left out" in note and "majority (2)" in note


def test_a_store_of_the_earlier_sampler_is_read_and_named():
    old = [_rec("majority", 5, 30, 32), _rec("parity", 4, 16, 32)]
    cells = llm_cells(old)["llm"]
    assert cells["majority"].llm_by_n[5]["correct"] == 30  # measured: still shown
    assert "earlier sampler (1" in cells["majority"].note
    (note,) = sampler_notes(old)
    assert "majority, parity" in note and "theorybench run llm" in note
    assert sampler_notes([_rec("majority", 5, 30, 32, sampler=SAMPLER)]) == []


def test_each_task_keeps_its_newest_sampler():
    recs = [_rec("majority", 5, 30, 32, sampler=SAMPLER), _rec("parity", 4, 16, 32)]
    cells = llm_cells(recs)["llm"]
    assert cells["parity"].llm_by_n[4]["correct"] == 16
    assert "earlier sampler" in cells["parity"].note
    assert "earlier sampler" not in cells["majority"].note


def test_the_report_says_so():
    from theorybench.matrix.report import build_report

    recs = [_rec("majority", 5, 30, 32), _rec("majority", 5, 12, 32, sampler=SAMPLER)]
    preds = [{"theory": "t", "task": "majority", "verdict": "easy", "basis": "construction",
              "status": "proven"}]
    rep = build_report(preds, recs)
    assert any("left out" in m and "majority (1)" in m for m in rep.missing)
    (row,) = rep.tables["empirical"].rows
    assert row[1].endswith("[5:0.38±0.09/0.50]")  # 12/32 alone, not 42/64


def test_a_spec_of_the_earlier_sampler_is_refused_with_a_reason(tiny):
    d = LLMSpec("majority", 5, tiny.config, count=3).to_dict()
    assert d["sampler"] == SAMPLER
    del d["sampler"]
    with pytest.raises(Exception, match="another prompt sampler"):
        LLMSpec.from_dict(d)


@pytest.mark.parametrize("runs", [[(7, 10)], [(7, 10), (3, 12)], [(0, 5), (5, 5)],
                                  [(1, 1)]])
def test_pooled_stderr_is_lm_evals(runs):
    metrics = [{"count": k, "correct": c, "accuracy": c / k, "chance": 0.5} for c, k in runs]
    scores = np.concatenate([np.r_[np.ones(c), np.zeros(k - c)] for c, k in runs])
    got = point_stats(metrics, 0.05)["accuracy_stderr"]
    want = mean_stderr(scores)
    assert (got is None) == (want is None)
    if want is not None:
        assert got == pytest.approx(want, rel=1e-12)


def test_the_cell_names_the_answer_parsers():
    gen = _rec("majority", 5, 20, 32, sampler=SAMPLER, seed=1)
    gen.spec.update(scoring="generate", parser="exact_match")
    cells = llm_cells([_rec("majority", 5, 30, 32, sampler=SAMPLER), gen])["llm"]
    assert "answers by exact_match, loglik" in cells["majority"].note
    assert "2 prompt settings pooled" in cells["majority"].note


def test_run_llm_progress_shows_the_stderr():
    from theorybench.experiments.sweep import _llm_headline

    m = {"accuracy": 0.7, "accuracy_stderr": 0.15275, "chance": 0.6, "count": 10}
    assert _llm_headline(m).startswith("accuracy 0.700±0.153 (chance 0.60) on 10 prompts")
    one = {"accuracy": 1.0, "accuracy_stderr": None, "chance": 1.0, "count": 1}
    assert _llm_headline(one).startswith("accuracy 1.000 (chance 1.00)")
