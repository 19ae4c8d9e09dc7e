"""The general page of ``augkit serve`` without the UI: what each button does, as plain
functions over DataFrames, so they are tested without a browser and without gradio.

A run here is :func:`augkit.augment` with ``trace=True``: the same pipeline, ``n``, seed and
columns give the same rows (the tests check it). The preview runs the pipeline on a seeded
sample of rows per label; a candidate's row seed comes from its text, so the rows sampled
get the same candidates in the whole run (except from steps that look at the whole table
first, such as ``label_integrity``, which then see the sample only).

Hand-unticked candidates are identified by (source row, candidate text) and removed from
the download; nothing else is: the download is the run's output minus exactly those rows.
"""

from __future__ import annotations

import contextlib
import shlex
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.errors import AugkitError, InputError, UsageError

#: Column names guessed as the text and the label, in order of preference.
TEXT_NAMES = ("text", "sentence", "utterance", "query", "question", "review", "seq.in", "content")
LABEL_NAMES = ("label", "labels", "intent", "class", "category", "target", "coarse_label", "fine_label")
#: Rows per label in the preview (and at most :data:`PREVIEW_MAX_ROWS` in all): enough to see
#: what a pipeline makes of each label, small enough to run in seconds with a model step.
PREVIEW_PER_LABEL = 2
PREVIEW_MAX_ROWS = 40
#: Bins of the similarity histogram.
SIMILARITY_BINS = 10
#: The review table's columns before the score columns.
REVIEW_COLUMNS = ("keep", "row", "label", "source", "candidate", "method", "fate", "dropped_by", "reason", "similarity")
CANCELLED = "the run was cancelled"
#: A candidate's fates in the similarity histogram (rows without a candidate have no similarity).
FATES = ("kept", "dropped")
#: The grey of dropped candidates, in the review table's rows and in the plots' bars.
DROPPED_GREY = "#9e9e9e"


class RunCancelled(AugkitError):
    """The user pressed Stop during a run."""


#: The list :func:`collected_warnings` fills for the block running in each thread.
_collecting = threading.local()
_routing = threading.Lock()


@contextlib.contextmanager
def collected_warnings() -> Iterator[list[str]]:
    """The distinct warnings raised in this thread while the block runs, in order (their
    messages), so that the page can say what a method said about the run (e.g. the bergamot
    engine's "one back-translation per text" when n > 1) and not only the server's log,
    where they still go. Per thread: two browser sessions' runs do not see each other's.

    >>> with collected_warnings() as said:
    ...     warnings.warn("asked n=2", RuntimeWarning)
    >>> said
    ['asked n=2']

    Python's warning filters still decide what is raised: under the ``default`` filter a
    warning already shown from the same place with the same words is not raised again
    (``augkit serve`` shows every RuntimeWarning, the kind augkit's methods use)."""
    _route_shown_warnings()
    said: list[str] = []
    outer = getattr(_collecting, "said", None)
    _collecting.said = said
    try:
        yield said
    finally:
        _collecting.said = outer


def _route_shown_warnings() -> None:
    """Put a ``warnings.showwarning`` in front of the current one that also adds the message
    to the collecting thread's list (once: a ``catch_warnings`` leaving puts the old one back,
    then the next collection puts it in front again)."""
    with _routing:
        if getattr(warnings.showwarning, "augkit_collects", False):
            return
        show = warnings.showwarning

        def collect_and_show(message, category, filename, lineno, file=None, line=None):
            said = getattr(_collecting, "said", None)
            if said is not None and str(message) not in said:
                said.append(str(message))
            show(message, category, filename, lineno, file, line)

        collect_and_show.augkit_collects = True  # type: ignore[attr-defined]
        warnings.showwarning = collect_and_show


@dataclass(frozen=True)
class RunSettings:
    """What the page's fields say: the pipeline string, ``n``, the seed and the columns."""

    pipeline: str
    n: int
    seed: int
    text_column: str
    label_column: str | None = None

    def checked(self, columns: Sequence[str]) -> RunSettings:
        """These settings, or an error naming the field that is wrong."""
        if not (self.pipeline or "").strip():
            raise UsageError("give a method or a pipeline, e.g. eda or eda|semantic")
        for role, column in (("text", self.text_column), ("label", self.label_column)):
            if role == "text" and not column:
                raise UsageError("pick the text column")
            if column and column not in columns:
                raise InputError(f"the table has no {role} column {column!r}; its columns are {', '.join(map(str, columns))}")
        if self.label_column and self.label_column == self.text_column:
            raise UsageError(f"the text and label columns are both {self.text_column!r}")
        if self.n < 1:
            raise UsageError(f"n must be at least 1, got {self.n}")
        return self


def guess_columns(columns: Sequence[str]) -> tuple[str | None, str | None]:
    """The text and label columns, by name (``text``, ``sentence``... / ``label``,
    ``intent``...), else the first column for the text and the last other one for the label."""
    lowered = {str(c).strip().lower(): c for c in columns}
    text = next((lowered[name] for name in TEXT_NAMES if name in lowered), None)
    label = next((lowered[name] for name in LABEL_NAMES if name in lowered and lowered[name] != text), None)
    rest = [c for c in columns if c not in (text, label)]
    if text is None and rest:
        text = rest.pop(0)
    if label is None and rest:
        label = rest[-1]
    return text, label


def sample_rows(frame: Any, label_column: str | None, seed: int, per_label: int = PREVIEW_PER_LABEL,
                most: int = PREVIEW_MAX_ROWS) -> Any:
    """Up to ``per_label`` rows of each label (of the whole table without a label column),
    drawn with ``seed``, in table order, at most ``most`` rows; index labels kept, so that
    the trace names rows as the whole table does."""
    if label_column is None:
        chosen = frame.sample(n=min(most, len(frame)), random_state=seed).index
    else:
        chosen = [row for _, group in frame.groupby(label_column, sort=False, dropna=False)
                  for row in group.sample(n=min(per_label, len(group)), random_state=seed).index]
        if len(chosen) > most:
            chosen = frame.loc[chosen].sample(n=most, random_state=seed).index
    return frame[frame.index.isin(chosen)]


def run_traced(frame: Any, settings: RunSettings, *, on_rows: Callable[[int, int], None] | None = None,
               cancel: threading.Event | None = None) -> tuple[Any, Any, dict]:
    """``augkit.augment(frame, settings.pipeline, n, seed, text_column, label_column,
    trace=True)``, telling ``on_rows(done, total)`` as rows finish and stopping with
    :class:`RunCancelled` once ``cancel`` is set. Returns the output, the trace and the run's
    summary."""
    from augkit.adapters.frame import augment_frame
    from augkit.api import build_pipeline, check_models_for_run
    from augkit.engine.run_options import RunOptions
    from augkit.reporting.trace import trace_frame

    settings.checked(list(frame.columns))
    pipeline = build_pipeline(settings.pipeline.strip(), {})
    options = RunOptions(n=settings.n, seed=settings.seed, progress=False, trace=True).checked()
    check_models_for_run(pipeline, options.n)
    done = [0]

    def advance(rows: int) -> None:
        done[0] += rows
        if on_rows is not None:
            on_rows(done[0], len(frame))
        if cancel is not None and cancel.is_set():
            raise RunCancelled(CANCELLED)

    output, report = augment_frame(pipeline, frame, text_column=settings.text_column, label_column=settings.label_column,
                                   keep_original=True, options=options, on_rows=advance)
    return output, trace_frame(report.trace or []), report.as_dict()


def review_table(trace: Any, frame: Any, settings: RunSettings) -> Any:
    """One row per candidate (and per source row that got none), grouped by source row in
    table order, kept ones first: ``keep`` ticked for the kept, the source text and label,
    the fate, the step that dropped it, why a row got nothing, the similarity to the source
    and every score column of the trace."""
    import pandas as pd

    scores = [c for c in trace.columns if c.startswith("score_")]
    table = pd.DataFrame({
        "keep": trace["fate"] == "kept",
        "row": trace["source"],
        "label": [frame.at[s, settings.label_column] for s in trace["source"]] if settings.label_column else "",
        "source": [frame.at[s, settings.text_column] for s in trace["source"]],
        "candidate": trace["candidate"].fillna(""),
        "method": trace["method"],
        "fate": trace["fate"],
        "dropped_by": trace["dropped_by"],
        "reason": trace["reason"],
    })
    table["similarity"] = similarities(table["source"], table["candidate"], trace)
    for column in scores:
        table[column] = trace[column].round(3)
    order = {row: position for position, row in enumerate(frame.index)}
    table["_row"] = table["row"].map(order)
    table["_fate"] = table["fate"].map({"kept": 0, "dropped": 1, "none": 2})
    table = table.sort_values(["_row", "_fate"], kind="stable").drop(columns=["_row", "_fate"])
    return table.reset_index(drop=True)


def review_styling(review: Any) -> list[list[str]]:
    """Each cell's CSS in the review table: every cell of a dropped candidate's row in
    :data:`DROPPED_GREY`, so kept candidates stand out; the other rows unstyled. (The page
    sends it as the table's ``styling`` metadata; the table's data stays plain.)"""
    grey = f"color: {DROPPED_GREY}"
    return [[grey if fate == "dropped" else ""] * len(review.columns) for fate in review["fate"]]


def similarities(sources: Sequence[Any], candidates: Sequence[Any], trace: Any) -> list[float | None]:
    """Each candidate's similarity to its source: the ``semantic`` score when a step gave one
    (cosine of MiniLM embeddings), else one minus the character edit ratio; None for rows
    without a candidate."""
    from augkit.metrics import edit_distance_ratio

    semantic = trace["score_semantic"].tolist() if "score_semantic" in trace.columns else [None] * len(trace)
    values: list[float | None] = []
    for source, candidate, score in zip(sources, candidates, semantic):
        if not candidate:
            values.append(None)
        elif score is not None and score == score:
            values.append(round(float(score), 3))
        else:
            values.append(round(1.0 - edit_distance_ratio(str(candidate), str(source)), 3))
    return values


def unticked(review: Any) -> set[tuple[Any, str]]:
    """(source row, candidate) of every kept candidate whose ``keep`` was unticked."""
    if review is None or len(review) == 0:
        return set()
    keep = review["keep"].map(_ticked)
    mask = (review["fate"] == "kept") & ~keep
    return {(_row_key(row), str(text)) for row, text in zip(review.loc[mask, "row"], review.loc[mask, "candidate"])}


def ticked_dropped(review: Any) -> int:
    """How many dropped candidates were ticked by hand (they are not added: see the module)."""
    if review is None or len(review) == 0:
        return 0
    return int(((review["fate"] != "kept") & review["keep"].map(_ticked)).sum())


def without_unticked(output: Any, removed: set[tuple[Any, str]], text_column: str) -> tuple[Any, int]:
    """``output`` minus its augmented rows whose (source row, text) is in ``removed``, and how
    many rows went. Original rows are never removed."""
    if not removed:
        return output, 0
    keys = [(_row_key(source), str(text)) for source, text in zip(output[SOURCE_COLUMN], output[text_column])]
    drop = output[METHOD_COLUMN].notna() & output.index.isin(output.index[[key in removed for key in keys]])
    return output[~drop], int(drop.sum())


def similarity_histogram(review: Any) -> Any:
    """Candidates per similarity bin (named by its lower edge: ``0.8`` holds 0.8 to 0.9, short
    enough to fit under its bar) and fate, for a bar plot: every bin with both fates
    (kept, dropped), zero where none. Both fates always, so the legend stays the same: gradio
    6 builds a plot's colour scale from the data it first draws and afterwards only swaps
    the data, so after a preview that dropped nothing the dropped ones would get no colour."""
    import pandas as pd

    shown = review[review["similarity"].notna()]
    edges = [round(i / SIMILARITY_BINS, 2) for i in range(SIMILARITY_BINS + 1)]
    bins = pd.cut(shown["similarity"].astype(float).clip(0, 1), edges, include_lowest=True,
                  labels=[f"{low:.1f}" for low in edges[:-1]])  # a bin by its lower edge: "0.8" is 0.8-0.9
    fates = pd.Categorical(shown["fate"], categories=FATES)
    counts = shown.assign(bin=bins, fate=fates).groupby(["bin", "fate"], observed=False).size().reset_index(name="candidates")
    counts["bin"] = counts["bin"].astype(str)
    counts["fate"] = counts["fate"].astype(str)
    return counts


def fates_per_step(trace: Any) -> Any:
    """Candidates kept, and dropped by each step, in the order the steps dropped them, by fate
    (the bars' colour: kept, or dropped in grey). Every step has a row for both fates (zero
    where none): gradio fixes a plot's colours from the fates of the first data it draws."""
    import pandas as pd

    candidates = trace[trace["fate"] != "none"]
    steps = ["kept", *dict.fromkeys(candidates.loc[candidates["fate"] == "dropped", "dropped_by"])]
    counts = [int((candidates["fate"] == "kept").sum()),
              *(int((candidates["dropped_by"] == step).sum()) for step in steps[1:])]
    rows = [(step, fate, count if (fate == "kept") == (step == "kept") else 0)
            for step, count in zip(steps, counts) for fate in FATES]
    return pd.DataFrame(rows, columns=["step", "fate", "candidates"])


def rows_per_label(frame: Any, output: Any, label_column: str | None) -> Any:
    """Rows per label: the original rows and the augmentations added (stacked, they make the
    rows after the run)."""
    import pandas as pd

    added = output[output[METHOD_COLUMN].notna()]
    if not label_column:
        before, gained = {"(all rows)": len(frame)}, {"(all rows)": len(added)}
    else:
        before = frame[label_column].astype(str).value_counts(sort=False).to_dict()
        gained = added[label_column].astype(str).value_counts(sort=False).to_dict()
    labels = list(dict.fromkeys([*before, *gained]))
    return pd.DataFrame({"label": labels * 2, "rows of": ["original"] * len(labels) + ["added"] * len(labels),
                         "rows": [before.get(l, 0) for l in labels] + [gained.get(l, 0) for l in labels]})


def download_names(upload_name: str) -> tuple[str, str, str]:
    """The three files a run gives for an upload: the augmented table (in the upload's format,
    else CSV), the trace (CSV) and the command (a shell script)."""
    from augkit.web.uploads import download_path

    stem = Path(Path(upload_name).name).stem or "table"
    return (download_path(upload_name, Path()).name, download_path(f"{stem}.csv", Path(), "trace").name,
            f"{stem}-command.sh")


def command_line(upload_name: str, settings: RunSettings, removed: int) -> str:
    """The ``augkit augment`` command that reproduces the run on the uploaded file, writing
    the files of :func:`download_names`, after a comment saying whether it reproduces the
    download exactly (it does not when ``removed`` candidates were unticked by hand)."""
    table, trace, _ = download_names(upload_name)
    parts = ["augkit", "augment", Path(upload_name).name, "-m", settings.pipeline.strip(), "-n", str(settings.n),
             "--seed", str(settings.seed), "--text-column", settings.text_column]
    if settings.label_column:
        parts += ["--label-column", settings.label_column]
    parts += ["-o", table, "--trace", trace]
    command = " ".join(shlex.quote(part) for part in parts)
    if removed:
        note = (f"# The download leaves out {removed} candidate(s) unticked by hand; this command writes them too "
                "(it reproduces the run, not the hand edits).")
    else:
        note = "# This command writes exactly the downloaded rows."
    return f"{note}\n{command}\n"


def write_downloads(output: Any, trace: Any, command: str, upload_name: str, folder: Path) -> list[Path]:
    """The files of :func:`download_names`, written inside ``folder``."""
    from augkit.tables.io import write_table

    table, trace_path, script = (folder / name for name in download_names(upload_name))
    write_table(output, table)
    write_table(trace, trace_path)
    script.write_text(command, encoding="utf-8")
    return [table, trace_path, script]


def _row_key(value: Any) -> Any:
    """A row name as the review table sends it back (a browser may turn 3 into "3")."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)


def _ticked(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "x")
    return bool(value) and value == value  # NaN is not ticked
