"""`theorybench report` and `theorybench verify`."""

from __future__ import annotations

import sys

from pathlib import Path

from ..errors import ConfigError
from ..experiments.store import DEFAULT_DB
from ..matrix import verify as verify_mod
from ..matrix.agreement import parse_min_status
from ..matrix.empirical import Thresholds
from ..matrix.report import load_sharpness
from ..theories.registry import selection
from .common import add_force, path_arg
from .common import max_n_arg as max_n_type

DEFAULT_OUT = "theorybench-report"


def add_threshold_args(p) -> None:
    p.add_argument("--protocol", default=None,
                   help="read the verdicts under this protocol: theorybench (default; verify: "
                        "the profile's), huang2025, deletang2023 (sets the aggregation and "
                        "the thresholds below; see theorybench.experiments.protocols)")
    p.add_argument("--target-accuracy", type=float, default=None,
                   help=f"in-distribution accuracy that counts as learned (default: the "
                        f"protocol's, {Thresholds.target_accuracy} for theorybench)")
    p.add_argument("--length-accuracy", type=float, default=None,
                   help=f"accuracy needed in every length bin (default: the protocol's, "
                        f"{Thresholds.length_accuracy} for theorybench)")
    p.add_argument("--min-seeds", type=int, default=Thresholds.min_seeds,
                   help="finished runs needed per point (default %(default)s)")


def register(sub) -> None:
    p = sub.add_parser("report", help="write the theory-versus-practice report from a store")
    p.add_argument("--db", default=DEFAULT_DB, help=f"results store (default {DEFAULT_DB})")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--predictions", type=path_arg("the predictions file"), help="predictions JSON from `theorybench predict --format "
                   "json` (default: derive them now)")
    p.add_argument("--max-n", type=max_n_type, default=12, help="largest n for exact methods "
                   "when deriving predictions (default 12)")
    p.add_argument("--min-status", default=None,
                   help="compare only cells with this status or a stronger one in the "
                        "agreement table: proven, verified, extrapolated, conditional, cited "
                        "(default: all decided cells)")
    p.add_argument("--include-missing-lemmas", action="store_true",
                   help="also compare the cells that rest on a missing lemma of their own "
                        "proof (conditional claims; left out of the agreement by default)")
    p.add_argument("--sharpness", nargs="+", metavar="FILE.json", default=(),
                   type=path_arg("a sharpness file"),
                   help="outputs of `theorybench sharpness ... --format json` to plot in the "
                        "report (sharpness versus n)")
    p.add_argument("--checkpoints", metavar="DIR", default=None,
                   type=path_arg("the checkpoint folder"),
                   help="checkpoints written by `theorybench run --checkpoints DIR` (verify: "
                        "<out>/checkpoints): adds the trained models' average sensitivity")
    add_threshold_args(p)
    _theory_arg(p)
    add_force(p, "the report files in --out")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("verify", help="the main job: predictions, experiments, report")
    p.add_argument("--profile", default="smoke", help="experiment profile: smoke, quick, paper")
    p.add_argument("--db", default=DEFAULT_DB, help=f"results store (default {DEFAULT_DB})")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--max-n", type=max_n_type, default=12,
                   help="largest n for exact methods (default 12)")
    p.add_argument("--checkpoints", metavar="DIR", default=None,
                   type=path_arg("the checkpoint folder"),
                   help="where the trained models are saved, for their average sensitivity "
                        "in the report (default <out>/checkpoints)")
    p.add_argument("--sharpness", nargs="+", metavar="FILE.json", default=(),
                   type=path_arg("a sharpness file"),
                   help="outputs of `theorybench sharpness ... --format json` to plot in the "
                        "report")
    p.add_argument("--no-llm", action="store_true",
                   help="skip the llm line even when a model is installed")
    add_threshold_args(p)
    _theory_arg(p)
    add_force(p, "the report files in --out")
    p.set_defaults(func=cmd_verify)


def make_thresholds(args, protocol: str | None = None) -> Thresholds:
    """The protocol's thresholds (``--protocol``, else ``protocol``, else the default one),
    with any threshold given on the command line put over them."""
    explicit = {}
    for name in ("target_accuracy", "length_accuracy"):
        v = getattr(args, name)
        if v is None:
            continue
        if not 0 < v <= 1:
            raise ConfigError(f"--{name.replace('_', '-')} {v} must be in (0, 1]")
        explicit[name] = v
    if args.min_seeds < 1:
        raise ConfigError(f"--min-seeds {args.min_seeds} must be at least 1")
    # an empty --protocol is a mistake to report, not a request for the default
    name = args.protocol if args.protocol is not None else (protocol or "theorybench")
    return Thresholds.from_protocol(name, min_seeds=args.min_seeds, **explicit)


def _theory_names(args) -> list[str]:
    return [t.strip() for t in (getattr(args, "theory", None) or "").split(",") if t.strip()]


def _theory_arg(p) -> None:
    p.add_argument("--theory", default=None,
                   help="comma-separated theory names or theory files (default: every "
                        "registered theory; a theory file adds its columns beside the "
                        "shipped ones)")


def _inputs(args) -> list[tuple[str, str]]:
    """The files report and verify read (besides --db): none may be a report file."""
    return ([("the predictions file --predictions", getattr(args, "predictions", None))]
            + [("the sharpness file --sharpness", f) for f in args.sharpness])


def cmd_report(args) -> int:
    th = make_thresholds(args)
    min_status = parse_min_status(args.min_status) if args.min_status is not None else None
    inputs = _inputs(args)
    verify_mod.check_paths(args.out, args.db, inputs, args.force)
    sharp = load_sharpness(args.sharpness)  # bad files refused before any work
    if args.checkpoints and not Path(args.checkpoints).is_dir():
        raise ConfigError(f"--checkpoints {args.checkpoints} is not a folder; give the folder "
                          "passed to `theorybench run --checkpoints` (verify: <out>/checkpoints)")
    if not Path(args.db).exists():
        print(f"theorybench: note: results store {args.db} does not exist; the report will "
              "have predictions only (is --db right?)", file=sys.stderr)
    theories = selection(_theory_names(args))
    if args.predictions:
        preds = verify_mod.load_predictions(args.predictions)
        if theories:   # the file's cells of the selected theories, the others derived now
            have = {p.get("theory") for p in preds}
            preds = [p for p in preds if p.get("theory") in theories]
            todo = [t for t in theories if t not in have]
            if todo:
                preds += verify_mod.derive_predictions(
                    max_n=args.max_n, progress=sys.stderr.isatty(), theories=todo)
    else:
        preds = verify_mod.derive_predictions(max_n=args.max_n, progress=sys.stderr.isatty(),
                                              theories=theories)
    files = verify_mod.report(args.out, args.db, preds, th, min_status=min_status,
                              include_missing_lemmas=args.include_missing_lemmas,
                              sharpness=sharp, checkpoints=args.checkpoints,
                              progress=sys.stderr.isatty(), inputs=inputs, force=args.force)
    print(f"report written to {files['index.html']}")
    return 0


def cmd_verify(args) -> int:
    from ..experiments.profiles import get_profile
    th = make_thresholds(args, get_profile(args.profile).protocol)
    sharp = load_sharpness(args.sharpness)  # bad files refused before any work
    files = verify_mod.verify(profile=args.profile, out=args.out, db=args.db, max_n=args.max_n,
                              progress=sys.stderr.isatty(), thresholds=th,
                              theories=selection(_theory_names(args)),
                              llm=False if args.no_llm else None,
                              checkpoints=args.checkpoints, sharpness=sharp,
                              inputs=_inputs(args), force=args.force)
    return 0 if files else 1
