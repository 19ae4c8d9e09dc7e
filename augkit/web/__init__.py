"""``augkit serve``: the browser page for every method (extra ``augkit[ui]``).

The upload rules every tab shares live in :mod:`augkit.web.uploads` (size limit, workbook
limits, the download's name, messages without server paths); a plugin's tab
(``register_web_tabs`` hook) reaches them through the context its ``build(context)`` is handed
(:mod:`augkit.web.tab_context`). Importing this package imports no
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

