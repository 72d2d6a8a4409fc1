"""`theorybench byo FILE [--budget quick|thorough] [--out DIR]`: everything theorybench can
say about one task of your own (docs/extending.md, "Bring your own task").

FILE is a task file (``.py``, a ``:KEY=VALUE`` variant allowed) or a ``.cr``/``.br``
program that is the task. In order, with a progress bar on a terminal:

1. every theory's verdict with its evidence (``predict`` on the one row);
2. the C-RASP / B-RASP programs: those the file supplies (checked against its label when
   it loaded, each in its fragment) and those the libraries find for the task; for the
   C-RASP one, its check, ``crasp prove`` (plain C-RASP only) and its compilation to a
   softmax transformer, checked against the interpreter;
3. a short in-distribution training run at two n (a small model; the runs go to a results
   store keyed by the task's definition digest, so an unchanged file is not trained again
   and an edited one is);
4. one page, Markdown and HTML (``NAME`` + ``.md``, ``.html``) in ``--out`` (default ``byo-NAME``), beside the
   store ``runs.sqlite``. Outputs go through :mod:`theorybench.safe_io`: an input (the
   task file, its programs) or a file of another kind is never replaced without --force.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from .. import tasks
from ..errors import ConfigError, TaskFileError, TaskParameterError, TheorybenchError
from ..experiments.lines import IN_DISTRIBUTION
from ..experiments.store import ResultsStore
from ..formal.brasp.programs import for_task as brasp_for_task
from ..formal.crasp.programs import for_task as crasp_for_task
from ..formal.crasp.validate import load
from ..formal.program_task import brasp_fragment, crasp_fragment
from ..safe_io import STORE, TEXT, check_output
from ..tasks.user_program import sibling_programs
from ..theories.base import Context
from ..theories.runner import matrix_markdown, predict_matrix
from .byo_page import write_page
from .common import add_force, parse_seed, path_arg


@dataclasses.dataclass(frozen=True)
class Budget:
    max_n: int          # theories: exact computations up to this n
    time_limit_s: float  # theories: per rule
    steps: int          # training steps per run
    prove_timeout_s: float
    train_max_n: int    # the two training n are at most this


BUDGETS = {
    "quick": Budget(max_n=10, time_limit_s=10.0, steps=300, prove_timeout_s=20.0,
                    train_max_n=16),
    "thorough": Budget(max_n=12, time_limit_s=30.0, steps=1500, prove_timeout_s=60.0,
                       train_max_n=32),
}


def register(sub) -> None:
    p = sub.add_parser(
        "byo", help="bring your own task: every theory's verdict, a program, a trained "
        "model, one page",
        description="Everything for one task of your own: every theory's verdict with its "
        "evidence, the C-RASP/B-RASP programs given or found (checked, proved where `crasp "
        "prove` applies, compiled to a softmax transformer and checked), a short "
        "in-distribution training run at two n, and one Markdown + HTML page.")
    p.add_argument("file", help="a task file (.py, optionally FILE:KEY=VALUE) or a .cr/.br "
                   "program that is the task")
    p.add_argument("--budget", choices=tuple(BUDGETS), default="quick",
                   help="quick (default; a few minutes on 2 cores) or thorough")
    p.add_argument("--out", type=path_arg("a folder for the page"),
                   help="folder of the page and the run store (default: byo-NAME)")
    p.add_argument("--no-train", action="store_true", help="skip the training runs")
    p.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    add_force(p, "the page and the store in --out")
    p.set_defaults(func=cmd_byo)


def _ref(text: str) -> tuple[tasks.TaskRef, Path]:
    found = tasks.split_file_ref(text)
    if found is None:
        raise TaskParameterError(
            f"{text!r} is not a task file: byo takes the path of a .py task file (or "
            "FILE:KEY=VALUE) or of a .cr/.br program; for a built-in family use "
            "`theorybench predict --task NAME` and `theorybench explain`")
    ref = tasks.TaskRef.parse(text)
    return ref, Path(tasks.family(ref.family).origin)


def _outputs(args, ref, path: Path) -> tuple[Path, Path, Path, Path]:
    out = Path(args.out if args.out is not None else f"byo-{ref.family}")
    if "\x00" in str(out):
        raise ConfigError(f"--out {str(out)!r} contains a NUL byte; give a folder for the page")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder for the page")
    inputs = [("the task file", path)] + [("the program", p) for p in sibling_programs(path)]
    md, html, db = out / f"{ref.family}.md", out / f"{ref.family}.html", out / "runs.sqlite"
    if out.is_dir():
        for f in (md, html):
            check_output(f, inputs, args.force, TEXT, what="--out")
        if not args.no_train:  # an existing store is reused: its runs are not trained again
            check_output(db, inputs, args.force, STORE, what="--out")
    elif not out.parent.is_dir() and str(out.parent) not in ("", "."):
        raise ConfigError(f"--out {out}: its folder {out.parent} does not exist; create it "
                          "first")
    if not out.exists():  # refused now, not after the theories ran
        try:
            out.mkdir()
            out.rmdir()
        except OSError as exc:
            raise ConfigError(f"--out {out} cannot be created ({exc.strerror or exc}); "
                              "choose another --out") from None
    return out, md, html, db


def _bar(total: int):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc="byo", unit="step", file=sys.stderr,
                disable=not sys.stderr.isatty(), leave=False)


def cmd_byo(args) -> int:
    began = time.perf_counter()
    budget = BUDGETS[args.budget]
    ref, path = _ref(args.file)
    out, md, html, db = _outputs(args, ref, path)  # refused before any work
    stages = ["theories", "programs"] + ([] if args.no_train else ["training"])
    bar = _bar(len(stages))
    try:
        result: dict[str, Any] = {"task": _task_info(ref, path), "budget": args.budget}
        bar.set_postfix_str("theories")
        result["predictions"] = _predictions(ref, budget, args.seed)
        bar.update()
        bar.set_postfix_str("programs")
        result["programs"] = _programs(ref, budget, result["predictions"])
        bar.update()
        if not args.no_train:
            bar.set_postfix_str("training")
            out.mkdir(exist_ok=True)
            result["training"] = _training(ref, budget, db, args.seed)
            bar.update()
    finally:
        bar.close()
    result["wall_s"] = round(time.perf_counter() - began, 1)
    out.mkdir(exist_ok=True)
    write_page(result, md, html)
    _print_summary(result, md, html)
    return 0


def _task_info(ref, path: Path) -> dict[str, Any]:
    fam = tasks.family(ref.family)
    return {"name": str(ref), "family": ref.family, "file": str(path),
            "definition": fam.definition, "alphabet": list(fam.alphabet),
            "lengths": list(fam.lengths), "output": fam.output, "summary": fam.summary,
            "digest": fam.definition_digest}


def _predictions(ref, budget: Budget, seed: int) -> list[Any]:
    ctx = Context(max_n=budget.max_n, seed=seed, time_limit_s=budget.time_limit_s)
    return predict_matrix(None, [str(ref)], ctx, progress=True)  # a bar on a terminal only


def _how(origin: str, language: str) -> str:
    """Where a program the column uses came from: the shipped library or the search."""
    return "found by search" if origin.startswith("found by search") \
        else f"from the {language} library"


def _programs(ref, budget: Budget, predictions) -> list[dict[str, Any]]:
    """The supplied programs (checked at load) and the ones the libraries give the task;
    the C-RASP one checked, proved and compiled (from the C-RASP cell's evidence when its
    program rule fired, else here)."""
    fam = tasks.family(ref.family)
    task = ref.build(n=max(fam.analysis_ns))
    out = [dict(rec, how="supplied with the task", used_by=rec["columns"])
           for rec in getattr(fam, "artifacts", ())]
    given = {r["origin"] for r in out}
    try:
        found = crasp_for_task(task)
    except TheorybenchError:  # the C-RASP cell's evidence says what went wrong
        found = None
    if found is not None and found[1] not in given:
        out.append({"language": "C-RASP", "fragment": crasp_fragment(found[0]),
                    "origin": found[1], "how": _how(found[1], "C-RASP"),
                    "program": str(found[0]), "used_by": ["crasp"]})
    bfound = brasp_for_task(task, positional=True)
    if bfound is not None and bfound[0] not in {Path(o.split(" ")[0]).name for o in given}:
        frag = brasp_fragment(bfound[1])
        out.append({"language": "B-RASP", "fragment": frag, "origin": bfound[0],
                    "how": _how(bfound[0], "B-RASP"), "program": str(bfound[1]),
                    "used_by": ["star_free_pos"] + (["star_free"] if frag == "B-RASP" else [])})
    cell = next((p for p in predictions if p.theory == "crasp"), None)
    crasp = [r for r in out if r["language"] == "C-RASP"]
    crasp.sort(key=lambda r: "crasp" not in r["used_by"])  # the column's own program first
    if crasp:
        crasp[0].update(_crasp_followup(crasp[0], ref, budget, cell))
    return out


def _crasp_followup(rec, ref, budget: Budget, cell) -> dict[str, Any]:
    from ..constructions.evidence import compiled_evidence
    from ..proofs import prove_crasp
    ev = cell.evidence if cell is not None and cell.rule == "verified program" else {}
    program = load(rec["program"], rec["origin"], tuple(tasks.family(ref.family).alphabet))
    extra: dict[str, Any] = {}
    if ev.get("check"):
        extra["check"] = ev["check"]
    if program.imports:
        extra["proof"] = {"status": "not attempted", "reason": "`crasp prove` handles plain "
                          "C-RASP (counter machines); this program imports "
                          + ", ".join(program.imports)}
    elif "induction" in ev:
        extra["proof"] = ev["induction"]
    else:
        params = dict(ref.params)
        extra["proof"] = prove_crasp(program, ref.family, params,
                                     timeout_s=budget.prove_timeout_s).to_dict()
    extra["transformer"] = ev.get("transformer") or compiled_evidence(
        program.with_alphabet(tuple(tasks.family(ref.family).alphabet)), budget.max_n)
    return extra


def _train_ns(ref, budget: Budget) -> list[int]:
    """Two n up to the budget's where a label-balanced batch can be drawn: the family's
    training sizes first, then the largest others (a^n b^n c^n has both labels only at
    multiples of 3, and is balanced only where its inputs can be enumerated)."""
    import numpy as np
    fam = ref.variant()
    ok = []
    valid = set(fam.valid_ns(None, budget.train_max_n))
    preferred = sorted(valid & set(fam.train_ns), reverse=True)  # the family's own first
    for n in preferred + sorted(valid - set(preferred), reverse=True):
        try:
            batch = ref.build(n=n).sample(np.random.default_rng(0), 64)
        except TaskFileError:
            raise  # the file's label or sample failed: not an n without a sample
        except TheorybenchError:
            continue
        if len(np.unique(np.asarray(batch.labels))) > 1:
            ok.append(n)
        if len(ok) == 2:
            break
    return sorted(ok)


def _training(ref, budget: Budget, db: Path, seed: int) -> dict[str, Any]:
    from ..experiments.spec import RunSpec
    from ..experiments.sweep import run_sweep
    from ..experiments.trainer import TrainingConfig
    ns = _train_ns(ref, budget)
    if not ns:
        return {"ns": [], "runs": [], "note": "no n up to "
                f"{budget.train_max_n} has a label-balanced sample with both labels"}
    cfg = TrainingConfig(steps=budget.steps, batch_size=64, lr=2e-3, warmup=30,
                         eval_every=50, eval_count=256, target=0.99, final_eval_count=1024)
    specs = [RunSpec(line=IN_DISTRIBUTION, task=ref.family, params=tuple(ref.params), n=n,
                     size="small", training=cfg, seed=seed) for n in ns]
    summary = run_sweep(IN_DISTRIBUTION, specs=specs, db=str(db), executor="inprocess",
                        progress=False, threads=1)
    keys = {s.key: s for s in specs}
    runs = [{"n": r.spec["n"], "status": r.status, "error": r.error, **r.metrics}
            for r in ResultsStore(str(db)).records(IN_DISTRIBUTION) if r.key in keys]
    return {"ns": ns, "runs": sorted(runs, key=lambda r: r["n"]), "db": str(db),
            "ran": summary["ran"], "already_done": summary["skipped_done"],
            "steps": budget.steps, "model": "small (2 layers, width 64), NoPE"}


def _shown(path: str) -> str:
    """``path`` relative to the working folder when it lies inside it (shorter lines)."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def _print_summary(result: dict[str, Any], md: Path, html: Path) -> None:
    print(matrix_markdown(result["predictions"]).split("\n\nCells:")[0])
    for rec in result["programs"]:
        used = ", ".join(rec["used_by"]) or "no column (outside every column's model)"
        print(f"program: {rec['language']} ({rec['fragment']}) from {_shown(rec['origin'])}, "
              f"{rec['how']}; evidence for: {used}")
        if rec.get("transformer"):
            t = rec["transformer"]
            print(f"  compiled: {t.get('status', t.get('reason', 'not compiled'))}"
                  + (f" on all {t['inputs']:,} inputs up to length {t['max_len']}"
                     if t.get("compiled") else ""))
        if rec.get("proof"):
            print(f"  crasp prove: {rec['proof']['status']}")
    tr = result.get("training")
    if tr:
        for r in tr["runs"]:
            acc = r.get("test_accuracy")
            print(f"trained n={r['n']}: " + (f"test accuracy {acc:.3f} (chance "
                  f"{r.get('chance_accuracy', 0):.3f}) after {r.get('steps')} steps"
                  if acc is not None else f"{r['status']}: {r.get('error')}"))
        if tr.get("already_done"):
            print(f"({tr['already_done']} run(s) already in {tr['db']} for this definition: "
                  "not trained again)")
    print(f"page: {md} and {html} ({result['wall_s']:.0f} s)")
