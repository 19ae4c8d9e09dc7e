"""The page of ``augkit serve``: the general tab (every method, :mod:`augkit.web.general_page`)
and one tab per plugin that registers one (``register_web_tabs``; the FAQ page of augkit-faq).

Imports gradio: import it only to serve (``augkit serve`` points ``$GRADIO_TEMP_DIR`` at its
own temporary folder first, since gradio reads it when imported).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import gradio as gr

from augkit.web.general_page import build_general_tab
from augkit.web.tab_context import PageTabContext

TITLE = "augkit"
_log = logging.getLogger(__name__)


def build_app(max_file_size: int, temp_dir: str | Path, *, registry: Any = None) -> gr.Blocks:
    """The page; ``max_file_size`` in bytes, ``temp_dir`` the folder built files go to.
    Launch it with ``max_file_size`` too, so that the server itself refuses larger uploads.
    A plugin tab that fails to build is left out with a note on the page (and in the log)."""
    from augkit.registry.discovery import get_registry

    registry = registry if registry is not None else get_registry()
    context = PageTabContext(max_file_size=max_file_size, temp_dir=Path(temp_dir))
    with gr.Blocks(title=TITLE, analytics_enabled=False, delete_cache=(3600, 3600)) as app:
        gr.Markdown(f"# {TITLE}: text data augmentation")
        with gr.Tabs():
            with gr.Tab("Augment", id="augment", elem_id="tab-augment"):
                build_general_tab(context, registry)
            for name, tab in sorted(registry.web_tabs.items()):
                with gr.Tab(tab.title, id=name, elem_id=f"tab-{name}"):
                    try:
                        tab.build(context)
                    except Exception as error:  # noqa: BLE001 -- a broken plugin tab must not take the page down
                        _log.error("augkit serve: tab %r of plugin %r failed to build", name, tab.plugin.name, exc_info=error)
                        gr.Markdown(f"**This tab failed to build** (plugin {tab.plugin.distribution}): "
                                    f"{type(error).__name__}: {error}")
    return app
