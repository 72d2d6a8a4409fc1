"""``verify``: the main job - derive every prediction, run a profile's experiments
(resuming whatever the store already has), and write the report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from ..errors import StoreError
from .empirical import Thresholds
from .report import build_report, write_report

LINES = ("in_distribution", "length_generalization")


def load_predictions(path: str | Path) -> list[dict[str, Any]]:
    """Predictions saved by ``theorybench predict --format json``."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise StoreError(f"predictions file {path} does not exist; write one with "
                         "`theorybench predict --format json > predictions.json`") from None
    except json.JSONDecodeError as exc:
        raise StoreError(f"predictions file {path} is not JSON ({exc}); write it with "
                         "`theorybench predict --format json`") from None
    if not isinstance(data, list) or not all(
            isinstance(p, dict) and {"theory", "task", "verdict"} <= set(p) for p in data):
        raise StoreError(f"predictions file {path} is not a list of predictions as written by "
                         "`theorybench predict --format json`")
    for p in data:
        p.setdefault("basis", "none")
        p.setdefault("status", "none")
    return data


def derive_predictions(max_n: int = 12, seed: int = 0, progress: bool = True,
                       theories: list[str] | None = None, tasks: list[str] | None = None
                       ) -> list[dict[str, Any]]:
    from ..theories.base import Context
    from ..theories.runner import predict_matrix

    preds = predict_matrix(theories=theories, families=tasks,
                           ctx=Context(max_n=max_n, seed=seed), progress=progress)
    return [p.to_dict() for p in preds]


def store_records(db: str | Path, must_exist: bool = False) -> list[Any]:
    from ..experiments.store import ResultsStore

    if not Path(db).exists():
        if must_exist:
            raise StoreError(f"results store {db} does not exist; produce one with "
                             "`theorybench verify --profile smoke` or `theorybench run ...`")
        return []
    return ResultsStore(db).records()


def report(out: str | Path, db: str | Path, predictions: list[dict[str, Any]],
           thresholds: Thresholds = Thresholds()) -> dict[str, Path]:
    rep = build_report(predictions, store_records(db), thresholds, store_name=f"store {db}")
    return write_report(out, rep)


def verify(profile: str = "smoke", out: str | Path = "theorybench-report",
           db: str | Path = "theorybench-results.sqlite", max_n: int = 12, seed: int = 0,
           progress: bool = True, log: Callable[[str], None] = print,
           thresholds: Thresholds = Thresholds(), theories: list[str] | None = None,
           tasks: list[str] | None = None) -> dict[str, Path]:
    """Predictions, then both experiment lines of ``profile`` into ``db``, then the report.

    ``theories`` / ``tasks`` restrict the predictions (default: all); the experiments are
    the profile's."""
    from ..experiments.sweep import run_sweep

    t0 = time.time()
    log(f"[1/3] deriving predictions (max exact n = {max_n})")
    preds = derive_predictions(max_n=max_n, seed=seed, progress=progress,
                               theories=theories, tasks=tasks)
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "predictions.json").write_text(json.dumps(preds, indent=2, default=str))
    log(f"      {len(preds)} predictions in {time.time() - t0:.0f} s")
    for i, line in enumerate(LINES, 2):
        t1 = time.time()
        log(f"[{i}/3] {line} experiments, profile {profile!r}, store {db}")
        summary = run_sweep(line, profile=profile, db=str(db), progress=progress)
        log(f"      {summary} in {time.time() - t1:.0f} s")
    files = report(out, db, preds, thresholds)
    log(f"report written to {Path(out) / 'index.html'} ({time.time() - t0:.0f} s in all)")
    return files
