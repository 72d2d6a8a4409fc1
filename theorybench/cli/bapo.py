"""`theorybench bapo`: BAPO bandwidth (b = 0, exact), SAT frontier, library protocol check."""

from __future__ import annotations

import sys

from .. import tasks
from ..errors import TaskParameterError
from ..formal.bapo.frontier import frontier
from ..formal.bapo.library import protocols_for, row_class_protocol
from ..formal.bapo.verify import verify
from ..formal.communication import bits, bytes_needed, one_way_cc
from ..formal.resources import MEMORY_BUDGET, Progress, fmt_bytes, fmt_count
from .ranges import usable_ns
from .common import float_arg, int_arg, parse_params, parse_range, parse_seed, print_json, \
    print_table


def _df(task: str, n: int, params):
    return tasks.get(task, n=n, **parse_params(params)).decision_view()[0]


def _bandwidth(args) -> int:
    refused: list[tuple[int, str]] = []

    def too_big(n):
        # input spaces grow with n: once an n is too large, the larger n of an ascending
        # range are refused without building their tasks (a range may list 10^5 n)
        if refused and n > refused[0][0]:
            return refused[0][1]
        size = _df(args.task, n, args.param).space_size()
        why = None
        if size > args.limit:
            why = (f"{fmt_count(size)} inputs exceed --limit {fmt_count(args.limit)}; use a "
                   f"smaller n or raise --limit if memory allows")
        elif bytes_needed(size) > MEMORY_BUDGET:
            why = (f"{fmt_count(size)} inputs need about {fmt_bytes(bytes_needed(size))} of "
                   f"memory, above the budget of {fmt_bytes(MEMORY_BUDGET)}; use a smaller n")
        if why and not refused:
            refused.append((n, why))
        return why

    rows = []
    ns = _ns(args, too_big)
    with Progress(len(ns), f"bapo bandwidth {args.task}") as bar:
        for j, n in enumerate(ns):
            bar.update(j, f"n={n}")
            a, table = one_way_cc(_df(args.task, n, args.param), limit=args.limit)
            for k, r in table.items():
                rows.append({"n": n, "split": k, "rows": r, "bits": bits(r)})
            rows.append({"n": n, "split": "max", "rows": max(table.values(), default=1),
                         "bits": a})
    if args.format == "json":
        print_json(rows)
    else:
        print_table([[r["n"], r["split"], r["rows"], r["bits"]] for r in rows if
                     args.splits or r["split"] == "max"], ["n", "split", "rows", "bits (b=0 a)"])
    return 0


def _ns(args, extra) -> list[int]:
    """The n of --n the task accepts and ``extra`` does not refuse, checked before any work
    (the others are skipped with a note)."""
    return usable_ns(args.task, parse_range(args.n), parse_params(args.param), text=args.n,
                     extra=extra)


def _one_n(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise TaskParameterError(f"--n {text!r}: the SAT frontier takes one n (an integer), not "
                                 f"a range; run it once per n") from None
    return n


def _frontier(args) -> int:
    n = _one_n(args.n)
    fr = frontier(_df(args.task, n, args.param), args.max_a, args.max_b, timeout_s=args.timeout)
    rows = [{"n": n, "length": fr.n, "a": fr.min_a[b], "b": b, "status": fr.status[b]}
            for b in sorted(fr.min_a)]
    if args.format == "json":
        print_json({"n": n, "rows": rows, **fr.to_dict()})
    else:
        print_table([[r["n"], r["b"], "-" if r["a"] is None else r["a"], r["status"]]
                     for r in rows], ["n", "b", "min a", "status"])
        print(f"pareto (a, b): {fr.pareto()}")
    if fr.note:
        print(f"note: {fr.note}", file=sys.stderr)
    return 0


def _verify(args) -> int:
    import numpy as np
    def no_protocol(n):
        df = _df(args.task, n, args.param)
        if not protocols_for(df) and df.space_size() > (1 << 20):
            return (f"no library protocol for {args.task}, and n={n} is too large for the exact "
                    f"row-class protocol; use a smaller n")
        return None

    out = []
    ns = _ns(args, no_protocol)
    with Progress(len(ns), f"bapo verify {args.task}") as bar:
        for i, n in enumerate(ns):
            df = _df(args.task, n, args.param)
            protos = protocols_for(df)
            if not protos:
                protos = [row_class_protocol(df)]
            for p in protos:
                r = verify(p, df, rng=np.random.default_rng(args.seed))
                out.append({"n": n, "protocol": p.name, "a": p.a, "b": p.b, "ok": r.ok,
                            "inputs": r.inputs_mode, "adversary": r.adversary,
                            "failure": r.failure})
            bar.update(i + 1, f"n={n}")
    if args.format == "json":
        print_json(out)
    else:
        print_table([[r["n"], r["protocol"], r["a"], r["b"], "ok" if r["ok"] else "FAILED",
                      r["inputs"]] for r in out], ["n", "protocol", "a", "b", "verified", "inputs"])
        for r in out:
            if r["failure"]:
                print(f"n={r['n']} {r['protocol']}: first failure {r['failure']}")
    return 0 if all(r["ok"] for r in out) else 1


def register(sub) -> None:
    p = sub.add_parser("bapo", help="BAPO bandwidth, SAT frontier and protocol verification")
    cmds = p.add_subparsers(dest="bapo_command", metavar="SUBCOMMAND")
    for name, fn, helptext in (("bandwidth", _bandwidth, "exact b=0 bandwidth by n"),
                               ("frontier", _frontier, "minimal (a, b) frontier by SAT (z3)"),
                               ("verify", _verify, "verify the library protocol(s)")):
        c = cmds.add_parser(name, help=helptext)
        c.add_argument("task", help="task family name")
        c.add_argument("--n", required=True,
                       help="n, a range A..B[:STEP] or a list A,B (frontier: one n)")
        c.add_argument("--param", action="append", metavar="K=V", help="other task parameter")
        c.add_argument("--format", choices=("text", "json"), default="text")
        c.set_defaults(func=fn)
        if name == "bandwidth":
            c.add_argument("--splits", action="store_true", help="show every split (text)")
            c.add_argument("--limit", type=int_arg(1, 1 << 40), default=1 << 25,
                           help="largest input space to enumerate (default 2^25)")
        if name == "frontier":
            c.add_argument("--max-a", type=int_arg(0, 1 << 20), default=3)
            c.add_argument("--max-b", type=int_arg(0, 1 << 20), default=2)
            c.add_argument("--timeout", type=float_arg(0, 7 * 86400, lo_open=True), default=60.0, help="seconds for the whole search, verification included")
        if name == "verify":
            c.add_argument("--seed", type=parse_seed, default=0)
    p.set_defaults(func=lambda a: p.print_help() or 2)
