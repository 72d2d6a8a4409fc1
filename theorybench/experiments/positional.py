"""The nine positional encodings, in a registry: name -> class.

Every encoding is a small ``nn.Module`` with four hooks the model calls (each may be a
no-op):

* ``positions(batch, length, generator, training)`` - the integer position of each token,
  (batch, length). The default is ``0, 1, ..., length-1``; the random-offset and the
  randomized encodings replace it (during training, or always).
* ``embed(pos)`` - a (batch, length, width) vector added to the token embeddings, or None.
* ``bias(pos)`` - an additive attention bias (batch or 1, heads, length, length), or None.
  An encoding with a bias makes the model use explicit attention instead of torch's fused
  ``scaled_dot_product_attention``.
* ``rotate(q, k, pos)`` - queries and keys rotated by position (RoPE), else unchanged.

Each encoding declares its properties and owns its initialisation, so the model and the
harness never test an encoding's name: ``relative`` marks encodings whose attention depends
only on ``i - j`` (so the model is translation invariant: adding a constant to every
position changes nothing; tests check it); ``bounded_positions`` marks those that can read
only positions ``0 .. max_positions-1`` (the learned tables, the randomized positions);
``reset_parameters(generator, layers)`` initialises its parameters. ``max_positions`` bounds
the learned absolute tables; asking for a position past it raises a :class:`ConfigError`
that explains the choice (use the offset variant or a larger table).

:data:`ENCODINGS` is the registry (the idiom of :mod:`theorybench.registry`); a new encoding
is a subclass decorated with ``@register`` (docs/extending.md).
"""

from __future__ import annotations

import math
from typing import ClassVar

import torch
from torch import nn

from ..errors import ConfigError
from ..registry import Registry

#: The positional encodings by name, in registration order.
ENCODINGS: Registry[type["PositionalEncoding"]] = Registry(
    "positional encoding", plural="encodings")


def register(cls):
    """Class decorator: add an encoding under ``cls.name``."""
    return ENCODINGS.register(cls, name=cls.name)


def get_encoding_class(name: str) -> type["PositionalEncoding"]:
    return ENCODINGS.get(name)


class PositionalEncoding(nn.Module):
    """Base class: no positional information at all (every hook a no-op)."""

    name: ClassVar[str] = ""
    source: ClassVar[str] = ""
    relative: ClassVar[bool] = False
    #: Reads only positions 0 .. max_positions-1 (a longer input cannot be represented).
    bounded_positions: ClassVar[bool] = False
    #: Initial values of named parameters; the others start as zero vectors and N(0, 0.02)
    #: matrices, the GPT-2 init the rest of the model uses.
    initial: ClassVar[dict[str, float]] = {}

    def __init__(self, width: int, heads: int, max_positions: int):
        super().__init__()
        self.width, self.heads, self.max_positions = width, heads, max_positions

    def positions(self, batch: int, length: int, generator: torch.Generator | None,
                  training: bool, device=None) -> torch.Tensor:
        return torch.arange(length, device=device).expand(batch, length)

    def embed(self, pos: torch.Tensor) -> torch.Tensor | None:
        return None

    def bias(self, pos: torch.Tensor) -> torch.Tensor | None:
        return None

    def rotate(self, q: torch.Tensor, k: torch.Tensor, pos: torch.Tensor):
        return q, k

    def init_std(self, name: str, layers: int) -> float:
        return 0.02

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator | None = None, layers: int = 1) -> None:
        """Initialise every parameter from ``generator`` (in ``named_parameters`` order, so
        the model's draws stay in one sequence)."""
        for name, p in self.named_parameters():
            if name in self.initial:
                p.fill_(self.initial[name])
            elif p.dim() == 1:
                p.zero_()
            else:
                p.copy_(torch.randn(p.shape, generator=generator) * self.init_std(name, layers))


def sinusoid(pos: torch.Tensor, width: int) -> torch.Tensor:
    """Vaswani et al. (2017) sin/cos features of integer positions: (..., width)."""
    half = width // 2
    freq = torch.exp(-math.log(10000.0) * torch.arange(half, device=pos.device) / half)
    angle = pos.to(torch.float32)[..., None] * freq
    out = torch.cat([angle.sin(), angle.cos()], dim=-1)
    if width % 2:
        out = torch.cat([out, torch.zeros_like(out[..., :1])], dim=-1)
    return out


@register
class NoPE(PositionalEncoding):
    """No positional encoding: order is visible only through the causal mask.

    Source: Haviv et al., "Transformer language models without positional encodings still
    learn positional information" (Findings of EMNLP 2022); Kazemnejad et al., "The impact
    of positional encoding on length generalization in transformers" (NeurIPS 2023).
    """

    name = "nope"
    source = "Haviv et al. 2022; Kazemnejad et al. 2023"


@register
class LearnedAbsolute(PositionalEncoding):
    """A learned vector per position, added to the token embedding (a table of
    ``max_positions`` rows; positions past the table are refused, not wrapped).

    Source: Gehring et al., "Convolutional sequence to sequence learning" (ICML 2017);
    the GPT-2 style learned position table (Radford et al. 2019).
    """

    name = "learned"
    source = "Gehring et al. 2017; Radford et al. 2019"
    bounded_positions = True

    def __init__(self, width, heads, max_positions):
        super().__init__(width, heads, max_positions)
        self.table = nn.Embedding(max_positions, width)

    def check(self, pos: torch.Tensor) -> None:
        top = int(pos.max()) if pos.numel() else 0
        if top >= self.max_positions:
            raise ConfigError(
                f"encoding {self.name!r} has a learned table of {self.max_positions} positions "
                f"but was asked for position {top}: a learned absolute encoding cannot run "
                f"past its table. Use 'learned_offsets' (random offsets train the whole "
                f"table) or build the model with max_positions > {top}.")

    def embed(self, pos):
        self.check(pos)
        return self.table(pos)


@register
class LearnedAbsoluteOffsets(LearnedAbsolute):
    """Learned absolute positions, shifted during training by a random offset per sequence
    (uniform in ``0 .. max_positions - length``) so that every row of the table is trained,
    including those past the training lengths; at evaluation the offset is 0.

    Source: Huang et al., "A formal framework for understanding length generalization in
    transformers" (ICLR 2025), who train absolute encodings with random offsets.
    """

    name = "learned_offsets"
    source = "Huang et al. 2025"

    def positions(self, batch, length, generator, training, device=None):
        base = torch.arange(length, device=device).expand(batch, length)
        room = self.max_positions - length
        if not training or room <= 0:
            return base
        off = torch.randint(0, room + 1, (batch, 1), generator=generator)
        return base + off.to(base.device)


@register
class Sinusoidal(PositionalEncoding):
    """Fixed sine/cosine features of the absolute position, added to the embedding.

    Source: Vaswani et al., "Attention is all you need" (NeurIPS 2017), section 3.5.
    """

    name = "sinusoidal"
    source = "Vaswani et al. 2017"

    def embed(self, pos):
        return sinusoid(pos, self.width)


@register
class RoPE(PositionalEncoding):
    """Rotary embedding: queries and keys rotated by an angle proportional to the
    position, so their dot product depends only on ``i - j`` (base 10000).

    Source: Su et al., "RoFormer: enhanced transformer with rotary position embedding"
    (arXiv 2104.09864, 2021; Neurocomputing 2024).
    """

    name = "rope"
    source = "Su et al. 2021"
    relative = True

    def rotate(self, q, k, pos):
        dh = q.shape[-1]
        half = dh // 2
        freq = torch.exp(-math.log(10000.0) * torch.arange(half, device=q.device) / half)
        angle = pos.to(torch.float32)[:, None, :, None] * freq  # (B, 1, T, half)
        cos, sin = angle.cos().to(q.dtype), angle.sin().to(q.dtype)

        def rot(x):
            x1, x2 = x[..., :half], x[..., half:2 * half]
            out = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
            return torch.cat([out, x[..., 2 * half:]], dim=-1) if dh % 2 else out
        return rot(q), rot(k)


def alibi_slopes(heads: int) -> torch.Tensor:
    """Head slopes of Press et al.: 2^(-8h/H) for H a power of two; otherwise those of the
    nearest lower power of two followed by every other slope of the next one."""
    def pow2(h):
        return [2.0 ** (-8.0 * (i + 1) / h) for i in range(h)]
    p = 2 ** int(math.floor(math.log2(heads)))
    slopes = pow2(p)
    if p < heads:
        slopes += pow2(2 * p)[0::2][: heads - p]
    return torch.tensor(slopes)


@register
class ALiBi(PositionalEncoding):
    """Attention with linear biases: score(i, j) -= m_h * (i - j), fixed slopes per head.

    Source: Press, Smith, Lewis, "Train short, test long: attention with linear biases
    enables input length extrapolation" (ICLR 2022).
    """

    name = "alibi"
    source = "Press et al. 2022"
    relative = True

    def __init__(self, width, heads, max_positions):
        super().__init__(width, heads, max_positions)
        self.register_buffer("slopes", alibi_slopes(heads), persistent=False)

    def bias(self, pos):
        dist = (pos[:, :, None] - pos[:, None, :]).to(torch.float32)  # i - j, (B, T, T)
        return -self.slopes[None, :, None, None] * dist[:, None]


@register
class T5Bias(PositionalEncoding):
    """T5 relative attention bias: a learned scalar per head for each bucket of the
    distance ``i - j`` (exact buckets for short distances, logarithmic ones up to
    ``max_distance``, one shared bucket beyond); causal, so only ``i - j >= 0`` matters.

    Source: Raffel et al., "Exploring the limits of transfer learning with a unified
    text-to-text transformer" (JMLR 2020), section 2.1; Shaw et al. (NAACL 2018).
    """

    name = "t5"
    source = "Raffel et al. 2020"
    relative = True
    buckets = 32
    max_distance = 128

    def __init__(self, width, heads, max_positions):
        super().__init__(width, heads, max_positions)
        self.table = nn.Embedding(self.buckets, heads)

    def bucket(self, dist: torch.Tensor) -> torch.Tensor:
        dist = dist.clamp(min=0)
        exact = self.buckets // 2
        big = exact + (torch.log(dist.float().clamp(min=1) / exact)
                       / math.log(self.max_distance / exact) * (self.buckets - exact)).long()
        big = big.clamp(max=self.buckets - 1)
        return torch.where(dist < exact, dist, big)

    def bias(self, pos):
        b = self.table(self.bucket(pos[:, :, None] - pos[:, None, :]))  # (B, T, T, H)
        return b.permute(0, 3, 1, 2)


@register
class Randomized(PositionalEncoding):
    """Randomized positions: each sequence gets an increasing random subset of
    ``0 .. max_positions-1`` (uniform, sorted) as its positions, encoded by sinusoids, so
    that training at short lengths already sees the large position values of long inputs.
    This implementation samples at evaluation too (from the run's generator), so test
    positions come from the same distribution as training ones.

    Source: Ruoss et al., "Randomized positional encodings boost length generalization of
    transformers" (ACL 2023).
    """

    name = "randomized"
    source = "Ruoss et al. 2023"
    bounded_positions = True

    def positions(self, batch, length, generator, training, device=None):
        if length > self.max_positions:
            raise ConfigError(
                f"randomized positions draw from 0..{self.max_positions - 1} but the input "
                f"has length {length}; build the model with max_positions >= {length}")
        keys = torch.rand(batch, self.max_positions, generator=generator)
        pos = keys.argsort(dim=1)[:, :length].sort(dim=1).values
        return pos.to(device) if device is not None else pos

    def embed(self, pos):
        return sinusoid(pos, self.width)


@register
class FIRE(PositionalEncoding):
    """Functional interpolation for relative positions: bias(i, j) =
    f(psi(i - j) / psi(max(L, i))), psi(x) = log(c x + 1), f a small MLP (one output per
    head), c and the threshold L learned. The normalization by the query position makes
    the bias depend on i as well as on i - j (so it is not translation invariant).

    Source: Li et al., "Functional interpolation for relative positions improves long
    context transformers" (ICLR 2024; arXiv 2310.04418, 2023).
    """

    name = "fire"
    source = "Li et al. 2023"
    hidden = 32
    initial = {"threshold": 32.0, "log_c": math.log(0.1)}

    def init_std(self, name: str, layers: int) -> float:
        # the MLP's output layer has always started like the residual projections (scaled by
        # 1/sqrt(2 layers)); kept so that trained FIRE runs reproduce
        return 0.02 / math.sqrt(2 * layers) if name == "mlp.2.weight" else 0.02

    def __init__(self, width, heads, max_positions):
        super().__init__(width, heads, max_positions)
        self.mlp = nn.Sequential(nn.Linear(1, self.hidden), nn.ReLU(), nn.Linear(self.hidden, heads))
        self.log_c = nn.Parameter(torch.tensor(math.log(0.1)))
        self.threshold = nn.Parameter(torch.tensor(32.0))

    def bias(self, pos):
        c = self.log_c.exp()
        posf = pos.to(self.log_c.dtype)  # the module's own precision (float64 models too)
        dist = (posf[:, :, None] - posf[:, None, :]).clamp(min=0)
        query = torch.maximum(posf, self.threshold.abs().clamp(min=1.0))[:, :, None]
        x = torch.log1p(c * dist) / torch.log1p(c * query)
        return self.mlp(x[..., None]).permute(0, 3, 1, 2)


def build_encoding(name: str, width: int, heads: int, max_positions: int) -> PositionalEncoding:
    return get_encoding_class(name)(width, heads, max_positions)
