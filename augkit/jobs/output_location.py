"""Before a long run: can its output and job folder be written, and is there roughly room?

A run that finds out at its very end that the output folder is read-only, or that the disk
is full, has wasted all its work (with ``--job-dir`` on another disk, a whole job once ran
before failing at assembly). These checks run first, with real writes where it matters:
permissions alone do not tell (root ignores them; a read-only mount does not).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from augkit.errors import AugkitError, UsageError
from augkit.files.atomic import partial_path

#: Share of the estimated size that must be free before a run starts. The estimate (input
#: size times output rows per input row) is rough: formats differ and rewrites change
#: lengths, so the check refuses only runs that clearly cannot fit.
ROOM_FACTOR = 1.0


class NoRoomError(AugkitError):
    """The disk that would hold the output (or the job folder) lacks the room the run needs."""


def check_output_file(path: Path, role: str = "output", example: str = "augmented") -> None:
    """Refuse, before any work, a ``path`` that cannot become the file written: a folder, or
    an existing file that is not a regular file (a device such as ``/dev/null``, a named
    pipe), which the final rename of :func:`augkit.files.atomic.atomic_write` would replace
    instead of writing into. ``role`` names the path in the message (``output``, ``--trace
    file``); ``example`` is the file name it suggests inside a folder."""
    if path.is_dir():
        raise UsageError(f"the {role} {str(path)!r} is a folder; name a file in it, e.g. {str(path / (example + path.suffix))!r}")
    if path.exists() and not path.is_file():
        raise UsageError(f"the {role} {str(path)!r} is not a regular file but {_file_kind(path)}; augkit writes a new "
                         "file and renames it into place, which would replace it: name a regular file")


def _file_kind(path: Path) -> str:
    mode = path.stat().st_mode
    kinds = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
             (stat.S_ISSOCK, "a socket"))
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def check_writable(folder: Path) -> None:
    """Create and remove a small file in ``folder``; an OSError (read-only, no permission,
    no space) propagates, naming the folder."""
    probe = partial_path(folder / "write-check")
    try:
        with open(probe, "wb") as handle:
            handle.write(b"augkit")
    except OSError as error:  # name the folder the user chose, not our probe file in it
        raise OSError(error.errno, f"cannot write there ({error.strerror})", str(folder)) from None
    finally:
        with contextlib.suppress(OSError):  # a read-only file system refuses even this
            probe.unlink(missing_ok=True)


def check_room(writes: list[tuple[Path, int]]) -> None:
    """Refuse to start when a disk clearly cannot hold what the run will write there:
    ``writes`` pairs each folder written with the bytes it will receive (folders on one
    disk are summed)."""
    needed: dict[int, tuple[Path, int]] = {}
    for folder, size in writes:
        device = os.stat(folder).st_dev
        first, total = needed.get(device, (folder, 0))
        needed[device] = (first, total + size)
    for folder, size in needed.values():
        free = shutil.disk_usage(folder).free
        if free < size * ROOM_FACTOR:
            raise NoRoomError(
                f"{folder} has {_megabytes(free)} free; this run will write about {_megabytes(size)} there "
                "(input size times rows written per input row); free some space, write elsewhere "
                "(-o, --job-dir), or pass --no-space-check if the estimate is wrong for your data",
            )


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"
