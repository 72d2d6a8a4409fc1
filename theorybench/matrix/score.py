"""The theory leaderboard: every theory - shipped, or from a theory file - scored against
one set of empirical outcomes, beside the trivial predictors.

Per theory and experiment line (the pooled lines and one per positional encoding of the
length line, :mod:`.reference`): the compared cells (the theory decided, the line decided),
accuracy with its 95 % Wilson interval over those cells, balanced accuracy (the mean of the
recall on the observed-Easy and the observed-Hard cells, so a constant predictor scores
0.5), the precision of Easy and of Hard predictions, the majority class's accuracy on the
same cells with the exact one-sided test that the theory beats it (McNemar's exact test:
the exact permutation test of the paired outcomes, flipping which of the two predictors is
right on each cell where they differ), and the disagreements with their likely failure mode
(:func:`.agreement.likely_cause`). Baselines (always Easy, always Hard, majority class)
are scored on every decided cell of the line. Nothing is asserted: every figure is computed
from the predictions and the reference here.
"""

from __future__ import annotations

import csv
import io
import json
import pathlib
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..errors import TheorybenchError
from ..experiments.reproduce import resolve_task
from ..registry import BUILTIN
from ..tasks import TaskRef
from ..theories import registry as theory_registry
from ..theories.base import Context
from ..theories.runner import predict_matrix, resolve_theories
from .agreement import BASELINES, AgreementRow, agreement, baselines
from .cells import EASY, HARD
from ..safe_io import atomic_write
from ..tasks.registry import load_task_file
from .reference import Reference, snapshot, snapshot_predictions


@dataclass
class Entry:
    """One row of the leaderboard: a predictor on one line."""

    predictor: str
    kind: str              # "theory" or "baseline"
    origin: str            # "builtin", a theory file's path, or "baseline"
    line: str
    compared: int
    agree: int
    accuracy: float | None
    interval: tuple[float, float] | None
    balanced_accuracy: float | None
    precision_easy: float | None
    precision_hard: float | None
    majority_baseline: float | None
    p_vs_majority: float | None
    unknown: int            # the theory's Unknown cells on the line's decided tasks
    decided_tasks: int      # the line's tasks with an Easy or Hard observed verdict
    disagreements: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def balanced(row: AgreementRow) -> float | None:
    """Mean recall over the observed classes present among the compared cells."""
    recalls = []
    for cls in (EASY, HARD):
        seen = [p == o for _, p, o in row.compared_cells if o == cls]
        if seen:
            recalls.append(sum(seen) / len(seen))
    return sum(recalls) / len(recalls) if recalls else None


def _entry(row: AgreementRow, kind: str, origin: str, decided: int) -> Entry:
    return Entry(row.theory, kind, origin, row.line, row.compared, row.agree, row.accuracy,
                 tuple(row.accuracy_interval) if row.accuracy_interval else None,
                 balanced(row), row.precision_easy, row.precision_hard, row.majority_baseline,
                 row.p_vs_majority, row.excluded_unknown, decided,
                 [{"task": d.task, "predicted": d.predicted, "observed": d.observed,
                   "cause": d.cause} for d in row.disagreements])


def leaderboard(predictions: Sequence[Mapping[str, Any]],
                ref: "Reference | Mapping[str, Mapping[str, Any]]",
                origins: Mapping[str, str] | None = None,
                assumptions: Mapping[str, Iterable[str]] | None = None) -> list[Entry]:
    """Every predictor on every line of ``ref`` (a reference, or its cells: line -> task ->
    a cell with ``verdict``): per line, the theories by accuracy (then compared cells, then
    name), then the baselines."""
    origins = origins or {}
    tasks = {p["task"] for p in predictions}
    all_cells = ref.cells if isinstance(ref, Reference) else ref
    cells = {line: {t: c for t, c in by.items() if t in tasks} for line, by in all_cells.items()}
    decided = {line: sum(c.verdict in (EASY, HARD) for c in by.values())
               for line, by in cells.items()}
    rows = agreement(predictions, cells, assumptions)
    out: list[Entry] = []
    for line in sorted(cells, key=_line_order):
        mine = [_entry(r, "theory", origins.get(r.theory, BUILTIN), decided[line])
                for r in rows if r.line == line]
        mine.sort(key=lambda e: (-(e.accuracy if e.accuracy is not None else -1),
                                 -e.compared, e.predictor))
        out += mine
        out += [_entry(r, "baseline", "baseline", decided[line])
                for r in baselines(predictions, {line: cells[line]})]
    return out


def _line_order(line: str) -> tuple[int, str]:
    order = ("in_distribution", "length_generalization", "llm")
    base = line.split(":", 1)[0]
    return (order.index(base) if base in order else len(order), line)


# ---- the predictions scored ----------------------------------------------------------------

@dataclass
class Scored:
    entries: list[Entry]
    reference: Reference
    theories: list[str]
    origins: dict[str, str]
    predictions: list[dict[str, Any]]
    #: where each theory's predictions came from ("snapshot of code <digest>" / "computed")
    provenance: dict[str, str]
    skipped_tasks: list[str]


def usable_tasks(ref: Reference) -> tuple[dict[str, str], list[str]]:
    """The reference's tasks this installation can build, as reference name -> the task
    to predict (``@tomita3``, a shipped language of the reproduction tables, loads its
    task file), and the others (a task file of someone else's store not loaded here)."""
    ok: dict[str, str] = {}
    skipped: list[str] = []
    for t in ref.tasks():
        try:
            if t.startswith("@"):
                family, params = resolve_task(t)
                ok[t] = str(TaskRef(family, dict(params)))
            elif t.endswith(".py") and ref.path:
                # a task file shipped beside the reference (discover's found tasks)
                path = pathlib.Path(ref.path).parent / t
                ok[t] = load_task_file(path).name
            else:
                ok[t] = str(TaskRef.parse(t))
        except TheorybenchError:
            skipped.append(t)
    return ok, skipped


def _predict(names: Sequence[str], tasks: Mapping[str, str], ctx: Context, progress: bool,
             workers: int | None) -> list[dict[str, Any]]:
    """``names`` on the tasks, each prediction filed under the reference's task name."""
    back = {v: k for k, v in tasks.items()}
    out = []
    for p in predict_matrix(list(names), list(tasks.values()), ctx, progress=progress,
                            workers=workers):
        d = p.to_dict()
        d["task"] = back.get(d["task"], d["task"])
        out.append(d)
    return out


def score(ref: Reference, theories: Sequence[str] | None = None, ctx: Context | None = None,
          recompute: bool = False, progress: bool = True,
          workers: int | None = 1) -> Scored:
    """Score ``theories`` (names or theory files; default every registered theory) on
    ``ref``. The shipped theories come from the reference's snapshot while its code digest
    matches the installed code (unless ``recompute``); everything else is computed now."""
    names = resolve_theories(list(theories) if theories else None)
    origins = {n: theory_registry.THEORY_REGISTRY.origin(n) for n in names}
    tasks, skipped = usable_tasks(ref)
    ctx = ctx or Context()
    cached = None if recompute else snapshot_predictions(
        ref, [n for n in names if origins[n] == BUILTIN])
    if cached is not None and (ref.snapshot or {}).get("context") != {"max_n": ctx.max_n,
                                                                      "seed": ctx.seed}:
        cached = None   # the snapshot was computed under other options
    cached = cached or {}
    provenance = {n: (f"snapshot (code {ref.snapshot['code_digest'][:12]}, commit "
                      f"{ref.snapshot.get('commit', '?')[:10]})" if n in cached else "computed")
                  for n in names}
    todo = [n for n in names if n not in cached]
    preds: list[dict[str, Any]] = [p for n in names if n in cached for p in cached[n]
                                   if p["task"] in tasks]
    if todo and tasks:
        preds += _predict(todo, tasks, ctx, progress, workers)
    infos = theory_registry.theories()
    assumptions = {n: tuple(getattr(infos[n], "assumptions", ())) for n in names}
    entries = leaderboard(preds, ref, origins, assumptions)
    return Scored(entries, ref, names, origins, preds, provenance, skipped)


def refresh_snapshot(ref: Reference, ctx: Context | None = None, progress: bool = True,
                     workers: int | None = 1) -> str:
    """Compute every shipped theory on the reference's tasks and write the reference's
    prediction snapshot beside it (a maintainer's step after changing a theory: the
    snapshot is used only while its code digest matches). Returns the path written."""
    import pathlib
    import subprocess

    ctx = ctx or Context()
    tasks, _ = usable_tasks(ref)
    names = theory_registry.shipped_theories()
    preds = _predict(names, tasks, ctx, progress, workers)
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=pathlib.Path(__file__).parent, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    path = pathlib.Path(ref.path).with_name(f"{pathlib.Path(ref.path).stem}.predictions.json")
    atomic_write(path, json.dumps(snapshot(ref, preds, {"max_n": ctx.max_n, "seed": ctx.seed},
                                           commit), indent=0, ensure_ascii=False) + "\n")
    return str(path)


# ---- formats --------------------------------------------------------------------------------

def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def _interval(e: Entry) -> str:
    return "" if e.interval is None else f"[{100 * e.interval[0]:.0f}, {100 * e.interval[1]:.0f}]"


def _p(x: float | None) -> str:
    return "—" if x is None else (f"{x:.3f}" if x >= 0.001 else "<0.001")


HEADER = ("predictor", "compared", "accuracy (95% CI)", "balanced", "prec. Easy", "prec. Hard",
          "majority on same", "p vs majority", "Unknown")


def _row(e: Entry) -> list[str]:
    name = e.predictor + ("" if e.origin in (BUILTIN, "baseline") else f" ({e.origin})")
    return [f"_{name}_" if e.kind == "baseline" else name, f"{e.compared}/{e.decided_tasks}",
            f"{_pct(e.accuracy)} {_interval(e)}".strip(), _pct(e.balanced_accuracy),
            _pct(e.precision_easy), _pct(e.precision_hard), _pct(e.majority_baseline),
            _p(e.p_vs_majority), str(e.unknown) if e.kind == "theory" else ""]


def markdown(s: Scored, disagreements: bool = True) -> str:
    ref = s.reference
    out = [f"# Theory leaderboard: reference {ref.name}", "",
           f"{ref.title}. Reference digest sha256:{ref.digest[:16]}. {ref.protocol}", ""]
    for src in ref.sources:
        out.append("- source: " + "; ".join(f"{k} {v}" for k, v in src.items()))
    out += ["", "compared = cells where the predictor and the line both decide / the line's "
            "decided tasks; accuracy with its 95 % Wilson interval over the compared cells; "
            "balanced = mean recall over observed Easy and Hard; majority on same = the "
            "majority class's accuracy on the same cells, p vs majority = exact one-sided "
            "McNemar test that the theory beats it; Unknown = the theory's Unknown cells on "
            "the line's decided tasks. Baselines in italics.", ""]
    for line in dict.fromkeys(e.line for e in s.entries):
        out += [f"## {line}", "", "| " + " | ".join(HEADER) + " |",
                "|" + "---|" * len(HEADER)]
        out += ["| " + " | ".join(_row(e)) + " |" for e in s.entries if e.line == line]
        out.append("")
    if disagreements:
        out += ["## Disagreements", ""]
        for e in s.entries:
            if e.kind == "theory" and e.disagreements:
                items = "; ".join(f"{d['task']} (predicted {d['predicted']}, observed "
                                  f"{d['observed']})" for d in e.disagreements)
                out.append(f"- {e.predictor} on {e.line}: {items}. Likely: "
                           f"{e.disagreements[0]['cause']}")
        out.append("")
    out.append("Predictions: " + "; ".join(f"{n}: {how}" for n, how in s.provenance.items()))
    if s.skipped_tasks:
        out.append(f"Tasks of the reference not defined here (left out): "
                   f"{', '.join(s.skipped_tasks)}")
    return "\n".join(out) + "\n"


def table_rows(entries: Sequence[Entry]) -> tuple[list[str], list[list[str]]]:
    """The leaderboard as one table (a line column first), for the report."""
    return ["line", *HEADER], [[e.line, *_row(e)] for e in entries]


def to_csv(s: Scored) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    keys = ("line", "predictor", "kind", "origin", "compared", "agree", "decided_tasks",
            "accuracy", "interval", "balanced_accuracy", "precision_easy", "precision_hard",
            "majority_baseline", "p_vs_majority", "unknown")
    w.writerow(keys)
    for e in s.entries:
        d = e.to_dict()
        d["interval"] = "" if e.interval is None else f"{e.interval[0]:.4f}-{e.interval[1]:.4f}"
        w.writerow(["" if d[k] is None else d[k] for k in keys])
    return buf.getvalue()


def to_json(s: Scored) -> dict[str, Any]:
    ref = s.reference
    return {"reference": {"name": ref.name, "title": ref.title, "digest": ref.digest,
                          "protocol": ref.protocol, "sources": ref.sources},
            "theories": s.theories, "origins": s.origins, "provenance": s.provenance,
            "skipped_tasks": s.skipped_tasks, "entries": [e.to_dict() for e in s.entries]}


__all__ = ["Entry", "Scored", "leaderboard", "score", "balanced", "markdown", "to_csv",
           "to_json", "BASELINES", "usable_tasks"]
