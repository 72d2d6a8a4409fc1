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
from ..experiments.llm.evaluate import LLMSpec, evaluate_llm
from ..experiments.llm.export import export_lm_eval
from ..experiments.llm.local import cache_dir
from ..experiments.llm.models import MAX_TIMEOUT, load_models, missing_reason, model_from_args
from ..safe_io import atomic_write, check_output
from .common import (add_force, float_arg, parse_range, path_arg, parse_seed, print_json,
                     print_table)


def register(sub) -> None:
    p = sub.add_parser("llm", help="few-shot evaluation of pretrained LLMs on the tasks")
    ls = p.add_subparsers(dest="llm_command", metavar="SUBCOMMAND")

    m = ls.add_parser("models", help="list the models of a model file")
    m.add_argument("--models", type=path_arg("the model file"),
                   help="model file (default: the packaged one, SmolLM2-135M)")
    m.add_argument("--format", choices=("text", "json"), default="text")
    m.set_defaults(func=cmd_models)

    e = ls.add_parser("eval", help="evaluate a model on tasks at sizes n (metrics by n)",
                      description="lm-evaluation-harness spellings are accepted beside ours: "
                      "--model_args, --limit (--count), --num_fewshot (--k), --log_samples "
                      "(--records), --apply_chat_template (--chat), --system_instruction.")
    e.add_argument("tasks", help=f"tasks: {tasks.SYNTAX}")
    e.add_argument("--n", required=True, help="sizes: A..B, A..B:STEP or A,B,C")
    e.add_argument("--model", help="model name in the model file (default: its first); "
                   "with --model_args only 'hf' (lm-eval's name) is accepted")
    e.add_argument("--models", type=path_arg("the model file"),
                   help="model file (default: the packaged one)")
    e.add_argument("--model_args", "--model-args", metavar="pretrained=PATH[,dtype=..]",
                   help="a local model folder (or .gguf file) without a model file, as lm-eval "
                   "spells it; also dtype, device, batch_size, max_length, gguf_file")
    e.add_argument("--k", "--num_fewshot", dest="k", type=int, default=8,
                   help="few-shot examples (default 8)")
    e.add_argument("--count", "--limit", dest="count", type=int, default=100,
                   help="prompts per (task, n) (default 100); the first N of any larger count")
    _add_overrides(e)
    e.add_argument("--scoring", choices=("loglik", "generate"), default="loglik")
    e.add_argument("--parser", choices=("first_word", "exact_match"), default="first_word",
                   help="answer parser of generate scoring (default first_word; exact_match "
                   "is lm-eval's)")
    e.add_argument("--order", choices=("balanced", "random"), default="balanced")
    e.add_argument("--template", default="plain", help="prompt template (default plain)")
    e.add_argument("--seed", type=parse_seed, default=0)
    e.add_argument("--records", "--log_samples", dest="records", metavar="FILE.jsonl",
                   help="write every prompt's record")
    add_force(e, "--records")
    e.add_argument("--format", choices=("text", "json"), default="text")
    e.set_defaults(func=cmd_eval)

    x = ls.add_parser("export", help="write tasks at n in the lm-evaluation-harness format")
    x.add_argument("tasks", help=f"tasks: {tasks.SYNTAX}")
    x.add_argument("--n", type=int, required=True)
    x.add_argument("--out", required=True, help="output directory (YAML + JSONL)")
    x.add_argument("--k", "--num_fewshot", dest="k", type=int, default=8)
    x.add_argument("--count", "--limit", dest="count", type=int, default=100)
    x.add_argument("--seed", type=parse_seed, default=0)
    x.add_argument("--template", default="plain", help="prompt template (default plain)")
    x.add_argument("--order", choices=("balanced", "random"), default="balanced")
    x.add_argument("--scoring", choices=("loglik", "generate"), default="loglik")
    x.add_argument("--chat", "--apply_chat_template", dest="chat", action="store_true",
                   help="examples as a few-shot split for lm-eval's --apply_chat_template "
                   "--fewshot_as_multiturn (the command to run is printed)")
    x.add_argument("--system_instruction", "--system", dest="system", metavar="TEXT",
                   help="with --chat: an instruction before the task's header")
    x.add_argument("--group", help="name of the group YAML running every exported task "
                   "(default theorybench)")
    add_force(x, "the files in --out")
    x.set_defaults(func=cmd_export)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _models(path):
    return load_models(path)


def _add_overrides(e) -> None:
    e.add_argument("--batch_size", "--batch-size", dest="batch_size", type=int,
                   help="prompts per forward pass (default: the model entry's)")
    e.add_argument("--device", help="torch device, e.g. cpu or cuda:0")
    e.add_argument("--dtype", choices=("float32", "float16", "bfloat16", "float64"))
    e.add_argument("--threads", type=int, help="torch CPU threads")
    e.add_argument("--chat", "--apply_chat_template", dest="chat", action="store_true",
                   default=None, help="apply the model's chat template (multi-turn few-shot)")
    e.add_argument("--system_instruction", "--system", dest="system", metavar="TEXT",
                   help="with --chat: an instruction before the task's header")
    e.add_argument("--timeout", type=float_arg(0, MAX_TIMEOUT, lo_open=True), metavar="SECONDS",
                   help="http model: seconds one request may take in all, retried up to its "
                   "max_retries (default: the entry's \"timeout\", 60)")


def cmd_models(args) -> int:
    models = _models(args.models)
    rows = {}  # name -> (folder any from_pretrained loads, written?, why not installed)
    for m in models.values():
        why, folder = missing_reason(m), None
        if not why:
            try:  # the dequantised folder of a GGUF model (lm-eval's pretrained=)
                folder = cache_dir(m)
            except ConfigError as exc:
                why = str(exc)
        if folder is None and m.path and not why:
            folder = Path(m.path)
        rows[m.name] = (folder, folder is not None and folder.is_dir(), why)
    if args.format == "json":
        print_json([{**m.to_dict(), "cache": None if rows[m.name][0] is None
                     else str(rows[m.name][0]), "cache_written": rows[m.name][1],
                     "not_installed": rows[m.name][2]} for m in models.values()])
        return 0

    def shown(folder, written, why):
        if why:
            return f"(not installed: {why})"
        if folder is None:
            return "-"
        return str(folder) + ("" if written else " (not written yet)")

    print_table([(m.name, m.backend, m.gguf or m.path or m.base_url or "", m.context or "",
                  "chat" if m.chat else "completion", shown(*rows[m.name]))
                 for m in models.values()],
                ("model", "backend", "source", "context", "mode", "folder (from_pretrained)"))
    print("# a GGUF model's folder is written at its first load; lm-eval runs it with: "
          "lm_eval --model hf --model_args pretrained=FOLDER")
    return 0


def _model(args):
    """The model entry of ``llm eval``: --model_args, or --model from the model file, with
    the command line's overrides."""
    import dataclasses

    if args.model_args:
        if args.models is not None or args.model not in (None, "hf"):
            raise ConfigError("--model_args names the model itself; drop --models and "
                              "--model (or give --model hf, as lm-eval does)")
        cfg = model_from_args(args.model_args)
    else:
        models = _models(args.models)
        name = args.model or next(iter(models))
        if name not in models:
            raise ConfigError(f"--model {name!r} is not in the model file; models: "
                              f"{', '.join(models)}")
        cfg = models[name]
    over = {k: getattr(args, k) for k in ("batch_size", "device", "dtype", "threads")
            if getattr(args, k) is not None}
    if over and cfg.backend != "local":
        raise ConfigError(f"--{', --'.join(over)}: only for a local model; {cfg.name} is "
                          f"served over http")
    if args.timeout is not None:
        if cfg.backend != "http":
            raise ConfigError(f"--timeout: only for a model served over http; {cfg.name} is "
                              "a local model")
        over["timeout"] = args.timeout
    try:
        return dataclasses.replace(cfg, **over)
    except ConfigError as exc:
        raise ConfigError(f"{exc} (from --{', --'.join(over)})") from None


def cmd_eval(args) -> int:
    cfg = _model(args)
    name = cfg.name
    _check_sizes(args)
    if args.system is not None and not args.chat and not cfg.chat:
        raise ConfigError("--system_instruction needs chat mode: add --chat")
    if args.records is not None:  # refused before any prompt is scored
        check_output(args.records, [("the model file --models", args.models)], args.force,
                     what="--records")
    runs, skipped = [], []
    for family, params, n in _valid_points(args.tasks, parse_range(args.n), skipped,
                                           "evaluate"):
        runs.append(LLMSpec(family, n, cfg, tuple(sorted(params.items())),
                            k=args.k, template=args.template, order=args.order,
                            seed=args.seed, count=args.count, scoring=args.scoring,
                            parser=args.parser, chat=args.chat, system=args.system))
    out, lines = [], []
    for spec in runs:
        res = evaluate_llm(spec)
        out.append({"task": tasks.task_label(spec.task, dict(spec.params)), "n": spec.n,
                    "key": res["key"], **res["metrics"]})
        lines += [json.dumps({"key": res["key"], **rec}) + "\n" for rec in res["records"]]
    if args.records is not None:
        atomic_write(args.records, "".join(lines))
    if args.format == "json":
        print_json({"model": name, "results": out, "skipped": skipped})
        return 0
    for line in skipped:
        print(f"# skipped {line}")
    chat = " chat" if runs and runs[0].use_chat else ""
    print(f"# model {name}, {args.k}-shot{chat}, {args.scoring} (parser "
          f"{out[0]['parser']}), {args.count} prompts per row; ± is the standard error "
          f"(lm-eval's mean_stderr)")
    print_table([(r["task"], r["n"], _metric(r, "acc"), f"{r['chance']:.3f}",
                  _metric(r, "acc_norm"), _metric(r, "calibrated_accuracy"),
                  _metric(r, "balanced_accuracy"), _metric(r, "auc"),
                  f"{r['unparseable']:.3f}")
                 for r in out],
                ("task", "n", "acc", "chance", "acc_norm", "calibrated", "balanced", "AUC",
                 "unparseable"))
    return 0


def _metric(row: dict, key: str) -> str:
    """A metric for the text table: "-" where the scoring has none (generation), and the
    reason where it is undefined (an AUC needs prompts of both classes)."""
    if key not in row:
        return "-"
    v = row[key]
    if v is None:
        return "n/a (one class only)"
    se = row.get(f"{key}_stderr")
    return f"{v:.3f}" if se is None else f"{v:.3f}±{se:.3f}"


def _check_sizes(args) -> None:
    for opt, alias, lo, hi in (("k", "num_fewshot", 0, 64), ("count", "limit", 1, 100_000)):
        if not lo <= getattr(args, opt) <= hi:
            raise ConfigError(f"--{opt} {getattr(args, opt)} (--{alias}): choose "
                              f"{lo}..{hi:,}")


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
    _check_sizes(args)
    if not args.out.strip():
        raise ConfigError("--out is empty; give a folder for the YAML and JSONL")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise ConfigError(f"--out {args.out} is a file; give a folder for the YAML and JSONL")
    skipped: list[str] = []
    points = _valid_points(args.tasks, [args.n], skipped, "export")
    for line in skipped:
        print(f"# skipped {line}")
    group = args.group or "theorybench"
    for family, params, n in points:
        for p in export_lm_eval(family, n, args.out, params, k=args.k, count=args.count,
                                seed=args.seed, force=args.force, template=args.template,
                                order=args.order, scoring=args.scoring, chat=args.chat,
                                system=args.system, group=group):
            print(f"wrote {p}")
    parser = "; generate tasks: parser exact_match" if args.scoring == "generate" else ""
    chat = " --apply_chat_template --fewshot_as_multiturn" if args.chat else ""
    print(f"# group {group} ({Path(args.out) / (group + '.yaml')}) runs every task of the "
          f"folder{parser}:\n# lm_eval --include_path {args.out} --tasks {group} --model hf "
          f"--model_args pretrained=MODEL_FOLDER{chat}")
    return 0
