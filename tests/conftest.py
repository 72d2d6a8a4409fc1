"""Fixtures shared by the whole suite: the CLI run in-process or as a subprocess, and one
torch thread for tests that train (they share two cores with other work)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest


@pytest.fixture
def cli(capsys, monkeypatch):
    """``cli(*argv, stdin=None) -> (exit code, stdout, stderr)``, run in this process."""
    from theorybench.cli.main import main

    def run(*argv, stdin: str | None = None):
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture
def cli_proc():
    """``cli_proc(*argv, timeout=300) -> CompletedProcess``: the CLI in a fresh interpreter,
    for what only a real process shows (exit status, import side effects, signals)."""

    def run(*argv, timeout: float = 300):
        return subprocess.run([sys.executable, "-m", "theorybench.cli.main", *map(str, argv)],
                              capture_output=True, text=True, timeout=timeout)

    return run


@pytest.fixture
def one_torch_thread():
    """One torch thread for the test's duration: faster and stabler on a shared 2-core box."""
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.fixture(autouse=True)
def sweeps_in_process(request, monkeypatch):
    """In-process sweeps see every one core: the default executor ``auto`` then runs in this
    process, so tests can monkeypatch what a run does and start no worker processes (each
    would import torch again). Tests marked ``real_cores`` see the machine's cores; the
    executor choice itself is tested in tests/experiments/test_executor_auto.py."""
    if request.node.get_closest_marker("real_cores") is None:
        from theorybench.experiments import executors
        monkeypatch.setattr(executors, "cpu_count", lambda: 1)


@pytest.fixture(autouse=True)
def registrations_stay_in_their_test():
    """Task families, the artifacts of every library and THEORYBENCH_TASKS as they were
    before the test: a task file loaded by an in-process CLI run (which registers it and
    exports its path for pool workers) must not become a family of every later test."""
    import contextlib
    import os

    from theorybench.cli.tasks import artifact_libraries
    from theorybench.tasks.registry import ENV, FAMILIES

    old = os.environ.get(ENV)
    with contextlib.ExitStack() as stack:
        stack.enter_context(FAMILIES.scoped())
        for lib in artifact_libraries().values():
            stack.enter_context(lib.scoped())
        yield
    if old is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = old
