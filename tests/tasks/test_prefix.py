"""Prefix oracles (the next-symbol objective's targets) against a brute-force search over
every extension: all members up to the longest length are enumerated with the task's own
independent oracle, and the allowed set of each prefix is read off them."""

import itertools

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import NoPrefixOracle
from theorybench.tasks.prefix import unpack

REGEX_FILE = '''
NAME = "ab_star_{tag}"
ALPHABET = ("a", "b")
LENGTHS = (1, 40)
REGEX = "{regex}"
'''

DFA_FILE = '''
NAME = "mod3_dfa_{tag}"
ALPHABET = ("a", "b", "c")
LENGTHS = (1, 40)
# the number of a's is 1 mod 3; c resets nothing, b adds two a's worth
DFA = {{"start": 0, "accept": [1],
        "delta": {{0: {{"a": 1, "b": 2, "c": 0}}, 1: {{"a": 2, "b": 0, "c": 1}},
                   2: {{"a": 0, "b": 1, "c": 2}}}}}}
'''


def brute_sets(family_task, hi: int, letters: int) -> dict[tuple, int]:
    """{prefix: bitmask} for every word of length <= hi over the letters, from the members
    of each valid length (the task's oracle labels them)."""
    cls = type(family_task)
    others = {k: v for k, v in family_task.values.items() if k != "n"}
    members = set()
    for m in range(0, hi + 1):
        if m == 0 or not cls.accepts(n=m, **others):
            continue
        inst = cls(n=m, **others)
        words = np.array(list(itertools.product(range(letters), repeat=m)), dtype=np.int64)
        ok = np.asarray(inst.oracle(words)).astype(bool)
        members.update(map(tuple, words[ok].tolist()))
    sets: dict[tuple, int] = {}
    for w in members:
        for t in range(len(w) + 1):
            p = w[:t]
            bit = letters if t == len(w) else w[t]
            sets[p] = sets.get(p, 0) | (1 << bit)
    return sets


def check_against_brute(task, hi: int, lengths=(3, 5, 6)):
    letters = len([v for v in task.vocab if v != "<pad>"])
    oracle = task.prefix_oracle(hi)
    want = brute_sets(task, hi, letters)
    for n in lengths:
        words = np.array(list(itertools.product(range(letters), repeat=n)), dtype=np.int64)
        got = oracle.next_sets(words)
        assert got.shape == (len(words), n + 1)
        for row, sets in zip(words.tolist(), got.tolist()):
            expect = [want.get(tuple(row[:t]), 0) for t in range(n + 1)]
            assert sets == expect, (task, row, sets, expect)


@pytest.mark.parametrize("name,params", [
    ("parity", {}), ("all", {}), ("any", {}),
    ("dyck", {"k": 1}), ("dyck", {"k": 2}),
    ("dyck_bounded", {"k": 1, "D": 2}), ("dyck_bounded", {"k": 2, "D": 1}),
])
def test_builtin_oracles_equal_brute_force(name, params):
    task = tasks.get(name, n=4, **params)
    hi = 8 if task.vocab and len(task.vocab) <= 2 else 6
    check_against_brute(task, hi, lengths=(0, 3, 4, hi - 1))


@pytest.mark.parametrize("regex", ["(ab)*", "(aa)*", "a*b*", "(a|bb)*a"])
def test_regex_task_file_oracle(tmp_path, regex):
    tag = abs(hash(regex)) % 10_000
    path = tmp_path / f"re{tag}.py"
    path.write_text(REGEX_FILE.format(tag=tag, regex=regex))
    cls = tasks.registry.load_task_file(path)
    check_against_brute(cls(n=2), 9, lengths=(1, 4, 7, 8))


def test_dfa_task_file_oracle(tmp_path):
    path = tmp_path / "mod3dfa.py"
    path.write_text(DFA_FILE.format(tag="x"))
    cls = tasks.registry.load_task_file(path)
    check_against_brute(cls(n=2), 6, lengths=(2, 5))


@pytest.mark.parametrize("name,params,n", [("dyck", {"k": 2}, 10), ("dyck_bounded", {"D": 3}, 12),
                                           ("parity", {}, 9)])
def test_members_are_members_and_end_with_eos(name, params, n):
    task = tasks.get(name, n=n, **params)
    oracle = task.prefix_oracle(64)
    x = oracle.members(np.random.default_rng(1), 200, n)
    assert (task.oracle(x) == 1).all()
    sets = oracle.next_sets(x)
    bits = unpack(sets, oracle.letters + 1)
    # every letter read was allowed, and the whole word may end
    assert bits[np.arange(200)[:, None], np.arange(n)[None, :], x].all()
    assert bits[:, -1, oracle.eos_bit].all()


def test_long_words_scan_matches_stepwise_run():
    task = tasks.get("parity", n=5)
    oracle = task.prefix_oracle(300)
    x = np.random.default_rng(2).integers(0, 2, size=(50, 257))
    q = oracle.states(x)
    assert (q[:, 1:] == np.cumsum(x, axis=1) % 2).all()


def test_label_only_tasks_say_why():
    with pytest.raises(NoPrefixOracle, match="no prefix oracle"):
        tasks.get("majority", n=5).prefix_oracle(20)
