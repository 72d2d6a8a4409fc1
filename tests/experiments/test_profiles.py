"""The quick profile's grid is the one its docstring and docs/results-quick.md describe."""

from __future__ import annotations

from collections import Counter

from theorybench import tasks
from theorybench.experiments.positional import ENCODINGS
from theorybench.experiments.profiles import PROFILES, expand


def test_quick_in_distribution_grid():
    specs = expand("in_distribution", "quick")
    variants = Counter((s.task, s.params) for s in specs)
    assert len(variants) == len(tasks.families()) + 3   # khop k=2, 3 and dyck k=1 besides
    assert {p for t, p in variants if t == "khop"} == {(("k", k),) for k in (1, 2, 3)}
    assert {p for t, p in variants if t == "dyck"} == {(("k", k),) for k in (1, 2)}
    assert set(variants.values()) == {9}                # 3 n x 3 seeds
    assert {s.n for s in specs if s.task == "parity"} == {8, 16, 32}
    assert {s.n for s in specs if s.task == "majority"} == {7, 15, 31}
    assert {s.seed for s in specs} == {0, 1, 2}
    assert {(s.size, s.encoding, s.training.steps) for s in specs} == {("deep", "rope", 1000)}
    # deep enough for the known 2- and 3-hop constructions (3 layers), and the plateau rule on
    from theorybench.experiments.model import SIZES
    assert SIZES["deep"][0] >= 3 and {s.training.plateau for s in specs} == {200}


def test_quick_length_generalization_grid():
    specs = expand("length_generalization", "quick")
    assert {(s.task, s.params) for s in specs} == {
        ("majority", ()), ("parity", ()), ("index", ()), ("khop", (("k", 1),)),
        ("dyck", (("k", 1),)), ("dyck_bounded", ())}
    nxt = [s for s in specs if s.objective == "next_symbol"]
    assert Counter((s.task, s.encoding, s.size) for s in nxt) == {
        ("dyck", "nope", "small"): 3, ("dyck", "learned_offsets", "small"): 3}
    specs = [s for s in specs if s.objective == "membership"]
    configs = Counter((s.size, s.encoding) for s in specs if s.seed == 0)
    assert {e for (size, e) in configs if size == "small"} == set(ENCODINGS)
    assert {e for (size, e) in configs if size == "base"} == {"nope", "rope"}
    assert set(configs.values()) == {6} and {s.seed for s in specs} == {0, 1, 2}
    # three seeds exactly for the configurations the findings read (both sizes)
    more = Counter((s.task, s.params, s.encoding) for s in specs if s.seed > 0)
    assert more == {("dyck", (("k", 1),), "nope"): 4, ("khop", (("k", 1),), "rope"): 4,
                    ("khop", (("k", 1),), "nope"): 4,
                    ("khop", (("k", 1),), "learned_offsets"): 2}
    assert len(specs) == 80 and len(nxt) == 6
    assert {s.training.steps for s in specs if s.size == "base"} == {200}
    assert max(hi for s in specs for _, hi in s.eval_bins) == 256
    assert {s.train_max_len for s in specs} == {32}
    # seeds given explicitly replace the profile's for either line
    assert {s.seed for s in expand("length_generalization", "quick", ["parity"], [3, 4])} == {3, 4}
    assert PROFILES["smoke"].lg_extra == ()
