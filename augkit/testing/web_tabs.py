"""Building a plugin's tab of ``augkit serve``'s page in a test, with the context the page
itself hands it."""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from augkit.registry.tab_context import TabContext


def tab_context(temp_dir: str | PathLike, max_file_size: int | None = None) -> TabContext:
    """The :class:`augkit.plugin.TabContext` ``augkit serve`` hands a tab's ``build(context)``,
    with ``temp_dir`` as the server's temporary folder and an upload limit of ``max_file_size``
    bytes (``None``: the page's default, 20 MB): a tab built with it, or its event handlers
    called with it, read and write files exactly as on the page. ``temp_dir`` is made if
    missing, as ``augkit serve`` makes its own.

    >>> context = tab_context(tmp_path, max_file_size=1000)  # doctest: +SKIP
    >>> context.read_upload(tmp_path / "big.csv")  # doctest: +SKIP
    Traceback (most recent call last):
    augkit.errors.InputError: the file is 2.4 KB; the limit is 1 KB (augkit serve --max-file-size)
    """
    from augkit.web.tab_context import PageTabContext
    from augkit.web.uploads import DEFAULT_MAX_FILE_SIZE, parse_size

    limit = parse_size(DEFAULT_MAX_FILE_SIZE) if max_file_size is None else max_file_size
    Path(temp_dir).mkdir(parents=True, exist_ok=True)
    return PageTabContext(max_file_size=limit, temp_dir=Path(temp_dir))
