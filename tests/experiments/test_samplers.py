"""Samplers of the next-symbol objective: the authors' D_n generator draws members (an
independent recognizer), in range, deterministically, with the generator's shape (few
top-level blocks, unlike the uniform draw); batches drawn through it carry the right
sets (a depth counter); bad names and mismatched tasks are refused with a message."""

import re
from functools import lru_cache

import numpy as np
import pytest

from theorybench.errors import ConfigError
from theorybench.experiments import length_generalization as lg
from theorybench.experiments import reproduce as rep
from theorybench.experiments.data import IGNORE, NEXT_SYMBOL, TaskData
from theorybench.experiments.samplers import make_sampler, parse_sampler
from theorybench.experiments.spec import RunSpec


def _dn_pattern(n):
    # D_0 = {""}, D_n = (a D_{n-1} b)*: Python's re, not the toolkit's automata
    return "" if n == 0 else f"(?:a{_dn_pattern(n - 1)}b)*"


@lru_cache(maxsize=None)
def _dn_regex(n):
    return re.compile(_dn_pattern(n))


def _member(w, n):
    return _dn_regex(n).fullmatch(w) is not None


def _returns_to_zero(w):
    depth, count = 0, 0
    for c in w:
        depth += 1 if c == "a" else -1
        count += depth == 0
    return count


@pytest.mark.parametrize("depth", [1, 2, 3, 12])
def test_huang_dn_draws_members_in_range(depth):
    draw = make_sampler(f"huang_dn:depth={depth}")
    rng = np.random.default_rng(0)
    for lo, hi in [(2, 50), (51, 100), (101, 150)]:
        words = [draw(rng, lo, hi) for _ in range(40)]
        assert all(lo <= len(w) <= hi for w in words)
        assert all(_member(w, depth) for w in words), [w for w in words if not _member(w, depth)]


def test_huang_dn_is_deterministic_given_the_generator():
    draw = make_sampler("huang_dn:depth=3")
    a = [draw(np.random.default_rng(7), 51, 100) for _ in range(5)]
    b = [draw(np.random.default_rng(7), 51, 100) for _ in range(5)]
    c = [draw(np.random.default_rng(8), 51, 100) for _ in range(5)]
    assert a == b and a != c


def test_huang_dn_strings_have_few_top_level_blocks_unlike_the_uniform_draw():
    spec = [p for p in rep.plan("huang2025", "quick") if p.row.name == "d-2"][0].specs[0]
    authors = TaskData(spec.task, spec.param_dict, list(range(101, 151)), NEXT_SYMBOL,
                       "huang_dn:depth=2")
    uniform = TaskData(spec.task, spec.param_dict, list(range(101, 151)), NEXT_SYMBOL)
    rng = np.random.default_rng(0)

    def blocks(batch):
        rows = batch.inputs[:, 1:].numpy()
        words = ["".join("ab"[t - 2] for t in r if t >= 2) for r in rows]
        return np.mean([_returns_to_zero(w) for w in words])
    ns = uniform.ns
    assert blocks(authors.sample(rng, 200, ns)) <= 3.5
    assert blocks(uniform.sample(rng, 200, ns)) >= 10


def test_drawn_batches_carry_the_sets_of_a_depth_counter():
    depth = 3
    spec = [p for p in rep.plan("huang2025", "quick") if p.row.name == "d-3"][0].specs[0]
    data, train_ns, _, _ = lg.prepare(spec)
    assert data.sampler == f"huang_dn:depth={depth}"
    batch = data.sample(np.random.default_rng(1), 64, train_ns)
    a, b, eos = 1, 2, 4                      # bits: letters in alphabet order, then end
    for row, tgt in zip(batch.inputs.numpy(), batch.targets.numpy()):
        letters = [t for t in row[1:] if t >= 2]
        assert len(letters) >= 2 and row[0] == 1
        d = 0
        for t, (tok, want) in enumerate(zip([None] + letters, tgt)):
            if tok is not None:
                d += 1 if tok == 2 else -1
            # the empty word is not a member: the task file's lengths start at 1
            expected = ((a if d < depth else 0) | (b if d > 0 else 0)
                        | (eos if d == 0 and t > 0 else 0))
            assert want == expected, (t, d, want)
        assert (tgt[len(letters) + 1:] == IGNORE).all()
    stream = data.stream(np.random.default_rng(1), 16, train_ns)
    assert len(stream(1)) == 16


def test_a_sampler_for_another_language_is_refused_with_the_string():
    spec = [p for p in rep.plan("huang2025", "quick") if p.row.name == "d-3"][0].specs[0]
    data = TaskData(spec.task, spec.param_dict, list(range(1, 51)), NEXT_SYMBOL,
                    "huang_dn:depth=4")
    with pytest.raises(ConfigError, match="not a member of task d3"):
        for seed in range(20):
            data.sample(np.random.default_rng(seed), 64, list(range(2, 51)))


@pytest.mark.parametrize("text, match", [
    ("uniformish", "unknown sampler"), ("huang_dn:depth=x", "key=integer"),
    ("huang_dn:depth", "key=integer"), ("huang_dn:depth=0", "depth >= 1"),
    ("huang_dn:width=3", "huang_dn"),
])
def test_bad_samplers_are_named(text, match):
    with pytest.raises(ConfigError, match=match):
        make_sampler(text)


def test_sampler_in_the_key_only_when_set_and_only_with_next_symbol():
    spec = [p for p in rep.plan("huang2025", "quick") if p.row.name == "d-2"][0].specs[0]
    plain = RunSpec.from_dict({k: v for k, v in spec.to_dict().items() if k != "sampler"})
    assert "sampler" not in plain.to_dict() and plain.key != spec.key
    assert RunSpec.from_dict(spec.to_dict()) == spec
    with pytest.raises(ConfigError, match="needs objective"):
        RunSpec.from_dict(dict(spec.to_dict(), objective="membership"))
    assert parse_sampler("huang_dn:depth=12") == ("huang_dn", {"depth": 12})


def test_only_rows_whose_generator_is_known_draw_from_it():
    planned = rep.plan("huang2025", "quick")
    with_sampler = {p.row.name for p in planned if p.specs and p.specs[0].sampler}
    assert with_sampler == {"d-2", "d-3", "d-4", "d-12"}
    for p in planned:
        if p.row.name in with_sampler:
            assert any("D_n generator" in n for n in p.row.notes)


def test_a_distinct_set_is_drawn_once_per_window_as_the_authors_generate_list_draws():
    draw = make_sampler("huang_dn:depth=3,distinct=300")
    rng = np.random.default_rng(0)
    words = [draw(rng, 1, 100) for _ in range(3000)]
    pool = set(words)
    # every string a member in range; the run draws from one set of at most 300
    assert all(_member(w, 3) and 1 <= len(w) <= 100 for w in pool)
    assert 250 <= len(pool) <= 300
    # a later window has its own set, none of it shorter than the window
    later = {draw(rng, 101, 200) for _ in range(2000)}
    assert later.isdisjoint(pool) and min(map(len, later)) >= 101
    # deterministic given the generator
    again = make_sampler("huang_dn:depth=3,distinct=300")
    assert [again(np.random.default_rng(0), 1, 100) for _ in range(1)] == words[:1]
    # the fresh draw at this window is narrow: about 160 distinct D_3 strings in 3,000,
    # none shorter than 40; the set, distinct by construction, reaches shorter strings
    fresh = make_sampler("huang_dn:depth=3")
    plain = [fresh(rng, 1, 100) for _ in range(3000)]
    assert len(set(plain)) < 300 and min(map(len, plain)) >= 40
    assert min(map(len, pool)) < min(map(len, plain))


def test_a_set_stops_short_when_the_ratio_runs_out(monkeypatch):
    from theorybench.experiments import samplers
    monkeypatch.setattr(samplers, "REJECTIONS", 20)
    # D_1 strings of lengths 1..6 are (ab)^k, k <= 3: three exist, so a set of 50 stops
    # once every lowering of the ratio has been spent on rejections
    got = samplers._dn_set(np.random.default_rng(0), 1, 50, 1, 6)
    assert sorted(got) == ["ab", "abab", "ababab"]
    with pytest.raises(ConfigError, match="distinct"):
        make_sampler("huang_dn:depth=2,distinct=-1")


def test_fixed_sets_plan_the_d_n_rows_only_and_say_so():
    base = {p.row.row_id: p for p in rep.plan("huang2025", "quick", rows=["d-2", "d-3",
                                                                            "tomita1"])}
    fixed = {p.row.row_id: p for p in rep.plan("huang2025", "quick",
                                                rows=["d-2", "d-3", "tomita1"],
                                                fixed_sets=True)}
    assert fixed["d-3 / nope"].specs[0].sampler == "huang_dn:depth=3,distinct=10000"
    assert fixed["d-2 / nope"].specs[0].sampler == "huang_dn:depth=2,distinct=200"
    assert fixed["d-3 / nope"].specs[0].key != base["d-3 / nope"].specs[0].key
    assert fixed["tomita1 / nope"].specs[0].key == base["tomita1 / nope"].specs[0].key
    assert any("--fixed-sets" in n for n in fixed["d-3 / nope"].notes)
    assert any("not known here" in n for n in fixed["tomita1 / nope"].notes)
