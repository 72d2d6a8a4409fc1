"""The default executor ``auto``: every core busy, a named executor never widened."""

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.executors import get_executor, resolve


def test_auto_makes_one_worker_per_core_on_a_multicore_cpu():
    assert resolve("auto", None, None, runs=10, cores=2) == ("pool", 2, 1)
    assert resolve("auto", None, None, runs=10, cores=8) == ("pool", 8, 1)
    # a profile that asks for one thread per run keeps it
    assert resolve("auto", None, 1, runs=10, cores=4) == ("pool", 4, 1)


def test_auto_never_starts_more_workers_than_runs():
    # three runs on eight cores: three workers sharing the cores as threads
    assert resolve("auto", None, None, runs=3, cores=8) == ("pool", 3, 2)
    assert resolve("auto", 2, None, runs=10, cores=8) == ("pool", 2, 4)


@pytest.mark.parametrize("kwargs", [dict(runs=1, cores=8), dict(runs=10, cores=1),
                                    dict(runs=10, cores=8, device="cuda"),
                                    dict(runs=10, cores=8, workers=1)])
def test_auto_stays_in_process_where_a_pool_cannot_help(kwargs):
    workers = kwargs.pop("workers", None)
    executor, width, threads = resolve("auto", workers, None, **kwargs)
    assert (executor, width, threads) == ("inprocess", 1, None)


def test_named_executors_keep_their_settings():
    assert resolve("inprocess", None, None, runs=10, cores=8) == ("inprocess", 1, None)
    assert resolve("pool", 3, 2, runs=10, cores=8) == ("pool", 3, 2)
    assert resolve("ray", None, None, runs=10, cores=8) == ("ray", 1, None)


def test_auto_is_resolved_before_it_runs():
    with pytest.raises(ConfigError, match="resolved"):
        get_executor("auto")


@pytest.mark.real_cores
def test_default_sweep_uses_a_pool_on_two_cores_with_the_same_results(tmp_path, monkeypatch):
    from theorybench.experiments import executors, in_distribution
    from theorybench.experiments.spec import RunSpec
    from theorybench.experiments.store import ResultsStore
    from theorybench.experiments.sweep import run_sweep
    from theorybench.experiments.trainer import TrainingConfig
    monkeypatch.setattr(executors, "cpu_count", lambda: 2)
    tiny = TrainingConfig(steps=10, eval_every=5, eval_count=32, final_eval_count=64)
    specs = [RunSpec("in_distribution", "parity", n=n, training=tiny) for n in (4, 5)]
    db = str(tmp_path / "auto.sqlite")
    s = run_sweep("in-distribution", specs=specs, db=db, progress=False)
    assert (s["executor"], s["workers"], s["threads"]) == ("pool", 2, 1)
    assert (s["done"], s["failed"]) == (2, 0), s["failures"]
    with ResultsStore(db) as store:
        pooled = {r.spec["n"]: r.metrics for r in store.records(status="done")}
    local = in_distribution.run(specs[1], progress=False)
    assert pooled[5]["curve"] == local["curve"]
    assert pooled[5]["test_accuracy"] == local["test_accuracy"]
