"""One line for an operating-system error: which file, why, and what to do about it.

An error raised while writing into an open file (``No space left on device`` from a write or
a flush, ``File too large`` past a size limit) carries no file name: Python names a file only
for the call that opened it. Every place augkit writes a file therefore runs the writing
under :func:`naming`, so the message says which file could not be written.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator

_ADVICE = {
    errno.ENOSPC: "free some space on that disk, or write elsewhere (-o, --job-dir)",
    errno.EDQUOT: "free some of your disk quota, or write elsewhere (-o, --job-dir)",
    errno.EFBIG: "the file is larger than this system or its limits allow (ulimit -f): raise the limit, or write a smaller output",
    errno.EROFS: "that file system is read-only: write elsewhere (-o, --job-dir)",
    errno.EACCES: "you may not write there: check its permissions, or write elsewhere (-o, --job-dir)",
    errno.EPERM: "the operation is not permitted there: check its permissions, or write elsewhere",
    errno.ENOENT: "check the path",
    errno.EISDIR: "that path is a folder: name a file",
}


def describe_os_error(error: OSError) -> str:
    """``PATH: REASON; ADVICE`` (and a second path when there is one); ``REASON; ADVICE``
    for an error that names no file."""
    path = error.filename
    if error.filename2 is not None:
        path = f"{error.filename} -> {error.filename2}"
    reason = error.strerror or type(error).__name__
    advice = _ADVICE.get(error.errno, "check that path")
    notes = "".join(f"; {note}" for note in getattr(error, "__notes__", ()))
    return ("" if path is None else f"{path}: ") + f"{reason}; {advice}{notes}"


@contextlib.contextmanager
def naming(path: str | os.PathLike) -> Iterator[None]:
    """Run a write to ``path``; an OSError raised without a file name (a full disk found by
    a write, a flush or a sync) comes out naming ``path``.

    >>> with naming("out.csv"):                       # doctest: +SKIP
    ...     frame.to_csv(partial)
    OSError: [Errno 28] No space left on device: 'out.csv'
    """
    try:
        yield
    except OSError as error:
        if error.filename is not None or error.errno is None:
            raise
        named = OSError(error.errno, error.strerror, os.fspath(path))
        for note in getattr(error, "__notes__", ()):
            named.add_note(note)
        raise named from error
