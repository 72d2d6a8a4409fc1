"""A sweep's plan holds each task, seed and run once (issue 31, cause 7)."""

from theorybench.experiments.profiles import expand
from theorybench.experiments.spec import unique_inputs, unique_specs


def test_repeated_tasks_and_seeds_are_kept_once_in_order():
    names, seeds, notes = unique_inputs(["parity,majority", "parity", "khop", "khop:k=1"],
                                        [1, 0, 1])
    assert names == ["parity", "majority", "khop"] and seeds == [1, 0]
    assert any("parity (2 times)" in n and "khop (2 times)" in n for n in notes)
    assert any("seeds" in n and "1" in n for n in notes)
    assert unique_inputs(["parity"], [0]) == (["parity"], [0], [])
    assert unique_inputs(None, None) == (None, None, [])


def test_repeated_specs_are_dropped_by_key():
    specs = expand("in_distribution", "smoke", ["parity"], [0])
    out, notes = unique_specs(specs + specs[:1])
    assert out == specs and notes == ["note: 1 run(s) of the plan were given more than once "
                                      "and run once"]
    assert unique_specs(specs + specs[:1], ["note: seeds ..."])[1] == ["note: seeds ..."]
    assert unique_specs(specs) == (specs, [])


def test_a_sweep_counts_and_runs_a_repeated_run_once(tmp_path, capsys):
    from theorybench.experiments.spec import RunSpec
    from theorybench.experiments.sweep import run_sweep
    from theorybench.experiments.trainer import TrainingConfig

    tiny = TrainingConfig(steps=5, eval_every=5, eval_count=16, final_eval_count=32)
    spec = RunSpec("in_distribution", "parity", n=4, training=tiny)
    s = run_sweep("in-distribution", specs=[spec, spec], db=str(tmp_path / "r.db"),
                  executor="inprocess", progress=True, threads=1)
    assert (s["total"], s["ran"], s["done"]) == (1, 1, 1)
    assert "given more than once" in s["notes"][0]
    assert "given more than once" in capsys.readouterr().err
