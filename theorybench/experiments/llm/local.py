"""The local backend: a Hugging Face causal LM (a model directory or a GGUF file).

Log-likelihood scoring follows the evaluation-harness convention: the context and the
context+continuation are tokenized, the continuation's tokens are the tail of the latter
past the former, and its score is the sum of their log-probabilities given everything
before them. Rows are **left**-padded, with explicit ``position_ids`` counted from each
row's first real token (so absolute-position models such as GPT-2 see the same positions
as unpadded), and only the last ``max continuation length`` positions are projected to the
vocabulary (``logits_to_keep``): for one-token answers one position per prompt. Requests
whose model input is the same (every one-token answer of one prompt) share one row.

Generation is greedy (``do_sample=False``), left-padded, stopped at the end-of-sequence
token, at ``max_new_tokens`` or once every row contains a stop sequence; the text is cut at
the first stop sequence.

A GGUF file is dequantised by ``transformers`` at every load (slow); its weights are then
cached as safetensors under ``$THEORYBENCH_CACHE`` (default ``~/.cache/theorybench``)
``/llm/<sha256 of the file>/`` and later loads read the cache. The cache is a plain
Hugging Face folder: its ``config.json`` carries no GGUF ``quantization_config`` (a
GGUF-loaded model's config keeps one, and ``from_pretrained`` on the folder would then
look for the GGUF file), so ``lm_eval --model hf --model_args pretrained=<folder>`` or any
``AutoModelForCausalLM.from_pretrained(<folder>)`` loads it. A folder written before this
rule is repaired in place when it is read (:func:`clean_cache_config`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from ...errors import ConfigError
from .models import ModelConfig, cache_root, resolve_path


class ContextTooLong(ConfigError):
    """A prompt (plus what must follow it) does not fit the model's context."""


def import_transformers():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the hub
    try:
        import torch
        import transformers
    except ImportError:
        raise ConfigError("the local llm backend needs transformers: pip install "
                          "'theorybench[llm]' (or: pip install transformers gguf accelerate)"
                          ) from None
    transformers.utils.logging.disable_progress_bar()
    return torch, transformers


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def cache_dir(config: ModelConfig) -> Path | None:
    """The dequantised cache folder of a GGUF model entry (None for a model directory or
    an http model). Resolving a ``chunks:`` reference joins its file once."""
    if config.backend != "local" or not config.gguf:
        return None
    gguf = resolve_path(config.gguf)
    _check_gguf(gguf)
    return cache_root() / "llm" / _sha256(gguf)[:16]


#: Keys of a GGUF-loaded model's config that tie it to the GGUF file.
_GGUF_KEYS = ("quantization_config", "gguf_file")


def clean_cache_config(folder: Path) -> bool:
    """Drop the GGUF quantisation setting from ``folder/config.json`` (written atomically);
    True when something was removed. A dequantised cache holds plain float weights, and
    the setting makes ``from_pretrained`` demand the GGUF file."""
    path = Path(folder) / "config.json"
    try:
        cfg = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    q = cfg.get("quantization_config")
    gguf_q = isinstance(q, dict) and (q.get("quant_method") == "gguf" or "gguf_file" in q)
    if not (gguf_q or "gguf_file" in cfg):
        return False
    for key in _GGUF_KEYS:
        if key != "quantization_config" or gguf_q:
            cfg.pop(key, None)
    tmp = path.with_name(f"config.json.tmp{os.getpid()}")
    tmp.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return True


def _check_gguf(path: Path) -> None:
    if not path.is_file():
        raise ConfigError(f"GGUF file {path} does not exist; fix \"gguf\" in the model file")
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise ConfigError(f"{path} is not a GGUF file (it starts with {magic!r}, not b'GGUF')")



def _check_device(torch, config: ModelConfig) -> None:
    """The model's device exists on this machine (cuda without a GPU is refused here, not
    by torch after the weights are read)."""
    kind, _, index = config.device.partition(":")
    backend = {"cuda": torch.cuda, "mps": getattr(torch.backends, "mps", None),
               "xpu": getattr(torch, "xpu", None)}.get(kind)
    if kind == "cpu":
        return
    available = backend is not None and backend.is_available()
    if not available:
        raise ConfigError(f"model {config.name}: device {config.device!r} is not available "
                          f"on this machine; use --device cpu (or \"device\": \"cpu\")")
    if index and kind == "cuda" and int(index) >= torch.cuda.device_count():
        raise ConfigError(f"model {config.name}: device {config.device!r}: this machine has "
                          f"{torch.cuda.device_count()} CUDA device(s), numbered from 0")

class LocalModel:
    """A loaded model and tokenizer with batched scoring and greedy generation."""

    def __init__(self, model, tokenizer, config: ModelConfig, load_seconds: float = 0.0,
                 source: str = ""):
        torch, _ = import_transformers()
        self.torch = torch
        self.model = model.eval()
        self.tok = tokenizer
        self.config = config
        self.load_seconds = load_seconds
        self.source = source  # "directory", "gguf" or "cache"
        if self.tok.pad_token_id is None:
            self.tok.pad_token = self.tok.eos_token
        limit = getattr(model.config, "max_position_embeddings", None) or getattr(
            model.config, "n_positions", None)
        ctx = [c for c in (config.context, limit) if c]
        self.context = min(ctx) if ctx else None
        self.device = next(model.parameters()).device

    # ---------------------------------------------------------------- loading
    @classmethod
    def load(cls, config: ModelConfig) -> "LocalModel":
        torch, tf = import_transformers()
        if config.threads:
            torch.set_num_threads(config.threads)
        dtype = getattr(torch, config.dtype, None)
        if not isinstance(dtype, torch.dtype):
            raise ConfigError(f"model {config.name}: unknown dtype {config.dtype!r}")
        _check_device(torch, config)  # before the load, which may take minutes
        t0 = time.perf_counter()
        if config.gguf:
            gguf = resolve_path(config.gguf)
            _check_gguf(gguf)
            cached = cache_root() / "llm" / _sha256(gguf)[:16]
            if config.cache and (cached / "config.json").is_file():
                clean_cache_config(cached)  # a folder written by an older theorybench
                model, tok = cls._from_dir(tf, cached, dtype, config)
                source = "cache"
            else:
                try:
                    tok = tf.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                           local_files_only=True)
                    model = tf.AutoModelForCausalLM.from_pretrained(
                        str(gguf.parent), gguf_file=gguf.name, local_files_only=True,
                        dtype=dtype)
                except Exception as exc:  # transformers raises many kinds here
                    raise ConfigError(f"model {config.name}: transformers "
                                      f"{tf.__version__} cannot read the GGUF file {gguf}: "
                                      f"{type(exc).__name__}: {exc}".strip()[:600]) from None
                source = "gguf"
                if config.cache:
                    cls._write_cache(tf, model, tok, cached)
        else:
            path = resolve_path(config.path)
            if not path.is_dir() or not (path / "config.json").is_file():
                raise ConfigError(f"model {config.name}: {path} is not a model directory "
                                  f"(it must exist and hold config.json); fix \"path\"")
            model, tok = cls._from_dir(tf, path, dtype, config)
            source = "directory"
        model.to(config.device)
        return cls(model, tok, config, time.perf_counter() - t0, source)

    @staticmethod
    def _from_dir(tf, path: Path, dtype, config: ModelConfig):
        try:
            tok = tf.AutoTokenizer.from_pretrained(str(config.tokenizer or path),
                                                   local_files_only=True)
            model = tf.AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True,
                                                            dtype=dtype)
        except Exception as exc:
            raise ConfigError(f"model {config.name}: cannot load {path}: "
                              f"{type(exc).__name__}: {exc}"[:600]) from None
        return model, tok

    @staticmethod
    def _write_cache(tf, model, tok, target: Path) -> None:
        """A GGUF-loaded model refuses ``save_pretrained``; a plain copy of it does not.
        The copy is built on the meta device and takes the loaded tensors themselves
        (``assign``): initialising 270 M random weights first cost 6-12 s for nothing. Its
        non-persistent buffers stay on meta, which is harmless: it is only saved."""
        import torch

        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        try:
            with torch.device("meta"):
                plain = tf.AutoModelForCausalLM.from_config(model.config)
            plain.load_state_dict(model.state_dict(), assign=True)
            plain.tie_weights()
            plain.save_pretrained(tmp)
            tok.save_pretrained(tmp)
            clean_cache_config(tmp)
            if target.exists():
                shutil.rmtree(tmp)
            else:
                tmp.rename(target)
        except Exception:  # a cache is an optimisation: never fail the run for it
            shutil.rmtree(tmp, ignore_errors=True)

    # ---------------------------------------------------------------- tokens
    def encode(self, text: str, special: bool = True) -> list[int]:
        return list(self.tok(text, add_special_tokens=special)["input_ids"])

    def split(self, context: str, continuation: str, special: bool = True):
        """(context ids, continuation ids), the latter the tail of context+continuation.
        As in lm-eval (``TemplateLM._encode_pair``), trailing whitespace of the context is
        moved to the front of the continuation and scored with it: a chat prompt ends with
        the template's newline after the assistant header, and that newline is part of the
        scored answer in both tools."""
        n_ws = len(context) - len(context.rstrip())
        if n_ws and len(context) > n_ws:
            context, continuation = context[:-n_ws], context[-n_ws:] + continuation
        whole = self.encode(context + continuation, special)
        ctx = self.encode(context, special)
        if len(whole) > len(ctx) and whole[: len(ctx)] == ctx:
            return ctx, whole[len(ctx):]
        return ctx, self.encode(continuation, False)

    def check_length(self, n_tokens: int, what: str) -> None:
        if self.context is not None and n_tokens > self.context:
            raise ContextTooLong(f"{what} is {n_tokens} tokens, longer than the context of "
                                 f"model {self.config.name} ({self.context}); use fewer "
                                 f"examples (k) or a smaller n")

    def _batch(self, seqs: list[list[int]]):
        torch = self.torch
        width = max(len(s) for s in seqs)
        pad = self.tok.pad_token_id
        ids = torch.full((len(seqs), width), pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, width - len(s):] = torch.tensor(s, dtype=torch.long)
            mask[i, width - len(s):] = 1
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        return ids.to(self.device), mask.to(self.device), pos.to(self.device)

    # ---------------------------------------------------------------- scoring
    def loglikelihood(self, requests: list[tuple[str, str]], batch_size: int | None = None,
                      special: bool = True) -> list[tuple[float, bool]]:
        """For each (context, continuation): (sum of the continuation's token
        log-probabilities, whether greedy decoding would produce it)."""
        torch = self.torch
        pairs = [self.split(c, t, special) for c, t in requests]
        for i, (c, t) in enumerate(pairs):
            if not c:
                raise ConfigError(f"request {i}: empty context (the tokenizer adds no "
                                  f"beginning-of-sequence token); nothing to condition on")
            self.check_length(len(c) + len(t) - 1, f"prompt {i} with its answer")
        rows: dict[tuple, int] = {}
        users: list[list[int]] = []
        for j, (c, t) in enumerate(pairs):
            key = tuple(c + t[:-1])
            if key not in rows:
                rows[key] = len(rows)
                users.append([])
            users[rows[key]].append(j)
        keys = list(rows)
        order = sorted(range(len(keys)), key=lambda r: -len(keys[r]))  # similar widths batch
        bs = batch_size or self.config.batch_size or 1
        out: list[tuple[float, bool] | None] = [None] * len(pairs)
        with torch.inference_mode():
            for start in range(0, len(order), bs):
                chunk = order[start:start + bs]
                keep = max(len(pairs[j][1]) for r in chunk for j in users[r])
                ids, mask, pos = self._batch([list(keys[r]) for r in chunk])
                logits = self.model(input_ids=ids, attention_mask=mask, position_ids=pos,
                                    logits_to_keep=keep).logits[:, -keep:]
                logp = torch.log_softmax(logits.double(), dim=-1)
                for b, r in enumerate(chunk):
                    for j in users[r]:
                        cont = pairs[j][1]
                        lp = logp[b, keep - len(cont):]
                        tgt = torch.tensor(cont, device=lp.device)
                        score = lp.gather(-1, tgt[:, None]).sum().item()
                        greedy = bool((lp.argmax(-1) == tgt).all())
                        out[j] = (score, greedy)
        return out  # type: ignore[return-value]

    # ---------------------------------------------------------------- generation
    def generate(self, prompts: list[str], max_new_tokens: int = 16, stop=(),
                 batch_size: int | None = None, special: bool = True) -> list[str]:
        """Greedy continuations, each cut at its first stop sequence."""
        torch, tf = self.torch, import_transformers()[1]
        if max_new_tokens < 1:
            raise ConfigError(f"max_new_tokens must be positive, got {max_new_tokens}")
        enc = [self.encode(p, special) for p in prompts]
        for i, e in enumerate(enc):
            self.check_length(len(e) + max_new_tokens,
                              f"prompt {i} plus {max_new_tokens} generated tokens")
        stop = tuple(s for s in stop if s)
        order = sorted(range(len(enc)), key=lambda i: -len(enc[i]))
        bs = batch_size or self.config.batch_size or 1
        texts: list[str | None] = [None] * len(enc)
        eos = self.tok.eos_token_id
        gen_cfg = tf.GenerationConfig(max_new_tokens=max_new_tokens, do_sample=False,
                                      pad_token_id=self.tok.pad_token_id, eos_token_id=eos)
        with torch.inference_mode():
            for start in range(0, len(order), bs):
                chunk = order[start:start + bs]
                ids, mask, _ = self._batch([enc[i] for i in chunk])
                width = ids.shape[1]
                crit = tf.StoppingCriteriaList([_stop_on_text(tf, self.tok, width, stop)]) \
                    if stop else None
                seqs = self.model.generate(input_ids=ids, attention_mask=mask,
                                           generation_config=gen_cfg, stopping_criteria=crit)
                for b, i in enumerate(chunk):
                    new = seqs[b, width:].tolist()
                    if eos is not None and eos in new:
                        new = new[: new.index(eos)]
                    texts[i] = cut_at_stop(self.tok.decode(new, skip_special_tokens=True), stop)
        return texts  # type: ignore[return-value]

    def apply_chat(self, messages: list[dict]) -> str:
        """The chat template applied, ending with the assistant's header. A template that
        refuses a system turn gets the turns without it, as lm-eval's ``hf`` model does."""
        if not getattr(self.tok, "chat_template", None):
            raise ConfigError(f"model {self.config.name} has no chat template; leave chat "
                              f"off (no --chat; \"chat\": false in the model file)")
        try:
            return self.tok.apply_chat_template(messages, tokenize=False,
                                                add_generation_prompt=True)
        except Exception as exc:  # jinja2's TemplateError (jinja2 is not imported here)
            if type(exc).__name__ != "TemplateError" or messages[0]["role"] != "system":
                raise
            return self.tok.apply_chat_template(
                [m for m in messages if m["role"] != "system"], tokenize=False,
                add_generation_prompt=True)


def cut_at_stop(text: str, stop) -> str:
    """``text`` up to (not including) the earliest occurrence of any stop sequence."""
    cut = min((p for p in (text.find(s) for s in stop if s) if p >= 0), default=len(text))
    return text[:cut]


def _stop_on_text(tf, tok, width: int, stop):
    """A criterion marking a row done once its new text contains a stop sequence."""
    import torch

    class StopOnText(tf.StoppingCriteria):
        def __call__(self, input_ids, scores=None, **kwargs):
            done = [any(s in tok.decode(row[width:].tolist(), skip_special_tokens=True)
                        for s in stop) for row in input_ids]
            return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

    return StopOnText()
