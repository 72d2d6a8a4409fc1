"""llama.cpp's OpenAI-compatible server (the ``llama-cpp-python[server]`` package) for a
GGUF file, started and stopped from Python: what the HTTP backend meets in the field,
as opposed to theorybench's own test server (:mod:`.serve`).

What log-likelihood scoring can use (measured with llama-cpp-python 0.3.36): the echoed
prompt log-probabilities of ``/v1/completions`` (``echo: true, logprobs: N``; only with
``--logits_all true``) are shifted by one token - ``token_logprobs[i]`` is the probability
of token i in the distribution *after* reading it, and ``top_logprobs[i]`` holds the
alternatives for token i + 1 (abetlen/llama-cpp-python issue 1983, open) - so
"The capital of France is" + " Paris" scores -8.45 there against -0.26. The next-token
alternatives of a completion without echo are right (" Paris" -0.264, " London" -4.40),
so :meth:`LlamaCppServer.model_entry` sets ``"loglik": "next_token"``
(:mod:`.http`).

    with LlamaCppServer("model.gguf", threads=1) as server:
        entry = server.model_entry("my-model")   # a model-file entry for the llm line
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from importlib import util
from pathlib import Path

from ...errors import ConfigError

INSTALL = ("pip install 'llama-cpp-python[server]' (it builds llama.cpp from source with a "
           "C++ compiler and cmake: tens of minutes on 2 cores)")


def available() -> str | None:
    """None when the server can be started, else why not (the install command)."""
    for mod in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "pydantic_settings"):
        if util.find_spec(mod) is None:
            return f"the Python module {mod} is not installed: {INSTALL}"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaCppServer:
    """A ``python -m llama_cpp.server`` subprocess on 127.0.0.1 serving one GGUF file.

    ``start_timeout`` bounds the wait for the model to load (seconds); the server's own
    output goes to ``log`` (a path; default: discarded) so that a failed start can say why.
    """

    def __init__(self, gguf: str | os.PathLike, threads: int = 1, context: int = 2048,
                 port: int | None = None, alias: str = "model", start_timeout: float = 120.0,
                 log: str | os.PathLike | None = None):
        why = available()
        if why:
            raise ConfigError(why)
        self.gguf = Path(gguf)
        if not self.gguf.is_file():
            raise ConfigError(f"no GGUF file at {self.gguf}")
        self.threads, self.context, self.alias = int(threads), int(context), alias
        self.port = port or _free_port()
        self.start_timeout = start_timeout
        self.log = Path(log) if log else None
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.gguf),
                "--model_alias", self.alias, "--host", "127.0.0.1", "--port", str(self.port),
                "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
                "--n_ctx", str(self.context), "--logits_all", "true"]

    def __enter__(self) -> "LlamaCppServer":
        out = open(self.log, "wb") if self.log else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT)
        finally:
            if self.log:
                out.close()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.stop()
                raise ConfigError(f"llama.cpp's server exited with code {self.proc.returncode} "
                                  f"before it served {self.gguf}"
                                  + (f"; its output is in {self.log}" if self.log else ""))
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=2) as resp:
                    if resp.status == 200 and json.loads(resp.read()).get("data"):
                        return self
            except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                pass
            time.sleep(0.5)
        self.stop()
        raise ConfigError(f"llama.cpp's server did not answer within {self.start_timeout:g} s "
                          f"(loading {self.gguf})")

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)

    def model_entry(self, name: str, concurrency: int = 1, timeout: float = 120.0) -> dict:
        """A model-file entry (``backend: http``) for this server."""
        return {"name": name, "backend": "http", "base_url": self.url, "model": self.alias,
                "mode": "completions", "context": self.context, "concurrency": concurrency,
                "timeout": timeout, "max_retries": 2, "loglik": "next_token",
                "top_logprobs": 20}
