"""The browser UI of ``augkit serve`` (gradio): upload an FAQ, pick its columns and the
options, run :func:`augkit_faq.paraphrase_faq`, review every candidate with its scores, untick
or tick any, download the augmented FAQ.

Everything the app writes goes under the one temporary folder it is given; uploads above the
size limit are refused by gradio's server and, with a message, by the upload handler.
Import this module only when serving: it imports gradio.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import gradio as gr

from augkit.errors import AugkitError
from augkit_faq.faq import DEFAULT_MIN_SIMILARITY, paraphrase_faq
from augkit_faq.faq_cli import format_summary
from augkit_faq.generators import DEFAULT_GENERATOR, DEFAULT_NUM_RETURN, DEFAULT_TOP_K, DEFAULT_TOP_P, OFFLINE_GENERATOR
from augkit_faq.review import check_upload_size, download_path, guess_columns, kept_ids, review_table

TITLE = "augkit FAQ paraphrasing"
INTRO = (
    "Upload an FAQ (CSV, TSV, JSONL, Parquet or XLSX), pick its question and answer columns, and run. "
    "Each question is paraphrased; a paraphrase is accepted when it means the same (similarity >= the minimum) "
    "and, used as a query, finds its own question first. Untick any paraphrase you do not want, tick any rejected "
    "one you do, then build the augmented file."
)


def build_app(max_file_size: int, temp_dir: str | Path, *, default_generator: str = OFFLINE_GENERATOR) -> gr.Blocks:
    """The app; ``max_file_size`` in bytes, ``temp_dir`` the only folder it writes to."""
    temp_dir = Path(temp_dir)
    with gr.Blocks(title=TITLE, analytics_enabled=False, delete_cache=(3600, 3600)) as app:
        gr.Markdown(f"# {TITLE}\n{INTRO}")
        result_state = gr.State(None)
        with gr.Row():
            upload = gr.File(label="FAQ file", file_types=[".csv", ".tsv", ".jsonl", ".parquet", ".xlsx"],
                             type="filepath", elem_id="faq-file")
            with gr.Column():
                question_column = gr.Dropdown(label="question column", choices=[], elem_id="question-column")
                answer_column = gr.Dropdown(label="answer column", choices=[], elem_id="answer-column")
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
        review = gr.Dataframe(
            headers=["keep", "question", "candidate", "status", "semantic", "label_integrity", "nearest_question", "candidate_id"],
            datatype=["bool", "str", "str", "str", "number", "number", "str", "number"],
            interactive=True, static_columns=[1, 2, 3, 4, 5, 6, 7], wrap=True, elem_id="review",
            column_widths=["64px", "24%", "28%", "120px", "90px", "90px", "20%", "90px"],
            label="candidates (tick 'keep' to include a paraphrase in the file)",
        )
        build = gr.Button("Build augmented file", elem_id="build")
        download = gr.File(label="augmented FAQ", interactive=False, elem_id="download")

        def on_upload(path: str | None):
            if not path:
                return gr.update(choices=[], value=None), gr.update(choices=[], value=None), ""
            try:
                check_upload_size(path, max_file_size)
                columns = [str(c) for c in _read(path).columns]
            except AugkitError as error:
                return gr.update(choices=[], value=None), gr.update(choices=[], value=None), f"**Cannot use this file:** {error}"
            question, answer = guess_columns(columns)
            message = f"{Path(path).name}: columns {', '.join(columns)}"
            return gr.update(choices=columns, value=question), gr.update(choices=columns, value=answer), message

        def on_run(path, question, answer, generator_name, most, count, k, p, minimum, seed_value):
            if not path:
                return None, None, "**Upload an FAQ file first.**"
            try:
                check_upload_size(path, max_file_size)
                result = paraphrase_faq(
                    _read(path), question, answer, n=int(most) or None, generator=str(generator_name).strip(),
                    seed=int(seed_value), num_return=int(count), top_k=int(k), top_p=float(p),
                    min_similarity=float(minimum),
                )
            except AugkitError as error:
                return None, None, f"**Error:** {error}"
            return result, review_table(result.candidates), _status(result.summary)

        def on_build(path, result, edited):
            if result is None:
                return None, "**Run the paraphrasing first.**"
            target = download_path(Path(path).name if path else "faq.csv", Path(tempfile.mkdtemp(dir=temp_dir)))
            try:
                _write(result.table_for(kept_ids(edited)), target)
            except AugkitError as error:
                return None, f"**Error:** {error}"
            kept = len(kept_ids(edited))
            return str(target), f"{target.name}: {result.summary['rows']} original rows and {kept} paraphrases"

        upload.change(on_upload, inputs=upload, outputs=[question_column, answer_column, status])
        run.click(on_run, inputs=[upload, question_column, answer_column, generator, n, num_return, top_k, top_p,
                                  min_similarity, seed], outputs=[result_state, review, status])
        build.click(on_build, inputs=[upload, result_state, review], outputs=[download, status])
    return app


def _status(summary: dict[str, Any]) -> str:
    lines = format_summary(summary, 0.0).splitlines()
    lines[0] = lines[0].rsplit(" in ", 1)[0]  # the UI has no use for the timing
    return "\n\n".join(line.strip() for line in lines)


def _read(path: str) -> Any:
    from augkit.table_io import read_table

    return read_table(path)


def _write(table: Any, path: Path) -> None:
    from augkit.table_io import write_table

    write_table(table, path)
