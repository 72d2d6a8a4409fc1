"""Reproductions of published length-generalization tables under the paper's protocol.

:func:`plan` turns a paper's rows (:mod:`.published`) into run specs of the
length-generalization line: a language row trains the next-symbol objective (members
only, every position scored, a string right when all its sets are), an algorithmic row
its label; the training lengths and test bins are the protocol's (or, with
``windows="authors"``, those of the data the authors committed for a language); the
architecture and learning rate are the paper's chosen ones where the authors' files
record them, and the budget's otherwise. :func:`run` trains them through the ordinary sweep (the results
store, its leases and resuming, the progress lines), and :func:`collect` reads each row's
finished seeds back. The reading (fitted seeds, the mean over them, agreement with the
paper) is the matrix's (:mod:`theorybench.matrix.reproduction`).

Budgets:

* ``quick`` - what fits 2 cores in under an hour: 2 seeds per row, at most 1,500
  optimizer steps with early stop at 100 % on the training lengths (checked every 500
  steps, so no run stops at its first fit), 512 test strings per bin; a point of the
  formal-language sweep's grid (2 layers, 2 heads, width 64) for the languages;
* ``smoke`` - 1 seed and 40 steps, to check the machinery (its readings mean nothing);
* ``paper`` - the protocol's seeds and 30,000 steps, 2,000 test strings per bin (a GPU or
  Ray cluster).

A row the toolkit cannot train (a task it does not define) or the budget leaves out is
planned with the reason and no runs; nothing is dropped silently.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

from .. import tasks
from ..tasks.spec import parse_task
from ..errors import ConfigError, TaskParameterError
from .data import MEMBERSHIP, NEXT_SET, NEXT_SYMBOL, SET_OBJECTIVES
from .lines import LENGTH_GENERALIZATION
from .model import size_shape
from .protocols import Protocol, get_protocol
from .published import (ALGORITHMIC, LANGUAGE, PublishedRow, authors_language_steps,
                        authors_set_size, authors_windows, language_file,
                        published_rows)
from .spec import RunSpec, bin_label
from .store import DEFAULT_DB, ResultsStore
from .sweep import run_sweep
from .trainer import TrainingConfig


#: Which lengths a reproduction trains and tests a language row at: the protocol's (one
#: set for the paper), or those of the data the authors committed for that language.
PROTOCOL_WINDOWS, AUTHORS_WINDOWS = "protocol", "authors"
WINDOWS = (PROTOCOL_WINDOWS, AUTHORS_WINDOWS)


@dataclass(frozen=True)
class Budget:
    name: str
    seeds: int | None        # seeds per row (None: the protocol's)
    steps: int               # the most optimizer steps of a run
    eval_every: int
    eval_count: int          # strings per early-stop check
    final_eval_count: int    # strings per test bin (and for the training-length accuracy)
    language_size: str       # the architecture of language rows without a recorded one
    description: str


BUDGETS = {
    # small width 64: on Dyck-1 (lengths <= 50, bins to 150) width 32 at lr 1e-3 fitted
    # but reached 0.37-0.78 at 3x; 2 x 2 x 64 at lr 1e-3 for 1,500 steps reached 1.0 on
    # one seed and 0.0 on another (probe of 2026-12-06): the readings are seed-dependent
    "quick": Budget("quick", seeds=2, steps=1500, eval_every=500, eval_count=256,
                    final_eval_count=512, language_size="2l2h64w",
                    description="2 seeds, at most 1,500 steps (early stop at 100 % on the "
                                "training lengths, checked every 500), 512 test strings "
                                "per bin"),
    # a look at the machinery in seconds (its readings mean nothing); the tests use it
    "smoke": Budget("smoke", seeds=1, steps=40, eval_every=20, eval_count=64,
                    final_eval_count=64, language_size="1l1h16w",
                    description="1 seed, 40 steps: checks the machinery, reads nothing"),
    "paper": Budget("paper", seeds=None, steps=30_000, eval_every=500, eval_count=512,
                    final_eval_count=2000, language_size="2l2h64w",
                    description="the protocol's seeds, at most 30,000 steps, 2,000 test "
                                "strings per bin"),
}

#: The architecture and learning rate the authors' run summaries record for a row (Huang
#: et al. 2025, algorithmic/lm-out-new-multi-run/<task>-average[-nope].txt at commit
#: 790f068), by (paper, task) or, where the encodings differ, (paper, task, encoding);
#: other rows use the budget's size and the protocol's first learning rate.
RECORDED = {("huang2025", "parity"): ("4l2h256w", 1e-4),
            ("huang2025", "binary_majority"): ("1l1h16w", 1e-3),
            ("huang2025", "majority", "learned_offsets"): ("1l2h256w", 1e-3),
            ("huang2025", "majority", "nope"): ("1l1h64w", 1e-3),
            ("huang2025", "sort", "learned_offsets"): ("1l2h256w", 1e-4),
            ("huang2025", "sort", "nope"): ("1l1h256w", 1e-3),
            ("huang2025", "copy_unique", "learned_offsets"): ("2l1h64w", 1e-3),
            ("huang2025", "copy_unique", "nope"): ("4l4h256w", 1e-3),
            ("huang2025", "copy_repeat"): ("4l4h256w", 1e-3),
            ("huang2025", "binary_majority_interleave", "learned_offsets"): ("2l4h256w", 1e-4),
            # the authors' NoPE run of this task is their 12-layer model (12 x 12 x 768)
            ("huang2025", "binary_majority_interleave", "nope"): ("12l12h768w", 1e-4),
            ("huang2025", "addition"): ("12l12h768w", 1e-4)}
#: Bhattamishra et al.'s defaults (src/args.py): 1 layer, 1 head, width 32.
DEFAULT_SIZE = {"bhattamishra2020": "1l1h32w"}
#: Under the quick budget a recorded architecture this wide or wider trains too slowly on
#: a CPU to fit in distribution within its steps; the budget's size replaces it (noted).
QUICK_MAX_WIDTH = 256


@dataclass
class PlannedRow:
    row: PublishedRow
    specs: tuple = ()            # RunSpec per seed; empty when the row is not run
    skipped: str | None = None   # why the row is not run
    size: str = ""
    lr: float | None = None
    objective: str = ""
    notes: list = field(default_factory=list)
    #: with ``grid``: the architecture grid this row is one point of (the rows of one
    #: published row share it; the table reads their best point, :mod:`..matrix.reproduction`)
    grid: str = ""


#: The architecture grids the authors' sweep files run for a kind of row, by protocol:
#: Huang et al. 2025's formal-language sweeps (formal_lang_suite/experiments/*.yaml at
#: commit b39b743, a wandb grid) run layers {1, 2, 4} x d_model {32, 64} x heads {1, 2, 4}
#: per encoding, one run per point.
GRIDS = {("huang2025", LANGUAGE): tuple(f"{l}l{h}h{w}w" for l in (1, 2, 4) for w in (32, 64)
                                        for h in (1, 2, 4))}
GRID_SOURCE = {("huang2025", LANGUAGE): "formal_lang_suite/experiments/*.yaml at b39b743: "
               "layers {1, 2, 4} x d_model {32, 64} x heads {1, 2, 4}, a wandb grid sweep; "
               "the files hold sweeps for the regular languages only, so for Dyck-1 and the "
               "counter languages the same grid is assumed"}


@dataclass(frozen=True)
class LanguageRecipe:
    """How a paper's authors trained its language rows, where it differs from the
    protocol's algorithmic settings."""
    lr: float
    weight_decay: float
    schedule: str
    objective: str
    source: str


#: Huang et al. 2025's formal-language runs (formal_lang_suite at commit b39b743):
#: train_with_ce.py builds AdamW from configs/optimizer/adamw.yaml (lr 1e-5, weight decay
#: 0.1) and steps no scheduler (configs/defaults.yaml: use_scheduler False), clips no
#: gradient and never stops early: every epoch of the sweep's 100 (150 for some) is run;
#: its loss is a cross-entropy over next-symbol-set classes (dataset_utils.py maps each
#: distinct multi-hot target to one token). The batch size and the steps are the row's
#: (its dataset config, :mod:`.published`).
LANGUAGE_RECIPES = {"huang2025": LanguageRecipe(
    lr=1e-5, weight_decay=0.1, schedule="constant", objective=NEXT_SET,
    source="formal_lang_suite/train_with_ce.py, configs/optimizer/adamw.yaml, "
           "configs/defaults.yaml at b39b743")}


def get_budget(name: str) -> Budget:
    if name not in BUDGETS:
        raise ConfigError(f"unknown budget {name!r}; budgets: {', '.join(BUDGETS)}")
    return BUDGETS[name]


def resolve_task(ref: str) -> tuple[str, tuple]:
    """A row's task as a run spec names it, ``(family, sorted parameter pairs)``: ``@name``
    loads the shipped language file, a path loads a task file, a family reference
    (``dyck:k=1``) is parsed into its family and parameters."""
    try:
        if ref.startswith("@"):
            return tasks.registry.load_task_file(language_file(ref[1:])).name, ()
        if tasks.split_file_ref(ref):
            return tasks.registry.load_task_file(ref).name, ()
        family, params = parse_task(ref)
    except TaskParameterError as exc:
        raise ConfigError(str(exc)) from None
    return family, tuple(sorted(params.items()))


def user_rows(task_file: str, protocol: Protocol) -> list[PublishedRow]:
    """Rows for a language of one's own, run as the protocol's paper runs its languages
    (both of Huang et al.'s encodings; no published figure)."""
    encodings = ("learned_offsets", "nope") if protocol.name == "huang2025" else ("nope",)
    return [PublishedRow(paper=protocol.name, name=str(task_file), task=str(task_file),
                         kind=LANGUAGE, encoding=e, bins=None, source="your task file")
            for e in encodings]


def select_rows(rows: Sequence[PublishedRow], wanted: Sequence[str]) -> set:
    """The row ids ``wanted`` names: a task name (both encodings) or ``task/encoding``.
    An unknown name is an error that lists the known ones."""
    known = {}
    for r in rows:
        known.setdefault(r.name, set()).add(r.row_id)
        known.setdefault(f"{r.name}/{r.encoding}", set()).add(r.row_id)
    picked, bad = set(), []
    for w in wanted:
        if w in known:
            picked |= known[w]
        else:
            bad.append(w)
    if bad:
        names = sorted({r.name for r in rows})
        raise ConfigError(f"--rows: no row named {', '.join(map(repr, bad))}; name a task "
                          f"(both encodings) or task/encoding, one of: {', '.join(names)}")
    return picked


def plan(paper: str, budget: str = "quick", task_file: str | None = None,
         protocol: str | None = None, seeds: Sequence[int] | None = None,
         rows: Sequence[str] | None = None, train_through: bool = False,
         grid: bool = False, steps: int | None = None,
         objective: str | None = None, windows: str = PROTOCOL_WINDOWS,
         fixed_sets: bool = False) -> list[PlannedRow]:
    """Every row of ``paper`` (or, with ``task_file``, the user's language under
    ``protocol``), with its run specs or the reason it is not run.

    ``rows`` keeps only the rows it names (see :func:`select_rows`; the others are listed
    as not selected); ``train_through`` turns the early stop off: every run trains the
    budget's steps and its fit is checked once, at the end (a run of another key, so the
    store keeps both). ``grid`` plans a row whose kind has an authors' grid (:data:`GRIDS`)
    at every point of it, one seed each (the first), as the authors' sweep ran it; the
    budget's steps and learning rate as for the row itself. ``steps`` replaces the step
    limit of every run (the budget's, or under ``paper`` the authors' recipe's);
    ``objective`` trains the language rows by another next-symbol objective (one of
    :data:`~.data.SET_OBJECTIVES`); ``windows="authors"`` trains and tests each language row
    at the lengths of the data its authors committed (:func:`~.published.authors_windows`)
    where they committed some, the protocol's elsewhere. Each of these gives runs of other
    keys. ``fixed_sets`` draws a row whose strings come from the authors' generator as
    their generate_list does, a set of distinct strings per length window of the size of
    the row's training set (:func:`~.published.authors_set_size`), then from that set."""
    if windows not in WINDOWS:
        raise ConfigError(f"--windows {windows!r}: one of {', '.join(WINDOWS)}")
    bud = get_budget(budget)
    if steps is not None:
        if steps < 1:
            raise ConfigError(f"--steps must be a positive number of steps, got {steps}")
        bud = dataclasses.replace(bud, steps=steps, eval_every=min(bud.eval_every, steps))
    if objective is not None and objective not in SET_OBJECTIVES:
        raise ConfigError(f"--objective {objective!r}: the language rows train one of "
                          f"{', '.join(SET_OBJECTIVES)}")
    proto = get_protocol(protocol or paper)
    all_rows = user_rows(task_file, proto) if task_file else published_rows(paper)
    chosen = select_rows(all_rows, rows) if rows else None
    rows = all_rows
    seed_list = list(seeds) if seeds else list(proto.seeds[: bud.seeds] if bud.seeds
                                               else proto.seeds)
    out = []
    for row in rows:
        planned = PlannedRow(row=row)
        out.append(planned)
        if row.unavailable:
            planned.skipped = f"not run: {row.unavailable}"
            continue
        if chosen is not None and row.row_id not in chosen:
            planned.skipped = "not run: not selected by --rows"
            continue
        size, lr = RECORDED.get((proto.name, row.name, row.encoding)) or RECORDED.get(
            (proto.name, row.name), (DEFAULT_SIZE.get(proto.name, bud.language_size),
                                     proto.learning_rates[0]))
        planned.size, planned.lr = size, lr
        planned.objective = NEXT_SYMBOL if row.kind == LANGUAGE else MEMBERSHIP
        if bud.name != "paper" and size_shape(size)[2] >= QUICK_MAX_WIDTH:
            planned.notes.append(
                f"the authors' architecture {size} at lr {lr:g} is replaced by "
                f"{bud.language_size} at lr {proto.learning_rates[0]:g} under the {bud.name} "
                f"budget: it needs far more than {bud.steps:,} steps to fit the training "
                f"lengths on a CPU (the authors ran up to 30,000); --budget paper uses it")
            size, lr = bud.language_size, proto.learning_rates[0]
            planned.size, planned.lr = size, lr
        task, params = resolve_task(row.task)
        lo, hi = proto.train_lengths
        eval_bins = tuple(proto.eval_bins)
        theirs = authors_windows(row.paper, row.name) \
            if windows == AUTHORS_WINDOWS and row.kind == LANGUAGE else None
        if theirs is not None:
            hi, eval_bins = theirs
            planned.notes.append(
                "trained to length {} and tested in bins {} (--windows authors: the lengths "
                "of the authors' committed data)".format(
                    hi, " / ".join(bin_label(a, b, i == 0) for i, (a, b) in enumerate(eval_bins))))
        elif windows == AUTHORS_WINDOWS:
            planned.notes.append("--windows authors: no committed data of the authors for "
                                 "this row, so the protocol's lengths")
        training = TrainingConfig(steps=bud.steps, batch_size=proto.batch_size or 64, lr=lr,
                                  warmup=min(100, bud.steps // 10),
                                  eval_every=bud.steps if train_through else bud.eval_every,
                                  eval_count=bud.eval_count, target=proto.fit_accuracy,
                                  final_eval_count=bud.final_eval_count, schedule="linear")
        if objective is not None and row.kind == LANGUAGE:
            planned.objective = objective
            planned.notes.append(f"objective {objective} (--objective)")
        recipe = LANGUAGE_RECIPES.get(proto.name) if row.kind == LANGUAGE else None
        if recipe is not None:
            their_steps, batch, where = authors_language_steps(row.name)
            said = (f"the authors' recipe: a cross-entropy over next-symbol-set classes "
                    f"(objective {recipe.objective}), AdamW lr {recipe.lr:g}, weight decay "
                    f"{recipe.weight_decay:g}, no schedule, batch {batch}, {their_steps:,} "
                    f"steps ({where}), no early stop ({recipe.source})")
            if bud.name == "paper":
                lr = planned.lr = recipe.lr
                planned.objective = objective or recipe.objective
                run_steps = steps or their_steps
                training = dataclasses.replace(
                    training, steps=run_steps, batch_size=batch, lr=recipe.lr, warmup=0,
                    weight_decay=recipe.weight_decay, schedule=recipe.schedule,
                    eval_every=run_steps)
                planned.notes.append(f"trained by {said}; strings drawn afresh rather than "
                                     f"from a fixed set, and gradients clipped at norm 1 "
                                     f"(theirs: none)")
            else:
                planned.notes.append(
                    f"{said} is replaced under the {bud.name} budget by objective "
                    f"{planned.objective}, lr {lr:g} with linear decay, batch "
                    f"{training.batch_size}, at most {bud.steps:,} steps and the early stop, "
                    f"the same for every language row (--budget paper trains the authors' "
                    f"recipe)")
        if steps is not None:
            planned.notes.append(f"at most {training.steps:,} steps (--steps)")
        sampler = row.sampler
        if fixed_sets and sampler:
            set_size = authors_set_size(row.name)
            sampler += f",distinct={set_size}"
            planned.notes.append(
                f"strings from a set of {set_size:,} distinct strings per length window, drawn "
                f"as the authors' generate_list draws its sets (--fixed-sets); the fit, and "
                f"a first test bin of the training window, are read on the training set's "
                f"own strings")
        elif fixed_sets:
            planned.notes.append("--fixed-sets: the authors' generator of this row is not "
                                 "known here, so its strings are drawn as by default")
        specs = []
        for seed in seed_list:
            specs.append(RunSpec(line=LENGTH_GENERALIZATION, task=task, params=params,
                                 train_max_len=hi, eval_bins=eval_bins,
                                 size=size, encoding=row.encoding, training=training,
                                 seed=int(seed), objective=planned.objective,
                                 sampler=sampler))
        planned.specs = tuple(specs)
        if train_through:
            planned.notes.append(f"trained through: every run takes all {training.steps:,} steps "
                                 f"(no early stop; the fit is checked once, at the end)")
        if lo > 1:
            planned.notes.append(f"training lengths 1..{hi} (the protocol's are {lo}..{hi}: "
                                 f"the harness trains every length up to the longest)")
        points = GRIDS.get((proto.name, row.kind)) if grid else None
        if points:   # the row becomes one planned row per grid point, first seed only
            out.pop()
            for point in points:
                out.append(PlannedRow(
                    row=row, size=point, lr=lr, objective=planned.objective,
                    notes=list(planned.notes), grid=GRID_SOURCE[(proto.name, row.kind)],
                    specs=(dataclasses.replace(specs[0], size=point),)))
    return out


def run(planned: Sequence[PlannedRow], db: str = DEFAULT_DB, executor: str = "auto",
        workers: int | None = None, progress: bool = True, device: str = "cpu",
        address: str | None = None) -> dict:
    """Train every planned run not already done in ``db`` (the sweep's summary)."""
    specs = [s for p in planned for s in p.specs]
    if not specs:
        return {"total": 0, "ran": 0, "done": 0, "failed": 0, "failures": [], "wall_s": 0.0}
    # the smoke profile only lends its settings (one torch thread per run); the grid and
    # the progress label are the reproduction's
    return run_sweep(LENGTH_GENERALIZATION, specs=specs, db=db, executor=executor,
                     workers=workers, progress=progress, device=device, address=address,
                     label="reproduce")


def collect(planned: Sequence[PlannedRow], db: str = DEFAULT_DB) -> list[list[dict]]:
    """Per planned row, its runs in seed order: ``{"seed", "status", "metrics", "error"}``
    (status "missing" for a run not in the store)."""
    store = ResultsStore(db)
    try:
        keys = [s.key for p in planned for s in p.specs]
        status = store.status_of(keys)
        records = {r.key: r for r in store.records(line=LENGTH_GENERALIZATION)
                   if r.key in status}
    finally:
        store.close()
    out = []
    for p in planned:
        runs = []
        for spec in p.specs:
            rec = records.get(spec.key)
            runs.append({"seed": spec.seed, "status": rec.status if rec else "missing",
                         "metrics": rec.metrics if rec else {},
                         "error": rec.error if rec else None})
        out.append(runs)
    return out

