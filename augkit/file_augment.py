"""``augkit augment`` on files: streamed chunk by chunk, resumable, same output as in memory.

CSV, TSV, JSON Lines and Parquet inputs and outputs are processed ``chunk_rows`` rows at a
time, so memory does not grow with the input; each finished chunk goes to the job folder
(:mod:`augkit.jobs`) and the output is assembled from them at the end. Per-row seeding makes
the output independent of the chunk size. Other formats (Excel, compressed output) are read and
written whole. Filters that compare candidates with every original of the run
(``label_integrity``) get all the texts first, in one extra pass over the input that keeps
only the text and label columns.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augkit.adapters.frame import texts_as_strings
from augkit.adapters.provenance import SOURCE_COLUMN
from augkit.api import build_pipeline
from augkit.errors import AugkitError, InputError
from augkit.jobs import AugmentJob, job_folder_for, report_from_records
from augkit.read_errors import check_encoding
from augkit.report import AugmentationReport
from augkit.seeding import resolve_seed
from augkit.table_io import DEFAULT_ENCODING, table_format
from augkit.table_stream import STREAMABLE, assemble, iter_table_chunks, write_chunk

DEFAULT_CHUNK_ROWS = 50_000
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")


@dataclass
class FileJob:
    """What to augment and how; everything that decides the output, plus how to run."""

    input: Path
    output: Path
    method: str
    params: Mapping[str, Any]
    n: int = 1
    seed: int | None = None
    text_column: str = "text"
    label_column: str | None = None
    keep_original: bool = True
    coerce: bool = False
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    batch_size: int = 256
    workers: int = 1
    progress: bool | None = None
    resume: bool = False
    job_dir: Path | None = None
    strict: bool = False
    backend: str = "local"
    address: str | None = None
    cpus_per_worker: float = 1
    gpus_per_worker: float = 0
    allow_multiline: bool = False  # read CSV/TSV cells spanning lines despite broken quoting (augkit.multiline_cells)
    encoding: str = DEFAULT_ENCODING  # of CSV/TSV/JSONL input; output is UTF-8


class Interrupted(Exception):
    """Ctrl-C during a streamed job: ``message`` says how far it got and how to resume."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def streamable(job: FileJob) -> bool:
    """Whether the input and output can both be handled chunk by chunk."""
    return (
        table_format(job.input) in STREAMABLE
        and table_format(job.output) in STREAMABLE
        and not job.output.name.lower().endswith(_COMPRESSED)
    )


def augment_file(job: FileJob) -> AugmentationReport:
    """Augment ``job.input`` into ``job.output``, streamed when both formats allow it."""
    if not streamable(job):
        return _augment_in_memory(job)
    from augkit import __version__

    pipeline = build_pipeline(job.method, dict(job.params))
    pipeline.strict = job.strict
    settings = {
        "input": str(job.input.resolve()), "input_bytes": job.input.stat().st_size if job.input.exists() else None,
        "input_mtime_ns": job.input.stat().st_mtime_ns if job.input.exists() else None,
        "method": pipeline.spec, "n": job.n, "seed": job.seed, "text_column": job.text_column,
        "label_column": job.label_column, "keep_original": job.keep_original, "coerce": job.coerce,
        "chunk_rows": job.chunk_rows, "output_format": table_format(job.output), "augkit": __version__,
        "allow_multiline": job.allow_multiline, "encoding": check_encoding(job.encoding),
    }
    folder = job.job_dir or job_folder_for(job.output)
    state = AugmentJob(folder, settings, resume=job.resume)
    seed = state.start(resolve_seed(job.seed))
    needs_all = any(getattr(step, "needs_all_texts", False) for step in pipeline.filters)
    if needs_all and job.n > 0:
        _prepare_with_every_text(pipeline, job)
    fmt = table_format(job.output)
    augment_chunk = _local_chunks if job.backend == "local" else _ray_chunks(job.address, job.cpus_per_worker, job.gpus_per_worker)
    chunks = 0
    from tqdm.auto import tqdm

    enabled = sys.stderr.isatty() if job.progress is None else bool(job.progress)
    with tqdm(disable=not enabled, unit="row", desc=f"augkit {pipeline.name}", leave=False) as bar:
        try:
            for index, chunk in enumerate(iter_table_chunks(job.input, job.chunk_rows, **_reading(job))):
                chunks = index + 1
                if state.is_done(index):
                    bar.update(len(chunk))
                    continue
                out, report = augment_chunk(
                    pipeline, chunk, text_column=job.text_column, label_column=job.label_column,
                    keep_original=job.keep_original, n=job.n, seed=seed, coerce=job.coerce,
                    batch_size=job.batch_size, progress=False, workers=job.workers, prepared=needs_all,
                )
                if job.coerce:  # a file's text column is all strings once any text was coerced
                    out[job.text_column] = texts_as_strings(out[job.text_column])
                write_chunk(out, state.chunk_file(index, fmt), fmt)
                state.record_chunk(index, report, [str(c) for c in out.columns])
                bar.update(len(chunk))
        except AugkitError:
            state.remove()  # bad input or arguments: the same command would fail again, so nothing to resume
            raise
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted; {state.done_chunks()} chunks of {job.chunk_rows} rows are done in {folder}. "
                "Run the same command with --resume to continue where it stopped"
            ) from None
    if chunks == 0:  # a file with a header and no rows: nothing to stream
        state.remove()
        return _augment_in_memory(job)
    records = [state.chunk_record(i) for i in range(chunks)]
    columns = records[0]["columns"]
    changed = next((i for i, r in enumerate(records) if r["columns"] != columns), None)
    if changed is not None:
        raise InputError(f"chunk {changed} of the output has columns {records[changed]['columns']}, the first has {columns}; "
                         "the method added a score it does not declare")
    assemble([state.chunk_file(i, fmt) for i in range(chunks)], columns, job.output, fmt)
    state.remove()
    return report_from_records(records)


def _reading(job: FileJob) -> dict[str, Any]:
    """How the job's input is read: the same options on every path."""
    return {"allow_multiline": job.allow_multiline, "encoding": job.encoding}


def _local_chunks(pipeline: Any, chunk: Any, **options: Any) -> tuple[Any, AugmentationReport]:
    from augkit.adapters.frame import augment_frame

    return augment_frame(pipeline, chunk, **options)


def _ray_chunks(address: str | None, cpus_per_worker: float, gpus_per_worker: float):
    """Augment each chunk on Ray (a local instance, or the cluster at ``address``), each
    actor reserving ``cpus_per_worker`` CPUs and ``gpus_per_worker`` GPUs."""
    from augkit.ray_backend import connect

    connect(address)

    def augment_chunk(pipeline: Any, chunk: Any, **options: Any) -> tuple[Any, AugmentationReport]:
        import ray

        from augkit.adapters.ray_dataset import augment_ray_dataset

        options.pop("prepared", None)  # the Ray adapter prepares (or not) by itself
        blocks = max(1, min(len(chunk) // max(options["batch_size"], 1), 64))
        dataset = ray.data.from_pandas(chunk.reset_index(drop=True)).repartition(blocks)
        out, report = augment_ray_dataset(pipeline, dataset, num_cpus_per_worker=cpus_per_worker,
                                          num_gpus_per_worker=gpus_per_worker, **options)
        frame = out.to_pandas()
        frame[SOURCE_COLUMN] = chunk.index.take(frame[SOURCE_COLUMN].to_numpy()).to_numpy(dtype=object)
        return frame, report

    return augment_chunk


def _prepare_with_every_text(pipeline: Any, job: FileJob) -> None:
    """One pass over the input keeping only the text (and label) column, for filters that
    compare candidates with every original."""
    from augkit.engine import prepare_pipeline

    texts: list[Any] = []
    labels: list[Any] | None = [] if job.label_column is not None else None
    for chunk in iter_table_chunks(job.input, job.chunk_rows, **_reading(job)):
        if job.text_column not in chunk.columns:
            break  # augment_frame names the missing column
        texts.extend(chunk[job.text_column].tolist())
        if labels is not None and job.label_column in chunk.columns:
            labels.extend(chunk[job.label_column].tolist())
    prepare_pipeline(pipeline, texts, describe_row=lambda i: f"column {job.text_column!r}, row {i}", coerce=job.coerce,
                     labels=labels if labels is not None and len(labels) == len(texts) else None)


def _augment_in_memory(job: FileJob) -> AugmentationReport:
    from augkit.api import augment_with_report
    from augkit.table_io import read_table, write_table

    frame = read_table(job.input, **_reading(job))
    augmented, report = augment_with_report(
        frame, job.method, n=job.n, seed=job.seed, text_column=job.text_column, label_column=job.label_column,
        keep_original=job.keep_original, progress=job.progress, batch_size=job.batch_size, coerce=job.coerce,
        workers=job.workers, strict=job.strict, **dict(job.params),
    )
    if job.coerce:
        augmented[job.text_column] = texts_as_strings(augmented[job.text_column])
    write_table(augmented, job.output)
    return report
