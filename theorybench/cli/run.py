"""`theorybench run`, `theorybench runs` and `theorybench export` (the empirical harness)."""

from __future__ import annotations

import sys

from .common import parse_seed, print_json, print_table

DEFAULT_DB = "theorybench-results.sqlite"


def register(sub) -> None:
    p = sub.add_parser("run", help="train transformers: an experiment line over a profile's grid")
    p.add_argument("line", choices=("in-distribution", "length-generalization"),
                   help="which experiment line")
    p.add_argument("--tasks", nargs="+", metavar="TASK",
                   help="task families (default: the profile's), parameters as khop:k=2")
    p.add_argument("--profile", default="smoke", help="smoke (default), quick or paper")
    p.add_argument("--db", default=DEFAULT_DB, help=f"results store (default ./{DEFAULT_DB})")
    p.add_argument("--executor", default="inprocess", help="inprocess (default), pool or ray")
    p.add_argument("--workers", type=int, default=1, help="parallel runs for pool / ray (default 1)")
    p.add_argument("--seeds", nargs="+", type=parse_seed, metavar="SEED",
                   help="seeds (default: the profile's)")
    p.add_argument("--retry-failed", action="store_true", help="run failed runs again")
    p.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    p.add_argument("--threads", type=int, default=None,
                   help="torch threads per run (default: all cores, divided among pool workers)")
    p.add_argument("--checkpoints", default=None, metavar="DIR",
                   help="save each run's weights and config in DIR")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--dry-run", action="store_true",
                   help="list the grid (tasks, sizes, configurations, run count) and stop")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("runs", help="runs in a results store: counts by status and the failures")
    p.add_argument("--db", default=DEFAULT_DB, help=f"results store (default ./{DEFAULT_DB})")
    p.add_argument("--line", choices=("in-distribution", "length-generalization"), default=None)
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("export", help="export a results store as CSV or JSON")
    p.add_argument("--db", default=DEFAULT_DB, help=f"results store (default ./{DEFAULT_DB})")
    p.add_argument("--format", choices=("csv", "json"), default="csv")
    p.add_argument("--output", "-o", default=None, help="file to write (default: stdout)")
    p.set_defaults(func=cmd_export)


def _open(db):
    from pathlib import Path

    from ..errors import StoreError
    from ..experiments.store import ResultsStore
    if not Path(db).exists():
        raise StoreError(f"results store {db} does not exist (run `theorybench run ...` first "
                         f"or pass --db PATH)")
    return ResultsStore(db)


def check_options(args) -> None:
    """The option checks of a real run (run_sweep's), so that a dry run refuses the same
    --workers / --executor / --address / --threads / --device, and --checkpoints must be a
    directory that can be written, before any work."""
    from ..errors import ConfigError
    from ..experiments.executors import get_executor
    from ..experiments.trainer import pick_device
    if args.workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {args.workers}")
    get_executor(args.executor)  # unknown executor (or ray not installed) refused
    if args.executor == "inprocess" and args.workers > 1:
        raise ConfigError(f"--workers {args.workers} needs a parallel executor: add --executor "
                          f"pool (local processes) or --executor ray")
    if args.address and args.executor != "ray":
        raise ConfigError("--address is the address of a Ray cluster; add --executor ray")
    if args.threads is not None and args.threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {args.threads}")
    pick_device(args.device)  # unknown device, or cuda without a GPU, refused
    if args.checkpoints:
        _check_writable_dir(args.checkpoints, "--checkpoints", create=not args.dry_run)


def _check_writable_dir(path: str, what: str, create: bool) -> None:
    """ConfigError unless ``path`` is (or can be made) a writable directory. A dry run
    (``create`` False) removes again the directories it made to find out."""
    import os
    from pathlib import Path

    from ..errors import ConfigError
    p = Path(path)
    missing = []
    probe = p
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: the directory cannot be created "
                          f"({exc.strerror or exc})") from None
    finally:
        if not create:
            for d in missing:  # deepest first
                try:
                    d.rmdir()
                except OSError:
                    pass
    if not os.access(probe if not create else p, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} {path}: the directory is not writable (permission denied)")


def cmd_run(args) -> int:
    from ..experiments.sweep import run_sweep
    check_options(args)
    if args.dry_run:
        return dry_run(args)
    summary = run_sweep(args.line, tasks=args.tasks, profile=args.profile, db=args.db,
                        executor=args.executor, workers=args.workers, seeds=args.seeds,
                        retry_failed=args.retry_failed, progress=True, address=args.address,
                        device=args.device, checkpoint_dir=args.checkpoints,
                        threads=args.threads)
    if args.json:
        print_json(summary)
        return 0
    print(f"{summary['line']} ({summary['profile']}) -> {summary['db']}: {summary['total']} runs; "
          f"{summary['skipped_done']} already done, {summary['ran']} ran ({summary['done']} done, "
          f"{summary['failed']} failed), {summary['skipped_failed']} failed earlier and skipped "
          f"(use --retry-failed); {summary['wall_s']:.0f} s")
    for f in summary["failures"]:
        print(f"  failed {f['key']} {f['run']}: {f['error'].splitlines()[0]}")
    return 0


def dry_run(args) -> int:
    from ..experiments.profiles import expand, get_profile
    from ..experiments.sweep import normalize_line
    line = normalize_line(args.line)
    profile = get_profile(args.profile)
    specs = expand(line, profile, args.tasks, args.seeds)
    rows: dict = {}
    runs: list = []
    for s in specs:
        what = f"n={s.n}" if s.n is not None else f"train<={s.train_max_len}"
        cfg = f"{s.size}/{s.encoding}" + (f" train_size={s.train_size}" if s.train_size else "")
        row = rows.setdefault((s.task, str(s.param_dict or "")), [set(), set(), set()])
        row[0].add(what), row[1].add(cfg), row[2].add(s.seed)
        runs.append({"key": s.key, "task": s.task, "params": s.param_dict or {}, "n": s.n,
                     "train_max_len": s.train_max_len, "size": s.size, "encoding": s.encoding,
                     "train_size": s.train_size, "seed": s.seed})
    t = profile.in_training if line == "in_distribution" else profile.lg_training
    if args.json:
        print_json({"line": line, "profile": profile.name, "runs": len(specs),
                    "expected_time": profile.expected_time,
                    "training": {"steps": t.steps, "batch_size": t.batch_size, "lr": t.lr,
                                 "target": t.target},
                    "grid": runs})
        return 0
    # "seed" lists the seed values each row runs with (e.g. "0" is seed 0, not zero seeds)
    print_table([(t_, p, " ".join(sorted(r[0], key=lambda w: int(w.split("=")[-1]))),
                  len(r[1]), " ".join(map(str, sorted(r[2])))) for (t_, p), r in rows.items()],
                ("task", "params", "sizes", "configs", "seed"))
    print(f"\n{len(specs)} runs; profile {profile.name}: {profile.description}; training "
          f"{t.steps} steps max, batch {t.batch_size}, lr {t.lr}, target {t.target}; "
          f"expected time: {profile.expected_time}")
    return 0


def cmd_runs(args) -> int:
    line = args.line.replace("-", "_") if args.line else None
    with _open(args.db) as store:
        counts = store.counts(line)
        print_table([(k, v) for k, v in counts.items()], ("status", "runs"))
        failed = store.records(line=line, status="failed")
        if failed:
            print("\nfailures:")
            for rec in failed:
                s = rec.spec
                where = f"n={s['n']}" if s.get("n") is not None else f"train<={s.get('train_max_len')}"
                print(f"  {rec.key} {rec.line} {s['task']} {where} "
                      f"{s['model']['size']}/{s['model']['encoding']} seed={s['seed']}: "
                      f"{(rec.error or '').splitlines()[0] if rec.error else ''}")
    return 0


def cmd_export(args) -> int:
    with _open(args.db) as store:
        text = store.export(args.format)
    if args.output:
        from ..errors import ConfigError
        try:
            with open(args.output, "w") as fh:
                fh.write(text)
        except OSError as exc:
            raise ConfigError(f"--output {args.output} cannot be written: "
                              f"{exc.strerror or exc}") from None
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
