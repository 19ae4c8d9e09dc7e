"""SetFit for the few-shot benchmark (``--classifier setfit``): contrastive fine-tuning of the
packaged all-MiniLM-L6-v2, then a logistic-regression head on its embeddings (Tunstall et
al. 2022, the ``setfit`` library's ``SetFitModel``).

setfit's ``Trainer`` draws its pairs from labelled rows only and fits the head without
sample weights, and the benchmark needs both other ways, so the contrastive stage is written
here with the library's own parts: the ``SentenceTransformer`` body, SetFit's default loss
(sentence-transformers' ``CosineSimilarityLoss``: cosine of a pair against 1 for a positive,
0 for a negative) and its schedule (AdamW, linear warm-up over 10% of the steps, then linear
decay). The trained body and a scikit-learn head are a ``setfit.SetFitModel``.

**Budget.** Every fit trains on exactly ``pairs`` contrastive pairs (``pairs / batch_size``
optimizer steps), half positive and half negative, whatever the number of training rows, so
augmentation cannot win by training longer (as ``finetune``'s fixed step count).

**How augmentation enters** (:func:`contrastive_pairs`):

- rows (``paraphrase_of`` None): augmented rows are rows like the originals; pairs are drawn
  among all of them, the head trains on all of them, both weighted by ``sample_weight``;
- pairs (``paraphrase_of`` given, the method's ``@into=pairs``): pairs and head use the
  originals only, except that an original's positive partner may also be one of its own
  paraphrases (the rows whose ``paraphrase_of`` is that original). An augmented row is never
  in a negative pair nor paired with another original.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from benchmarks.fewshot.finetune import linear_warmup_schedule, packaged_model_path

#: SetFit's default head: scikit-learn's logistic regression (``SetFitModel``'s default head
#: is ``LogisticRegression()``); its C is one of our hyper-parameters.
HEAD_MAX_ITER = 1000


class SetFitClassifier:
    """SetFit: contrastive fine-tuning of all-MiniLM-L6-v2 on a fixed number of pairs, then
    logistic regression on the tuned embeddings.

    Parameters
    ----------
    pairs : int
        Contrastive pairs trained on (the budget; half positive, half negative), the same with
        and without augmentation.
    batch_size : int
        Pairs per optimizer step.
    lr : float
        AdamW learning rate of the body (SetFit's ``body_learning_rate``; its default is 2e-5
        for its much larger default pair count).
    C : float
        Inverse regularisation of the logistic-regression head.
    max_length : int
        Tokens kept per text.
    warmup : float
        Share of the steps of linear learning-rate warm-up.
    seed : int
        Seeds the pair draws, dropout (a forked torch generator, the global one is left alone).
    model_path : str or None
        A local sentence-transformers folder; None uses the packaged all-MiniLM-L6-v2.

    Example::

        clf = SetFitClassifier(pairs=64, seed=0).fit(texts, labels)
        clf.predict(["my card is gone"])
    """

    #: Parameters only the head reads: a grid that varies them alone re-fits the head on the
    #: trained body (:meth:`with_head`) instead of training the body again.
    HEAD_PARAMS = ("C",)

    def __init__(
        self,
        pairs: int = 640,
        batch_size: int = 16,
        lr: float = 1e-4,
        C: float = 1.0,
        max_length: int = 64,
        warmup: float = 0.1,
        seed: int = 0,
        model_path: str | None = None,
    ):
        self.pairs = pairs
        self.batch_size = batch_size
        self.lr = lr
        self.C = C
        self.max_length = max_length
        self.warmup = warmup
        self.seed = seed
        self.model_path = model_path

    @property
    def steps(self) -> int:
        """Optimizer steps: ``pairs`` in batches of ``batch_size``."""
        return -(-self.pairs // self.batch_size)

    def fit(
        self,
        texts: Sequence[str],
        labels: Sequence[str],
        sample_weight: Sequence[float] | None = None,
        paraphrase_of: Sequence[int] | None = None,
    ):
        import torch
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.losses import (
            CosineSimilarityLoss,
        )
        from setfit import SetFitModel
        from sklearn.linear_model import LogisticRegression

        texts, labels = list(texts), np.asarray(labels)
        weights = np.ones(len(texts)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.pairs_ = contrastive_pairs(labels, weights, paraphrase_of, self.pairs, self.seed)
        body = SentenceTransformer(self.model_path or packaged_model_path(), device="cpu")
        body.max_seq_length = self.max_length
        loss = CosineSimilarityLoss(body)
        optimizer = torch.optim.AdamW(body.parameters(), lr=self.lr)
        schedule = linear_warmup_schedule(optimizer, self.steps, self.warmup)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            body.train()
            for start in range(0, len(self.pairs_), self.batch_size):
                batch = self.pairs_[start:start + self.batch_size]
                features = [_tokens(body, [texts[i] for i in batch[:, side]]) for side in (0, 1)]
                value = loss(features, torch.as_tensor(batch[:, 2], dtype=torch.float))
                optimizer.zero_grad()
                value.backward()
                optimizer.step()
                schedule.step()
        body.eval()
        self.head_rows_ = np.arange(len(texts)) if paraphrase_of is None else np.flatnonzero(np.asarray(paraphrase_of) < 0)
        self.model_ = SetFitModel(model_body=body, model_head=LogisticRegression(C=self.C, max_iter=HEAD_MAX_ITER))
        self._embedded: dict[str, np.ndarray] = {}
        self._head_data = (self._embed([texts[i] for i in self.head_rows_]), labels[self.head_rows_], weights[self.head_rows_])
        self._fit_head()
        return self

    def with_head(self, **params) -> SetFitClassifier:
        """A copy sharing this trained body (and its embeddings) with the head re-fitted under
        ``params`` (:data:`HEAD_PARAMS` only)."""
        import copy

        from setfit import SetFitModel
        from sklearn.linear_model import LogisticRegression

        unknown = set(params) - set(self.HEAD_PARAMS)
        if unknown:
            raise ValueError(f"with_head takes {', '.join(self.HEAD_PARAMS)}; got {', '.join(sorted(unknown))}")
        twin = copy.copy(self)
        for key, value in params.items():
            setattr(twin, key, value)
        twin.model_ = SetFitModel(model_body=self.model_.model_body, model_head=LogisticRegression(C=twin.C, max_iter=HEAD_MAX_ITER))
        twin._fit_head()
        return twin

    def _fit_head(self) -> None:
        from threadpoolctl import threadpool_limits

        embeddings, labels, weights = self._head_data
        with threadpool_limits(1):  # as EmbeddingLogisticRegression.fit
            self.model_.model_head.fit(embeddings, labels, sample_weight=weights)

    def _embed(self, texts: list[str]) -> np.ndarray:
        """The trained body's embeddings, each distinct text embedded once per body (the valid
        split is scored once for every head of a grid)."""
        missing = list(dict.fromkeys(text for text in texts if text not in self._embedded))
        if missing:
            fresh = self.model_.encode(missing, batch_size=64, show_progress_bar=False)
            self._embedded.update(zip(missing, np.asarray(fresh)))
        return np.stack([self._embedded[text] for text in texts])

    def predict(self, texts: Sequence[str]) -> list[str]:
        from threadpoolctl import threadpool_limits

        features = self._embed(list(texts))
        with threadpool_limits(1):
            return self.model_.model_head.predict(features).tolist()


def _tokens(body, texts: list[str]) -> dict:
    return body.preprocess(texts) if hasattr(body, "preprocess") else body.tokenize(texts)


def contrastive_pairs(
    labels: Sequence[str],
    weights: Sequence[float],
    paraphrase_of: Sequence[int] | None,
    count: int,
    seed: int,
) -> np.ndarray:
    """``count`` training pairs as rows ``(i, j, target)``: target 1 (positive: same label) for
    the first ``ceil(count / 2)`` draws, 0 (negative: different labels) for the rest, in a
    seeded shuffled order.

    Each pair's first row is drawn in proportion to its weight among the rows that can anchor
    one, its partner in proportion to weight among the rows allowed beside it. Without
    ``paraphrase_of`` every row is eligible (augmented rows are rows). With it, only the
    originals (``paraphrase_of == -1``) anchor pairs and serve as negatives, and a positive's
    partner is another original of the same label or one of the anchor's own paraphrases.
    """
    labels = np.asarray(labels)
    weights = np.asarray(weights, dtype=float)
    rng = np.random.default_rng(seed)
    rows = np.arange(len(labels))
    if paraphrase_of is None:
        originals = rows
        own = {i: np.empty(0, dtype=int) for i in rows}
    else:
        paraphrase_of = np.asarray(paraphrase_of)
        originals = rows[paraphrase_of < 0]
        own = {i: rows[paraphrase_of == i] for i in originals}
    same = {i: np.concatenate([originals[(labels[originals] == labels[i]) & (originals != i)], own[i]]) for i in originals}
    anchors = np.array([i for i in originals if len(same[i])])
    if not len(anchors):
        raise ValueError("contrastive pairs need at least one label with two training rows")
    if len(set(labels[originals])) < 2:
        raise ValueError("contrastive pairs need at least two labels")

    def draw(candidates: np.ndarray) -> int:
        chance = weights[candidates]
        return int(rng.choice(candidates, p=chance / chance.sum()))

    positives = -(-count // 2)
    pairs = []
    for _ in range(positives):
        anchor = draw(anchors)
        pairs.append((anchor, draw(same[anchor]), 1))
    for _ in range(count - positives):
        anchor = draw(originals)
        pairs.append((anchor, draw(originals[labels[originals] != labels[anchor]]), 0))
    pairs = np.array(pairs, dtype=int).reshape(-1, 3)
    return pairs[rng.permutation(len(pairs))]
