"""The sharpness-versus-n figure: one line per task and model state, with error bars for
the noise-based measure."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping

from .empirical import cell_name
from .plots import save_figure, plt


def sharpness_vs_n(path: Path, results: Iterable[Mapping]) -> Path:
    """Two panels (largest Hessian eigenvalue; average sharpness under noise) against n."""
    rows = list(results)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    groups: dict[tuple, list] = {}
    for r in rows:
        # one line per task variant (khop:k=2 and khop:k=3 are not pooled), spelled as rows
        name = cell_name({"task": r["task"], "params": r.get("params") or {}})
        groups.setdefault((name, r["state"]), []).append(r)
    for (task, state), rs in sorted(groups.items()):
        rs = sorted(rs, key=lambda r: r["n"])
        ns = [r["n"] for r in rs]
        style = "-o" if state == "trained" else "--s"
        label = f"{task} ({state})"
        line, = axes[0].plot(ns, [abs(r["lambda_max"]) for r in rs], style, label=label)
        axes[1].errorbar(ns, [r["avg_sharpness"] for r in rs],
                         yerr=[r["avg_sharpness_se"] for r in rs], fmt=style, capsize=3,
                         label=label, color=line.get_color())
        if state == "trained":  # hollow rings: training did not reach a solution
            miss = [r for r in rs if (r.get("accuracy") or 0) < 0.99]
            for ax, key in ((axes[0], "lambda_max"), (axes[1], "avg_sharpness")):
                ax.plot([r["n"] for r in miss], [abs(r[key]) if key == "lambda_max"
                                                 else r[key] for r in miss], "o", ms=11,
                        mfc="none", color="black", zorder=5)
    axes[0].set(xlabel="n", ylabel="|largest Hessian eigenvalue|", yscale="log",
                title="top of the Hessian spectrum")
    axes[1].set(xlabel="n", ylabel="loss increase / rho^2",
                title="average sharpness under Gaussian noise")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8, title="black ring: not learned", title_fontsize=7)
    fig.suptitle("Loss-landscape sharpness by input length", fontsize=10)
    return save_figure(fig, Path(path))
