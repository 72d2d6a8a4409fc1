"""Counter-automaton task files (COUNTER = {...}): the label against independent
definitions of each language, the prefix oracle against a brute-force search over every
extension, members drawn through the oracle, and bad definitions refused with the fix."""

import itertools

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import NoPrefixOracle, TaskParameterError
from theorybench.tasks import counter
from theorybench.tasks.prefix import unpack

from .test_prefix import check_against_brute

ANBN = '''
NAME = "anbn_{tag}"
ALPHABET = ("a", "b")
LENGTHS = (1, 200)
COUNTER = {{"start": "A", "accept": ["B"], "init": (0,),
            "delta": {{"A": {{"a": ("A", (1,)), "b": ("B", (-1,))}},
                       "B": {{"b": ("B", (-1,))}}}}}}
'''
ANBNCN = '''
NAME = "anbncn_{tag}"
ALPHABET = ("a", "b", "c")
LENGTHS = (1, 200)
# counter 0: a's not yet matched by b's; counter 1: a's not yet matched by c's
COUNTER = {{"start": 0, "accept": [2], "init": (0, 0),
            "delta": {{0: {{"a": (0, (1, 1)), "b": (1, (-1, 0))}},
                       1: {{"b": (1, (-1, 0)), "c": (2, (0, -1))}},
                       2: {{"c": (2, (0, -1))}}}}}}
'''
SHUFFLE = '''
NAME = "shuffle_{tag}"
ALPHABET = ("(", ")", "[", "]")
LENGTHS = (1, 200)
COUNTER = {{"start": 0, "accept": [0], "init": (0, 0),
            "delta": {{0: {{"(": (0, (1, 0)), ")": (0, (-1, 0)),
                           "[": (0, (0, 1)), "]": (0, (0, -1))}}}}}}
'''
# prefix (Polish) notation: a counter of the operands still needed, 1 at the start; an
# operator fills one slot and opens its arity's, so it needs one open slot
BOOL = '''
NAME = "bool_{tag}"
ALPHABET = ("0", "1", "~", "+")
LENGTHS = (1, 200)
COUNTER = {{"start": 0, "accept": [0], "init": (1,),
            "delta": {{0: {{"0": (0, (-1,)), "1": (0, (-1,)), "~": (0, (0,), (1,)),
                           "+": (0, (1,), (1,))}}}}}}
'''


def _anbn(w):
    k = len(w) // 2
    return len(w) % 2 == 0 and k > 0 and w == "a" * k + "b" * k


def _anbncn(w):
    k = len(w) // 3
    return len(w) % 3 == 0 and k > 0 and w == "a" * k + "b" * k + "c" * k


def _shuffle(w):
    for o, c in ("()", "[]"):
        d = 0
        for s in w:
            d += (s == o) - (s == c)
            if d < 0:
                return False
        if d:
            return False
    return True


def _bool(w):
    def parse(i):  # the end of one expression starting at i, or None
        if i >= len(w):
            return None
        if w[i] in "01":
            return i + 1
        j = parse(i + 1)
        return j if w[i] == "~" or j is None else parse(j)
    return parse(0) == len(w)


CASES = [(ANBN, _anbn, 2), (ANBNCN, _anbncn, 3), (SHUFFLE, _shuffle, 4), (BOOL, _bool, 4)]


def _load(tmp_path, text, tag):
    path = tmp_path / f"{tag}.py"
    path.write_text(text.format(tag=tag))
    return tasks.registry.load_task_file(path)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_label_equals_an_independent_definition(tmp_path, i):
    text, member, k = CASES[i]
    cls = _load(tmp_path, text, f"lab{i}")
    for n in (1, 2, 3, 6):
        t = cls(n=n)
        x = t.enumerate()
        want = np.array([member("".join(t.alphabet[j] for j in row)) for row in x], dtype=int)
        assert (t.label(x) == want).all() and (t.oracle(x) == want).all()


@pytest.mark.parametrize("i", range(len(CASES)))
def test_prefix_oracle_equals_brute_force(tmp_path, i):
    text, _, k = CASES[i]
    cls = _load(tmp_path, text, f"pre{i}")
    hi = {2: 10, 3: 9, 4: 7}[k]
    check_against_brute(cls(n=2), hi, lengths=(0, 1, 3, hi - 1))


@pytest.mark.parametrize("i", range(len(CASES)))
def test_members_are_members_uniformly(tmp_path, i):
    text, member, _ = CASES[i]
    cls = _load(tmp_path, text, f"mem{i}")
    oracle = cls(n=2).prefix_oracle(150)
    rng = np.random.default_rng(3)
    n = next(m for m in (148, 147, 146) if oracle.has_members(m))
    x = oracle.members(rng, 50, n)
    assert all(member("".join(cls.alphabet[j] for j in row)) for row in x)
    bits = unpack(oracle.next_sets(x), oracle.letters + 1)
    assert bits[np.arange(50)[:, None], np.arange(n)[None, :], x].all()
    assert bits[:, -1, oracle.eos_bit].all() and not bits[:, :-1, oracle.eos_bit].all()
    # uniform among the members of a small length: each of the few equally often
    small = next(m for m in (6, 5, 4) if oracle.has_members(m))
    words = cls(n=small).enumerate()
    many = len(words[cls(n=small).label(words) == 1])
    got = oracle.members(rng, 4000 * many, small) if many <= 20 else None
    if got is not None:
        _, counts = np.unique(got, axis=0, return_counts=True)
        assert len(counts) == many and counts.min() > 0.8 * 4000


def test_training_rows_are_half_members(tmp_path):
    cls = _load(tmp_path, ANBNCN, "draw")
    b = cls(n=30).sample(np.random.default_rng(0), 400)
    assert 0.35 < b.labels.mean() < 0.65
    assert (cls(n=30).oracle(b.tokens) == b.labels).all()


def test_scan_matches_a_stepwise_run(tmp_path):
    cls = _load(tmp_path, SHUFFLE, "scan")
    m = cls.counter
    x = np.random.default_rng(4).integers(0, 4, size=(40, 60))
    q, c = m.configurations(x)
    for t in (0, 1, 17, 60):   # the label after t letters equals run on the first t
        end = m.accept[q[:, t]] & (c[:, t] == 0).all(axis=1)
        assert (end.astype(int) == m.run(x[:, :t])).all()


@pytest.mark.parametrize("body,fix", [
    ('{"start": 0, "accept": [0], "delta": {0: {"a": (0, (1,))}}}', '"init"'),
    ('{"start": 0, "accept": [0], "init": (0,), "delta": {0: {"c": (0, (1,))}}}',
     "not in ALPHABET"),
    ('{"start": 0, "accept": [0], "init": (0,), "delta": {0: {"a": (1, (1,))}}}',
     "not a state"),
    ('{"start": 0, "accept": [0], "init": (0,), "delta": {0: {"a": (0, (1, 2))}}}',
     "1 integer"),
    ('{"start": 0, "accept": [0], "init": (0,), "delta": {0: {"a": (0, (-1,), (0,))}}}',
     "below 0"),
    ('{"start": 0, "accept": [0], "init": (0,), "delta": {0: {"a": (0, (1,))}}}',
     "accepts no word"),
    ('{"start": 9, "accept": [0], "init": (0,), "delta": {0: {"a": (0, (1,))}}}',
     "start state"),
    ('{"start": 0, "accept": [0], "init": (-1,), "delta": {0: {"a": (0, (1,))}}}',
     "0 or more"),
])
def test_bad_definitions_say_what_to_fix(tmp_path, body, fix):
    path = tmp_path / "bad.py"
    path.write_text(f'NAME = "bad_counter"\nALPHABET = ("a", "b")\nLENGTHS = (1, 20)\n'
                    f'COUNTER = {body}\n')
    with pytest.raises(TaskParameterError, match=fix) as exc:
        tasks.registry.load_task_file(path)
    assert "bad.py:4:" in str(exc.value)


def test_too_many_configurations_is_refused_with_the_reason(monkeypatch, tmp_path):
    cls = _load(tmp_path, SHUFFLE, "big")
    monkeypatch.setattr(counter, "MAX_CONFIGS", 50)
    with pytest.raises(NoPrefixOracle, match="configurations"):
        cls(n=2).prefix_oracle(60)
