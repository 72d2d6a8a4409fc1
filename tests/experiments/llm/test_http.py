"""The HTTP backend against a real OpenAI-compatible server on 127.0.0.1 serving the tiny
model: scores agree with the local backend; 429/500/timeouts are retried (bounded)."""

from __future__ import annotations

import socket
import time

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.llm.models import model_from_dict

pytest.importorskip("transformers")

REQS = [("Input: 0 1 1\nOutput:", " 1"), ("Input: 0 1 1\nOutput:", " 0"),
        ("Q: ( ) [\nA:", " 0 1 1"), ("The capital of France is", " Paris")]
PROMPTS = ["Input: 0 1\nOutput:", "0 1 0", "a b", "Q: ( ) [ ]\nA:"]


def _client(url, **kw):
    from theorybench.experiments.llm.http import HTTPModel

    entry = {"name": "tiny-http", "backend": "http", "base_url": url, "model": "tiny",
             "timeout": 5, "max_retries": 3, "concurrency": 2} | kw
    return HTTPModel(model_from_dict(entry), backoff=0.01, backoff_cap=0.05)


@pytest.fixture
def server(tiny):
    from theorybench.experiments.llm.serve import ModelServer

    with ModelServer(tiny) as s:
        yield s


def test_http_scores_and_generations_equal_local(tiny, server):
    client = _client(server.url)
    local = tiny.loglikelihood(REQS)
    remote = client.loglikelihood(REQS)
    assert [s for s, _ in remote] == pytest.approx([s for s, _ in local], abs=1e-6)
    assert [g for _, g in remote] == [g for _, g in local]
    # the server generates one prompt at a time: compare with unbatched local generation
    assert client.generate(PROMPTS, max_new_tokens=6, stop=["\n"]) == \
        tiny.generate(PROMPTS, max_new_tokens=6, stop=["\n"], batch_size=1)
    assert server.max_in_flight <= 2


def test_next_token_scores_equal_local(tiny, server):
    # the reading for servers whose echoed log-probabilities are wrong (llama-cpp-python)
    client = _client(server.url, loglik="next_token", top_logprobs=50)
    local = tiny.loglikelihood(REQS[:3])
    remote = client.loglikelihood(REQS[:3])
    assert [s for s, _ in remote] == pytest.approx([s for s, _ in local], abs=1e-6)
    assert [g for _, g in remote] == [g for _, g in local]
    assert "loglik" in client.config.to_dict() and "loglik" not in \
        _client(server.url).config.to_dict()   # the default keeps earlier run keys


def test_next_token_piece_outside_the_alternatives_is_named(tiny, server):
    from theorybench.experiments.llm.http import BackendError

    client = _client(server.url, loglik="next_token", top_logprobs=1)
    (best, greedy), = tiny.loglikelihood([REQS[0]])
    other = REQS[1] if greedy else REQS[0]
    with pytest.raises(BackendError, match="top_logprobs"):
        client.loglikelihood([other])
    with pytest.raises(ConfigError, match="loglik"):
        _client(server.url, loglik="shifted")


def test_chat_mode_generates_and_refuses_loglik(tiny, server):
    client = _client(server.url, mode="chat")
    assert client.generate(PROMPTS[:2], max_new_tokens=4) == \
        tiny.generate(PROMPTS[:2], max_new_tokens=4, batch_size=1)
    with pytest.raises(ConfigError, match="no prompt log-probabilities"):
        client.loglikelihood(REQS[:1])


def test_retries_on_429_500_and_timeouts(tiny, server):
    client = _client(server.url, timeout=0.5)
    server.faults[:] = [("status", 429), ("status", 500), ("sleep", 1.5)]
    (score, _), = client.loglikelihood(REQS[:1])
    assert score == pytest.approx(tiny.loglikelihood(REQS[:1])[0][0], abs=1e-6)
    assert client.attempts == 4  # three failures, then success


def test_retries_are_bounded(server):
    from theorybench.experiments.llm.http import BackendError

    client = _client(server.url, max_retries=2)
    server.faults[:] = [("status", 503)] * 10
    t0 = time.perf_counter()
    with pytest.raises(BackendError, match="failed after 3 attempts; last error: HTTP 503"):
        client.generate(["0 1"], max_new_tokens=2)
    assert client.attempts == 3 and time.perf_counter() - t0 < 5


def test_bad_key_and_missing_key(tiny, monkeypatch):
    from theorybench.experiments.llm.serve import ModelServer

    with ModelServer(tiny, key="right") as s:
        monkeypatch.setenv("TB_TEST_KEY", "wrong")
        client = _client(s.url, api_key_env="TB_TEST_KEY")
        with pytest.raises(ConfigError, match="HTTP 401: the server rejected the key"):
            client.generate(["0 1"], max_new_tokens=2)
        assert client.attempts == 1  # not retried
        monkeypatch.setenv("TB_TEST_KEY", "right")
        assert _client(s.url, api_key_env="TB_TEST_KEY").generate(["0 1"], max_new_tokens=2)
    monkeypatch.delenv("TB_TEST_KEY")
    with pytest.raises(ConfigError, match="TB_TEST_KEY .* is not set"):
        _client("http://127.0.0.1:1/v1", api_key_env="TB_TEST_KEY")


def test_unreachable_endpoint():
    from theorybench.experiments.llm.http import BackendError

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    client = _client(f"http://127.0.0.1:{port}/v1", max_retries=1)
    with pytest.raises(BackendError, match="failed after 2 attempts"):
        client.generate(["0 1"], max_new_tokens=2)


def test_context_refused_before_sending(tiny_dir, server):
    client = _client(server.url, tokenizer=str(tiny_dir), context=6)
    with pytest.raises(ConfigError, match="is 8 tokens, longer than the context"):
        client.loglikelihood([("0 1 0 1 0 1 0", " 1")])
    assert server.requests == 0
