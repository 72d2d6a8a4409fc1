"""The next-symbol objective: batches of members with their sets, the per-symbol loss, the
per-string accuracy, and a REGEX task file the code has never seen trained under it."""

import functools
import itertools
import re

import numpy as np
import pytest
import torch

from theorybench import tasks
from theorybench.errors import ConfigError, NoPrefixOracle
from theorybench.experiments import length_generalization as lg
from theorybench.experiments.data import (BOS_TOKEN, IGNORE, NEXT_SET, NEXT_SYMBOL, TaskData,
                                          accuracy, chance_accuracy, sizes_in_range)
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.trainer import TrainingConfig, loss_fn


@functools.lru_cache(maxsize=None)
def regex_members(regex: str, letters: str, lengths: range) -> frozenset[str]:
    """Every member of ``regex`` at ``lengths``, by Python's own regex engine over every
    word (independent of the automata code); enumerated once per language."""
    return frozenset("".join(w) for m in lengths for w in itertools.product(letters, repeat=m)
                     if re.fullmatch(regex, "".join(w)))


def regex_sets(regex: str, letters: str, word: str, lengths: range) -> list[set[str]]:
    """The allowed symbols after each prefix of ``word``: the next letters of the members
    that extend it, and the end when it is a member itself."""
    members = regex_members(regex, letters, lengths)
    out = []
    for t in range(len(word) + 1):
        p = word[:t]
        s = {w[t] for w in members if w.startswith(p) and len(w) > t}
        if p in members:
            s.add("<eos>")
        out.append(s)
    return out


def decode(d: TaskData, row_in, row_tgt) -> tuple[str, list[set[str]]]:
    real = [d.vocab[t] for t in row_in if t != 0]
    assert real[0] == BOS_TOKEN
    sets = [{d.label_vocab[j] for j in range(len(d.label_vocab)) if (v >> j) & 1}
            for v in row_tgt if v != IGNORE]
    return "".join(real[1:]), sets


@pytest.fixture
def regex_task(tmp_path):
    # (ab|ba)* c? : never seen by the code; only a REGEX declared
    path = tmp_path / "abba_c.py"
    path.write_text('NAME = "abba_c_ns"\nALPHABET = ("a", "b", "c")\nLENGTHS = (1, 12)\n'
                    'REGEX = "(ab|ba)*c?"\n')
    tasks.registry.load_task_file(path, export=False)
    return "abba_c_ns"


def test_regex_file_batches_hold_members_and_their_sets(regex_task):
    ns = sizes_in_range(regex_task, {}, 1, 7)
    d = TaskData(regex_task, {}, ns, objective=NEXT_SYMBOL)
    assert d.output == NEXT_SYMBOL and d.label_vocab[-1] == "<eos>"
    b = d.sample(np.random.default_rng(0), 200)
    seen = set()
    for row_in, row_tgt in zip(b.inputs.numpy(), b.targets.numpy()):
        word, sets = decode(d, row_in, row_tgt)
        assert re.fullmatch("(ab|ba)*c?", word), word
        # the sets are the language's (the file's lengths, up to 12), not cut at the
        # longest length of the batch (7)
        assert sets == regex_sets("(ab|ba)*c?", "abc", word, range(1, 13))
        seen.add(len(word))
    assert seen == set(d.ns) and len(seen) > 3   # every length with members, mixed


def test_dyck_batches_against_a_counter():
    d = TaskData("dyck", {"k": 1}, [2, 4, 6, 8], objective=NEXT_SYMBOL)
    b = d.sample(np.random.default_rng(1), 100)
    for row_in, row_tgt in zip(b.inputs.numpy(), b.targets.numpy()):
        word, sets = decode(d, row_in, row_tgt)
        depth = 0
        for t in range(len(word) + 1):
            # the sets of Dyck-1 itself, not of its words up to the batch's longest (8):
            # open always, close above depth 0, end at depth 0 after a non-empty word
            want = {"("}
            if depth > 0:
                want.add(")")
            if depth == 0 and t >= 2:
                want.add("<eos>")
            assert sets[t] == want, (word, t)
            if t < len(word):
                depth += 1 if word[t] == "(" else -1
        assert depth == 0


def test_long_test_strings_are_scored_against_the_unbounded_language():
    # a model trained on short strings is not penalised at the end of a long test string
    # for a cut no training string showed: "(" stays allowed at every position
    d = TaskData("dyck", {"k": 1}, [8, 150], objective=NEXT_SYMBOL)
    b = d.sample(np.random.default_rng(2), 50, [150])
    sets = b.targets.numpy()
    open_bit = 1 << d.label_vocab.index("(")
    scored = sets != IGNORE
    assert scored.sum(axis=1).min() == 151
    assert ((sets[scored] & open_bit) != 0).all()


def test_loss_is_per_symbol_and_accuracy_per_string():
    tgt = torch.tensor([[0b011, 0b100, IGNORE], [0b001, 0b110, 0b100]])
    perfect = torch.full((2, 3, 3), -9.0)
    for r in range(2):
        for t in range(3):
            if tgt[r, t] != IGNORE:
                for j in range(3):
                    if (int(tgt[r, t]) >> j) & 1:
                        perfect[r, t, j] = 9.0
    assert accuracy(perfect, tgt, NEXT_SYMBOL) == 1.0
    one_wrong = perfect.clone()
    one_wrong[1, 2, 0] = 9.0          # one symbol of one position of row 1
    assert accuracy(one_wrong, tgt, NEXT_SYMBOL) == 0.5
    padded = perfect.clone()
    padded[0, 2] = 9.0                # an unscored position never counts
    assert accuracy(padded, tgt, NEXT_SYMBOL) == 1.0
    # the loss: mean binary cross-entropy over scored positions x symbols
    logits = torch.zeros(2, 3, 3)
    assert float(loss_fn(logits, tgt, NEXT_SYMBOL)) == pytest.approx(np.log(2))
    assert float(loss_fn(perfect, tgt, NEXT_SYMBOL)) < 1e-3
    b = type("B", (), {"targets": tgt})
    assert chance_accuracy(b, NEXT_SYMBOL, 3) == 0.5


def test_a_task_without_prefix_oracle_says_why():
    with pytest.raises(NoPrefixOracle, match="majority"):
        TaskData("majority", {}, [3, 5], objective=NEXT_SYMBOL)
    with pytest.raises(ConfigError, match="objective"):
        TaskData("parity", {}, [3], objective="nonsense")
    with pytest.raises(ConfigError, match="objective"):
        RunSpec(line="in_distribution", task="parity", n=4, objective="next")


def test_objective_kept_out_of_membership_keys():
    a = RunSpec(line="in_distribution", task="parity", n=4)
    assert "objective" not in a.to_dict()
    b = RunSpec(line="in_distribution", task="parity", n=4, objective=NEXT_SYMBOL)
    assert b.key != a.key and RunSpec.from_dict(b.to_dict()) == b


def test_regex_file_trains_under_the_objective(regex_task):
    spec = RunSpec(line="length_generalization", task=regex_task, train_max_len=8,
                   eval_bins=((1, 8), (9, 12)), size="1l1h16w", encoding="nope",
                   objective=NEXT_SYMBOL,
                   training=TrainingConfig(steps=60, eval_every=30, eval_count=64,
                                           final_eval_count=128, warmup=5, lr=3e-3))
    m = lg.run(spec, progress=False)
    assert set(m["bins"]) == {"<=8", "9-12"}
    assert all(0 <= v <= 1 for v in m["bins"].values())
    assert m["steps"] >= 30 and np.isfinite(m["train_loss"])


def test_set_classes_hold_the_same_sets_one_class_each(regex_task):
    # the authors' cross-entropy objective: the same strings and sets, each set one class
    per_symbol = TaskData(regex_task, {}, range(1, 9), objective=NEXT_SYMBOL)
    per_set = TaskData(regex_task, {}, range(1, 9), objective=NEXT_SET)
    a = per_symbol.sample(np.random.default_rng(5), 40)
    b = per_set.sample(np.random.default_rng(5), 40)
    assert torch.equal(a.inputs, b.inputs) and torch.equal(a.targets, b.targets)
    assert per_set.output == NEXT_SET and len(per_set.label_vocab) == 2 ** 4
    # class k names the set whose bitmask is k, checked against Python's regex engine
    for row_in, row_tgt in zip(b.inputs.tolist(), b.targets.tolist()):
        word = "".join(per_set.vocab[t] for t in row_in if t != 0)[len(BOS_TOKEN):]
        names = [per_set.label_vocab[k] for k in row_tgt if k != IGNORE]
        want = regex_sets("(ab|ba)*c?", "abc", word, range(1, 13))
        assert names == ["{" + ",".join(x for x in ("a", "b", "c", "<eos>") if x in w) + "}"
                         for w in want]


def test_set_classes_score_the_argmax_per_string_with_a_cross_entropy():
    tgt = torch.tensor([[3, 4, IGNORE], [1, 6, 4]])
    logits = torch.zeros(2, 3, 8)
    for r in range(2):
        for t in range(3):
            if tgt[r, t] != IGNORE:
                logits[r, t, tgt[r, t]] = 5.0
    assert accuracy(logits, tgt, NEXT_SET) == 1.0
    wrong = logits.clone()
    wrong[1, 1, 7] = 9.0              # one set of row 1 mistaken for another
    assert accuracy(wrong, tgt, NEXT_SET) == 0.5
    assert float(loss_fn(torch.zeros(2, 3, 8), tgt, NEXT_SET)) == pytest.approx(np.log(8))


def test_set_classes_refuse_a_large_alphabet(tmp_path):
    path = tmp_path / "big.py"
    path.write_text('NAME = "big_alphabet_ns"\nALPHABET = tuple("abcdefghij")\n'
                    'LENGTHS = (1, 6)\nREGEX = "a[abcdefghij]*"\n')
    tasks.registry.load_task_file(path, export=False)
    with pytest.raises(ConfigError, match="at most 8 letters"):
        TaskData("big_alphabet_ns", {}, [3], objective=NEXT_SET)
    assert TaskData("big_alphabet_ns", {}, [3], objective=NEXT_SYMBOL).output == NEXT_SYMBOL
