"""`theorybench reproduce PAPER`: a published length-generalization table, rerun under the
paper's protocol and set beside the published figures."""

from __future__ import annotations

import json
import os
import platform
import sys
import time

from ..errors import ConfigError
from ..experiments import reproduce as rep
from ..experiments.protocols import get_protocol
from ..experiments.published import PAPERS
from ..matrix import reproduction
from ..safe_io import STORE, TEXT, check_output
from .common import add_force, int_arg, parse_seed, path_arg, print_json

DEFAULT_OUT = "docs/reproductions"


def register(sub) -> None:
    p = sub.add_parser(
        "reproduce", help="rerun a published length-generalization table under the paper's "
                          "protocol and compare (huang2025, bhattamishra2020)")
    p.add_argument("paper", nargs="?", choices=sorted(PAPERS), default=None,
                   help="the paper whose table to reproduce (omit with --task)")
    p.add_argument("--budget", choices=sorted(rep.BUDGETS), default="quick",
                   help="quick (default: fits 2 CPU cores) or paper (every seed, full steps)")
    p.add_argument("--task", default=None, metavar="FILE", type=path_arg("the task file"),
                   help="a language task file of your own, run as --protocol's paper runs "
                        "its languages")
    p.add_argument("--protocol", default=None,
                   help="with --task: whose protocol (default huang2025)")
    p.add_argument("--db", default=None, type=path_arg("the results store"),
                   help="results store (default ./reproduce-PAPER.sqlite); reruns skip "
                        "finished runs")
    p.add_argument("--out", default=DEFAULT_OUT, type=path_arg("the output folder"),
                   help=f"where the tables go, as Markdown and JSON named after the paper "
                        f"(default {DEFAULT_OUT})")
    p.add_argument("--seeds", nargs="+", type=parse_seed, default=None, metavar="SEED",
                   help="seeds (default: the budget's)")
    p.add_argument("--rows", default=None, metavar="ROW[,ROW...]",
                   help="run only these rows: a task name (both encodings) or task/encoding, "
                        "comma separated (e.g. dyck1,d-3/nope); the others are listed as not "
                        "selected")
    p.add_argument("--train-through", action="store_true",
                   help="no early stop: every run trains the budget's steps, its fit checked "
                        "at the end (to see whether training on after the fit changes a row)")
    p.add_argument("--grid", action="store_true",
                   help="run each language row at every point of the authors' architecture "
                        "grid (huang2025: layers 1,2,4 x width 32,64 x heads 1,2,4; one seed "
                        "each) and read the best point, as a sweep's best run is read")
    p.add_argument("--steps", type=int_arg(1, 10_000_000), default=None, metavar="N",
                   help="the most optimizer steps of every run (default: the budget's; "
                        "under --budget paper the authors' own per row)")
    p.add_argument("--objective", choices=("next_symbol", "next_symbol_set"), default=None,
                   help="how the language rows are trained: next_symbol (one logit per "
                        "symbol; the quick budget's) or next_symbol_set (a cross-entropy "
                        "over the sets, Huang et al.'s code; the paper budget's)")
    p.add_argument("--windows", choices=rep.WINDOWS, default=rep.PROTOCOL_WINDOWS,
                   help="the lengths a language row trains and tests at: protocol (default: "
                        "the protocol's, the same for every row) or authors (those of the "
                        "data the authors committed for that language, where there is some)")
    p.add_argument("--fixed-sets", action="store_true",
                   help="draw a row with a known authors' generator (the D_n rows) as their "
                        "code does: a set of distinct strings per length window, of the size "
                        "of their training set, drawn once, then strings from it")
    p.add_argument("--executor", default="auto", help="auto (default), inprocess, pool, ray")
    p.add_argument("--workers", type=int, default=None, help="parallel runs")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    p.add_argument("--dry-run", action="store_true",
                   help="list the rows, their runs and the rows not run, and stop")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_force(p, "the tables in --out")
    p.set_defaults(func=cmd_reproduce)


def _previous_timing(path: str, db: str) -> dict:
    """The training's wall time, command and machine from an earlier table written from
    the same store (``{}`` when there is none or it is unreadable)."""
    try:
        with open(path, encoding="utf-8") as fh:
            old = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(old, dict) or old.get("db") != str(db) or not old.get("ran"):
        return {}
    return {k: old[k] for k in ("wall_s", "command", "machine", "ran", "failed",
                                "already_done") if k in old} \
        | {"rendered_again": True}


def _check_outputs(args, name: str, db: str) -> None:
    """Refuse, before any training, an --out that would replace the task file, the store
    or a file of another kind (see :mod:`..safe_io`)."""
    out = os.fspath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise ConfigError(f"--out {out} is a file; give a folder for {name}.md and "
                          f"{name}.json")
    inputs = [("--task", args.task), ("--db", db)]
    if os.path.isdir(out):
        for suffix in (".md", ".json"):
            check_output(os.path.join(out, name + suffix), inputs, args.force, TEXT,
                         what="--out")
    check_output(db, [("--task", args.task)], args.force, STORE, what="--db")


def cmd_reproduce(args) -> int:
    if args.task is None and args.paper is None:
        raise ConfigError("name a paper (huang2025 or bhattamishra2020), or give --task FILE "
                          "[--protocol huang2025]")
    if args.task is not None and args.paper is not None:
        raise ConfigError("give a paper or --task FILE, not both (--protocol picks the "
                          "paper whose protocol a task file is run under)")
    if args.task is not None and "\x00" in args.task:
        raise ConfigError(f"--task {args.task!r} contains a NUL byte, which no path can "
                          f"hold; give the path of a language task file")
    if args.protocol and args.task is None:
        raise ConfigError("--protocol goes with --task; a paper is run under its own protocol")
    paper = args.paper or (args.protocol or "huang2025")
    protocol = get_protocol(paper)
    name = paper if args.task is None else \
        f"{paper}-{os.path.splitext(os.path.basename(args.task))[0]}"
    # a partial or trained-through table is not the paper's table: its own file names, so
    # it never replaces the full one
    name += ("-rows" if args.rows else "") + ("-through" if args.train_through else "") \
        + ("-grid" if args.grid else "") \
        + (f"-{args.steps}steps" if args.steps else "") \
        + (f"-{args.objective}" if args.objective else "") \
        + ("-authors-windows" if args.windows == rep.AUTHORS_WINDOWS else "") \
        + ("-fixed-sets" if args.fixed_sets else "") \
        + ("" if args.budget == "quick" else f"-{args.budget}")
    db = args.db or f"reproduce-{name}.sqlite"
    _check_outputs(args, name, db)  # before the task file is even loaded
    wanted = [w.strip() for w in args.rows.split(",") if w.strip()] if args.rows else None
    if args.rows is not None and not wanted:
        raise ConfigError("--rows is empty; name rows such as dyck1 or d-3/nope")
    planned = rep.plan(paper, args.budget, task_file=args.task, protocol=paper,
                       seeds=args.seeds, rows=wanted, train_through=args.train_through,
                       grid=args.grid, steps=args.steps, objective=args.objective,
                       windows=args.windows, fixed_sets=args.fixed_sets)
    if args.grid and not any(p.grid for p in planned):
        raise ConfigError(f"--grid: no row selected has an authors' architecture grid (the "
                          f"grids known: {', '.join(f'{a} {b} rows' for a, b in rep.GRIDS)})")
    runs = sum(len(p.specs) for p in planned)
    if args.dry_run:
        rows = [{"row": p.row.row_id + (f" @ {p.size}" if p.grid else ""),
                 "runs": len(p.specs), "model": p.size or None,
                 "lr": p.lr, "objective": p.objective or None, "skipped": p.skipped,
                 "notes": p.notes} for p in planned]
        if args.format == "json":
            print_json({"paper": paper, "budget": args.budget, "runs": runs, "rows": rows})
        else:
            for r in rows:
                print(f"{r['row']}: " + (r["skipped"] or f"{r['runs']} run(s), {r['model']}, "
                                         f"lr {r['lr']:g}, {r['objective']}"))
            print(f"{runs} run(s) in {sum(1 for p in planned if p.specs)} row(s); "
                  f"{sum(1 for p in planned if p.skipped)} row(s) not run")
        return 0
    began = time.perf_counter()
    summary = rep.run(planned, db=db, executor=args.executor, workers=args.workers,
                      progress=True, device=args.device)
    wall = time.perf_counter() - began
    extra = {"wall_s": round(wall, 1), "db": str(db),
             "command": "theorybench reproduce " + " ".join(sys.argv[2:])
             if sys.argv[1:2] == ["reproduce"] else "theorybench reproduce",
             "machine": f"{os.cpu_count()} CPU core(s), {platform.machine()}, "
                        f"device {args.device}",
             "ran": summary.get("ran", 0), "failed": summary.get("failed", 0),
             # runs an earlier call left in the store: this call's wall time is not theirs
             "already_done": summary.get("skipped_done", 0)}
    if not summary.get("ran"):
        # nothing trained this time (every run in the store): the table is rendered again,
        # and the timing stays the one of the call that trained, when it is on record
        extra.update(_previous_timing(os.path.join(os.fspath(args.out), name + ".json"), db))
    table = reproduction.build(name, protocol, args.budget, planned, rep.collect(planned, db),
                               extra=extra)
    md, js = reproduction.write(table, args.out)
    if args.format == "json":
        print_json(table)
    else:
        share = table["agreement"]
        print(f"{name}: {table['agree']} of {table['compared']} rows agree with the published "
              f"reading" + (f" ({100 * share:.0f} %)" if share is not None else "")
              + f"; {table['not_run']} row(s) not run; {wall:.0f} s; wrote {md} and {js}")
    return 0
