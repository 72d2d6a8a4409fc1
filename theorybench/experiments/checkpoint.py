"""Optional per-run checkpoints: ``<dir>/<key>.pt`` (the ``state_dict``) beside
``<dir>/<key>.json`` (the model config, the run spec, the vocabularies).

Loading uses ``torch.load(..., weights_only=True)``: only tensors are unpickled, so a
checkpoint file cannot run code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from ..errors import ConfigError
from .model import ModelConfig, Transformer


def save_checkpoint(directory: str | os.PathLike, key: str, model: Transformer,
                    extra: dict | None = None) -> Path:
    """Write the weights and config of ``model``; returns the ``.pt`` path."""
    d = Path(directory)
    weights = d / f"{key}.pt"
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = weights.with_suffix(".pt.tmp")
        torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, tmp)
        os.replace(tmp, weights)
        meta = {"config": model.cfg.to_dict(), **(extra or {})}
        (d / f"{key}.json").write_text(json.dumps(meta, indent=2, sort_keys=True, default=str))
    except OSError as exc:
        raise ConfigError(f"checkpoint directory {directory} cannot be written: "
                          f"{exc.strerror or exc}") from None
    return weights


def load_checkpoint(path: str | os.PathLike) -> tuple[Transformer, dict]:
    """The model saved at ``path`` (the ``.pt`` file) and its JSON metadata."""
    weights = Path(path)
    meta_path = weights.with_suffix(".json")
    if not weights.is_file() or not meta_path.is_file():
        raise ConfigError(f"checkpoint {weights} (with its {meta_path.name}) does not exist")
    meta = json.loads(meta_path.read_text())
    model = Transformer(ModelConfig(**meta["config"]))
    state = torch.load(weights, map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    model.eval()
    return model, meta
