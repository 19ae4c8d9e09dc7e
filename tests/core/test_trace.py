"""The trace: every candidate a pipeline generates, its scores and its fate, accounted for
row by row (kept + dropped by each step = generated), the same whatever the batching,
workers or backend, off by default and streamed and resumed with ``augkit augment --trace``."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.jobs.file_augment import _check_records
from augkit.jobs.job_folder import JobDamagedError
from augkit.pipeline.pipeline import Pipeline
from augkit.steps.augmenter import Augmenter
from augkit.steps.candidate import Candidate
from augkit.steps.filter import Filter
from augkit.steps.generated_row import GeneratedRow
from augkit.testing import run_command_captured

SPEC = "eda|semantic|label_integrity|top_k"


@pytest.fixture(scope="module")
def banking(banking77_10shot) -> pd.DataFrame:
    return banking77_10shot.iloc[::7].head(80).reset_index(drop=True)


def _pipeline(encoder: str) -> Pipeline:
    return Pipeline.from_string(f"eda|semantic(model={encoder!r})|label_integrity(model={encoder!r})|top_k", oversample=2.0)


def test_the_trace_accounts_for_every_candidate_of_every_row(banking, tiny_encoder_dir):
    out, trace = augkit.augment(banking, _pipeline(tiny_encoder_dir), n=3, seed=4, label_column="label", trace=True)
    report = out.attrs["augkit_report"]["candidates"]
    assert list(trace.columns[:6]) == ["source", "method", "candidate", "fate", "dropped_by", "reason"]
    assert {"score_semantic", "score_label_integrity"} <= set(trace.columns)
    assert trace.candidate.notna().sum() == report["generated"] > 0
    dropped = trace[trace.fate == "dropped"].dropped_by.value_counts().to_dict()
    for step in ("dedup", "semantic", "label_integrity", "top_k", "beyond n"):
        assert dropped.get(step, 0) == report[step]
    assert sum(dropped.values()) > 0 and (trace.fate == "kept").sum() > 0
    # per row: what the trace keeps is exactly the augmented rows of the output (the trace
    # lists candidates in generation order, the output in the order top_k ranked them)
    augmented = out[out.augkit_method.notna()]
    for source, rows in trace.groupby("source", sort=False):
        kept = rows[rows.fate == "kept"].candidate.tolist()
        assert sorted(kept) == sorted(augmented[augmented.augkit_source == source].text.tolist())
    # a candidate dropped by semantic has its semantic score but none from the later steps
    by_semantic = trace[trace.dropped_by == "semantic"]
    assert by_semantic.score_semantic.notna().all() and by_semantic.score_label_integrity.isna().all()


def test_tracing_does_not_change_the_output_and_is_off_by_default(banking, tiny_encoder_dir):
    traced, _ = augkit.augment(banking, _pipeline(tiny_encoder_dir), n=3, seed=4, label_column="label", trace=True)
    plain = augkit.augment(banking, _pipeline(tiny_encoder_dir), n=3, seed=4, label_column="label")
    assert isinstance(plain, pd.DataFrame)
    pd.testing.assert_frame_equal(traced, plain)
    outcome = Pipeline("eda").run_batch(banking.text.tolist()[:5], 2, 0)
    assert outcome.traces is None


def test_the_trace_is_the_same_whatever_the_batch_size_and_workers(banking, tiny_encoder_dir):
    _, one = augkit.augment(banking, _pipeline(tiny_encoder_dir), n=3, seed=4, label_column="label", trace=True)
    _, many = augkit.augment(banking, _pipeline(tiny_encoder_dir), n=3, seed=4, label_column="label", trace=True,
                             batch_size=7, workers=2)
    pd.testing.assert_frame_equal(one, many)


def test_a_list_of_texts_names_sources_by_position_and_a_dataset_carries_the_same_trace(banking):
    texts = banking.text.tolist()[:30]
    _, from_list = augkit.augment(texts, "eda+aeda|dedup", n=2, seed=1, trace=True)
    assert set(from_list.source) == set(range(30))
    assert set(from_list.method) == {"eda", "aeda"}
    datasets = pytest.importorskip("datasets")
    _, from_dataset = augkit.augment(datasets.Dataset.from_dict({"text": texts}), "eda+aeda|dedup", n=2, seed=1,
                                     trace=True, batch_size=8)
    pd.testing.assert_frame_equal(from_list, from_dataset)


class _SaysWhy(Augmenter):
    """Gives rows that mention a card nothing, saying why (as an LLM method does for a reply
    it cannot read), and raises on rows that mention a transfer."""

    name = "says_why"

    def augment_batch(self, texts, n, rngs):
        if any("transfer" in text for text in texts):
            raise RuntimeError("no transfers today")
        return [GeneratedRow([], reason="says_why: the reply holds no JSON list") if "card" in text
                else [f"{text} please"] for text in texts]


def test_a_row_without_any_candidate_has_its_own_entry_saying_why(banking):
    texts = [None, "   ", *banking.text.tolist()[:40]]
    out, trace = augkit.augment(pd.DataFrame({"text": texts}), Pipeline(_SaysWhy(), ["dedup"]), n=2, seed=0,
                                trace=True, batch_size=3)
    reasons = out.attrs["augkit_report"]["without_augmentation"]
    none = trace[trace.fate == "none"]
    assert none.candidate.isna().all() and (none.method == "says_why").all()
    assert dict(none.reason.value_counts()) == reasons, "one entry per row that got nothing, in the summary's words"
    assert list(none.source[:2]) == [0, 1] and "says_why: the reply holds no JSON list" in reasons
    assert any(reason.startswith("augmentation failed") for reason in reasons)
    generated = trace[trace.fate != "none"]
    assert (generated.reason == "").all() and len(generated) == out.attrs["augkit_report"]["candidates"]["generated"]
    assert set(trace.source) == set(range(len(texts))), "every row appears in the trace"
    _, rebatched = augkit.augment(pd.DataFrame({"text": texts}), Pipeline(_SaysWhy(), ["dedup"]), n=2, seed=0,
                                  trace=True, batch_size=5)
    pd.testing.assert_frame_equal(trace, rebatched)
    _, in_workers = augkit.augment(pd.DataFrame({"text": texts}), Pipeline(_SaysWhy(), ["dedup"]), n=2, seed=0,
                                   trace=True, batch_size=5, workers=2)
    pd.testing.assert_frame_equal(trace, in_workers)
    datasets = pytest.importorskip("datasets")
    _, from_dataset = augkit.augment(datasets.Dataset.from_dict({"text": texts}), Pipeline(_SaysWhy(), ["dedup"]),
                                     n=2, seed=0, trace=True)
    pd.testing.assert_frame_equal(trace, from_dataset)


def test_a_trace_record_whose_counts_disagree_is_refused():
    good = {"rows_read": 4, "rows_augmented": 3, "original_rows_written": 4, "augmentations": 5, "columns": ["text"],
            "data": {"rows": 9}, "candidates": {"generated": 6}, "trace": {"rows": 7, "candidates": 6}}
    _check_records([good], 4, traced=True)
    # fewer trace rows than candidates, more rows without candidates than rows not augmented,
    # candidates traced that were not generated (either way)
    for part, key, value in [("trace", "rows", 5), ("trace", "rows", 8), ("trace", "candidates", 5),
                             ("candidates", "generated", 7)]:
        bad = json.loads(json.dumps(good))
        bad[part][key] = value
        with pytest.raises(JobDamagedError, match="the trace chunks hold"):
            _check_records([bad], 4, traced=True)


class _Rebuilding(Filter):
    """Returns new Candidate objects (allowed: the trace matches them by text) and drops
    every candidate that contains the letter 'e' twice."""

    name = "rebuilding"

    def filter(self, source, candidates):
        return [Candidate(c.text, c.method, {**c.scores, "letters": float(len(c.text))})
                for c in candidates if c.text.count("e") < 2]


def test_a_filter_that_returns_new_candidate_objects_is_traced_by_text(banking):
    texts = banking.text.tolist()[:20]
    outcome = Pipeline("eda", [_Rebuilding()]).run_batch(texts, 3, 5, trace=True)
    for kept, entries in zip(outcome.candidates, outcome.traces):
        assert [e.candidate for e in entries if e.fate == "kept"] == [c.text for c in kept]
        assert all(e.dropped_by == "rebuilding" for e in entries if e.candidate.count("e") >= 2)
        assert all("letters" in e.scores for e in entries if e.fate == "kept")


def test_strict_and_row_timeout_apply_to_one_run_without_changing_the_callers_pipeline(banking):
    pipeline = Pipeline("eda")
    before = dict(vars(pipeline))
    augkit.augment(banking.text.tolist()[:3], pipeline, n=1, seed=0, strict=True, row_timeout=30)
    assert vars(pipeline) == before
    assert not hasattr(pipeline, "strict") and not hasattr(pipeline, "row_timeout")


@pytest.fixture(scope="module")
def banking_file(banking77_10shot, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("trace") / "train.csv"
    banking77_10shot.to_csv(path, index=False)
    return path


def _augment(*arguments) -> int:
    return main(["augment", *map(str, arguments), "--no-progress"])


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_the_command_line_streams_the_trace_and_it_equals_the_python_trace(tmp_path, banking_file, banking77_10shot, suffix):
    trace = tmp_path / f"trace{suffix}"
    assert _augment(banking_file, "-m", "eda+aeda|dedup", "-n", 2, "--seed", 3, "--chunk-rows", 100,
                    "-o", tmp_path / "out.csv", "--trace", trace) == 0
    written = pd.read_csv(trace) if suffix == ".csv" else pd.read_json(trace, lines=True)
    _, expected = augkit.augment(banking77_10shot, "eda+aeda|dedup", n=2, seed=3, trace=True)
    assert len(written) == len(expected) > 1000
    assert written.source.tolist() == expected.source.tolist()
    assert written.candidate.tolist() == expected.candidate.tolist()
    assert written.fate.tolist() == expected.fate.tolist()
    assert not (tmp_path / ".out.csv.augkit-job").exists()


def test_a_trace_file_that_is_the_output_or_compressed_is_refused(tmp_path, banking_file, capsys):
    output = tmp_path / "out.csv"
    assert _augment(banking_file, "-m", "eda", "-o", output, "--trace", output) == 2
    assert "also the output file" in capsys.readouterr().err
    assert _augment(banking_file, "-m", "eda", "-o", output, "--trace", tmp_path / "t.csv.gz") == 2
    assert "uncompressed" in capsys.readouterr().err
    assert not output.exists()


def test_a_killed_traced_job_resumes_to_the_same_trace_and_a_damaged_trace_chunk_is_redone(tmp_path, banking_file):
    arguments = [banking_file, "-m", "eda", "-n", 3, "--seed", 11, "--chunk-rows", 40, "--no-progress"]
    reference_trace = tmp_path / "reference-trace.csv"
    assert _augment(*arguments[:-1], "-o", tmp_path / "reference.csv", "--trace", reference_trace) == 0

    output, trace = tmp_path / "out.csv", tmp_path / "trace.csv"
    job = tmp_path / ".out.csv.augkit-job"
    process = subprocess.Popen([sys.executable, "-m", "augkit.cli", "augment", *map(str, arguments), "-o", str(output),
                                "--trace", str(trace)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(job.glob("chunk-*.json"))) < 3:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not trace.exists() and not output.exists()
    first = sorted(job.glob("trace-*.csv"))[0]
    record = json.loads(first.with_name(first.name.replace("trace-", "chunk-").replace(".csv", ".json")).read_text())
    assert record["trace"]["rows"] == record["trace"]["candidates"] == record["candidates"]["generated"]
    first.write_bytes(first.read_bytes()[:100])  # a truncated trace chunk

    # resuming without --trace is another job: refused, naming the difference
    refused = run_command_captured(["augment", *arguments, "-o", output, "--resume"])
    assert refused.returncode == 2 and "trace_format" in refused.stderr
    resumed = run_command_captured(["augment", *arguments, "-o", output, "--trace", trace, "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    assert "is redone: its trace file has" in resumed.stderr
    assert trace.read_bytes() == reference_trace.read_bytes()
    assert output.read_bytes() == (tmp_path / "reference.csv").read_bytes()


class _ShortRewrites(Filter):
    """Drops a candidate with fewer words than its source and says so only through
    ``explain()``, as a plugin author's filter may."""

    name = "shorter"

    def explain(self, source: str, text: str) -> str:
        lost = len(source.split()) - len(text.split())
        return f"{lost} words shorter than the source" if lost > 0 else ""

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return [c for c in candidates if not self.explain(source, c.text)]


def test_a_drop_carries_the_reason_the_filter_explains_into_the_trace(shared_data):
    lines = (shared_data / "banking77" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    texts = lines[:40]
    pipeline = Pipeline("eda", [_ShortRewrites()])
    outcome = pipeline.run_batch(texts, 4, 3, trace=True)
    dropped = [(texts[row], entry) for row, entries in enumerate(outcome.traces) for entry in entries
               if entry.dropped_by == "shorter"]
    assert len(dropped) > 5, "EDA's deletions make shorter rewrites"
    for source, entry in dropped:
        assert entry.reason == _ShortRewrites().explain(source, entry.candidate) != ""
    kept = [entry for entries in outcome.traces for entry in entries if entry.fate == "kept"]
    assert kept and all(entry.reason == "" for entry in kept)


def test_named_steps_are_the_names_the_trace_and_counts_give_each_filter():
    pipeline = Pipeline.from_string("eda|dedup(against_candidates=False)|dedup(against_source=False)|length(min=0.5)",
                                    protected=False)
    named = pipeline.named_steps
    assert list(named) == ["dedup", "dedup#2", "length"]
    assert [step for step in named.values()] == list(pipeline.filters)
    assert pipeline.count_names[1:-1] == tuple(named)
