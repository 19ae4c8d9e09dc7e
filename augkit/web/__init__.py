"""``augkit serve``: the browser page for every method (extra ``augkit[ui]``).

The upload rules every tab shares live in :mod:`augkit.web.uploads` (size limit, workbook
limits, the download's name, messages without server paths); plugins that add a tab
(``register_web_tabs`` hook) reach them, and :class:`TabContext`, through :mod:`augkit.plugin`. Importing this package imports no
gradio, pandas, numpy or torch; only :mod:`augkit.web.app` imports gradio, when serving.
"""

from __future__ import annotations

from augkit.web.uploads import (
    DEFAULT_MAX_FILE_SIZE,
    UPLOAD_FILE_TYPES,
    check_upload_size,
    download_path,
    format_size,
    parse_size,
    read_upload,
    upload_xlsx_limits,
    without_server_path,
)

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "UPLOAD_FILE_TYPES",
    "check_upload_size",
    "download_path",
    "format_size",
    "parse_size",
    "read_upload",
    "upload_xlsx_limits",
    "without_server_path",
]


from dataclasses import dataclass  # noqa: E402  (kept beside the one class that needs it)
from pathlib import Path  # noqa: E402


@dataclass(frozen=True)
class TabContext:
    """What a tab of ``augkit serve``'s page is built with: the upload limit in bytes and the
    server's temporary folder, the only place a tab may write files."""

    max_file_size: int
    temp_dir: Path


__all__.append("TabContext")
