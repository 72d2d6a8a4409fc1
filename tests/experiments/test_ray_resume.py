"""A Ray sweep that is started again repeats no run it finished (the paper profile's
cluster use: a lost driver is restarted with the same command)."""

import pytest

from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import ResultsStore
from theorybench.experiments.sweep import run_sweep
from theorybench.experiments.trainer import TrainingConfig

TINY = TrainingConfig(steps=10, eval_every=5, eval_count=32, final_eval_count=64)


def specs(ns):
    return [RunSpec("in_distribution", "parity", n=n, training=TINY) for n in ns]


# slow (a Ray cluster start, about 15 s); the default suite keeps test_ray_executor_two_runs
@pytest.mark.slow
def test_resumed_ray_sweep_repeats_no_finished_run(tmp_path):
    pytest.importorskip("ray")
    db = str(tmp_path / "ray.sqlite")
    first = run_sweep("in-distribution", specs=specs((4, 5)), db=db, executor="ray",
                      workers=2, progress=False)
    assert (first["done"], first["failed"]) == (2, 0), first["failures"]
    with ResultsStore(db) as store:
        before = {r.key: r for r in store.records(status="done")}
    again = run_sweep("in-distribution", specs=specs((4, 5, 6)), db=db, executor="ray",
                      workers=2, progress=False)
    assert (again["skipped_done"], again["ran"], again["done"]) == (2, 1, 1)
    with ResultsStore(db) as store:
        after = {r.key: r for r in store.records(status="done")}
    assert len(after) == 3
    for key, rec in before.items():
        assert after[key].attempts == 1 and after[key].metrics == rec.metrics
