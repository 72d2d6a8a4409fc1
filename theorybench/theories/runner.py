"""Running theories over task families: the prediction matrix and its text forms.

``predict_matrix`` runs every selected theory on every selected task (rules run by
``Theory.predict``; nothing is looked up) with a tqdm progress bar on a terminal. A task
is a :class:`~theorybench.tasks.TaskRef` (``khop:k=2``); each theory gets that value and
``Context.universe``, the matrix's rows, for the cells its rules may consult. After a
task's cells, the inclusions between the theories' classes (:mod:`.lattice`) decide its
Unknown cells from the decided ones (Easy up, Hard down); ``predict_one`` computes the
cells an inclusion consults too, so a cell is the same either way, and a contradiction
between two columns is kept in both cells and marked ``[lattice conflict]``.
``matrix_markdown`` / ``matrix_csv`` / ``matrix_json`` format the result (rows = tasks,
columns = theories), and ``explain_text`` renders one prediction for a human: the rules
tried, every table of values by n in its evidence, the theorem and its source.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import sys
from typing import Any, Iterable, Sequence

from .. import tasks
from ..parallel import fork_map
from ..errors import TaskFileError, TaskParameterError, TheoryError
from ..tasks import TaskRef
from .base import Basis, Context, Prediction, Status, Theory, Verdict, status_label, to_jsonable
from . import lattice, registry
from .universe import MATRIX_VARIANTS, default_tasks

BASIS_MARK = {Basis.CONSTRUCTION: "con", Basis.LOWER_BOUND: "lb", Basis.REDUCTION: "red",
              Basis.THEOREM: "thm", Basis.NONE: ""}
LEGEND = ("Cells: verdict (basis, status). Basis: con = verified construction, "
          "lb = computed lower-bound quantity, red = checked reduction, thm = cited theorem "
          "(its premise checked or not, see the status) or an inclusion between theories. Status: proven = holds for all n "
          "(a checked proof object, or a theorem cited with its number whose premise about "
          "this task was checked); verified ≤ N = a fixed object (or a reduction's map) "
          "checked up to n = N, the all-n verdict extrapolates; extrapolated = from a growth "
          "fit over the measured n; conditional = on a named open separation or assumption; "
          "cited = a theorem applied without a checked premise or without its number. [tokpos] / [lenpred] = the cell relies on the B-RASP[pos] "
          "extension tokpos / binary length predicates. [lattice conflict] = the cell "
          "contradicts another column's cell through an inclusion between the theories "
          "(`theorybench explain` names both). Unknown = no rule could derive a "
          "verdict (`theorybench explain THEORY TASK` says why).")


def resolve_theories(names: Sequence[str] | None) -> list[str]:
    """Registered theory names in matrix order, or the given ones (validated); a theory
    file (``./mine.py``) among them is loaded and stands for the theories it defines."""
    if names:
        names = registry.resolve_names(names)
    known = list(registry.theories())
    if not names:
        return known
    bad = [n for n in names if n not in known]
    if bad:
        raise TheoryError(f"unknown theory {', '.join(map(repr, bad))}; known theories: "
                          f"{', '.join(known) or '(none)'}")
    return list(dict.fromkeys(names))


def resolve_families(names: Sequence[str] | None) -> list[TaskRef]:
    """The default rows (:func:`default_tasks`), or the given tasks in the CLI's syntax
    (``dyck:k=1``; read by ``tasks.parse_refs``), each once, as :class:`TaskRef` values.

    A task that none of the sizes the theories analyse accepts is refused here, with the
    sizes it does accept, rather than turned into a row of failed rules."""
    if not names:
        return default_tasks()
    out = list(dict.fromkeys(tasks.parse_refs(list(names))))
    for ref in out:
        fam = ref.variant()
        if not any(fam.accepts(n=n) for n in fam.analysis_ns):
            valid = fam.valid_ns()
            hint = (f"; it is defined from n = {valid[0]} on" if valid else "")
            raise TaskParameterError(
                f"task {ref}: none of the sizes the theories analyse (n = "
                f"{', '.join(map(str, fam.analysis_ns))}) is valid for it{hint}; choose "
                f"parameters that fit these sizes")
    return out


def _context(ctx: Context | None) -> Context:
    """``ctx`` with what a prediction run shares: the matrix's rows as the universe a
    rule may consult, and one cache of own predictions for the run (closures.py)."""
    ctx = ctx or Context()
    if ctx.universe is None:
        ctx = dataclasses.replace(ctx, universe=tuple(default_tasks()))
    if ctx.cache is None:
        ctx = dataclasses.replace(ctx, cache={})
    return ctx


def predict_one(theory: str, family: "TaskRef | str", ctx: Context | None = None) -> Prediction:
    """The cell of ``theory`` on ``family``, the same as in :func:`predict_matrix`: the
    cells of the columns joined to it by an inclusion (:mod:`.lattice`) are computed too
    (through ``ctx.cache``) and the inclusions applied."""
    obj = registry.theory(theory)          # refuses an unknown name, with the known ones
    theory = obj.name                      # a theory file's path -> its theory's name
    fam = resolve_families([family])[0]
    ctx = _context(ctx)
    return _row(fam, [theory], ctx, {theory: obj}, registry.theories(),
                own_errors=theory)[theory]


def _cell(name: str, fam: TaskRef, ctx: Context, objs: dict[str, Theory], classes,
          raising: bool = False) -> Prediction:
    """A theory's cell before the inclusions (its rules and the reduction catalogue),
    computed once per run (``ctx.cache``)."""
    key = ("cell", name, fam)
    if ctx.cache is not None and key in ctx.cache:
        return ctx.cache[key]
    obj = objs[name] if name in objs else objs.setdefault(name, classes[name]())
    out = obj.predict(fam, ctx) if raising else _safe_predict(obj, fam, ctx)
    if ctx.cache is not None:
        ctx.cache[key] = out
    return out


def _row(fam: TaskRef, names: Sequence[str], ctx: Context, objs: dict[str, Theory], classes,
         own_errors: str | None = None, on_cell=None) -> dict[str, Prediction]:
    """The cells of ``names`` on one task with the inclusions between theories applied;
    the other columns an inclusion consults are computed as well (not returned)."""
    wanted = [n for n in lattice.consulted(names) if n in classes and n not in names]
    row: dict[str, Prediction] = {}
    for name in list(names) + sorted(wanted, key=list(classes).index):
        row[name] = _cell(name, fam, ctx, objs, classes, raising=(name == own_errors))
        if on_cell is not None and name in names:
            on_cell(name)
    done = lattice.apply(row, order=list(classes))
    return {n: done[n] for n in names}


def predict_matrix(theories: Sequence[str] | None = None, families: Sequence[str] | None = None,
                   ctx: Context | None = None, progress: bool = True,
                   workers: int | None = 1) -> list[Prediction]:
    """Every theory on every family; predictions ordered by family, then theory. The
    inclusions between theories are applied to each task's row (:mod:`.lattice`), using
    the cells of the columns they join even when those are not selected.

    ``workers`` > 1 computes the rows in that many forked processes
    (:func:`~theorybench.parallel.fork_map`; None: one per core, at most 4). A row is a
    pure function of its task and the context, so the verdicts, bases, statuses and rules
    are the same; a cell another row consults is computed once per process instead of
    once per run, and the text of such a consulted cell inside the evidence may differ.
    The progress bar goes to stderr and only when stderr is a terminal.
    """
    names = resolve_theories(theories)
    fams = resolve_families(families)
    ctx = _context(ctx)
    classes = registry.theories()  # the listing resolve_theories checked the names against
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(fams) * len(names), desc="predict", unit="cell", file=sys.stderr,
                   leave=False)
    objs: dict[str, Theory] = {n: classes[n]() for n in names}

    def row(fam: TaskRef) -> dict[str, Prediction]:
        return _row(fam, names, ctx, objs, classes)

    def done(i: int, _row_value) -> None:
        if bar is not None:
            bar.update(len(names))
            bar.set_postfix_str(str(fams[i]))

    try:
        rows = fork_map(row, fams, workers, on_result=done)
    finally:
        if bar is not None:
            bar.close()
    return [r[name] for r in rows for name in names]


def _safe_predict(theory: Theory, family: TaskRef, ctx: Context) -> Prediction:
    """``theory.predict``; a theory that crashes outside its rules becomes an Unknown cell
    that says so (one broken theory must not hide the rest of the matrix)."""
    try:
        return theory.predict(family, ctx)
    except (KeyboardInterrupt, MemoryError, TaskFileError):
        raise  # TaskFileError: the task file is broken, not the theory
    except Exception as exc:
        msg = f"theory failed: {type(exc).__name__}: {exc}"
        return Prediction(theory.name, family, Verdict.UNKNOWN, Basis.NONE, Status.NONE,
                          {"error": msg}, msg, tried=[])


# ---- formats -------------------------------------------------------------------------

def cell(p: Prediction) -> str:
    """``Hard (lb, verified ≤ 12)``; ``Unknown`` when no rule fired. Cells that rely on a
    B-RASP[pos] extension carry its mark (``evidence["extensions"]``)."""
    word = p.verdict.value.capitalize()
    if p.verdict == Verdict.UNKNOWN:
        return word + line_marks(p)
    marks = "".join(f" [{e}]" for e in (p.evidence or {}).get("extensions", ()))
    if (p.evidence or {}).get("lattice_conflict"):
        marks += " [lattice conflict]"
    return f"{word} ({BASIS_MARK[p.basis]}, {status_label(p.status, p.evidence)}){marks}" \
        + line_marks(p)


def line_marks(p: Prediction) -> str:
    """`` · nope: Easy, rope: Hard`` for a cell whose theory predicts per experiment line
    (``Prediction.lines``), lines whose verdict is the cell's left out; ``""`` otherwise."""
    parts = []
    for key, entry in sorted((p.lines or {}).items()):
        v = str(entry.get("verdict", "unknown"))
        if key.endswith(":*") or (":" not in key and v == "unknown"):
            continue   # "no verdict on the other lines": explain shows it, the table need not
        if v != p.verdict.value:
            parts.append(f"{key.split(':', 1)[-1] if ':' in key else key}: {v.capitalize()}")
    return f" · {', '.join(parts)}" if parts else ""


def _grid(preds: Iterable[Prediction]):
    preds = list(preds)
    theories = list(dict.fromkeys(p.theory for p in preds))
    fams = list(dict.fromkeys(p.task for p in preds))
    at = {(p.task, p.theory): p for p in preds}
    return theories, fams, at


def matrix_markdown(preds: Iterable[Prediction]) -> str:
    theories, fams, at = _grid(preds)
    lines = ["| task | " + " | ".join(theories) + " |",
             "|---|" + "---|" * len(theories)]
    for f in fams:
        cells = [cell(at[(f, t)]) if (f, t) in at else "" for t in theories]
        lines.append(f"| {f} | " + " | ".join(cells) + " |")
    counts = {v: sum(1 for p in at.values() if p.verdict == v) for v in Verdict}
    lines += ["", LEGEND, "",
              f"{len(at)} cells: {counts[Verdict.EASY]} easy, {counts[Verdict.HARD]} hard, "
              f"{counts[Verdict.UNKNOWN]} unknown."]
    return "\n".join(lines)


def matrix_csv(preds: Iterable[Prediction]) -> str:
    theories, fams, at = _grid(preds)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["task", *theories])
    for f in fams:
        w.writerow([f, *(cell(at[(f, t)]) if (f, t) in at else "" for t in theories)])
    return buf.getvalue()


def matrix_json(preds: Iterable[Prediction]) -> list[dict[str, Any]]:
    """A list of {"theory","task","verdict","basis","status","evidence","explanation",...}."""
    return [p.to_dict() for p in preds]


# ---- explain -------------------------------------------------------------------------

def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        items = [_fmt(x) for x in v[:12]]
        return "[" + ", ".join(items) + (", ..." if len(v) > 12 else "") + "]"
    if isinstance(v, dict):
        items = [f"{k}: {_fmt(x)}" for k, x in list(v.items())[:8]]
        return "{" + ", ".join(items) + (", ..." if len(v) > 8 else "") + "}"
    return str(v)


def _is_table(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(isinstance(r, dict) for r in v)


def _is_keyed_table(v: Any) -> bool:
    return (isinstance(v, dict) and len(v) > 1
            and all(isinstance(r, dict) and r for r in v.values())
            and all(not isinstance(x, (dict, list)) for r in v.values() for x in r.values()))


def _table(rows: list[dict[str, Any]], indent: str) -> list[str]:
    cols: list[str] = []
    for r in rows:
        for k, x in r.items():
            if k not in cols and not isinstance(x, (dict, list)):
                cols.append(k)
    cells = [[_fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
    out = [indent + "  ".join(c.ljust(w) for c, w in zip(cols, widths)),
           indent + "  ".join("-" * w for w in widths)]
    out += [indent + "  ".join(x.ljust(w) for x, w in zip(row, widths)) for row in cells]
    return out


def _is_fit(v: Any) -> bool:
    """A growth fit (:meth:`GrowthFit.to_dict`): rendered as its formula plus a small table."""
    return isinstance(v, dict) and {"kind", "formula", "candidates"} <= set(v)


def _fit_lines(key: str, fit: dict[str, Any], indent: str) -> list[str]:
    rmse = fit.get("rel_rmse")
    head = f"{indent}{key}: {fit['kind']}, {fit['formula']}"
    if isinstance(rmse, (int, float)):
        head += f" (relative RMSE {rmse:.3g})"
    rows = [{"candidate": name, "formula": c.get("formula", ""), "rel_rmse": c.get("rel_rmse", "")}
            for name, c in (fit.get("candidates") or {}).items() if isinstance(c, dict)]
    return [head] + (_table(rows, indent + "  ") if rows else [])


def _theorem_lines(key: str, thm: Any) -> list[str]:
    """A theorem given as text, or as a dict with name/statement/source/condition."""
    if not isinstance(thm, dict):
        return ["", f"{key.capitalize()}: {thm}"]
    lines = ["", f"{key.capitalize()}: {thm.get('name', '')}".rstrip()]
    for field in ("statement", "source", "condition"):
        if thm.get(field):
            lines.append(f"  {field}: {thm[field]}")
    lines += [f"  {k}: {_fmt(v)}" for k, v in thm.items()
              if k not in ("name", "statement", "source", "condition") and v not in ("", None)]
    return lines


def _render(ev: dict[str, Any], indent: str = "  ", depth: int = 0) -> list[str]:
    lines: list[str] = []
    scalars = {k: v for k, v in ev.items() if not isinstance(v, dict) and not _is_table(v)}
    for k, v in scalars.items():
        lines.append(f"{indent}{k}: {_fmt(v)}")
    for k, v in ev.items():
        if _is_fit(v):
            lines += _fit_lines(k, v, indent)
        elif _is_table(v):
            lines.append(f"{indent}{k}:")
            lines += _table(v, indent + "  ")
        elif _is_keyed_table(v):  # {n: {depth: .., size: ..}, ...}
            lines.append(f"{indent}{k}:")
            lines += _table([{"key": key, **row} for key, row in v.items()], indent + "  ")
        elif isinstance(v, dict) and v:
            if depth >= 2:
                lines.append(f"{indent}{k}: {_fmt(v)}")
            else:
                lines.append(f"{indent}{k}:")
                lines += _render(v, indent + "  ", depth + 1)
    return lines


def explain_text(p: Prediction, theory: Theory | None = None) -> str:
    """One prediction for a human: verdict, rules tried, evidence tables, sources."""
    ev = to_jsonable(p.evidence)
    head = cell(p) if p.verdict != Verdict.UNKNOWN else "Unknown (no rule fired)"
    lines = [f"{p.theory} on {p.task}: {head}"]
    if theory is not None and theory.title:
        lines.append(f"theory: {theory.title}")
    if p.rule:
        lines.append(f"rule: {p.rule} [{p.basis.value}, {p.status_label}]")
    lines += ["", "Rules tried (in order):"]
    for i, t in enumerate(p.tried, 1):
        lines.append(f"  {i}. [{t['basis']}] {t['rule']}: {t['outcome']}")
    for key in ("theorem", "source", "criterion"):
        if key in ev:
            lines += _theorem_lines(key, ev[key])
    lines += ["", "Explanation:", f"  {p.explanation}"]
    if p.lines:
        lines += ["", "Per experiment line (a line not listed takes the cell's verdict):"]
        for key, entry in sorted(p.lines.items()):
            label = entry.get("status_label") or ""
            lines.append(f"  {key}: {str(entry.get('verdict')).capitalize()}"
                         f"{f' ({label})' if label else ''}: {entry.get('explanation', '')}")
    lines += ["", "Evidence:"]
    lines += _render({k: v for k, v in ev.items() if k not in ("theorem", "source", "criterion")})
    if theory is not None:
        if theory.assumptions:
            lines += ["", "Assumptions of the theory:"]
            lines += [f"  - {a}" for a in theory.assumptions]
        if theory.sources:
            lines += ["", "Sources:"]
            lines += [f"  - {s}" for s in theory.sources]
    return "\n".join(lines)


__all__ = ["CHECK_TASKS", "check_file", "predict_matrix", "predict_one", "resolve_theories", "resolve_families",
           "default_tasks", "MATRIX_VARIANTS", "cell",
           "matrix_markdown", "matrix_csv", "matrix_json", "explain_text", "LEGEND"]


# ---- theory files ------------------------------------------------------------------

#: The tasks ``theorybench theory check`` runs a file on by default: small and quick,
#: of several kinds (a language, a threshold, retrieval, a sequence output).
CHECK_TASKS = ("parity", "majority", "dyck:k=1", "index", "khop:k=2")


def check_file(path: str | os.PathLike, families=CHECK_TASKS,
               ctx: Context | None = None) -> dict[str, Any]:
    """Load a theory file (its mistakes raise :class:`TheoryError`), register it, and run
    each of its theories on ``families``. Returns the names, the cells and the problems:
    a hook or rule that raised or returned the wrong type (naming the file and line) and a
    status claim the evidence does not back."""
    names = registry.resolve_names([str(path)])
    cells, problems, warnings = [], [], []
    for name in names:
        for fam in families:
            p = predict_one(name, fam, ctx or Context(max_n=8))
            cells.append(p)
            for t in p.tried:
                err = ((p.evidence.get("other_rules") or {}).get(t["rule"]) or {}).get("error")
                if err or t["outcome"].startswith("rule failed"):
                    problems.append(f"{name} on {fam}: {t['outcome']}")
            for key, entry in sorted(p.lines.items()):
                if (entry.get("evidence") or {}).get("error"):
                    problems.append(f"{name} on {fam}, line {key}: {entry['explanation']}")
            if p.evidence.get("status_claimed"):
                warnings.append(f"{name} on {fam}: {p.evidence['why_cited']}")
    return {"names": names, "cells": cells, "problems": problems, "warnings": warnings}
