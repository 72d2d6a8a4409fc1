"""The OpenAI-compatible HTTP backend (``/completions`` and ``/chat/completions``), on the
standard library only (``urllib``; threads for the concurrency limit).

* Log-likelihood (mode ``completions``): the prompt is context+continuation with
  ``echo: true, logprobs: 1, max_tokens: 1, temperature: 0``; the continuation's score is
  the sum of ``token_logprobs`` of the echoed tokens that end past the context
  (``text_offset + len(token) > len(context)``) and start before the end of the prompt
  (the one generated token is left out). Chat endpoints return no prompt log-probabilities:
  there only generation is possible.
* Log-likelihood by next-token alternatives (``"loglik": "next_token"``, for servers whose
  echoed log-probabilities are missing or wrong - llama-cpp-python's are those of each
  token *after* reading it, abetlen/llama-cpp-python issue 1983; llama.cpp's own server is
  reported to return none for the prompt, ggml-org/llama.cpp issue 27174): the context
  alone with ``max_tokens: 1, logprobs: top_logprobs``; the continuation's next piece is
  the longest alternative in ``top_logprobs`` that it starts with, its log-probability is
  added, and the piece is appended to the prompt for the next request, until the
  continuation is spent (one request per answer token; a piece outside the alternatives
  is an error that says to raise ``top_logprobs``). Exact for one-token answers (" 0",
  " 1"); for longer ones the server tokenizes each extended prompt anew, which can split
  differently from a joint tokenization.
* Generation: ``temperature: 0``, ``max_tokens``, ``stop`` (the first four stop sequences,
  the API's limit; the text is cut at every stop sequence here as well).
* Robustness: each request has a timeout (``timeout``, default 60 s, for the whole
  answer, not only for each read: a server that trickles bytes is cut off too); 429, 5xx,
  timeouts, refused or broken connections (an answer cut off mid-body, one that is not
  HTTP) are retried at most ``max_retries`` times with exponential backoff (``backoff * 2**attempt``
  seconds, capped at ``backoff_cap``; a ``Retry-After`` header, capped likewise, wins);
  other 4xx fail at once with the server's message (401/403: the key). An answer that is
  not a JSON object, has no text or log-probabilities where the API puts them, or a
  log-probability that is not a finite number <= 0, is a :class:`BackendError` quoting it.
  At most ``concurrency`` requests are in flight.
* The key is read from the environment variable named ``api_key_env``; it is never stored.
* Prompts longer than ``context`` are refused before sending when the entry names a local
  ``tokenizer`` to count tokens with; otherwise the server's own refusal is reported.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from ...errors import ConfigError, TheorybenchError
from .local import ContextTooLong, cut_at_stop, import_transformers
from .models import ModelConfig

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
#: An answer longer than this is refused (a completion with prompt log-probabilities is
#: kilobytes; a stream without end would fill the memory).
MAX_RESPONSE_BYTES = 32 << 20


class BackendError(TheorybenchError):
    """The endpoint could not be used (unreachable, or retries exhausted)."""


class HTTPModel:
    def __init__(self, config: ModelConfig, backoff: float = 0.5, backoff_cap: float = 8.0):
        if config.backend != "http":
            raise ConfigError(f"model {config.name} is not an http model")
        self.config = config
        self.url = config.base_url.rstrip("/")
        self.backoff, self.backoff_cap = backoff, backoff_cap
        self.key = None
        if config.api_key_env:
            self.key = os.environ.get(config.api_key_env)
            if not self.key:
                raise ConfigError(f"model {config.name}: the environment variable "
                                  f"{config.api_key_env} (its API key) is not set")
        self._tok = None
        self.context = config.context
        self.attempts = 0  # requests sent, retries included (for tests and reports)
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- transport
    def _post(self, path: str, body: dict) -> dict:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        last = ""
        for attempt in range(self.config.max_retries + 1):
            with self._lock:
                self.attempts += 1
            wait = min(self.backoff_cap, self.backoff * 2 ** attempt)
            req = urllib.request.Request(self.url + path, data=data, headers=headers,
                                         method="POST")
            try:
                with urllib.request.urlopen(req, timeout=self.config.timeout) as resp:
                    raw = self._read(resp)
            except urllib.error.HTTPError as exc:
                msg = exc.read()[:300].decode(errors="replace")
                if exc.code not in RETRY_STATUS:
                    hint = {401: "the server rejected the key", 403: "the key is not allowed",
                            404: "check base_url and the model name"}.get(exc.code, "")
                    raise ConfigError(f"model {self.config.name}: {self.url + path} answered "
                                      f"HTTP {exc.code}{': ' + hint if hint else ''} "
                                      f"({msg.strip()})") from None
                last = f"HTTP {exc.code} ({msg.strip()})"
                after = exc.headers.get("Retry-After") if exc.headers else None
                if after:
                    try:
                        wait = min(self.backoff_cap, max(0.0, float(after)))
                    except ValueError:
                        pass
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError,
                    http.client.HTTPException) as exc:
                # HTTPException: an answer cut off mid-body (IncompleteRead) or not HTTP at
                # all (BadStatusLine): a broken connection, retried like a refused one
                reason = getattr(exc, "reason", exc)
                last = f"{type(reason).__name__}: {str(reason).strip()[:200]}"
            else:
                return self._json(raw, path)
            if attempt < self.config.max_retries:
                time.sleep(wait)
        raise BackendError(f"model {self.config.name}: {self.url + path} failed after "
                           f"{self.config.max_retries + 1} attempts; last error: {last}"
                           + (f" (the timeout is {self.config.timeout:g} s: \"timeout\" in "
                              "the model entry, or --timeout)" if "imeout" in last else ""))

    def _read(self, resp) -> bytes:
        """The body, within ``timeout`` seconds in all (the socket's timeout bounds each
        read only: a server that trickles bytes would never end) and at most
        :data:`MAX_RESPONSE_BYTES`."""
        deadline = time.monotonic() + self.config.timeout
        parts, size = [], 0
        while True:
            chunk = resp.read1(1 << 16) if hasattr(resp, "read1") else resp.read(1 << 16)
            if not chunk:
                left = getattr(resp, "length", None)  # of the Content-Length, still unread
                if left:  # the server closed the connection mid-answer
                    raise http.client.IncompleteRead(b"".join(parts), left)
                return b"".join(parts)
            parts.append(chunk)
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise BackendError(f"model {self.config.name}: the answer is longer than "
                                   f"{MAX_RESPONSE_BYTES >> 20} MiB; is base_url an "
                                   "OpenAI-compatible endpoint?")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the answer took longer than {self.config.timeout:g} s "
                                   f"({size:,} bytes read)")

    def _json(self, raw: bytes, path: str) -> dict:
        """The answer as a JSON object, or a :class:`BackendError` quoting its start."""
        try:
            out = json.loads(raw)
        except ValueError:  # JSONDecodeError, and bytes that are no text (UnicodeDecodeError)
            shown = raw[:80].decode("utf-8", errors="replace")
            raise BackendError(f"model {self.config.name}: {self.url + path} did not "
                               f"answer JSON (it began {shown!r}); is base_url an "
                               "OpenAI-compatible endpoint?") from None
        if not isinstance(out, dict):
            raise BackendError(f"model {self.config.name}: {self.url + path} answered JSON "
                               f"that is not an object ({type(out).__name__}); is base_url "
                               "an OpenAI-compatible endpoint?")
        return out

    def _map(self, fn, items):
        with ThreadPoolExecutor(max_workers=max(1, self.config.concurrency)) as pool:
            return list(pool.map(fn, items))

    # ---------------------------------------------------------------- lengths
    def _count(self, text: str) -> int | None:
        if not self.config.tokenizer or not self.context:
            return None
        if self._tok is None:
            _, tf = import_transformers()
            self._tok = tf.AutoTokenizer.from_pretrained(self.config.tokenizer,
                                                         local_files_only=True)
        return len(self._tok(text)["input_ids"])

    def _check(self, text: str, extra: int, what: str) -> None:
        n = self._count(text)
        if n is not None and n + extra > self.context:
            raise ContextTooLong(f"{what} is {n + extra} tokens, longer than the context of "
                                 f"model {self.config.name} ({self.context}); use fewer "
                                 f"examples (k) or a smaller n")

    # ---------------------------------------------------------------- scoring
    def loglikelihood(self, requests, batch_size=None, special=True):
        if self.config.mode != "completions":
            raise ConfigError(f"model {self.config.name}: chat endpoints return no prompt "
                              f"log-probabilities; use scoring 'generate'")
        for i, (c, t) in enumerate(requests):
            self._check(c + t, 0, f"prompt {i} with its answer")
        if self.config.loglik == "next_token":
            return self._map(self._next_token_score, list(requests))

        def one(req):
            ctx, cont = req
            full = ctx + cont
            out = self._post("/completions", {
                "model": self.config.model, "prompt": full, "max_tokens": 1, "echo": True,
                "logprobs": 1, "temperature": 0})
            try:
                lp = out["choices"][0]["logprobs"]
                toks, vals, offs = lp["tokens"], lp["token_logprobs"], lp["text_offset"]
                tops = lp.get("top_logprobs") or [None] * len(toks)
            except (KeyError, IndexError, TypeError):
                raise BackendError(f"model {self.config.name}: the server returned no prompt "
                                   f"log-probabilities (echo + logprobs); use scoring "
                                   f"'generate'") from None
            score, greedy, seen = 0.0, True, 0
            for tok, val, off, top in zip(toks, vals, offs, tops):
                if not isinstance(tok, str) or isinstance(off, bool) or \
                        not isinstance(off, int):
                    raise BackendError(f"model {self.config.name}: the server's echoed "
                                       f"tokens are malformed (token {tok!r} at offset "
                                       f"{off!r}); use scoring 'generate'")
                if off >= len(full) or off + len(tok) <= len(ctx):
                    continue
                if val is None:
                    raise BackendError(f"model {self.config.name}: no log-probability for "
                                       f"the answer token {tok!r}")
                score += self._logprob(val, tok)
                seen += 1
                if isinstance(top, dict) and top:
                    greedy = greedy and max(top, key=top.get) == tok
            if not seen:
                raise BackendError(f"model {self.config.name}: no echoed token covers the "
                                   f"answer {cont!r}")
            return score, greedy

        return self._map(one, list(requests))

    def _logprob(self, val, token: str) -> float:
        """A server's log-probability of an answer token, refused unless a finite number
        <= 0 (a little above 0 is rounding)."""
        if isinstance(val, bool) or not isinstance(val, (int, float)) or \
                not math.isfinite(val) or val > 1e-6:
            raise BackendError(f"model {self.config.name}: the log-probability {val!r} of "
                               f"the answer token {token!r} is not a finite number <= 0")
        return float(val)

    def _next_token_score(self, req) -> tuple[float, bool]:
        ctx, cont = req
        prompt, rest, score, greedy = ctx, cont, 0.0, True
        while rest:
            out = self._post("/completions", {
                "model": self.config.model, "prompt": prompt, "max_tokens": 1,
                "logprobs": self.config.top_logprobs, "temperature": 0})
            try:
                top = out["choices"][0]["logprobs"]["top_logprobs"][0]
                if not isinstance(top, dict) or not top:
                    raise TypeError
            except (KeyError, IndexError, TypeError):
                raise BackendError(f"model {self.config.name}: the server returned no "
                                   f"next-token alternatives (choices[0].logprobs."
                                   f"top_logprobs[0]) for logprobs="
                                   f"{self.config.top_logprobs}") from None
            pieces = [k for k in top if isinstance(k, str) and k and rest.startswith(k)]
            if not pieces:
                raise BackendError(f"model {self.config.name}: the answer's next piece "
                                   f"{rest[:20]!r} is not among the server's "
                                   f"{len(top)} next-token alternatives; raise "
                                   f"\"top_logprobs\" in the model entry")
            piece = max(pieces, key=len)
            val = top[piece]
            score += self._logprob(val, piece)
            greedy = greedy and all(v <= val for v in top.values()
                                    if isinstance(v, (int, float)))
            prompt, rest = prompt + piece, rest[len(piece):]
        return score, greedy

    def generate(self, prompts, max_new_tokens=16, stop=(), batch_size=None, special=True):
        stop = [s for s in stop if s]
        for i, p in enumerate(prompts):
            self._check(p, max_new_tokens, f"prompt {i} plus {max_new_tokens} generated tokens")

        def one(prompt):
            body = {"model": self.config.model, "max_tokens": max_new_tokens,
                    "temperature": 0}
            if stop:
                body["stop"] = stop[:4]
            if self.config.mode == "chat":
                body["messages"] = [{"role": "user", "content": prompt}]
                out = self._post("/chat/completions", body)
                field = "choices[0].message.content"
                try:
                    text = out["choices"][0]["message"]["content"] or ""
                except (KeyError, IndexError, TypeError):
                    text = None
            else:
                body["prompt"] = prompt
                out = self._post("/completions", body)
                field = "choices[0].text"
                try:
                    text = out["choices"][0]["text"]
                except (KeyError, IndexError, TypeError):
                    text = None
            if not isinstance(text, str):
                raise BackendError(f"model {self.config.name}: the server's answer has no "
                                   f"text in {field} (it answered {json.dumps(out)[:120]})")
            return cut_at_stop(text, stop)

        return self._map(one, list(prompts))
