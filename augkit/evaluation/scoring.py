"""Score the augmentations in a table written by ``augkit augment`` against their source
texts, one row of metrics per augmentation method (what ``augkit evaluate`` prints).

Pairing: every augmented row (``augkit_method`` set) names its source row in
``augkit_source``, the row's index label in the original table; a file read back gives
row numbers 0..N-1, which are the labels ``augkit augment`` wrote. Original rows that the
augmented table still holds (``augkit_method`` missing) must carry the original text, which
catches an ORIGINAL that is not the file AUGMENTED was made from.

Metrics of a method (columns of :class:`~augkit.evaluation.table.EvaluationTable`):

=============  ===================================================================
augmentations  rows of this method; ``sources``: distinct source rows they come from
bleu_src       corpus BLEU of the augmentations against their sources (0-100; high:
               close copies)
self_bleu      self-BLEU among the augmentations of one source, averaged over sources
               with at least 2 (0-100; high: repetitive)
rougeL_src     mean ROUGE-L F1 against the source (0-1)
dist2          dist-2 of the augmentations of one source, averaged over sources
edit_ratio     mean character edit distance / source length
paramac_div    mean ParaMac s_div(augmentation, source) with the given betas
semantic_sim   mean embedding cosine with the source (-1..1)
ppl            geometric mean perplexity (with a perplexity model)
bleu_ref       corpus BLEU against the reference column; ``ibleu`` =
               alpha * bleu_ref - (1 - alpha) * bleu_src (with a reference column)
=============  ===================================================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.errors import (
    InputError,
    InvalidParameterError,
    MissingDependencyError,
    ModelNotAvailableError,
    UsageError,
)
from augkit.evaluation.table import EvaluationTable
from augkit.metrics import (
    IBLEU_ALPHA,
    PARAMAC_BETAS,
    bleu,
    distinct_n,
    edit_distance_ratio,
    geometric_mean,
    paramac_diversity,
    perplexity,
    rouge,
    self_bleu,
    semantic_similarity,
)

#: Metric names ``metrics=`` (``--metrics``) accepts, in the order of the table's columns.
METRICS = ("bleu", "self_bleu", "rouge", "distinct", "edit", "paramac", "semantic", "perplexity", "ibleu")
#: What runs when ``metrics`` is None: every metric that needs no extra input.
DEFAULT_METRICS = ("bleu", "self_bleu", "rouge", "distinct", "edit", "paramac", "semantic")
COLUMNS = {
    "bleu": ("bleu_src",),
    "self_bleu": ("self_bleu",),
    "rouge": ("rougeL_src",),
    "distinct": ("dist2",),
    "edit": ("edit_ratio",),
    "paramac": ("paramac_div",),
    "semantic": ("semantic_sim",),
    "perplexity": ("ppl",),
    "ibleu": ("bleu_ref", "ibleu"),
}


@dataclass(frozen=True)
class AugmentedPair:
    """One augmentation with the text of its source row (and that row's reference)."""

    method: str
    source_key: str
    source: str
    text: str
    reference: str | None = None


def pair_augmentations(
    original: Any, augmented: Any, *, text_column: str = "text", references_column: str | None = None
) -> list[AugmentedPair]:
    """Each augmented row of ``augmented`` (a DataFrame as ``augkit augment`` writes it)
    with its source text from ``original``, in table order."""
    _require_columns(augmented, [text_column, SOURCE_COLUMN, METHOD_COLUMN], "AUGMENTED", provenance=True)
    _require_columns(original, [text_column] + ([references_column] if references_column else []), "ORIGINAL")
    positions = {_label_key(label): position for position, label in enumerate(original.index)}
    sources = original[text_column].tolist()
    references = original[references_column].tolist() if references_column else None
    pairs = []
    rows = zip(augmented[SOURCE_COLUMN].tolist(), augmented[METHOD_COLUMN].tolist(), augmented[text_column].tolist())
    for row, (key, method, text) in enumerate(rows):
        position = positions.get(_label_key(key))
        if position is None:
            raise InputError(
                f"AUGMENTED row {row}: {SOURCE_COLUMN} {key!r} is not a row of ORIGINAL (rows 0..{len(sources) - 1}); "
                "is ORIGINAL the file AUGMENTED was made from?"
            )
        source = sources[position]
        if _is_missing(method):
            if text != source and not (_is_missing(text) and _is_missing(source)):
                raise InputError(
                    f"AUGMENTED row {row} is an original row of ORIGINAL row {position}, but its {text_column!r} differs "
                    f"({_short(text)} vs {_short(source)}); is ORIGINAL the file AUGMENTED was made from?"
                )
            continue
        for what, value in (("augmented text", text), ("source text", source)):
            if not isinstance(value, str):
                raise InputError(f"AUGMENTED row {row}: the {what} in {text_column!r} is {type(value).__name__}, not a string")
        reference = None
        if references is not None:
            reference = references[position]
            if not isinstance(reference, str):
                raise InputError(f"ORIGINAL row {position}: reference {references_column!r} is {type(reference).__name__}, not a string")
        pairs.append(AugmentedPair(str(method), _label_key(key), source, text, reference))
    if not pairs:
        raise InputError(f"AUGMENTED has no augmented rows (every {METHOD_COLUMN} is empty); nothing to evaluate")
    return pairs


def evaluate_augmentations(
    original: Any,
    augmented: Any,
    *,
    text_column: str = "text",
    metrics: Sequence[str] | None = None,
    encoder: str | None = None,
    semantic: bool = True,
    perplexity_model: str | None = None,
    references_column: str | None = None,
    alpha: float = IBLEU_ALPHA,
    paramac_betas: tuple[float, float] = PARAMAC_BETAS,
    device: str = "cpu",
) -> EvaluationTable:
    """Metrics per augmentation method of ``augmented`` against the source rows in
    ``original`` (both DataFrames; see the module docstring for the columns).

    ``metrics`` None runs :data:`DEFAULT_METRICS`, plus ``perplexity`` when
    ``perplexity_model`` is given and ``ibleu`` when ``references_column`` is;
    ``semantic=False`` leaves out the embedding similarity. With the default set, a
    sentence encoder that cannot be loaded drops ``semantic`` with a note; a metric asked
    for by name (or an ``encoder`` named) fails instead.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 <= alpha <= 1.0:
        raise InvalidParameterError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    if len(paramac_betas) != 2:
        raise InvalidParameterError(f"paramac_betas must be two numbers (beta1, beta2), got {paramac_betas!r}")
    explicit = metrics is not None
    chosen = _choose_metrics(metrics, perplexity_model, references_column, semantic)
    pairs = pair_augmentations(original, augmented, text_column=text_column, references_column=references_column)
    notes: list[str] = []
    by_method: dict[str, list[int]] = {}
    for index, pair in enumerate(pairs):
        by_method.setdefault(pair.method, []).append(index)

    similarities = None
    if "semantic" in chosen:
        try:
            similarities = semantic_similarity([p.text for p in pairs], [p.source for p in pairs], model=encoder)
        except (ModelNotAvailableError, MissingDependencyError) as error:
            if explicit or encoder is not None:
                raise
            chosen.remove("semantic")
            notes.append(f"semantic_sim skipped: no sentence encoder ({str(error).splitlines()[0]})")
    perplexities = perplexity([p.text for p in pairs], perplexity_model, device=device) if "perplexity" in chosen else None

    columns = ["method", "augmentations", "sources"] + [c for name in METRICS if name in chosen for c in COLUMNS[name]]
    rows = []
    for method, indices in by_method.items():
        group = [pairs[i] for i in indices]
        row: dict[str, Any] = {"method": method, "augmentations": len(group), "sources": len({p.source_key for p in group})}
        texts, sources = [p.text for p in group], [p.source for p in group]
        if "bleu" in chosen or "ibleu" in chosen:
            row["bleu_src"] = bleu(texts, sources)
        if "self_bleu" in chosen:
            row["self_bleu"] = _mean(self_bleu(batch) for batch in _per_source(group) if len(batch) >= 2)
        if "rouge" in chosen:
            row["rougeL_src"] = rouge(texts, sources)["rougeL"]
        if "distinct" in chosen:
            row["dist2"] = _mean(distinct_n(batch) for batch in _per_source(group) if any(t.split() for t in batch))
        if "edit" in chosen:
            row["edit_ratio"] = _mean(r for r in (edit_distance_ratio(t, s) for t, s in zip(texts, sources)) if math.isfinite(r))
        if "paramac" in chosen:
            row["paramac_div"] = _mean(
                paramac_diversity(t, s, *paramac_betas) for t, s in zip(texts, sources) if t.split() or s.split()
            )
        if similarities is not None:
            row["semantic_sim"] = float(similarities[indices].mean())
        if perplexities is not None:
            finite = [v for v in perplexities[indices] if not math.isnan(v)]
            row["ppl"] = geometric_mean(finite) if finite else None
        if "ibleu" in chosen:
            row["bleu_ref"] = bleu(texts, [p.reference for p in group])
            row["ibleu"] = alpha * row["bleu_ref"] - (1 - alpha) * row["bleu_src"]
        rows.append(row)
    notes += _aggregation_notes(chosen, alpha, paramac_betas, perplexity_model, encoder)
    return EvaluationTable(columns, rows, notes)


def _choose_metrics(
    metrics: Sequence[str] | None, perplexity_model: str | None, references_column: str | None, semantic: bool
) -> list[str]:
    if metrics is None:
        chosen = [m for m in DEFAULT_METRICS if semantic or m != "semantic"]
        chosen += ["perplexity"] if perplexity_model else []
        chosen += ["ibleu"] if references_column else []
        return chosen
    if not semantic and "semantic" in metrics:
        raise UsageError("the semantic metric is both asked for and turned off (--no-semantic)")
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown metric(s) {', '.join(map(repr, unknown))}; available: {', '.join(METRICS)}")
    if "perplexity" in metrics and not perplexity_model:
        raise UsageError("the perplexity metric needs a language model: --perplexity-model MODEL (e.g. distilgpt2)")
    if "ibleu" in metrics and not references_column:
        raise UsageError("iBLEU needs reference paraphrases: --references COLUMN (a column of ORIGINAL)")
    return [m for m in METRICS if m in metrics]


def _aggregation_notes(chosen, alpha, betas, perplexity_model, encoder) -> list[str]:
    notes = []
    if "self_bleu" in chosen or "distinct" in chosen:
        notes.append("self_bleu and dist2 are computed over the augmentations of each source and averaged over sources "
                     "(self_bleu needs at least 2 augmentations of a source)")
    if "paramac" in chosen:
        notes.append(f"paramac_div uses beta1={betas[0]:g}, beta2={betas[1]:g}")
    if "semantic" in chosen:
        notes.append(f"semantic_sim encoder: {encoder or 'default (all-MiniLM-L6-v2)'}")
    if "perplexity" in chosen:
        notes.append(f"ppl: geometric mean of per-text perplexity under {perplexity_model}")
    if "ibleu" in chosen:
        notes.append(f"ibleu = {alpha:g} * bleu_ref - {1 - alpha:g} * bleu_src")
    return notes


def _per_source(group: list[AugmentedPair]) -> list[list[str]]:
    batches: dict[str, list[str]] = {}
    for pair in group:
        batches.setdefault(pair.source_key, []).append(pair.text)
    return list(batches.values())


def _mean(values: Iterable[float]) -> float | None:
    items = list(values)
    return sum(items) / len(items) if items else None


def _label_key(label: Any) -> str:
    """A row label as text, so that 3 (JSONL, Parquet, in memory), 3.0 and "3" (CSV) meet."""
    if isinstance(label, float) and label.is_integer():
        return str(int(label))
    if hasattr(label, "item") and not isinstance(label, str):  # numpy scalars
        return _label_key(label.item())
    return str(label)


def _is_missing(value: Any) -> bool:
    """None, NaN, pandas' NA, or "" (how a CSV read as strings shows a missing cell)."""
    import pandas as pd

    if isinstance(value, str):
        return value == ""
    return value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value)))


def _require_columns(frame: Any, needed: list[str], name: str, provenance: bool = False) -> None:
    columns = [str(c) for c in frame.columns]
    missing = [c for c in needed if c not in columns]
    if not missing:
        return
    hint = ""
    if provenance and any(c in (SOURCE_COLUMN, METHOD_COLUMN) for c in missing):
        hint = f"; {name} must be a table written by `augkit augment` (it adds {SOURCE_COLUMN} and {METHOD_COLUMN})"
    raise InputError(f"{name} has no column {', '.join(map(repr, missing))}; columns are: {', '.join(columns)}{hint}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "...'"
