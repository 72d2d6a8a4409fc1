"""Every positional encoding: shapes, causality, translation invariance of the relative ones."""

import pytest
import torch

from theorybench.errors import ConfigError
from theorybench.experiments.model import ModelConfig, Transformer
from theorybench.experiments.positional import ENCODINGS, alibi_slopes

ALL = sorted(ENCODINGS)
RELATIVE = ("rope", "alibi", "t5")
ABSOLUTE = ("learned", "learned_offsets", "sinusoidal")


def model(enc, max_positions=64, seed=0):
    cfg = ModelConfig(vocab_size=7, num_labels=3, layers=2, width=32, heads=2, encoding=enc,
                      max_positions=max_positions)
    m = Transformer(cfg, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():  # larger random weights make every position matter
        for p in m.parameters():
            if p.dim() >= 2:
                p.mul_(20)
    return m.eval()


def test_nine_encodings_registered():
    assert len(ENCODINGS) == 9
    for cls in ENCODINGS.values():
        assert cls.source and cls.__doc__ and "Source" in cls.__doc__


@pytest.mark.parametrize("enc", ALL)
def test_shapes_and_causality(enc):
    m = model(enc)
    x = torch.randint(0, 7, (3, 20), generator=torch.Generator().manual_seed(1))
    pos = torch.arange(20).expand(3, 20)
    out = m(x, positions=pos)
    assert out.shape == (3, 20, 3) and torch.isfinite(out).all()
    y = x.clone()
    y[:, 12:] = (y[:, 12:] + 1 + torch.randint(0, 6, (3, 8))) % 7   # change every later token
    out2 = m(y, positions=pos)
    assert torch.allclose(out[:, :12], out2[:, :12], atol=1e-5)
    assert not torch.allclose(out[:, 12:], out2[:, 12:], atol=1e-3)  # the perturbation matters


@pytest.mark.parametrize("enc", RELATIVE)
def test_relative_encodings_are_translation_invariant(enc):
    m = model(enc, max_positions=200)
    x = torch.randint(0, 7, (2, 16), generator=torch.Generator().manual_seed(2))
    base = torch.arange(16).expand(2, 16)
    a = m(x, positions=base)
    b = m(x, positions=base + 37)
    assert torch.allclose(a, b, atol=1e-4)


@pytest.mark.parametrize("enc", ABSOLUTE + ("fire", "randomized"))
def test_absolute_encodings_see_the_shift(enc):
    m = model(enc, max_positions=200)
    x = torch.randint(0, 7, (2, 16), generator=torch.Generator().manual_seed(2))
    base = torch.arange(16).expand(2, 16)
    assert not torch.allclose(m(x, positions=base), m(x, positions=base + 37), atol=1e-3)


def test_nope_ignores_positions_entirely():
    m = model("nope")
    x = torch.randint(0, 7, (2, 10))
    base = torch.arange(10).expand(2, 10)
    assert torch.equal(m(x, positions=base), m(x, positions=base * 3 + 5))


def test_learned_refuses_past_its_table():
    m = model("learned", max_positions=8)
    with pytest.raises(ConfigError, match="learned_offsets"):
        m(torch.zeros(1, 9, dtype=torch.long))


def test_offsets_and_randomized_positions_in_training():
    g = torch.Generator().manual_seed(0)
    off = model("learned_offsets", max_positions=50).enc
    pos = off.positions(4, 10, g, training=True)
    assert (pos[:, 1:] - pos[:, :-1] == 1).all() and pos.max() < 50
    assert (off.positions(4, 10, g, training=False) == torch.arange(10)).all()
    rnd = model("randomized", max_positions=50).enc
    pos = rnd.positions(4, 10, g, training=True)
    assert (pos[:, 1:] > pos[:, :-1]).all() and pos.max() < 50 and len(set(pos[:, 0].tolist())) > 1
    with pytest.raises(ConfigError):
        rnd.positions(1, 51, g, training=False)


def test_alibi_slopes_closed_form():
    assert torch.allclose(alibi_slopes(8), torch.tensor([2.0 ** -(i + 1) for i in range(8)]))
    assert len(alibi_slopes(6)) == 6


def test_unknown_encoding_lists_the_known_ones():
    with pytest.raises(ConfigError, match="rope"):
        ModelConfig(vocab_size=2, num_labels=2, encoding="bogus")
    with pytest.raises(ConfigError, match="small"):
        ModelConfig.of_size("huge", vocab_size=2, num_labels=2)


def test_sizes_and_heads():
    for size, (layers, width, heads) in {"small": (2, 64, 2), "base": (4, 256, 8),
                                         "large": (6, 384, 12)}.items():
        cfg = ModelConfig.of_size(size, vocab_size=2, num_labels=2)
        assert (cfg.layers, cfg.width, cfg.heads) == (layers, width, heads)
    m = Transformer(ModelConfig.of_size("small", vocab_size=2, num_labels=2, max_positions=4))
    # embed 2*64 + 2 blocks * (12*64^2 + 13*64... ) counted by hand below
    w = 64
    block = (3 * w * w + 3 * w) + (w * w + w) + 2 * (4 * w * w) + 4 * w + w + 4 * (w)
    assert m.num_parameters() == 2 * w + 2 * block + 2 * w + (w * 2 + 2)


def test_a_new_encoding_owns_its_init_and_declares_its_bound():
    """The model and the harness ask the encoding, never its name: a registered encoding's
    ``initial`` values reach the model, and ``bounded_positions`` makes a too small table a
    ConfigError before training."""
    from torch import nn

    from theorybench.experiments.harness import check_positions
    from theorybench.experiments.positional import PositionalEncoding, register
    from theorybench.experiments.spec import RunSpec

    with ENCODINGS.scoped():
        @register
        class Scaled(PositionalEncoding):
            """Source: none (a test encoding)."""
            name = "zz_scaled"
            bounded_positions = True
            initial = {"scale": 2.5}

            def __init__(self, width, heads, max_positions):
                super().__init__(width, heads, max_positions)
                self.scale = nn.Parameter(torch.tensor(0.0))

        m = model("zz_scaled")
        assert float(m.enc.scale.detach()) == 2.5
        spec = RunSpec(line="in_distribution", task="parity", n=8, encoding="zz_scaled",
                       max_positions=4)
        with pytest.raises(ConfigError, match="cannot read inputs of length 9"):
            check_positions(spec, 9)
        assert check_positions(RunSpec(line="in_distribution", task="parity", n=8,
                                       encoding="nope", max_positions=4), 9) == 4
    assert "zz_scaled" not in ENCODINGS
    with pytest.raises(ConfigError, match="did you mean rope"):
        ENCODINGS.get("ropee")
