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
    out, repeats = unique_specs(specs + specs[:1])
    assert out == specs and repeats == 1
