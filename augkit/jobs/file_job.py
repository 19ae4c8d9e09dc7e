"""What ``augkit augment`` is asked to do with a file, in one object (:class:`FileJob`): input and
output, the method and its parameters, the run's options, where its chunks go; and how a stopped
job ends (:class:`Interrupted`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from augkit.augment_options import (
    DEFAULT_OPTIONS,
    DEFAULT_TEXT_COLUMN,
    OPTION_NAMES,
    AugmentOptions,
)
from augkit.engine.run_options import RunOptions
from augkit.protection.reading import phrase_list
from augkit.tables.io import DEFAULT_ENCODING, table_format
from augkit.tables.stream import (
    STREAMABLE,
)

DEFAULT_CHUNK_ROWS = 50_000


COMPRESSED_FORMATS = (".gz", ".bz2", ".xz", ".zst", ".zip")


@dataclass
class FileJob:
    """What to augment and how; everything that decides the output, plus how to run.

    Every option of :func:`augkit.augment` is a field of the same name with augment's default
    (:mod:`augkit.augment_options`), in the form a file job holds it: ``text_column`` the
    column augment's None means, ``context_columns`` a mapping, ``trace`` the file the trace
    goes to, ``protect`` a tuple. :meth:`augment_options` gives them back as augment takes them.
    """

    input: Path
    output: Path
    method: str
    params: Mapping[str, Any]
    n: int = DEFAULT_OPTIONS.n
    seed: int | None = DEFAULT_OPTIONS.seed
    text_column: str = DEFAULT_TEXT_COLUMN
    label_column: str | None = DEFAULT_OPTIONS.label_column
    context_columns: Mapping[str, str] = field(default_factory=dict)  # logical name -> column (augkit.pipeline.row_context)
    keep_original: bool = DEFAULT_OPTIONS.keep_original
    coerce: bool = DEFAULT_OPTIONS.coerce
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    batch_size: int = DEFAULT_OPTIONS.batch_size
    workers: int = DEFAULT_OPTIONS.workers
    progress: bool | None = DEFAULT_OPTIONS.progress
    resume: bool = False
    job_dir: Path | None = None
    strict: bool = DEFAULT_OPTIONS.strict
    row_timeout: float | None = DEFAULT_OPTIONS.row_timeout
    backend: str = "local"
    address: str | None = None
    cpus_per_worker: float = 1
    gpus_per_worker: float = 0
    space_check: bool = True
    allow_multiline: bool = False  # read CSV/TSV as pandas does despite broken quoting (augkit.tables.csv_quoting)
    encoding: str = DEFAULT_ENCODING  # of CSV/TSV/JSONL input; output is UTF-8
    trace: Path | None = None  # where to write every candidate's fate (augkit.reporting.trace), streamed like the output
    protect: tuple[str, ...] = phrase_list(DEFAULT_OPTIONS.protect)  # phrases protected in every row (augkit.protection)
    protect_column: str | None = DEFAULT_OPTIONS.protect_column  # each row's protected phrases, spans or BIO tags
    protect_codes: bool = DEFAULT_OPTIONS.protect_codes  # protect single letters, short capitals and letter-digit words

    def augment_options(self) -> AugmentOptions:
        """This job's options as :func:`augkit.augment` takes them: the one place both the
        streamed path (:meth:`run_options`) and the in-memory one take theirs from."""
        held = {name: getattr(self, name) for name in OPTION_NAMES}
        return AugmentOptions(**{**held, "context_columns": dict(self.context_columns) or None,
                                 "trace": self.trace is not None, "protect": self.protect or None})

    def run_options(self, seed: int) -> RunOptions:
        """The engine's options for this job, with the job's resolved ``seed``."""
        return RunOptions.of(self.augment_options().replace(seed=seed)).checked()


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
