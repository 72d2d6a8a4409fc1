"""`theorybench score`: the theory leaderboard against a shipped reference or a store."""

from __future__ import annotations

import json
import sys

from ..errors import ConfigError
from ..matrix import reference as reference_mod
from ..matrix import score as score_mod
from ..matrix.verify import store_records
from ..safe_io import atomic_write, check_output
from ..theories.base import Context
from ..theories.registry import selection
from .common import add_force, int_arg, max_n_arg, parse_seed
from .report import add_threshold_args, make_thresholds


def register(sub) -> None:
    p = sub.add_parser(
        "score", help="the theory leaderboard: every theory against observed outcomes",
        description="Score theories - the shipped ones and any theory file (./mine.py) - "
        "beside the baselines (always Easy, always Hard, majority class) on every empirical "
        "line of a reference: accuracy with its Wilson interval, balanced accuracy, the "
        "precision of Easy and of Hard, the test against the majority class and the "
        "disagreements. The default reference ships with theorybench (the committed quick "
        f"run); shipped references: {', '.join(reference_mod.shipped())}.")
    p.add_argument("theory", nargs="*", help="theory names or theory files (default: every "
                   "registered theory; a file's theories are added to the shipped ones)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--reference", default=None,
                     help="a shipped reference name or a reference .json file (default quick)")
    src.add_argument("--db", default=None, help="score against this results store instead")
    add_threshold_args(p)
    p.add_argument("--format", choices=("md", "csv", "json"), default="md")
    p.add_argument("--out", default=None, help="write the leaderboard here (default: stdout)")
    add_force(p)
    p.add_argument("--recompute", action="store_true",
                   help="compute the shipped theories' predictions now instead of using the "
                        "reference's snapshot")
    p.add_argument("--refresh-snapshot", action="store_true",
                   help="recompute the shipped theories on the reference's tasks and write its "
                        "prediction snapshot beside it (after changing a theory), then score")
    p.add_argument("--save-reference", default=None, metavar="FILE.json",
                   help="with --db: also write the store's verdicts as a reference file")
    p.add_argument("--max-n", type=max_n_arg, default=12,
                   help="largest n for exact computations (default 12)")
    p.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    p.add_argument("--workers", type=int_arg(1, 64), default=1,
                   help="processes computing predictions (default 1)")
    p.set_defaults(func=cmd_score)


def _names(items) -> list[str]:
    return [t.strip() for item in items for t in item.split(",") if t.strip()]


def cmd_score(args) -> int:
    inputs = [("--db", args.db)] if args.db else []
    out = check_output(args.out, inputs, args.force) if args.out else None
    if args.save_reference and not args.db:
        raise ConfigError("--save-reference needs --db (the store whose verdicts it writes)")
    save = check_output(args.save_reference, inputs, args.force, what="--save-reference") \
        if args.save_reference else None
    if args.db:
        records = store_records(args.db, must_exist=True)
        ref = reference_mod.from_store(args.db, records, make_thresholds(args))
        if not ref.cells:
            raise ConfigError(f"results store {args.db} has no finished runs to score against; "
                              "run `theorybench verify --profile smoke` or `theorybench run`")
        if save:
            reference_mod.write(save, ref)
    else:
        ref = reference_mod.load(args.reference or "quick")
    theories = selection(_names(args.theory))   # a file: beside every shipped theory
    if args.refresh_snapshot:
        if args.db:
            raise ConfigError("--refresh-snapshot refreshes a reference's snapshot; it does not "
                              "go with --db")
        path = score_mod.refresh_snapshot(ref, Context(max_n=args.max_n, seed=args.seed),
                                          workers=args.workers)
        print(f"wrote {path}", file=sys.stderr)
        ref = reference_mod.load(args.reference or "quick")
    scored = score_mod.score(ref, theories or None, Context(max_n=args.max_n, seed=args.seed),
                             recompute=args.recompute, progress=True, workers=args.workers)
    if args.format == "json":
        text = json.dumps(score_mod.to_json(scored), indent=1, default=str) + "\n"
    elif args.format == "csv":
        text = score_mod.to_csv(scored)
    else:
        text = score_mod.markdown(scored)
    if out is not None:
        atomic_write(out, text)
        print(f"wrote {out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
