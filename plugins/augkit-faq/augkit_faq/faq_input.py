"""Checking an FAQ table and choosing which questions to paraphrase.

Nothing is dropped: every row comes out of :func:`augkit_faq.paraphrase_faq`; rows that cannot
be paraphrased (empty question, a repeat) are kept and named. What cannot be worked around
(a missing column, cells that are not text) is an :class:`~augkit.errors.InputError` naming it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from augkit.plugin import InputError, UsageError

EMPTY = "empty or missing question"
REPEATED = "repeated question, paraphrased at its first row"
AMBIGUOUS = "repeated question with different answers, not paraphrased"


@dataclass
class FaqQuestions:
    """The questions of an FAQ table, by row position."""

    rows: int
    labels: list[Any]  # each row's index label
    text: dict[int, str]  # position -> question, for rows with a question
    to_paraphrase: list[int]  # positions whose question is paraphrased
    all_questions: list[str]  # distinct questions: what a paraphrase must retrieve its own among
    skipped: dict[str, list[Any]] = field(default_factory=dict)  # reason -> row labels
    notes: list[str] = field(default_factory=list)


def read_questions(frame: Any, question_column: str, answer_column: str) -> FaqQuestions:
    """Validate ``frame`` and pick the rows to paraphrase."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"an FAQ must be a pandas.DataFrame of question/answer rows, got {type(frame).__name__}")
    if question_column == answer_column:
        raise UsageError(f"the question and answer columns are both {question_column!r}; name two different columns")
    missing = [c for c in (question_column, answer_column) if c not in frame.columns]
    if missing:
        kinds = {question_column: "question", answer_column: "answer"}
        listed = ", ".join(f"{kinds[c]} column {c!r}" for c in missing)
        raise InputError(f"the FAQ has no {listed}; its columns are: {', '.join(map(str, frame.columns))}")
    if frame.columns.duplicated().any():
        raise InputError(f"the FAQ has repeated column names: {sorted(set(frame.columns[frame.columns.duplicated()]))}")
    labels = list(frame.index)
    values = frame[question_column].tolist()
    answers = frame[answer_column].tolist()
    _refuse_non_text(values, labels, question_column)

    text: dict[int, str] = {}
    skipped: dict[str, list[Any]] = {EMPTY: [], REPEATED: [], AMBIGUOUS: []}
    notes: list[str] = []
    groups: dict[str, list[int]] = {}
    for position, value in enumerate(values):
        if _is_missing(value) or not value.strip():
            skipped[EMPTY].append(labels[position])
            continue
        text[position] = value.strip()
        groups.setdefault(value.strip(), []).append(position)

    to_paraphrase = []
    for question, positions in groups.items():
        shown = ", ".join(str(labels[p]) for p in positions)
        if len(positions) == 1:
            to_paraphrase.append(positions[0])
        elif len({_answer_key(answers[p]) for p in positions}) > 1:
            skipped[AMBIGUOUS].extend(labels[p] for p in positions)
            notes.append(f"question {question!r} appears in rows {shown} with different answers: not paraphrased, "
                         "since a paraphrase could not say which answer it belongs to")
        else:
            to_paraphrase.append(positions[0])
            skipped[REPEATED].extend(labels[p] for p in positions[1:])
            notes.append(f"question {question!r} appears in rows {shown}: paraphrased once, for row {labels[positions[0]]}")
    if skipped[EMPTY]:
        notes.append(f"{len(skipped[EMPTY])} rows have an empty or missing question and are kept unparaphrased: "
                     f"rows {_first(skipped[EMPTY])}")
    return FaqQuestions(
        rows=len(frame), labels=labels, text=text, to_paraphrase=sorted(to_paraphrase),
        all_questions=list(groups), skipped={k: v for k, v in skipped.items() if v}, notes=notes,
    )


def _refuse_non_text(values: list[Any], labels: list[Any], column: str) -> None:
    bad = [(labels[i], type(v).__name__) for i, v in enumerate(values) if not _is_missing(v) and not isinstance(v, str)]
    if bad:
        shown = ", ".join(f"{label} ({kind})" for label, kind in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        raise InputError(
            f"question column {column!r} has cells that are not text, in rows {shown}{more}; "
            "questions must be strings (convert the column with .astype(str) if the values are meant as text)"
        )


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or type(value).__name__ in ("NAType", "NaTType")


def _answer_key(answer: Any) -> Any:
    return None if _is_missing(answer) else str(answer).strip()


def _first(labels: list[Any], limit: int = 10) -> str:
    shown = ", ".join(str(label) for label in labels[:limit])
    return shown + (f" and {len(labels) - limit} more" if len(labels) > limit else "")
