"""The context ``augkit serve``'s page hands a plugin's tab (``register_web_tabs``): an
:class:`augkit.plugin.TabContext` carrying the page's own upload rules, bound to the server's
upload limit and temporary folder, so that a plugin's tab reaches them without importing the
page (issue 36, item 6)."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import augkit.plugin
from augkit.errors import InputError
from augkit.registry.tab_context import TabContext
from augkit.testing import tab_context
from augkit.web.tab_context import PageTabContext


@pytest.fixture
def trec_questions(shared_data) -> pd.DataFrame:
    """TREC's test questions with their coarse labels (the EDA paper's file: label, tab, text)."""
    lines = (shared_data / "trec" / "eda_nlp" / "test" / "test.txt").read_text(encoding="utf-8").splitlines()
    labels, texts = zip(*(line.split("\t", 1) for line in lines))
    return pd.DataFrame({"question": [text.strip() for text in texts], "label": labels})


@pytest.fixture
def built_context(tmp_path) -> tuple[TabContext, object]:
    """The context the page hands a plugin's tab, as its ``build(context)`` receives it (upload
    limit 5 KB, temporary folder ``tmp_path / "serve"``), and the page."""
    from augkit.registry.discovery import get_registry
    from augkit.registry.registered import PluginInfo, Registry
    from augkit.web.app import build_app

    built = []
    installed = get_registry()
    registry = Registry(methods=dict(installed.methods), filters=dict(installed.filters))
    registry.add_web_tab("notes", built.append, title="Notes", plugin=PluginInfo("n", "augkit-notes", "1"))
    (tmp_path / "serve").mkdir()
    app = build_app(5_000, tmp_path / "serve", registry=registry)
    assert len(built) == 1
    return built[0], app


def test_a_tab_is_handed_the_page_rules_bound_to_the_server_limit_and_folder(built_context, trec_questions, tmp_path):
    context, app = built_context
    assert isinstance(context, augkit.plugin.TabContext)
    assert context == tab_context(tmp_path / "serve", max_file_size=5_000)  # what plugins' tests build
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    small, large = uploads / "trec.csv", uploads / "trec-all.csv"
    trec_questions.iloc[:20].to_csv(small, index=False)
    trec_questions.to_csv(large, index=False)
    assert context.read_upload(small)["question"].tolist() == trec_questions["question"].iloc[:20].tolist()
    with pytest.raises(InputError, match=r"the file is 1\d\.\d KB; the limit is 5 KB"):
        context.read_upload(large)
    empty = uploads / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError) as refused:
        context.read_upload(empty)
    assert str(uploads) in str(refused.value)
    assert context.without_server_path(refused.value, empty).startswith("input file 'empty.csv' is empty")


def test_each_built_file_gets_a_folder_of_its_own_inside_the_server_folder(built_context, tmp_path):
    context, _ = built_context
    first, second = context.download_path("/elsewhere/trec.xlsx"), context.download_path("trec.xlsx")
    assert first.name == second.name == "trec-augmented.xlsx"
    assert first.parent != second.parent
    assert all(path.parent.is_dir() and path.parent.parent == tmp_path / "serve" for path in (first, second))
    assert context.download_path("trec.txt", tag="trace").name == "trec-trace.csv"  # a format augkit cannot write: CSV


def test_a_tab_file_picker_accepts_what_the_general_tab_accepts(built_context):
    import gradio as gr

    context, app = built_context
    pickers = [block for block in app.blocks.values() if isinstance(block, gr.File) and block.elem_id == "aug-file"]
    assert list(context.upload_file_types) == pickers[0].file_types
    with gr.Blocks(analytics_enabled=False) as tab:
        upload, first, second = context.table_upload("questions", "q-file", (("text", "q-text"), ("label", "q-label")))
    assert upload.file_types == pickers[0].file_types and upload.elem_id == "q-file"
    assert (first.label, second.elem_id) == ("text", "q-label") and tab.blocks
    assert context.header_fitting_widths(["keep", "question"], {"keep": 20, "question": "60%"}, check_boxes=["keep"]) == [
        "96px", "60%"]
    assert context.status_line("Error", "2 models are missing:\n  - 'gpt2'") == "**Error:** 2 models are missing:\n\n```\n  - 'gpt2'\n```"


def _declared(protocol: type) -> dict[str, object]:
    """The members a protocol declares: its annotated attributes and its methods."""
    members = {name: None for name in protocol.__annotations__}
    members |= {name: value for name, value in vars(protocol).items()
                if inspect.isfunction(value) and not name.startswith("_")}
    return members


def test_the_page_context_has_every_member_the_tab_context_declares_with_its_signature(tmp_path):
    declared = _declared(TabContext)
    assert {"max_file_size", "temp_dir", "upload_file_types", "read_upload", "download_path", "status_line"} <= set(declared)
    page = PageTabContext(max_file_size=1, temp_dir=tmp_path)
    for name, method in declared.items():
        assert hasattr(page, name), f"PageTabContext lacks {name}"
        if method is not None:
            assert inspect.signature(getattr(PageTabContext, name)) == inspect.signature(method), name


def test_the_reader_of_declared_members_misses_nothing_a_protocol_adds():
    from typing import Protocol

    class Wider(TabContext, Protocol):
        extra: int

        def shout(self) -> str: ...

    assert {"extra", "shout"} <= set(_declared(Wider)) and "read_upload" not in _declared(Wider)


def test_the_testing_context_is_the_page_default_and_makes_its_folder(tmp_path):
    context = tab_context(tmp_path / "serve" / "tabs")
    assert context.max_file_size == 20_000_000  # augkit serve's --max-file-size default, 20MB
    assert context.download_path("faq.jsonl").parent.parent == tmp_path / "serve" / "tabs"
