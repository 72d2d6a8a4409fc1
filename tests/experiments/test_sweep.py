"""Sweeps: skip done runs, record failures and go on, retry, survive SIGKILL, run on Ray."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments import in_distribution
from theorybench.experiments.executors import get_executor
from theorybench.experiments.profiles import expand
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import ResultsStore
from theorybench.experiments.sweep import run_sweep
from theorybench.experiments.trainer import RunFailed, TrainingConfig

TINY = TrainingConfig(steps=10, eval_every=5, eval_count=32, final_eval_count=64)


def tiny_specs(ns=(4, 5, 6), task="parity"):
    return [RunSpec("in_distribution", task, n=n, training=TINY) for n in ns]


def test_skips_done_and_records_failures(tmp_path, monkeypatch):
    db = str(tmp_path / "s.sqlite")
    real = in_distribution.run

    def flaky(spec, **kw):
        if spec.n == 5:
            raise RunFailed("training diverged: the loss became nan at step 3")
        return real(spec, **kw)
    monkeypatch.setattr(in_distribution, "run", flaky)
    s = run_sweep("in-distribution", specs=tiny_specs(), db=db, progress=False)
    assert (s["done"], s["failed"], s["ran"]) == (2, 1, 3)
    assert "diverged" in s["failures"][0]["error"]
    s = run_sweep("in-distribution", specs=tiny_specs(), db=db, progress=False)
    assert (s["ran"], s["skipped_done"], s["skipped_failed"]) == (0, 2, 1)
    with ResultsStore(db) as store:
        failed = store.records(status="failed")
    assert [r.spec["n"] for r in failed] == [5] and "diverged" in failed[0].error
    monkeypatch.setattr(in_distribution, "run", real)
    s = run_sweep("in-distribution", specs=tiny_specs(), db=db, progress=False, retry_failed=True)
    assert (s["ran"], s["done"]) == (1, 1)
    with ResultsStore(db) as store:
        assert store.counts()["done"] == 3
        assert all(r.attempts == (2 if r.spec["n"] == 5 else 1) for r in store.records())


def test_bad_input_is_explained(tmp_path):
    with pytest.raises(ConfigError, match="known profiles"):
        run_sweep("in-distribution", profile="huge", db=str(tmp_path / "x"))
    with pytest.raises(ConfigError, match="known tasks"):
        expand("in_distribution", "smoke", ["parityy"])
    with pytest.raises(ConfigError, match="executors"):
        run_sweep("in-distribution", executor="slurm", db=str(tmp_path / "x"))
    with pytest.raises(ConfigError, match="unknown positional encoding"):
        RunSpec("in_distribution", "parity", n=4, encoding="xpos")
    with pytest.raises(ConfigError, match="learned_offsets"):  # refused before queueing
        run_sweep("length-generalization", db=str(tmp_path / "y"), progress=False, specs=[
            RunSpec("length_generalization", "parity", train_max_len=8,
                    eval_bins=((1, 8), (9, 16)), encoding="learned", max_positions=8)])
    assert not (tmp_path / "y").exists()
    with pytest.raises(ConfigError, match="n is not a task parameter"):
        expand("in_distribution", "smoke", ["parity:n=3"])
    with pytest.raises(ConfigError, match="--threads"):
        run_sweep("in-distribution", threads=0, db=str(tmp_path / "z"))
    with pytest.raises(ConfigError, match="unknown model size"):
        RunSpec("in_distribution", "parity", n=4, size="huge")
    assert not (tmp_path / "z").exists()


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="a GPU is present")
def test_cuda_without_gpu_refused_before_queueing(tmp_path):
    with pytest.raises(ConfigError, match="CUDA is not available"):
        run_sweep("in-distribution", specs=tiny_specs((4,)), device="cuda",
                  db=str(tmp_path / "c"), progress=False)
    assert not (tmp_path / "c").exists()


def test_ray_missing_says_how_to_install(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_ray(name, *a, **k):
        if name == "ray":
            raise ImportError("no ray")
        return real_import(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(ConfigError, match=r"theorybench\[ray\]"):
        get_executor("ray")


SCRIPT = textwrap.dedent("""
    import sys, torch
    torch.set_num_threads(1)
    from theorybench.experiments.spec import RunSpec
    from theorybench.experiments.sweep import run_sweep
    from theorybench.experiments.trainer import TrainingConfig
    cfg = TrainingConfig(steps=int(sys.argv[2]), eval_every=1000, eval_count=32,
                         final_eval_count=64)
    specs = [RunSpec("in_distribution", "parity", n=n, training=cfg) for n in (4, 5, 6, 7, 8, 9)]
    # one in-process worker: the test counts exactly one run in flight when it kills it
    run_sweep("in-distribution", specs=specs, db=sys.argv[1], progress=False,
              executor="inprocess")
""")


# slow (about 14 s: two subprocess sweeps); resuming is also tested in process
@pytest.mark.slow
def test_sigkill_mid_sweep_then_resume(tmp_path):
    db = str(tmp_path / "k.sqlite")
    script = tmp_path / "sweep.py"
    script.write_text(SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), db, "150"])
    try:
        deadline = time.time() + 120
        done_before = []
        while time.time() < deadline:
            time.sleep(0.2)
            if os.path.exists(db):
                try:
                    with ResultsStore(db) as store:
                        done_before = store.records(status="done")
                        running = store.counts()["running"]
                except Exception:
                    continue
                if len(done_before) >= 2 and running == 1:
                    break
        assert len(done_before) >= 2, "the sweep did not finish two runs in time"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    with ResultsStore(db) as store:
        kept = {r.key: r for r in store.records(status="done")}
        assert set(kept) >= {r.key for r in done_before}
    subprocess.run([sys.executable, str(script), db, "150"], check=True)
    with ResultsStore(db) as store:
        after = {r.key: r for r in store.records()}
    assert len(after) == 6 and all(r.status == "done" for r in after.values())
    for key, rec in kept.items():  # finished before the kill: never run again
        assert after[key].attempts == 1 and after[key].metrics == rec.metrics
    assert sum(r.attempts for r in after.values()) <= 6 + 1  # only the run in flight repeats


def test_ray_executor_two_runs(tmp_path):
    pytest.importorskip("ray")
    db = str(tmp_path / "ray.sqlite")
    s = run_sweep("in-distribution", specs=tiny_specs((4, 5)), db=db, executor="ray",
                  workers=2, progress=False)
    assert (s["done"], s["failed"]) == (2, 0), s["failures"]
    with ResultsStore(db) as store:
        recs = store.records(status="done")
    local = in_distribution.run(tiny_specs((4,))[0], progress=False)
    ray4 = next(r for r in recs if r.spec["n"] == 4).metrics
    assert ray4["test_accuracy"] == local["test_accuracy"] and ray4["curve"] == local["curve"]


def test_pool_executor_matches_inprocess(tmp_path):
    db = str(tmp_path / "pool.sqlite")
    s = run_sweep("in-distribution", specs=tiny_specs((4, 5)), db=db, executor="pool",
                  workers=2, threads=1, progress=False)
    assert (s["done"], s["failed"]) == (2, 0), s["failures"]
    with ResultsStore(db) as store:
        pooled = {r.spec["n"]: r.metrics for r in store.records(status="done")}
    local = in_distribution.run(tiny_specs((5,))[0], progress=False)
    assert pooled[5]["curve"] == local["curve"]
