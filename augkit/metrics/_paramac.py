"""ParaMac's diversity score of a paraphrase pair: word overlap plus word-order shift."""

from __future__ import annotations

from augkit.errors import InvalidParameterError
from augkit.metrics._inputs import Tokenizer, tokenizer_or_default

#: (beta1, beta2) of ParaMac's released code (``div_score``: 0.5 and 0.5, the sum then
#: doubled); the paper gives no values.
PARAMAC_BETAS = (1.0, 1.0)


def paramac_diversity(
    a: str,
    b: str,
    beta1: float = PARAMAC_BETAS[0],
    beta2: float = PARAMAC_BETAS[1],
    *,
    tokenize: Tokenizer | None = None,
) -> float:
    """ParaMac's s_div of two sentences (Liu et al., 2022, "ParaMac: A General Unsupervised
    Paraphrase Generation Framework Leveraging Semantic Constraints and Diversifying
    Mechanisms", equation 2)::

        s_div(S1, S2) = beta1 * |S1 ∩ S2| / |S1 ∪ S2|
                      + beta2 * 1/|S1 ∩ S2| * sum_{w in S1 ∩ S2} |p_S1(w) - p_S2(w)| / max(|S1|, |S2|)

    S is the set of a sentence's words, |S| its number of distinct words and p_S(w) the
    position (0-based) of w in the sentence, its first occurrence when w repeats. The first
    term is the Jaccard overlap, the second the mean position shift of the shared words.
    With no shared word the second term is 0. Symmetric in ``a`` and ``b``.

    Exactly as printed (and as the released code computes it), the first term *rises* with
    overlap although the score is called a diversity: the ranking weight lambda_3 and the
    betas decide what it rewards. The paper gives no betas; the defaults (1, 1) are those of
    the released code (``div_score``: 0.5 each, the sum doubled). Tokens: ``tokenize``
    (default ``str.split``, case-sensitive, as that code splits on spaces).

    Two texts without any word raise :class:`~augkit.errors.InvalidParameterError`.

    >>> paramac_diversity("a b c", "c b a")   # Jaccard 1; shifts 2, 0, 2 over 3 words, /3
    1.4444444444444444
    """
    for name, value in (("beta1", beta1), ("beta2", beta2)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameterError(f"{name} must be a number, got {value!r}")
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, str):
            raise InvalidParameterError(f"{name} must be a str, got {type(value).__name__}")
    split = tokenizer_or_default(tokenize)
    first_a = _first_positions(split(a))
    first_b = _first_positions(split(b))
    union = first_a.keys() | first_b.keys()
    if not union:
        raise InvalidParameterError("paramac_diversity needs at least one word in a or b; both are empty")
    shared = first_a.keys() & first_b.keys()
    overlap = len(shared) / len(union)
    if not shared:
        return beta1 * overlap
    longest = max(len(first_a), len(first_b))
    shift = sum(abs(first_a[word] - first_b[word]) / longest for word in shared) / len(shared)
    return beta1 * overlap + beta2 * shift


def _first_positions(tokens) -> dict[str, int]:
    """Each distinct token with the position of its first occurrence."""
    positions: dict[str, int] = {}
    for position, token in enumerate(tokens):
        positions.setdefault(token, position)
    return positions
