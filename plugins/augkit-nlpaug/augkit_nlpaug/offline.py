"""What nlpaug would download, provided offline or refused with a message that says how.

- **Part-of-speech tags.** nlpaug's WordNet model tags each text with ``nltk.pos_tag``, whose
  averaged-perceptron data nlpaug downloads on first use. :func:`offline_pos_tagger` gives
  TextBlob's ``PatternTagger`` instead (Penn Treebank tags from a lexicon and rules shipped
  inside the textblob package; no NLTK data): the bridge sets it on its own augmenter's
  model only, nlpaug's class is left as it is.
- **WordNet.** nlpaug reads it through NLTK (``nltk.corpus.wordnet``) and calls
  ``nltk.download`` when it is missing; :func:`require_wordnet` checks first and refuses
  with the ways to provide it.
- **Sentence splitting.** nlpaug's sentence augmenter splits with NLTK's punkt, whose data
  nlpaug would download; :func:`sentence_tokenizer` is augkit's own splitter (segtok's rules).
- **Hugging Face models.** :func:`model_not_available` is the message for a model that cannot
  be loaded: its name, and how to give a local folder instead.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
from collections.abc import Callable, Sequence
from operator import itemgetter

from augkit.plugin import ModelNotAvailableError

#: How to lay WordNet out for NLTK without a download (the project's Makefile target runs
#: scripts/nltk_wordnet.sh on Debian's wordnet-base package).
WORDNET_HELP = (
    "nlpaug reads WordNet through NLTK, and NLTK finds no WordNet data: lay WordNet 3.0 out "
    "under an NLTK data folder and point NLTK_DATA at it (in augkit's repository: `make "
    "wordnet-for-nltk`, then NLTK_DATA=.cache/nltk_data), or run "
    "`python -m nltk.downloader wordnet` where the internet is reachable"
)

Tagger = Callable[[Sequence[str]], list[tuple[str, str]]]

#: A (token, tag) pair's token.
first = itemgetter(0)


@functools.cache
def offline_pos_tagger() -> Tagger:
    """``tokens -> [(token, Penn tag), ...]`` like ``nltk.pos_tag``, from TextBlob's
    pattern tagger (loaded once per process)."""
    from textblob.en.taggers import PatternTagger

    tagger = PatternTagger()

    def pos_tag(tokens: Sequence[str]) -> list[tuple[str, str]]:
        tags = tagger.tag(" ".join(tokens), tokenize=False)
        if len(tags) != len(tokens):  # a blank token, or one holding a space: one by one
            tags = [(token, (tagger.tag(token, tokenize=False) or [(token, "")])[0][1]) for token in tokens]
        if list(map(first, tags)) == list(tokens):  # as nearly always: no copy (nlpaug looks up tags[i][0])
            return tags
        return [(token, tag) for token, (_, tag) in zip(tokens, tags)]

    return pos_tag


def sentence_tokenizer(text: str) -> list[str]:
    """The sentences of ``text`` by augkit's splitter, for nlpaug's ``tokenizer`` parameter."""
    from augkit.plugin import split_sentences

    return split_sentences(text)


#: The NLTK search paths (``nltk.data.path`` as a tuple) on which WordNet was found: NLTK's
#: lookup checks the folders on disk each time (0.14 ms, where an ``augkit.augment`` call on
#: one text by method name takes 0.4 ms), and a WordNet found stays found while the paths do.
_WORDNET_FOUND_ON: set[tuple[str, ...]] = set()


def require_wordnet(method: str) -> None:
    """Fail with :data:`WORDNET_HELP` when NLTK cannot find WordNet (instead of nlpaug's
    attempt to download it). A search path on which it was found is not searched again; a
    missing WordNet is looked for on every call (the user may lay it out meanwhile)."""
    import nltk

    search_path = tuple(nltk.data.path)
    if search_path in _WORDNET_FOUND_ON:
        return
    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        try:
            nltk.data.find("corpora/wordnet.zip")
        except LookupError:
            raise ModelNotAvailableError(f"{method}: {WORDNET_HELP}") from None
    _WORDNET_FOUND_ON.add(search_path)


def model_not_available(method: str, parameter: str, model: str, error: BaseException) -> ModelNotAvailableError:
    """The error for a model nlpaug could not load or run: names it and the fix. A local
    folder that fails is not a download problem: the message says what nlpaug raised and
    which transformers it runs on (nlpaug 1.1.11 was written for transformers 4)."""
    reason = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}".rstrip(".")
    if os.path.isdir(str(model)):
        return ModelNotAvailableError(
            f"{method}: nlpaug could not run the model in the local folder {model!r} ({parameter}): {reason}. "
            f"nlpaug {_version('nlpaug')} was written for transformers 4; this environment has transformers "
            f"{_version('transformers')}"
        )
    return ModelNotAvailableError(
        f"{method}: cannot load the model {model!r} ({parameter}={model!r}): {reason}. nlpaug loads it from the "
        f"Hugging Face hub or a local folder; without the hub, download it where the hub is reachable "
        f"(`hf download {model} --local-dir DIR`), copy DIR here and pass {parameter}=DIR"
    )


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"
