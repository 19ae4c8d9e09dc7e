"""``augkit augment`` on files: streamed chunk by chunk, resumable, same output as in memory.

CSV, TSV, JSON Lines and Parquet inputs and outputs are processed ``chunk_rows`` rows at a
time, so memory does not grow with the input; each finished chunk goes to the job folder
(:mod:`augkit.jobs.job_folder`) and the output is assembled from them at the end. Per-row seeding makes
the output independent of the chunk size. Other formats (Excel, compressed output) are read and
written whole. Filters that compare candidates with every original of the run
(``label_integrity``) get all the texts first, in one extra pass over the input that keeps
only the text and label columns.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import Any

from augkit.adapters.columns import check_run_columns
from augkit.adapters.frame import texts_as_strings
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.api import augment_with_options, build_pipeline, check_models_for_run
from augkit.engine.termination import Terminated, stop_if_terminated
from augkit.errors import AugkitError, InputError, NothingAugmentedError, UsageError
from augkit.files.atomic import file_digest
from augkit.jobs.file_job import COMPRESSED_FORMATS, FileJob, Interrupted, streamable
from augkit.jobs.job_folder import (
    AugmentJob,
    ChunkPart,
    JobDamagedError,
    job_folder_for,
    report_from_records,
)
from augkit.pipeline.calibrate import Preparation
from augkit.pipeline.requests import check_context_request, check_protect_column
from augkit.pipeline.row_order import refuse_unordered
from augkit.reporting.report import AugmentationReport, check_something_worked
from augkit.reporting.trace import candidates_traced, trace_columns, trace_frame
from augkit.seeding import resolve_seed
from augkit.tables.io import table_format
from augkit.tables.read_errors import check_encoding
from augkit.tables.stream import (
    STREAMABLE,
    assemble,
    count_rows,
    iter_table_chunks,
    read_chunk,
    write_chunk,
)
from augkit.terminal.progress import progress_bar, run_progress


def augment_file(job: FileJob) -> AugmentationReport:
    """Augment ``job.input`` into ``job.output``, streamed when both formats allow it.

    Before any work, the output's folder (and the job folder's) must take a write and, unless
    ``job.space_check`` is off, have roughly the room the run needs. A run in which a step
    failed on every row asked raises :class:`~augkit.errors.NothingAugmentedError` and writes
    no output (nor trace), and keeps no job folder."""
    try:
        return _augment_file(job)
    except NothingAugmentedError as error:
        error.add_note(f"{job.output} was not written")
        raise


def _augment_file(job: FileJob) -> AugmentationReport:
    folder = job.job_dir or job_folder_for(job.output)
    _check_trace_location(job)
    _check_output_location(job, folder)
    if not streamable(job):
        return _augment_in_memory(job)
    from augkit._version import __version__

    pipeline = build_pipeline(job.method, dict(job.params))
    check_protect_column(pipeline, job.protect_column)
    if job.backend == "ray":
        from augkit.adapters.ray_dataset import RAY_REFUSAL_FIX

        refuse_unordered(pipeline.dataset_filters, "Ray augments each chunk's blocks in parallel actors and no process "
                         "sees their candidates before they are written", RAY_REFUSAL_FIX)
    if not job.input.exists():
        raise InputError(f"input file {str(job.input)!r} does not exist")
    check_context_request(pipeline, dict(job.context_columns), job.label_column)
    check_models_for_run(pipeline, job.n)
    settings = {
        "input": str(job.input.resolve()), "input_bytes": job.input.stat().st_size,
        "input_digest": file_digest(job.input),
        "method": pipeline.spec, "n": job.n, "seed": job.seed, "text_column": job.text_column,
        "label_column": job.label_column, "keep_original": job.keep_original, "coerce": job.coerce,
        "chunk_rows": job.chunk_rows, "output_format": table_format(job.output), "augkit": __version__,
        "allow_multiline": job.allow_multiline, "encoding": check_encoding(job.encoding),
        "trace_format": table_format(job.trace) if job.trace is not None else None,
        **({"context_columns": dict(job.context_columns)} if job.context_columns else {}),
        **({"protect": list(job.protect), "protect_column": job.protect_column, "protect_codes": job.protect_codes}
           if job.protect or job.protect_column or not job.protect_codes else {}),
    }
    state = AugmentJob(folder, settings, resume=job.resume,
                       describe_rows=lambda i: f"input rows {i * job.chunk_rows}-{(i + 1) * job.chunk_rows - 1}",
                       same_setting=_same_method_spec)
    try:
        records = _augment_chunks(job, pipeline, state)
    except KeyboardInterrupt as stop:
        done = state.done_chunks()
        state.release()
        raise Interrupted(
            f"interrupted; {done} chunks of {job.chunk_rows} rows are done in {folder}. "
            "Run the same command with --resume to continue where it stopped",
            terminated=isinstance(stop, Terminated),
        ) from None
    except BaseException as error:
        _keep_or_remove(state, error)
        raise
    if records is None:  # a file with a header and no rows: nothing to stream
        state.remove()
        return _augment_in_memory(job)
    state.remove()
    return report_from_records(records)  # each chunk's record holds the seed it ran with


def _augment_chunks(job: FileJob, pipeline: Any, state: AugmentJob) -> list[dict[str, Any]] | None:
    """Augment every chunk not yet done (and verified), then assemble the output; the chunks'
    records, or None for an input without rows."""
    seed = state.start(resolve_seed(job.seed))
    options = job.run_options(seed)
    trace_fmt = table_format(job.trace) if job.trace is not None else None
    with run_progress(job.progress) as shown:
        needs_all = pipeline.preparation is Preparation.WHOLE
        if needs_all and job.n > 0:
            _prepare_with_every_text(pipeline, job, seed)
        fmt = table_format(job.output)
        augment_chunk = _local_chunks if job.backend == "local" else _ray_chunks(job.address, job.cpus_per_worker, job.gpus_per_worker)
        records: list[dict[str, Any]] = []
        rows_read = 0
        total = count_rows(job.input) if shown else None
        parts = {"data": fmt, **({"trace": trace_fmt} if trace_fmt else {})}
        with progress_bar(total, shown=shown, description=pipeline.name) as bar:
            for index, chunk in enumerate(iter_table_chunks(job.input, job.chunk_rows, **_reading(job))):
                rows_read += len(chunk)
                record = state.finished_chunk(index, len(chunk), parts)
                if record is None:
                    out, report = augment_chunk(
                        pipeline, chunk, text_column=job.text_column, label_column=job.label_column,
                        context_columns=dict(job.context_columns), protect_column=job.protect_column,
                        keep_original=job.keep_original, options=options, on_rows=bar.update, prepared=needs_all,
                    )
                    if job.coerce:  # a file's text column is all strings once any text was coerced
                        out[job.text_column] = texts_as_strings(out[job.text_column])
                    chunk_parts = [ChunkPart("data", fmt, functools.partial(write_chunk, out, fmt=fmt), len(out))]
                    if trace_fmt:
                        traced = trace_frame(report.trace or [], pipeline.score_names)
                        candidates = candidates_traced(report.trace or [])
                        chunk_parts.append(ChunkPart("trace", trace_fmt, functools.partial(write_chunk, traced, fmt=trace_fmt),
                                                     len(traced), {"candidates": candidates}))
                    record = state.save_chunk(index, chunk_parts, report, [str(c) for c in out.columns])
                else:
                    if pipeline.dataset_filters and job.n > 0:
                        _remember_done_chunk(pipeline, job, chunk, state.chunk_file(index, fmt), record["columns"], fmt)
                    bar.update(len(chunk))
                records.append(record)
                stop_if_terminated()
    if not records:
        return None
    _check_records(records, rows_read, traced=trace_fmt is not None)
    check_something_worked(report_from_records(records))  # before any output is written
    if trace_fmt:  # before the output: a run that stops in between leaves the output untouched
        assemble([(state.chunk_file(i, trace_fmt, "trace"), r["trace"]) for i, r in enumerate(records)],
                 trace_columns(pipeline.score_names), job.trace, trace_fmt)
    assemble([(state.chunk_file(i, fmt), r["data"]) for i, r in enumerate(records)], records[0]["columns"], job.output, fmt)
    return records


def _remember_done_chunk(pipeline: Any, job: FileJob, chunk: Any, path: Path, columns: list[str], fmt: str) -> None:
    """A resumed job: the pipeline's dataset filters remember the outputs a chunk done before
    the job stopped kept, in its order, as they did when it ran; so the chunks run now judge
    their candidates against the same outputs as an uninterrupted job's would."""
    written = read_chunk(path, fmt, columns)
    made = written[written[METHOD_COLUMN].map(lambda method: isinstance(method, str) and bool(method))]
    rows = {str(label): label for label in chunk.index}
    labels_written = bool(pipeline.label_setters)
    for text, source, label in zip(made[job.text_column].tolist(), made[SOURCE_COLUMN].tolist(),
                                   made[job.label_column].tolist() if job.label_column is not None else [None] * len(made)):
        row = rows[str(source)]
        if job.label_column is not None and not labels_written:
            label = chunk.at[row, job.label_column]  # as the run read it, not as the output wrote it
        for step in pipeline.dataset_filters.values():
            step.remember(text, label, row)


def _check_records(records: list[dict[str, Any]], rows_read: int, *, traced: bool = False) -> None:
    """Every input row is covered by exactly one chunk, every chunk has the columns of the
    first, and a trace holds one row per candidate generated (and one per row without any)."""
    covered = sum(r["rows_read"] for r in records)
    if covered != rows_read:
        raise JobDamagedError(f"the chunks cover {covered} input rows, the input has {rows_read}; the output was not written")
    written = sum(r["data"]["rows"] for r in records)
    expected = sum(r["original_rows_written"] + r["augmentations"] for r in records)
    if written != expected:
        raise JobDamagedError(f"the chunks hold {written} rows, their counts say {expected}; the output was not written")
    if traced:
        traced_rows = sum(r["trace"]["rows"] for r in records)
        traced = sum(r["trace"].get("candidates", 0) for r in records)
        without = traced_rows - traced  # the other trace rows: one per row that got no candidate
        generated = sum(r["candidates"].get("generated", 0) for r in records)
        unaugmented = sum(r["rows_read"] - r["rows_augmented"] for r in records)
        if traced != generated or not 0 <= without <= unaugmented:
            raise JobDamagedError(f"the trace chunks hold {traced_rows} rows: {traced} candidates for {generated} generated, "
                                  f"{without} rows without any (of {unaugmented} not augmented); "
                                  "neither the trace nor the output was written")
    columns = records[0]["columns"]
    changed = next((i for i, r in enumerate(records) if r["columns"] != columns), None)
    if changed is not None:
        raise InputError(f"chunk {changed} of the output has columns {records[changed]['columns']}, the first has {columns}; "
                         "the method added a score it does not declare")


def _keep_or_remove(state: AugmentJob, error: BaseException) -> None:
    """After a failure: a job with finished chunks keeps them for --resume (and the error says
    so), unless the failure is a usage error (bad input or arguments): the same command would
    fail again, and the corrected one (another input, other options) could not resume this
    job, so nothing is left behind; as after a failure before any chunk. A run in which every
    row failed keeps nothing either: resuming it would only reassemble its failures."""
    done = state.done_chunks()
    if not done or isinstance(error, (UsageError, NothingAugmentedError)):
        state.remove()
        return
    state.release()
    if isinstance(error, Exception):
        note = (f"{done} finished chunk{' is' if done == 1 else 's are'} kept in {state.folder}: once the cause is "
                "fixed, run the same command with --resume to continue (or delete that folder to start over)")
        error.add_note(note)


def _check_output_location(job: FileJob, folder: Path) -> None:
    from augkit.jobs.output_location import (
        check_output_file,
        check_room,
        check_writable,
    )

    check_output_file(job.output)
    if job.trace is not None:
        check_output_file(job.trace, "--trace file", "trace")
    output_folder = job.output.parent if str(job.output.parent) else Path(".")
    job_parent = folder.parent if str(folder.parent) else Path(".")
    check_writable(output_folder)
    if job_parent.resolve() != output_folder.resolve():
        if not job_parent.exists():
            raise UsageError(f"the job folder's parent {str(job_parent)!r} does not exist")
        check_writable(job_parent)
    if job.space_check and job.input.exists():
        per_input_row = job.n + (1 if job.keep_original else 0)
        estimate = job.input.stat().st_size * per_input_row
        # Chunks in the job folder and the assembled output exist together until the end.
        room = [(output_folder, estimate)] + ([(job_parent, estimate)] if streamable(job) else [])
        check_room(room)


def _reading(job: FileJob) -> dict[str, Any]:
    """How the job's input is read: the same options on every path."""
    return {"allow_multiline": job.allow_multiline, "encoding": job.encoding}


def _local_chunks(pipeline: Any, chunk: Any, **options: Any) -> tuple[Any, AugmentationReport]:
    from augkit.adapters.frame import augment_frame

    return augment_frame(pipeline, chunk, **options)


def _same_method_spec(key: str, recorded: Any, now: Any) -> bool:
    """Whether a job's recorded method spec is today's spelled with old parameter names
    (``backtranslation(k=2)``, now ``backtranslation(num_return=2)``): read again through
    today's names it is the same pipeline, so the job resumes. The old names' warnings are
    the user's command's to give, not the record's."""
    if key != "method" or not isinstance(recorded, str):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return build_pipeline(recorded, {}).spec == now
    except AugkitError:
        return False  # a method no longer installed, a spec no longer valid: not the same


def _check_trace_location(job: FileJob) -> None:
    """A trace file needs a streamable format of its own, and a path that is neither the
    input nor the output."""
    if job.trace is None:
        return
    fmt = table_format(job.trace)
    if fmt not in STREAMABLE or job.trace.name.lower().endswith(COMPRESSED_FORMATS):
        raise UsageError(f"--trace {str(job.trace)!r}: the trace is written as CSV, TSV, JSON Lines or Parquet "
                         "(.csv, .tsv, .jsonl, .parquet), uncompressed")
    for role, path in (("input", job.input), ("output", job.output)):
        if job.trace.resolve() == path.resolve():
            raise UsageError(f"--trace {str(job.trace)!r} is also the {role} file; give the trace a file of its own")


def _ray_chunks(address: str | None, cpus_per_worker: float, gpus_per_worker: float):
    """Augment each chunk on Ray (a local instance, or the cluster at ``address``), each
    actor reserving ``cpus_per_worker`` CPUs and ``gpus_per_worker`` GPUs."""
    from augkit.adapters.ray_backend import connect

    connect(address)

    def augment_chunk(pipeline: Any, chunk: Any, **options: Any) -> tuple[Any, AugmentationReport]:
        import ray

        from augkit.adapters.ray_dataset import augment_ray_dataset

        on_rows = options.pop("on_rows")
        # the job's bar counts the chunk's rows when it comes back
        options["options"] = options["options"].replace(progress=False)
        blocks = max(1, min(len(chunk) // max(options["options"].batch_size, 1), 64))
        dataset = ray.data.from_pandas(chunk.reset_index(drop=True)).repartition(blocks)
        out, report = augment_ray_dataset(pipeline, dataset, num_cpus_per_worker=cpus_per_worker,
                                          num_gpus_per_worker=gpus_per_worker, **options)
        frame = out.to_pandas()
        frame[SOURCE_COLUMN] = chunk.index.take(frame[SOURCE_COLUMN].to_numpy()).to_numpy(dtype=object)
        for entry in report.trace or []:
            entry.source = chunk.index[entry.source]
        report.rename_rows(chunk.index.__getitem__)
        on_rows(len(chunk))
        return frame, report

    return augment_chunk


def _prepare_with_every_text(pipeline: Any, job: FileJob, seed: int) -> None:
    """One pass over the input keeping only the text, label and context columns, for steps
    that must see every original (a filter comparing candidates with them, a generator
    collecting each label's examples)."""
    from augkit.engine.run import prepare_pipeline, protection_request

    texts: list[Any] = []
    labels: list[Any] | None = [] if job.label_column is not None else None
    columns: dict[str, list[Any]] = {name: [] for name in job.context_columns}
    protect_values: list[Any] | None = [] if job.protect_column is not None else None
    for index, chunk in enumerate(iter_table_chunks(job.input, job.chunk_rows, **_reading(job))):
        if index == 0:  # every chunk of a file has its columns: the first is checked as any table is
            check_run_columns(list(chunk.columns), job.text_column, job.label_column, job.protect_column,
                              job.context_columns)
        texts.extend(chunk[job.text_column].tolist())
        if labels is not None:
            labels.extend(chunk[job.label_column].tolist())
        for name, column in job.context_columns.items():
            columns[name].extend(chunk[column].tolist())
        if protect_values is not None:
            protect_values.extend(chunk[job.protect_column].tolist())
    prepare_pipeline(pipeline, texts, describe_row=lambda i: f"column {job.text_column!r}, row {i}", coerce=job.coerce,
                     labels=labels, columns=columns,
                     n=job.n, seed=seed, protection=protection_request(job.run_options(seed), job.protect_column),
                     protect_values=protect_values)


def _augment_in_memory(job: FileJob) -> AugmentationReport:
    from augkit.tables.io import read_table, write_table

    frame = read_table(job.input, **_reading(job))
    augmented, report = augment_with_options(frame, job.method, job.augment_options(), job.params)
    if job.coerce:
        augmented[job.text_column] = texts_as_strings(augmented[job.text_column])
    if job.trace is not None:
        write_table(trace_frame(report.trace or []), job.trace)
    write_table(augmented, job.output)
    return report
