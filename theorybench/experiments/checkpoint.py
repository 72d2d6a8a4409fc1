"""Optional per-run checkpoints: ``<dir>/<key>.pt`` (the ``state_dict``) beside the sidecar
``<dir>/<key>.json``.

The sidecar (``checkpoint_version`` 2) holds ``config`` (the model config), ``task`` (the
task's identity: ``{"family", "params", "digest"}``, see :mod:`theorybench.tasks.digest`),
``vocab`` and ``labels`` (the token and label strings the ids stand for) and, for a run of
a sweep, ``spec`` (the run spec, whose ``n`` is the size an in-distribution model was
trained at).

Loading validates everything it reads and raises :class:`ConfigError` naming the file and
the field: a ``.pt`` that is truncated or not a state dict, weights that do not fit the
config, a sidecar that is not JSON or lacks a field or has one of the wrong type. Given the
task it is loaded for (``task=``), it refuses a checkpoint of another family, other
parameters, another definition digest (the family's code changed since), or, for an
in-distribution model, another n.

Checkpoints written before the ``task`` field (``checkpoint_version`` 1) are accepted with
a warning when their run ``spec`` names the same family and parameters: the task is then
checked, only its definition cannot be. One without a ``spec`` is refused (re-train it).

Loading uses ``torch.load(..., weights_only=True)``: only tensors are unpickled, so a
checkpoint file cannot run code.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable

import torch

from ..errors import ConfigError, TaskParameterError
from ..tasks.digest import task_identity
from .lines import IN_DISTRIBUTION
from .model import ModelConfig, Transformer

CHECKPOINT_VERSION = 2
#: Largest sidecar read: a sidecar holds a config, a spec and two vocabularies.
MAX_SIDECAR_BYTES = 16 << 20
#: Most transformer blocks a config may ask for (the weights are checked against it next).
MAX_LAYERS = 4096
RETRAIN = "re-train it with `theorybench run ... --checkpoints DIR`"


class CheckpointWarning(UserWarning):
    """A checkpoint was accepted with a check left out (an old one without ``task``)."""


def save_checkpoint(directory: str | os.PathLike, key: str, model: Transformer,
                    extra: dict | None = None,
                    task: tuple[str, dict] | None = None) -> Path:
    """Write the weights and sidecar of ``model``; returns the ``.pt`` path. ``task``
    (family, params) names the task; by default the one of ``extra["spec"]``."""
    extra = dict(extra or {})
    if task is None and isinstance(extra.get("spec"), dict):
        task = (extra["spec"]["task"], extra["spec"].get("params") or {})
    d = Path(directory)
    weights = d / f"{key}.pt"
    meta = {"checkpoint_version": CHECKPOINT_VERSION, "config": model.cfg.to_dict(), **extra}
    if task is not None:
        meta["task"] = task_identity(*task)
    try:
        d.mkdir(parents=True, exist_ok=True)
        tmp = weights.with_suffix(".pt.tmp")
        torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, tmp)
        os.replace(tmp, weights)
        side = d / f"{key}.json"
        tmp = side.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta, indent=2, sort_keys=True, default=str))
        os.replace(tmp, side)
    except OSError as exc:
        raise ConfigError(f"checkpoint directory {directory} cannot be written: "
                          f"{exc.strerror or exc}") from None
    return weights


# ---- reading --------------------------------------------------------------------------
def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null",
            bool: "a boolean", int: "an integer", float: "a number"}.get(type(v),
                                                                         type(v).__name__)


def _short(v: Any) -> str:
    """``repr(v)``, cut to a readable length (an edited value can be any size)."""
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _read_sidecar(weights: Path, side: Path) -> dict:
    size = side.stat().st_size
    if size > MAX_SIDECAR_BYTES:
        raise ConfigError(f"checkpoint sidecar {side} has {size:,} bytes, more than any "
                          f"sidecar ({MAX_SIDECAR_BYTES:,}); is it the right file?")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"checkpoint sidecar {side} is not UTF-8 text (byte {exc.start}); "
                          f"{RETRAIN}") from None
    except ValueError as exc:  # not JSON, or a number past Python's 4300-digit limit
        raise ConfigError(f"checkpoint sidecar {side} is not JSON ({exc}); {RETRAIN}") from None
    if not isinstance(meta, dict):
        raise ConfigError(f"checkpoint sidecar {side} holds {_kind(meta)}, not an object with "
                          f"config, task, vocab and labels; {RETRAIN}")
    return meta


def _field(side: Path, meta: dict, name: str, kind: type, what: str, required: bool = True):
    if name not in meta:
        if not required:
            return None
        raise ConfigError(f"checkpoint sidecar {side} has no field {name!r} ({what}); "
                          f"{RETRAIN}")
    value = meta[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"checkpoint sidecar {side}: field {name!r} is {_kind(value)}, not "
                          f"{what}; {RETRAIN}")
    return value


def _config(side: Path, meta: dict) -> ModelConfig:
    raw = _field(side, meta, "config", dict, "an object: the model config")
    declared = {f.name: f for f in fields(ModelConfig)}
    unknown = sorted(set(raw) - set(declared))
    if unknown:
        raise ConfigError(f"checkpoint sidecar {side}: config has unknown field(s) "
                          f"{', '.join(map(repr, unknown))} (known: {', '.join(declared)}); "
                          f"{RETRAIN}")
    for name in ("vocab_size", "num_labels"):
        if name not in raw:
            raise ConfigError(f"checkpoint sidecar {side}: config has no {name!r}; {RETRAIN}")
    for name, value in raw.items():
        declared_type = declared[name].type
        declared_type = getattr(declared_type, "__name__", declared_type)
        want = {"str": str, "float": (int, float)}.get(declared_type, int)
        if not isinstance(value, want) or isinstance(value, bool):
            raise ConfigError(f"checkpoint sidecar {side}: config field {name!r} is "
                              f"{_kind(value)} ({_short(value)}), not "
                              f"{'a string' if want is str else 'a number'}; {RETRAIN}")
    # ModelConfig divides by heads and nn.Dropout refuses p outside [0, 1] with bare
    # exceptions: both are checked here, where the file can be named
    for name, value in raw.items():
        if isinstance(value, int) and not isinstance(value, bool) and name != "dropout" \
                and value < 1:
            raise ConfigError(f"checkpoint sidecar {side}: config field {name!r} is "
                              f"{_short(value)}, not a positive integer; {RETRAIN}")
    dropout = raw.get("dropout", 0.0)
    if not (isinstance(dropout, (int, float)) and 0 <= dropout < 1):
        raise ConfigError(f"checkpoint sidecar {side}: config field 'dropout' is "
                          f"{_short(dropout)}, not a probability in [0, 1); {RETRAIN}")
    if raw.get("layers", 2) > MAX_LAYERS:
        raise ConfigError(f"checkpoint sidecar {side}: config field 'layers' is "
                          f"{raw['layers']}, more than {MAX_LAYERS}; {RETRAIN}")
    try:
        return ModelConfig(**raw)
    except ConfigError as exc:
        raise ConfigError(f"checkpoint sidecar {side}: config: {exc}; {RETRAIN}") from None


def _strings(side: Path, meta: dict, name: str, count: int, what: str) -> None:
    value = _field(side, meta, name, list, f"a list of {what} strings")
    if not all(isinstance(t, str) for t in value):
        raise ConfigError(f"checkpoint sidecar {side}: field {name!r} holds a non-string; "
                          f"{RETRAIN}")
    if len(value) != count:
        raise ConfigError(f"checkpoint sidecar {side}: field {name!r} has {len(value)} "
                          f"entries but the config says {count}; {RETRAIN}")


def _weights(weights: Path, cfg: ModelConfig) -> dict:
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - the unpickler fails in many ways on bad bytes
        why = (str(exc).splitlines() or [type(exc).__name__])[0].split(". ")[0][:160]
        raise ConfigError(f"checkpoint {weights} cannot be read (truncated, damaged or not a "
                          f"theorybench checkpoint: {why}); {RETRAIN}") from None
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise ConfigError(f"checkpoint {weights} is not a state dict (names to tensors); "
                          f"{RETRAIN}")
    with torch.device("meta"):  # the expected shapes, without allocating the model
        expected = {k: tuple(v.shape) for k, v in Transformer(cfg).state_dict().items()}
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    wrong = sorted(k for k in set(expected) & set(state) if tuple(state[k].shape) != expected[k])
    if missing or extra or wrong:
        parts = ([f"missing {', '.join(missing[:3])}"] if missing else []) + \
                ([f"unexpected {', '.join(extra[:3])}"] if extra else []) + \
                ([f"{k} has shape {tuple(state[k].shape)}, the config needs {expected[k]}"
                  for k in wrong[:2]])
        raise ConfigError(f"checkpoint {weights}: the weights do not fit the config of its "
                          f"sidecar ({'; '.join(parts)}); {RETRAIN}")
    return state


def _spell(family: str, params: dict) -> str:
    return family + "".join(f":{k}={v}" for k, v in sorted(params.items()))


def _check_task(weights: Path, side: Path, meta: dict, family: str, params: dict,
                n: int | None, warn: Callable[[str], None]) -> None:
    try:
        want = task_identity(family, params)
    except TaskParameterError as exc:
        raise ConfigError(f"checkpoint {weights} was asked for task {family!r}: {exc}") from None
    asked = _spell(family, want["params"])
    spec = meta.get("spec")
    if spec is not None and not isinstance(spec, dict):
        raise ConfigError(f"checkpoint sidecar {side}: field 'spec' is {_kind(spec)}, not an "
                          f"object (the run spec); {RETRAIN}")
    if "task" in meta:
        got = _field(side, meta, "task", dict, "an object with family, params and digest")
        for name, kind in (("family", str), ("params", dict), ("digest", str)):
            if not isinstance(got.get(name), kind):
                raise ConfigError(f"checkpoint sidecar {side}: task field {name!r} is "
                                  f"{_kind(got.get(name))}, not "
                                  f"{'an object' if kind is dict else 'a string'}; {RETRAIN}")
        saved = _spell(got["family"], got["params"])
        if got["family"] != want["family"] or got["params"] != want["params"]:
            raise ConfigError(f"checkpoint {weights} is a model of {saved}, not of {asked}; "
                              f"give a checkpoint of {asked}, or ask for {got['family']}")
        if got["digest"] != want["digest"]:
            raise ConfigError(f"checkpoint {weights} was trained on {saved} as defined when it "
                              f"was saved (definition digest {got['digest']}); this "
                              f"theorybench's {want['family']} is defined differently (digest "
                              f"{want['digest']}), so the model may compute another function; "
                              f"{RETRAIN}")
    elif isinstance(spec, dict) and isinstance(spec.get("task"), str):
        try:
            old = task_identity(spec["task"], spec.get("params") or {})
        except TaskParameterError as exc:
            raise ConfigError(f"checkpoint sidecar {side}: spec names task "
                              f"{_short(spec['task'])}, which this theorybench does not know "
                              f"({exc}); {RETRAIN}") from None
        saved = _spell(old["family"], old["params"])
        if old["family"] != want["family"] or old["params"] != want["params"]:
            raise ConfigError(f"checkpoint {weights} is a model of {saved}, not of {asked}; "
                              f"give a checkpoint of {asked}, or ask for {old['family']}")
        warn(f"checkpoint {weights} was saved before checkpoints recorded their task's "
             f"definition: its family and parameters ({saved}) match, but whether {asked} was "
             f"defined the same way cannot be checked; re-save it to silence this")
    else:
        raise ConfigError(f"checkpoint sidecar {side} has no field 'task' (nor a run spec) "
                          f"naming the task the model was trained on, so it cannot be checked "
                          f"against {asked}; {RETRAIN}")
    if (n is not None and isinstance(spec, dict) and spec.get("line") == IN_DISTRIBUTION
            and isinstance(spec.get("n"), int) and spec["n"] != n):
        raise ConfigError(f"checkpoint {weights} is an in-distribution model trained at "
                          f"n={spec['n']}; ask for n={spec['n']} or give a checkpoint "
                          f"trained at n={n}")


def _warn(message: str) -> None:
    warnings.warn(message, CheckpointWarning, stacklevel=3)


def load_checkpoint(path: str | os.PathLike, task: str | None = None,
                    params: dict | None = None, n: int | None = None,
                    warn: Callable[[str], None] | None = None) -> tuple[Transformer, dict]:
    """The model saved at ``path`` (the ``.pt`` file) and its sidecar, validated (see the
    module docstring). With ``task`` (a family name; ``params`` its parameters, ``n`` the
    size) the checkpoint must be of that task; ``warn`` receives the note about an old
    checkpoint (default: :class:`CheckpointWarning`)."""
    weights = Path(path)
    if weights.suffix == ".json" and weights.with_suffix(".pt").is_file():
        raise ConfigError(f"{weights} is a checkpoint's sidecar; give its weights file "
                          f"{weights.with_suffix('.pt')}")
    side = weights.with_suffix(".json")
    if not weights.is_file():
        raise ConfigError(f"checkpoint {weights} does not exist (or is not a file); give a "
                          f".pt file written by `theorybench run --checkpoints DIR`")
    if not side.is_file():
        raise ConfigError(f"checkpoint {weights} has no sidecar {side.name} beside it (the "
                          f"config and task written with it); copy it along or {RETRAIN}")
    meta = _read_sidecar(weights, side)
    version = meta.get("checkpoint_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ConfigError(f"checkpoint sidecar {side}: field 'checkpoint_version' is "
                          f"{_short(version)}, not a positive integer; {RETRAIN}")
    if version > CHECKPOINT_VERSION:
        raise ConfigError(f"checkpoint {weights} was written by a newer theorybench "
                          f"(checkpoint version {version}; this one reads 1 to "
                          f"{CHECKPOINT_VERSION}); upgrade theorybench")
    cfg = _config(side, meta)
    _strings(side, meta, "vocab", cfg.vocab_size, "token")
    _strings(side, meta, "labels", cfg.num_labels, "label")
    state = _weights(weights, cfg)
    if task is not None:
        _check_task(weights, side, meta, task, dict(params or {}), n, warn or _warn)
    model = Transformer(cfg)
    model.load_state_dict(state)
    model.eval()
    return model, meta
