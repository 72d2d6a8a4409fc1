"""`theorybench task check FILE`: validate a task file (docs/extending.md, "Bring your own
task") and print what was checked, with its definition digest."""

from __future__ import annotations

import numpy as np

from ..errors import TaskParameterError
from ..tasks import registry
from ..tasks.user import load_family
from ..tasks.user_checks import full_check
from .common import int_arg, parse_seed


def register(sub) -> None:
    p = sub.add_parser("task", help="work with task files (your own tasks)",
                       description="Work with task files: a Python file with NAME, ALPHABET, "
                       "LENGTHS and label(x) (or REGEX, DFA or COUNTER), or a .cr/.br program whose "
                       "language is the task; see docs/extending.md.")
    inner = p.add_subparsers(dest="task_command", metavar="SUBCOMMAND", required=True)
    c = inner.add_parser("check", help="validate a task file",
                         description="Validate a task file: its names and types, label's "
                         "shape and 0/1 values on random and edge inputs (each token "
                         "repeated, shortest and longest n), determinism (label twice), "
                         "agreement with oracle(x) when given (for a program: the naive "
                         "interpreter), sampling, and speed (a label "
                         "slower than 1 s on 10,000 inputs is reported).")
    c.add_argument("file", help="the task file (.py) or program (.cr, .br)")
    c.add_argument("--count", type=int_arg(1, 100_000), default=2000,
                   help="random inputs per checked n (default 2000)")
    c.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    c.set_defaults(func=cmd_check)


def cmd_check(args) -> int:
    cls = load_family(args.file)
    if cls.name in registry.FAMILIES and registry.FAMILIES.origin(cls.name) == "builtin":
        raise TaskParameterError(
            f"{cls.source.at('NAME')}: NAME {cls.name!r} is a built-in task family; choose "
            f"another name (e.g. {cls.name}_mine)")
    done, warnings = full_check(cls, np.random.default_rng(args.seed), args.count)
    lo, hi = cls.lengths
    params = "".join(f", {p.name} in {p.minimum}..{p.maximum}" for p in cls.params[1:])
    print(f"{cls.origin}: task {cls.name} ({cls.definition}), alphabet "
          f"{' '.join(cls.alphabet)}, n in {lo}..{hi}{params}, output {cls.output}")
    for line in done:
        print(f"  ok: {line}")
    for rec in getattr(cls, "artifacts", ()):   # checked when the file loaded
        used = ", ".join(rec["columns"]) or "no column (outside every column's model)"
        print(f"  ok: {rec['language']} program {rec['origin']} ({rec['fragment']}) agrees "
              f"with label on every input up to n={rec['exhaustive_up_to']} and on samples up "
              f"to n={rec['verified_up_to']}; evidence for: {used}")
    for line in warnings:
        print(f"  warning: {line}")
    print(f"{'OK' if not warnings else 'OK with warnings'}: {cls.name} digest "
          f"sha256:{cls.definition_digest[:16]}")
    return 0
