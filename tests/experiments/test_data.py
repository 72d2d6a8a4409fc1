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


def _parity_rows_ok(d, b):
    """Every row of a parity batch: label = parity of its real bits, read at its end."""
    lengths = []
    for row, tgt in zip(b.inputs.numpy(), b.targets.numpy()):
        real = row[row != 0]
        bits = [int(d.vocab[t]) for t in real]
        assert (tgt != IGNORE).sum() == 1
        assert d.label_vocab[tgt[len(real) - 1]] == str(sum(bits) % 2)
        lengths.append(len(real))
    return lengths


def test_stream_rows_are_fresh_correct_and_trimmed():
    d = TaskData("parity", {}, [2, 5, 9])
    stream = d.stream(np.random.default_rng(3), 16, block=5)  # refills inside most batches
    seen = set()
    for _ in range(40):
        b = stream()
        assert len(b) == 16
        lengths = _parity_rows_ok(d, b)
        assert b.inputs.shape[1] == max(lengths)          # no all-padding column kept
        assert lengths == sorted(lengths)                 # grouped by n, as sample() does
        seen.update(lengths)
    assert seen == {2, 5, 9}


def test_stream_same_seed_same_batches():
    d = TaskData("majority", {}, [3, 7, 11])
    a = d.stream(np.random.default_rng(7), 8, block=4)
    b = d.stream(np.random.default_rng(7), 8, block=4)
    for _ in range(10):
        x, y = a(), b()
        assert torch.equal(x.inputs, y.inputs) and torch.equal(x.targets, y.targets)


def test_stream_sizes_are_uniform():
    d = TaskData("parity", {}, [2, 3, 4, 5])
    stream = d.stream(np.random.default_rng(0), 64)
    counts = np.zeros(6)
    for _ in range(50):
        lengths = (stream().inputs != 0).sum(1).numpy()
        counts += np.bincount(lengths, minlength=6)
    share = counts[2:] / counts.sum()
    assert np.abs(share - 0.25).max() < 0.03   # 3200 rows: s.e. of a share ~0.008


@pytest.mark.skipif("khop" not in families(), reason="khop not registered yet")
def test_trim_keeps_every_scored_position():
    from theorybench.experiments.data import trim, used_widths
    d = TaskData("khop", {}, [6, 12])
    b = d.sample(np.random.default_rng(2), 32, [6])
    wide = d.sample(np.random.default_rng(2), 32, [12])
    padded = type(b)(torch.nn.functional.pad(b.inputs, (0, 9)),
                     torch.nn.functional.pad(b.targets, (0, 9), value=IGNORE))
    t = trim(padded)
    assert torch.equal(t.inputs, b.inputs) and torch.equal(t.targets, b.targets)
    assert int(used_widths(wide).min()) == wide.inputs.shape[1]


def test_stream_never_repeats_an_instance():
    d = TaskData("parity", {}, [30, 40])   # 2^30+ inputs: a repeat would be the stream's fault
    stream = d.stream(np.random.default_rng(4), 24, block=7)
    rows = [tuple(r) for _ in range(60) for r in stream().inputs.numpy()]
    assert len(rows) == 60 * 24 and len(set(rows)) == len(rows)


def test_stream_never_serves_an_empty_row():
    """Every row holds an instance, also when a batch asks one size for more rows than a
    buffer was sized for (the buffers then grow; earlier this left unfilled rows behind)."""
    d = TaskData("parity", {}, list(range(1, 33)))
    stream = d.stream(np.random.default_rng(0), 64, block=4)
    batches = [stream() for _ in range(300)] + [stream.take(500), stream()]
    for b in batches:
        assert ((b.targets != IGNORE).sum(1) == 1).all()
        assert ((b.inputs != 0).sum(1) >= 1).all()
