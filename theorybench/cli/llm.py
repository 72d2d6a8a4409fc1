"""`theorybench llm models|eval|export`: few-shot evaluation of pretrained LLMs on the tasks.

`eval` runs the llm line's evaluation directly (prompts, scoring, metrics) and prints the
metrics by task and n; per-prompt records go to a JSON-lines file with --records. The
results store and the matrix get the line through `theorybench run llm` (cli/run.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import tasks
from ..errors import ConfigError, TaskParameterError
from .common import add_force, parse_range, path_arg, parse_seed, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser("llm", help="few-shot evaluation of pretrained LLMs on the tasks")
    ls = p.add_subparsers(dest="llm_command", metavar="SUBCOMMAND")

    m = ls.add_parser("models", help="list the models of a model file")
    m.add_argument("--models", type=path_arg("the model file"),
                   help="model file (default: the packaged one, SmolLM2-135M)")
    m.add_argument("--format", choices=("text", "json"), default="text")
    m.set_defaults(func=cmd_models)

    e = ls.add_parser("eval", help="evaluate a model on tasks at sizes n (metrics by n)")
    e.add_argument("tasks", help=f"tasks: {tasks.SYNTAX}")
    e.add_argument("--n", required=True, help="sizes: A..B, A..B:STEP or A,B,C")
    e.add_argument("--model", help="model name in the model file (default: its first)")
    e.add_argument("--models", type=path_arg("the model file"),
                   help="model file (default: the packaged one)")
    e.add_argument("--k", type=int, default=8, help="few-shot examples (default 8)")
    e.add_argument("--count", type=int, default=100, help="prompts per (task, n) (default 100)")
    e.add_argument("--scoring", choices=("loglik", "generate"), default="loglik")
    e.add_argument("--order", choices=("balanced", "random"), default="balanced")
    e.add_argument("--template", default="plain", help="prompt template (default plain)")
    e.add_argument("--seed", type=parse_seed, default=0)
    e.add_argument("--records", metavar="FILE.jsonl", help="write every prompt's record")
    add_force(e, "--records")
    e.add_argument("--format", choices=("text", "json"), default="text")
    e.set_defaults(func=cmd_eval)

    x = ls.add_parser("export", help="write tasks at n in the lm-evaluation-harness format")
    x.add_argument("tasks", help=f"tasks: {tasks.SYNTAX}")
    x.add_argument("--n", type=int, required=True)
    x.add_argument("--out", required=True, help="output directory (YAML + JSONL)")
    x.add_argument("--k", type=int, default=8)
    x.add_argument("--count", type=int, default=100)
    x.add_argument("--seed", type=parse_seed, default=0)
    add_force(x, "the files in --out")
    x.set_defaults(func=cmd_export)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _models(path):
    from ..experiments.llm.models import load_models
    return load_models(path)


def cmd_models(args) -> int:
    models = _models(args.models)
    if args.format == "json":
        print_json([m.to_dict() for m in models.values()])
        return 0
    print_table([(m.name, m.backend, m.gguf or m.path or m.base_url or "", m.context or "",
                  "chat" if m.chat else "completion") for m in models.values()],
                ("model", "backend", "source", "context", "mode"))
    return 0


def cmd_eval(args) -> int:
    from ..experiments.llm.evaluate import LLMSpec, evaluate_llm
    models = _models(args.models)
    name = args.model or next(iter(models))
    if name not in models:
        raise ConfigError(f"--model {name!r} is not in the model file; models: "
                          f"{', '.join(models)}")
    _check_sizes(args)
    if args.records is not None:  # refused before any prompt is scored
        from ..safe_io import check_output
        check_output(args.records, [("the model file --models", args.models)], args.force,
                     what="--records")
    runs, skipped = [], []
    for family, params, n in _valid_points(args.tasks, parse_range(args.n), skipped,
                                           "evaluate"):
        runs.append(LLMSpec(family, n, models[name], tuple(sorted(params.items())),
                            k=args.k, template=args.template, order=args.order,
                            seed=args.seed, count=args.count, scoring=args.scoring))
    out, lines = [], []
    for spec in runs:
        res = evaluate_llm(spec)
        out.append({"task": tasks.task_label(spec.task, dict(spec.params)), "n": spec.n,
                    "key": res["key"], **res["metrics"]})
        lines += [json.dumps({"key": res["key"], **rec}) + "\n" for rec in res["records"]]
    if args.records is not None:
        from ..safe_io import atomic_write
        atomic_write(args.records, "".join(lines))
    if args.format == "json":
        print_json({"model": name, "results": out, "skipped": skipped})
        return 0
    for line in skipped:
        print(f"# skipped {line}")
    print(f"# model {name}, {args.k}-shot, {args.scoring}, {args.count} prompts per row")
    print_table([(r["task"], r["n"], f"{r['accuracy']:.3f}", f"{r['chance']:.3f}",
                  _metric(r, "calibrated_accuracy"), _metric(r, "auc"),
                  f"{r['unparseable']:.3f}")
                 for r in out],
                ("task", "n", "accuracy", "chance", "calibrated", "AUC", "unparseable"))
    return 0


def _metric(row: dict, key: str) -> str:
    """A metric for the text table: "-" where the scoring has none (generation), and the
    reason where it is undefined (an AUC needs prompts of both classes)."""
    if key not in row:
        return "-"
    v = row[key]
    return "n/a (one class only)" if v is None else f"{v:.3f}"


def _check_sizes(args) -> None:
    for opt, lo, hi in (("k", 0, 64), ("count", 1, 100_000)):
        if not lo <= getattr(args, opt) <= hi:
            raise ConfigError(f"--{opt} {getattr(args, opt)}: choose {lo}..{hi:,}")


def _valid_points(text: str, ns, skipped: list, verb: str):
    """(family, params, n) of every task of the list at every n it accepts; the others
    are noted in ``skipped``, and none at all is an error."""
    points = []
    for family, params in tasks.parse_task_list(text):
        for n in ns:
            try:
                tasks.get(family, n=n, **params)
            except TaskParameterError as exc:  # an invalid size for this family: go on
                skipped.append(f"{tasks.task_label(family, params)} n={n}: {exc}")
                continue
            points.append((family, params, n))
    if not points:
        raise ConfigError(f"no valid (task, n) to {verb}: " + "; ".join(skipped))
    return points


def cmd_export(args) -> int:
    from ..experiments.llm.export import export_lm_eval
    _check_sizes(args)
    if not args.out.strip():
        raise ConfigError("--out is empty; give a folder for the YAML and JSONL")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise ConfigError(f"--out {args.out} is a file; give a folder for the YAML and JSONL")
    skipped: list[str] = []
    points = _valid_points(args.tasks, [args.n], skipped, "export")
    for line in skipped:
        print(f"# skipped {line}")
    for family, params, n in points:
        for p in export_lm_eval(family, n, args.out, params, k=args.k, count=args.count,
                                seed=args.seed, force=args.force):
            print(f"wrote {p}")
    return 0
