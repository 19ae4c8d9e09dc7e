"""ParaNet (section 4) and ParaMod (appendix A): sources of 60-100 characters with about 250
characters of whole adjacent sentences on each side, taken from real running text (the JHU
COVID-19 FAQ answers, hard-wrapped, one paragraph each); `augkit paramac build-pairs` end to
end on the tiny models through the command line, killed and resumed, refused while another
run holds the job, refusing bad arguments; and `augkit train paraphraser --preset paramod` on
the pairs it wrote."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from augkit_paramac.paranet import (
    PAIR_COLUMNS,
    normalise_space,
    sample_sources,
    select_sources,
    table_sources,
    text_paragraphs,
)

from augkit.testing import run_command

COVID_FAQ = Path("covidfaq_jhu") / "bert-faq" / "query_answer_pairs.json"
SAMPLE, SEED, CHUNK_ROWS = 12, 7, 3


def covid_answers(shared_data: Path) -> list[str]:
    """The 67 distinct answers of the COVID-19 FAQ, in the order they first appear."""
    records = json.loads((shared_data / COVID_FAQ).read_text(encoding="utf-8"))
    return list(dict.fromkeys(normalise_space(record["answer"]) for record in records))


@pytest.fixture(scope="module")
def answers(shared_data) -> list[str]:
    return covid_answers(shared_data)


@pytest.fixture(scope="module")
def corpus(answers, tmp_path_factory) -> Path:
    """The answers as running text: one paragraph each, hard-wrapped at 72 columns, blank
    lines between paragraphs (as a book exported to text)."""
    path = tmp_path_factory.mktemp("corpus") / "covid-faq.txt"
    path.write_text("\n\n".join(textwrap.fill(answer, width=72, break_on_hyphens=False, break_long_words=False) for answer in answers) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def paragraphs(corpus) -> list[list[str]]:
    return text_paragraphs(corpus.read_text(encoding="utf-8"))


# -- selection: lengths, context, sampling ----------------------------------------------------


def test_paragraphs_are_split_at_blank_lines_and_wrapped_lines_are_joined(paragraphs, answers):
    assert len(paragraphs) == len(answers) == 67
    assert [" ".join(p) for p in paragraphs] == answers  # segtok's sentences rejoin into the paragraph
    assert sum(map(len, paragraphs)) > 250
    assert all("\n" not in s and s == s.strip() for p in paragraphs for s in p)


def test_sources_are_60_to_100_characters_with_250_characters_of_whole_adjacent_sentences(paragraphs, corpus):
    sentences = [s for p in paragraphs for s in p]
    running = normalise_space(corpus.read_text(encoding="utf-8"))
    selection = select_sources(paragraphs)
    assert len(selection.sources) >= 60
    in_range = [i for i, s in enumerate(sentences) if 60 <= len(s) <= 100]
    assert selection.in_range == len(in_range) == len(selection.sources) + selection.short_context
    for source in selection.sources:
        assert 60 <= len(source.text) <= 100 and source.text == sentences[source.position]
        assert f"{source.before} {source.text} {source.after}" in running  # the context is the adjacent text
        # whole sentences, the nearest first, no more than needed for 250 characters
        before = sentences[: source.position]
        k = next(k for k in range(1, len(before) + 1) if " ".join(before[-k:]) == source.before)
        assert len(source.before) >= 250 and (k == 1 or len(" ".join(before[-(k - 1):])) < 250)
        after = sentences[source.position + 1:]
        k = next(k for k in range(1, len(after) + 1) if " ".join(after[:k]) == source.after)
        assert len(source.after) >= 250 and (k == 1 or len(" ".join(after[: k - 1])) < 250)
    sides = [len(side) for s in selection.sources for side in (s.before, s.after)]
    assert 250 <= sum(sides) / len(sides) <= 375  # "an average length of 250"; the authors' sides were 250-375
    crossing = [s for s in selection.sources if not any(f"{s.before} {s.text}" in " ".join(p) for p in paragraphs)]
    assert crossing, "context gathers sentences across paragraph boundaries"


def test_sentences_too_near_the_corpus_ends_are_skipped_and_counted(paragraphs):
    opening = paragraphs[:4]
    sentences = [s for p in opening for s in p]
    selection = select_sources(opening)
    assert selection.short_context > 0
    kept = {s.position for s in selection.sources}
    for position, sentence in enumerate(sentences):
        if not 60 <= len(sentence) <= 100:
            continue
        enough = len(" ".join(sentences[:position])) >= 250 and len(" ".join(sentences[position + 1:])) >= 250
        assert (position in kept) == enough, sentence
    assert "skipped: under 250 characters of context" in selection.describe(min_chars=60, max_chars=100, context_chars=250)


def test_a_sample_is_drawn_by_its_seed_and_kept_in_corpus_order(paragraphs):
    selection = select_sources(paragraphs)
    first, again, other = (sample_sources(selection, 12, seed) for seed in (SEED, SEED, SEED + 1))
    assert first.sources == again.sources and first.sources != other.sources
    assert len(first.sources) == first.sampled == 12 and set(first.sources) <= set(selection.sources)
    assert [s.position for s in first.sources] == sorted(s.position for s in first.sources)
    assert sample_sources(selection, 10_000, SEED).sources == selection.sources  # more than there are: all


def test_a_table_with_context_columns_gives_its_rows_in_range(shared_data):
    sick = pd.read_csv(shared_data / "sick" / "kkalouli" / "SICK.txt", sep="\t").head(40)
    selection = table_sources(sick["sentence_A"].tolist(), sick["sentence_A_original"].tolist(), None)
    expected = [i for i, text in enumerate(sick["sentence_A"]) if 60 <= len(text) <= 100]
    assert 0 < len(expected) < 40 and [s.position for s in selection.sources] == expected
    assert all(s.before == sick["sentence_A_original"][s.position] and s.after == "" for s in selection.sources)


# -- the command: end to end, resumed, refused ------------------------------------------------


def _param_options(params: dict) -> list[str]:
    return [option for name, value in params.items() for option in ("-p", f"{name}={value}")]


def _arguments(corpus: Path, output: Path, params: dict, *extra: str) -> list[str]:
    return ["paramac", "build-pairs", str(corpus), "-o", str(output), "--sample", str(SAMPLE), "--seed", str(SEED),
            "--chunk-rows", str(CHUNK_ROWS), "--batch-size", "2", "--no-progress", *_param_options(params), *extra]


def _job(output: Path) -> Path:
    return output.with_name(f".{output.name}.paramac-job")


def _augment_chunks(output: Path) -> int:
    return len(list((_job(output) / ".paraphrases.jsonl.augkit-job").glob("chunk-*.json")))


@pytest.fixture(scope="module")
def reference(corpus, paramac_params, tmp_path_factory) -> tuple[Path, str]:
    """An uninterrupted build-pairs run on 12 sampled sentences: the pairs and the summary."""
    import contextlib
    import io

    output = tmp_path_factory.mktemp("reference") / "paranet.csv"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = run_command(_arguments(corpus, output, paramac_params))
    assert code == 0, err.getvalue()
    return output, err.getvalue()


def test_build_pairs_writes_one_pair_per_source_with_its_context_and_scores(reference, paragraphs):
    output, err = reference
    pairs = pd.read_csv(output, dtype={"source": str, "paraphrase": str})
    drawn = sample_sources(select_sources(paragraphs), SAMPLE, SEED).sources
    assert list(pairs.columns) == list(PAIR_COLUMNS)
    assert not pairs.duplicated(["source", "before", "after"]).any() and len(pairs) >= SAMPLE // 2  # one pair per source
    by_context = {(s.text, s.before, s.after): s for s in drawn}  # the corpus repeats a few sentences
    assert len(by_context) == SAMPLE
    for row in pairs.itertuples():
        assert (row.source, row.before, row.after) in by_context
        assert row.paraphrase and row.paraphrase.lower() != row.source.lower()
        assert all(math.isfinite(getattr(row, score)) for score in ("bertscore", "fluency", "diversity", "rank"))
        assert row.rank == pytest.approx(4.0 * row.bertscore + 8.0 * row.fluency + 1.2 * row.diversity)
    positions = [by_context[key].position for key in zip(pairs["source"], pairs["before"], pairs["after"])]
    assert positions == sorted(positions)  # in corpus order
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("augkit paramac build-pairs: 67 paragraphs, ")
    assert f"{SAMPLE} drawn at random; {SAMPLE} sources; {len(pairs)} pairs for {len(pairs)} sources" in summary
    missing = SAMPLE - len(pairs)
    if missing:
        assert f"{missing} source{'s' if missing > 1 else ''} got no paraphrase" in summary
    else:
        assert "every source got a paraphrase" in summary
    assert f"seed {SEED}; wrote {output}" in summary
    assert "augkit: read 12 rows;" in err  # augment's own line: what each step dropped
    assert not _job(output).exists()


def test_more_pairs_per_source_come_best_first(corpus, paramac_params, tmp_path, capsys):
    output = tmp_path / "top2.jsonl"
    assert run_command(_arguments(corpus, output, paramac_params, "-n", "2")) == 0, capsys.readouterr().err
    pairs = pd.read_json(output, lines=True)
    assert pairs.groupby(["source", "before"]).size().max() == 2
    for _, group in pairs.groupby(["source", "before"], sort=False):
        assert len(group) <= 2 and group["rank"].is_monotonic_decreasing


def _start(arguments: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "augkit.cli", *arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_a_chunk(output: Path, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _augment_chunks(output) >= 1:
            return
        if process.poll() is not None:
            pytest.fail(f"the run ended before its first chunk: {process.communicate()}")
        time.sleep(0.02)
    pytest.fail("no chunk done")


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_pairs(corpus, paramac_params, reference, tmp_path, capsys):
    output = tmp_path / "paranet.csv"
    arguments = _arguments(corpus, output, paramac_params)
    process = _start(arguments)
    _wait_for_a_chunk(output, process)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not output.exists() and 1 <= _augment_chunks(output) < SAMPLE // CHUNK_ROWS
    assert run_command(arguments) == 2  # the job is there: say how to continue it
    assert "holds a build-pairs run (interrupted, or running now); run the same command with --resume" in capsys.readouterr().err
    assert run_command([*arguments, "-p", "permutations=2", "--resume"]) == 2  # other ParaMac parameters: augment refuses
    assert "cannot resume" in capsys.readouterr().err
    assert run_command([*arguments, "--min-chars", "61", "--resume"]) == 2  # another selection: refused, named
    assert "min_chars: was 60, now 61" in capsys.readouterr().err
    assert run_command([*arguments, "--resume"]) == 0, capsys.readouterr().err
    assert output.read_bytes() == reference[0].read_bytes()
    assert not _job(output).exists()


@pytest.mark.slow
def test_a_second_run_while_the_first_holds_the_job_is_refused(corpus, paramac_params, reference, tmp_path, capsys):
    output = tmp_path / "paranet.csv"
    arguments = _arguments(corpus, output, paramac_params)
    first = _start(arguments)
    _wait_for_a_chunk(output, first)
    first.send_signal(signal.SIGSTOP)  # the first run holds the job, paused, for as long as the test needs
    try:
        assert run_command([*arguments, "--resume"]) == 2
        err = capsys.readouterr().err
        assert "is in use by another augkit run" in err and f"process {first.pid} " in err, err
        assert run_command(arguments) == 2
        assert "holds a build-pairs run (interrupted, or running now)" in capsys.readouterr().err
    finally:
        first.send_signal(signal.SIGCONT)
    assert first.wait(timeout=300) == 0, first.communicate()[1]
    assert output.read_bytes() == reference[0].read_bytes()
    assert not _job(output).exists()


@pytest.mark.parametrize(("change", "message"), [
    ({"corpus": "missing.txt"}, "corpus file '{tmp}/missing.txt' does not exist"),
    ({"extra": ["--min-chars", "0"]}, "--min-chars must be at least 1, got 0"),
    ({"extra": ["--min-chars", "120"]}, "--max-chars (100) must be at least --min-chars (120)"),
    ({"extra": ["--sample", "0"]}, "--sample must be at least 1, got 0"),
    ({"extra": ["--before-column", "left"]}, "--before-column: only a table corpus has columns; "),
    ({"extra": ["-p", "permutation=3"]}, "unknown parameter 'permutation' for 'paramac'; did you mean 'permutations'?"),
    ({"extra": ["-p", "drop_rate=2"]}, "paramac: drop_rate must be a number in [0, 1)"),
    ({"output": "pairs.docx"}, "cannot tell the format of"),
    ({"extra": ["--job-dir", "nowhere/job"]}, "the job folder's parent 'nowhere' does not exist"),
    ({"corpus": "corpus.pdf"}, "give running text as .txt, or a table"),
])
def test_a_wrong_argument_exits_2_with_a_clear_message(corpus, tmp_path, capsys, change, message):
    (tmp_path / "corpus.pdf").write_bytes(b"%PDF-1.4")
    source = tmp_path / change["corpus"] if "corpus" in change else corpus
    output = tmp_path / change.get("output", "pairs.csv")
    code = run_command(["paramac", "build-pairs", str(source), "-o", str(output), *change.get("extra", [])])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("augkit: error: ") and message.format(tmp=tmp_path) in err, err
    assert not output.exists() and not _job(output).exists()


def test_a_corpus_without_any_source_says_what_it_found(tmp_path, capsys):
    short = tmp_path / "short.txt"
    short.write_text("It rained. We stayed in.\n\nThen the sun came out and we went for a long walk by the river.\n")
    assert run_command(["paramac", "build-pairs", str(short), "-o", str(tmp_path / "pairs.csv")]) == 2
    err = capsys.readouterr().err
    assert "no source sentence in" in err and "2 paragraphs, 3 sentences, 1 of 60-100 characters (1 skipped" in err


# -- ParaMod: the training preset on the pairs ------------------------------------------------


@pytest.mark.slow
def test_the_paramod_preset_trains_on_the_pairs_and_the_folder_loads_as_seq2seq(reference, tiny_t5_infiller, tmp_path, capsys):
    from transformers import AutoModelForSeq2SeqLM

    from augkit.plugin import load_seq2seq

    pairs, _ = reference
    model = tmp_path / "paramod"
    train = ["train", "paraphraser", "--preset", "paramod", "--table", str(pairs), "--source-column", "source",
             "--target-column", "paraphrase", "-m", str(tiny_t5_infiller), "--max-steps", "2", "--no-progress"]
    assert run_command([*train, "-o", str(model)]) == 0, capsys.readouterr().err
    assert "augkit train paraphraser (preset paramod): " in capsys.readouterr().err
    record = json.loads((model / "augkit-training.json").read_text())
    assert record["preset"] == "paramod" and record["steps"] == 2 and record["prompt"] == "paraphrase: <sentence> </s>"
    settings = record["settings"]
    assert (settings["learning_rate"], settings["batch_size"], settings["gradient_accumulation"], settings["epochs"]) == (1e-4, 4, 4, 5)
    assert (settings["weight_decay"], settings["warmup_steps"]) == (0.0, 0)
    assert AutoModelForSeq2SeqLM.from_pretrained(model).config.is_encoder_decoder
    result = load_seq2seq(str(model)).generate(["paraphrase: The virus spreads between people in close contact. </s>"],
                                               num_beams=2, num_return=2, max_new_tokens=8)
    assert len(result.texts[0]) == 2
    overridden = tmp_path / "paramod-lr"
    assert run_command([*train, "--learning-rate", "5e-5", "--epochs", "1", "-o", str(overridden)]) == 0, capsys.readouterr().err
    settings = json.loads((overridden / "augkit-training.json").read_text())["settings"]
    assert (settings["learning_rate"], settings["epochs"], settings["batch_size"], settings["gradient_accumulation"]) == (5e-5, 1, 4, 4)
