"""`theorybench predict` (the prediction matrix) and `theorybench explain` (one cell)."""

from __future__ import annotations

import sys

from ..theories.base import Context
from ..theories.registry import theory
from ..theories.runner import (explain_text, matrix_csv, matrix_json, matrix_markdown,
                               predict_matrix, predict_one)
from .common import int_arg, max_n_arg, parse_seed, print_json


def _names(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [t.strip() for t in text.split(",") if t.strip()] or None




def register(sub) -> None:
    p = sub.add_parser("predict", help="run the theories on the task families: the matrix",
                       description="Run every registered theory (or --theory) on every task "
                       "family (or --task) and print the matrix of predictions.")
    p.add_argument("--theory", help="comma-separated theory names (default: all)")
    p.add_argument("--task", help="comma-separated tasks in the CLI syntax, variants as "
                   "FAMILY:KEY=VALUE, e.g. dyck:k=1,khop:k=2 (default: every family and the "
                   "studied variants of dyck and khop)")
    p.add_argument("--format", choices=("md", "csv", "json"), default="md")
    p.add_argument("--max-n", type=max_n_arg, default=12,
                   help="largest n for exact computations (default 12)")
    p.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    p.add_argument("--workers", type=int_arg(1, 64), default=None,
                   help="processes that compute the matrix's rows (default: one per core, "
                        "at most 4; 1 computes them in this process)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("explain", help="one prediction with its evidence, for a human")
    p.add_argument("theory", help="theory name (see `theorybench predict`)")
    p.add_argument("task", help="task family name (see `theorybench tasks`)")
    p.add_argument("--max-n", type=max_n_arg, default=12,
                   help="largest n for exact computations (default 12)")
    p.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_explain)


def cmd_predict(args) -> int:
    ctx = Context(max_n=args.max_n, seed=args.seed)
    preds = predict_matrix(_names(args.theory), _names(args.task), ctx, progress=True,
                           workers=args.workers)
    if args.format == "json":
        print_json(matrix_json(preds))
    elif args.format == "csv":
        sys.stdout.write(matrix_csv(preds))
    else:
        print(matrix_markdown(preds))
    return 0


def cmd_explain(args) -> int:
    obj = theory(args.theory)
    pred = predict_one(args.theory, args.task, Context(max_n=args.max_n, seed=args.seed))
    if args.format == "json":
        print_json(pred.to_dict())
    else:
        print(explain_text(pred, obj))
    return 0
