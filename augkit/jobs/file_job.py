"""What ``augkit augment`` is asked to do with a file, in one object (:class:`FileJob`): input and
output, the method and its parameters, the run's options, where its chunks go; and how a stopped
job ends (:class:`Interrupted`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from augkit.engine.run_options import RunOptions
from augkit.tables.io import DEFAULT_ENCODING, table_format
from augkit.tables.stream import (
    STREAMABLE,
)

DEFAULT_CHUNK_ROWS = 50_000


COMPRESSED_FORMATS = (".gz", ".bz2", ".xz", ".zst", ".zip")


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
    context_columns: Mapping[str, str] = field(default_factory=dict)  # logical name -> column (augkit.pipeline.row_context)
    keep_original: bool = True
    coerce: bool = False
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    batch_size: int = 256
    workers: int = 1
    progress: bool | None = None
    resume: bool = False
    job_dir: Path | None = None
    strict: bool = False
    row_timeout: float | None = None
    backend: str = "local"
    address: str | None = None
    cpus_per_worker: float = 1
    gpus_per_worker: float = 0
    space_check: bool = True
    allow_multiline: bool = False  # read CSV/TSV as pandas does despite broken quoting (augkit.tables.csv_quoting)
    encoding: str = DEFAULT_ENCODING  # of CSV/TSV/JSONL input; output is UTF-8
    trace: Path | None = None  # where to write every candidate's fate (augkit.reporting.trace), streamed like the output
    protect: tuple[str, ...] = ()  # phrases protected in every row (augkit.protection)
    protect_column: str | None = None  # each row's protected phrases, spans or BIO tags
    protect_codes: bool = True  # protect single letters, short capitals and letter-digit words

    def run_options(self, seed: int) -> RunOptions:
        """The engine's options for this job, with the job's resolved ``seed``."""
        return RunOptions(n=self.n, seed=seed, batch_size=self.batch_size, workers=self.workers, progress=self.progress,
                          coerce=self.coerce, strict=self.strict, row_timeout=self.row_timeout,
                          trace=self.trace is not None, protect=self.protect, protect_codes=self.protect_codes).checked()


class Interrupted(Exception):
    """Ctrl-C (or SIGTERM: ``terminated``) during a streamed job: ``message`` says how far it
    got and how to resume."""

    def __init__(self, message: str, *, terminated: bool = False):
        super().__init__(message)
        self.message = message
        self.terminated = terminated


def streamable(job: FileJob) -> bool:
    """Whether the input and output can both be handled chunk by chunk."""
    return (
        table_format(job.input) in STREAMABLE
        and table_format(job.output) in STREAMABLE
        and not job.output.name.lower().endswith(COMPRESSED_FORMATS)
    )
