"""Pieces of the page every tab builds the same way (imports gradio: use it inside a tab's
``build``). Plugin tabs reach :func:`table_upload` through :mod:`augkit.plugin`."""

from __future__ import annotations

from typing import Any

import gradio as gr

from augkit.web.uploads import UPLOAD_FILE_TYPES


def table_upload(label: str, elem_id: str, columns: tuple[tuple[str, str], tuple[str, str]]) -> tuple[Any, Any, Any]:
    """A row with the file picker (the page's upload formats) beside two column dropdowns,
    filled when a file is uploaded. ``columns`` gives each dropdown's label and element id.
    Returns the file component and the two dropdowns."""
    with gr.Row():
        upload = gr.File(label=label, file_types=UPLOAD_FILE_TYPES, type="filepath", elem_id=elem_id)
        with gr.Column():
            first, second = (gr.Dropdown(label=text, choices=[], elem_id=column_id) for text, column_id in columns)
    return upload, first, second
