"""nlpaug's word augmenters as the benchmarks use them, runnable offline.

nlpaug's ``SynonymAug`` POS-tags every sentence with NLTK's averaged perceptron tagger, whose
data cannot be downloaded here. :func:`nlpaug_augmenters` gives it TextBlob's offline
``PatternTagger`` instead (nlpaug's ``WordNet.pos_tag`` is patched once per process); WordNet
itself comes from NLTK_DATA (``make bench`` lays it out with ``scripts/nltk_wordnet.sh``).
"""

from __future__ import annotations

import sys


def nlpaug_augmenters(aug_p: float = 0.1) -> dict:
    """nlpaug's synonym, swap and delete augmenters at ``aug_p`` (at least one edit each).

    Returns ``{"synonym": SynonymAug(aug_src="wordnet"), "swap": RandomWordAug(action="swap"),
    "delete": RandomWordAug(action="delete")}``.
    """
    import nlpaug.augmenter.word as naw

    use_offline_pos_tagger()
    return {
        "synonym": naw.SynonymAug(aug_src="wordnet", aug_p=aug_p, aug_min=1),
        "swap": naw.RandomWordAug(action="swap", aug_p=aug_p, aug_min=1),
        "delete": naw.RandomWordAug(action="delete", aug_p=aug_p, aug_min=1),
    }


def use_offline_pos_tagger() -> None:
    """Make nlpaug's WordNet model POS-tag with TextBlob's PatternTagger (no NLTK tagger data)."""
    import nlpaug.augmenter.word  # noqa: F401  (imports the WordNet model module patched below)
    from textblob.en.taggers import PatternTagger

    tagger = PatternTagger()
    wordnet_model = sys.modules["nlpaug.model.word_dict.wordnet"]
    wordnet_model.WordNet.pos_tag = classmethod(lambda cls, tokens: tagger.tag(" ".join(tokens), tokenize=False))


def seed_nlpaug(seed: int) -> None:
    """Seed nlpaug through its documented ``nlpaug.util.Randomness.seed`` (Python's and
    NumPy's global generators, and torch's): nlpaug has no per-call seed (nlpaug #6)."""
    from nlpaug.util import Randomness

    Randomness.seed(seed)
