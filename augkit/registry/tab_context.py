"""What ``augkit serve``'s page hands a plugin's tab: :class:`TabContext`.

A tab (``register_web_tabs``) reads uploads, names its downloads and says its errors by the
page's own rules, so that every tab refuses the same files with the same words. The page
hands it those rules with the context its ``build(context)`` receives, as the command line
hands a command its :class:`~augkit.registry.command_context.CommandContext`: no plugin
imports ``augkit.web``, and nothing below the page reaches up to it. This module says what a
context holds; ``augkit.web.tab_context`` is the page's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class TabContext(Protocol):
    """Handed to a tab's ``build(context)`` while ``augkit serve`` builds its page.

    ``max_file_size`` is the upload limit in bytes (``--max-file-size``), ``temp_dir`` the
    server's temporary folder, the only place a tab may write files, and
    ``upload_file_types`` the formats the page's file pickers accept:

    >>> def build(context):
    ...     import gradio as gr
    ...     upload, text, label = context.table_upload(
    ...         "table", "my-file", (("text column", "my-text"), ("label column", "my-label")))
    ...     status = gr.Markdown()
    ...     def on_upload(path):
    ...         try:
    ...             columns = list(context.read_upload(path).columns)
    ...         except Exception as error:
    ...             return context.status_line("Cannot use this file", context.without_server_path(error, path))
    ...         return f"columns {', '.join(columns)}"
    ...     upload.change(on_upload, inputs=upload, outputs=status)
    """

    max_file_size: int
    temp_dir: Path
    upload_file_types: tuple[str, ...]

    def read_upload(self, path: str | Path) -> Any:
        """The uploaded table as a pandas DataFrame, in any format augkit reads; a file over
        ``max_file_size``, or a workbook that inflates past the page's limits, is refused
        with an ``InputError`` saying both sizes."""
        ...

    def without_server_path(self, error: BaseException | str, path: str | Path | None) -> str:
        """The message of ``error`` with the upload's server-side path (and its folder) cut to
        the file name: what a tab shows a user."""
        ...

    def download_path(self, upload_name: str, tag: str = "augmented") -> Path:
        """Where a built file goes: ``<name>-<tag><suffix>`` in a new folder of its own inside
        ``temp_dir`` (two sessions' files never overwrite each other), in the upload's format
        when augkit can write it, else CSV."""
        ...

    def table_upload(self, label: str, elem_id: str,
                     columns: tuple[tuple[str, str], tuple[str, str]]) -> tuple[Any, Any, Any]:
        """The file picker (``upload_file_types``) beside two column dropdowns; ``columns`` gives
        each dropdown's label and element id. Returns the three gradio components."""
        ...

    def header_fitting_widths(self, headers: Sequence[str], widths: Mapping[str, int | str], *,
                              default: int = 100, check_boxes: Sequence[str] = ()) -> list[str]:
        """``column_widths`` for a ``gr.Dataframe`` whose headers each stay on one line:
        ``widths`` in pixels or a ``"24%"`` share (else ``default`` pixels), widened to what
        each header needs; ``check_boxes`` name the columns of tick boxes."""
        ...

    def status_line(self, label: str, message: str) -> str:
        """``**label:** message`` for a Markdown status line, the message's lines after its
        first kept as written (the missing models of a run, and the commands that fetch them)."""
        ...
