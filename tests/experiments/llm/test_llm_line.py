"""The llm line end to end on the tiny GPT-2 of the fixtures: the sweep into the results
store (resumable, per-prompt samples, failures recorded), `theorybench run llm`, and the
statistics the matrix's verdicts rest on."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from fractions import Fraction

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments import profiles
from theorybench.experiments.llm.scoring import binomial_sf, wilson_lower
from theorybench.experiments.store import ResultsStore


@pytest.fixture
def models_file(tiny_dir, tmp_path, monkeypatch, one_torch_thread):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "tiny", "backend": "local", "path": str(tiny_dir), "context": 512,
         "batch_size": 4},
        {"name": "short", "backend": "local", "path": str(tiny_dir), "context": 40}]}))
    return path


@pytest.fixture
def llm_profile(monkeypatch):
    p = replace(profiles.PROFILES["smoke"], name="llmtiny", llm_tasks=("majority", "parity"),
                llm_ns={"majority": (3, 5), "parity": (3,)}, llm_k=2, llm_count=6)
    monkeypatch.setitem(profiles.PROFILES, "llmtiny", p)
    return "llmtiny"


def test_sweep_stores_runs_and_samples_and_resumes(models_file, llm_profile, tmp_path):
    from theorybench.experiments.sweep import run_sweep

    db = tmp_path / "r.sqlite"
    s1 = run_sweep("llm", profile=llm_profile, db=str(db), models=str(models_file),
                   model_names=["tiny"], progress=False)
    assert (s1["total"], s1["done"], s1["failed"]) == (3, 3, 0)
    assert s1["prompts"] == 18 and s1["prompt_seconds"] > 0
    with ResultsStore(db, readonly=True) as store:
        recs = store.records(line="llm")
        assert {(r.spec["task"], r.spec["n"]) for r in recs} == {
            ("majority", 3), ("majority", 5), ("parity", 3)}
        for r in recs:
            assert r.status == "done" and r.spec["model"]["name"] == "tiny"
            assert {"k", "template", "order", "seed", "count", "scoring",
                    "prompts_digest"} <= set(r.spec)
            samples = store.samples(r.key)
            assert len(samples) == 6
            assert {"prompt", "answer", "parsed", "correct", "target"} <= set(samples[0])
            assert r.metrics["correct"] == sum(x["correct"] for x in samples)
            assert r.metrics["accuracy"] == pytest.approx(r.metrics["correct"] / 6)
            assert 0 <= r.metrics["chance"] <= 1 and r.metrics["unparseable"] == 0
    # a second sweep repeats nothing; a retry of nothing failed runs nothing either
    s2 = run_sweep("llm", profile=llm_profile, db=str(db), models=str(models_file),
                   model_names=["tiny"], progress=False)
    assert (s2["skipped_done"], s2["ran"]) == (3, 0)
    with ResultsStore(db, readonly=True) as store:
        assert all(r.attempts == 1 for r in store.records(line="llm"))


def test_prompt_too_long_fails_its_run_with_the_length(models_file, llm_profile, tmp_path):
    from theorybench.experiments.sweep import run_llm_sweep

    db = tmp_path / "r.sqlite"
    s = run_llm_sweep(profile=llm_profile, db=str(db), models=str(models_file),
                      model_names=["short"], progress=False)
    assert s["failed"] == 3 and s["done"] == 0
    assert all("longer than the context of model short (40)" in f["error"]
               for f in s["failures"])
    assert all("tokens" in f["error"] for f in s["failures"])
    with ResultsStore(db, readonly=True) as store:
        assert all(r.status == "failed" and store.samples(r.key) == []
                   for r in store.records(line="llm"))


class _Babbler:
    """A backend whose generations never parse."""

    source = "test"

    def generate(self, prompts, max_new_tokens=16, stop=(), special=True, batch_size=None):
        return ["maybe" if i % 2 else "" for i in range(len(prompts))]


def test_unparseable_answers_are_counted_not_fatal(tmp_path):
    from theorybench.experiments.llm.evaluate import LLMSpec
    from theorybench.experiments.llm.models import model_from_dict
    from theorybench.experiments.sweep import run_llm_sweep

    cfg = model_from_dict({"name": "babbler", "backend": "http", "base_url": "http://x/v1",
                           "model": "b"})
    spec = LLMSpec("majority", 5, cfg, k=2, count=4, scoring="generate")
    s = run_llm_sweep(db=str(tmp_path / "r.sqlite"), specs=[spec],
                      backends={cfg.digest: _Babbler()}, progress=False)
    assert s["done"] == 1
    with ResultsStore(tmp_path / "r.sqlite", readonly=True) as store:
        (rec,) = store.records(line="llm")
        assert rec.metrics["unparseable"] == 1.0 and rec.metrics["accuracy"] == 0.0
        assert [x["parsed"] for x in store.samples(rec.key)] == [None] * 4


def test_mark_done_keeps_samples_only_for_the_lease_holder(tmp_path):
    from theorybench.experiments.llm.evaluate import LLMSpec
    from theorybench.experiments.llm.models import model_from_dict

    cfg = model_from_dict({"name": "m", "backend": "http", "base_url": "http://x/v1",
                           "model": "b"})
    spec = LLMSpec("parity", 4, cfg, count=2)
    with ResultsStore(tmp_path / "s.sqlite") as store:
        store.queue([spec])
        assert store.claim([spec.key], "w1") == spec.key
        metrics = {"accuracy": 0.5, "count": 2, "correct": 1, "chance": 0.5}
        assert not store.mark_done(spec.key, metrics, worker="w2", samples=[{"a": 1}])
        assert store.samples(spec.key) == []
        assert store.mark_done(spec.key, metrics, worker="w1", samples=[{"a": 1}, {"a": 2}])
        assert store.samples(spec.key) == [{"a": 1}, {"a": 2}]
        assert store.records()[0].line == "llm"


def test_store_without_samples_table_reads(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    ResultsStore(path).close()
    con = sqlite3.connect(path)
    con.execute("DROP TABLE samples")
    con.commit()
    con.close()
    with ResultsStore(path, readonly=True) as store:
        assert store.samples("anything") == []


def test_binomial_tail_is_exact_and_wilson_is_sane():
    for x, n, p in ((22, 32, 0.5), (21, 32, 0.5), (7, 10, 0.3), (1, 5, 0.9), (0, 4, 0.2),
                    (5, 5, 0.5), (50, 80, 0.55)):
        q = Fraction(p)
        exact = sum(math.comb(n, k) * q ** k * (1 - q) ** (n - k) for k in range(x, n + 1))
        assert binomial_sf(x, n, p) == pytest.approx(float(exact), rel=1e-9)
    assert binomial_sf(6, 5, 0.5) == 0.0 and binomial_sf(3, 5, 0.0) == 0.0
    lo = wilson_lower(22, 32)
    hi = 1 - wilson_lower(10, 32)
    assert 0 < lo < 22 / 32 < hi < 1
    assert wilson_lower(0, 10) == 0.0 and wilson_lower(10, 10) > 0.69


def test_cli_run_llm_dry_run_and_option_checks(cli, models_file, llm_profile, tmp_path):
    code, out, err = cli("run", "llm", "--profile", llm_profile, "--models", models_file,
                         "--model", "tiny", "--dry-run", "--format", "json")
    assert code == 0, err
    grid = json.loads(out)
    assert grid["runs"] == 3 and grid["models"] == ["tiny"]
    assert {g["task"] for g in grid["grid"]} == {"majority", "parity"}
    code, _, err = cli("run", "in-distribution", "--models", models_file, "--dry-run")
    assert code == 2 and "belong to the llm line" in err
    code, _, err = cli("run", "llm", "--executor", "pool", "--workers", "2", "--dry-run")
    assert code == 2 and "runs in this process" in err
    code, _, err = cli("run", "llm", "--models", models_file, "--model", "nope", "--dry-run")
    assert code == 2 and "not in the model file" in err
    code, _, err = cli("run", "llm", "--tasks", "kv_retrieval", "--dry-run")
    assert code == 2 and "no prompt for kv_retrieval" in err


def test_cli_run_llm_and_runs(cli, models_file, llm_profile, tmp_path):
    db = tmp_path / "c.sqlite"
    code, out, err = cli("run", "llm", "--profile", llm_profile, "--models", models_file,
                         "--db", db)
    assert code == 0, err
    assert "prompts scored" in out and "6 runs; 0 already done, 6 ran (3 done, 3 failed)" in out
    code, out, _ = cli("runs", "--db", db, "--line", "llm", "--format", "json")
    res = json.loads(out)
    assert res["counts"]["done"] == 3 and res["counts"]["failed"] == 3
    assert all("short" in f["run"] for f in res["failures"])


def test_profiles_expand_the_llm_line():
    from theorybench.experiments.llm.models import load_models

    models = {"m": next(iter(load_models().values()))}
    smoke = profiles.expand_llm("smoke", models)
    # one n per task and model: with two embedded models the main job stays short
    assert {(s.task, s.n) for s in smoke} == {("majority", 5), ("parity", 4), ("index", 8)}
    assert len({s.key for s in smoke}) == 3
    quick = profiles.expand_llm("quick", models)
    # the tasks the study's LLM finding reads, at three n each (accuracy against n)
    assert {(s.task, s.n) for s in quick} == {(t, n) for t, ns in (
        ("majority", (7, 15, 31)), ("parity", (8, 16, 32)), ("index", (8, 16, 32)))
        for n in ns}
    assert {s.scoring for s in quick} == {"loglik"} and {s.count for s in quick} == {100}
    paper = profiles.expand_llm("paper", models)
    assert {s.scoring for s in paper if s.task == "binary_add"} == {"generate"}
    _, without = profiles.llm_tasks("paper")
    assert all(f not in profiles.llm_tasks("paper")[0] for f in without)
    with pytest.raises(ConfigError, match="at least one model"):
        profiles.expand_llm("smoke", {})
