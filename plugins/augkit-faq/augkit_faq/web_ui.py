"""The FAQ tab of ``augkit serve``'s page (gradio): upload an FAQ, pick its columns and the
options, run :func:`augkit_faq.paraphrase_faq`, review every candidate with its scores, untick
or tick any, download the augmented FAQ.

The three event handlers (:func:`load_upload`, :func:`paraphrase_upload`,
:func:`build_download`) are plain functions, so their messages are tested without a browser.
The upload rules are the page's own, from the :class:`~augkit.plugin.TabContext` the page hands
the tab (and each handler): everything the tab writes goes under the server's one temporary
folder; uploads above the size limit are refused by gradio's server and, with a message, by the
upload handler. Import this module only when serving: it imports gradio.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import gradio as gr

from augkit.plugin import AugkitError, TabContext
from augkit_faq.faq import DEFAULT_MIN_SIMILARITY, FaqResult, paraphrase_faq
from augkit_faq.faq_cli import format_summary
from augkit_faq.generators import (
    DEFAULT_GENERATOR,
    DEFAULT_NUM_RETURN,
    DEFAULT_TOP_K,
    DEFAULT_TOP_P,
    OFFLINE_GENERATOR,
)
from augkit_faq.review import REVIEW_COLUMNS, guess_columns, kept_ids, review_table

TITLE = "FAQ paraphrasing"
INTRO = (
    "Upload an FAQ (CSV, TSV, JSONL, Parquet or XLSX), pick its question and answer columns, and run. "
    "Each question is paraphrased; a paraphrase is accepted when it means the same (similarity >= the minimum) "
    "and, used as a query, finds its own question first. Untick any paraphrase you do not want, tick any rejected "
    "one you do, then build the augmented file."
)
#: The review table's column widths for their contents (pixels, or a share of the table),
#: widened for their headers.
REVIEW_WIDTHS = {"keep": 64, "question": "24%", "candidate": "28%", "status": 120, "meaning_change": 90, "semantic": 90,
                 "label_integrity": 90, "nearest_question": "20%", "candidate_id": 90}
_log = logging.getLogger(__name__)


def build_tab(context: TabContext, *, default_generator: str = OFFLINE_GENERATOR) -> None:
    """The FAQ tab's components and events, built inside the current gradio tab (or Blocks);
    ``context`` holds the upload limit, the server's temporary folder and the page's rules."""
    gr.Markdown(f"## {TITLE}\n{INTRO}")
    result_state = gr.State(None)
    upload, question_column, answer_column = context.table_upload(
        "FAQ file", "faq-file", (("question column", "question-column"), ("answer column", "answer-column")))
    with gr.Row():
        generator = gr.Dropdown(
            label="generator (an augkit method, a model id or a model folder)",
            choices=[OFFLINE_GENERATOR, DEFAULT_GENERATOR], value=default_generator,
            allow_custom_value=True, elem_id="generator",
        )
        n = gr.Number(label="most paraphrases per question (0: all accepted)", value=0, precision=0, minimum=0, elem_id="n")
        num_return = gr.Number(label="candidates per question", value=DEFAULT_NUM_RETURN, precision=0, minimum=1, elem_id="num-return")
    with gr.Row():
        top_k = gr.Number(label="top-k (model sampling)", value=DEFAULT_TOP_K, precision=0, minimum=0, elem_id="top-k")
        top_p = gr.Number(label="top-p (model sampling)", value=DEFAULT_TOP_P, minimum=0.01, maximum=1.0, elem_id="top-p")
        min_similarity = gr.Number(label="minimum similarity (step a)", value=DEFAULT_MIN_SIMILARITY, minimum=-1, maximum=1, elem_id="min-similarity")
        seed = gr.Number(label="seed", value=0, precision=0, elem_id="seed")
    run = gr.Button("Paraphrase", variant="primary", elem_id="run")
    status = gr.Markdown("", elem_id="status")
    # Shown once a run has made candidates (an editable empty table offers a button adding
    # rows), and the download once a file is built.
    review = gr.Dataframe(
        headers=REVIEW_COLUMNS,
        datatype=["bool", "str", "str", "str", "number", "number", "str", "number"],
        interactive=True, static_columns=[1, 2, 3, 4, 5, 6, 7], wrap=True, elem_id="review", visible=False,
        column_widths=context.header_fitting_widths(REVIEW_COLUMNS, REVIEW_WIDTHS, check_boxes=["keep"]),
        label="candidates (tick 'keep' to include a paraphrase in the file)",
    )
    build = gr.Button("Build augmented file", elem_id="build")
    download = gr.File(label="augmented FAQ", interactive=False, elem_id="download", visible=False)

    def on_upload(path):
        return load_upload(path, context)

    def on_run(path, question, answer, generator_name, most, count, k, p, minimum, seed_value):
        result, table, message = paraphrase_upload(path, question, answer, generator_name, most, count, k, p, minimum,
                                                   seed_value, context=context)
        shown = table is not None and len(table) > 0
        return result, gr.update(value=table if shown else None, visible=shown), gr.update(value=None, visible=False), message

    def on_build(path, result, edited):
        file, message = build_download(path, result, edited, context=context)
        return gr.update(value=file, visible=file is not None), message

    upload.change(on_upload, inputs=upload, outputs=[question_column, answer_column, status])
    run.click(on_run, inputs=[upload, question_column, answer_column, generator, n, num_return, top_k, top_p,
                              min_similarity, seed], outputs=[result_state, review, download, status])
    build.click(on_build, inputs=[upload, result_state, review], outputs=[download, status])


def load_upload(path: str | None, context: TabContext) -> tuple[dict, dict, str]:
    """On upload: the two column dropdowns (filled, likely columns preselected) and a status
    line; an oversized or unreadable file empties the dropdowns and says why."""
    if not path:
        return _no_columns(), _no_columns(), ""
    try:
        columns = [str(c) for c in context.read_upload(path).columns]
    except AugkitError as error:
        return _no_columns(), _no_columns(), f"**Cannot use this file:** {context.without_server_path(error, path)}"
    except Exception as error:  # noqa: BLE001 -- a reader library's own failure: say it on the page, log the traceback
        _log.exception("augkit serve: reading an upload failed")
        return _no_columns(), _no_columns(), f"**Cannot use this file:** {type(error).__name__}: {context.without_server_path(error, path)}"
    question, answer = guess_columns(columns)
    message = f"{Path(path).name}: columns {', '.join(columns)}"
    return gr.update(choices=columns, value=question), gr.update(choices=columns, value=answer), message


def paraphrase_upload(
    path: str | None, question: str | None, answer: str | None, generator: str | None,
    n: float | None, num_return: float | None, top_k: float | None, top_p: float | None,
    min_similarity: float | None, seed: float | None, *, context: TabContext,
) -> tuple[FaqResult | None, Any, str]:
    """On "Paraphrase": the result (kept in the session), the review table and the per-step
    counts with any notes. An empty number field means its default (``n``: every accepted
    paraphrase). A failure gives no result and its message, never a traceback."""
    if not path:
        return None, None, "**Upload an FAQ file first.**"
    try:
        result = paraphrase_faq(
            context.read_upload(path), question, answer, n=_whole(n, 0) or None,
            generator=(generator or "").strip(), seed=_whole(seed, 0), num_return=_whole(num_return, DEFAULT_NUM_RETURN),
            top_k=_whole(top_k, DEFAULT_TOP_K), top_p=_real(top_p, DEFAULT_TOP_P),
            min_similarity=_real(min_similarity, DEFAULT_MIN_SIMILARITY),
        )
    except AugkitError as error:
        return None, None, context.status_line("Error", context.without_server_path(error, path))
    except Exception as error:  # noqa: BLE001 -- a model library's own failure: say it on the page, log the traceback
        _log.exception("augkit serve: paraphrasing failed")
        return None, None, f"**Failed:** {type(error).__name__}: {error}"
    return result, review_table(result.candidates), _status(result.summary)


def build_download(path: str | None, result: FaqResult | None, edited: Any, *, context: TabContext) -> tuple[str | None, str]:
    """On "Build augmented file": the augmented FAQ with exactly the ticked candidates, written
    to a fresh folder inside the server's temporary folder in the upload's format (else CSV),
    and a status line."""
    if result is None:
        return None, "**Run the paraphrasing first.**"
    kept = kept_ids(edited)
    target = context.download_path(Path(path).name if path else "faq.csv")
    try:
        _write(result.table_for(kept), target)
    except AugkitError as error:
        return None, f"**Error:** {error}"
    return str(target), f"{target.name}: {result.summary['rows']} original rows and {len(kept)} paraphrases"


def _status(summary: dict[str, Any]) -> str:
    lines = format_summary(summary, 0.0).splitlines()
    lines[0] = lines[0].rsplit(" in ", 1)[0]  # the UI has no use for the timing
    return "\n\n".join(line.strip() for line in lines)


def _no_columns() -> dict:
    return gr.update(choices=[], value=None)


def _whole(value: float | None, default: int) -> int:
    return default if value is None else int(value)


def _real(value: float | None, default: float) -> float:
    return default if value is None else float(value)


def _write(table: Any, path: Path) -> None:
    from augkit.plugin import write_table

    write_table(table, path)
