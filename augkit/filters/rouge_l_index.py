"""Rouge-L F-measure of one text against many, fast enough to compare every candidate of a
dataset with every original and kept output of its label.

The score is rouge-score's own (``RougeScorer(["rougeL"]).score(a, b).fmeasure``): its default
tokenizer (lower-cased ASCII letters and digits, no stemming), the longest common
subsequence of tokens, and its F-measure ``2PR / (P + R)``, computed with the same float
operations so that a score on a bound is on the same side of it. What is faster: each text
is tokenized once, and the longest common subsequence is computed only for the texts that
could reach the bound. Rouge-L F is ``2 L / (a + b)`` for token counts ``a`` and ``b``, and
``L`` is at most the tokens the two texts share (as multisets), which an inverted index of
the stored texts counts for all of them at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from augkit.metrics._optional import METRICS_EXTRA, import_optional

#: Slack below the bound under which a text is not scored exactly: the shared-token bound is
#: computed with other float operations than the score, and must never prune a text the exact
#: score would put on the bound.
_BOUND_SLACK = 1e-9


class RougeTokenizer:
    """rouge-score's default tokenizer, its tokens as small integers (equal words, equal ints)."""

    def __init__(self) -> None:
        tokenizers = import_optional("rouge_score.tokenizers", "the near_duplicates filter (Rouge-L)", METRICS_EXTRA)
        self._tokenize = tokenizers.DefaultTokenizer(use_stemmer=False).tokenize
        self._ids: dict[str, int] = {}

    def __call__(self, text: str) -> tuple[int, ...]:
        ids = self._ids
        return tuple(ids.setdefault(token, len(ids)) for token in self._tokenize(text))

    def __getstate__(self) -> dict[str, Any]:
        return {"_ids": self._ids}  # rouge-score's tokenizer is built again where it is unpickled

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()
        self._ids = state["_ids"]


def rouge_l_f(target: Sequence[int], prediction: Sequence[int]) -> float:
    """rouge-score's Rouge-L F-measure of two token sequences (0 when either is empty)."""
    if not target or not prediction:
        return 0.0
    common = lcs_length(target, prediction)
    precision = common / len(prediction)
    recall = common / len(target)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def lcs_length(a: Sequence[int], b: Sequence[int]) -> int:
    """The length of the longest common subsequence of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for token in a:
        current = [0]
        for j, other in enumerate(b):
            current.append(previous[j] + 1 if token == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


class RougeLIndex:
    """Token sequences added one by one (each gets the next number), searched for the one a
    new sequence is closest to by Rouge-L F."""

    def __init__(self) -> None:
        self._sequences: list[tuple[int, ...]] = []
        self._lengths: list[int] = []
        #: token -> the numbers of the sequences holding it, once per occurrence
        self._postings: dict[int, list[int]] = {}
        self._arrays: dict[int, Any] = {}  # the postings as NumPy arrays, rebuilt when they grow

    def __len__(self) -> int:
        return len(self._sequences)

    def add(self, tokens: tuple[int, ...]) -> int:
        """Store ``tokens``; its number."""
        number = len(self._sequences)
        self._sequences.append(tokens)
        self._lengths.append(len(tokens))
        for token in tokens:
            self._postings.setdefault(token, []).append(number)
        return number

    def closest(self, tokens: tuple[int, ...], bound: float, skip: frozenset[int] = frozenset()) -> tuple[float, int] | None:
        """The highest Rouge-L F of ``tokens`` with a stored sequence, and that sequence's
        number (the lowest of those tied), when it is at least ``bound``; else None. The
        sequences numbered in ``skip`` are not compared."""
        import numpy as np

        count = len(self._sequences)
        if not tokens or not count:
            return None
        shared = np.zeros(count, dtype=np.int64)
        for token, times in Counter(tokens).items():
            holders = self._holders(token)
            if holders is not None:
                shared += np.minimum(np.bincount(holders, minlength=count), times)
        reach = 2 * shared / (len(tokens) + np.asarray(self._lengths))
        possible = np.nonzero(reach >= bound - _BOUND_SLACK)[0]
        best: tuple[float, int] | None = None
        for number in possible[np.argsort(-reach[possible], kind="stable")].tolist():
            if best is not None and reach[number] < best[0] - _BOUND_SLACK:
                break  # sorted by reach: no later one can beat the best
            if number in skip:
                continue
            score = rouge_l_f(self._sequences[number], tokens)
            if score >= bound and (best is None or score > best[0] or (score == best[0] and number < best[1])):
                best = (score, number)
        return best

    def _holders(self, token: int) -> Any:
        import numpy as np

        holders = self._postings.get(token)
        if holders is None:
            return None
        array = self._arrays.get(token)
        if array is None or len(array) != len(holders):
            array = self._arrays[token] = np.asarray(holders, dtype=np.int64)
        return array
