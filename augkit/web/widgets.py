"""Pieces of the page every tab builds the same way (imports gradio: use it inside a tab's
``build``). Plugin tabs reach :func:`table_upload` through :mod:`augkit.plugin`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gradio as gr

from augkit.web.uploads import UPLOAD_FILE_TYPES

#: What a table header takes on one line, measured in Chromium: its text in gradio's bold
#: 14 px monospace (8.4 px a character; 9 leaves room for a wider fallback font), the cell's
#: padding and the read-only lock with its gap (31 px; 40 with room to spare), and a check-box
#: column's select-all box with its gap (20 px). A narrower column wraps its header, down to a
#: letter per line ("k e e p").
HEADER_CHAR_PX = 9
HEADER_ICONS_PX = 40
SELECT_ALL_PX = 20


def header_fitting_widths(headers: Sequence[str], widths: Mapping[str, int | str], *, default: int = 100,
                          check_boxes: Sequence[str] = ()) -> list[str]:
    """``column_widths`` for a ``gr.Dataframe`` whose headers each stay on one line: a column's
    own width (``widths``, pixels or a ``"24%"`` share, else ``default`` pixels), widened in
    pixels to what its header needs; ``check_boxes`` name the columns of tick boxes, whose
    header holds a select-all box too."""
    fitted = []
    for header in headers:
        own = widths.get(header, default)
        if isinstance(own, str):  # a share of the table: wide columns, whose headers fit
            fitted.append(own)
            continue
        needs = HEADER_CHAR_PX * len(header) + HEADER_ICONS_PX + (SELECT_ALL_PX if header in check_boxes else 0)
        fitted.append(f"{max(own, needs)}px")
    return fitted


def table_upload(label: str, elem_id: str, columns: tuple[tuple[str, str], tuple[str, str]]) -> tuple[Any, Any, Any]:
    """A row with the file picker (the page's upload formats) beside two column dropdowns,
    filled when a file is uploaded. ``columns`` gives each dropdown's label and element id.
    Returns the file component and the two dropdowns."""
    with gr.Row():
        upload = gr.File(label=label, file_types=UPLOAD_FILE_TYPES, type="filepath", elem_id=elem_id)
        with gr.Column():
            first, second = (gr.Dropdown(label=text, choices=[], elem_id=column_id) for text, column_id in columns)
    return upload, first, second
