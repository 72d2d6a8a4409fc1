"""`theorybench crasp run|check|lint|list`: run, check and lint C-RASP programs.

PROGRAM is a ``.cr`` file or the name of a library program (see `theorybench crasp list`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ConfigError, ProgramError
from ..formal import crasp
from ..formal.program_files import task_spelling, variant_of
from ..safe_io import atomic_write, check_output
from .crasp_compile import add_compile
from .crasp_prove import add_prove
from .common import IntermixedParser, add_force, parse_params, parse_seed, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "crasp", help="run, check and lint C-RASP programs",
        description="C-RASP programs in the .cr syntax of the public interpreter "
                    "(coli-saar/c-rasp). Operator precedence, loosest first: `A if C else B`, "
                    "||, &&, comparisons (non-associative), + -, k * count, prefix ! # #[g], "
                    "atoms; so `# \"a\" == 0` is `(# \"a\") == 0`. Positions are 1-based as in "
                    "Huang et al. (ICLR 2025) unless --positions 0; the output is read at an "
                    "appended end marker unless --accept last.")
    cs = p.add_subparsers(dest="crasp_command", metavar="SUBCOMMAND",
                          parser_class=IntermixedParser)

    r = cs.add_parser("run", help="run a program on inputs (argument or one per stdin line)")
    r.add_argument("program", help="a .cr file or a library program name")
    r.add_argument("input", nargs="?", default=None,
                   help='space-separated tokens, e.g. "( ) ( )"; omit to read stdin')
    r.add_argument("--accept", choices=("eos", "last"), default="eos",
                   help="read the output at an appended end marker (default) or at the "
                        "last input position")
    r.add_argument("--positions", type=int, choices=(1, 0), default=1,
                   help="number of the first position as #import-ed unary predicates "
                        "(pos_even, mod_P_R, first) see it: 1 as in Huang et al. (default) or "
                        "0 as in the public interpreter (coli-saar/c-rasp), whose .cr files "
                        "also read the output at the last position: --accept last "
                        "--positions 0 reproduces its answers")
    r.add_argument("--trace", metavar="FILE", help="write a trace (.txt or .html)")
    add_force(r, "--trace")
    r.add_argument("--alphabet", help='input alphabet, e.g. "a b c" (default: the program\'s '
                                      '// alphabet: line, else its token literals)')
    r.set_defaults(func=cmd_run)

    c = cs.add_parser("check", help="check a program against a task on all inputs up to N")
    c.add_argument("program", help="a .cr file or a library program name")
    c.add_argument("--task", required=True, help="task: FAMILY or FAMILY:K=V[:K=V] (its tokens are the literals)")
    c.add_argument("--max-n", type=int, default=10, help="check every n <= N exhaustively "
                   "where feasible, then samples at 2N and 4N (default 10)")
    c.add_argument("--param", action="append", metavar="K=V", help="task parameter")
    c.add_argument("--samples", type=int, default=2000, help="samples per sampled n")
    c.add_argument("--accept", choices=("eos", "last"), default="eos")
    c.add_argument("--seed", type=parse_seed, default=0)
    c.set_defaults(func=cmd_check)

    lint = cs.add_parser("lint", help="print every problem of a program with line:column")
    lint.add_argument("program", help="a .cr file or a library program name")
    lint.add_argument("--alphabet", help="also check the token literals against this alphabet")
    lint.set_defaults(func=cmd_lint)

    ls = cs.add_parser("list", help="list the library programs")
    ls.add_argument("--format", choices=("text", "json"), default="text")
    ls.set_defaults(func=cmd_list)
    add_prove(cs)
    add_compile(cs)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _inputs(args) -> list[str]:
    if args.input is not None:
        return [args.input]
    lines = [ln.strip() for ln in sys.stdin.read().splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("//")]


def _foreign(text: str, alphabet: set[str]) -> str | None:
    bad = [(j, t) for j, t in enumerate(text.split(), 1) if t not in alphabet]
    if not bad:
        return None
    return ", ".join(f"token {j} {t!r}" for j, t in bad)


def cmd_run(args) -> int:
    if args.trace and Path(args.trace).suffix.lower() not in (".txt", ".html", ".htm"):
        raise ConfigError(f"--trace {args.trace}: use a .txt or .html file name")
    if args.trace is not None:  # refused before the run
        check_output(args.trace, [("the program", args.program)], args.force, what="--trace")
    alphabet = args.alphabet.split() if args.alphabet else None
    program = crasp.load_program(args.program, alphabet)
    interp = crasp.Interpreter(program, alphabet, origin=args.positions)
    inputs = _inputs(args)
    if args.input is None:  # stdin: report bad lines and run the others
        letters = set(interp.alphabet)
        bad = {i: why for i, text in enumerate(inputs) if (why := _foreign(text, letters))}
        for i, why in bad.items():
            print(f"input {i + 1} ({inputs[i]!r}): {why} not in the program's alphabet "
                  f"{{{' '.join(interp.alphabet)}}}; declare the alphabet with a line "
                  f"`// alphabet: ...` in the program or pass --alphabet", file=sys.stderr)
        good = [t for i, t in enumerate(inputs) if i not in bad]
        if not good:
            return 2 if bad else 0
        result = interp.run_strings(good, args.accept)
        verdicts = iter(result.accept)
        for i, text in enumerate(inputs):
            word = "error" if i in bad else ("accept" if next(verdicts) else "reject")
            print(f"{word}\t{text}")
    else:
        result = interp.run_strings(inputs, args.accept)
        print(f"{'accept' if result.accept[0] else 'reject'}\t{inputs[0]}")
    if args.trace:
        path = Path(args.trace)
        if path.suffix.lower() in (".html", ".htm"):
            body = crasp.trace_html(result, title=f"C-RASP trace of {args.program}")
        else:
            body = crasp.trace_text(result)
        try:
            atomic_write(path, body)
        except OSError as exc:
            raise ConfigError(f"cannot write trace {args.trace}: {exc.strerror}") from None
        print(f"trace written to {path}", file=sys.stderr)
    return 2 if args.input is None and bad else 0


def cmd_check(args) -> int:
    import numpy as np
    params = parse_params(args.param)
    lib = crasp.library()
    # exactly the task asked: a program's `// requires:` never replaces its parameters
    note, other = variant_of(args.program, lib, "theorybench crasp list", args.task, params)
    if args.program in lib and not Path(args.program).exists():
        entry = lib[args.program]
        program = entry.program
        source = lambda task: entry.instantiate(task) if entry.applies_to(task) else program
    else:
        source = crasp.load_program(args.program)
    if note:  # first, so that it also stands before a refusal
        print(note, flush=True)
    report = crasp.check_against_task(source, args.task, args.max_n, params,
                                      samples=args.samples, accept=args.accept,
                                      rng=np.random.default_rng(args.seed))
    task = task_spelling(args.task, params)
    for rec in report.checked:
        how = "all" if rec["exhaustive"] else "sampled"
        print(f"n={rec['n']:<4} {rec['inputs']:>7} inputs ({how})")
    sizes = list(report.sizes.values())
    if sizes:
        s = sizes[-1]
        print(f"program size: {s['nodes']} nodes, {s['counts']} counts, depth {s['depth']}")
    if report.counterexample:
        c = report.counterexample
        print(f"COUNTER-EXAMPLE for {task} at n={c['n']}: \"{c['input']}\" expected "
              f"{c['expected']}, program gives {c['program']} ({c['disagreements']} of "
              f"{c['of']} inputs disagree){other}")
        return 1
    print(f"OK: the program decides {task} on every checked input "
          f"(all inputs up to n={report.exhaustive_up_to}){other}")
    return 0


def cmd_lint(args) -> int:
    alphabet = args.alphabet.split() if args.alphabet else None
    text, name = crasp.program_text(args.program)
    probs = crasp.lint(text, name, alphabet)
    if probs:
        raise ProgramError(probs, name)
    program = crasp.load(text, name, alphabet)
    s = crasp.size(program)
    print(f"{program.source_name}: OK ({s['definitions']} definitions, {s['counts']} counts, "
          f"depth {s['depth']}, output {program.output})")
    return 0


def cmd_list(args) -> int:
    rows, records = [], []
    for name, e in crasp.library().items():
        s = crasp.size(e.program)
        req = " ".join(f"{k}={v}" for k, v in e.requires) or "-"
        rows.append((name, e.family, req, s["counts"], s["depth"], e.description[:70]))
        records.append({"program": name, "task": e.family, "requires": dict(e.requires),
                        "params": list(e.params), "counts": s["counts"], "depth": s["depth"],
                        "definitions": s["definitions"], "description": e.description})
    if args.format == "json":
        print_json(records)
        return 0
    print_table(rows, ("program", "task", "requires", "counts", "depth", "description"))
    return 0
