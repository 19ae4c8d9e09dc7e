"""One line for an operating-system error: which file, why, and what to do about it."""

from __future__ import annotations

import errno

_ADVICE = {
    errno.ENOSPC: "free some space on that disk, or write elsewhere (-o, --job-dir)",
    errno.EDQUOT: "free some of your disk quota, or write elsewhere (-o, --job-dir)",
    errno.EROFS: "that file system is read-only: write elsewhere (-o, --job-dir)",
    errno.EACCES: "you may not write there: check its permissions, or write elsewhere (-o, --job-dir)",
    errno.EPERM: "the operation is not permitted there: check its permissions, or write elsewhere",
    errno.ENOENT: "check the path",
    errno.EISDIR: "that path is a folder: name a file",
}


def describe_os_error(error: OSError) -> str:
    """``cannot write PATH: REASON; ADVICE`` (and a second path when there is one)."""
    path = error.filename if error.filename is not None else "a file"
    if error.filename2 is not None:
        path = f"{error.filename} -> {error.filename2}"
    reason = error.strerror or type(error).__name__
    advice = _ADVICE.get(error.errno, "check that path")
    notes = "".join(f"; {note}" for note in getattr(error, "__notes__", ()))
    return f"{path}: {reason}; {advice}{notes}"
