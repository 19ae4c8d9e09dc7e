"""One run per job folder: an exclusive OS lock on the folder, held for the whole run.

The lock is ``flock`` on the folder itself (Linux, macOS and the BSDs; on NFS, Linux maps it
to a byte-range lock). The kernel drops it when its holder exits, however it exits (SIGKILL
included), so a stale lock cannot outlive a crashed run. The holder records who it is
(process id, host, start time, command line) in ``owner.json``, so a second run can say who
holds the folder. Processes forked while the lock is held (worker pools) do not keep it: the
lock belongs to the run's main process alone.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

from augkit.errors import UsageError

OWNER_FILE = "owner.json"
_held: set[int] = set()


class JobBusyError(UsageError):
    """The job folder is locked by another run; the message says which."""


class FolderLock:
    """An exclusive lock on ``folder`` (created if missing) until :meth:`release`."""

    def __init__(self, folder: Path):
        import fcntl

        self.folder = folder
        while True:
            folder.mkdir(parents=True, exist_ok=True)
            try:
                descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:  # its holder removed it since our mkdir: make it again
                continue
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                raise JobBusyError(f"job folder {folder} is in use by another augkit run ({describe_owner(folder)}); "
                                   "wait for it to finish or stop it; two runs on one job would corrupt it") from None
            # Its previous holder may have removed (or renamed) the folder between our open and
            # our lock: then we hold a lock on a folder that is no longer there; try again.
            if _same_file(descriptor, folder):
                break
            os.close(descriptor)
        self._descriptor = descriptor
        _held.add(descriptor)
        _record_owner(folder)

    def release(self) -> None:
        """Let other runs have the folder (idempotent)."""
        if self._descriptor is not None:
            _held.discard(self._descriptor)
            os.close(self._descriptor)
            self._descriptor = None


def lock_output_folder(folder: Path, *, runs: str, busy_note: str = "") -> FolderLock:
    """Hold the output folder of one run of ``runs`` (``training``, ``augkit tune``): refused,
    as a usage error, when ``folder`` is a file or another run holds it (the message says
    which process, then ``busy_note``)."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"the output {str(folder)!r} is a file; {runs} writes a folder")
    try:
        return FolderLock(folder)
    except JobBusyError:
        raise UsageError(f"{folder} is in use by another {runs} run ({describe_owner(folder)}); "
                         f"wait for it to finish or stop it{busy_note}") from None


def describe_owner(folder: Path) -> str:
    """Who holds ``folder``, from its ``owner.json`` (in words)."""
    try:
        owner = json.loads((folder / OWNER_FILE).read_text())
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner["started"]))
        return f"process {owner['pid']} on {owner['host']}, started {started}: {owner['command']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "its owner has not recorded itself yet"


def _record_owner(folder: Path) -> None:
    from augkit.files.atomic import atomic_write

    owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time(),
             "command": " ".join(["augkit", *sys.argv[1:]]) if sys.argv else "augkit"}
    with atomic_write(folder / OWNER_FILE) as partial:
        partial.write_text(json.dumps(owner))


def _same_file(descriptor: int, path: Path) -> bool:
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(descriptor)
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def _forget_in_child() -> None:
    """In a forked child: close the inherited lock descriptors, so that only the run's main
    process keeps the lock (a worker outliving a killed run must not keep the job locked)."""
    for descriptor in list(_held):
        try:
            os.close(descriptor)
        except OSError:
            pass
    _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
