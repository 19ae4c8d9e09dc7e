"""``augkit.tune``: which augmentation, if any, helps a classifier on the user's own data.

For each of ``splits`` seeded, stratified validation splits of the labelled rows, the
training part is augmented by each (pipeline, n) of the search space (each once, shared by
its training weights and trainings; filters that train on the originals, ``pvi`` and
``consistency``, see the training part only), a classifier is trained on it
(:mod:`augkit.tuning.classifiers`; the best C of a small grid on the validation part, for
every configuration alike; a fine-tuned judge early-stops on a stratified part of the
training part held out before augmenting, :data:`STOP_FRACTION`), and its validation
accuracy is compared with ``none``'s on the same split (:mod:`augkit.tuning.ranking`). Runs go split by split, so a budget that ends the job early
leaves every configuration measured on as many splits as the others, give or take one.

Deterministic for a seed: the splits, the augmentations (augkit's per-row seeds), the
embeddings (batch-independent) and the L-BFGS fits are; so are the ranking and its ties.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from augkit.errors import InputError, InvalidParameterError
from augkit.tuning.classifiers import FineTunedJudge, TrainingRows, make_classifier
from augkit.tuning.job import RunRecord, TuneJob
from augkit.tuning.ranking import Ranking, rank
from augkit.tuning.resolution import too_coarse
from augkit.tuning.space import (
    BASELINE,
    DEFAULT_N,
    DEFAULT_TRAININGS,
    DEFAULT_WEIGHTS,
    NONE,
    Configuration,
    default_pipelines,
    search_space,
)
from augkit.tuning.split import ValidationSplit, stratified_split

DEFAULT_SPLITS = 3
DEFAULT_VALID_FRACTION = 0.25
#: The share of each label of a split's training part a fine-tuned judge early-stops on,
#: held out before augmenting (so no paraphrase of those rows is trained on) and the same for
#: every configuration of the split, ``none`` included; the rest is augmented and trained on.
STOP_FRACTION = 0.25


@dataclass(frozen=True)
class TuneResult:
    """What a tune job found: the ranking (``ranking.table``, ``ranking.recommended``), how
    many of its runs are measured, whether the budget ended it, the rows left out of it
    (no text or no label) and the labels too small to validate."""

    ranking: Ranking
    runs_done: int
    runs_total: int
    stopped_by_budget: bool
    rows_used: int
    rows_left_out: int
    unvalidated_labels: tuple[str, ...]
    seconds: float
    #: Rows each split validates on (the same for every split), and the labels they cover.
    valid_rows: int = 0
    validated_labels: int = 0

    @property
    def table(self) -> Any:
        return self.ranking.table

    @property
    def recommended(self) -> Configuration | None:
        """The configuration to use, or None: no augmentation beats ``none`` by more than its spread."""
        return self.ranking.recommended

    @property
    def complete(self) -> bool:
        return self.runs_done == self.runs_total

    @property
    def too_small(self) -> bool:
        """Whether the validation splits are too small to tell the configurations apart
        (:func:`~augkit.tuning.resolution.too_coarse`): nothing is recommended, and one
        validation row is worth more than any configuration's gain and spread."""
        if self.recommended is not None or not self.valid_rows:
            return False
        augmenting = self.table[self.table["configuration"] != NONE]
        gains, spreads = augmenting["gain"].dropna().abs(), augmenting["gain_sd"].dropna()
        if augmenting.empty:
            return False
        return too_coarse(self.valid_rows, self.splits_measured, float(gains.max()) if len(gains) else None,
                          float(spreads.max()) if len(spreads) else None)

    @property
    def splits_measured(self) -> int:
        """The splits the configurations were measured on (fewer than asked when a budget ended the job)."""
        return int(self.table["splits"].max()) if len(self.table) else 0


@dataclass(frozen=True)
class _Data:
    texts: list[str]
    labels: list[str]
    left_out: int


def tune(
    data: Any,
    *,
    label_column: str = "label",
    text_column: str = "text",
    classifier: str = "logreg",
    encoder: str | None = None,
    pipelines: Iterable[str] | None = None,
    n: Iterable[int] = DEFAULT_N,
    weights: Iterable[float] = DEFAULT_WEIGHTS,
    trainings: Iterable[str] = DEFAULT_TRAININGS,
    splits: int = DEFAULT_SPLITS,
    valid_fraction: float = DEFAULT_VALID_FRACTION,
    seed: int = 0,
    budget: float | None = None,
    job_dir: str | None = None,
    resume: bool = False,
    progress: bool | None = None,
) -> TuneResult:
    """Try each configuration of the search space on ``data`` (a DataFrame with
    ``text_column`` and ``label_column``) and rank them by validation gain over no
    augmentation.

    ``pipelines`` (default: :func:`~augkit.tuning.space.default_pipelines`) x ``n`` x ``weights`` x ``trainings`` is the search space (any method or
    pipeline strings; each augmented row weighs ``weight`` in training; ``joint`` trains on
    all rows at once, ``two-stage`` on all rows and then on the originals alone);
    ``classifier`` is the judge (``logreg``, ``tfidf`` or ``finetune``: a recommendation
    holds for the judge it was measured with); ``splits`` validation splits holding
    out ``valid_fraction`` of each label, split ``i`` seeded ``seed + i``; ``budget`` in
    minutes ends the job at the first run boundary past it (the runs done are ranked);
    ``job_dir`` keeps the job on disk (:mod:`augkit.tuning.job`), continued with ``resume``.

    >>> result = augkit.tune(df, label_column="label", seed=0)      # doctest: +SKIP
    >>> result.table.head(3), result.recommended
    """
    from augkit.terminal.progress import progress_bar, run_progress

    started = time.monotonic()
    rows = _labelled_rows(data, text_column, label_column)
    if isinstance(splits, bool) or not isinstance(splits, int) or splits < 1:
        raise InvalidParameterError(f"splits must be a whole number >= 1, got {splits!r}")
    if budget is not None and not budget > 0:
        raise InvalidParameterError(f"the budget must be a positive number of minutes, got {budget!r}")
    configurations = [BASELINE, *search_space(default_pipelines() if pipelines is None else pipelines, n, weights, trainings)]
    model = make_classifier(classifier, encoder=encoder)
    layouts = [stratified_split(rows.labels, valid_fraction, seed + index) for index in range(splits)]
    expected = {(index, c.label) for index in range(splits) for c in configurations}
    settings = {
        "data": _digest(rows), "rows": len(rows.texts), "text_column": text_column, "label_column": label_column,
        "classifier": classifier, "encoder": encoder, "configurations": [c.label for c in configurations],
        "splits": splits, "valid_fraction": valid_fraction, "seed": seed,
    }
    if isinstance(model, FineTunedJudge):
        settings["finetune"] = {**model.settings, "stop_fraction": STOP_FRACTION}
    job = TuneJob.open(job_dir, settings, resume=resume, expected_runs=expected)
    stopped = False
    try:
        with run_progress(progress) as shown, progress_bar(len(expected), shown=shown, description="tune", unit="run") as bar:
            bar.update(len(job.done()))
            deadline = None if budget is None else started + 60 * budget
            for index, layout in enumerate(layouts):
                stopped = _run_split(job, model, rows, layout, index, seed + index, configurations, deadline, bar.update)
                if stopped:
                    break
        ranking = rank(configurations, job.records, valid_rows=len(layouts[0].valid))
        validated = len({rows.labels[i] for i in layouts[0].valid})
        result = TuneResult(ranking, len(job.records), len(expected), stopped, len(rows.texts), rows.left_out,
                            layouts[0].unvalidated, time.monotonic() - started, len(layouts[0].valid), validated)
        from augkit.tuning.summary import summary_text

        job.write_results(ranking.table, summary_text(result, settings))
    finally:
        job.release()
    return result


def _run_split(job: TuneJob, model: Any, rows: _Data, layout: ValidationSplit, index: int, seed: int,
               configurations: Sequence[Configuration], deadline: float | None, advance: Callable[[int], None]) -> bool:
    """Measure every configuration not yet measured on split ``index``; True when the
    deadline passed first."""
    import pandas as pd

    done = job.done()
    todo = [c for c in configurations if (index, c.label) not in done]
    if not todo:
        return False
    fit_rows, stop = layout.train, None
    if model.stops_early:
        fit_rows, stop_rows = _stop_part(rows, layout.train, seed)
        stop = ([rows.texts[i] for i in stop_rows], [rows.labels[i] for i in stop_rows])
    train = pd.DataFrame({"text": [rows.texts[i] for i in fit_rows], "label": [rows.labels[i] for i in fit_rows]})
    valid_texts = [rows.texts[i] for i in layout.valid]
    valid_labels = [rows.labels[i] for i in layout.valid]
    augmented: dict[tuple[str, int], Any] = {}
    for configuration in todo:
        if deadline is not None and time.monotonic() >= deadline:
            return True
        start = time.monotonic()
        frame = train
        if configuration.pipeline is not None:
            key = (configuration.pipeline, configuration.n)
            if key not in augmented:
                augmented[key] = _augment(train, configuration, seed)
            frame = augmented[key]
        is_augmented = frame["augkit_method"].notna().tolist() if "augkit_method" in frame else [False] * len(frame)
        training = TrainingRows(frame["text"].tolist(), frame["label"].tolist(),
                                [configuration.weight if flag else 1.0 for flag in is_augmented],
                                [not flag for flag in is_augmented], configuration.two_stage)
        measured = model.measure(training, valid_texts, valid_labels, stop=stop, seed=seed)
        job.add(RunRecord(index, configuration.label, measured.accuracy, measured.macro_f1, measured.C, len(frame),
                          sum(is_augmented), round(time.monotonic() - start, 3), measured.stages))
        advance(1)
    return False


def _augment(train: Any, configuration: Configuration, seed: int) -> Any:
    from augkit.api import augment

    return augment(train, configuration.pipeline, n=configuration.n, seed=seed, text_column="text",
                          label_column="label", progress=False)


def _stop_part(rows: _Data, train: list[int], seed: int) -> tuple[list[int], list[int]]:
    """(rows to augment and train on, rows to early-stop on): :data:`STOP_FRACTION` of each
    label of the training part ``train``, stratified and seeded as the validation split is;
    a label with one training row is trained on only."""
    try:
        part = stratified_split([rows.labels[i] for i in train], STOP_FRACTION, seed)
    except InputError:
        raise InputError("the fine-tuned judge early-stops on rows held out of each split's training part, and no "
                         "label has two training rows: give it more rows per label") from None
    return [train[i] for i in part.train], [train[i] for i in part.valid]


def _labelled_rows(data: Any, text_column: str, label_column: str) -> _Data:
    """The rows with a text and a label, as strings; the others are left out (and counted)."""
    import pandas as pd

    if not isinstance(data, pd.DataFrame):
        raise InputError(f"augkit tune needs a pandas DataFrame (or a table file on the command line), got {type(data).__name__}")
    missing = [c for c in (text_column, label_column) if c not in data.columns]
    if missing:
        raise InputError(f"the data has no column {', '.join(map(repr, missing))} (columns: {', '.join(map(str, data.columns))}); "
                         "name them with --text-column and --label-column")
    texts, labels = [], []
    for text, label in zip(data[text_column], data[label_column]):
        if isinstance(text, str) and text.strip() and not pd.isna(label) and str(label).strip():
            texts.append(text)
            labels.append(str(label))
    if len(set(labels)) < 2:
        raise InputError(f"augkit tune needs at least 2 labels with text in {label_column!r}, found {len(set(labels))}")
    return _Data(texts, labels, len(data) - len(texts))


def _digest(rows: _Data) -> str:
    return hashlib.sha256(json.dumps([rows.texts, rows.labels]).encode("utf-8")).hexdigest()[:16]
