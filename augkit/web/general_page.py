"""The general tab of ``augkit serve`` (gradio): upload a labelled table, pick its columns and
a pipeline, preview on a sample with every candidate's trace, untick candidates, run on the
whole table with a progress bar (Stop cancels it), download the table, trace and command.

The event handlers (:func:`load_upload`, :func:`preview_upload`, :func:`run_upload`) are
plain functions over the upload's path and the fields' values, tested without a browser;
their logic is :mod:`augkit.web.general`. Every message goes to the status line, with the
server's paths cut to file names and no traceback. Imports gradio: import it only to serve.
"""

from __future__ import annotations

import logging
import tempfile
import threading
from pathlib import Path
from typing import Any

import gradio as gr

from augkit.errors import AugkitError
from augkit.registry.tab_context import TabContext
from augkit.web.catalog import catalog_markdown, pipeline_choices
from augkit.web.general import (
    DROPPED_GREY,
    PREVIEW_PER_LABEL,
    RunCancelled,
    RunSettings,
    collected_warnings,
    command_line,
    fates_per_step,
    guess_columns,
    review_styling,
    review_table,
    rows_per_label,
    run_traced,
    sample_rows,
    similarity_histogram,
    ticked_dropped,
    unticked,
    without_unticked,
    write_downloads,
)
from augkit.web.status import status_line
from augkit.web.uploads import read_upload, without_server_path
from augkit.web.widgets import header_fitting_widths, table_upload

INTRO = (
    "Upload a labelled table (CSV, TSV, JSONL, Parquet or XLSX), pick its text and label columns and a method "
    "or pipeline. **Preview** runs it on a few rows per label and shows every candidate with its trace: kept ones "
    "first, dropped ones with the step that dropped them and the scores. Untick any kept candidate you do not want, "
    "then **Run** on the whole table and download the augmented table, the trace and the command that reproduces it."
)
DEFAULT_PIPELINE = "eda"
#: Kept candidates in the plots' colour of "added" rows, dropped ones in grey, as in the table.
FATE_COLORS = {"kept": "#f58518", "dropped": DROPPED_GREY}
#: The plots' y axis: from 0 (gradio starts it at the smallest bar otherwise) to the data's highest.
FROM_ZERO = [0, None]
#: Narrowest a plot gets before the row wraps it onto a line of its own: at about 300 px a
#: plot's title and its angled labels no longer fit its box and are cut.
PLOT_MIN_WIDTH = 340
#: The review table's column widths (pixels) for their contents, widened for their headers
#: (:func:`~augkit.web.widgets.header_fitting_widths`); a score column gets 100.
COLUMN_WIDTHS = {"keep": 56, "row": 56, "label": 150, "source": 300, "candidate": 300, "method": 80, "fate": 80,
                 "dropped_by": 110, "reason": 120}
_log = logging.getLogger(__name__)
#: The Stop flag of each browser session's running job (by gradio's session hash).
_RUNNING: dict[str, threading.Event] = {}


def build_general_tab(context: TabContext, registry: Any) -> None:
    """The general page's components and events, built inside the current gradio tab."""
    gr.Markdown(INTRO)
    upload, text_column, label_column = table_upload(
        "table", "aug-file", (("text column", "aug-text-column"), ("label column (none: unlabelled)", "aug-label-column")))
    with gr.Row():
        pipeline = gr.Dropdown(label="method or pipeline (e.g. eda|semantic; see the steps below)",
                               choices=pipeline_choices(registry), value=DEFAULT_PIPELINE, allow_custom_value=True,
                               elem_id="aug-pipeline", scale=3)
        n = gr.Number(label="n (augmentations per row)", value=2, precision=0, minimum=1, elem_id="aug-n")
        seed = gr.Number(label="seed", value=0, precision=0, elem_id="aug-seed")
    with gr.Accordion("Installed methods and filters, with their parameters", open=False):
        gr.Markdown(catalog_markdown(registry), elem_id="aug-catalog")
    with gr.Row():
        preview = gr.Button(f"Preview ({PREVIEW_PER_LABEL} rows per label)", elem_id="aug-preview")
        run = gr.Button("Run on the whole table", variant="primary", elem_id="aug-run")
        stop = gr.Button("Stop", variant="stop", elem_id="aug-stop")
    status = gr.Markdown("", elem_id="aug-status")
    # Shown once a preview or run has made candidates: before that, an editable empty table
    # would offer column headers 1 2 3 and a button to add rows, and the plots empty boxes.
    review = gr.Dataframe(label="candidates (untick 'keep' to leave a kept candidate out of the download)",
                          interactive=True, wrap=True, visible=False, elem_id="aug-review")
    with gr.Row(visible=False, elem_id="aug-plots") as plots_row:
        similarity_plot = gr.BarPlot(x="bin", y="candidates", color="fate", title="similarity to the source",
                                     x_title="similarity, from (each bar 0.1 wide)", color_map=FATE_COLORS, y_lim=FROM_ZERO,
                                     min_width=PLOT_MIN_WIDTH, elem_id="aug-similarity-plot")
        steps_plot = gr.BarPlot(x="step", y="candidates", color="fate", title="kept, and dropped per step",
                                color_map=FATE_COLORS, y_lim=FROM_ZERO, min_width=PLOT_MIN_WIDTH, elem_id="aug-steps-plot")
        labels_plot = gr.BarPlot(x="rows", y="label", color="rows of", title="rows per label",
                                 color_map={"original": "#4c78a8", "added": "#f58518"},
                                 x_lim=FROM_ZERO, min_width=PLOT_MIN_WIDTH, elem_id="aug-labels-plot")
    with gr.Column(visible=False, elem_id="aug-results") as results:
        downloads = gr.File(label="augmented table, trace, command", file_count="multiple", interactive=False,
                            elem_id="aug-downloads")
        command = gr.Code(label="command line", language="shell", interactive=False, elem_id="aug-command")
    plots = [similarity_plot, steps_plot, labels_plot]

    def on_upload(path):
        return load_upload(path, context.max_file_size)

    def on_preview(path, spec, text, label, count, seed_value):
        review_value, *plots_data, message = preview_upload(path, spec, text, label, count, seed_value,
                                                            max_file_size=context.max_file_size)
        return (_shown(review_value), _visible(review_value), *map(_plotted, plots_data), message)

    def on_run(path, spec, text, label, count, seed_value, edited, request: gr.Request, progress=gr.Progress()):
        cancel = threading.Event()
        key = getattr(request, "session_hash", None) or "local"
        _RUNNING[key] = cancel
        try:
            files, script, *plots_data, message = run_upload(
                path, spec, text, label, count, seed_value, edited, max_file_size=context.max_file_size,
                temp_dir=context.temp_dir, cancel=cancel,
                on_rows=lambda done, total: progress((done, total), desc="rows", unit="rows"))
            ran = gr.update(visible=files is not None)
            return (files, script, ran, ran, *map(_plotted, plots_data), message)
        finally:
            _RUNNING.pop(key, None)

    def on_stop(request: gr.Request):
        cancel = _RUNNING.get(getattr(request, "session_hash", None) or "local")
        if cancel is None:
            return "No run to stop."
        cancel.set()
        return "**Stopping** after the current batch..."

    upload.change(on_upload, inputs=upload, outputs=[text_column, label_column, status])
    fields = [upload, pipeline, text_column, label_column, n, seed]
    preview.click(on_preview, inputs=fields, outputs=[review, plots_row, *plots, status])
    run.click(on_run, inputs=[*fields, review], outputs=[downloads, command, results, plots_row, *plots, status])
    stop.click(on_stop, outputs=status)


def load_upload(path: str | None, max_file_size: int) -> tuple[dict, dict, str]:
    """On upload: the text and label dropdowns (likely columns preselected; the label may be
    set to none) and a status line; an unusable file empties them and says why."""
    if not path:
        return _choices([]), _choices([]), ""
    try:
        frame = read_upload(path, max_file_size)
    except Exception as error:  # noqa: BLE001 -- an unreadable upload: say why on the page
        return _choices([]), _choices([]), f"**Cannot use this file:** {_message(error, path)}"
    columns = [str(c) for c in frame.columns]
    text, label = guess_columns(columns)
    return (_choices(columns, text), _choices(columns, label, none=True),
            f"{Path(path).name}: {len(frame):,} rows; columns {', '.join(columns)}")


def preview_upload(path: str | None, pipeline: str | None, text: str | None, label: str | None, n: float | None,
                   seed: float | None, *, max_file_size: int) -> tuple[Any, Any, Any, Any, str]:
    """On "Preview": the review table of a seeded sample (a few rows per label), the three
    plots' data and a status line with the counts per step."""
    nothing = (None, None, None, None)
    if not path:
        return (*nothing, "**Upload a table first.**")
    try:
        frame = read_upload(path, max_file_size)
        settings = _settings(pipeline, text, label, n, seed).checked([str(c) for c in frame.columns])
        sample = sample_rows(frame, settings.label_column, settings.seed)
        with collected_warnings() as said:
            output, trace, summary = run_traced(sample, settings)
    except Exception as error:  # noqa: BLE001 -- shown on the page, never as a traceback
        return (*nothing, _failure(error, path))
    review = review_table(trace, sample, settings)
    return (review, similarity_histogram(review), fates_per_step(trace), rows_per_label(sample, output, settings.label_column),
            f"**Preview** of {len(sample)} of {len(frame):,} rows (up to {PREVIEW_PER_LABEL} per label, seed {settings.seed}) "
            f"with `{settings.pipeline}`, n={settings.n}: "
            + _counts(trace, summary) + _warned(said, path))


def run_upload(path: str | None, pipeline: str | None, text: str | None, label: str | None, n: float | None,
               seed: float | None, edited: Any, *, max_file_size: int, temp_dir: Path,
               cancel: threading.Event | None = None, on_rows: Any = None) -> tuple[Any, str, Any, Any, Any, str]:
    """On "Run": the whole table augmented with the same settings, minus the candidates
    unticked in the review table; the three files to download (written in a fresh folder
    inside ``temp_dir``), the command line, the plots' data and a status line."""
    nothing = (None, "", None, None, None)
    if not path:
        return (*nothing, "**Upload a table first.**")
    try:
        frame = read_upload(path, max_file_size)
        settings = _settings(pipeline, text, label, n, seed).checked([str(c) for c in frame.columns])
        with collected_warnings() as said:
            output, trace, summary = run_traced(frame, settings, on_rows=on_rows, cancel=cancel)
        removed = unticked(edited)
        kept, gone = without_unticked(output, removed, settings.text_column)
        script = command_line(Path(path).name, settings, gone)
        paths = write_downloads(kept, trace, script, Path(path).name, Path(tempfile.mkdtemp(dir=temp_dir)))
    except RunCancelled:
        return (*nothing, "**Stopped:** the run was cancelled; nothing was written.")
    except Exception as error:  # noqa: BLE001 -- shown on the page, never as a traceback
        return (*nothing, _failure(error, path))
    review = review_table(trace, frame, settings)
    notes = []
    if gone:
        notes.append(f"{gone} candidate(s) unticked by hand left out of the download")
    if len(removed) > gone:
        notes.append(f"{len(removed) - gone} unticked candidate(s) were not made by this run")
    if ticked_dropped(edited):
        notes.append(f"{ticked_dropped(edited)} ticked dropped candidate(s) not added (only kept ones can be removed)")
    status = (f"**Done:** {paths[0].name}: {len(frame):,} original rows and {len(kept) - len(frame):,} augmentations. "
              + _counts(trace, summary) + _warned(said, path) + "".join(f"\n\nnote: {note}" for note in notes))
    return ([str(p) for p in paths], script, similarity_histogram(review), fates_per_step(trace),
            rows_per_label(frame, kept, settings.label_column), status)


def _shown(review: Any) -> Any:
    """The review table as the page shows it: ``keep`` as tick boxes, the other columns
    read-only, dropped candidates' rows grey. The greying goes as the value's ``styling``
    metadata: gradio shows it in an editable table too, where a pandas Styler value makes it
    warn that it will not (and the edited value comes back as plain data either way)."""
    if review is None or not len(review):
        return gr.update(value=None, visible=False)
    numbers = {"row", "similarity", *(c for c in review.columns if c.startswith("score_"))}
    types = ["bool" if c == "keep" else "number" if c in numbers else "str" for c in review.columns]
    value = {"headers": [str(c) for c in review.columns], "data": review.to_dict(orient="split")["data"],
             "metadata": {"styling": review_styling(review), "display_value": None}}
    return gr.update(value=value, datatype=types, static_columns=list(range(1, len(review.columns))),
                     column_widths=header_fitting_widths([str(c) for c in review.columns], COLUMN_WIDTHS, check_boxes=["keep"]),
                     visible=True)


def _visible(review: Any) -> Any:
    """Shown with candidates to look at, hidden otherwise (the plots with the review table)."""
    return gr.update(visible=review is not None and len(review) > 0)


def _plotted(data: Any) -> Any:
    """A plot's new data. Only the data: gradio 6 redraws a plot from stale data when its
    ``y_lim`` changes in the same update, so the y axis is set once, from 0 (:data:`FROM_ZERO`)."""
    return gr.update(value=data)


def _settings(pipeline: str | None, text: str | None, label: str | None, n: float | None, seed: float | None) -> RunSettings:
    return RunSettings(pipeline=(pipeline or "").strip(), n=1 if n is None else int(n), seed=0 if seed is None else int(seed),
                       text_column=text or "", label_column=label or None)


def _counts(trace: Any, summary: dict) -> str:
    candidates = trace[trace["fate"] != "none"]
    dropped = candidates.loc[candidates["fate"] == "dropped", "dropped_by"].value_counts()
    parts = [f"generated {len(candidates)} candidates, kept {int((candidates['fate'] == 'kept').sum())}"]
    if len(dropped):
        parts.append("dropped " + ", ".join(f"{count} by {step}" for step, count in dropped.items()))
    without = int((trace["fate"] == "none").sum())
    if without:
        parts.append(f"{without} row(s) got no candidate")
    return "; ".join(parts) + "."


def _warned(said: list[str], path: str) -> str:
    """The warnings a run gave, one paragraph each, with the upload's server path cut out."""
    return "".join(f"\n\n**warning:** {without_server_path(message, path)}" for message in said)


def _failure(error: BaseException, path: str) -> str:
    if isinstance(error, AugkitError):
        return status_line("Error", _message(error, path))
    _log.error("augkit serve: a run failed", exc_info=error)
    return status_line("Failed", _message(error, path))


def _message(error: BaseException, path: str) -> str:
    """The error in words, the upload's server path cut to its name; a library's own error
    (not augkit's) with its type, since its words may not say what failed."""
    text = without_server_path(error, path)
    return text if isinstance(error, AugkitError) else f"{type(error).__name__}: {text}"


def _choices(columns: list[str], value: str | None = None, *, none: bool = False) -> dict:
    return gr.update(choices=[*([("(none)", "")] if none and columns else []), *columns], value=value)
