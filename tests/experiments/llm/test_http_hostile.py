"""The HTTP backend against a hostile server (issue 43, item 5): a stdlib http.server in a
thread that answers garbage, non-UTF-8 bytes, JSON of the wrong shape, a 500, too slowly
(at once or trickling), cut off mid-body, or not HTTP at all. Each ends in a
:class:`BackendError` (retried where the connection broke) within the timeout, never a
traceback of another kind or a hang. No model is needed (test_http.py serves the tiny one)."""

from __future__ import annotations

import http.server
import json
import socket
import socketserver
import threading
import time

import pytest

from theorybench.experiments.llm.http import BackendError, HTTPModel
from theorybench.experiments.llm.models import model_from_dict

CONTEXT, ANSWER = "Input: 0 1\nOutput:", " 1"


def _logprobs(value, offset=len(CONTEXT)):
    return {"choices": [{"logprobs": {"tokens": [ANSWER], "token_logprobs": [value],
                                      "text_offset": [offset]}}]}


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, body: bytes, code: int = 200, length: int | None = None):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.hits += 1
        how, arg = self.server.how
        try:
            if how == "body":
                self._send(arg if isinstance(arg, bytes) else json.dumps(arg).encode())
            elif how == "status":
                self._send(b'{"error": "boom"}', arg)
            elif how == "sleep":
                time.sleep(arg)
                self._send(b"{}")
            elif how == "trickle":  # one byte at a time, each within the socket timeout
                self.send_response(200)
                self.send_header("Content-Length", "100000")
                self.end_headers()
                for _ in range(200):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.05)
            elif how == "cut":       # promises 500 bytes, sends 13, hangs up
                self._send(b'{"choices": [', length=500)
                self.connection.shutdown(socket.SHUT_RDWR)
            elif how == "not http":
                self.wfile.write(b"HELLO GARBAGE\r\n\r\n")
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up first
            pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    how: tuple = ("body", b"{}")
    hits = 0

    def handle_error(self, request, client_address):  # no tracebacks on stderr
        pass


@pytest.fixture(scope="module")
def server():
    srv = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _client(srv, mode="completions", timeout=0.2, retries=1):
    entry = {"name": "hostile", "backend": "http", "model": "m", "mode": mode,
             "base_url": f"http://127.0.0.1:{srv.server_address[1]}/v1", "timeout": timeout,
             "max_retries": retries, "concurrency": 1}
    return HTTPModel(model_from_dict(entry), backoff=0.01, backoff_cap=0.02)


def _call(client, scoring):
    if scoring == "loglik":
        return client.loglikelihood([(CONTEXT, ANSWER)])
    return client.generate([CONTEXT], max_new_tokens=2)


CASES = [
    # (what the server does, scorings and modes, the message, attempts made)
    (("body", b"{not json"), r"did not answer JSON \(it began '\{not json'\)", 1),
    (("body", b"\xff\xfe\xfa\x00"), r"did not answer JSON", 1),
    (("body", [1, 2]), r"answered JSON that is not an object \(list\)", 1),
    (("body", {}), r"no (text in choices\[0\]|prompt log-probabilities)", 1),
    (("body", {"choices": []}), r"no (text in choices\[0\]|prompt log-probabilities)", 1),
    (("body", {"choices": [{"text": 5, "message": {"content": 5}}]}),
     r"no (text in choices\[0\]|prompt log-probabilities)", 1),
    (("status", 500), r"failed after 2 attempts; last error: HTTP 500", 2),
    (("sleep", 0.6), r"failed after 2 attempts; last error: TimeoutError.*the timeout is "
                     r"0\.2 s: \"timeout\" in the model entry, or --timeout", 2),
    (("trickle", None), r"last error: TimeoutError: the answer took longer than 0.2 s", 2),
    (("cut", None), r"failed after 2 attempts; last error: IncompleteRead", 2),
    (("not http", None), r"failed after 2 attempts; last error: BadStatusLine", 2),
]


@pytest.mark.parametrize("how,message,attempts", CASES, ids=[str(c[0][0]) + "-" + str(i)
                                                              for i, c in enumerate(CASES)])
@pytest.mark.parametrize("scoring,mode", [("loglik", "completions"), ("generate", "completions"),
                                          ("generate", "chat")])
def test_a_hostile_answer_is_a_backend_error_in_bounded_time(server, how, message, attempts,
                                                             scoring, mode):
    server.how = how
    client = _client(server, mode)
    t0 = time.monotonic()
    with pytest.raises(BackendError, match=message):
        _call(client, scoring)
    assert client.attempts == attempts
    assert time.monotonic() - t0 < 3  # two attempts of at most 2 x 0.2 s each, and backoff


@pytest.mark.parametrize("value", [float("nan"), "x", True, 0.5])
def test_a_log_probability_that_is_no_number_is_refused(server, value):
    """Before: NaN became the answer's score (a silent wrong result), a string a TypeError."""
    server.how = ("body", json.dumps(_logprobs(value)).encode())  # NaN: Python's json writes it
    with pytest.raises(BackendError, match=r"log-probability .* is not a finite number <= 0"):
        _client(server).loglikelihood([(CONTEXT, ANSWER)])


def test_a_well_formed_answer_still_scores(server):
    server.how = ("body", _logprobs(-0.25))
    assert _client(server).loglikelihood([(CONTEXT, ANSWER)]) == [(-0.25, True)]
    server.how = ("body", {"choices": [{"text": " 1\nmore"}]})
    assert _client(server).generate([CONTEXT], max_new_tokens=2, stop=["\n"]) == [" 1"]


def test_llm_eval_against_a_garbage_server_is_one_line(server, cli, tmp_path):
    server.how = ("body", b"<html>not an api</html>")
    models = tmp_path / "m.json"
    models.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "hostile", "backend": "http", "model": "m", "max_retries": 0,
         "base_url": f"http://127.0.0.1:{server.server_address[1]}/v1"}]}))
    code, out, err = cli("llm", "eval", "parity", "--n", "4", "--count", "2", "--k", "1",
                         "--models", models, "--timeout", "2")
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "did not answer JSON (it began '<html>not an api</html>')" in err
