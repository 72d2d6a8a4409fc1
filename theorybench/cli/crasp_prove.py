"""`theorybench crasp prove PROGRAM --task T`: a proof for every length, by induction.

Registered under `crasp` by :mod:`.crasp`; the leading underscore keeps ``main`` from
treating this module as a command of its own.
"""

from __future__ import annotations

from pathlib import Path

from .. import proofs, tasks
from ..errors import ConfigError
from ..formal import crasp
from ..formal.program_files import task_spelling, task_values, variant_of
from .common import parse_params, print_json

EXIT = {"proved": 0, "counterexample": 1, "unknown": 3}


def add_prove(cs) -> None:
    p = cs.add_parser(
        "prove", help="prove a program decides a task at every length (z3, by induction)",
        description="Runs the program and the task's specification counter machine side by "
                    "side, finds an inductive invariant relating their states and has z3 "
                    "prove that it implies the same answer at every length. Exit status: 0 "
                    "proved, 1 counterexample (the shortest word), 3 unknown (no invariant "
                    "among the templates, or no specification for the task).")
    p.add_argument("program", help="a .cr file or a library program name")
    p.add_argument("--task", required=True, help="task: FAMILY or FAMILY:K=V[:K=V]")
    p.add_argument("--param", action="append", metavar="K=V",
                   help="deprecated: write the task as FAMILY:K=V instead")
    p.add_argument("--search-len", type=int, default=12,
                   help="exhaustive counterexample search up to this length (default 12)")
    p.add_argument("--bmc-len", type=int, default=40,
                   help="then z3 bounded model checking up to this length (default 40)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_prove)


def _program(name: str, family: str, params: dict):
    """(program, note): the program for exactly the task asked. A library program's
    `// requires:` never replaces the task's parameters; when it is written for another
    variant, the note says so and the program is proved as written."""
    lib = crasp.library()
    note, _ = variant_of(name, lib, "theorybench crasp list", family, params)
    if name in lib and not Path(name).exists():
        entry = lib[name]
        if note is None:
            # the library's parameters (bounded Dyck's D) come from the task, at any n
            n = next(p for p in tasks.family(family).params if p.name == "n").default
            return entry.instantiate(tasks.get(family, n=n, **params)), None
        return entry.program, note
    return crasp.load_program(name), note


def cmd_prove(args) -> int:
    for opt in ("search_len", "bmc_len"):
        if not 1 <= getattr(args, opt) <= 64:
            raise ConfigError(f"--{opt.replace('_', '-')} {getattr(args, opt)}: choose a "
                              f"length from 1 to 64")
    if not 0 < args.timeout < 1e6:
        raise ConfigError(f"--timeout {args.timeout}: give a positive number of seconds")
    given = parse_params(args.param)
    values = task_values(args.task, given)
    params = {k: values[k] for k in given}  # typed, as the task reads them
    program, note = _program(args.program, args.task, params)
    if note and args.format != "json":
        print(note)
    res = proofs.prove_crasp(program, args.task, params, search_len=args.search_len,
                             bmc_len=max(args.bmc_len, args.search_len),
                             timeout_s=args.timeout)
    if args.format == "json":
        print_json({**res.to_dict(), "task_checked": task_spelling(args.task, params),
                    "note": note})
        return EXIT[res.status]
    print(f"program {program.source_name}  task {task_spelling(args.task, params)}")
    if res.spec:
        print(f"specification: {res.spec}")
    if res.invariant:
        print("invariant (program counts, specification registers s.*, position p):")
        for fact in res.invariant:
            print(f"  {fact}")
    print(res.summary())
    if res.translation_len:
        print(f"(the program's counter machine equals the interpreter on every word up to "
              f"length {res.translation_len}; {res.seconds:.2f} s)")
    return EXIT[res.status]
