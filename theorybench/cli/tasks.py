"""`theorybench tasks` (with ``--coverage``: the task x artifact table), `theorybench sample`
and `theorybench label`."""

from __future__ import annotations

import importlib
import json

import numpy as np

from .. import tasks
from ..registry import LIBRARIES, Library
from .common import add_task_args, parse_params, parse_seed, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser("tasks", help="list the task families",
                       description=f"List the task families. Commands take a task as "
                                   f"{tasks.SYNTAX}.")
    p.add_argument("--coverage", action="store_true",
                   help="the task x artifact table: which task has a C-RASP or B-RASP "
                        "program, a circuit builder, an MPC algorithm, a BAPO protocol, a "
                        "construction, a proof spec")
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


#: The modules that declare the shipped artifact libraries, in column order; importing one
#: lists its library in ``theorybench.registry.LIBRARIES``.
ARTIFACT_MODULES = ("theorybench.formal.crasp.programs", "theorybench.formal.brasp.programs",
                    "theorybench.formal.circuits.builders", "theorybench.proofs.circuits",
                    "theorybench.formal.mpc.algorithms", "theorybench.formal.mpc.cycles",
                    "theorybench.formal.bapo.library",
                    "theorybench.constructions", "theorybench.proofs.counter_machines")


def artifact_libraries() -> dict[str, Library]:
    """Every artifact library by column: the shipped ones in :data:`ARTIFACT_MODULES` order,
    then any other listed in ``LIBRARIES`` (a user's)."""
    for m in ARTIFACT_MODULES:
        importlib.import_module(m)
    libs = LIBRARIES.items()
    rank = {m: i for i, m in enumerate(ARTIFACT_MODULES)}
    libs.sort(key=lambda kv: rank.get(kv[1].module, len(rank)))  # stable: users' last
    return dict(libs)


def coverage(libraries: dict[str, Library] | None = None) -> list[dict]:
    """Per task family (suite order): for each artifact library, the origins of its
    artifacts for that family (empty: none), read from the libraries only."""
    libs = artifact_libraries() if libraries is None else libraries
    return [{"task": name, "kind": cls.kind,
             "artifacts": {col: [origin for origin, _ in lib.for_task(name)]
                           for col, lib in libs.items()}}
            for name, cls in tasks.families().items()]


def _coverage(args) -> int:
    table = coverage()
    if args.format == "json":
        print_json(table)
        return 0
    cols = list(table[0]["artifacts"]) if table else []
    rows = [[r["task"]] + [_cell(r["artifacts"][c]) for c in cols] for r in table]
    print_table(rows, ["task"] + cols)
    print("\nyes = an artifact shipped with theorybench, the module's name for a user's (some "
          "serve only some parameter values); "
          "- = none (`theorybench tasks --coverage --format json` lists every origin)")
    return 0


def _cell(origins: list[str]) -> str:
    if not origins:
        return "-"
    return ", ".join(dict.fromkeys("yes" if o == "builtin" else o for o in origins))


def cmd_tasks(args) -> int:
    if args.coverage:
        return _coverage(args)
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
