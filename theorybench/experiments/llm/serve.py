"""A minimal OpenAI-compatible server for a ``LocalModel`` (standard library only).

It exists to test the HTTP backend against the local one (same model, same numbers) and
to serve a small local model to tools that speak this API. ``POST /v1/completions``
(``prompt``, ``max_tokens``, ``echo``, ``logprobs``, ``stop``; greedy only) and
``POST /v1/chat/completions`` (the messages through the model's chat template, or joined
by newlines when it has none). ``faults`` is a list consumed one item per request before
it is served: ``("status", code)`` answers that HTTP status, ``("sleep", s)`` waits s
seconds first (to exercise client timeouts). One model call runs at a time.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ModelServer:
    def __init__(self, model, host: str = "127.0.0.1", port: int = 0, key: str | None = None,
                 faults=None):
        self.model, self.key = model, key
        self.faults = list(faults or [])
        self.requests = 0
        self.in_flight = self.max_in_flight = 0
        self._lock, self._model_lock = threading.Lock(), threading.Lock()
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://{host}:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    # ---------------------------------------------------------------- model calls
    def completion(self, body: dict) -> dict:
        import torch

        m = self.model
        prompt = body["prompt"]
        max_tokens = int(body.get("max_tokens", 16))
        stop = body.get("stop") or []
        stop = [stop] if isinstance(stop, str) else stop
        with self._model_lock:
            text = m.generate([prompt], max_new_tokens=max_tokens, stop=stop)[0] \
                if max_tokens > 0 else ""
            choice = {"index": 0, "text": text, "finish_reason": "stop"}
            if body.get("echo") and body.get("logprobs") is not None:
                enc = m.tok(prompt, return_offsets_mapping=True)
                ids, spans = list(enc["input_ids"]), list(enc["offset_mapping"])
                with torch.inference_mode():
                    logp = torch.log_softmax(m.model(torch.tensor([ids])).logits[0].double(), -1)
                toks = [prompt[a:b] for a, b in spans]
                vals = [None] + [logp[t - 1, ids[t]].item() for t in range(1, len(ids))]
                tops = [None] + [{m.tok.decode([int(logp[t - 1].argmax())]):
                                  logp[t - 1].max().item()} for t in range(1, len(ids))]
                offs = [a for a, _ in spans]
                if text:  # the generated text, as one token after the prompt
                    toks.append(text)
                    vals.append(None)
                    tops.append(None)
                    offs.append(len(prompt))
                choice["text"] = prompt + text
                choice["logprobs"] = {"tokens": toks, "token_logprobs": vals,
                                      "top_logprobs": tops, "text_offset": offs}
            elif body.get("logprobs") is not None and max_tokens > 0:
                # the alternatives for the first generated token, each keyed by the text
                # it adds to the prompt (its leading space included, as BPE servers do)
                ids = list(m.tok(prompt)["input_ids"])
                with torch.inference_mode():
                    logits = m.model(torch.tensor([ids])).logits[0, -1]
                    logp = torch.log_softmax(logits.double(), -1)
                base = m.tok.decode(ids)
                top = {}
                for t in logp.topk(min(int(body["logprobs"]), logp.numel())).indices.tolist():
                    top[m.tok.decode(ids + [t])[len(base):]] = logp[t].item()
                first = max(top, key=top.get)
                choice["logprobs"] = {"tokens": [first], "token_logprobs": [top[first]],
                                      "top_logprobs": [top], "text_offset": [len(prompt)]}
        return {"object": "text_completion", "model": body.get("model"), "choices": [choice]}

    def chat(self, body: dict) -> dict:
        msgs = body["messages"]
        if getattr(self.model.tok, "chat_template", None):
            prompt = self.model.apply_chat(msgs)
        else:
            prompt = "\n".join(m["content"] for m in msgs)
        out = self.completion({"prompt": prompt, "max_tokens": body.get("max_tokens", 16),
                               "stop": body.get("stop")})
        text = out["choices"][0]["text"]
        return {"object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}]}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, code: int, obj: dict):
                data = json.dumps(obj).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def do_POST(self):
                with server._lock:
                    server.requests += 1
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    fault = server.faults.pop(0) if server.faults else None
                try:
                    code, obj = self._answer(fault)
                finally:
                    # counted done before replying: the client may send its next request
                    # as soon as it reads this reply
                    with server._lock:
                        server.in_flight -= 1
                self._send(code, obj)

            def _answer(self, fault):
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length",
                                                                           0))))
                    if fault and fault[0] == "sleep":
                        time.sleep(fault[1])
                    elif fault and fault[0] == "status":
                        return fault[1], {"error": {"message": "injected"}}
                    if server.key and self.headers.get("Authorization") != f"Bearer {server.key}":
                        return 401, {"error": {"message": "invalid api key"}}
                    if self.path.endswith("/chat/completions"):
                        return 200, server.chat(body)
                    if self.path.endswith("/completions"):
                        return 200, server.completion(body)
                    return 404, {"error": {"message": f"no route {self.path}"}}
                except Exception as exc:  # a server bug must reach the client, not hang it
                    return 500, {"error": {"message": f"{type(exc).__name__}: {exc}"}}

        return Handler
