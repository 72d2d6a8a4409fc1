"""Task batches -> tensors, checked row by row against the task's own batch and labels."""

import numpy as np
import pytest
import torch

from theorybench import tasks
from theorybench.experiments.data import (IGNORE, TaskData, accuracy, chance_accuracy,
                                          sizes_in_range)


def families():
    return set(tasks.families())


def test_final_output_read_at_last_real_position():
    d = TaskData("parity", {}, [4, 6, 8])
    b = d.sample(np.random.default_rng(0), 64)
    assert d.vocab[0] == "<pad>" and b.inputs.shape == (64, 8)
    for row, tgt in zip(b.inputs.numpy(), b.targets.numpy()):
        real = row[row != 0]
        bits = [int(d.vocab[t]) for t in real]
        assert (tgt != IGNORE).sum() == 1 and tgt[len(real) - 1] != IGNORE
        assert d.label_vocab[tgt[len(real) - 1]] == str(sum(bits) % 2)
        assert (row[len(real):] == 0).all()
    assert set(len(r[r != 0]) for r in b.inputs.numpy()) == {4, 6, 8}


@pytest.mark.skipif("khop" not in families(), reason="khop not registered yet")
def test_per_position_labels_follow_the_oracle():
    d = TaskData("khop", {}, [12])
    task = d.tasks[12]
    b = d.sample(np.random.default_rng(1), 16)
    inv = {i: task.index[t] for i, t in enumerate(d.vocab) if t in task.index}
    toks = np.vectorize(inv.get)(b.inputs.numpy())
    want = task.oracle(toks)
    got = b.targets.numpy()
    scored = got != IGNORE
    names = np.array(d.label_vocab)[np.where(scored, got, 0)]
    assert (names[scored] == np.array(task.label_vocab)[want][scored]).all()


@pytest.mark.skipif("binary_add" not in families(), reason="binary_add not registered yet")
def test_answer_tokens_follow_the_input_and_are_scored_one_early():
    d = TaskData("binary_add", {}, [3, 5])
    b = d.sample(np.random.default_rng(2), 32)
    for row, tgt in zip(b.inputs.numpy(), b.targets.numpy()):
        text = [d.vocab[t] for t in row if t != 0]
        eq = text.index("=")
        a_bits, b_bits = text[:eq][: text.index("+")], text[text.index("+") + 1: eq]
        a, bb = int("".join(a_bits), 2), int("".join(b_bits), 2)
        answer = text[eq + 1:]
        scored = np.nonzero(tgt != IGNORE)[0]
        assert scored[0] == eq and list(scored) == list(range(eq, eq + len(answer)))
        assert [d.label_vocab[t] for t in tgt[scored]] == answer  # next-token targets
        n = len(a_bits)
        assert len(answer) == n + 1
        assert int("".join(answer), 2) == a + bb or int("".join(answer[::-1]), 2) == a + bb


def test_accuracy_kinds():
    logits = torch.zeros(2, 3, 2)
    logits[0, :, 1] = 1  # row 0 predicts 1 everywhere, row 1 predicts 0
    targets = torch.tensor([[1, 1, IGNORE], [0, 1, IGNORE]])
    assert accuracy(logits, targets, "per_position") == pytest.approx(3 / 4)
    assert accuracy(logits, targets, "answer") == pytest.approx(1 / 2)


def test_chance_accuracy_best_constant():
    t = torch.tensor([[IGNORE, 1], [IGNORE, 1], [IGNORE, 0], [IGNORE, 1]])
    b = type("B", (), {"targets": t})()
    assert chance_accuracy(b, "final", 2) == pytest.approx(0.75)
    assert chance_accuracy(b, "answer", 2) == pytest.approx(0.75)


def test_sizes_in_range_respects_validity():
    assert sizes_in_range("majority", {}, 1, 9) == [1, 3, 5, 7, 9]
    assert sizes_in_range("parity", {}, 33, 40) == list(range(33, 41))
