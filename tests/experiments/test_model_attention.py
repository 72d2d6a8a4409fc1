"""The fused attention path equals explicit causal softmax attention for every encoding,
with and without an additive bias."""

from __future__ import annotations

import math

import pytest
import torch

from theorybench.experiments.model import ModelConfig, Transformer
from theorybench.experiments.positional import ENCODINGS


def explicit_forward(model: Transformer, tokens: torch.Tensor, pos: torch.Tensor):
    """The model's forward pass written out: softmax(q k^T / sqrt(d) + bias, causal) v."""
    x = model.embed(tokens)
    pe = model.enc.embed(pos)
    if pe is not None:
        x = x + pe
    t = tokens.shape[1]
    bias = model.enc.bias(pos)
    future = torch.ones(t, t, dtype=torch.bool).triu(1)
    for blk in model.blocks:
        a = blk.attn
        h = blk.ln1(x)
        b, _, _ = h.shape
        q, k, v = a.qkv(h).view(b, t, 3, a.heads, a.dh).permute(2, 0, 3, 1, 4)
        q, k = model.enc.rotate(q, k, pos)
        scores = q @ k.transpose(-2, -1) / math.sqrt(a.dh)
        if bias is not None:
            scores = scores + bias
        att = scores.masked_fill(future, float("-inf")).softmax(-1)
        x = x + a.out((att @ v).transpose(1, 2).reshape(b, t, -1))
        x = x + blk.mlp(blk.ln2(x))
    return model.head(model.ln(x))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_fused_attention_equals_explicit(encoding):
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=7, num_labels=3, layers=2, width=32, heads=2,
                      encoding=encoding, max_positions=64)
    model = Transformer(cfg, torch.Generator().manual_seed(1)).double().eval()
    with torch.no_grad():  # non-trivial biases: the defaults of some encodings are flat
        for name, p in model.enc.named_parameters():
            p.add_(0.3 * torch.randn(p.shape, dtype=p.dtype))
    tokens = torch.randint(0, 7, (3, 12))
    pos = model.enc.positions(3, 12, torch.Generator().manual_seed(2), False)
    with torch.no_grad():
        want = explicit_forward(model, tokens, pos)
        got = model(tokens, positions=pos)
    assert torch.allclose(got, want, atol=1e-10, rtol=1e-9)
