"""Tables of the report: prediction matrix, empirical matrix, agreement - in Markdown, CSV,
JSON and LaTeX. A :class:`Table` is a header and rows of strings; the builders decide the
content, the writers only the format."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ..theories.base import Basis, Prediction, Status, Verdict
from ..theories.runner import LEGEND, cell
from .agreement import AgreementRow
from .empirical import EmpiricalCell, Thresholds
from ..experiments.lines import LENGTH_GENERALIZATION

MARK = {"easy": "E", "hard": "H", "unknown": "?", "insufficient": "-", "inconclusive": "I"}
#: Compact status marks for the heatmap (the tables spell the status out); legend below.
STATUS_MARK = {"proven": "P", "verified": "V", "extrapolated": "~", "conditional": "*",
               "cited": "c", "none": ""}
STATUS_MARK_LEGEND = ("P proven, V verified ≤ N (N in the tables), ~ extrapolated, "
                      "* conditional, c cited")


def status_mark(p: Mapping[str, Any]) -> str:
    """The heatmap's mark for a prediction mapping (old stored statuses are mapped)."""
    try:
        return STATUS_MARK[Status(p.get("status", "none")).value]
    except ValueError:
        return "?"


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    records: list[dict[str, Any]]  # the same content as structured data, for JSON
    caption: str = ""              # legend or thresholds, printed with the table

    def markdown(self) -> str:
        out = [f"| {' | '.join(self.header)} |", f"|{'|'.join('---' for _ in self.header)}|"]
        out += [f"| {' | '.join(c.replace('|', chr(92) + '|') for c in r)} |"
                for r in self.rows]  # a '|' inside a cell would split it
        if self.caption:
            out += ["", self.caption]
        return "\n".join(out)

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(self.header)
        w.writerows(self.rows)
        return buf.getvalue()

    def json(self) -> str:
        return json.dumps(self.records, indent=2, default=str)

    def latex(self) -> str:
        esc = lambda s: (s.replace("\\", r"\textbackslash{}").replace("&", r"\&")
                         .replace("%", r"\%").replace("_", r"\_").replace("#", r"\#")
                         .replace("~", r"\textasciitilde{}").replace("*", r"$^*$")
                         .replace("≤", r"$\le$").replace("±", r"$\pm$"))
        lines = [r"\begin{tabular}{" + "l" * len(self.header) + "}", r"\hline",
                 " & ".join(esc(h) for h in self.header) + r" \\", r"\hline"]
        lines += [" & ".join(esc(c) for c in r) + r" \\" for r in self.rows]
        lines += [r"\hline", r"\end{tabular}"]
        if self.caption:
            lines.append("% " + self.caption)
        return "\n".join(lines)

    def render(self, fmt: str) -> str:
        return {"md": self.markdown, "csv": self.csv, "json": self.json,
                "latex": self.latex}[fmt]()


def _as_prediction(p: Mapping[str, Any]) -> Prediction:
    ev = dict(p.get("evidence") or {})
    label = p.get("status_label") or str(p.get("status", ""))
    if "verified_up_to" not in ev and label.startswith("verified ≤ "):
        ev["verified_up_to"] = label.split("≤ ", 1)[1]
    return Prediction(p["theory"], p["task"], Verdict(p["verdict"]),
                      Basis(p.get("basis", "none")), Status(p.get("status", "none")), ev, "",
                      lines=dict(p.get("lines") or {}))


def prediction_cell(p: Mapping[str, Any]) -> str:
    """The same cell text as ``theorybench predict`` (e.g. ``Hard (lb, verified ≤ 12)``)."""
    return cell(_as_prediction(p))


def prediction_table(predictions: Sequence[Mapping[str, Any]], theories: Sequence[str],
                     tasks: Sequence[str]) -> Table:
    cell = {(p["theory"], p["task"]): p for p in predictions}
    rows, records = [], []
    for task in tasks:
        row = [task]
        for th in theories:
            p = cell.get((th, task))
            row.append(prediction_cell(p) if p else "")
        rows.append(row)
    for p in predictions:
        records.append({**{k: p[k] for k in ("theory", "task", "verdict", "basis", "status")},
                        "status_label": _as_prediction(p).status_label,
                        **({"lines": {k: v.get("verdict") for k, v in p["lines"].items()}}
                           if p.get("lines") else {})})
    return Table("Predictions", ["task", *theories], rows, records, LEGEND)


def empirical_table(empirical: Mapping[str, Mapping[str, EmpiricalCell]],
                    tasks: Sequence[str], thresholds: Thresholds) -> Table:
    lines = list(empirical)
    rows, records = [], []
    for task in tasks:
        row = [task]
        for line in lines:
            c = empirical[line].get(task)
            row.append(_empirical_cell_text(c))
            if c is not None:
                records.append({"task": task, "line": line, "verdict": c.verdict, "note": c.note,
                                "thresholds": thresholds.describe()})
        rows.append(row)
    caption = (f"Thresholds: {thresholds.describe()}. In-distribution cells list "
               f"n:mean accuracy over seeds (the seeds' range; the 95 % Wilson interval of "
               f"the pooled test examples); length cells the best configuration's lowest bin "
               f"the same way; llm cells n:accuracy±standard error (lm-eval's)/chance, "
               f"* above chance.")
    return Table("Empirical verdicts", ["task", *lines], rows, records, caption)


def _empirical_cell_text(c: EmpiricalCell | None) -> str:
    if c is None:
        return "no runs"
    mark = MARK[c.verdict]
    if c.line == LENGTH_GENERALIZATION:
        if not c.best_config:
            return mark
        bins = c.by_config[c.best_config]
        low = min(bins, key=lambda b: bins[b].mean)
        return (f"{mark} (best {c.best_config}, lowest bin {low}: "
                f"{bins[low].interval_text()})")
    if c.llm_by_n:  # llm: n:accuracy±stderr/chance, * where above chance (llm_line)
        accs = ", ".join(f"{n}:{s['accuracy']:.2f}{_se(s.get('accuracy_stderr'))}"
                         f"/{s['chance']:.2f}"
                         f"{'*' if s['above_chance'] else ''}"
                         for n, s in sorted(c.llm_by_n.items()))
        return f"{mark} [{accs}]"
    if c.by_n:
        accs = ", ".join(f"{n}:{a.interval_text()}" for n, a in sorted(c.by_n.items()))
        return f"{mark} [{accs}]"
    return mark


def _se(x: float | None) -> str:
    return "" if x is None else f"±{x:.2f}"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def _interval(iv) -> str:
    return "n/a" if iv is None else f"[{iv[0]:.2f}, {iv[1]:.2f}]"


def agreement_table(rows: Iterable[AgreementRow],
                    trivial: Iterable[AgreementRow] = ()) -> Table:
    """The theories' rows, then the trivial predictors' rows of each line (marked)."""
    rows, trivial = list(rows), list(trivial)
    header = ["theory", "line", "compared", "accuracy", "95% interval",
              "majority class, same cells", "p vs majority", "precision Easy",
              "precision Hard", "unknown excl.", "insufficient excl.", "inconclusive excl.",
              "disagreements"]
    out, records = [], []
    for r in rows + trivial:
        baseline = r in trivial
        p = r.p_vs_majority
        out.append([f"baseline: {r.theory}" if baseline else r.theory, r.line,
                    str(r.compared), _pct(r.accuracy), _interval(r.accuracy_interval),
                    "-" if baseline else _pct(r.majority_baseline),
                    "-" if p is None else f"{p:.3f}",
                    f"{_pct(r.precision_easy)} ({r.easy_correct}/{r.easy_predicted})",
                    f"{_pct(r.precision_hard)} ({r.hard_correct}/{r.hard_predicted})",
                    str(r.excluded_unknown), str(r.excluded_insufficient),
                    str(r.excluded_inconclusive),
                    ", ".join(d.task for d in r.disagreements) or "-"])
        records.append(dict(r.to_dict(), baseline=baseline))
    caption = ("Precision Easy = of the tasks the theory calls Easy, the fraction observed "
               "Easy (correct/predicted); likewise Hard. Unknown predictions and cells with "
               "too few runs are excluded and counted. The interval is the 95% Wilson "
               "interval over the compared tasks. 'majority class, same cells' is the "
               "accuracy of always saying the majority observed verdict on the theory's own "
               "compared cells; 'p vs majority' the exact one-sided McNemar p-value that the "
               "theory does better. The baseline rows are the trivial predictors over every "
               "task with an empirical verdict.")
    behind = [f"{r.theory} ({r.line})" for r in rows if r.compared and not r.beats_majority]
    if behind:
        caption += (" Not better than the majority class at level 0.05: "
                    + ", ".join(behind) + ".")
    lemmas = sum(r.excluded_missing_lemma for r in rows)
    if lemmas:
        caption += (f" Left out: {lemmas} cell-line pairs whose prediction rests on a missing "
                    f"lemma of its own proof (--include-missing-lemmas compares them).")
    floor = next((r.min_status for r in rows if r.min_status), None)
    if floor:
        caption += (f" Only cells with status {floor} or stronger are compared "
                    f"(--min-status); excluded below it: "
                    f"{sum(r.excluded_status for r in rows)} cell-line pairs.")
    return Table("Agreement", header, out, records, caption)
