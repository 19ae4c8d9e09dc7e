"""POINTER's progressive stages (Zhang et al. 2020, section 3.1): a sentence taken apart from the
least important words up, each stage one training example of the insertion model.

The insertion model reads ``[CLS] t1 ... tn [SEP]`` and predicts, at each position ``p`` (0 is
``[CLS]``, ``p`` is ``tp``), the token to insert between position ``p`` and ``p + 1``, or
:data:`NOI_TOKEN` ("no insertion"); nothing is predicted at ``[SEP]``. Every insertion of a stage
is applied at once (:func:`apply_insertions`), and generation stops when every gap says
``[NOI]``. Training data runs the other way: from the sentence, repeatedly remove a set of
words of maximal total removability with no two of them next to each other (one insertion per
gap), the house-robber dynamic programme of POINTER's ``utils_ig.py`` written anew
(:func:`removal_plan`); each removal halves the sentence or so. The removed words become the
labels of the shorter stage; the full sentence itself is an example whose every label is
``[NOI]``, so that the model learns when to stop.

Words, not wordpieces, are the units: a word split into pieces (``cheese ##cake``) is never
split by a stage, since the generator keeps multi-piece words whole and forces ``[NOI]`` inside
them (:func:`gaps_inside_words`). A gap takes one token per stage, so only one-piece words are
ever removed: a multi-piece word stays in every stage, as a multi-piece keyword stays in every
stage of generation, and the model never learns to write one. With a vocabulary trained on the
corpus (``augkit train pointer --new-model``) every word of the corpus is one piece.

Removal stops once a stage has at most ``min_words`` words (default :data:`DEFAULT_MIN_WORDS`)
or no removable word is left. No randomness anywhere: the same tokens and scores give the same
stages.

>>> tokens = ["i", "lost", "my", "card", "yesterday"]
>>> for example in progressive_stages(tokens, [0.2, 1.0, 0.1, 2.0, 0.5]):
...     print(example.tokens, example.labels)
('i', 'lost', 'my', 'card', 'yesterday') ('[NOI]', '[NOI]', '[NOI]', '[NOI]', '[NOI]', '[NOI]')
('lost', 'card') ('i', 'my', 'yesterday')
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

#: The "no insertion" token POINTER adds to BERT's vocabulary (``[NOI]`` in its code).
NOI_TOKEN = "[NOI]"
#: How BERT's WordPiece marks a piece that continues the word before it.
CONTINUATION = "##"
#: Stop removing once a stage has this many words or fewer. POINTER stops at
#: ``key_word_len + skip`` = 4 tokens counting ``[CLS]``, ``[SEP]`` and a padding token, that
#: is one or two words; the generator of Chevasson et al. 2023 starts from two or three
#: keywords, so stages go down to two words and the model sees inputs of every size above.
DEFAULT_MIN_WORDS = 2
#: Added to the removability of every removable word but the most important one, so that each
#: has a positive weight: words tied with the most important one (rare words share the
#: highest idf) can still go when that costs nothing else, and each removal takes at least a
#: third of the removable words (no word could join the chosen set without a neighbour in it).
REMOVABILITY_FLOOR = 1e-3


@dataclass(frozen=True)
class InsertionExample:
    """One training example of the insertion model.

    ``tokens`` are the wordpieces ``t1 ... tn`` of the input (the model reads
    ``[CLS] t1 ... tn [SEP]``); ``labels`` has ``n + 1`` entries: ``labels[p]`` is the token to
    insert right after position ``p`` (0 is ``[CLS]``, ``p >= 1`` is ``tokens[p - 1]``), or
    :data:`NOI_TOKEN`. There is no label at ``[SEP]``.
    """

    tokens: tuple[str, ...]
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.tokens) + 1:
            raise ValueError(f"an example of {len(self.tokens)} tokens needs {len(self.tokens) + 1} labels, got {len(self.labels)}")


def word_spans(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each word of ``tokens``: a piece starting with ``##`` continues the
    word before it."""
    spans: list[tuple[int, int]] = []
    for i, token in enumerate(tokens):
        if token.startswith(CONTINUATION) and spans:
            spans[-1] = (spans[-1][0], i + 1)
        else:
            spans.append((i, i + 1))
    return spans


def words_of(tokens: Sequence[str]) -> list[str]:
    """The words of ``tokens``, pieces joined (``["cheese", "##cake"]`` -> ``["cheesecake"]``)."""
    return ["".join(t.removeprefix(CONTINUATION) if k else t for k, t in enumerate(tokens[start:end]))
            for start, end in word_spans(tokens)]


def gaps_inside_words(tokens: Sequence[str]) -> list[bool]:
    """For each position ``p`` of ``[CLS] t1 ... tn [SEP]`` that has a label (``0 ... n``),
    whether the gap after it falls inside a word (the next token is a ``##`` piece): the
    generator forces :data:`NOI_TOKEN` there, and no training label is anything else."""
    return [p < len(tokens) and tokens[p].startswith(CONTINUATION) for p in range(len(tokens) + 1)]


def apply_insertions(tokens: Sequence[str], labels: Sequence[str]) -> list[str]:
    """``tokens`` with each label that is not :data:`NOI_TOKEN` inserted after its position
    (all at once, as one stage of generation): the previous stage of a training example."""
    if len(labels) != len(tokens) + 1:
        raise ValueError(f"{len(tokens)} tokens need {len(tokens) + 1} labels, got {len(labels)}")
    grown = [labels[0]] if labels[0] != NOI_TOKEN else []
    for token, label in zip(tokens, labels[1:]):
        grown.append(token)
        if label != NOI_TOKEN:
            grown.append(label)
    return grown


def removal_plan(removability: Sequence[float | None]) -> list[int]:
    """The indices of a set of items of maximal total ``removability`` with no two next to each
    other; ``None`` or a removability of 0 or less marks an item that stays. Ties keep the item
    (the plan is the same every time).

    >>> removal_plan([1.0, 5.0, 1.0, None, 2.0])
    [1, 4]
    """
    # best[k]: the largest total over the first k items; took[i]: item i is in that best set.
    best = [0.0] * (len(removability) + 1)
    took = [False] * len(removability)
    for i, weight in enumerate(removability):
        with_it = (best[i - 1] if i else 0.0) + weight if weight is not None and weight > 0 else float("-inf")
        took[i] = with_it > best[i]
        best[i + 1] = with_it if took[i] else best[i]
    chosen, i = [], len(removability) - 1
    while i >= 0:
        if took[i]:
            chosen.append(i)
            i -= 2
        else:
            i -= 1
    return chosen[::-1]


def progressive_stages(
    tokens: Sequence[str],
    importance: Sequence[float],
    *,
    min_words: int = DEFAULT_MIN_WORDS,
    unremovable: Collection[str] = (),
) -> list[InsertionExample]:
    """The training examples of one sentence: first the sentence itself with every label
    :data:`NOI_TOKEN`, then each shorter stage with the labels that grow it back into the one
    before (``apply_insertions(*examples[k + 1]) == examples[k].tokens``).

    ``tokens`` are the sentence's wordpieces (without ``[CLS]``/``[SEP]``), ``importance`` one
    score per word (:func:`words_of`), higher for a word to keep longer. A word is removable
    when it is a single piece and not in ``unremovable`` (the tokenizer's special tokens such as
    ``[UNK]``: the model must never learn to write them); its removability is how much less
    important than the sentence's most important word it is (plus :data:`REMOVABILITY_FLOOR`).
    That word (the first of any tied with it) stays in every stage, as in POINTER, where its
    removability is 0.
    """
    spans = word_spans(tokens)
    if len(importance) != len(spans):
        raise ValueError(f"{len(spans)} words need {len(spans)} importance scores, got {len(importance)}")
    if min_words < 1:
        raise ValueError(f"min_words must be at least 1, got {min_words!r}")
    top = max(importance, default=0.0)
    kept = list(importance).index(top) if spans else -1
    removability = [
        top - score + REMOVABILITY_FLOOR if end - start == 1 and tokens[start] not in unremovable and w != kept else None
        for w, ((start, end), score) in enumerate(zip(spans, importance))
    ]
    examples = [InsertionExample(tuple(tokens), (NOI_TOKEN,) * (len(tokens) + 1))]
    current = list(range(len(spans)))  # the words of the latest stage, as indices of spans
    while len(current) > min_words:
        removed = set(removal_plan([removability[w] for w in current]))
        if not removed:
            break
        stage: list[str] = []
        labels = [NOI_TOKEN]
        for i, word in enumerate(current):
            start, end = spans[word]
            if i in removed:
                labels[-1] = tokens[start]  # after the last piece of the word before, or after [CLS]
                continue
            stage.extend(tokens[start:end])
            labels.extend([NOI_TOKEN] * (end - start))
        examples.append(InsertionExample(tuple(stage), tuple(labels)))
        current = [word for i, word in enumerate(current) if i not in removed]
    return examples
