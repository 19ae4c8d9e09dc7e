"""Files that appear whole or not at all: a partial file unique to its writer, then a rename.

Every file augkit writes for a user or a job (outputs, chunk files, job records) goes through
:func:`atomic_write`, and every folder that must appear whole (a training checkpoint) through
:func:`atomic_folder`. The partial file's name carries the writer's process id and a random
token, so two writers never share one (two runs racing on a job folder once wrote the same
fixed-name partial and left NUL bytes in an output); it is flushed to disk before the
rename, so a crash after the rename cannot leave a short file behind the final name; and it
is removed when writing fails (a full disk does not stay full of partial files), and the
error names the file being written (:func:`augkit.files.os_errors.naming`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from augkit.files.os_errors import naming

#: Marks the partial files of :func:`atomic_write`: ``.<name>.<pid>-<token>.augkit-partial``.
PARTIAL_SUFFIX = ".augkit-partial"
#: Bytes read at a time when hashing or scanning a file: large enough to run at disk speed.
READ_BLOCK = 1 << 20


def partial_path(target: Path) -> Path:
    """A partial-file name beside ``target`` that no other writer uses."""
    return target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}{PARTIAL_SUFFIX}")


@contextmanager
def atomic_write(target: str | Path) -> Iterator[Path]:
    """Yield a partial path to write; on success it is synced and renamed to ``target``,
    on any failure (an exception, Ctrl-C) it is removed and ``target`` is left as it was.

    >>> with atomic_write(path) as partial:        # doctest: +SKIP
    ...     frame.to_csv(partial, index=False)
    """
    target = Path(target)
    partial = partial_path(target)
    try:
        with naming(target):  # a full disk found mid-write names the file the user knows
            yield partial
            _sync(partial)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


@contextmanager
def atomic_folder(target: str | Path) -> Iterator[Path]:
    """Yield a new, empty partial folder to fill; on success every file in it is synced and the
    folder renamed to ``target`` (replacing a folder already there), on any failure it is
    removed and ``target`` is left as it was: a run killed while saving a checkpoint leaves no
    half checkpoint to resume from.

    >>> with atomic_folder(output / "checkpoint-50") as partial:        # doctest: +SKIP
    ...     model.save_pretrained(partial)
    """
    target = Path(target)
    partial = partial_path(target)
    try:
        with naming(target):
            partial.mkdir(parents=True)
            yield partial
            for path in sorted(partial.rglob("*")):
                if path.is_file():
                    _sync(path)
        if target.exists():  # moved aside first: a folder is replaced by a rename only when it is gone
            replaced = partial_path(target)
            os.replace(target, replaced)
            os.replace(partial, target)
            shutil.rmtree(replaced, ignore_errors=True)
        else:
            os.replace(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def remove_partials(folder: Path) -> None:
    """Remove partial files and folders left in ``folder`` by writers that were killed."""
    for path in folder.glob(f".*{PARTIAL_SUFFIX}"):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def file_digest(path: str | Path) -> str:
    """The BLAKE2b-128 digest of a file's bytes, in hex (hashes at disk speed)."""
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as source:
        while block := source.read(READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _sync(path: Path) -> None:
    with open(path, "rb+") as written:
        os.fsync(written.fileno())
