"""The :class:`~augkit.registry.tab_context.TabContext` ``augkit serve``'s page hands each tab:
:class:`PageTabContext`, the page's own upload rules (:mod:`augkit.web.uploads`), file picker
and table widths (:mod:`augkit.web.widgets`) and status line (:mod:`augkit.web.status`).

Building one imports no gradio: :meth:`PageTabContext.table_upload` imports it when called.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augkit.registry.tab_context import TabContext
from augkit.web import status, uploads


@dataclass(frozen=True)
class PageTabContext(TabContext):
    """What a tab of the page is built with: the upload limit in bytes and the server's
    temporary folder, and the page's rules bound to them (each method says its rule in
    :class:`~augkit.registry.tab_context.TabContext`)."""

    max_file_size: int
    temp_dir: Path
    upload_file_types: tuple[str, ...] = tuple(uploads.UPLOAD_FILE_TYPES)

    def read_upload(self, path: str | Path) -> Any:
        return uploads.read_upload(path, self.max_file_size)

    def without_server_path(self, error: BaseException | str, path: str | Path | None) -> str:
        return uploads.without_server_path(error, path)

    def download_path(self, upload_name: str, tag: str = "augmented") -> Path:
        return uploads.download_path(upload_name, Path(tempfile.mkdtemp(dir=self.temp_dir)), tag)

    def table_upload(self, label: str, elem_id: str,
                     columns: tuple[tuple[str, str], tuple[str, str]]) -> tuple[Any, Any, Any]:
        from augkit.web.widgets import table_upload  # imports gradio

        return table_upload(label, elem_id, columns)

    def header_fitting_widths(self, headers: Sequence[str], widths: Mapping[str, int | str], *,
                              default: int = 100, check_boxes: Sequence[str] = ()) -> list[str]:
        from augkit.web.widgets import (
            header_fitting_widths,  # its module imports gradio
        )

        return header_fitting_widths(headers, widths, default=default, check_boxes=check_boxes)

    def status_line(self, label: str, message: str) -> str:
        return status.status_line(label, message)
