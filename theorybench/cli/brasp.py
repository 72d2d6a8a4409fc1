"""`theorybench brasp run|check|lint|list`: run, check and lint B-RASP programs.

PROGRAM is a ``.br`` file or the name of a library program (see `theorybench brasp list`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ConfigError, ProgramError, TaskParameterError
from ..formal.brasp import ast as A
from ..formal.brasp import check as C
from ..formal.brasp import interpret, parser, programs, trace, validate
from ..formal.program_files import task_spelling, variant_of
from ..safe_io import atomic_write, check_output
from .common import IntermixedParser, add_force, int_arg, parse_params, parse_seed, print_json, print_table


#: Largest --max-n of `brasp check` (n = 1..N are all checked, then samples at 2N).
MAX_CHECK_N = 256


def register(sub) -> None:
    p = sub.add_parser("brasp", help="run, check and lint B-RASP programs (Star-free theory)")
    cs = p.add_subparsers(dest="brasp_command", metavar="SUBCOMMAND",
                          parser_class=IntermixedParser)

    r = cs.add_parser("run", help="run a program on inputs (argument or one per stdin line)")
    r.add_argument("program", help="a .br file or a library program name")
    r.add_argument("input", nargs="?", default=None,
                   help='space-separated tokens, e.g. "1 1 0"; omit to read stdin')
    r.add_argument("--trace", metavar="FILE", help="write a trace (.txt or .html)")
    add_force(r, "--trace")
    r.set_defaults(func=cmd_run)

    c = cs.add_parser("check", help="check a program against a task on all inputs up to N")
    c.add_argument("program", help="a .br file or a library program name")
    c.add_argument("--task", required=True, help="task: FAMILY or FAMILY:K=V[:K=V]")
    c.add_argument("--max-n", type=int_arg(1, MAX_CHECK_N, "every n up to it is checked, "
                                           "with length x length attention"), default=10,
                   help="check every n <= N (all inputs where at most 2^16, else samples), "
                        "then samples at 2N (default 10)")
    c.add_argument("--param", action="append", metavar="K=V", help="task parameter")
    c.add_argument("--samples", type=int_arg(1, 10 ** 6), default=2000,
                   help="samples per sampled n (default 2000)")
    c.add_argument("--seed", type=parse_seed, default=0)
    c.set_defaults(func=cmd_check)

    lint = cs.add_parser("lint", help="print every problem of a program with line:column")
    lint.add_argument("program", help="a .br file or a library program name")
    lint.add_argument("--plain", action="store_true",
                      help="require plain B-RASP (no position comparisons)")
    lint.set_defaults(func=cmd_lint)

    ls = cs.add_parser("list", help="list the library programs")
    ls.add_argument("--format", choices=("text", "json"), default="text")
    ls.set_defaults(func=cmd_list)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _inputs(args) -> list[list[str]]:
    if args.input is not None:
        lines = [args.input]
    else:
        lines = [ln.strip() for ln in sys.stdin.read().splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith("//")]
    if not lines:
        raise ConfigError("no input: give the tokens as an argument or one input per stdin line")
    words = [ln.split() for ln in lines]
    for j, w in enumerate(words, 1):
        if not w:
            raise ConfigError(f"input {j} is empty: a B-RASP program reads its output at the "
                              f"last position, so an input needs at least one token")
    return words


def cmd_run(args) -> int:
    if args.trace is not None:  # refused before the run
        check_output(args.trace, [("the program", args.program)], args.force, what="--trace")
    program = programs.load_program(args.program)
    words = _inputs(args)
    result = interpret.run(program, words)
    answers = result.classify()
    accepts = result.accept()
    for w, acc, ans in zip(words, accepts, answers):
        verdict = ans if program.multi else ("accept" if acc else "reject")
        print(f"{verdict}\t{' '.join(w)}")
    if args.trace:
        path = Path(args.trace)
        if path.suffix.lower() in (".html", ".htm"):
            body = trace.trace_html(result)
        elif path.suffix.lower() == ".txt":
            body = trace.trace_text(result)
        else:
            raise ConfigError(f"--trace {args.trace}: use a .txt or .html file name")
        try:
            atomic_write(path, body)
        except OSError as exc:
            raise ConfigError(f"cannot write trace {args.trace}: {exc.strerror}") from None
        print(f"trace written to {path}", file=sys.stderr)
    return 0


def cmd_check(args) -> int:
    params = parse_params(args.param)
    program = programs.load_program(args.program)
    note, other = variant_of(args.program, programs.library(), "theorybench brasp list",
                             args.task, params)
    if note:  # first, so that it also stands before a refusal
        print(note, flush=True)
    if args.max_n < 1:
        raise TaskParameterError(f"--max-n {args.max_n}: use a positive length")
    report = C.check_against_task(program, args.task, params, max_n=args.max_n,
                             samples=args.samples, seed=args.seed)
    if report.ok:
        try:  # beyond the bound: samples at 2N
            more = C.check_against_task(program, args.task, params, ns=[2 * args.max_n],
                                   enum_limit=0, samples=args.samples, seed=args.seed)
            report.checked += more.checked
            report.ok, report.counterexample = more.ok, more.counterexample
        except TaskParameterError:
            pass
    for rec in report.checked:
        how = "all" if rec["exhaustive"] else "sampled"
        print(f"n={rec['n']:<4} {rec['inputs']:>7} inputs ({how})")
    s = A.size(program)
    kind = "B-RASP[pos]" if A.uses_positions(program) else "B-RASP"
    print(f"program: {kind}, {s['operations']} operations ({s['attention']} attention), "
          f"depth {A.depth(program)}")
    task = task_spelling(args.task, params)
    if report.counterexample:
        c = report.counterexample
        print(f"COUNTER-EXAMPLE for {task} at n={c['n']}: \"{c['input']}\" expected "
              f"{c['expected']}, program gives {c['program']}{other}")
        return 1
    print(f"OK: the program decides {task} on every checked input{other}")
    return 0


def cmd_lint(args) -> int:
    text, name = programs.program_text(args.program)
    program, probs = parser.parse_lines(text)
    if not probs:
        probs = validate.problems(program, positional=not args.plain)
    if probs:
        raise ProgramError(probs, name)
    s = A.size(program)
    kind = "B-RASP[pos]" if A.uses_positions(program) else "B-RASP"
    out = (", ".join(f"{lab}:{n}" for lab, n in program.classes) + f", else {program.otherwise}"
           if program.multi else program.output_name)
    print(f"{name}: OK ({kind}, {s['operations']} operations, {s['attention']} attention, "
          f"depth {A.depth(program)}, output {out})")
    return 0


def cmd_list(args) -> int:
    rows, records = [], []
    for name, e in programs.library().items():
        prog = e.program
        req = " ".join(f"{k}={v}" for k, v in e.requires) or "-"
        kind = "pos" if A.uses_positions(prog) else "plain"
        s = A.size(prog)
        rows.append((name, e.family, req, kind, s["operations"], A.depth(prog),
                     e.description[:60]))
        records.append({"program": name, "task": e.family, "requires": dict(e.requires),
                        "kind": kind, "operations": s["operations"],
                        "attention": s["attention"], "depth": A.depth(prog),
                        "description": e.description})
    if args.format == "json":
        print_json(records)
        return 0
    print_table(rows, ("program", "task", "requires", "kind", "ops", "depth", "description"))
    return 0
