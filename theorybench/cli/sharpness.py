"""`theorybench sharpness TASKS --n ...`: loss-landscape sharpness by n, at initialisation
or at trained solutions (largest Hessian eigenvalue and average sharpness under noise)."""

from __future__ import annotations

import sys

from .. import tasks
from ..errors import ConfigError, TaskParameterError
from ..experiments.sharpness import measure
from ..safe_io import IMAGE, check_output
from .common import add_force, parse_range, path_arg, parse_seed, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "sharpness", help="loss-landscape sharpness of a task's transformer by n",
        description="Largest Hessian eigenvalue (power iteration on Hessian-vector products) "
                    "and average loss increase under Gaussian parameter noise, on one fixed "
                    "batch, for a freshly initialised model (--init, default), one trained "
                    "here (--train STEPS) or a saved checkpoint (--trained FILE.pt).")
    p.add_argument("tasks", help=f"tasks: {tasks.SYNTAX}")
    p.add_argument("--n", required=True, help="sizes: A..B, A..B:STEP or A,B,C")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--init", action="store_true", help="at initialisation (the default)")
    mode.add_argument("--train", type=int, metavar="STEPS",
                      help="train for at most STEPS steps here first (stops at 99%% accuracy)")
    mode.add_argument("--trained", metavar="CHECKPOINT", type=path_arg("the checkpoint"),
                      help="a checkpoint .pt written by `theorybench run --checkpoints`")
    p.add_argument("--size", default="small", help="model size (default small)")
    p.add_argument("--seed", type=parse_seed, default=0)
    p.add_argument("--batch", type=int, default=256, help="fixed batch size (default 256)")
    p.add_argument("--iters", type=int, default=30, help="power iterations (default 30)")
    p.add_argument("--rho", type=float, default=1e-3, help="noise scale (default 0.001)")
    p.add_argument("--perturbations", type=int, default=16,
                   help="antithetic noise pairs (default 16)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="write the sharpness-versus-n figure (PNG unless the suffix names "
                        "another format; an existing folder gets sharpness_vs_n.png inside)")
    add_force(p, "--plot")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_sharpness)


def _note(message: str) -> None:
    print(f"theorybench: note: {message}", file=sys.stderr)


def cmd_sharpness(args) -> int:
    specs = tasks.parse_task_list(args.tasks)
    ns = parse_range(args.n)
    if args.trained and (len(specs) > 1 or len(ns) > 1):
        raise ConfigError("--trained reads one checkpoint: give one task and one n")
    if len(specs) * len(ns) > 64:
        raise ConfigError(f"{len(specs) * len(ns)} (task, n) pairs: at most 64 per command")
    state = "trained" if (args.train or args.trained) else "init"
    if args.plot is not None:  # refused before any training
        from ..matrix.plots import figure_path
        args.plot = check_output(figure_path(args.plot, "sharpness_vs_n.png"),
                                 [("the checkpoint --trained", args.trained)], args.force,
                                 IMAGE, what="--plot")
    results, skipped = [], []
    for family, params in specs:
        for n in ns:
            try:
                tasks.get(family, n=n, **params)
            except TaskParameterError as exc:
                skipped.append(f"{family} n={n}: {exc}")
                continue
            r = measure(family, n, params, state=state, size=args.size, seed=args.seed,
                        batch=args.batch, iters=args.iters, rho=args.rho,
                        perturbations=args.perturbations, train_steps=args.train or 2000,
                        checkpoint=args.trained, progress=None, warn=_note)
            results.append(r.to_dict())
    if not results:
        raise ConfigError("no valid (task, n): " + "; ".join(skipped))
    if args.plot:
        from ..matrix.sharpness_plot import sharpness_vs_n
        sharpness_vs_n(args.plot, results)
    if args.format == "json":
        print_json({"results": results, "skipped": skipped})
        return 0
    for s in skipped:
        print(f"# skipped {s}")
    print_table([(tasks.task_label(r["task"], r["params"]), r["n"],
                  r["state"], f"{r['loss']:.4f}", f"{r['accuracy']:.3f}",
                  f"{r['lambda_max']:.4g}" + ("" if r["lambda_converged"] else " (not conv.)"),
                  f"{r['avg_sharpness']:.4g} ± {r['avg_sharpness_se']:.2g}",
                  r["train_steps"], f"{r['seconds']:.1f}")
                 for r in results],
                ("task", "n", "state", "loss", "acc", "lambda_max", "avg sharpness",
                 "steps", "s"))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
