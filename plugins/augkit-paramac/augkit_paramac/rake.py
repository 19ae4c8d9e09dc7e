"""RAKE, Rapid Automatic Keyword Extraction (Rose et al. 2010), as rake-nltk computes it.

ParaMac's keywords start from RAKE (``rake_nltk.Rake()`` in the authors' code). rake-nltk
cannot run offline (it needs NLTK's punkt and stop-word downloads), so this module does its
two steps on words that the caller has already split and classified:

1. **Candidates**: maximal runs of content words, cut at every stop word and at every
   punctuation mark between words (:func:`candidate_runs`).
2. **Scores** (:func:`phrase_scores`): a word's frequency is how often it occurs in the
   candidates; its degree is, for each of those occurrences, the length of its candidate
   (the word counts as co-occurring with itself, as in rake-nltk's co-occurrence graph);
   a word scores degree / frequency and a candidate the sum of its words' scores.

As in rake-nltk 1.0.6 with the defaults ParaMac used (``include_repeated_phrases=True``,
``min_length=1``, ``max_length=100000``): a candidate that occurs twice counts twice, and
no candidate is dropped for its length. Words are compared in lower case.

>>> words = ["Red", "apples", "are", "good", "red", "apples"]
>>> runs = candidate_runs([True, True, False, True, True, True], [True] * 5)
>>> [words[run.start:run.stop] for run in runs]
[['Red', 'apples'], ['good', 'red', 'apples']]
>>> phrase_scores([("red", "apples"), ("good", "red", "apples")])
[5.0, 8.0]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

__all__ = ["candidate_runs", "phrase_scores", "ranked_phrases"]


def candidate_runs(content: Sequence[bool], joined: Sequence[bool]) -> list[range]:
    """RAKE's candidate phrases, as ranges of word positions, in order of appearance.

    ``content[i]`` says whether word ``i`` may be part of a phrase (not a stop word);
    ``joined[i]`` whether only white space separates words ``i`` and ``i + 1`` (any
    punctuation mark there ends a phrase, so ``len(joined) == len(content) - 1``).
    """
    runs: list[range] = []
    start: int | None = None
    for position, is_content in enumerate(content):
        if not is_content:
            if start is not None:
                runs.append(range(start, position))
                start = None
            continue
        if start is None:
            start = position
        if position == len(content) - 1 or not joined[position]:
            runs.append(range(start, position + 1))
            start = None
    return runs


def phrase_scores(phrases: Sequence[Sequence[str]]) -> list[float]:
    """RAKE's degree-to-frequency score of each candidate phrase (words already in lower
    case; a repeated phrase is listed once per occurrence and counts each time).

    >>> phrase_scores([("linear", "constraints"), ("linear", "diophantine", "equations")])
    [4.5, 8.5]
    """
    frequency: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for phrase in phrases:
        for word in phrase:
            frequency[word] += 1
            degree[word] += len(phrase)
    return [sum(degree[word] / frequency[word] for word in phrase) for phrase in phrases]


def ranked_phrases(phrases: Sequence[Sequence[str]]) -> list[tuple[float, str]]:
    """``(score, phrase)`` pairs best first, as rake-nltk's ``get_ranked_phrases_with_scores``:
    phrases joined by spaces, sorted by score then phrase, both descending, repeats kept."""
    return sorted(zip(phrase_scores(phrases), (" ".join(phrase) for phrase in phrases)), reverse=True)
