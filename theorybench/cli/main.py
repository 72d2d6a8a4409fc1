"""Entry point: builds the parser from the declared command registry and runs the chosen
command.

:data:`COMMANDS` (the registry idiom of :mod:`theorybench.registry`) holds, per command
module, its ``register(subparsers)`` function; :data:`COMMAND_MODULES` declares the shipped
ones (a helper module such as ``common`` is simply not listed). A user's command is added
with ``COMMANDS.register(register_fn, name="mycommand")``.

User mistakes (``TheorybenchError``) print ``theorybench: error: ...`` and exit 2 with no
traceback; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__, tasks
from ..errors import TheorybenchError
from ..registry import BUILTIN, Registry

#: The shipped command modules of ``theorybench.cli``, each with ``register(subparsers)``
#: adding its subcommands; the help lists them in this order.
COMMAND_MODULES = ("automaton", "bapo", "brasp", "byo", "circuit", "claims", "construct",
                   "crasp", "discover", "llm", "mpc", "predict", "report", "reproduce", "run", "sensitivity",
                   "score", "sharpness",
                   "task", "tasks", "theory")


def _shipped() -> tuple[str, ...]:
    """Register the shipped modules first (a user's command comes after them)."""
    user = COMMANDS.items()
    for name, _ in user:
        COMMANDS.unregister(name)
    for name in COMMAND_MODULES:
        COMMANDS.register(importlib.import_module(f"{__package__}.{name}").register,
                          name=name, origin=BUILTIN)
    for name, fn in user:
        COMMANDS.register(fn, name=name)
    return ()


#: Command module name -> its ``register(subparsers)``.
COMMANDS: Registry = Registry("command module", _shipped)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="theorybench",
        description="Executable theories of transformers, and trained transformers beside them.")
    parser.add_argument("--version", action="version", version=f"theorybench {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for _name, register in COMMANDS.items():
        register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        deprecated = _task_variant(args)
        code = int(args.func(args) or 0)
        if deprecated:  # after the command, so that its errors and output come first
            print(deprecated, file=sys.stderr)
        return code
    except TheorybenchError as exc:
        if args.debug:
            raise
        print(f"theorybench: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # must precede OSError's handler to stay silent
        return 0
    except OSError as exc:  # a path the user gave cannot be read or written
        if args.debug:
            raise
        where = f": {exc.filename}" if exc.filename else ""
        print(f"theorybench: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("theorybench: interrupted", file=sys.stderr)
        return 130


def _task_variant(args) -> str | None:
    """A command's one task in the shared syntax (``khop:k=2``) -> ``task`` plus ``param``.

    Every command that takes one task reads ``args.task`` and ``args.param``; the variant
    syntax is resolved here once. The older ``--param K=V`` keeps working; the deprecation
    note returned is printed after the command, so its output and errors come first."""
    if not hasattr(args, "param") or not isinstance(getattr(args, "task", None), str):
        return None
    note = None
    if args.param:
        note = ("note: --param K=V is deprecated; write the task as FAMILY:K=V "
                f"(e.g. {args.task}:" + ":".join(args.param) + ")")
    if ":" in args.task or tasks.split_file_ref(args.task):  # a variant, or a task file
        name, params = tasks.parse_task(args.task)
        args.task = name
        args.param = [f"{k}={v}" for k, v in params.items()] + list(args.param or [])
    return note


if __name__ == "__main__":
    sys.exit(main())
