"""`theorybench theory check FILE`: validate a theory file (docs/extending.md, "Bring your
own theory") by loading it and running it on a few small tasks."""

from __future__ import annotations

from ..theories.base import Context
from ..theories.runner import CHECK_TASKS, cell, check_file
from .common import max_n_arg


def register(sub) -> None:
    p = sub.add_parser("theory", help="work with theory files (your own theories)",
                       description="Work with theory files: a Python file with NAME and "
                       "predict(task), or Theory subclasses; see docs/extending.md.")
    inner = p.add_subparsers(dest="theory_command", metavar="SUBCOMMAND", required=True)
    c = inner.add_parser("check", help="validate a theory file",
                         description="Load a theory file (its syntax, names and hooks) and run "
                         "each theory it defines on a few small tasks; a hook that raises or "
                         "returns the wrong type is reported with its file and line, and the "
                         "exit status is 1.")
    c.add_argument("file", help="the theory file (.py)")
    c.add_argument("--task", default=",".join(CHECK_TASKS),
                   help=f"comma-separated tasks to run it on (default {','.join(CHECK_TASKS)})")
    c.add_argument("--max-n", type=max_n_arg, default=8,
                   help="largest n for exact computations (default 8)")
    c.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    fams = [t.strip() for t in args.task.split(",") if t.strip()]
    got = check_file(args.file, fams, Context(max_n=args.max_n))
    print(f"{args.file}: {len(got['names'])} theor{'y' if len(got['names']) == 1 else 'ies'} "
          f"({', '.join(got['names'])})")
    for p in got["cells"]:
        print(f"  {p.theory} on {p.task}: {cell(p)}")
    for line in got["warnings"]:
        print(f"  warning: {line}")
    for line in got["problems"]:
        print(f"  problem: {line}")
    if got["problems"]:
        print(f"FAILED: {len(got['problems'])} problem(s); fix them in {args.file}")
        return 1
    print("OK" + (" with warnings" if got["warnings"] else ""))
    return 0
