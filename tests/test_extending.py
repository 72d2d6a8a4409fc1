"""docs/extending.md runs: every ``# file:`` block is written to a temporary folder and
imported as a module of the user's own (``// file:`` program blocks are only written), and
every ``# check`` block runs after the blocks before it. All registries are scoped, so
nothing the page adds is seen by other tests."""

from __future__ import annotations

import contextlib
import importlib
import pathlib
import re
import sys

import pytest

from theorybench.cli.main import COMMANDS
from theorybench.cli.tasks import artifact_libraries
from theorybench.experiments.lines import LINES
from theorybench.experiments.positional import ENCODINGS
from theorybench.tasks.registry import FAMILIES
from theorybench.theories.registry import THEORY_REGISTRY

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "extending.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
HEAD = re.compile(r"^(?:#|//) (file|check)(?::\s*(\S+))?")


def blocks(text: str) -> list[tuple[str, str | None, str]]:
    """(kind, path, code) of each runnable fenced block, in page order."""
    out = []
    for _lang, code in FENCE.findall(text):
        m = HEAD.match(code)
        if m:
            out.append((m.group(1), m.group(2), code))
    return out


def test_the_page_has_an_example_for_every_extension_point():
    kinds = [(k, p) for k, p, _ in blocks(PAGE.read_text())]
    paths = [p for k, p in kinds if k == "file"]
    for where in ("tasks/", "theories/", "crasp/library/", "circuits/", "bapo/", "positional",
                  "cli/", "experiments/"):
        assert any(where in p for p in paths), where
    assert sum(k == "check" for k, _ in kinds) >= 6


@pytest.fixture
def scoped_registries():
    with contextlib.ExitStack() as stack:
        for reg in (FAMILIES, THEORY_REGISTRY, ENCODINGS, LINES, COMMANDS,
                    *artifact_libraries().values()):
            stack.enter_context(reg.scoped())
        yield


def test_every_example_runs(tmp_path, monkeypatch, scoped_registries, capsys):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("THEORYBENCH_THEORIES", "")   # a loaded theory file exports itself there
    files: dict[str, pathlib.Path] = {}
    imported = []
    try:
        for kind, path, code in blocks(PAGE.read_text()):
            if kind == "file":
                target = tmp_path / pathlib.Path(path).name
                assert target.name not in files, f"two examples write {target.name}"
                target.write_text(code)
                files[target.name] = target
                if target.suffix == ".py":
                    assert target.stem not in sys.modules, target.stem
                    importlib.import_module(target.stem)
                    imported.append(target.stem)
            else:
                exec(compile(code, f"{PAGE.name} check block", "exec"), {"files": files})
    finally:
        for name in imported:
            sys.modules.pop(name, None)
    assert "hello, first_bit" in capsys.readouterr().out


def test_the_registries_are_clean_afterwards():
    # runs after test_every_example_runs in file order: nothing of the page is left
    assert "first_bit" not in FAMILIES and "locality" not in THEORY_REGISTRY
    assert "counts_only" not in THEORY_REGISTRY
    assert "recency" not in ENCODINGS and "probe" not in LINES and "hello" not in COMMANDS
    assert all("first_bit" not in lib.families() for lib in artifact_libraries().values())
