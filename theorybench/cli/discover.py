"""`theorybench discover`: tasks that split the theories, found by search and settled by
training (:mod:`theorybench.matrix.discover`)."""

from __future__ import annotations

import pathlib
import sys

from ..errors import ConfigError
from ..experiments.published import LANGUAGES_DIR
from ..matrix import discover as disc
from ..safe_io import check_output
from .common import add_force, int_arg, max_n_arg, parse_seed

BUDGETS = {
    # candidates judged; trained at most, in rank order; settled wanted (None: train all
    # of the top); minutes for the whole command; the profile whose protocol trains them
    "smoke": {"candidates": 12, "top": 4, "settle": None, "minutes": None,
              "profile": "smoke", "seeds": (0, 1, 2)},
    "quick": {"candidates": 60, "top": 54, "settle": 20, "minutes": 57,
              "profile": "quick", "seeds": (0, 1, 2)},
}


def register(sub) -> None:
    p = sub.add_parser(
        "discover", help="find tasks on which the theories disagree and train on them",
        description="Generate candidate tasks (regular languages by minimal automaton), drop "
        "those equal to a known family, let every theory column judge a seeded subset, rank "
        "them by the pairs of columns with opposite verdicts, train them in rank order in "
        "distribution, one n at a time, until enough are settled (resumable store), and "
        "write discovered.md, the found task files and a reference of their outcomes (theorybench score --reference OUT/discovered.json).")
    p.add_argument("--budget", choices=sorted(BUDGETS), default="quick",
                   help="smoke: 12 candidates, 4 trained under the smoke protocol; quick "
                        "(default): 60 candidates, trained under the quick protocol until "
                        "20 are settled, within 57 minutes")
    p.add_argument("--generator", action="append", default=None, metavar="dfa:K:S",
                   help="candidate languages over K letters with at most S states (repeat; "
                        f"default {' '.join(disc.DEFAULT_GENERATORS)})")
    p.add_argument("--candidates", type=int_arg(1, 100_000), default=None,
                   help="candidates judged at most (default: the budget's)")
    p.add_argument("--top", type=int_arg(0, 1000), default=None,
                   help="candidates trained at most, in rank order (default: the budget's; "
                        "smoke 4, quick 54)")
    p.add_argument("--settle", type=int_arg(0, 1000), default=None,
                   help="stop training once this many candidates are settled; 0: train all "
                        "of --top (default: smoke 0, quick 20)")
    p.add_argument("--time-budget", type=float, default=None, metavar="MINUTES",
                   help="minutes for the whole command: no training wave starts that would "
                        "end past it; 0: none (default: smoke none, quick 57)")
    p.add_argument("--seeds", nargs="+", type=parse_seed, metavar="SEED", default=None,
                   help="training seeds (default 0 1 2)")
    p.add_argument("--seed", type=parse_seed, default=0,
                   help="the search's seed: which candidates are judged (default 0)")
    p.add_argument("--max-n", type=max_n_arg, default=10,
                   help="largest n for the theories' exact computations (default 10)")
    p.add_argument("--time-limit", type=float, default=10.0,
                   help="seconds per theory rule per candidate (default 10)")
    p.add_argument("--out", default="discover-out", help="output folder (default discover-out)")
    p.add_argument("--tasks-dir", default=None,
                   help="where the found task files go (default OUT/discovered)")
    p.add_argument("--db", default=None, help="results store (default OUT/runs.sqlite)")
    p.add_argument("--no-train", action="store_true", help="judge and rank only")
    p.add_argument("--no-length-line", action="store_true",
                   help="train the settled tasks in distribution only (default: also their "
                        "length line, next-symbol objective with NoPE, lengths <= 32 tested "
                        "to 256, within the time budget)")
    p.add_argument("--workers", type=int_arg(1, 64), default=None,
                   help="processes for predictions and training (default: one per core)")
    add_force(p, "the files in --out")
    p.set_defaults(func=cmd_discover)


def cmd_discover(args) -> int:
    import time
    began = time.time()
    b = BUDGETS[args.budget]
    settle = b["settle"] if args.settle is None else (args.settle or None)
    minutes = b["minutes"] if args.time_budget is None else (args.time_budget or None)
    if minutes is not None and not 0 < minutes <= 7 * 24 * 60:
        raise ConfigError(f"--time-budget {args.time_budget} must be minutes in (0, 10080], "
                          "or 0 for none")
    seeds = list(dict.fromkeys(args.seeds)) if args.seeds else list(b["seeds"])
    if not 0 < args.time_limit <= 3600:
        raise ConfigError(f"--time-limit {args.time_limit} must be in (0, 3600] seconds")
    generators = args.generator or list(disc.DEFAULT_GENERATORS)
    for g in generators:
        disc.Generator.parse(g)   # a bad generator is refused before any work
    inputs = [("--db", args.db)] if args.db else []
    out = pathlib.Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder")
    out.mkdir(parents=True, exist_ok=True)
    for name in ("discovered.md", "discovered.json"):   # before any work
        check_output(out / name, inputs, args.force)
    d = disc.discover(generators, args.candidates or b["candidates"],
                      b["top"] if args.top is None else args.top, args.seed, args.out,
                      args.db, seeds, b["profile"], args.max_n, args.time_limit,
                      args.workers, not args.no_train, True,
                      extra_known=sorted(LANGUAGES_DIR.glob("*.py")),
                      log=lambda line: print(line, file=sys.stderr, flush=True),
                      settle=settle,
                      deadline=None if minutes is None else began + 60 * minutes,
                      length_line=not args.no_length_line)
    files = disc.write(d, args.out, args.tasks_dir)
    settled = d.settled()
    print(f"{d.generated} languages generated, {len(d.known)} equal to a known family, "
          f"{len(d.judged)} judged, {len(d.trained)} trained, {len(settled)} settled"
          + (f" (target {settle})" if settle else "")
          + f" in {(time.time() - began) / 60:.1f} min", file=sys.stderr)
    print(f"wrote {files['discovered.md']} and {len(files) - 2} task file(s)")
    return 0
