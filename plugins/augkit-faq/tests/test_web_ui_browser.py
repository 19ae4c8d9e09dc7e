"""The FAQ tab in a real browser: headless Debian Chromium driven by Playwright uploads a
StackFAQ slice, runs the offline generator, unticks the accepted paraphrase and ticks a
rejected one, downloads the augmented FAQ and checks its rows; an upload over the size limit
is refused with a visible message; `augkit serve` run as a command shows the FAQ tab beside the
general page and keeps its files in one temporary folder. Skipped only off CI when Chromium is
missing (the conftest's chromium_browser)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.slow


@pytest.fixture
def serve(launch_on_free_port):
    """``serve(limit, temp_dir, **options)``: the FAQ tab alone on a page, launched."""
    def start(limit: int, temp_dir: Path, **options):
        import gradio as gr
        from augkit_faq.web_ui import build_tab

        from augkit.testing import tab_context

        with gr.Blocks(analytics_enabled=False) as app:
            build_tab(tab_context(temp_dir, max_file_size=limit), **options)
        return app, launch_on_free_port(app, limit)

    return start


@pytest.fixture
def faq_file(tmp_path, stackfaq) -> Path:
    path = tmp_path / "stackfaq.csv"
    stackfaq.iloc[:8].to_csv(path, index=False)
    return path


#: Every header of the review table on one line: its text no taller than one line of its font.
_HEADERS_ON_ONE_LINE = """() => Array.from(document.querySelectorAll('#review thead th')).map(th => {
    const text = th.querySelector('.header');
    const range = document.createRange();
    range.selectNodeContents(text);
    return [th.innerText.trim(), range.getBoundingClientRect().height <= parseFloat(getComputedStyle(text).lineHeight) * 1.2];
})"""


def _wait_for_status(page, text: str, timeout: float = 120) -> str:
    page.wait_for_function(f"document.querySelector('#status').innerText.includes({text!r})", timeout=timeout * 1000)
    return page.locator("#status").inner_text()


def test_upload_run_review_and_download(chromium_browser, serve_temp_dir, faq_file, tmp_path, serve):
    browser, temp_dir = chromium_browser, serve_temp_dir
    # back-translation alone gives these 8 questions no accepted paraphrase (its 3 candidates
    # change the meaning or drift); with EDA's too there is something to untick and to tick
    app, url = serve(20_000_000, temp_dir, default_generator="backtranslation+eda")
    try:
        page = browser.new_page(accept_downloads=True)
        page.goto(url)
        page.locator("#faq-file input[type=file]").set_input_files(str(faq_file))
        assert "columns question, answer" in _wait_for_status(page, "columns", 60)
        assert page.locator("#question-column input").input_value() == "question"
        assert page.locator("#answer-column input").input_value() == "answer"
        assert page.locator("#generator input").input_value() == "backtranslation+eda"
        # nothing to review or download yet: no empty table offering to add rows, no empty file box
        assert not page.locator("#review").is_visible() and page.locator(".add-row-button").count() == 0
        assert not page.locator("#download").is_visible()
        page.locator("#num-return input").fill("2")
        page.locator("#run").click()
        status = _wait_for_status(page, "kept")
        assert "8 questions paraphrased" in status
        page.wait_for_function("document.querySelectorAll('#review div.virtual-row').length > 0", timeout=30_000)
        headers = page.evaluate(_HEADERS_ON_ONE_LINE)
        assert headers and all(one_line for _, one_line in headers), headers  # 'keep', not 'ke / ep'
        assert not page.locator("#download").is_visible()

        count = page.locator("#review div.virtual-row").count()
        texts = [page.locator(f'#review [data-testid="cell-{r}-2"]').inner_text().strip() for r in range(count)]
        boxes = [page.locator(f'#review [data-testid="cell-{r}-0"] input[type=checkbox]') for r in range(count)]
        ticked = [box.is_checked() for box in boxes]
        assert texts and any(ticked) and not all(ticked), (texts, ticked)
        untick = ticked.index(True)
        tick = ticked.index(False)
        boxes[untick].click()
        boxes[tick].click()
        time.sleep(1)  # let the table's edit reach the server before building
        page.locator("#build").click()
        _wait_for_status(page, "paraphrases", 60)
        with page.expect_download() as download:
            page.locator("#download a").first.click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        # The upload and the built file are in the app's folder (gradio's delete_cache clears it on close).
        assert list(temp_dir.rglob("stackfaq.csv")) and list(temp_dir.rglob("stackfaq-augmented.csv"))
    finally:
        app.close()

    assert saved.name == "stackfaq-augmented.csv"
    source = pd.read_csv(faq_file, dtype=str, keep_default_na=False)
    out = pd.read_csv(saved, dtype=str, keep_default_na=False)
    originals = out[out["augkit_method"] == ""]
    assert originals[["question", "answer"]].reset_index(drop=True).equals(source)
    added = out[out["augkit_method"] == "faq"]
    chosen = [text for position, text in enumerate(texts) if (ticked[position] and position != untick) or position == tick]
    assert sorted(added["question"]) == sorted(chosen)  # the ticked reject in, the unticked paraphrase out
    assert texts[tick] in added["question"].tolist() and texts[untick] not in added["question"].tolist()
    for _, row in added.iterrows():
        assert row["answer"] == source.loc[int(row["augkit_source"]), "answer"]
    assert len(out) == len(source) + len(chosen)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_command_keeps_its_files_in_one_temporary_folder_and_removes_it(chromium_browser, faq_file, tmp_path, stop, free_tcp_port):
    browser = chromium_browser
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    port = free_tcp_port()
    env = {**os.environ, "TMPDIR": str(scratch), "GRADIO_TEMP_DIR": ""}
    server = subprocess.Popen([sys.executable, "-m", "augkit.cli", "serve", "--port", str(port)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        _wait_for_port(port, server)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.get_by_role("tab", name="FAQ paraphrasing").click()  # the FAQ page is a tab of the general page
        page.locator("#faq-file input[type=file]").set_input_files(str(faq_file))
        _wait_for_status(page, "columns", 60)
        folders = list(scratch.glob("augkit-serve-*"))
        assert len(folders) == 1 and list(folders[0].rglob("stackfaq.csv"))  # the upload landed in it
    finally:
        server.send_signal(stop)
        output, _ = server.communicate(timeout=30)
    assert "augkit serve: http://127.0.0.1:" in output
    assert server.returncode == 0 and "augkit serve: stopped; removed" in output
    assert list(scratch.glob("augkit-serve-*")) == []  # removed when the server stopped


def _wait_for_port(port: int, server, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"augkit serve exited: {server.communicate()[0]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise AssertionError("augkit serve did not start listening")


def test_an_upload_over_the_limit_is_refused_with_a_message(chromium_browser, serve_temp_dir, faq_file, serve):
    browser, temp_dir = chromium_browser, serve_temp_dir
    app, url = serve(1000, temp_dir)
    try:
        page = browser.new_page()
        page.goto(url)
        page.locator("#faq-file input[type=file]").set_input_files(str(faq_file))
        page.get_by_text("exceed the maximum allowed size").wait_for(timeout=30_000)
        assert page.locator("#question-column input").input_value() == ""
    finally:
        app.close()
