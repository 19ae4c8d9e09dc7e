"""What the web UI shows and hands back, without the UI: column guesses, upload size checks,
the review table with its "keep" ticks, and the augmented file built from the ticks.

Kept apart from :mod:`augkit_faq.web_ui` so that it is tested without a browser and without
gradio.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from augkit.plugin import InputError, UsageError, XlsxLimits

DEFAULT_MAX_FILE_SIZE = "20MB"
#: An uploaded workbook may inflate to this many times the upload limit: text workbooks
#: inflate 3-7 times, a sheet of identical rows 13 times (measured; see augkit.xlsx_limits).
UPLOAD_INFLATION = 20
#: Most cells of an uploaded workbook: openpyxl parses about 20,000 a second on a loaded
#: 2-core machine, so about 10 s; an FAQ of 50,000 questions in 4 columns.
UPLOAD_MAX_CELLS = 200_000
REVIEW_COLUMNS = ["keep", "question", "candidate", "status", "meaning_change", "semantic", "label_integrity",
                  "nearest_question", "candidate_id"]
_UNITS = {"": 1, "B": 1, "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000, "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3}
_QUESTION_NAMES = ("question", "questions", "q", "query", "title")
_ANSWER_NAMES = ("answer", "answers", "a", "response", "reply")
#: Download formats, by upload suffix; anything else is written as CSV.
_WRITABLE = (".csv", ".tsv", ".jsonl", ".parquet", ".xlsx")


def parse_size(text: str | int) -> int:
    """Bytes in a size such as ``"20MB"``, ``"500 KB"``, ``"1MiB"`` or ``1048576``.

    >>> parse_size("20MB")
    20000000
    """
    if isinstance(text, int) and not isinstance(text, bool):
        size = text
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
        unit = match.group(2).upper() if match else None
        if not match or unit not in _UNITS:
            raise UsageError(f"cannot read {text!r} as a size; write e.g. 20MB, 500KB or 1048576")
        size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise UsageError(f"a size limit must be positive, got {text!r}")
    return size


def format_size(size: int) -> str:
    """``25300000`` -> ``"25.3 MB"``."""
    for unit, factor in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}".replace(".0 ", " ")
    return f"{size} bytes"


def check_upload_size(path: str | Path, limit: int) -> None:
    """Refuse a file over ``limit`` bytes, saying both sizes."""
    size = Path(path).stat().st_size
    if size > limit:
        raise InputError(f"the file is {format_size(size)}; the limit is {format_size(limit)} (augkit serve --max-file-size)")


def upload_xlsx_limits(max_file_size: int) -> XlsxLimits:
    """How large an uploaded workbook may be once inflated, for an upload limit of
    ``max_file_size`` bytes: :data:`UPLOAD_INFLATION` times it, :data:`UPLOAD_MAX_CELLS`
    cells, and no more than 100 times its own size (``augkit.xlsx_limits``)."""
    return XlsxLimits(max_inflated_bytes=UPLOAD_INFLATION * max_file_size, max_cells=UPLOAD_MAX_CELLS)


def guess_columns(columns: Sequence[str]) -> tuple[str | None, str | None]:
    """The question and answer columns, by name (``question``/``q``..., ``answer``/``a``...),
    else the first two columns."""
    lowered = {str(c).strip().lower(): c for c in columns}
    question = next((lowered[name] for name in _QUESTION_NAMES if name in lowered), None)
    answer = next((lowered[name] for name in _ANSWER_NAMES if name in lowered), None)
    rest = [c for c in columns if c not in (question, answer)]
    question = question if question is not None else (rest.pop(0) if rest else None)
    answer = answer if answer is not None else (rest.pop(0) if rest else None)
    return question, answer


def review_table(candidates: Any) -> Any:
    """Every unique candidate (repeats left out), grouped by source question in FAQ order,
    accepted ones first by rank, then the rejected ones by similarity; ``keep`` ticked for
    the accepted."""
    shown = candidates[candidates["status"] != "duplicate"].copy()
    shown["keep"] = shown["status"] == "accepted"
    order = {source: position for position, source in enumerate(dict.fromkeys(candidates["source"]))}
    shown["_question"] = shown["source"].map(order)
    shown["_accepted"] = ~shown["keep"]
    shown = shown.sort_values(["_question", "_accepted", "rank", "semantic"], ascending=[True, True, True, False], kind="stable")
    for column in ("semantic", "label_integrity"):
        shown[column] = shown[column].round(3)
    shown["nearest_question"] = shown["nearest_question"].fillna("")
    shown["meaning_change"] = shown["meaning_change"].fillna("")
    return shown[REVIEW_COLUMNS].reset_index(drop=True)


def kept_ids(review: Any) -> list[int]:
    """The candidate ids ticked in an (edited) review table."""
    if review is None or len(review) == 0:
        return []
    keep = review["keep"].map(_ticked)
    return [int(i) for i in review.loc[keep, "candidate_id"]]


def download_path(upload_name: str, folder: Path) -> Path:
    """Where the augmented file goes: ``<name>-augmented<suffix>`` inside ``folder``, in the
    upload's format when it can be written, else CSV."""
    name = Path(upload_name).name
    suffix = next((s for s in _WRITABLE if name.lower().endswith(s)), None)
    stem = name[: -len(suffix)] if suffix else Path(name).stem
    return folder / f"{stem or 'faq'}-augmented{suffix or '.csv'}"


def _ticked(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "x")
    return bool(value) and value == value  # NaN is not ticked
