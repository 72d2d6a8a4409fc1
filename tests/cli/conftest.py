"""CLI fixtures: ``cli_exit`` is the in-process ``cli`` runner that also returns the exit
code of an argument error (argparse exits at parse time with code 2)."""

from __future__ import annotations

import pytest


@pytest.fixture
def cli_exit(cli, capsys):
    """``cli_exit(*argv, stdin=None) -> (exit code, stdout, stderr)``, parse errors included."""

    def run(*argv, stdin: str | None = None):
        try:
            return cli(*argv, stdin=stdin)
        except SystemExit as exc:
            out = capsys.readouterr()
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
            return code, out.out, out.err

    return run
