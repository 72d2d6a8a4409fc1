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

A quantised GGUF served as it is runs llama.cpp's quantised kernels (the activations are
rounded to 8 bits inside each matrix product), while the in-process backend dequantises the
same weights to float32 (:mod:`.local`), so near-tied answers can flip between the two;
:func:`float32_gguf` writes the same weights dequantised, which both then compute in float32.
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


# ggml's type numbers, as llama_cpp.server's --type_k / --type_v take them
_KV_TYPES = {"f32": 0, "f16": 1}


def available() -> str | None:
    """None when the server can be started, else why not (the install command)."""
    for mod in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "pydantic_settings"):
        if util.find_spec(mod) is None:
            return f"the Python module {mod} is not installed: {INSTALL}"
    return None


def float32_gguf(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Write ``src`` again at ``dst`` with every tensor dequantised to float32 and all
    metadata kept (``general.file_type`` set to all-F32): the weights the in-process backend
    computes with, in a file llama.cpp serves. Written to a temporary name and renamed, so an
    interrupted run leaves no half file at ``dst``. Needs the ``gguf`` package (the llm
    extra)."""
    import numpy as np
    import gguf

    src, dst = Path(src), Path(dst)
    if src.resolve() == dst.resolve():
        raise ConfigError(f"float32_gguf: the output {dst} is the input; name another path")
    try:
        reader = gguf.GGUFReader(src)
    except (ValueError, OSError) as e:
        raise ConfigError(f"{src} is not a readable GGUF file: {e}") from None
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
    tmp = dst.with_name(dst.name + ".part")
    writer = gguf.GGUFWriter(tmp, arch=arch, endianess=reader.endianess)
    align = reader.get_field(gguf.Keys.General.ALIGNMENT)
    if align is not None:
        writer.data_alignment = align.contents()
    for field in reader.fields.values():
        # the writer adds the architecture and the GGUF.* header fields itself
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        value = field.contents()
        if field.name == gguf.Keys.General.FILE_TYPE:
            value = int(gguf.LlamaFileType.ALL_F32)
        sub = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, value, field.types[0], sub_type=sub)
    tensors = []
    for t in reader.tensors:
        data = np.ascontiguousarray(gguf.quants.dequantize(t.data, t.tensor_type),
                                    dtype=np.float32)
        tensors.append(data)
        writer.add_tensor_info(t.name, data.shape, data.dtype, data.nbytes,
                               gguf.GGMLQuantizationType.F32)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        for data in tensors:
            writer.write_tensor_data(data)
        writer.close()
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)
    return dst


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaCppServer:
    """A ``python -m llama_cpp.server`` subprocess on 127.0.0.1 serving one GGUF file.

    ``start_timeout`` bounds the wait for the model to load (seconds); the server's own
    output goes to ``log`` (a path; default: discarded) so that a failed start can say why.
    ``kv_cache`` is the attention cache's number type, ``"f16"`` (llama.cpp's default) or
    ``"f32"`` (with a :func:`float32_gguf` file: float32 throughout, as in process).
    """

    def __init__(self, gguf: str | os.PathLike, threads: int = 1, context: int = 2048,
                 port: int | None = None, alias: str = "model", start_timeout: float = 120.0,
                 log: str | os.PathLike | None = None, kv_cache: str = "f16"):
        why = available()
        if why:
            raise ConfigError(why)
        self.gguf = Path(gguf)
        if not self.gguf.is_file():
            raise ConfigError(f"no GGUF file at {self.gguf}")
        if kv_cache not in _KV_TYPES:
            raise ConfigError(f"kv_cache must be one of {sorted(_KV_TYPES)}, not {kv_cache!r}")
        self.kv_cache = kv_cache
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
                "--n_ctx", str(self.context), "--logits_all", "true",
                "--type_k", str(_KV_TYPES[self.kv_cache]),
                "--type_v", str(_KV_TYPES[self.kv_cache])]

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
