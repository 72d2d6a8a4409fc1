"""`theorybench llm` on edge-case input (issue 31, cause 6): an undefined AUC (prompts of
one class only) is shown as such and stored as null, `export` takes comma-separated task
lists as its help says and refuses --count 0 with a message."""

from __future__ import annotations

import json

import pytest

from theorybench.experiments.llm import scoring




def test_auc_of_one_class_is_none():
    recs = [{"target": "1", "parsed": "1", "correct": True, "scores": {"0": -2.0, "1": -1.0}},
            {"target": "1", "parsed": "0", "correct": False, "scores": {"0": -1.0, "1": -3.0}}]
    assert scoring.metrics(recs, ("0", "1"))["auc"] is None
    recs[1]["target"] = "0"
    assert scoring.metrics(recs, ("0", "1"))["auc"] == 1.0


@pytest.mark.parametrize("argv", [
    ("parity", "--n", "2", "--count", "2", "--k", "1"),
    ("majority", "--n", "5", "--count", "2"),
])
def test_eval_with_an_undefined_auc(cli, models_file, argv):
    code, out, err = cli("llm", "eval", *argv, "--models", models_file, "--format", "json")
    assert code == 0, err
    (row,) = json.loads(out)["results"]
    assert row["auc"] is None  # null, not NaN (JSON has no NaN)
    code, out, err = cli("llm", "eval", *argv, "--models", models_file)
    assert code == 0, err
    assert "n/a (one class only)" in out


def test_generate_scoring_shows_no_auc(cli, models_file):
    code, out, err = cli("llm", "eval", "majority", "--n", "5", "--count", "2", "--k", "1",
                         "--scoring", "generate", "--models", models_file)
    assert code == 0, err
    header, _, row = out.strip().splitlines()[-3:]
    cells = dict(zip(header.split(), row.split()))
    assert cells["AUC"] == "-" and cells["calibrated"] == "-"


def test_undefined_auc_is_stored_as_null(tmp_path):
    from theorybench.experiments.llm.evaluate import LLMSpec
    from theorybench.experiments.llm.models import model_from_dict
    from theorybench.experiments.store import ResultsStore
    from theorybench.experiments.sweep import run_llm_sweep

    class OneSided:
        source = "test"

        def loglikelihood(self, reqs, special=True):
            return [(-1.0 if c.strip().endswith("1") else -2.0, False) for _, c in reqs]

    cfg = model_from_dict({"name": "one", "backend": "http", "base_url": "http://x/v1",
                           "model": "o"})
    spec = LLMSpec("majority", 5, cfg, k=1, count=2)
    db = tmp_path / "r.sqlite"
    s = run_llm_sweep(db=str(db), specs=[spec], backends={cfg.digest: OneSided()},
                      progress=False)
    assert s["done"] == 1
    with ResultsStore(db, readonly=True) as store:
        (rec,) = store.records(line="llm")
    assert "auc" in rec.metrics and rec.metrics["auc"] is None
    # the store keeps lm-eval's names and standard errors (issue 32)
    p = rec.metrics["acc"]
    assert rec.metrics["acc_stderr"] == pytest.approx((p * (1 - p)) ** 0.5)  # n = 2
    assert rec.metrics["parser"] == "loglik" and rec.spec["sampler"] == 2


def test_export_takes_a_comma_separated_list(cli, tmp_path):
    out_dir = tmp_path / "x"
    code, out, err = cli("llm", "export", "parity, majority", "--n", "5", "--out", out_dir,
                         "--count", "3")
    assert code == 0, err
    names = sorted(p.name for p in out_dir.iterdir())
    assert [n for n in names if n.endswith(".yaml")] == [
        "theorybench.yaml",  # the group of both
        "theorybench_majority_n5_k8_plain_balanced_loglik_s0_c3.yaml",
        "theorybench_parity_n5_k8_plain_balanced_loglik_s0_c3.yaml"]
    rows = (out_dir / "theorybench_majority_n5_k8_plain_balanced_loglik_s0_c3.jsonl"
            ).read_text().splitlines()
    assert len(rows) == 3
    # a task invalid at this n is skipped with the reason; the others are written
    code, out, err = cli("llm", "export", "parity,majority", "--n", "4", "--out", out_dir,
                         "--count", "3")
    assert code == 0 and "# skipped majority n=4" in out and out.count("wrote") == 2


@pytest.mark.parametrize("argv, message", [
    (["parity", "--n", "4", "--count", "0"], "--count 0"),
    (["parity", "--n", "4", "--k", "-1"], "--k -1"),
    (["majority", "--n", "4"], "no valid (task, n) to export"),
])
def test_export_bad_input(cli, tmp_path, argv, message):
    code, out, err = cli("llm", "export", *argv, "--out", tmp_path / "x")
    assert code == 2 and message in err, err
    assert not (tmp_path / "x").exists()


def test_export_api_refuses_zero_prompts(tmp_path):
    from theorybench.errors import ConfigError
    from theorybench.experiments.llm.export import export_lm_eval

    with pytest.raises(ConfigError, match="positive integer"):
        export_lm_eval("parity", 4, tmp_path, count=0)
