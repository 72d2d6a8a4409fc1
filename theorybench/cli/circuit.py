"""`theorybench circuit build`, `synth` and `prove`: circuits for a task."""

from __future__ import annotations

import json

from .. import tasks
from ..errors import ConfigError, TaskParameterError
from ..formal.circuits.builders import build
from ..formal.circuits.ir import CONST, INPUT, NOT
from ..formal.circuits.synth import synthesize_task
from ..formal.circuits.verify import verify
from ..safe_io import atomic_write, check_output
from .common import add_force, add_task_args, float_arg, int_arg, parse_params, parse_seed, print_table

EXIT_UNKNOWN = 3


def register(sub) -> None:
    p = sub.add_parser("circuit", help="build or synthesize Boolean circuits for a task (AC0/TC0)")
    csub = p.add_subparsers(dest="circuit_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    b = csub.add_parser("build", help="build a task's constant-depth circuit, verify it, "
                                      "print depth, size and gate counts")
    add_task_args(b)
    b.add_argument("--basis", choices=("ac0", "tc0"), default="tc0",
                   help="ac0: AND/OR/NOT builders only; tc0: threshold builders too (default)")
    b.add_argument("--view", default=None,
                   help="decision function to build (default: the task's main one)")
    b.add_argument("--dot", metavar="FILE", help="also write the circuit as Graphviz dot text")
    add_force(b, "--dot")
    b.add_argument("--seed", type=parse_seed, default=0, help="seed of the verification samples")
    b.add_argument("--format", choices=("text", "json"), default="text")
    b.set_defaults(func=cmd_build)

    s = csub.add_parser("synth", help="smallest circuit of depth <= D by exact synthesis "
                                      f"with z3 (exit {EXIT_UNKNOWN} if z3 times out)")
    add_task_args(s)
    s.add_argument("--depth", type=int_arg(1, 64), required=True,
                   help="depth bound D (gate layers)")
    s.add_argument("--basis", choices=("ac0", "tc0"), default="ac0")
    s.add_argument("--max-size", type=int_arg(1, 1024), default=8,
                   help="largest size tried (default 8)")
    s.add_argument("--timeout", type=float_arg(0, 7 * 86400, lo_open=True), default=30.0,
                   help="total z3 time limit in seconds (default 30)")
    s.add_argument("--format", choices=("text", "json"), default="text")
    s.set_defaults(func=cmd_synth)

    pr = csub.add_parser("prove", help="prove the task's circuit equal to the task's "
                                       "specification with z3 at each given n (exit 1 on a "
                                       f"counterexample, {EXIT_UNKNOWN} if z3 gives no answer)")
    add_task_args(pr)
    pr.add_argument("--basis", choices=("ac0", "tc0"), default="tc0",
                    help="ac0: AND/OR/NOT builders only; tc0: threshold builders too (default)")
    pr.add_argument("--timeout", type=float_arg(0, 7 * 86400, lo_open=True), default=120.0,
                    help="z3 time limit per n in seconds (default 120)")
    pr.add_argument("--spec-samples", type=int_arg(0, 1 << 20), default=64,
                    help="inputs on which the z3 specification is checked against the task's "
                         "reference before the proof (default 64)")
    pr.add_argument("--format", choices=("text", "json"), default="text")
    pr.set_defaults(func=cmd_prove)


def _n(text: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise TaskParameterError(f"--n {text!r} is not an integer") from None


def _ns(text: str) -> list[int]:
    """--n 64 or --n 16,32,64."""
    out = []
    for part in str(text).split(","):
        try:
            out.append(int(part))
        except ValueError:
            raise TaskParameterError(f"--n {text!r}: {part!r} is not an integer (give one n, "
                                     f"or several separated by commas: --n 16,32,64)") from None
    return out


def cmd_prove(args) -> int:
    from ..proofs.circuits import prove_built

    results = []
    for n in _ns(args.n):
        task = tasks.get(args.task, n=n, **parse_params(args.param))
        built = build(task, args.basis)
        res = prove_built(built, timeout_s=args.timeout, spec_samples=args.spec_samples)
        results.append(res)
        if args.format == "text":
            print(f"# {task!r}  [{built.df.name}]  {built.builder.basis} circuit: "
                  f"{res.gates} gates, depth {res.depth}, {res.input_bits} input bits")
            print(f"spec:    {res.spec or '(none)'}")
            if res.extra.get("method"):
                print(f"method:  {res.extra['method']}")
            print(f"result:  {res.status.upper()}  ({res.seconds:.2f} s, z3 limit "
                  f"{res.timeout_s:g} s)")
            if res.spec_samples:
                print(f"         the specification agreed with the task's reference on "
                      f"{res.spec_samples} sampled inputs first")
            if res.status == "proved":
                print(f"         {res.statement()}")
            elif res.status == "counterexample":
                print(f"         input {res.counterexample_text}: circuit {res.circuit_value}, "
                      f"reference {res.reference_value} (confirmed by the evaluator and "
                      f"the reference)")
            else:
                print(f"         {res.reason}")
    if args.format == "json":
        print(json.dumps([r.to_dict() for r in results], indent=2))
    if any(r.status == "counterexample" for r in results):
        return 1
    return EXIT_UNKNOWN if any(r.status == "unknown" for r in results) else 0


def cmd_build(args) -> int:
    import numpy as np

    if args.dot is not None:  # refused before any work
        check_output(args.dot, force=args.force, what="--dot")
    task = tasks.get(args.task, n=_n(args.n), **parse_params(args.param))
    built = build(task, args.basis, view=args.view if args.view is not None else 0)
    chk = verify(built, np.random.default_rng(args.seed))
    c = built.circuit
    if args.dot:
        try:
            atomic_write(args.dot, c.to_dot())
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
            raise ConfigError(f"--dot {args.dot!r} cannot be written: "
                              f"{getattr(exc, 'strerror', None) or exc}") from None
    info = {"task": task.spec(), "view": built.df.name, "builder": built.builder.to_dict(),
            **c.summary(), "input_bits": built.encoding.n_bits,
            "verified_on": chk.checked, "exhaustive": chk.exhaustive, "errors": chk.errors,
            "counterexample": chk.counterexample}
    if args.format == "json":
        print(json.dumps(info, indent=2))
    else:
        print(f"# {task!r}  [{built.df.name}]")
        print(f"builder:   {built.builder.description} ({built.builder.basis})")
        print(f"inputs:    {built.encoding.n_bits} bits (one per binary position, one-hot otherwise)")
        print(f"depth:     {c.depth}  (with NOT gates: {c.depth_with_not})")
        print(f"size:      {c.size} gates (NOT free), {c.wires} wires")
        print_table([(k, v) for k, v in c.gate_counts().items()], ("gate", "count"))
        how = "all inputs" if chk.exhaustive else "sampled inputs (task + uniform)"
        print(f"verified:  {chk.checked} {how}, {chk.errors} errors")
        if args.dot:
            print(f"dot:       written to {args.dot}")
    if chk.errors:
        print(f"MISMATCH on {task.render(np.array(chk.counterexample))}")
        return 1
    return 0


def cmd_synth(args) -> int:
    res = synthesize_task(args.task, _n(args.n), args.depth, args.basis,
                          parse_params(args.param), args.max_size, args.timeout)
    if args.format == "json":
        out = res.to_dict()
        out["circuit_dot"] = res.circuit.to_dot() if res.circuit is not None else None
        print(json.dumps(out, indent=2))
    else:
        print(f"# smallest {args.basis} circuit for {args.task} (n={args.n}) of depth <= {args.depth}")
        if res.impossible_sizes:
            print(f"UNSAT (no circuit) for sizes: {', '.join(map(str, res.impossible_sizes))}")
        if res.status == "found":
            c = res.circuit
            print(f"found: size {c.size}, depth {c.depth}, gates "
                  + ", ".join(f"{k}={v}" for k, v in c.gate_counts().items() if v))
            print(_describe(c))
        elif res.status == "none":
            print(res.message)
        else:
            print(f"unknown: {res.message}")
        print(f"time: {res.seconds:.2f} s (limit {res.timeout_s:g} s)")
    return EXIT_UNKNOWN if res.status == "unknown" else 0


def _describe(c) -> str:
    """The circuit as numbered gate lines."""
    alive = c.live()
    name: dict[int, str] = {}
    lines = []
    for v, kind in enumerate(c.kinds):
        if kind == INPUT:
            name[v] = c.input_names[c.params[v]]
        elif kind == CONST:
            name[v] = str(c.params[v])
        elif kind == NOT:
            name[v] = f"~{name[c.args[v][0]]}"
        elif alive[v]:
            name[v] = f"g{len(lines) + 1}"
            op = f"THR>={c.params[v]}" if kind == "THR" else kind
            lines.append(f"  {name[v]} = {op}({', '.join(name[a] for a in c.args[v])})")
    lines.append(f"  output = {name[c.outputs[0]]}")
    return "\n".join(lines)
