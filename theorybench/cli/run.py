"""`theorybench run`, `theorybench runs` and `theorybench export` (the empirical harness)."""

from __future__ import annotations

import sys

from ..errors import ConfigError
from ..experiments.llm.models import load_models
from ..experiments.store import DEFAULT_DB, ResultsStore, format_runs
from ..safe_io import atomic_write, check_output
from .common import add_force, parse_seed, path_arg, print_json, print_table
from ..experiments.lines import IN_DISTRIBUTION, LLM


def register(sub) -> None:
    p = sub.add_parser("run", help="an experiment line over a profile's grid: train "
                                   "transformers, or prompt pretrained LLMs (llm)")
    p.add_argument("line", choices=("in-distribution", "length-generalization", "llm"),
                   help="which experiment line (llm: few-shot prompting of pretrained models)")
    p.add_argument("--tasks", nargs="+", metavar="TASK",
                   help="task families (default: the profile's), parameters as khop:k=2")
    p.add_argument("--profile", default="smoke", help="smoke (default), quick or paper")
    p.add_argument("--db", default=DEFAULT_DB, type=path_arg("the results store"),
                   help=f"results store (default ./{DEFAULT_DB})")
    p.add_argument("--executor", default="auto",
                   help="auto (default: a pool with one worker per core on a multi-core CPU, "
                        "in process on a GPU or for one run), inprocess, pool or ray")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel runs (default: the core count for auto, 1 for a named "
                        "executor)")
    p.add_argument("--seeds", nargs="+", type=parse_seed, metavar="SEED",
                   help="seeds (default: the profile's)")
    p.add_argument("--retry-failed", action="store_true", help="run failed runs again")
    p.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    p.add_argument("--device", default="cpu", help="cpu (default), cuda or auto")
    p.add_argument("--threads", type=int, default=None,
                   help="torch threads per run (default: all cores, divided among pool workers)")
    p.add_argument("--checkpoints", default=None, metavar="DIR",
                   type=path_arg("the checkpoint folder"),
                   help="save each run's weights and config in DIR")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="the summary (or the dry run's grid) as text (default) or JSON")
    p.add_argument("--json", dest="format", action="store_const", const="json",
                   help="the same as --format json")
    p.add_argument("--dry-run", action="store_true",
                   help="list the grid (tasks, sizes, configurations, run count) and stop")
    p.add_argument("--models", default=None, metavar="FILE", type=path_arg("the model file"),
                   help="llm line: model file (default: the packaged one, SmolLM2-135M)")
    p.add_argument("--model", nargs="+", default=None, metavar="NAME",
                   help="llm line: evaluate only these models of the model file")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("runs", help="runs in a results store: counts by status and the failures")
    p.add_argument("--db", default=DEFAULT_DB, type=path_arg("the results store"),
                   help=f"results store (default ./{DEFAULT_DB})")
    p.add_argument("--line", choices=("in-distribution", "length-generalization", "llm"),
                   default=None)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("export", help="export a results store as CSV or JSON")
    p.add_argument("--db", default=DEFAULT_DB, type=path_arg("the results store"),
                   help=f"results store (default ./{DEFAULT_DB})")
    p.add_argument("--format", choices=("csv", "json"), default="csv")
    p.add_argument("--output", "-o", default=None,
                   help="file to write (default: stdout); never the store itself, nor an "
                        "existing store, checkpoint or program, unless --force")
    add_force(p, "--output")
    p.set_defaults(func=cmd_export)


def _open(db):
    """The store, read-only: reading commands need no write access and wait for no writer."""
    return ResultsStore(db, readonly=True)


def _warn_problems(problems) -> None:
    if problems:
        print(f"theorybench: warning: {len(problems)} run(s) in the store cannot be read and "
              f"were skipped:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)


def check_options(args) -> None:
    """The sweep's own option checks (a real run's are made by run_sweep itself), so that a
    dry run refuses what the run would."""
    from ..experiments.sweep import check_run_options
    check_run_options(args.executor, args.workers, args.address, args.threads, args.device,
                      args.checkpoints, create=not args.dry_run)


def _check_llm_options(args) -> None:
    if args.line != "llm":
        used = [o for o, v in (("--models", args.models), ("--model", args.model)) if v]
        if used:
            raise ConfigError(f"{' and '.join(used)} belong to the llm line (theorybench run "
                              f"llm ...), not to {args.line}")
        return
    if args.executor not in ("inprocess", "auto") or (args.workers or 1) != 1 or args.checkpoints \
            or args.address:
        raise ConfigError("the llm line runs in this process (each model is loaded once and "
                          "serves all its runs): drop --executor, --workers, --address and "
                          "--checkpoints")
    if args.threads is not None and args.threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {args.threads}")
    from ..experiments.trainer import pick_device
    pick_device(args.device)  # refused by a dry run as by the run


def cmd_run(args) -> int:
    from ..experiments.sweep import run_sweep
    _check_llm_options(args)
    if args.dry_run:
        if args.line == LLM:
            return dry_run_llm(args)
        check_options(args)
        return dry_run(args)
    summary = run_sweep(args.line, tasks=args.tasks, profile=args.profile, db=args.db,
                        executor=args.executor, workers=args.workers, seeds=args.seeds,
                        retry_failed=args.retry_failed, progress=True, address=args.address,
                        device=args.device, checkpoint_dir=args.checkpoints,
                        threads=args.threads, models=args.models, model_names=args.model)
    if args.format == "json":
        print_json(summary)
        return 0
    if summary["line"] == LLM:
        for name, ld in summary.get("loads", {}).items():
            print(f"model {name}: loaded in {ld['seconds']:.1f} s ({ld['source']})")
        if summary.get("prompts"):
            rate = summary["prompts"] / max(summary["prompt_seconds"], 1e-9)
            print(f"{summary['prompts']} prompts scored in {summary['prompt_seconds']:.0f} s "
                  f"({rate:.2f} prompts/s)")
    others = f", {summary['by_others']} ran by other workers" if summary["by_others"] else ""
    print(f"{summary['line']} ({summary['profile']}) -> {summary['db']}: {summary['total']} runs; "
          f"{summary['skipped_done']} already done, {summary['ran']} ran ({summary['done']} done, "
          f"{summary['failed']} failed){others}, {summary['skipped_failed']} failed earlier and "
          f"skipped (use --retry-failed); {summary['wall_s']:.0f} s")
    for f in summary["failures"]:
        print(f"  failed {f['key']} {f['run']}: {f['error'].splitlines()[0]}")
    return 0


def dry_run(args) -> int:
    from ..experiments.profiles import expand, get_profile
    from ..experiments.sweep import normalize_line
    line = normalize_line(args.line)
    profile = get_profile(args.profile)
    task_names, seeds, notes = _unique_inputs(args)
    specs = _unique_runs(expand(line, profile, task_names, seeds), notes)
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
    t = profile.in_training if line == IN_DISTRIBUTION else profile.lg_training
    if args.format == "json":
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


def _llm_grid(args):
    from ..experiments.profiles import expand_llm, get_profile, llm_tasks
    profile = get_profile(args.profile)
    table = load_models(args.models)
    if args.model:
        unknown = [m for m in args.model if m not in table]
        if unknown:
            raise ConfigError(f"--model {', '.join(unknown)}: not in the model file; models: "
                              f"{', '.join(table)}")
        table = {m: table[m] for m in args.model}
    task_names, seeds, notes = _unique_inputs(args)
    _, without = llm_tasks(profile, task_names)
    return profile, table, _unique_runs(expand_llm(profile, table, task_names, seeds), notes), \
        without


def _unique_inputs(args):
    """The plan's tasks and seeds each once, as the sweep itself takes them, so that a dry
    run counts the runs the sweep would run (:func:`_unique_runs` shows the notes)."""
    from ..experiments.spec import unique_inputs
    return unique_inputs(args.tasks, args.seeds)


def _unique_runs(specs, notes):
    from ..experiments.spec import unique_specs
    return unique_specs(specs, notes, show=True)[0]


def dry_run_llm(args) -> int:
    profile, table, specs, without = _llm_grid(args)
    rows: dict = {}
    for s in specs:
        row = rows.setdefault((s.model.name, s.task, str(dict(s.params) or "")),
                              [set(), set(), s.scoring])
        row[0].add(s.n), row[1].add(s.seed)
    if args.format == "json":
        print_json({"line": "llm", "profile": profile.name, "runs": len(specs),
                    "models": list(table), "k": profile.llm_k, "prompts": profile.llm_count,
                    "expected_time": profile.llm_expected_time, "no_prompt": without,
                    "grid": [{"key": s.key, **s.to_dict()} for s in specs]})
        return 0
    print_table([(m, t, p, " ".join(map(str, sorted(r[0]))), r[2],
                  " ".join(map(str, sorted(r[1])))) for (m, t, p), r in rows.items()],
                ("model", "task", "params", "sizes", "scoring", "seed"))
    if without:
        print(f"\nleft out (no prompt entry): {', '.join(without)}")
    print(f"\n{len(specs)} runs; profile {profile.name}: {profile.llm_k}-shot, "
          f"{profile.llm_count} prompts per run, template {profile.llm_template}; expected "
          f"time: {profile.llm_expected_time}")
    return 0


def _describe_failed(rec) -> str:
    s = rec.spec
    model = s.get("model") or {}
    if rec.line == LLM:
        return (f"{s.get('task')} n={s.get('n')} {model.get('name')} k={s.get('k')} "
                f"{s.get('scoring')} seed={s.get('seed')}")
    where = f"n={s['n']}" if s.get("n") is not None else f"train<={s.get('train_max_len')}"
    return f"{s['task']} {where} {model.get('size')}/{model.get('encoding')} seed={s.get('seed')}"


def cmd_runs(args) -> int:
    line = args.line.replace("-", "_") if args.line else None
    with _open(args.db) as store:
        counts = store.counts(line)
        scan = store.scan(line=line, status="failed")
        bad = store.scan(line=line).problems
    failures = []
    for rec in scan.records:
        failures.append({"key": rec.key, "line": rec.line, "run": _describe_failed(rec),
                         "error": rec.error or ""})
    if args.format == "json":
        print_json({"db": str(args.db), "counts": counts, "failures": failures,
                    "unreadable": [{"key": p.key, "problem": p.what} for p in bad]})
        return 0
    print_table([(k, v) for k, v in counts.items()], ("status", "runs"))
    if failures:
        print("\nfailures:")
        for f in failures:
            first = f["error"].splitlines()[0] if f["error"] else ""
            print(f"  {f['key']} {f['line']} {f['run']}: {first}")
    if bad:
        print(f"\nunreadable rows ({len(bad)}, counted above but left out of export and "
              f"report):")
        for p in bad:
            print(f"  {p}")
    return 0


def cmd_export(args) -> int:
    if args.output is not None:  # refused before the store is read
        check_output(args.output, inputs=[("the results store --db", args.db)],
                     force=args.force, what="--output")
    with _open(args.db) as store:
        scan = store.scan()
    text = format_runs(scan.records, args.format)
    _warn_problems(scan.problems)
    if args.output is not None:
        try:
            atomic_write(args.output, text)
        except OSError as exc:
            raise ConfigError(f"--output {args.output} cannot be written: "
                              f"{exc.strerror or exc}") from None
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
