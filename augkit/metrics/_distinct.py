"""dist-n: how many different n-grams a set of paraphrases of one source uses."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.errors import InvalidParameterError
from augkit.metrics._inputs import Tokenizer, non_empty_text_list, tokenizer_or_default


def distinct_n(texts: Sequence[str], n: int = 2, *, tokenize: Tokenizer | None = None) -> float:
    """dist-n of a batch of texts (meant for the paraphrases of one source): the number of
    distinct n-grams divided by the number of distinct tokens, over the whole batch.

    dist-n = |{n-grams of t : t in texts}| / |{tokens of t : t in texts}|, as Chevasson,
    Laclau and Gravier, 2022, "Diverse Paraphrasing with Insertion Models for Few-Shot
    Intent Detection", define dist-2 ("the number of distinct bigrams divided by the number
    of distinct tokens among all those paraphrases"), citing Ippolito et al., 2019. n-grams
    are taken within each text, never across two texts. Higher means more diverse.

    Caveat: the older definition (Li et al., 2016) divides by the *total* number of tokens
    and lies in [0, 1]; this one, as the paper writes it, can exceed 1 (a batch of two
    unrelated sentences has about as many distinct bigrams as distinct words). Do not
    compare the two.

    Tokens: ``tokenize`` (default ``str.split``: case and attached punctuation kept, as the
    paper names no normalisation). Pass e.g. ``lambda t: t.lower().split()`` to fold case.
    A batch without any token raises :class:`~augkit.errors.InvalidParameterError`.

    >>> distinct_n(["a b c", "a b d"])
    0.75
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameterError(f"n must be an integer >= 1, got {n!r}")
    items = non_empty_text_list(texts, "texts")
    split = tokenizer_or_default(tokenize)
    ngrams: set[tuple[str, ...]] = set()
    vocabulary: set[str] = set()
    for text in items:
        tokens = list(split(text))
        vocabulary.update(tokens)
        ngrams.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    if not vocabulary:
        raise InvalidParameterError("distinct-n needs at least one token in the batch; every text is empty")
    return len(ngrams) / len(vocabulary)
