"""The llm line's model file is validated field by field (issue 31, cause 6): values JSON
allows but a request cannot use (NaN, 1e308, a URL without a scheme, a broken IPv6 literal)
are refused when the file is read, with the file, the entry and the field named."""

from __future__ import annotations

import json

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.llm.models import (DEFAULT_MODELS, ModelConfig, load_models,
                                                model_from_dict)

HTTP = {"name": "h", "backend": "http", "base_url": "http://127.0.0.1:8000/v1", "model": "m"}


def _file(tmp_path, entry: dict | str, top: dict | None = None):
    """A model file holding ``entry``; a str is spliced in verbatim (JSON's NaN, Infinity)."""
    body = entry if isinstance(entry, str) else json.dumps(entry)
    head = json.dumps({"format": "theorybench-llm-models", "version": 1, **(top or {})})
    path = tmp_path / "models.json"
    path.write_text(head[:-1] + ', "models": [' + body + "]}")
    return path


BAD = [
    # (entry or its JSON text, field named in the message)
    ('{"name": "h", "backend": "http", "base_url": "http://x/v1", "model": "m", '
     '"timeout": NaN}', "timeout"),
    ('{"name": "h", "backend": "http", "base_url": "http://x/v1", "model": "m", '
     '"timeout": Infinity}', "timeout"),
    ({**HTTP, "timeout": 1e308}, "timeout"),
    ({**HTTP, "timeout": True}, "timeout"),
    ({**HTTP, "timeout": "30"}, "timeout"),
    ({**HTTP, "base_url": "localhost:8000"}, "base_url"),
    ({**HTTP, "base_url": "127.0.0.1:8000/v1"}, "base_url"),
    ({**HTTP, "base_url": "http://[::1"}, "base_url"),
    ({**HTTP, "base_url": "http://[zz]:80/v1"}, "base_url"),
    ({**HTTP, "base_url": "http://::1:8000/v1"}, "base_url"),
    ({**HTTP, "base_url": "http://h:99999/v1"}, "base_url"),
    ({**HTTP, "base_url": "ftp://h/v1"}, "base_url"),
    ({**HTTP, "base_url": "http://h/v1?x=1"}, "base_url"),
    ({**HTTP, "base_url": "http://h /v1"}, "base_url"),
    ({**HTTP, "base_url": 8000}, "base_url"),
    ({**HTTP, "context": 2048.0}, "context"),
    ({**HTTP, "concurrency": 10**9}, "concurrency"),
    ({**HTTP, "max_retries": 10**6}, "max_retries"),
    ({**HTTP, "chat": "false"}, "chat"),
    ({**HTTP, "model": ""}, '"model"'),
    ({**HTTP, "model": 7}, "model"),
    ({**HTTP, "api_key_env": "sk-abc123"}, "api_key_env"),
    ({**HTTP, "mode": "chat-completions"}, "mode"),
    ({"name": "l", "backend": "local", "path": "/x", "dtype": "int8"}, "dtype"),
    ({"name": "l", "backend": "local", "path": 5}, "path"),
    ({"name": "l", "backend": "local", "path": "/x", "cache": 1}, "cache"),
    ({"name": "l", "path": "/x"}, "backend"),
]


@pytest.mark.parametrize("entry, field", BAD, ids=range(len(BAD)))
def test_bad_fields_are_refused_naming_file_entry_and_field(tmp_path, entry, field):
    path = _file(tmp_path, entry)
    with pytest.raises(ConfigError) as exc:
        load_models(path)
    msg = str(exc.value)
    assert f"model file {path}, entry 1" in msg and field in msg, msg


@pytest.mark.parametrize("entry, field", BAD[:12], ids=range(12))
def test_cli_reports_bad_fields_without_traceback(cli, tmp_path, entry, field):
    code, out, err = cli("llm", "models", "--models", _file(tmp_path, entry))
    assert code == 2 and field in err and "Traceback" not in err + out


@pytest.mark.parametrize("top, message", [
    ({"version": 2}, "reads version 1"),
    ({"models_": []}, "unknown key"),
])
def test_top_level_is_checked(tmp_path, top, message):
    with pytest.raises(ConfigError, match=message):
        load_models(_file(tmp_path, HTTP, top))


def test_valid_edge_values_are_accepted(tmp_path):
    ok = {**HTTP, "base_url": "https://[::1]:8443/v1/", "timeout": 86400, "max_retries": 0,
          "api_key_env": "OPENAI_API_KEY", "concurrency": 1}
    (m,) = load_models(_file(tmp_path, ok)).values()
    assert m.timeout == 86400 and m.base_url == "https://[::1]:8443/v1/"
    # the packaged files, and an entry rebuilt from a stored run spec
    assert load_models(DEFAULT_MODELS)
    study = load_models(DEFAULT_MODELS.with_name("study-models.json"))
    assert len(study) == 5
    for cfg in study.values():
        assert model_from_dict(cfg.to_dict()).digest == cfg.digest


def test_the_python_api_checks_the_same_fields():
    with pytest.raises(ConfigError, match="timeout"):
        ModelConfig(name="h", backend="http", base_url="http://x/v1", model="m",
                    timeout=float("nan"))
    with pytest.raises(ConfigError, match="base_url"):
        model_from_dict({**HTTP, "base_url": "http://[::1"})
