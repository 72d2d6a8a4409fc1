"""A readable causal (decoder-style) pre-LayerNorm transformer.

token embedding (+ absolute position vector, if the encoding has one)
-> ``layers`` x [x + Attn(LN(x)), x + MLP(LN(x))] -> final LN -> linear read-out to labels.

Attention is causal and always runs through torch's fused
``scaled_dot_product_attention``: with ``is_causal=True`` for encodings without an
additive bias; for those with one (ALiBi, T5, FIRE) with a float mask, the bias plus -inf
above the diagonal, built once per forward pass: softmax(q k^T / sqrt(d) + mask) v.

The read-out gives label logits at every position; :mod:`.data` decides which positions
are scored (the last input position for ``final`` tasks, every masked position for
``per_position`` tasks, the positions before each answer token for ``answer`` tasks).
Padding is always at the end of a row, so causal attention never lets a real position see
a pad and no padding mask is needed.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..errors import ConfigError
from .positional import build_encoding, get_encoding_class

#: name -> (layers, width). Heads scale with width: one head per 32 dimensions.
#: name -> (layers, width). "deep" keeps the small width with the 4 layers of the study's
#: in-distribution models: enough depth for the known k-hop constructions (3 layers for
#: k = 2, 3), at about twice a small model's step time on CPU.
SIZES = {"small": (2, 64), "base": (4, 256), "large": (6, 384), "deep": (4, 64)}
#: the sizes of the paper profile's 27-configuration length-generalization grid
GRID_SIZES = ("small", "base", "large")
HEAD_DIM = 32
#: An explicit architecture, as published sweeps name theirs: ``"4l2h256w"`` is 4 layers,
#: 2 heads, width 256 (Huang et al. 2025 choose per task over layers x heads x width).
_SHAPE = re.compile(r"^(\d+)l(\d+)h(\d+)w$")


def size_shape(size: str) -> tuple[int, int, int]:
    """(layers, heads, width) of a size name or an explicit ``"<L>l<H>h<W>w"`` spelling
    (``ConfigError`` naming the known sizes otherwise)."""
    if size in SIZES:
        layers, width = SIZES[size]
        return layers, max(1, width // HEAD_DIM), width
    m = _SHAPE.match(size) if isinstance(size, str) else None
    if m:
        layers, heads, width = map(int, m.groups())
        if min(layers, heads, width) >= 1 and width % heads == 0 and layers <= 64 \
                and width <= 8192:
            return layers, heads, width
    raise ConfigError(f"unknown model size {size!r}; known sizes: {', '.join(SIZES)}, or "
                      f"'<layers>l<heads>h<width>w' such as '4l2h256w' (width divisible by "
                      f"heads)")


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int            # number of input token ids (embedding rows)
    num_labels: int            # number of output classes of the read-out
    layers: int = 2            # number of transformer blocks
    width: int = 64            # residual stream dimension d_model
    heads: int = 2             # attention heads; width must be divisible by heads
    mlp_ratio: int = 4         # hidden width of the MLP is mlp_ratio * width
    encoding: str = "nope"     # positional encoding name (see positional.ENCODINGS)
    max_positions: int = 512   # size of position tables / range of random positions
    dropout: float = 0.0       # dropout on attention output and MLP output

    def __post_init__(self):
        get_encoding_class(self.encoding)
        if self.width % self.heads:
            raise ConfigError(f"width {self.width} is not divisible by heads {self.heads}")
        if min(self.vocab_size, self.num_labels, self.layers, self.width, self.max_positions) < 1:
            raise ConfigError(f"model config has a non-positive size: {self}")

    @classmethod
    def of_size(cls, size: str, **kw) -> "ModelConfig":
        """The named size (:func:`size_shape`) with the other fields from ``kw``."""
        layers, heads, width = size_shape(size)
        return cls(layers=layers, width=width, heads=heads, **kw)

    def to_dict(self) -> dict:
        return asdict(self)


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.heads, self.dh = cfg.heads, cfg.width // cfg.heads
        self.qkv = nn.Linear(cfg.width, 3 * cfg.width)
        self.out = nn.Linear(cfg.width, cfg.width)
        self.dropout = cfg.dropout

    def forward(self, x, pos, enc, bias):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        q, k = enc.rotate(q, k, pos)
        p = self.dropout if self.training else 0.0
        if bias is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)
        else:  # ``bias`` already holds the causal mask (-inf above the diagonal)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype),
                                               dropout_p=p)
        return self.out(y.transpose(1, 2).reshape(b, t, -1))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.width), nn.LayerNorm(cfg.width)
        self.attn = Attention(cfg)
        hidden = cfg.mlp_ratio * cfg.width
        self.mlp = nn.Sequential(nn.Linear(cfg.width, hidden), nn.GELU(),
                                 nn.Linear(hidden, cfg.width), nn.Dropout(cfg.dropout))

    def forward(self, x, pos, enc, bias):
        x = x + self.attn(self.ln1(x), pos, enc, bias)
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    """Causal transformer; ``forward(tokens) -> logits (batch, length, num_labels)``."""

    def __init__(self, cfg: ModelConfig, generator: torch.Generator | None = None):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.width)
        self.enc = build_encoding(cfg.encoding, cfg.width, cfg.heads, cfg.max_positions)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.ln = nn.LayerNorm(cfg.width)
        self.head = nn.Linear(cfg.width, cfg.num_labels)
        self.reset_parameters(generator)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """GPT-2 style init from ``generator``: N(0, 0.02) weights (output projections
        scaled by 1/sqrt(2 layers)), zero biases, unit LayerNorms."""
        for child, module in self.named_children():  # named_parameters' order
            if module is self.enc:  # the encoding owns its initialisation
                self.enc.reset_parameters(generator, self.cfg.layers)
                continue
            for name, p in module.named_parameters(prefix=child):
                if name.endswith("ln.weight") or ".ln1." in name or ".ln2." in name:
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                elif p.dim() == 1:
                    p.zero_()
                else:
                    std = 0.02
                    if name.endswith("attn.out.weight") or name.endswith("mlp.2.weight"):
                        std /= math.sqrt(2 * self.cfg.layers)
                    p.copy_(torch.randn(p.shape, generator=generator) * std)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, tokens: torch.Tensor, positions: torch.Tensor | None = None,
                generator: torch.Generator | None = None) -> torch.Tensor:
        b, t = tokens.shape
        pos = positions if positions is not None else self.enc.positions(
            b, t, generator, self.training, device=tokens.device)
        x = self.embed(tokens)
        pe = self.enc.embed(pos)
        if pe is not None:
            x = x + pe.to(x.dtype)
        # a bias is (rows, heads, T, T): compute it once when every row has the same positions
        same = pos.shape[0] == 1 or bool((pos == pos[:1]).all())
        bias = self.enc.bias(pos[:1] if same else pos)
        if bias is not None:
            # one additive float mask (bias + causal) for every layer, so that biased
            # encodings take the fused attention kernel too
            future = torch.ones(t, t, dtype=torch.bool, device=tokens.device).triu(1)
            bias = bias.to(x.dtype).masked_fill(future, float("-inf"))
        for block in self.blocks:
            x = block(x, pos, self.enc, bias)
        return self.head(self.ln(x))

    def describe(self) -> str:
        c = self.cfg
        return (f"Transformer({c.layers} layers, width {c.width}, {c.heads} heads, "
                f"encoding {c.encoding}): {self.num_parameters():,} parameters")
