"""The words ``augkit tune`` ends with (printed, and kept as the job's ``summary.md``): what
was run, the ranked table, and the recommendation or the honest "no augmentation"."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from augkit.tuning.classifiers import C_GRID
from augkit.tuning.resolution import POINTS_WANTED, more_rows, row_points

CLASSIFIER_WORDS = {"logreg": "logistic regression on frozen {encoder} embeddings",
                    "tfidf": "logistic regression on TF-IDF word 1-2 grams",
                    "finetune": "{encoder} fine-tuned with a linear head"}
#: What a recommendation made with each judge says nothing about, and how to ask about it.
OTHER_JUDGE = {"logreg": "a fine-tuned model (augkit tune DATA --classifier finetune)",
               "tfidf": "a fine-tuned model (augkit tune DATA --classifier finetune)",
               "finetune": "a classifier on frozen embeddings (augkit tune DATA --classifier logreg)"}
#: Rows of the ranking shown in the summary (``ranking.csv`` has them all).
SHOWN_ROWS = 10


def summary_text(result: Any, settings: Mapping[str, Any]) -> str:
    """The closing summary of a tune job (``result``: a :class:`~augkit.tuning.runner.TuneResult`)."""
    configurations = len(settings["configurations"]) - 1
    classifier = _judge_words(settings)
    rows = f", {result.valid_rows} rows each: one row is {row_points(result.valid_rows):.2f} points" if result.valid_rows else ""
    lines = [
        f"augkit tune: {configurations} configurations and none on {settings['splits']} validation splits "
        f"({settings['valid_fraction']:.0%} of each label held out, stratified, seeds {_seeds(settings)}{rows}); "
        f"{result.rows_used} labelled rows" + (f" ({result.rows_left_out} without text or label left out)" if result.rows_left_out else "")
        + f"; {classifier}",
    ]
    if result.unvalidated_labels:
        lines.append(f"{len(result.unvalidated_labels)} labels with a single row are never validated (always trained on): "
                     + ", ".join(result.unvalidated_labels[:5]) + (", ..." if len(result.unvalidated_labels) > 5 else ""))
    if result.stopped_by_budget:
        lines.append(f"stopped at the budget after {result.runs_done} of {result.runs_total} runs; --resume continues "
                     "(the same command with --resume and a new --budget)")
    else:
        lines.append(f"{result.runs_done} of {result.runs_total} runs measured ({result.seconds / 60:.1f} min this time)")
    table = result.table
    if len(table):
        shown = table.head(SHOWN_ROWS)
        if "none" not in set(shown["configuration"]):
            shown = table[(table["rank"] <= SHOWN_ROWS) | (table["configuration"] == "none")]
        lines += ["", "validation accuracy and gain over none in points (mean and sd over splits):", "",
                  shown.drop(columns=["pipeline", "n", "weight", "training"]).to_string(index=False, na_rep="-"), ""]
    lines.append(_too_small(result, settings) if result.too_small else _recommendation(result))
    lines.append(f"  (measured with {_judge_words(settings, short=True)}: it says nothing about "
                 f"{OTHER_JUDGE[settings['classifier']]}; docs/tune.md)")
    return "\n".join(lines) + "\n"


def _judge_words(settings: Mapping[str, Any], short: bool = False) -> str:
    """The judge as the summary names it: ``logistic regression on frozen all-MiniLM-L6-v2
    embeddings, C chosen per fit ...``; ``short``: without how it was fitted."""
    name = settings["classifier"]
    words = CLASSIFIER_WORDS[name].format(encoder=settings.get("encoder") or "all-MiniLM-L6-v2")
    if short:
        return words
    if name == "finetune":
        tuning = settings["finetune"]
        return (f"{words}, early-stopped on {tuning['stop_fraction']:.0%} of each label of the training part (held out "
                f"before augmenting; scored every {tuning['eval_every']} steps, at most {tuning['steps']} per stage)")
    return f"{words}, C chosen per fit from {', '.join(f'{c:g}' for c in C_GRID)} on the validation part"


def _seeds(settings: Mapping[str, Any]) -> str:
    first = settings["seed"]
    return f"{first}" if settings["splits"] == 1 else f"{first}-{first + settings['splits'] - 1}"


def _too_small(result: Any, settings: Mapping[str, Any]) -> str:
    """No recommendation, and why: one validation row outweighs every difference measured;
    what would tell the configurations apart (:func:`~augkit.tuning.resolution.more_rows`)."""
    table = result.table
    augmenting = table[table["configuration"] != "none"]
    tied = bool((augmenting["gain"].fillna(0) == 0).all() and (augmenting["gain_sd"].fillna(0) == 0).all())
    splits = result.splits_measured
    gains = augmenting["gain"].dropna()
    largest = gains.loc[gains.abs().idxmax()] if len(gains) else 0.0
    measured = (f"{_every(len(augmenting))} tied with none on every split" if tied else
                f"no configuration's gain or spread comes to one row (the largest gain {largest:+.2f}, the largest "
                f"spread {augmenting['gain_sd'].max():.2f})")
    more = more_rows(result.valid_rows, result.validated_labels, splits, settings["valid_fraction"])
    return (f"no recommendation: the validation splits are too small to tell the configurations apart. Each split validates "
            f"on {result.valid_rows} rows ({result.validated_labels} labels), so one row is worth "
            f"{row_points(result.valid_rows):.2f} points, and {measured}.\n"
            f"  To tell gains of about {POINTS_WANTED:g} point apart, validate on about {more.total} rows in all: "
            f"{more.rows_per_label} rows per label (each split then holds out {more.held_per_label} of each), or "
            f"--splits {more.splits} (the same rows, held out {more.splits} ways: this narrows the estimate without "
            f"making the data larger).")


def _recommendation(result: Any) -> str:
    import pandas as pd

    chosen = result.recommended
    table = result.table
    if chosen is None:
        augmenting = table[table["configuration"] != "none"]
        if augmenting.empty:
            return "recommended: no augmentation (no configuration was measured)"
        if (augmenting["gain"].fillna(0) == 0).all() and (augmenting["gain_sd"].fillna(0) == 0).all():
            every = _every(len(augmenting))
            return (f"recommended: no augmentation. {every[0].upper()}{every[1:]} scored exactly as none on every split: "
                    f"{'none of them' if len(augmenting) > 1 else 'it'} changed what the classifier gets right.")
        best = augmenting.iloc[0]
        gain = "no paired gain" if pd.isna(best["gain"]) else f"{best['gain']:+.2f}" + (
            "" if pd.isna(best["gain_sd"]) else f" ± {best['gain_sd']:.2f}")
        return (f"recommended: no augmentation. The best configuration, {best['configuration']}, gains {gain} points "
                f"over {_splits(best['splits'])} ({best['verdict']}): nothing beats none by more than its spread.")
    row = table[table["configuration"] == chosen.label].iloc[0]
    command = f"augkit augment DATA -m {shlex.quote(chosen.pipeline)} -n {chosen.n} -o augmented.csv"
    weight = "" if chosen.weight == 1 else f"; train with the augmented rows (augkit_method set) weighted {chosen.weight:g}"
    if chosen.two_stage:
        weight += "; train in two stages: all rows, then the originals alone (augkit_method empty) from there"
    return (f"recommended: {chosen.pipeline} with n={chosen.n}{weight}: {row['gain']:+.2f} ± {row['gain_sd']:.2f} points "
            f"over none ({_splits(row['splits'])})\n  {command}")


def _every(count: int) -> str:
    """``all 4 configurations``, or ``the one configuration``."""
    return f"all {count} configurations" if count > 1 else "the one configuration"


def _splits(count: int) -> str:
    return f"{int(count)} split" + ("" if count == 1 else "s")
