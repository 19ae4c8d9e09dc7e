"""Duplicate removal: the filter every method gets by default, and augkit's one duplicate rule.

The parabank builder, the FAQ post-processing and back-translation's selection use this rule
too, through :meth:`ExactDuplicateFilter.key` and :meth:`ExactDuplicateFilter.repeats`, each
with the options that say what it counts as the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.filter import Filter

#: What ``ignore_final_punctuation`` strips from a text's end: spaces, full stops, question
#: and exclamation marks ("How do I pay?" and "How do I pay" ask the same question).
_FINAL_PUNCTUATION = re.compile(r"[\s.?!]+$")

#: :meth:`ExactDuplicateFilter.repeats`' verdict on a text equal to its source.
DUPLICATE_OF_SOURCE = "source"
#: :meth:`ExactDuplicateFilter.repeats`' verdict on a text equal to an earlier one.
DUPLICATE_OF_EARLIER = "repeat"


class ExactDuplicateFilter(Filter):
    """Drops candidates identical to their source or to an earlier candidate.

    A candidate that also rewrites other columns or the label (pair augmentation) is a
    duplicate only of one that rewrites them the same way.

    Texts are compared after collapsing runs of whitespace (so ``"a  b"`` equals ``"a b"``),
    and, as the options say, whatever their letter case and final punctuation. Of candidates
    that count as the same, the first is kept.

    Parameters
    ----------
    ignore_case : bool
        Treat texts differing only in letter case as duplicates.
    ignore_final_punctuation : bool
        Treat texts differing only in final spaces, full stops, question or exclamation
        marks as duplicates (the FAQ method's rule: "How do I pay?" is "how do i pay").
    against_source : bool
        Drop a candidate that is the source again; false compares candidates only with
        each other.
    against_candidates : bool
        Drop a candidate that repeats an earlier one; false drops only copies of the
        source (so that two steps, ``dedup(against_candidates=false)|dedup(against_source=false)``,
        count copies and repeats apart, as the parabank builder does).
    """

    name = "dedup"

    def __init__(
        self,
        ignore_case: bool = False,
        ignore_final_punctuation: bool = False,
        against_source: bool = True,
        against_candidates: bool = True,
    ):
        self.ignore_case = ignore_case
        self.ignore_final_punctuation = ignore_final_punctuation
        self.against_source = against_source
        self.against_candidates = against_candidates

    def key(self, text: str) -> str:
        """What two texts share when this rule counts them as the same.

        >>> ExactDuplicateFilter(ignore_case=True, ignore_final_punctuation=True).key(" How do I  pay? ")
        'how do i pay'
        """
        key = " ".join(text.split())
        if self.ignore_final_punctuation:
            key = _FINAL_PUNCTUATION.sub("", key)
        return key.casefold() if self.ignore_case else key

    def repeats(self, source: str, texts: Sequence[str]) -> list[str | None]:
        """For each of ``texts`` in order: None when it is new, :data:`DUPLICATE_OF_SOURCE`
        when it is the source again (only with ``against_source``),
        :data:`DUPLICATE_OF_EARLIER` when it is an earlier text again. Dropping every text
        with a verdict is this filter.

        >>> ExactDuplicateFilter(ignore_case=True).repeats("I paid", ["i  paid", "I did pay", "I DID PAY"])
        ['source', None, 'repeat']
        """
        key = self.key
        original = key(source) if self.against_source else None
        seen = set() if original is None else {original}
        verdicts: list[str | None] = []
        for text in texts:
            text_key = key(text)
            if text_key == original:
                verdicts.append(DUPLICATE_OF_SOURCE)
            elif self.against_candidates and text_key in seen:
                verdicts.append(DUPLICATE_OF_EARLIER)
            else:
                seen.add(text_key)
                verdicts.append(None)
        return verdicts

    def why(self, verdict: str) -> str:
        """A :meth:`repeats` verdict in words, with what this rule ignores.

        >>> ExactDuplicateFilter(ignore_case=True).why(DUPLICATE_OF_SOURCE)
        'duplicate of the source (ignoring case)'
        """
        ignoring = [what for what, ignored in (("case", self.ignore_case),
                                               ("final punctuation", self.ignore_final_punctuation)) if ignored]
        what = "the source" if verdict == DUPLICATE_OF_SOURCE else "an earlier candidate"
        return f"duplicate of {what}" + (f" (ignoring {' and '.join(ignoring)})" if ignoring else "")

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(self, sources, candidates, context):
        result = []
        key = self.key
        for source, row in zip(sources, candidates):
            if len(row) == 1:  # one candidate repeats nothing but perhaps the source
                if self.against_source and key(_compared(row[0])) == key(source):
                    row[0].drop_reason = self.why(DUPLICATE_OF_SOURCE)
                    row = []
            elif row:
                verdicts = self.repeats(source, [_compared(candidate) for candidate in row])
                if any(verdicts):  # else the row itself, not a copy
                    for candidate, verdict in zip(row, verdicts):
                        if verdict is not None:
                            candidate.drop_reason = self.why(verdict)
                    row = [candidate for candidate, verdict in zip(row, verdicts) if verdict is None]
            result.append(row)
        return result


def _compared(candidate: Candidate) -> str:
    """What the duplicate rule compares of a candidate: its text, and for pair augmentation
    the other columns and the label it rewrote (NUL-separated, so such a candidate is never
    the source again, and repeats only one that rewrote them the same way)."""
    if not candidate.fields and candidate.label is None:
        return candidate.text
    fields = "\0".join(f"{name}={value}" for name, value in sorted(candidate.fields.items()))
    return f"{candidate.text}\0{fields}\0{candidate.label!r}"
