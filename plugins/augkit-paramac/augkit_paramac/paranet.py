"""ParaNet's source sentences (Liu et al. 2022, section 4): sentences of 60-100 characters
taken from running text, each with about 250 characters of the text before and after it,
and the (source, paraphrase, scores) pairs ParaMac makes of them.

A corpus is a list of paragraphs; a paragraph is a list of sentences (:func:`text_paragraphs`
splits a plain text: paragraphs at blank lines, sentences by segtok). :func:`select_sources`
keeps each sentence whose length is in range and gives it its context, built the same way
on both sides:

- **whole sentences**, the nearest first, until the side holds at least ``context_chars``
  characters: a context never starts or ends in the middle of a sentence;
- **across paragraph boundaries**: in books (the paper's BookCorpus) a paragraph is often
  one line of dialogue, and the authors' code also gathered whole neighbouring paragraphs
  (/work/notes/paramac-code.md, section 7); sentences are joined by one space;
- **never past the corpus' ends**: a sentence too close to the start or the end to get
  ``context_chars`` on a side is skipped and counted (the authors' code rejected those
  samples too), so every source has its full context.

Whitespace (line breaks of hard-wrapped text included) is collapsed to single spaces, so
``before + " " + source + " " + after`` is a passage of the corpus as written. ParaMac reads
only the nearest ``context_chars`` characters of each side (its own parameter, cut at a
word); the stored sides are whole sentences, so they run a little longer.

>>> corpus = [["It was late.", "The house was quiet."], ["She sat down by the window and waited for the rain."]]
>>> selection = select_sources(corpus, min_chars=20, max_chars=60, context_chars=10)
>>> [(s.before, s.text, s.after) for s in selection.sources]
[('It was late.', 'The house was quiet.', 'She sat down by the window and waited for the rain.')]
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Source sentences "with a length between 60 and 100 characters" (section 4); inclusive
#: here. The authors' code kept 60 < length < 100 (paramac-code.md, section 7).
DEFAULT_MIN_CHARS = 60
DEFAULT_MAX_CHARS = 100
#: "the context before and behind S, both with an average length of 250 characters"
#: (section 4); the authors' code gathered whole paragraphs until a side exceeded 250.
DEFAULT_CONTEXT_CHARS = 250
#: ParaNet's size in the paper: "we randomly sample 10k examples" (section 4).
PAPER_SAMPLE = 10_000

#: The score columns of a pairs table, as ParaMac's pipeline steps name them.
SCORES = ("bertscore", "fluency", "diversity", "rank")
#: The columns of a pairs table, in order.
PAIR_COLUMNS = ("source", "paraphrase", "before", "after", *SCORES)

_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class SourceSentence:
    """A sentence to paraphrase: its ``text``, the context ``before`` and ``after`` it, and
    ``position``, its number among the corpus' sentences (or rows of a table), from 0."""

    text: str
    before: str
    after: str
    position: int


@dataclass
class Selection:
    """The sources a corpus gives and what was left out on the way: ``sentences`` in the
    corpus, ``in_range`` of them of the right length, ``short_context`` of those skipped for
    too little context on a side, and ``sampled``: None, or how many were drawn."""

    sources: list[SourceSentence]
    paragraphs: int
    sentences: int
    in_range: int
    short_context: int = 0
    sampled: int | None = None

    def describe(self, *, min_chars: int, max_chars: int, context_chars: int) -> str:
        """One clause for the run's summary, e.g. ``"40 paragraphs, 310 sentences, 96 of
        60-100 characters (4 skipped: under 250 characters of context on a side), 12 drawn"``."""
        found = f"{self.paragraphs} paragraphs, " if self.paragraphs else ""
        text = f"{found}{self.sentences} sentences, {self.in_range} of {min_chars}-{max_chars} characters"
        if self.short_context:
            text += f" ({self.short_context} skipped: under {context_chars} characters of context on a side)"
        if self.sampled is not None:
            text += f", {self.sampled} drawn at random"
        return text


def normalise_space(text: str) -> str:
    """``text`` with every run of white space (line breaks included) as one space, stripped."""
    return _SPACE.sub(" ", text).strip()


def text_paragraphs(text: str) -> list[list[str]]:
    """The paragraphs of a plain text (separated by blank lines), each as its sentences.

    Lines inside a paragraph are joined first (hard-wrapped text), then segtok's
    ``split_single`` splits the paragraph: segtok prefers under-splitting to over-splitting
    and keeps abbreviations ("Dr.", "i.e.") and initials inside their sentence. Empty
    paragraphs are left out.
    """
    from segtok.segmenter import split_single

    paragraphs = []
    for block in _BLANK_LINE.split(text.replace("\r\n", "\n").replace("\r", "\n")):
        joined = normalise_space(block)
        if joined:
            paragraphs.append([normalise_space(s) for s in split_single(joined) if s.strip()])
    return paragraphs


def select_sources(
    paragraphs: Sequence[Sequence[str]],
    *,
    min_chars: int = DEFAULT_MIN_CHARS,
    max_chars: int = DEFAULT_MAX_CHARS,
    context_chars: int = DEFAULT_CONTEXT_CHARS,
) -> Selection:
    """Every sentence of ``min_chars`` to ``max_chars`` characters (inclusive) with at least
    ``context_chars`` characters of whole neighbouring sentences on each side; see the module
    docstring for how the context is built."""
    sentences = [normalise_space(s) for paragraph in paragraphs for s in paragraph]
    sentences = [s for s in sentences if s]
    selection = Selection([], paragraphs=len(paragraphs), sentences=len(sentences), in_range=0)
    for position, sentence in enumerate(sentences):
        if not min_chars <= len(sentence) <= max_chars:
            continue
        selection.in_range += 1
        before = _side(sentences, range(position - 1, -1, -1), context_chars)
        after = _side(sentences, range(position + 1, len(sentences)), context_chars)
        if before is None or after is None:
            selection.short_context += 1
            continue
        selection.sources.append(SourceSentence(sentence, before, after, position))
    return selection


def _side(sentences: Sequence[str], order: range, context_chars: int) -> str | None:
    """The whole sentences at ``order`` (nearest first), as few as give ``context_chars``
    characters, in reading order; None if the corpus ends first."""
    taken: list[str] = []
    length = 0  # of the taken sentences joined by spaces
    for index in order:
        if length >= context_chars:
            break
        length += len(sentences[index]) + (1 if taken else 0)
        taken.append(sentences[index])
    if length < context_chars:
        return None
    if order.step < 0:
        taken.reverse()
    return " ".join(taken)


def table_sources(
    texts: Sequence[Any],
    befores: Sequence[Any] | None,
    afters: Sequence[Any] | None,
    *,
    min_chars: int = DEFAULT_MIN_CHARS,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Selection:
    """Sources from a table that holds their context: row ``i`` is the sentence ``texts[i]``
    with ``befores[i]`` and ``afters[i]`` (an absent column or a missing cell is no context
    on that side); rows whose text is missing or of the wrong length are left out."""
    selection = Selection([], paragraphs=0, sentences=0, in_range=0)
    for position, text in enumerate(texts):
        if not isinstance(text, str) or not text.strip():
            continue
        selection.sentences += 1
        text = normalise_space(text)
        if not min_chars <= len(text) <= max_chars:
            continue
        selection.in_range += 1
        before = _cell(befores, position)
        after = _cell(afters, position)
        selection.sources.append(SourceSentence(text, before, after, position))
    return selection


def _cell(column: Sequence[Any] | None, position: int) -> str:
    value = None if column is None else column[position]
    return normalise_space(value) if isinstance(value, str) else ""


def sample_sources(selection: Selection, count: int, seed: int) -> Selection:
    """``count`` of the selection's sources drawn at random with ``seed`` (all of them when
    there are no more), kept in corpus order. The same corpus, options and seed draw the
    same sources."""
    chosen = sorted(random.Random(seed).sample(range(len(selection.sources)), min(count, len(selection.sources))))
    return Selection(
        [selection.sources[i] for i in chosen], paragraphs=selection.paragraphs, sentences=selection.sentences,
        in_range=selection.in_range, short_context=selection.short_context, sampled=len(chosen),
    )


#: The columns of the table ParaMac runs on: ``text`` is paraphrased (and replaced by the
#: paraphrase in the output), ``source`` keeps the sentence, ``position`` its place.
SOURCE_TABLE_COLUMNS = ("text", "source", "before", "after", "position")


def sources_frame(sources: Sequence[SourceSentence]) -> Any:
    """The table ParaMac runs on (:data:`SOURCE_TABLE_COLUMNS`), one row per source."""
    import pandas as pd

    return pd.DataFrame(
        [(s.text, s.text, s.before, s.after, s.position) for s in sources], columns=list(SOURCE_TABLE_COLUMNS)
    )


@dataclass
class Pairs:
    """The pairs table (:data:`PAIR_COLUMNS`), how many sources have a pair in it, and the
    sources that got no paraphrase. (A sentence the corpus repeats is a source each time,
    with its own context.)"""

    frame: Any
    sources_paired: int
    unparaphrased: list[SourceSentence]


def pairs_from(augmented: Any, sources: Sequence[SourceSentence]) -> Pairs:
    """The pairs of an augmented source table (``augkit augment`` output without the
    originals: the paraphrase in ``text``, scores in ``augkit_<score>``): one row per
    paraphrase, best first within each source, and the sources that got none."""
    frame = augmented.rename(columns={"text": "paraphrase", **{f"augkit_{s}": s for s in SCORES}})
    paired = set(frame["position"].tolist()) if "position" in frame.columns else set()
    unparaphrased = [s for s in sources if s.position not in paired]
    # reindex: a run where no source got a paraphrase may have written no columns at all
    pairs = frame.reindex(columns=list(PAIR_COLUMNS)).reset_index(drop=True)
    return Pairs(pairs, len(sources) - len(unparaphrased), unparaphrased)
