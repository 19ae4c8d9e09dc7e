"""What protection writes into a run's output: the re-aligned BIO tags of each augmentation
of a row whose protect value was BIO tags, so that a joint intent and slot data set stays
usable after augmentation."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.protection.locate import bio_tags
from augkit.protection.reading import RunProtection
from augkit.steps.candidate import Candidate


def realigned_tags(protection: RunProtection, positions: Sequence[int], made: Sequence[Candidate | None]) -> list[str | None]:
    """Per output row (``positions[i]`` its source row, ``made[i]`` its candidate or None for
    an original row): the candidate's BIO tags when its source row was tagged BIO, else
    None (the row keeps its source row's value)."""
    tags: list[str | None] = []
    for position, candidate in zip(positions, made, strict=True):
        if candidate is None or not protection.bio[position]:
            tags.append(None)
        else:
            tags.append(bio_tags(candidate.text, protection.spans[position] if protection.spans else ()))
    return tags
