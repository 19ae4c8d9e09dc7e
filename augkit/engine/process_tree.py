"""The processes below a process, read from Linux's /proc (empty where there is none)."""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")


def descendants(pid: int) -> set[int]:
    """The ids of the live processes below ``pid`` (children, their children, ...)."""
    parents: dict[int, int] = {}
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if entry.name.isdigit():
            fields = _stat_fields(entry)
            if fields and fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running: zombies (which an init that does not reap leaves
    behind) and ended processes excluded."""
    alive = set()
    for pid in pids:
        fields = _stat_fields(PROC / str(pid))
        if fields and fields[0] != "Z":
            alive.add(pid)
    return alive


def _stat_fields(entry: Path) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name: state, parent id, ..."""
    try:
        return (entry / "stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
