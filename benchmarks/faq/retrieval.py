"""FAQ retrieval as the test of an augmented FAQ: each user query is matched to the nearest
indexed question, and counts as right when that question's answer is the query's answer.

The index holds the FAQ's questions, before; and its questions plus accepted paraphrases
(each standing for its source's answer), after. Two matchers: cosine of sentence embeddings
(the encoder of the selection steps) and TF-IDF cosine (scikit-learn; independent of the
encoder that picked the paraphrases)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def top1_accuracy_embeddings(index_texts: Sequence[str], index_answers: Sequence[str], queries: Sequence[str],
                             query_answers: Sequence[str], encoder=None) -> float:
    """Share of queries whose nearest indexed text (sentence-embedding cosine) has their answer."""
    from augkit.models.encoder import cosine_matrix, get_encoder

    model = encoder or get_encoder()
    similarity = cosine_matrix(model.encode(list(queries)), model.encode(list(index_texts)))
    return _accuracy(similarity, index_answers, query_answers)


def top1_accuracy_tfidf(index_texts: Sequence[str], index_answers: Sequence[str], queries: Sequence[str],
                        query_answers: Sequence[str]) -> float:
    """Share of queries whose nearest indexed text (TF-IDF cosine, fitted on the index) has their answer."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(lowercase=True, ngram_range=(1, 2), sublinear_tf=True).fit(list(index_texts))
    similarity = (vectorizer.transform(list(queries)) @ vectorizer.transform(list(index_texts)).T).toarray()
    return _accuracy(similarity, index_answers, query_answers)


def _accuracy(similarity: np.ndarray, index_answers: Sequence[str], query_answers: Sequence[str]) -> float:
    best = similarity.argmax(axis=1)
    answers = np.asarray(list(index_answers), dtype=object)
    return float(np.mean(answers[best] == np.asarray(list(query_answers), dtype=object)))
