"""The one architecture every hand-built construction uses: a causal softmax transformer
whose weights are set, not trained.

``x_i = E[token_i] + P[i]``; each layer adds the outputs of its heads (all read the same
``x``), then an optional ReLU MLP, both residual; the readout is affine, at the last
position (``output="last"``) or at every position (``output="all"``). A head scores key
``j <= i`` by ``beta * (x_i Wq) . (x_j Wk)`` (``beta`` is the inverse temperature, kept
apart from ``Wq`` so that the construction can state it as a function of n) and adds
``softmax(scores) (x Wv) Wo``. No LayerNorm, so no epsilon decides anything.

The weights travel as a plain dict of tensors and primitives (:meth:`SetTransformer.bundle`),
so ``torch.load(path, weights_only=True)`` reads a saved model back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn


@dataclass
class Layer:
    """Weights of one layer as float64 numpy arrays (the exact values the torch module
    holds, up to its dtype). H heads; ``w1`` has shape (d, m) with m = 0 for no MLP."""

    wq: np.ndarray      # (H, d, dk)
    wk: np.ndarray      # (H, d, dk)
    wv: np.ndarray      # (H, d, dv)
    wo: np.ndarray      # (H, dv, d)
    beta: np.ndarray    # (H,)
    w1: np.ndarray      # (d, m)
    b1: np.ndarray      # (m,)
    w2: np.ndarray      # (m, d)
    b2: np.ndarray      # (d,)

    @property
    def heads(self) -> int:
        return int(self.wq.shape[0])

    def uniform_heads(self) -> list[bool]:
        """Head h is uniform when Wq or Wk is exactly zero: every score is 0, so the
        softmax is exactly uniform over the causal prefix, for every input."""
        return [bool(not self.wq[h].any() or not self.wk[h].any()) for h in range(self.heads)]


@dataclass
class Weights:
    """A whole model: embedding (V, d), positions (L, d), layers, readout (d, C) + (C,)."""

    embed: np.ndarray
    pos: np.ndarray
    layers: list[Layer]
    w_out: np.ndarray
    b_out: np.ndarray
    output: str = "last"
    channels: tuple[str, ...] = ()

    @property
    def width(self) -> int:
        return int(self.embed.shape[1])

    @property
    def max_len(self) -> int:
        return int(self.pos.shape[0])

    def copy(self) -> "Weights":
        def cp(layer):
            return Layer(**{k: v.copy() for k, v in layer.__dict__.items()})
        return Weights(self.embed.copy(), self.pos.copy(), [cp(l) for l in self.layers],
                       self.w_out.copy(), self.b_out.copy(), self.output, self.channels)

    def parameter_count(self) -> int:
        total = self.embed.size + self.pos.size + self.w_out.size + self.b_out.size
        for l in self.layers:
            total += sum(getattr(l, k).size for k in ("wq", "wk", "wv", "wo", "w1", "b1",
                                                     "w2", "b2"))
        return int(total)


def empty_layer(d: int, heads: int = 1, dk: int = 1, dv: int = 1, mlp: int = 0) -> Layer:
    z = np.zeros
    return Layer(wq=z((heads, d, dk)), wk=z((heads, d, dk)), wv=z((heads, d, dv)),
                 wo=z((heads, dv, d)), beta=np.ones(heads), w1=z((d, mlp)), b1=z(mlp),
                 w2=z((mlp, d)), b2=z(d))


_LAYER_KEYS = ("wq", "wk", "wv", "wo", "beta", "w1", "b1", "w2", "b2")


class SetTransformer(nn.Module):
    """The torch module of a :class:`Weights` (float64 unless ``dtype`` says otherwise).

    ``forward(tokens)`` takes int64 (B, L) token ids, L <= ``max_len``, and returns logits
    (B, C) for ``output="last"`` or (B, L, C) for ``output="all"``."""

    def __init__(self, weights: Weights, dtype: torch.dtype = torch.float64):
        super().__init__()
        self.output = weights.output
        self.channels = tuple(weights.channels)

        def t(a):
            return nn.Parameter(torch.as_tensor(np.asarray(a, dtype=np.float64), dtype=dtype),
                                requires_grad=False)

        self.embed, self.pos = t(weights.embed), t(weights.pos)
        self.w_out, self.b_out = t(weights.w_out), t(weights.b_out)
        self.layers = nn.ModuleList()
        for layer in weights.layers:
            m = nn.Module()
            for k in _LAYER_KEYS:
                setattr(m, k, t(getattr(layer, k)))
            self.layers.append(m)

    @property
    def max_len(self) -> int:
        return int(self.pos.shape[0])

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.residual(tokens)
        if self.output == "last":
            x = x[:, -1]
        return x @ self.w_out + self.b_out

    def residual(self, tokens: torch.Tensor) -> torch.Tensor:
        """The residual stream after the last layer, (B, L, d)."""
        tokens = torch.as_tensor(tokens, dtype=torch.long)
        L = tokens.shape[1]
        x = self.embed[tokens] + self.pos[:L]
        future = torch.ones(L, L, dtype=torch.bool, device=x.device).triu(1)
        for m in self.layers:
            xh = x.unsqueeze(1)                                   # (B, 1, L, d)
            q, k, v = xh @ m.wq, xh @ m.wk, xh @ m.wv             # (B, H, L, dk|dv)
            s = (q @ k.transpose(-1, -2)) * m.beta[None, :, None, None]
            a = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
            x = x + ((a @ v) @ m.wo).sum(dim=1)
            if m.w1.shape[1]:
                x = x + torch.relu(x @ m.w1 + m.b1) @ m.w2 + m.b2
        return x

    # ---- saving --------------------------------------------------------------------------
    def bundle(self, meta: dict | None = None) -> dict:
        """Plain dict (tensors, str, int, float, lists) for ``torch.save``; loads with
        ``weights_only=True``."""
        return {"format": "theorybench.construction/1", "output": self.output,
                "channels": list(self.channels), "meta": dict(meta or {}),
                "state_dict": {k: v.detach().cpu() for k, v in self.state_dict().items()}}

    @classmethod
    def from_bundle(cls, bundle: dict, dtype: torch.dtype = torch.float64) -> "SetTransformer":
        sd = bundle["state_dict"]
        n_layers = len({k.split(".")[1] for k in sd if k.startswith("layers.")})
        layers = [Layer(**{k: sd[f"layers.{i}.{k}"].double().numpy() for k in _LAYER_KEYS})
                  for i in range(n_layers)]
        w = Weights(sd["embed"].double().numpy(), sd["pos"].double().numpy(), layers,
                    sd["w_out"].double().numpy(), sd["b_out"].double().numpy(),
                    bundle["output"], tuple(bundle["channels"]))
        return cls(w, dtype=dtype)


def margins(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Signed margin of every decision: positive iff correct.

    One logit (C = 1): the label is [logit > 0] and the margin is (2y - 1) * logit. Several
    logits: the label is the argmax and the margin is logit_y - max_(c != y) logit_c."""
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    if z.shape[-1] == 1:
        return (2 * y - 1) * z[..., 0]
    own = np.take_along_axis(z, y[..., None], axis=-1)[..., 0]
    other = z.copy()
    np.put_along_axis(other, y[..., None], -np.inf, axis=-1)
    return own - other.max(axis=-1)
