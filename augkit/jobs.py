"""A resumable ``augkit augment`` job: a folder of finished chunks beside the output.

Each chunk of output is written to ``chunk-NNNNNN.<format>`` (a partial file renamed into
place), then its counts to ``chunk-NNNNNN.json`` the same way; a chunk is done when its JSON
exists, so a run killed at any moment (SIGKILL included) leaves only whole chunks. A run
started again with ``--resume`` and the same arguments skips the done chunks; at the end the
chunks are joined into the output and the folder is removed. The folder's ``job.json`` holds
the arguments that decide the output; a run with different ones is refused.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from augkit.errors import UsageError
from augkit.report import AugmentationReport

JOB_FILE = "job.json"


def job_folder_for(output: Path) -> Path:
    """The default job folder of an output file: ``.<name>.augkit-job`` beside it."""
    return output.with_name(f".{output.name}.augkit-job")


class AugmentJob:
    """The job folder of one ``augkit augment`` run; see the module docstring."""

    def __init__(self, folder: Path, settings: dict[str, Any], *, resume: bool):
        self.folder = folder
        self.resumed = False
        recorded = folder / JOB_FILE
        if recorded.exists():
            previous = json.loads(recorded.read_text())
            different = sorted(k for k in set(previous["settings"]) | set(settings) if previous["settings"].get(k) != settings.get(k))
            details = "; ".join(f"{k}: was {previous['settings'].get(k)!r}, now {settings.get(k)!r}" for k in different)
            if not resume:
                which = "of this command" if not different else f"started with other arguments ({details})"
                raise UsageError(
                    f"{folder} holds an interrupted run {which}; run the same command with --resume to continue it, "
                    "or delete that folder to start over"
                )
            if different:
                raise UsageError(f"cannot resume {folder}: the job was started with other arguments ({details}); "
                                 "use the same arguments, or delete that folder to start over")
            self.settings = previous["settings"]
            self.seed = previous["seed"]
            self.resumed = True
        else:
            if folder.exists() and any(folder.iterdir()):
                raise UsageError(f"job folder {folder} exists and is not an augkit job; move it away")
            folder.mkdir(parents=True, exist_ok=True)
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

    def chunk_file(self, index: int, suffix: str) -> Path:
        return self.folder / f"chunk-{index:06d}.{suffix}"

    def is_done(self, index: int) -> bool:
        return (self.folder / f"chunk-{index:06d}.json").exists()

    def record_chunk(self, index: int, report: AugmentationReport, columns: list[str]) -> None:
        """Mark chunk ``index`` done (after its data file is in place)."""
        _write_json(self.folder / f"chunk-{index:06d}.json", {**report.as_dict(), "columns": columns})

    def chunk_record(self, index: int) -> dict[str, Any]:
        return json.loads((self.folder / f"chunk-{index:06d}.json").read_text())

    def done_chunks(self) -> int:
        return sum(1 for _ in self.folder.glob("chunk-*.json"))

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def report_from_records(records: list[dict[str, Any]]) -> AugmentationReport:
    """The counts of a whole job, from its chunks' records."""
    report = AugmentationReport()
    for record in records:
        report.rows_read += record["rows_read"]
        report.rows_augmented += record["rows_augmented"]
        report.augmentations += record["augmentations"]
        report.original_rows_written += record["original_rows_written"]
        report.without_augmentation.update(Counter(record["without_augmentation"]))
    return report


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(payload, indent=1, sort_keys=True, default=str))
    os.replace(partial, path)
