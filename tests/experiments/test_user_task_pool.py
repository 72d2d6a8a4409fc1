"""A task file's identity in sweeps (issue 28): two pool workers train each run once; an
edited file trains again; a worker that loads a file edited after the sweep planned its
runs refuses them instead of training the new definition under the old key."""

from __future__ import annotations

import pytest

from theorybench.experiments import executors
from theorybench.experiments.lines import IN_DISTRIBUTION
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.store import ResultsStore
from theorybench.experiments.sweep import run_sweep
from theorybench.experiments.trainer import TrainingConfig
from theorybench.tasks import registry

TASK = '''NAME = "pool_mod2"
ALPHABET = ("a", "b")
LENGTHS = (2, 16)


def label(x):
    return (x == 0).sum(axis=1) % 2 == 0
'''
TINY = TrainingConfig(steps=4, batch_size=16, lr=1e-3, warmup=1, eval_every=2, eval_count=32,
                      target=0.99, final_eval_count=32)


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped():
        yield


def specs(path) -> list[RunSpec]:
    name = registry.load_task_file(path).name   # also exported to the workers' environment
    return [RunSpec(line=IN_DISTRIBUTION, task=name, n=n, size="small", training=TINY,
                    seed=seed) for n in (4, 6) for seed in (0, 1)]


def sweep(plan, db, executor="pool"):
    return run_sweep(IN_DISTRIBUTION, specs=plan, db=str(db), executor=executor, workers=2,
                     progress=False, threads=1)


@pytest.mark.slow
@pytest.mark.real_cores
def test_two_pool_workers_train_each_run_once_and_an_edit_trains_again(tmp_path):
    path = tmp_path / "pool_mod2.py"
    path.write_text(TASK)
    db = tmp_path / "r.sqlite"
    first = sweep(specs(path), db)
    assert (first["executor"], first["ran"], first["done"]) == ("pool", 4, 4), first
    again = sweep(specs(path), db)
    assert (again["ran"], again["skipped_done"]) == (0, 4)
    path.write_text(TASK + "# edited: a new definition\n")
    edited = sweep(specs(path), db)
    assert (edited["ran"], edited["done"]) == (4, 4), edited
    digests = {r.spec["definition"] for r in ResultsStore(str(db)).records(IN_DISTRIBUTION)}
    assert len(digests) == 2


@pytest.mark.slow
@pytest.mark.real_cores
def test_pool_workers_refuse_runs_planned_for_an_older_file(tmp_path):
    path = tmp_path / "pool_mod2.py"
    path.write_text(TASK)
    plan = specs(path)                       # planned for this definition ...
    path.write_text(TASK.replace("% 2 == 0", "% 2 == 1"))   # ... then the file changes
    got = sweep(plan, tmp_path / "r.sqlite")
    assert (got["ran"], got["failed"]) == (4, 4), got
    assert all("was planned for the definition sha256:" in f["error"]
               for f in got["failures"]), got["failures"]


def test_a_worker_checks_the_definition_of_the_file_it_loaded(tmp_path):
    path = tmp_path / "pool_mod2.py"
    path.write_text(TASK)
    spec = specs(path)[0].to_dict()
    path.write_text(TASK + "# edited\n")
    registry.load_task_file(path)           # what a fresh worker does: load the file now
    status, error = executors.run_one(spec)
    assert status == "failed" and "edited since?" in error, error
    fresh = specs(path)[0].to_dict()
    assert executors.run_one(fresh)[0] == "done"
