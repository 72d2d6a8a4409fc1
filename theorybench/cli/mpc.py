"""`theorybench mpc rounds`: rounds and memory of the family's MPC algorithm by n.

``--n 64..65536`` means the powers of two from 64 to 65536 (a range whose ends are both
powers of two, without a step); ``A..B:STEP`` and ``A,B,C`` are taken literally.
"""

from __future__ import annotations

import numpy as np

from .. import tasks
from ..errors import TaskParameterError
from ..formal.mpc.algorithms import ALGORITHMS, limit_reason, measure
from ..formal.mpc.simulator import MPC
from .ranges import usable_ns
from ..formal.resources import Progress, check_memory
from .common import float_arg, int_arg, parse_params, parse_range, parse_seed, print_json, \
    print_table

#: Most sampled inputs per n (the simulator runs them as one batch: memory grows with it).
MAX_INSTANCES = 10_000
#: Default sampled inputs per n (each checked against the task's reference).
DEFAULT_INSTANCES = 1000
#: Largest memory constant c: beyond it one machine holds far more than any input here.
MAX_C = 1e6


def parse_ns(text: str) -> list[int]:
    """``64..65536`` -> powers of two when both ends are powers of two; else parse_range."""
    if ".." in text and ":" not in text:
        lo, _, hi = text.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            return parse_range(text)
        if a > 0 and b >= a and a & (a - 1) == 0 and b & (b - 1) == 0:
            out, v = [], a
            while v <= b:
                out.append(v)
                v *= 2
            return out
    return parse_range(text)


def _rounds(args) -> int:
    if args.task not in ALGORITHMS:
        tasks.family(args.task)
        raise TaskParameterError(f"no MPC algorithm for {args.task}; available: "
                                 f"{', '.join(ALGORITHMS)}")
    if not args.c > 0:
        raise TaskParameterError(f"--c {args.c}: the memory constant must be > 0 (s = c N^delta)")
    if args.instances < 1:
        raise TaskParameterError(f"--instances {args.instances}: run at least 1 instance per n")
    MPC(1, delta=args.delta, c=args.c)  # a bad --delta fails here, before any work
    params = parse_params(args.param)
    # every n of the range is checked before any run: the task must accept it and the
    # algorithm must fit the simulator; the others are skipped with one note
    ns = usable_ns(args.task, parse_ns(args.n), params, text=args.n, extra=lambda n: limit_reason(
        tasks.get(args.task, n=n, **params), args.delta, args.c))
    for n in ns:  # the sampled inputs of every n, before any run
        length = tasks.get(args.task, n=n, **params).decision_view()[0].length
        check_memory(8 * 8 * args.instances * length,
                     f"--instances {args.instances:,} at n={n} (length {length:,})",
                     "lower --instances")
    rng = np.random.default_rng(args.seed)
    rows = []
    with Progress(len(ns), f"mpc rounds {args.task}") as bar:
        for i, n in enumerate(ns):
            t = tasks.get(args.task, n=n, **params)
            r = measure(t, rng, args.delta, args.instances, c=args.c)
            rows.append({"n": n, "N": r["N"], "delta": args.delta, "s": r["s"],
                         "machines": r["machines"], "rounds": r["rounds"],
                         "max_memory": r["max_memory"], "communication": r["communication"],
                         "checked": r["checked"], "wrong": r["wrong_count"],
                         "locality_checked": r["locality_checked"],
                         "correct": r["wrong_count"] == 0})
            bar.update(i + 1, f"n={n}")
    if args.format == "json":
        print_json(rows)
    else:
        print(f"{args.task}: {ALGORITHMS[args.task][0]}, delta={args.delta}")
        print_table([[r["n"], r["N"], r["s"], r["machines"], r["rounds"], r["max_memory"],
                      f"{r['checked'] - r['wrong']}/{r['checked']}"] for r in rows],
                    ["n", "N", "s", "machines", "rounds", "max memory", "correct"])
    return 0 if all(r["correct"] for r in rows) else 1


def register(sub) -> None:
    p = sub.add_parser("mpc", help="MPC round counts of the algorithm library")
    cmds = p.add_subparsers(dest="mpc_command", metavar="SUBCOMMAND")
    c = cmds.add_parser("rounds", help="rounds and max memory per machine by n")
    c.add_argument("task")
    c.add_argument("--n", required=True,
                   help="A..B (powers of two if both are), A..B:STEP or A,B,C")
    c.add_argument("--delta", type=float_arg(0, 1, lo_open=True), default=0.5,
                   help="memory exponent: s = ceil(c N^delta), 0 < delta < 1 (default 0.5)")
    c.add_argument("--c", type=float_arg(0, MAX_C, lo_open=True), default=4.0,
                   help="memory constant: s = ceil(c N^delta)")
    c.add_argument("--instances", type=int_arg(1, MAX_INSTANCES, "the instances of one n are "
                                               "simulated as one batch in memory"),
                   default=DEFAULT_INSTANCES,
                   help=f"sampled inputs per n, each checked against the task (default "
                        f"{DEFAULT_INSTANCES:,}, at most {MAX_INSTANCES:,}); the first two are "
                        f"also run machine by machine (the locality check)")
    c.add_argument("--seed", type=parse_seed, default=0)
    c.add_argument("--param", action="append", metavar="K=V")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.set_defaults(func=_rounds)
    p.set_defaults(func=lambda a: p.print_help() or 2)
