"""The folder of one ``augkit tune`` job: what it is, what it has measured, and its results.

- ``settings.json``: the job's identity (the data's digest, columns, classifier, search
  space, seeds, validation fraction). ``--resume`` continues only the same job: any
  difference is named and refused.
- ``runs.jsonl``: one line per finished run (a configuration on one split), appended and
  flushed to disk as each run ends, so a killed job loses at most the run in flight. A line
  that does not parse, or names a run the job does not have, or a run twice, is damage: the
  job stops and says which line, rather than rank from a guess.
- ``ranking.csv`` and ``summary.md``: written (atomically) when the job ends, budget or not.

One job per folder at a time (an OS lock, as ``augkit augment`` jobs have); a folder that
holds an earlier job is refused unless the run resumes it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augkit.errors import UsageError
from augkit.files.atomic import atomic_write
from augkit.files.os_errors import naming
from augkit.jobs.job_folder import JobDamagedError

SETTINGS_FILE, RUNS_FILE = "settings.json", "runs.jsonl"
RANKING_FILE, SUMMARY_FILE = "ranking.csv", "summary.md"
RUN_FIELDS = ("split", "configuration", "accuracy", "macro_f1", "C", "train_rows", "augmented_rows", "seconds")
#: Fields a record holds only when there is something to say: a fine-tuned judge's steps per
#: stage ([steps run, step kept]).
OPTIONAL_RUN_FIELDS = ("stages",)


@dataclass(frozen=True)
class RunRecord:
    """One configuration measured on one split: validation accuracy and macro-F1 (fractions)
    at the best C (None for the fine-tuned judge), the rows it trained on (augmented ones
    among them), its seconds and, for a fine-tuned judge, (steps run, step kept) per stage."""

    split: int
    configuration: str
    accuracy: float
    macro_f1: float
    C: float | None
    train_rows: int
    augmented_rows: int
    seconds: float
    stages: tuple[tuple[int, int], ...] = ()

    @property
    def key(self) -> tuple[int, str]:
        return self.split, self.configuration


class TuneJob:
    """A job folder held for one run (:meth:`open`), or None-folder bookkeeping in memory."""

    def __init__(self, folder: Path | None, settings: Mapping[str, Any], records: list[RunRecord], lock: Any = None):
        self.folder = folder
        self.settings = dict(settings)
        self.records = records
        self._lock = lock

    @classmethod
    def open(cls, folder: str | os.PathLike | None, settings: Mapping[str, Any], *, resume: bool,
             expected_runs: set[tuple[int, str]]) -> TuneJob:
        """Hold ``folder`` for this job and read what an earlier run of it measured (with
        ``resume``); None keeps everything in memory."""
        if folder is None:
            return cls(None, settings, [])
        from augkit.jobs.lock import lock_output_folder

        folder = Path(folder)
        lock = lock_output_folder(folder, runs="augkit tune")
        try:
            records = _existing_job(folder, settings, resume, expected_runs)
            if not (folder / SETTINGS_FILE).exists():
                with atomic_write(folder / SETTINGS_FILE) as partial:
                    partial.write_text(json.dumps(dict(settings), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        except BaseException:
            lock.release()
            raise
        return cls(folder, settings, records, lock)

    def done(self) -> set[tuple[int, str]]:
        return {record.key for record in self.records}

    def add(self, record: RunRecord) -> None:
        """Keep ``record``, on disk first (one line, flushed and synced)."""
        if self.folder is not None:
            fields = {name: getattr(record, name) for name in RUN_FIELDS}
            fields.update({name: getattr(record, name) for name in OPTIONAL_RUN_FIELDS if getattr(record, name)})
            line = json.dumps(fields) + "\n"
            with naming(self.folder / RUNS_FILE), open(self.folder / RUNS_FILE, "a", encoding="utf-8") as runs:
                runs.write(line)
                runs.flush()
                os.fsync(runs.fileno())
        self.records.append(record)

    def write_results(self, ranking: Any, summary: str) -> None:
        """``ranking.csv`` and ``summary.md``, each written whole or not at all."""
        if self.folder is None:
            return
        with atomic_write(self.folder / RANKING_FILE) as partial:
            ranking.to_csv(partial, index=False)
        with atomic_write(self.folder / SUMMARY_FILE) as partial:
            partial.write_text(summary, encoding="utf-8")

    def release(self) -> None:
        if self._lock is not None:
            from augkit.jobs.lock import OWNER_FILE

            (self.folder / OWNER_FILE).unlink(missing_ok=True)
            self._lock.release()
            self._lock = None


def _existing_job(folder: Path, settings: Mapping[str, Any], resume: bool, expected: set[tuple[int, str]]) -> list[RunRecord]:
    settings_file = folder / SETTINGS_FILE
    if not settings_file.exists():
        if (folder / RUNS_FILE).exists():
            raise JobDamagedError(f"{folder} holds {RUNS_FILE} but no {SETTINGS_FILE}: not a job augkit can continue; "
                                  "delete the folder to start over")
        return []
    if not resume:
        raise UsageError(f"{folder} holds an earlier augkit tune job; pass --resume to continue it, "
                         "or choose another output folder")
    try:
        earlier = json.loads(settings_file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise JobDamagedError(f"{settings_file} cannot be read ({error}); delete the folder to start over") from None
    changed = [key for key in sorted(set(earlier) | set(settings)) if earlier.get(key) != settings.get(key)]
    if changed:
        raise UsageError(f"--resume continues the same job only; this run differs from the one in {folder} in: "
                         + "; ".join(f"{key}: was {earlier.get(key)!r}, now {settings.get(key)!r}" for key in changed))
    return read_runs(folder / RUNS_FILE, expected)


def read_runs(path: Path, expected: set[tuple[int, str]]) -> list[RunRecord]:
    """The records of ``runs.jsonl``; a line that is not one of ``expected`` runs, exactly
    once, with every field, is damage (named by its line number)."""
    if not path.exists():
        return []
    records: list[RunRecord] = []
    seen: set[tuple[int, str]] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            fields = json.loads(line)
            record = RunRecord(**{name: fields[name] for name in RUN_FIELDS},
                               **{name: tuple(map(tuple, fields[name])) for name in OPTIONAL_RUN_FIELDS if name in fields})
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise JobDamagedError(f"{path}, line {number}: not a run record ({type(error).__name__}: {error}); "
                                  "delete the folder to start over") from None
        if record.key not in expected or record.key in seen:
            what = "a second record of" if record.key in seen else "a run this job does not have:"
            raise JobDamagedError(f"{path}, line {number}: {what} split {record.split}, {record.configuration!r}; "
                                  "delete the folder to start over")
        seen.add(record.key)
        records.append(record)
    return records
