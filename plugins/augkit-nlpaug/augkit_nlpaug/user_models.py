"""nlpaug augmenters that run on what the user gives: a TF-IDF model, word vectors, token lists.

These are nlpaug's own classes with what the bridge promises added at construction (the
specs name them instead of nlpaug's; their constructors keep nlpaug's signatures, so the
spec test still compares the exposed defaults with nlpaug's):

- **A model of its own.** nlpaug 1.1.11 keeps one TF-IDF model per process whatever its
  ``model_path`` and one embedding model per ``model_type``, so a second augmenter with
  another folder or file silently ran on the first one's model. Each instance here reads
  its own ``model_path`` and leaves nlpaug's caches alone.
- **Files checked first.** A missing or unreadable model fails when the method is built,
  naming ``model_path`` and how to make the file, instead of nlpaug's bare
  ``FileNotFoundError`` or a NumPy error on the first row.
- **ReservedAug's token lists.** A list without an alternative (nlpaug fails on the first row
  that holds its token), ``generate_all_combinations`` without ``aug_p=1`` (nlpaug asserts on
  the first row) are refused; in combination mode the outputs are the combinations (nlpaug
  returns ``n`` copies of the list of them, which are no texts); and a reserved phrase left
  unchanged comes back as its words, not as nlpaug's placeholder ("debitnnnnncard").

This module imports nlpaug: the bridge imports it when a method is built, never at registration.
"""

from __future__ import annotations

import inspect
import os

import nlpaug.augmenter.word as naw
import nlpaug.model.word_embs as nmw
import numpy as np
from nlpaug.model.word_stats import TfIdf

from augkit.plugin import MissingDependencyError, ModelNotAvailableError

#: How to make the folder ``nlpaug.tfidf`` reads (nlpaug's own training and file layout).
TFIDF_HELP = (
    "train one with nlpaug on your texts and save it to a folder: `from nlpaug.model.word_stats import TfIdf; "
    "from nlpaug.util.text.tokenizer import Tokenizer; model = TfIdf(); "
    "model.train([Tokenizer.tokenizer(text) for text in texts]); os.makedirs(DIR, exist_ok=True); model.save(DIR)` "
    "(nlpaug's save does not create the folder), then pass model_path=DIR"
)

#: The vector file each ``model_type`` reads (nlpaug reads all three with gensim's
#: ``KeyedVectors.load_word2vec_format``: binary for word2vec, text without a header for GloVe,
#: text with a "count dimensions" header for fastText).
VECTOR_FORMATS = {
    "word2vec": "word2vec's binary format (GoogleNews-vectors-negative300.bin, or gensim's "
                "KeyedVectors.save_word2vec_format(path, binary=True))",
    "glove": "GloVe's text format: a word and its numbers on each line, no header (glove.6B.100d.txt)",
    "fasttext": "fastText's .vec text format: a first line 'count dimensions', then a word and its numbers "
                "on each line (wiki-news-300d-1M.vec)",
}
EMBEDDINGS = {"word2vec": nmw.Word2vec, "glove": nmw.GloVe, "fasttext": nmw.Fasttext}

#: NumPy's tolerance for probabilities that should sum to 1 (``numpy.random.choice``): a TF-IDF
#: model whose scores miss it would fail on the first row.
PROBABILITY_TOLERANCE = float(np.sqrt(np.finfo(np.float64).eps))


class TfIdfAug(naw.TfIdfAug):
    """nlpaug's ``TfIdfAug`` reading its own model from ``model_path`` (checked first)."""

    def get_model(self, force_reload: bool = False) -> TfIdf:
        path = str(self.model_path)
        files = (TfIdf.WORD_2_IDF_FILE_NAME, TfIdf.WORD_2_TFIDF_FILE_NAME)
        missing = [name for name in files if not os.path.isfile(os.path.join(path, name))]
        if missing:
            where = "is not a folder" if not os.path.isdir(path) else f"has no {' or '.join(missing)}"
            raise ModelNotAvailableError(
                f"model_path={path!r} {where}: nlpaug.tfidf needs a folder holding an nlpaug TF-IDF model; {TFIDF_HELP}"
            )
        model = TfIdf()
        try:
            model.read(path)
        except (ValueError, UnicodeDecodeError) as error:
            raise ModelNotAvailableError(f"model_path={path!r}: nlpaug cannot read its TF-IDF model ({error}); {TFIDF_HELP}") from error
        scores = np.asarray(model.tfidf_scores, dtype=float)
        if not model.tokens or (scores < 0).any() or abs(scores.sum() - 1) > PROBABILITY_TOLERANCE:
            raise ModelNotAvailableError(
                f"model_path={path!r}: its {TfIdf.WORD_2_TFIDF_FILE_NAME} holds no word scores that sum to 1, "
                f"as TfIdf.train() then save() writes them; {TFIDF_HELP}"
            )
        return model


class WordEmbsAug(naw.WordEmbsAug):
    """nlpaug's ``WordEmbsAug`` reading its own vectors from ``model_path`` (checked first)."""

    @classmethod
    def get_model(cls, model_path, model_type, force_reload=False, top_k=100, skip_check=False):
        try:
            import gensim  # noqa: F401  (nlpaug reads every vector format with it)
        except ImportError:
            raise MissingDependencyError(
                "nlpaug.word_embs reads word vectors with gensim, which is not installed: pip install 'augkit-nlpaug[vectors]'"
            ) from None
        path = str(model_path)
        how = f"nlpaug.word_embs with model_type={model_type!r} reads a file in {VECTOR_FORMATS[model_type]}"
        if not os.path.isfile(path):
            raise ModelNotAvailableError(f"model_path={path!r} is not a file: {how}; pass its path as model_path")
        model = EMBEDDINGS[model_type](top_k=top_k, skip_check=skip_check)
        try:
            model.read(path)
        except Exception as error:  # gensim raises what its parser meets: ValueError, UnicodeDecodeError, EOFError...
            reason = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            raise ModelNotAvailableError(f"model_path={path!r}: gensim cannot read it ({reason}); {how}") from error
        return model


class ReservedAug(naw.ReservedAug):
    """nlpaug's ``ReservedAug`` with its token lists checked and its outputs always texts."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        check_reserved_tokens(self.reserved_tokens, self.case_sensitive)
        if self.generate_all_combinations and self.aug_p != 1:
            raise ValueError(
                f"generate_all_combinations=True varies every reserved token, and nlpaug then takes aug_p=1 only; got aug_p={self.aug_p!r}"
            )

    __init__.__signature__ = inspect.signature(naw.ReservedAug.__init__)  # nlpaug's, for the bridge and its test

    def augment(self, data, n=1, num_thread=1):
        if self.generate_all_combinations and isinstance(data, str):
            # nlpaug would return n copies of the list of every combination: the combinations are the outputs
            text = self.clean(data)
            combinations = self.substitute(text) if text else text
            outputs = combinations if isinstance(combinations, list) else [combinations]
        else:
            outputs = super().augment(data, n=n, num_thread=num_thread)
        return [self._phrases_as_words(output) if isinstance(output, str) else output for output in outputs]

    def _phrases_as_words(self, text: str) -> str:
        """``text`` with nlpaug's placeholder for a reserved phrase it left unchanged
        ("debitnnnnncard") written back as the phrase's words."""
        for joined in self.reserved_phrase_concats:  # longest phrases first, as nlpaug joined them
            text = text.replace(joined, " ".join(joined.split(self.CONNECT_TOKEN)))
        return text


def check_reserved_tokens(reserved_tokens, case_sensitive: bool) -> None:
    """Refuse token lists nlpaug would fail on at the first row: none at all, or a list whose
    tokens have no alternative among themselves (one token, or the same twice)."""
    if not reserved_tokens:
        raise ValueError("reserved_tokens is empty: give lists of tokens that replace one another, "
                         "e.g. reserved_tokens=[['card', 'debit card'], ['transfer', 'payment']]")
    for tokens in reserved_tokens:
        distinct = {token if case_sensitive else token.lower() for token in tokens}
        if len(distinct) < 2:
            raise ValueError(f"reserved_tokens: the list {list(tokens)!r} has no alternative to put in: each list "
                             "needs two different tokens or more (they replace one another)")
