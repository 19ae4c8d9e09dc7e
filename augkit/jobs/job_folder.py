"""A resumable ``augkit augment`` job: a folder of finished, verified chunks beside the output.

What a job folder guarantees (docs/user-guide.md, "Large files, crashes and resuming"):

- **One owner.** A run holds an exclusive OS lock on the folder (:mod:`augkit.jobs.lock`)
  from before it reads anything in it until it has removed it; a second run on the same
  folder stops at once, naming the first.
- **Verified chunks.** Each chunk of output is written to ``chunk-NNNNNN.<format>`` (through a
  partial file unique to its writer, then a rename), then its record ``chunk-NNNNNN.json``
  the same way: the rows it read, the rows it wrote, and the size and BLAKE2b digest of its
  data file (and, for a run with ``--trace``, the same for its ``trace-NNNNNN.<format>``
  file, part ``trace`` of the record). A resumed run checks every record against its data file and against the input
  rows it covers; a chunk that fails (truncated, emptied, missing, unreadable record, other
  input rows) is redone, with a warning that says why.
- **Atomic output.** The output is assembled from the chunks into a partial file, checked
  (every input row covered; the bytes copied are the bytes recorded), then renamed over the
  output: the output is complete or untouched. The folder is then renamed aside and removed.

The folder's ``job.json`` holds the arguments that decide the output, the input's size and
a digest of its content; a run with different ones is refused, naming the differences.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from augkit.errors import AugkitError, UsageError
from augkit.files.atomic import atomic_write, file_digest, remove_partials
from augkit.jobs.lock import OWNER_FILE, FolderLock
from augkit.reporting.report import AugmentationReport, sum_reports

JOB_FILE = "job.json"
#: Version of the folder's layout, part of the settings: a folder written by an augkit that
#: recorded chunks differently is refused rather than misread.
JOB_FORMAT = 2
#: Suffix of a finished job's folder while it is being removed (renamed aside first, so a
#: kill during removal leaves no half-removed job that a later run could mistake for one).
REMOVING_SUFFIX = ".removing"
#: Settings compared in words rather than as raw values when a job is resumed.
_DESCRIBED = {
    "job_format": lambda was, now: f"the folder was written by another augkit version (job format {was}, this one writes {now})",
    "input_bytes": lambda was, now: f"the input's size changed (was {was} bytes, now {now})",
    "input_digest": lambda was, now: "the input's content changed since the job started",
}


@dataclass(frozen=True)
class ChunkPart:
    """One file a chunk writes: part ``name`` (``data``: the output rows; ``trace``: the
    candidates' trace) in format ``suffix``, written by ``write(path)``, holding ``rows`` rows;
    ``counts``: what else its record keeps of it, for the checks before assembly."""

    name: str
    suffix: str
    write: Callable[[Path], None]
    rows: int
    counts: Mapping[str, int] = field(default_factory=dict)


class JobDamagedError(AugkitError):
    """A job folder whose own records cannot be read: the message says which file and what
    to do (delete the folder to start over)."""


def job_folder_for(output: Path) -> Path:
    """The default job folder of an output file: ``.<name>.augkit-job`` beside it."""
    return output.with_name(f".{output.name}.augkit-job")


class AugmentJob:
    """The job folder of one ``augkit augment`` run, locked by it; see the module docstring.

    ``describe_rows(index)`` names the input rows chunk ``index`` covers, for messages;
    ``same_setting(key, recorded, now)`` says whether a recorded setting that differs from
    today's is the same all the same (a method spec written with parameter names since
    renamed).
    """

    def __init__(self, folder: Path, settings: dict[str, Any], *, resume: bool,
                 describe_rows: Callable[[int], str] | None = None,
                 same_setting: Callable[[str, Any, Any], bool] | None = None):
        self.folder = folder
        self._same_setting = same_setting or (lambda key, recorded, now: False)
        self.resumed = False
        self._describe_rows = describe_rows or (lambda index: f"chunk {index}")
        settings = {**settings, "job_format": JOB_FORMAT}
        _remove_abandoned_removals(folder)
        fresh = not folder.exists()
        self._lock = FolderLock(folder)
        try:
            self._open(settings, resume=resume, fresh=fresh)
        except BaseException:
            if fresh:
                self.remove()
            else:
                self._lock.release()
            raise

    def _open(self, settings: dict[str, Any], *, resume: bool, fresh: bool) -> None:
        recorded = self.folder / JOB_FILE
        if recorded.exists():
            try:
                previous = json.loads(recorded.read_text())
                previous_settings, previous_seed = previous["settings"], previous["seed"]
            except (OSError, ValueError, KeyError, TypeError) as error:
                raise JobDamagedError(
                    f"the job record {recorded} is damaged ({type(error).__name__}: {error}); the arguments of "
                    f"the interrupted run cannot be known: delete {self.folder} to start over"
                ) from None
            different = sorted(k for k in set(previous_settings) | set(settings)
                               if previous_settings.get(k) != settings.get(k)
                               and not self._same_setting(k, previous_settings.get(k), settings.get(k)))
            details = "; ".join(_describe_change(k, previous_settings.get(k), settings.get(k)) for k in different)
            if not resume:
                which = "of this command" if not different else f"started with other arguments ({details})"
                raise UsageError(
                    f"{self.folder} holds an interrupted run {which}; run the same command with --resume to continue it, "
                    "or delete that folder to start over"
                )
            if different:
                raise UsageError(f"cannot resume {self.folder}: the job was started with other arguments ({details}); "
                                 "use the same arguments, or delete that folder to start over")
            self.settings = previous_settings
            self.seed = previous_seed
            self.resumed = True
            remove_partials(self.folder)  # left by the killed run
        else:
            foreign = [p.name for p in self.folder.iterdir() if p.name != OWNER_FILE]
            if not fresh and foreign:
                raise UsageError(f"job folder {self.folder} holds files ({', '.join(sorted(foreign)[:3])}) but no job "
                                 "record (job.json): it is not an augkit job, or a damaged one; move it away or delete it")
            self.settings = settings
            self.seed = None

    def start(self, seed: int) -> int:
        """Record the job (on a fresh start) and return the seed to use: the recorded one on
        resume, so a job started without --seed resumes with the seed it drew."""
        if self.resumed:
            return self.seed
        self.seed = seed
        _write_json(self.folder / JOB_FILE, {"settings": self.settings, "seed": seed})
        return seed

    def chunk_file(self, index: int, suffix: str, part: str = "data") -> Path:
        """The file of part ``part`` of chunk ``index``: ``chunk-NNNNNN.<suffix>`` for the
        data, ``<part>-NNNNNN.<suffix>`` for another part."""
        return self.folder / f"{'chunk' if part == 'data' else part}-{index:06d}.{suffix}"

    def _record_file(self, index: int) -> Path:
        return self.folder / f"chunk-{index:06d}.json"

    def finished_chunk(self, index: int, rows_read: int, parts: Mapping[str, str]) -> dict[str, Any] | None:
        """The record of chunk ``index`` if it is done and verified (its record readable,
        covering ``rows_read`` input rows, each of its parts' files, ``{part: suffix}``, of
        the recorded size and digest); None if it must be (re)done. A chunk that fails is
        deleted with a warning saying why."""
        record_file = self._record_file(index)
        if not record_file.exists():
            return None
        problem = self._chunk_problem(index, rows_read, parts)
        if problem is None:
            return json.loads(record_file.read_text())
        warnings.warn(f"augkit: chunk {index} of {self.folder} ({self._describe_rows(index)}) is redone: {problem}",
                      RuntimeWarning, stacklevel=2)
        record_file.unlink(missing_ok=True)
        for part, suffix in parts.items():
            self.chunk_file(index, suffix, part).unlink(missing_ok=True)
        return None

    def _chunk_problem(self, index: int, rows_read: int, parts: Mapping[str, str]) -> str | None:
        try:
            record = json.loads(self._record_file(index).read_text())
            recorded_rows = record["rows_read"]
            recorded = {part: (record[part]["bytes"], record[part]["digest"]) for part in parts}
        except (OSError, ValueError, KeyError, TypeError) as error:
            return f"its record is unreadable ({type(error).__name__})"
        if recorded_rows != rows_read:
            return f"it covers {recorded_rows} input rows, the input now gives {rows_read} there"
        for part, (size, digest) in recorded.items():
            what = "data" if part == "data" else part
            part_file = self.chunk_file(index, parts[part], part)
            if not part_file.exists():
                return f"its {what} file is missing"
            actual = part_file.stat().st_size
            if actual != size:
                return f"its {what} file has {actual} bytes, {size} were written"
            if file_digest(part_file) != digest:
                return f"its {what} file's content differs from what was written"
        return None

    def save_chunk(self, index: int, parts: list[ChunkPart], report: AugmentationReport,
                   columns: list[str]) -> dict[str, Any]:
        """Write each part of chunk ``index`` (``data`` first), then its record (which marks
        it done). Returns the record."""
        record: dict[str, Any] = {**report.as_dict(), "columns": columns}
        for part in parts:
            part_file = self.chunk_file(index, part.suffix, part.name)
            with atomic_write(part_file) as partial:
                part.write(partial)
            record[part.name] = {**part.counts, "rows": part.rows, "bytes": part_file.stat().st_size, "digest": file_digest(part_file)}
        _write_json(self._record_file(index), record)
        return record

    def done_chunks(self) -> int:
        return sum(1 for _ in self.folder.glob("chunk-*.json"))

    def release(self) -> None:
        """Keep the folder (finished chunks stay for --resume) and let other runs have it."""
        self._lock.release()

    def remove(self) -> None:
        """Remove the folder and release it: renamed aside first, so a kill during removal
        leaves no half-removed job folder."""
        aside = self.folder.with_name(f"{self.folder.name}{REMOVING_SUFFIX}-{os.getpid()}")
        try:
            os.replace(self.folder, aside)
        except OSError:
            aside = self.folder
        shutil.rmtree(aside, ignore_errors=True)
        self._lock.release()


def report_from_records(records: list[dict[str, Any]]) -> AugmentationReport:
    """The counts of a whole job, from its chunks' records."""
    return sum_reports(AugmentationReport.from_dict(record) for record in records)


def _describe_change(key: str, was: Any, now: Any) -> str:
    describe = _DESCRIBED.get(key)
    return describe(was, now) if describe else f"{key}: was {was!r}, now {now!r}"


def _remove_abandoned_removals(folder: Path) -> None:
    """Finish removing folders of finished jobs whose removal was interrupted."""
    for aside in folder.parent.glob(f"{folder.name}{REMOVING_SUFFIX}-*"):
        shutil.rmtree(aside, ignore_errors=True)


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    with atomic_write(path) as partial:
        partial.write_text(json.dumps(payload, indent=1, sort_keys=True, default=str))
