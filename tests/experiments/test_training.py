"""The model learns what it should, fails where theory says it should, deterministically."""

import math

import numpy as np
import pytest
import torch

from theorybench.experiments import in_distribution, length_generalization
from theorybench.experiments.data import TaskData
from theorybench.experiments.model import ModelConfig, Transformer
from theorybench.experiments.profiles import PROFILES
from theorybench.experiments.spec import DEFAULT_BINS, RunSpec
from theorybench.experiments.trainer import RunFailed, TrainingConfig, loss_fn, lr_at, train

SMOKE = PROFILES["smoke"].in_training


def test_overfits_a_tiny_batch():
    g = torch.Generator().manual_seed(0)
    m = Transformer(ModelConfig(vocab_size=5, num_labels=4, layers=2, width=64, heads=2,
                                encoding="learned", max_positions=16), generator=g)
    x = torch.randint(0, 5, (8, 12), generator=g)
    y = torch.randint(0, 4, (8, 12), generator=g)  # random labels: only memorizing fits
    y[:, :4] = -100  # short prefixes may repeat across rows; score positions 4.. only
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3)
    for _ in range(300):
        loss = loss_fn(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert float(loss.detach()) < 0.15
    assert (m(x).argmax(-1) == y)[:, 4:].all()


def test_learns_easy_task_and_not_parity():
    """any at n=16 is learned to >= 0.95 within the smoke budget; parity at n=16 stays
    within 0.1 of chance under that budget (cut to 250 steps to save test time)."""
    easy = in_distribution.run(RunSpec("in_distribution", "any", n=16, training=SMOKE), progress=False)
    assert easy["test_accuracy"] >= 0.95 and easy["reached_target"]
    hard_cfg = TrainingConfig(**{**SMOKE.to_dict(), "steps": 250})
    hard = in_distribution.run(RunSpec("in_distribution", "parity", n=16, training=hard_cfg),
                               progress=False)
    assert abs(hard["test_accuracy"] - 0.5) < 0.1 and not hard["reached_target"]
    assert hard["steps"] == 250 and abs(hard["chance_accuracy"] - 0.5) < 0.05
    assert easy["test_accuracy"] - hard["test_accuracy"] > 0.3


def test_same_seed_same_metrics():
    spec = RunSpec("in_distribution", "majority", n=7, seed=3,
                   training=TrainingConfig(steps=30, eval_every=10, eval_count=64,
                                           final_eval_count=128, target=1.0))
    a = in_distribution.run(spec, progress=False)
    b = in_distribution.run(spec, progress=False)
    for m in (a, b):  # timings are the only fields allowed to differ
        m.pop("wall_s"), m.pop("time_split")
    assert a == b
    c = in_distribution.run(RunSpec(**{**spec.__dict__, "seed": 4}), progress=False)
    c.pop("wall_s"), c.pop("time_split")
    assert c != a


def test_fixed_training_set_mode():
    spec = RunSpec("in_distribution", "any", n=8, train_size=128,
                   training=TrainingConfig(steps=100, eval_every=50, eval_count=128,
                                           final_eval_count=256, lr=3e-3))
    m = in_distribution.run(spec, progress=False)
    assert m["test_accuracy"] > 0.9


def test_length_generalization_metrics_shape():
    spec = RunSpec("length_generalization", "any", train_max_len=8,
                   eval_bins=((1, 8), (9, 16), (17, 24)), encoding="alibi",
                   training=TrainingConfig(steps=20, eval_every=10, eval_count=64,
                                           final_eval_count=64))
    m = length_generalization.run(spec, progress=False)
    assert list(m["bins"]) == ["<=8", "9-16", "17-24"]
    assert all(0 <= v <= 1 for v in m["bins"].values())
    assert {"train_accuracy", "steps", "wall_s", "chance_accuracy"} <= set(m)
    assert m["notes"] == []


def test_learned_table_past_training_lengths_is_explained():
    """A plain learned table evaluated past its training lengths runs (that failure is
    what the line measures) and says which rows were never trained."""
    spec = RunSpec("length_generalization", "any", train_max_len=8,
                   eval_bins=((1, 8), (9, 16)), encoding="learned",
                   training=TrainingConfig(steps=5, eval_every=5, eval_count=32,
                                           final_eval_count=32))
    m = length_generalization.run(spec, progress=False)
    assert set(m["bins"]) == {"<=8", "9-16"}
    assert len(m["notes"]) == 1 and "8..15 were never trained" in m["notes"][0]
    assert "learned_offsets" in m["notes"][0]


def test_divergence_fails_the_run_with_a_reason():
    data = TaskData("parity", {}, [8])
    g = torch.Generator().manual_seed(0)
    m = Transformer(ModelConfig(vocab_size=len(data.vocab), num_labels=2, width=32, heads=2), g)
    with torch.no_grad():
        m.head.weight.fill_(math.inf)
    rng = np.random.default_rng(0)
    with pytest.raises(RunFailed, match="diverged"):
        train(m, lambda s: data.sample(rng, 8), lambda c: data.sample(rng, c), "final",
              TrainingConfig(steps=5), g)


def test_schedule_warmup_then_cosine():
    cfg = TrainingConfig(steps=110, warmup=10, lr=1.0)
    assert lr_at(0, cfg) == pytest.approx(0.1) and lr_at(9, cfg) == pytest.approx(1.0)
    assert lr_at(60, cfg) == pytest.approx(0.5) and lr_at(110, cfg) == pytest.approx(0.0)


def test_constant_schedule_keeps_the_rate_after_warmup():
    cfg = TrainingConfig(steps=100, warmup=0, lr=0.5, schedule="constant")
    assert {lr_at(k, cfg) for k in (0, 50, 99, 100)} == {0.5}
    warm = TrainingConfig(steps=100, warmup=4, lr=1.0, schedule="constant")
    assert lr_at(1, warm) == pytest.approx(0.5) and lr_at(80, warm) == 1.0


def test_default_grid_is_27_configurations():
    from theorybench.experiments.profiles import expand
    specs = expand("length_generalization", "paper", ["parity"], seeds=[0])
    assert len(specs) == 27 and len({(s.size, s.encoding) for s in specs}) == 27
    assert all(s.eval_bins == DEFAULT_BINS and s.train_max_len == 32 for s in specs)


def test_time_split_accounts_for_the_whole_run():
    spec = RunSpec("in_distribution", "majority", n=7, seed=0,
                   training=TrainingConfig(steps=20, eval_every=10, eval_count=64,
                                           final_eval_count=128, target=1.0))
    split = in_distribution.run(spec, progress=False)["time_split"]
    parts = split["data"] + split["eval"] + split["step"] + split["other"]
    assert abs(parts - split["total"]) < 1e-3 and split["step"] > 0 and split["eval"] > 0
    assert 0 < split["outside_fraction"] < 1
    assert abs(split["outside_fraction"] - (1 - split["step"] / split["total"])) < 1e-3


@pytest.mark.parametrize("family,ns", [("parity", [3, 9, 20, 40]), ("khop", [8, 24])])
def test_trimmed_chunked_evaluation_equals_one_padded_pass(family, ns):
    """evaluate() cuts chunks to their longest row and pools counts over chunks; a causal
    model must give the same accuracy as one forward pass over the whole padded batch."""
    from theorybench.experiments.data import accuracy
    from theorybench.experiments.trainer import evaluate
    d = TaskData(family, {}, ns)
    b = d.sample(np.random.default_rng(5), 300)
    g = torch.Generator().manual_seed(1)
    m = Transformer(ModelConfig(vocab_size=len(d.vocab), num_labels=len(d.label_vocab),
                                layers=2, width=32, heads=2, encoding="rope",
                                max_positions=64), generator=g).eval()
    with torch.no_grad():
        whole = accuracy(m(b.inputs), b.targets, d.output)
    # a small budget forces many chunks of different widths
    assert evaluate(m, b, d.output, torch.device("cpu"), tokens=200) == pytest.approx(whole, abs=1e-12)
    assert evaluate(m, b, d.output, torch.device("cpu")) == pytest.approx(whole, abs=1e-12)
