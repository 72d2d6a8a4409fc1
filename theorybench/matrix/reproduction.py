"""A reproduction's table: the published figure per bin beside ours, and whether the two
read the same way.

Reading (one rule for the paper's figures and ours, the protocol's): a row *generalizes*
when its accuracy reaches ``length_accuracy`` in every test bin beyond the training
lengths; otherwise it does not. Ours is the mean over the seeds that fitted the training
lengths (training-length accuracy >= ``fit_accuracy``, Huang et al. 2025's "mean over
fitted seeds"); a row with no fitted seed does not generalize (the protocol's rule), and
the table says that this is why. Intervals: the range over fitted seeds, and a 95 %
Wilson interval over the pooled test strings of the fitted seeds.

A row whose paper gives words instead of figures (``reading``) is compared with those
words. Agreement is counted over the rows that ran and have a published reading; every
disagreement is listed with what the figures show.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from ..errors import ConfigError
from ..experiments.protocols import Protocol, get_protocol
from ..experiments.spec import bin_label
from ..experiments.reproduce import PlannedRow
from ..safe_io import atomic_write
from .cells import Aggregate

GENERALIZES, FAILS = "generalizes", "does not generalize"


def read_bins(bins: Sequence[float | None], threshold: float) -> str | None:
    """The reading of accuracies per bin (the first bin is the training lengths)."""
    beyond = [b for b in list(bins)[1:] if b is not None]
    if not beyond:
        return None
    return GENERALIZES if min(beyond) >= threshold else FAILS


def summarize(planned: PlannedRow, runs: list[dict], protocol: Protocol) -> dict:
    """One row of the table (JSON-ready)."""
    row = planned.row
    out = {"task": row.name, "toolkit_task": row.task, "encoding": row.encoding,
           "kind": row.kind, "architecture": planned.size or None, "lr": planned.lr,
           "objective": planned.objective or None, "source": row.source,
           "published_bins": list(row.bins) if row.bins is not None else None,
           "published_words": row.reading, "notes": list(row.notes) + list(planned.notes),
           "budget_note": row.budget or None}
    threshold = protocol.length_accuracy
    out["threshold"] = threshold
    out["published_reading"] = (read_bins(row.bins, threshold) if row.bins is not None
                                else row.reading)
    if planned.skipped:
        out.update(status="not run", reason=planned.skipped, ours=None, reading=None,
                   agrees=None)
        return out
    done = [r for r in runs if r["status"] == "done"]
    labels = list(done[0]["metrics"]["bins"]) if done else []
    fitted = [r for r in done if (r["metrics"].get("train_accuracy") or 0.0)
              >= protocol.fit_accuracy - 1e-12]
    count = planned.specs[0].training.final_eval_count if planned.specs else 0
    ours = {"bins": labels, "seeds": len(runs), "finished": len(done), "fitted": len(fitted),
            "steps": [r["metrics"].get("steps") for r in done],
            "stop_reasons": [r["metrics"].get("stop_reason") for r in done],
            "train_accuracy": [r["metrics"].get("train_accuracy") for r in done],
            "per_seed": {str(r["seed"]): r["metrics"].get("bins") for r in done},
            "fitted_seeds": [str(r["seed"]) for r in fitted],
            "wall_s": round(sum(r["metrics"].get("wall_s") or 0 for r in done), 1),
            "strings_per_bin": count}
    if fitted:
        mean, lo_hi, wilson = [], [], []
        for label in labels:
            vals = [r["metrics"]["bins"][label] for r in fitted
                    if r["metrics"]["bins"].get(label) is not None]
            if not vals:
                mean.append(None), lo_hi.append(None), wilson.append(None)
                continue
            a = Aggregate.of(vals, [count] * len(vals))
            mean.append(a.mean)
            lo_hi.append(list(a.seed_range))
            wilson.append(list(a.wilson95) if a.wilson95 else [None, None])
        ours.update(mean=mean, seed_range=lo_hi, wilson95=wilson)
        reading = read_bins(mean, threshold)
        basis = "mean over fitted seeds"
    else:
        ours.update(mean=None, seed_range=None, wilson95=None)
        reading = FAILS if done else None
        basis = ("no seed fitted the training lengths (the protocol's rule: does not "
                 "generalize)" if done else "no finished run")
    if done:
        # shown, never read: what the unfitted seeds did
        # a bin holding no length of the task (its LENGTHS end before it) stays empty
        vals = {lab: [r["metrics"]["bins"][lab] for r in done
                      if r["metrics"]["bins"].get(lab) is not None] for lab in labels}
        ours["mean_all_seeds"] = [sum(v) / len(v) if v else None for v in vals.values()]
        empty = [lab for lab, v in vals.items() if not v]
        if empty:
            out["notes"].append(f"no length of the task falls in the bin(s) {', '.join(empty)} "
                                f"(its lengths end before them): not read")
    failed = [r for r in runs if r["status"] == "failed"]
    if failed:
        out["notes"].append(f"{len(failed)} run(s) failed: " + "; ".join(
            str(r["error"]).splitlines()[0] for r in failed if r["error"]))
    agrees = None if reading is None or out["published_reading"] is None \
        else reading == out["published_reading"]
    # a row read "does not generalize" because nothing fitted agrees with a paper's
    # failure by the rule alone: it never measured length generalization
    by_rule = bool(done) and not fitted
    out.update(status="run" if done else "pending", ours=ours, reading=reading, basis=basis,
               agrees=agrees, by_rule=by_rule)
    return out


def _beyond(mean) -> tuple[float, float]:
    """How a grid point ranks: its lowest accuracy beyond the training lengths, then its
    last bin's."""
    vals = [m for m in (mean or [])[1:] if m is not None]
    return (min(vals), vals[-1]) if vals else (-1.0, -1.0)


def grid_row(points: list[dict], source: str) -> dict:
    """One published row read from its grid points (each a :func:`summarize` row): the best
    fitted point, ranked by its accuracy beyond the training lengths - selection on the
    test bins, as a sweep's best run is chosen, so the reading is the grid's best case."""
    import copy
    done = [p for p in points if p["status"] == "run"]
    fitted = [p for p in done if (p["ours"] or {}).get("fitted")]
    good = [p for p in fitted if p["reading"] == GENERALIZES]
    summary = [{"architecture": p["architecture"], "status": p["status"],
                "fitted": (p["ours"] or {}).get("fitted", 0),
                "mean": (p["ours"] or {}).get("mean"),
                "mean_all_seeds": (p["ours"] or {}).get("mean_all_seeds"),
                "steps": (p["ours"] or {}).get("steps"), "reading": p["reading"]}
               for p in points]
    if fitted:
        best = max(fitted, key=lambda p: _beyond(p["ours"]["mean"]))
        row = copy.deepcopy(best)
        row["architecture"] = f"best of {len(points)}: {best['architecture']}"
        row["basis"] = (f"the best of the grid's {len(points)} points by accuracy beyond the "
                        f"training lengths ({len(fitted)} fitted, {len(good)} generalize; "
                        f"one seed each)")
    else:
        row = copy.deepcopy(done[0] if done else points[0])
        row["architecture"] = f"grid of {len(points)}: none fitted" if done             else f"grid of {len(points)}"
    row["grid"] = {"source": source, "points": summary, "run": len(done),
                   "fitted": len(fitted), "generalize": len(good)}
    if done and len(done) < len(points):
        row["notes"] = list(row["notes"]) + [f"{len(points) - len(done)} grid point(s) not "
                                             f"finished: the best is over {len(done)}"]
    return row


def build(paper: str, protocol: Protocol, budget: str, planned: Sequence[PlannedRow],
          runs: Sequence[list[dict]], extra: dict | None = None) -> dict:
    rows: list = []
    groups: dict[str, list[dict]] = {}
    sources: dict[str, str] = {}
    for p, r in zip(planned, runs):
        one = summarize(p, r, protocol)
        if not p.grid:
            rows.append(one)
            continue
        rid = p.row.row_id
        if rid not in groups:
            groups[rid], sources[rid] = [], p.grid
            rows.append(rid)           # a place held for the grid's row
        groups[rid].append(one)
    rows = [grid_row(groups[r], sources[r]) if isinstance(r, str) else r for r in rows]
    compared = [r for r in rows if r["agrees"] is not None]
    agree = sum(1 for r in compared if r["agrees"])
    measured = [r for r in compared if not r.get("by_rule")]
    return {"paper": paper, "protocol": protocol.name, "citation": protocol.citation,
            "budget": budget, "threshold": protocol.length_accuracy,
            "fit_accuracy": protocol.fit_accuracy,
            "rows": rows, "compared": len(compared), "agree": agree,
            "agreement": round(agree / len(compared), 4) if compared else None,
            "compared_measured": len(measured),
            "agree_measured": sum(1 for r in measured if r["agrees"]),
            "not_run": sum(1 for r in rows if r["status"] == "not run"),
            **(extra or {})}


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _bins(values) -> str:
    return "-" if values is None else " / ".join(_pct(v) for v in values)


def markdown(table: dict) -> str:
    try:
        default_bins = [bin_label(a, b, i == 0)
                        for i, (a, b) in enumerate(get_protocol(table["protocol"]).eval_bins)]
    except ConfigError:   # a table of a protocol this version no longer knows
        default_bins = []
    lines = [f"# Reproduction: {table['paper']} ({table['budget']} budget)", "",
             f"Protocol `{table['protocol']}`: {table['citation']}.", "",
             f"Reading, the same for the paper's figures and ours: a row *generalizes* when "
             f"its accuracy is at least {100 * table['threshold']:.0f} % in every test bin "
             f"beyond the training lengths. Ours is the mean over the seeds that fitted the "
             f"training lengths (accuracy >= {100 * table['fit_accuracy']:.0f} % there); a "
             f"row with no fitted seed does not generalize. Accuracies are per string "
             f"(a language: every next-symbol set right; an algorithmic task: every answer "
             f"token right), in percent, per bin.", ""]
    if table.get("agreement") is not None:
        lines += [f"**Agreement with the published reading: {table['agree']} of "
                  f"{table['compared']} rows run ({100 * table['agreement']:.0f} %).** "
                  f"{table['not_run']} row(s) not run (listed below with the reason).", ""]
        by_rule = table["compared"] - table.get("compared_measured", table["compared"])
        if by_rule:
            lines += [f"Of those, {by_rule} row(s) are read by the rule alone: no seed "
                      f"fitted the training lengths, so the row says nothing about length "
                      f"generalization (marked *by rule*). On the rows where a seed fitted: "
                      f"{table['agree_measured']} of {table['compared_measured']} agree.", ""]
    if table.get("wall_s") is not None:
        part = (f" for the {table.get('ran')} run(s) this call trained ({table['already_done']} "
                f"were already in the store from an earlier call, whose time is not counted "
                f"here)" if table.get("already_done") else "")
        lines += [f"Wall time of the training: {table['wall_s']:.0f} s{part} "
                  f"({table.get('command', '')}; {table.get('machine', '')}"
                  + ("; this table was rendered again from the same store"
                     if table.get("rendered_again") else "") + ").", ""]
    lines += ["| task | encoding | model | published | ours (fitted mean) | seed range (last bin) "
              "| fitted / seeds | steps | published reading | ours | agrees |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table["rows"]:
        if r["status"] == "not run":
            continue
        o = r["ours"] or {}
        rng = (o.get("seed_range") or [None])[-1]
        pub = _bins(r["published_bins"]) if r["published_bins"] is not None \
            else (r["published_words"] or "-")
        mean = _bins(o.get("mean")) if o.get("mean") is not None else \
            f"(none fitted; all seeds {_bins(o.get('mean_all_seeds'))})"
        if o.get("bins") and default_bins and list(o["bins"]) != default_bins:
            mean += f" (bins {' / '.join(o['bins'])})"
        lines.append(
            f"| {r['task']} | {r['encoding']} | {r['architecture']} | {pub} | {mean} | "
            f"{'-' if rng is None else _pct(rng[0]) + '-' + _pct(rng[1])} | "
            f"{o.get('fitted', 0)} / {o.get('seeds', 0)} | "
            f"{', '.join(str(s) for s in o.get('steps', []))} | "
            f"{r['published_reading'] or '-'} | {r['reading'] or '-'} | "
            f"{'-' if r['agrees'] is None else ('yes' if r['agrees'] else '**no**')}"
            f"{' (*by rule*)' if r.get('by_rule') and r['agrees'] is not None else ''} |")
    dis = [r for r in table["rows"] if r["agrees"] is False]
    if dis:
        lines += ["", "## Disagreements", ""]
        for r in dis:
            o = r["ours"]
            lines.append(f"- **{r['task']} / {r['encoding']}**: published "
                         f"{_bins(r['published_bins'])} ({r['published_reading']}), ours "
                         f"{_bins(o.get('mean')) if o.get('mean') else 'no fitted seed'} "
                         f"({r['reading']}; {r['basis']}). " + explain(r))
    gridded = [r for r in table["rows"] if r.get("grid")]
    if gridded:
        lines += ["", "## The architecture grid", "",
                  f"Each row above marked *best of* is read at the best point of the authors' "
                  f"grid ({gridded[0]['grid']['source']}), one seed per point: the point "
                  f"with the highest accuracy beyond the training lengths among those that "
                  f"fitted them. That is selection on the test bins, as a sweep's best run "
                  f"is chosen, so it reads the grid's best case; the points:", ""]
        for r in gridded:
            g = r["grid"]
            lines.append(f"- **{r['task']} / {r['encoding']}**: {g['fitted']} of "
                         f"{len(g['points'])} points fitted, {g['generalize']} generalize. "
                         + "; ".join(
                             f"{p['architecture']} "
                             + (_bins(p['mean']) if p['mean'] else
                                f"(not fitted: {_bins(p['mean_all_seeds'])})"
                                if p['mean_all_seeds'] else "(not run)")
                             for p in g["points"]))
    noted = [r for r in table["rows"] if r["notes"] and r["status"] != "not run"]
    if noted:
        lines += ["", "## Notes per row", ""]
        for r in noted:
            lines.append(f"- {r['task']} / {r['encoding']}: " + "; ".join(r["notes"]))
    skipped = [r for r in table["rows"] if r["status"] == "not run"]
    if skipped:
        lines += ["", "## Rows not run", "", "| task | encoding | published | reason |",
                  "|---|---|---|---|"]
        for r in skipped:
            lines.append(f"| {r['task']} | {r['encoding']} | {_bins(r['published_bins'])} | "
                         f"{r['reason']} |")
    return "\n".join(lines) + "\n"


def explain(row: dict) -> str:
    """What the figures of a disagreeing row show (a description, not an excuse)."""
    o = row["ours"] or {}
    if not o.get("fitted"):
        early = ("; a seed that stopped at the target passed the early-stop check but "
                 "missed 100 % on the final test of the training lengths (more strings)"
                 if "target" in (o.get("stop_reasons") or []) else "")
        return (f"No seed fitted the training lengths within the budget (steps "
                f"{o.get('steps')}, stop reasons {o.get('stop_reasons')}, training-length "
                f"accuracy {o.get('train_accuracy')}){early}: the budget, not the paper's "
                f"protocol, decided it.")
    mean = o.get("mean") or []
    labels = o.get("bins") or []
    fitted = {seed: o["per_seed"][seed] for seed in o.get("fitted_seeds", [])}
    each = "; ".join(f"seed {seed}: " + " / ".join(_pct(bins.get(b)) for b in labels)
                     for seed, bins in fitted.items())
    passing = [seed for seed, bins in fitted.items()
               if read_bins([bins.get(b) for b in labels], row["threshold"]) == GENERALIZES]
    split = (f" The fitted seeds split: {len(passing)} of {len(fitted)} generalize "
             f"({each}), so the reading rests on which seeds were drawn; the paper's mean "
             f"is over up to 7 seeds." if passing and len(passing) < len(fitted)
             else f" Per fitted seed: {each}." if each else "")
    if row["reading"] == "does not generalize" and row["published_reading"] == "generalizes":
        worst = min((m for m in mean[1:] if m is not None), default=None)
        return (f"Our fitted mean falls to {_pct(worst)} % beyond the training lengths." + split
                + f" Ours is one architecture at {len(o.get('steps') or [])} seed(s) and at "
                  f"most {max((x for x in o.get('steps', []) if x), default=0):,} steps"
                  + (f"; {row['budget_note']}" if row.get("budget_note") else
                     "; the paper's runs were longer and chose their architecture by a sweep")
                  + ", so a fitted solution need not be the length-robust one the paper's "
                    "runs found.")
    return ("Our fitted seeds stay above the bar where the paper's fall." + split
            + " The paper's architecture and training budget differ from ours.")


def write(table: dict, out_dir: str | Path) -> tuple[Path, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md = atomic_write(out / f"{table['paper']}.md", markdown(table))
    js = atomic_write(out / f"{table['paper']}.json", json.dumps(table, indent=2) + "\n")
    return md, js
