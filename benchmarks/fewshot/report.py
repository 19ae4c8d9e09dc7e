"""Outputs of a few-shot run: the CSV of every run, the Markdown summary and the gain plot.

Gains are paired: for each (dataset, classifier, K, seed) a method's score minus the score
of ``none`` on the same K-shot sample, then averaged over seeds. Means and standard
deviations (sample, ddof=1) are in percentage points.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

RUNS_CSV = "runs.csv"
SUMMARY_MD = "summary.md"
GAIN_PNG = "gain.png"
GROUP = ["dataset", "classifier", "shots"]


def write_runs(rows: Sequence[dict], path: Path) -> None:
    """Every run, one row each (written again after each run, so a long run can be followed)."""
    tmp = path.with_suffix(".csv.tmp")
    pd.DataFrame(rows).to_csv(tmp, index=False)
    tmp.replace(path)


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, classifier, K, method), methods in the order they were run:
    seeds, mean and sd of accuracy and macro-F1, of the paired gains over ``none``, training
    rows and seconds per run."""
    runs = runs.copy()
    order = {method: i for i, method in enumerate(dict.fromkeys(runs["method"]))}
    baseline = runs[runs["method"] == "none"].set_index(GROUP + ["seed"])[["accuracy", "macro_f1"]]
    keys = pd.MultiIndex.from_frame(runs[GROUP + ["seed"]])
    for metric in ("accuracy", "macro_f1"):
        base = baseline[metric].reindex(keys).to_numpy() if len(baseline) else np.full(len(runs), np.nan)
        runs[f"gain_{metric}"] = runs[metric].to_numpy() - base
    aggregations = {
        "seeds": ("seed", "nunique"),
        **{f"{column}_{stat}": (column, stat) for column in
           ("accuracy", "macro_f1", "gain_accuracy", "gain_macro_f1") for stat in ("mean", "std")},
        "train_examples": ("train_examples", "mean"),
        "seconds": ("seconds", "mean"),
    }
    if "valid_accuracy" in runs:
        aggregations["valid_accuracy_mean"] = ("valid_accuracy", "mean")
    if "steps" in runs:  # trained with early stopping: how long each run trained
        aggregations.update(steps_min=("steps", "min"), steps_max=("steps", "max"), steps_mean=("steps", "mean"))
    summary = runs.groupby(GROUP + ["method"], sort=False).agg(**aggregations).reset_index()
    summary["order"] = summary["method"].map(order)
    return summary.sort_values(GROUP + ["order"]).drop(columns="order").reset_index(drop=True)


def _points(mean: float, sd: float, signed: bool = False) -> str:
    if np.isnan(mean):
        return ""
    sign = "+" if signed else ""
    sd_text = "" if np.isnan(sd) else f" ± {100 * sd:.1f}"
    return f"{100 * mean:{sign}.1f}{sd_text}"


def _cell(text: str) -> str:
    """A table cell's text: a pipe would end the cell, even inside backticks."""
    return text.replace("|", "\\|")


def markdown_table(summary: pd.DataFrame) -> str:
    """The summary as Markdown: one table per dataset and classifier, rows by K and method."""
    lines = []
    has_valid = "valid_accuracy_mean" in summary
    has_steps = "steps_mean" in summary
    for (dataset, classifier), block in summary.groupby(["dataset", "classifier"], sort=False):
        lines += [
            f"**{dataset}**, classifier `{classifier}` (mean ± sd over seeds, percentage points; "
            "gain: paired difference with `none` on the same K-shot sample)",
            "",
            "| K | method | accuracy | macro-F1 | accuracy gain | macro-F1 gain | "
            + ("valid accuracy | " if has_valid else "") + ("steps (min-max) | " if has_steps else "")
            + "training rows | seconds/run | seeds |",
            "|---:|---|---:|---:|---:|---:|" + ("---:|" if has_valid else "") + ("---:|" if has_steps else "") + "---:|---:|---:|",
        ]
        for row in block.itertuples():
            gain = "" if row.method == "none" else _points(row.gain_accuracy_mean, row.gain_accuracy_std, signed=True)
            gain_f1 = "" if row.method == "none" else _points(row.gain_macro_f1_mean, row.gain_macro_f1_std, signed=True)
            valid = f"{100 * row.valid_accuracy_mean:.1f} | " if has_valid else ""
            steps = f"{row.steps_mean:,.0f} ({row.steps_min:,.0f}-{row.steps_max:,.0f}) | " if has_steps else ""
            lines.append(
                f"| {row.shots} | `{_cell(row.method)}` | {_points(row.accuracy_mean, row.accuracy_std)} | "
                f"{_points(row.macro_f1_mean, row.macro_f1_std)} | {gain} | {gain_f1} | {valid}{steps}"
                f"{row.train_examples:,.0f} | {row.seconds:.1f} | {row.seeds} |"
            )
        lines.append("")
    return "\n".join(lines)


def plot_gains(summary: pd.DataFrame, path: Path) -> None:
    """Bars of the mean accuracy gain over ``none`` per method, one colour per K, error bars
    one sd of the paired gain; one panel per dataset and classifier."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = summary[summary["method"] != "none"].dropna(subset=["gain_accuracy_mean"])
    panels = list(data.groupby(["dataset", "classifier"], sort=False))
    if not panels:
        return
    methods_max = max(block["method"].nunique() for _, block in panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(max(5.0, 0.9 * methods_max + 2) * len(panels), 4.6), squeeze=False)
    for ax, ((dataset, classifier), block) in zip(axes[0], panels):
        methods = list(dict.fromkeys(block["method"]))
        shots = sorted(block["shots"].unique())
        width = 0.8 / len(shots)
        for i, k in enumerate(shots):
            part = block[block["shots"] == k].set_index("method").reindex(methods)
            positions = np.arange(len(methods)) + (i - (len(shots) - 1) / 2) * width
            ax.bar(positions, 100 * part["gain_accuracy_mean"], width, yerr=100 * part["gain_accuracy_std"].fillna(0),
                   capsize=3, label=f"K={k}")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(np.arange(len(methods)))
        ax.set_xticklabels([m.replace("|", "\n|").replace("@", "\n@") for m in methods], fontsize=7)
        ax.set_ylabel("accuracy gain over none (points)")
        seeds = int(block["seeds"].max())
        ax.set_title(f"{dataset} ({classifier}): mean, error bars ±1 sd over {seeds} seeds", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(rows: Sequence[dict], out: Path, header: str) -> pd.DataFrame:
    """Write runs.csv, summary.md (``header``, then the tables) and gain.png into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    write_runs(rows, out / RUNS_CSV)
    summary = summarise(pd.DataFrame(rows))
    (out / SUMMARY_MD).write_text(f"{header}\n\n{markdown_table(summary)}", encoding="utf-8")
    plot_gains(summary, out / GAIN_PNG)
    return summary


def map_table(summary: pd.DataFrame) -> str:
    """The map as Markdown: one table per dataset, a column per (classifier, K), the ``none``
    accuracy on top and each method's paired accuracy gain below it (mean ± sd over seeds, in
    points; the seed count in brackets where it is below the table's largest)."""
    lines = []
    for dataset, block in summary.groupby("dataset", sort=False):
        columns = list(dict.fromkeys(zip(block["classifier"], block["shots"])))
        columns.sort(key=lambda column: (list(dict.fromkeys(block["classifier"])).index(column[0]), column[1]))
        most = int(block["seeds"].max())
        cells = block.set_index(["method", "classifier", "shots"])
        lines += [
            f"**{dataset}**: accuracy of `none`, then accuracy gain over `none` (paired, mean ± sd over "
            f"{most} seeds unless bracketed, points)",
            "",
            "| method | " + " | ".join(f"{classifier} K={shots}" for classifier, shots in columns) + " |",
            "|---|" + "---:|" * len(columns),
        ]
        for method in dict.fromkeys(block["method"]):
            row = []
            for classifier, shots in columns:
                if (method, classifier, shots) not in cells.index:
                    row.append("")
                    continue
                cell = cells.loc[(method, classifier, shots)]
                if method == "none":
                    text = _points(cell["accuracy_mean"], cell["accuracy_std"])
                else:
                    text = _points(cell["gain_accuracy_mean"], cell["gain_accuracy_std"], signed=True)
                row.append(text + (f" ({int(cell['seeds'])})" if cell["seeds"] < most else ""))
            lines.append(f"| `{_cell(method)}` | " + " | ".join(row) + " |")
        lines.append("")
    return "\n".join(lines)


def plot_map(summary: pd.DataFrame, path: Path) -> None:
    """One task's gains: bar groups by (classifier, K), one bar per method, error bars one sd
    of the paired gain over seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = summary[summary["method"] != "none"].dropna(subset=["gain_accuracy_mean"])
    if data.empty:
        return
    classifiers = list(dict.fromkeys(data["classifier"]))
    groups = sorted(dict.fromkeys(zip(data["classifier"], data["shots"])), key=lambda g: (classifiers.index(g[0]), g[1]))
    methods = list(dict.fromkeys(data["method"]))
    width = 0.8 / len(methods)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(groups) + 2), 4.8))
    cells = data.set_index(["method", "classifier", "shots"])
    for i, method in enumerate(methods):
        part = cells.reindex([(method, classifier, shots) for classifier, shots in groups])
        positions = np.arange(len(groups)) + (i - (len(methods) - 1) / 2) * width
        ax.bar(positions, 100 * part["gain_accuracy_mean"], width, yerr=100 * part["gain_accuracy_std"].fillna(0),
               capsize=2, label=method)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(np.arange(len(groups)))
    ax.set_xticklabels([f"{classifier}\nK={shots}" for classifier, shots in groups], fontsize=8)
    ax.set_ylabel("accuracy gain over none (points)")
    dataset = data["dataset"].iloc[0]
    ax.set_title(f"{dataset}: paired gain, mean, error bars ±1 sd over up to {int(data['seeds'].max())} seeds", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
