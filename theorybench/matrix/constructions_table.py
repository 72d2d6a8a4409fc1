"""The report's "constructions" table: every hand-built softmax transformer of
``constructions/`` and every compiled C-RASP library program, with its shape, the margin it
guarantees as a function of n, and how far it was verified or proved.

The rows come from :func:`constructions.evidence.construction_evidence` (hand-built: each n
of the family's analysis range, every input checked in float64 and float32, interval
arithmetic, z3 where the method's length limit allows; ``proven`` only with the z3 proof
for every n) and :func:`constructions.evidence.compiled_evidence` (a library program
compiled for lengths <= N and checked against the interpreter on every input of length
1..N). Both are cached per process; the report checks them in forked processes, one per core
(about 14 s on one core).
"""

from __future__ import annotations

from typing import Any

from ..formal.crasp.programs import library
from ..parallel import fork_map
from .tables import Table


def _ns(ns: list[int]) -> str:
    """``1..12`` for a run of consecutive n, else the list."""
    if not ns:
        return "-"
    if len(ns) > 2 and list(ns) == list(range(ns[0], ns[-1] + 1)):
        return f"{ns[0]}..{ns[-1]}"
    return ", ".join(map(str, ns))


def _hand_rows(labels, workers: int | None = 1) -> list[dict[str, Any]]:
    from ..constructions.evidence import construction_evidence
    out = []
    for label, ev in zip(labels, fork_map(construction_evidence, labels, workers)):
        if not ev.get("available"):
            out.append({"task": label, "kind": "hand-built", "construction": "-",
                        "status": "unknown", "note": ev.get("reason", "")})
            continue
        widths = sorted(set(ev["width_by_n"].values()))
        out.append({
            "task": label, "kind": "hand-built", "construction": ev["construction"],
            "layers": ev["layers"], "heads": sum(ev["heads"]),
            "width": str(widths[0]) if len(widths) == 1 else f"{widths[0]}..{widths[-1]}",
            "temperature": ev["temperature"], "margin": ev["margin_formula"],
            "checked_ns": ev["ns"], "z3_ns": ev["z3_proved_ns"], "status": ev["status"],
            "all_n": ev.get("all_n", {}).get("claim", ""), "seconds": ev["seconds"]})
    return out


def _compiled_rows(max_len: int, workers: int | None = 1) -> list[dict[str, Any]]:
    from ..constructions.evidence import compiled_evidence
    out = []
    progs = list(library().items())
    evs = fork_map(lambda item: compiled_evidence(item[1].program, max_len), progs, workers)
    for (name, lp), ev in zip(progs, evs):
        row = {"task": lp.family, "kind": "compiled", "construction": f"library:{name}",
               "status": "unknown", "note": ev.get("reason", "")}
        if ev.get("compiled"):
            sh = ev["shape"]
            ok = ev["status"] == "verified"
            row.update(layers=sh["layers"], heads=sum(sh["heads"]), width=str(sh["width"]),
                       temperature="none (uniform attention)",
                       margin="1/2 (exact 0/1 steps, compiler)",
                       checked_ns=list(range(1, ev["max_len"] + 1)), z3_ns=[],
                       status=(f"verified <= {ev['max_len']}" if ok else "refuted"),
                       seconds=ev["seconds"],
                       note=("" if ok else f"counterexample {ev.get('counterexample')}"))
        out.append(row)
    return out


def constructions_table(labels=None, compiled_max_len: int = 12,
                        workers: int | None = 1) -> Table:
    """The table of hand-built constructions (``labels``; default: every one the package
    builds) and compiled library programs (checked up to ``compiled_max_len``), each row
    checked in up to ``workers`` forked processes (:func:`~theorybench.parallel.fork_map`;
    None: one per core). A row already checked in this process comes from its cache."""
    from ..constructions.evidence import HAND_BUILT
    recs = _hand_rows(HAND_BUILT if labels is None else labels, workers)
    recs += _compiled_rows(compiled_max_len, workers)
    header = ["task", "construction", "layers", "heads", "width", "temperature",
              "margin(n)", "checked n", "z3 at n", "status"]
    rows = []
    for r in recs:
        status = r["status"]
        if r.get("note"):
            status += f" ({r['note']})"
        rows.append([r["task"], r["construction"], str(r.get("layers", "-")),
                     str(r.get("heads", "-")), r.get("width", "-"), r.get("temperature", "-"),
                     r.get("margin", "-"), _ns(r.get("checked_ns", [])),
                     "every n" if r.get("all_n") else _ns(r.get("z3_ns", [])), status])
    caption = ("Hand-built: each checked n had every input run in float64 and float32 and "
               "bounded by interval arithmetic (real arithmetic); z3 at n = the lengths where "
               "the solver proved it; 'proven' only where z3 proved it for every n from the "
               "weights. Compiled: a C-RASP library program compiled to a uniform-attention "
               "transformer, every definition checked against the interpreter on every input "
               "of length 1..N. `theorybench construct TASK --n N` and `theorybench crasp "
               "compile PROGRAM --max-len N --check` rerun a row.")
    return Table("Constructions", header, rows, recs, caption)


__all__ = ["constructions_table"]
