"""`theorybench crasp compile PROGRAM --max-len N [--out FILE] [--check]`: the C-RASP ->
softmax transformer compiler, under `crasp` (the same work as `construct --program`)."""

from __future__ import annotations

from .common import add_force, parse_seed


def add_compile(cs) -> None:
    p = cs.add_parser("compile", help="compile a program into a softmax transformer "
                                      "(uniform attention, exact 0/1 MLP steps)")
    p.add_argument("program", help="a .cr file or a library program name")
    p.add_argument("--max-len", required=True, help="longest input the model is built for")
    p.add_argument("--check", action="store_true",
                   help="check every definition at every position against the interpreter "
                        "on every input up to --max-len")
    p.add_argument("--out", metavar="PATH", help="save the model (loads with weights_only)")
    add_force(p)
    p.add_argument("--samples", type=int, default=1000)
    p.add_argument("--seed", type=parse_seed, default=0)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_compile)


def cmd_compile(args) -> int:
    from .construct import program_command
    args.n, args.verify = args.max_len, ("exhaustive" if args.check else None)
    return program_command(args)
