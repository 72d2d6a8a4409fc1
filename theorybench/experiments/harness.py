"""Shared pieces of the experiment lines: seeded generators, determinism, model building."""

from __future__ import annotations

import numpy as np
import torch

from ..errors import ConfigError
from .data import TaskData
from .model import ModelConfig, Transformer
from .positional import get_encoding_class
from .spec import RunSpec

def generators(seed: int) -> tuple[np.random.Generator, np.random.Generator, torch.Generator]:
    """(training data rng, test data rng, torch generator), all derived from ``seed``.

    Test data has its own stream so that the test sets do not depend on how many training
    batches were drawn before them."""
    return (np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1]),
            torch.Generator().manual_seed(int(seed)))


def deterministic() -> None:
    """Same seed, same metrics on CPU: deterministic kernels only."""
    torch.use_deterministic_algorithms(True, warn_only=True)


def check_positions(spec: RunSpec, needed: int) -> int:
    """The model's ``max_positions`` for ``spec``; refuses a table that is too small.

    With ``max_positions`` None the table covers every evaluated input. In the
    length-generalization line that means a plain learned absolute encoding has rows for
    the long test lengths that training never touched (they keep their random init): that
    is the failure the line measures, and the offset variant trains them. An explicit
    ``max_positions`` below the longest input is refused for the table encodings, since
    they cannot represent those positions at all."""
    if spec.max_positions is None:
        return needed
    if spec.max_positions < needed and get_encoding_class(spec.encoding).bounded_positions:
        raise ConfigError(
            f"encoding {spec.encoding!r} with max_positions={spec.max_positions} cannot read "
            f"inputs of length {needed} ({spec.describe()}): a learned absolute table has no "
            f"row for later positions. Raise max_positions to at least {needed}, leave it "
            f"unset, or use 'learned_offsets' (trained with random offsets over the table).")
    return max(spec.max_positions, 1)


def build_model(spec: RunSpec, data: TaskData, max_positions: int,
                generator: torch.Generator) -> Transformer:
    cfg = ModelConfig.of_size(spec.size, vocab_size=len(data.vocab),
                              num_labels=len(data.label_vocab), encoding=spec.encoding,
                              max_positions=max_positions)
    return Transformer(cfg, generator=generator)
