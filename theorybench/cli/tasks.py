"""`theorybench tasks`, `theorybench sample` and `theorybench label`."""

from __future__ import annotations

import json

import numpy as np

from .. import tasks
from .common import add_task_args, parse_params, parse_seed, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser("tasks", help="list the task families",
                       description=f"List the task families. Commands take a task as "
                                   f"{tasks.SYNTAX}.")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_tasks)

    p = sub.add_parser("sample", help="print sampled instances of a task with their labels")
    add_task_args(p)
    p.add_argument("--count", type=int, default=5, help="number of instances (default 5)")
    p.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    p.add_argument("--distribution", default=None, help="sampling distribution (default: the task's)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_sample)

    p = sub.add_parser("label", help="print the reference label of a typed instance")
    add_task_args(p)
    p.add_argument("input", help='the instance as space-separated tokens, e.g. "0 1 1"')
    p.set_defaults(func=cmd_label)


def _task(args):
    return tasks.get(args.task, n=args.n, **parse_params(args.param))


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def cmd_tasks(args) -> int:
    fams = tasks.families()
    if args.format == "json":
        print_json([{"task": name, "kind": cls.kind, "definition": cls.summary,
                     "syntax": tasks.SYNTAX,
                     "parameters": [{"name": p.name, "type": p.type.__name__,
                                     "default": p.default, "minimum": p.minimum,
                                     "maximum": p.maximum, "choices": p.choices,
                                     "description": p.doc} for p in cls.params]}
                    for name, cls in fams.items()])
        return 0
    rows = [(name, cls.kind, "; ".join(p.describe() for p in cls.params), cls.summary)
            for name, cls in fams.items()]
    print_table(rows, ("task", "kind", "parameters (defaults)", "definition"))
    return 0


def cmd_sample(args) -> int:
    task = _task(args)
    batch = task.sample(_rng(args.seed), args.count, args.distribution)
    items = []
    for r in range(len(batch)):
        mask = None if batch.mask is None else batch.mask[r]
        items.append({"input": task.render(batch.tokens[r]),
                      "label": task.render_label(batch.labels[r], mask)})
    if args.format == "json":
        print(json.dumps({"task": task.spec(), "instances": items}, indent=2))
    else:
        print(f"# {task!r}")
        for it in items:
            print(f"{it['input']}  ->  {it['label']}")
    return 0


def cmd_label(args) -> int:
    task = _task(args)
    row = task.parse(args.input)
    lab = task.label(row[None, :])
    mask = None
    if task.output != "final":
        mask = task.output_mask(row[None, :])[0]
    print(task.render_label(lab[0], mask))
    return 0
