"""What the FAQ tab shows and hands back, without the UI: column guesses, the review table
with its "keep" ticks, and the candidate ids ticked. The upload rules (sizes, limits, the
download's name) are the page's own, shared by every tab: :mod:`augkit.web.uploads`.

Kept apart from :mod:`augkit_faq.web_ui` so that it is tested without a browser and without
gradio.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

REVIEW_COLUMNS = ["keep", "question", "candidate", "status", "meaning_change", "semantic", "label_integrity",
                  "nearest_question", "candidate_id"]
_QUESTION_NAMES = ("question", "questions", "q", "query", "title")
_ANSWER_NAMES = ("answer", "answers", "a", "response", "reply")


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


def _ticked(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "x")
    return bool(value) and value == value  # NaN is not ticked
