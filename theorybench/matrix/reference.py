"""Reference results: empirical verdicts a theory is scored against without training.

A reference is a JSON file: per experiment line and task, the observed verdict (Easy, Hard,
inconclusive, insufficient) with its note, the protocol that decided it, and where it came
from (the store's SHA-256, the commit and the command, or the published files it cites).
Its ``digest`` is the SHA-256 of its cells in canonical JSON and is checked on every load,
so a damaged or hand-edited reference is refused rather than scored against.

Shipped references live in ``matrix/references/``: ``quick`` (theorybench's committed quick
run) and ``huang2025`` (the per-encoding readings Huang et al. 2025 published, as the
reproduction's table gives them). ``--db STORE`` builds one from a results store the same
way (:func:`from_store`).

Besides the pooled lines, a store or reference has one line per positional encoding of the
length line (``length_generalization:nope``, ...): an encoding generalizes if one of its
configurations (model sizes) reaches the length bar in every bin, does not if every decided
configuration with it fails, and is insufficient otherwise.

To score the shipped theories in seconds, a reference may come with a snapshot of their
predictions on its tasks (``NAME.predictions.json``), keyed by :func:`code_digest`, the
SHA-256 of every source file a prediction depends on; it is used only while that digest
matches the installed code, and recomputed otherwise (``theorybench score --recompute``
always recomputes).
"""

from __future__ import annotations

import ast
import hashlib
import json
import pathlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..errors import ConfigError, StoreError
from ..experiments.lines import LENGTH_GENERALIZATION
from ..safe_io import atomic_write
from .cells import EASY, HARD, INCONCLUSIVE, INSUFFICIENT, Thresholds
from .empirical import config_encoding, empirical_cells

REFERENCE_DIR = pathlib.Path(__file__).with_name("references")
FORMAT = 1
VERDICTS = (EASY, HARD, INCONCLUSIVE, INSUFFICIENT)
#: The package folders a prediction is computed from (for the snapshot's code digest).
PREDICTION_SOURCES = ("tasks", "formal", "constructions", "proofs", "theories")
PREDICTION_FILES = ("registry.py", "errors.py", "parallel.py")


@dataclass(frozen=True)
class RefCell:
    """One observed verdict of a reference (what the agreement reads: ``verdict``)."""

    task: str
    line: str
    verdict: str
    note: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"verdict": self.verdict, "note": self.note}


@dataclass
class Reference:
    name: str
    title: str
    protocol: str
    sources: list[dict[str, Any]]
    cells: dict[str, dict[str, RefCell]]
    digest: str = ""
    path: str = ""
    snapshot: dict[str, Any] | None = field(default=None, repr=False)

    def tasks(self) -> list[str]:
        """Every task of the reference, in first-seen order."""
        out: dict[str, None] = {}
        for cells in self.cells.values():
            out.update(dict.fromkeys(cells))
        return list(out)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "name": self.name, "title": self.title,
                "protocol": self.protocol, "sources": self.sources,
                "digest": cells_digest(self.cells), "cells": _plain(self.cells)}


def _plain(cells: Mapping[str, Mapping[str, RefCell]]) -> dict[str, dict[str, dict]]:
    return {line: {t: c.to_dict() for t, c in sorted(by.items())}
            for line, by in sorted(cells.items())}


def cells_digest(cells: Mapping[str, Mapping[str, RefCell]]) -> str:
    text = json.dumps(_plain(cells), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def encoding_lines(lg: Mapping[str, Any]) -> dict[str, dict[str, RefCell]]:
    """``length_generalization:ENCODING`` -> task -> cell, from the length line's cells
    (their per-configuration verdicts; see the module docstring)."""
    out: dict[str, dict[str, RefCell]] = {}
    for task, cell in lg.items():
        by_enc: dict[str, list[tuple[str, str]]] = {}
        for config, verdict in (getattr(cell, "config_verdicts", None) or {}).items():
            by_enc.setdefault(config_encoding(config), []).append((config, verdict))
        for enc, got in sorted(by_enc.items()):
            good = [c for c, v in got if v == EASY]
            decided = [c for c, v in got if v in (EASY, HARD)]
            if good:
                verdict, note = EASY, f"generalizes with {', '.join(good)}"
            elif decided and len(decided) == len(got):
                verdict, note = HARD, f"no configuration generalizes ({', '.join(decided)})"
            else:
                verdict, note = INSUFFICIENT, ("configurations without a complete set of "
                                               f"runs: {', '.join(c for c, v in got if v not in (EASY, HARD))}")
            out.setdefault(f"{LENGTH_GENERALIZATION}:{enc}", {})[task] = RefCell(
                task, f"{LENGTH_GENERALIZATION}:{enc}", verdict, note)
    return out


def cells_from_records(records: Iterable[Any], thresholds: Thresholds = Thresholds()
                       ) -> dict[str, dict[str, Any]]:
    """line -> task -> cell of a store's records: the report's empirical cells, and one
    line per positional encoding of the length line."""
    emp = empirical_cells(list(records), thresholds)
    out: dict[str, dict[str, Any]] = dict(emp)
    if LENGTH_GENERALIZATION in emp:
        out.update(encoding_lines(emp[LENGTH_GENERALIZATION]))
    return out


def freeze(cells: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, RefCell]]:
    """Empirical cells as reference cells (verdict and note only)."""
    return {line: {t: RefCell(t, line, c.verdict, getattr(c, "note", "") or "")
                   for t, c in by.items()} for line, by in cells.items()}


def file_sha256(path: str | pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def from_store(db: str | pathlib.Path, records: Iterable[Any],
               thresholds: Thresholds = Thresholds()) -> Reference:
    """A reference from a store's records (``--db``), its source the store's digest."""
    cells = freeze(cells_from_records(records, thresholds))
    source = {"lines": sorted(cells), "store": str(db), "store_sha256": file_sha256(db)}
    return Reference(name=pathlib.Path(db).name, title=f"the runs of {db}",
                     protocol=thresholds.describe(), sources=[source], cells=cells,
                     digest=cells_digest(cells), path=str(db))


def from_report(path: str | pathlib.Path, lines: Iterable[str]) -> dict[str, dict[str, RefCell]]:
    """The verdicts of ``lines`` in a written report's ``empirical.json`` (a list of cells
    with task, line, verdict and note), for a reference whose store is not kept."""
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"report file {path} cannot be read ({exc})") from None
    wanted = set(lines)
    out: dict[str, dict[str, RefCell]] = {}
    for c in data if isinstance(data, list) else []:
        if isinstance(c, dict) and c.get("line") in wanted and c.get("verdict") in VERDICTS:
            out.setdefault(c["line"], {})[str(c["task"])] = RefCell(
                str(c["task"]), c["line"], c["verdict"], str(c.get("note") or ""))
    return out


def from_reproduction(path: str | pathlib.Path, measured: bool = False
                      ) -> dict[str, dict[str, RefCell]]:
    """Per-encoding length verdicts from a reproduction table's JSON
    (``theorybench reproduce``): the published readings (from the authors' files), or with
    ``measured`` this toolkit's readings under the table's budget (rows read "by rule", no
    seed fitting the training lengths, are kept and say so). Rows without a toolkit task
    are left out. The pooled line is Easy where some encoding generalizes, Hard where every
    listed encoding does not."""
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"reproduction file {path} cannot be read ({exc})") from None
    word = {"generalizes": EASY, "does not generalize": HARD}
    out: dict[str, dict[str, RefCell]] = {}
    pooled: dict[str, list[tuple[str, str]]] = {}
    for r in data.get("rows") or []:
        task = r.get("toolkit_task")
        reading = r.get("reading") if measured else r.get("published_reading")
        if not task or reading not in word:
            continue
        line = f"{LENGTH_GENERALIZATION}:{r['encoding']}"
        if measured:
            note = (f"measured ({data.get('budget')} budget): {reading}"
                    + (" (by rule: no seed fitted the training lengths)" if r.get("by_rule")
                       else f", {r.get('basis', '')}"))
        else:
            note = f"published: {reading} ({r.get('source', data.get('citation', ''))})"
        out.setdefault(line, {})[task] = RefCell(task, line, word[reading], note)
        pooled.setdefault(task, []).append((r["encoding"], word[reading]))
    for task, got in pooled.items():
        good = [e for e, v in got if v == EASY]
        out.setdefault(LENGTH_GENERALIZATION, {})[task] = RefCell(
            task, LENGTH_GENERALIZATION, EASY if good else HARD,
            f"generalizes with {', '.join(good)}" if good else
            f"does not generalize with {', '.join(e for e, _ in got)}")
    return out


# ---- loading ------------------------------------------------------------------------------

def shipped() -> list[str]:
    """The names of the shipped references."""
    return sorted(p.stem for p in REFERENCE_DIR.glob("*.json")
                  if not p.name.endswith(".predictions.json"))


def load(name_or_path: str) -> Reference:
    """A shipped reference by name, or a reference file by path; its digest is checked."""
    path = pathlib.Path(name_or_path)
    if name_or_path in shipped():
        path = REFERENCE_DIR / f"{name_or_path}.json"
    elif not path.suffix == ".json" or not path.is_file():
        raise ConfigError(f"unknown reference {name_or_path!r}; shipped references: "
                          f"{', '.join(shipped())}, or give the path of a reference .json file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"reference {path} cannot be read ({exc}); restore the file (a "
                         "shipped one: reinstall theorybench)") from None
    ref = _parse(data, path)
    snap = path.with_name(f"{path.stem}.predictions.json")
    if snap.is_file():
        try:
            ref.snapshot = json.loads(snap.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            ref.snapshot = None   # recomputed instead; a damaged cache costs only time
    return ref


def _parse(data: Any, path: pathlib.Path) -> Reference:
    def bad(why: str) -> StoreError:
        return StoreError(f"reference {path} is damaged: {why}; restore the file (a shipped "
                          "one: reinstall theorybench)")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise bad(f"not a reference of format {FORMAT}")
    raw = data.get("cells")
    if not isinstance(raw, dict):
        raise bad("no cells")
    cells: dict[str, dict[str, RefCell]] = {}
    for line, by in raw.items():
        if not isinstance(by, dict):
            raise bad(f"line {line!r} is not a table of tasks")
        for task, c in by.items():
            if not (isinstance(c, dict) and c.get("verdict") in VERDICTS
                    and isinstance(c.get("note", ""), str)):
                raise bad(f"cell {line}/{task} has no valid verdict")
            cells.setdefault(line, {})[task] = RefCell(task, line, c["verdict"], c.get("note", ""))
    digest = cells_digest(cells)
    if data.get("digest") != digest:
        raise bad(f"its cells' SHA-256 is {digest[:16]}..., not the recorded "
                  f"{str(data.get('digest'))[:16]}...")
    return Reference(name=str(data.get("name") or path.stem), title=str(data.get("title", "")),
                     protocol=str(data.get("protocol", "")),
                     sources=list(data.get("sources") or []), cells=cells, digest=digest,
                     path=str(path))


def write(path: str | pathlib.Path, ref: Reference) -> None:
    atomic_write(path, json.dumps(ref.to_dict(), indent=1, ensure_ascii=False) + "\n")


# ---- the shipped theories' predictions, cached per code digest ------------------------------

def code_digest() -> str:
    """SHA-256 of every source file a prediction is computed from (the package's
    :data:`PREDICTION_SOURCES` folders and :data:`PREDICTION_FILES`), by relative path."""
    root = pathlib.Path(__file__).resolve().parent.parent
    files = [root / f for f in PREDICTION_FILES]
    for d in PREDICTION_SOURCES:
        files += [p for p in (root / d).rglob("*") if p.is_file() and p.suffix in
                  (".py", ".cr", ".br", ".json") and "__pycache__" not in p.parts]
    h = hashlib.sha256()
    for f in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        h.update(f.relative_to(root).as_posix().encode() + b"\0")
        h.update(_code_bytes(f) + b"\0")
    return h.hexdigest()


def _code_bytes(path: pathlib.Path) -> bytes:
    """A source file as far as predictions depend on it: for Python, its syntax tree
    without docstrings (comments are not in it), so that editing prose does not make a
    snapshot stale; other files as they are."""
    data = path.read_bytes()
    if path.suffix != ".py":
        return data
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return data
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()


SLIM = ("theory", "task", "verdict", "basis", "status", "status_label", "rule", "explanation",
        "lines")


def slim(p: Mapping[str, Any]) -> dict[str, Any]:
    """What the leaderboard reads of a prediction (its evidence left out, so the snapshot
    stays small); the explanation is kept for the disagreements."""
    out = {k: p.get(k) for k in SLIM if k in p}
    out["lines"] = {k: {kk: vv for kk, vv in v.items() if kk != "evidence"}
                    for k, v in (p.get("lines") or {}).items()}
    return out


def snapshot_predictions(ref: Reference, theories: Iterable[str],
                         digest: str | None = None) -> dict[str, list[dict[str, Any]]] | None:
    """theory -> its predictions on the reference's tasks from the snapshot, for the
    theories the snapshot has, while its code digest matches; None when it does not."""
    snap = ref.snapshot
    if not snap or snap.get("code_digest") != (digest or code_digest()):
        return None
    by: dict[str, list[dict[str, Any]]] = {}
    for p in snap.get("predictions") or []:
        by.setdefault(p.get("theory"), []).append(p)
    return {t: by[t] for t in theories if t in by}


def snapshot(ref: Reference, predictions: Iterable[Mapping[str, Any]], context: Mapping[str, Any],
             commit: str = "") -> dict[str, Any]:
    return {"reference": ref.name, "reference_digest": ref.digest, "code_digest": code_digest(),
            "context": dict(context), "commit": commit,
            "predictions": [slim(p) for p in predictions]}


__all__ = ["RefCell", "Reference", "REFERENCE_DIR", "encoding_lines", "cells_from_records",
           "freeze", "from_store", "shipped", "load", "write", "code_digest",
           "snapshot_predictions", "snapshot", "slim", "cells_digest", "file_sha256"]
