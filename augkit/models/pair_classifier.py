"""Class probabilities of (text, text) pairs with a sequence-pair classifier (MNLI-shaped:
entailment / neutral / contradiction), batched: the NLI judge of ERAP-style methods.

Pairs are tokenised together (``[CLS] first [SEP] second [SEP]`` for BERT), grouped by
padded length and batched by a token budget, so a pair's probabilities do not depend on
the batch. Label names come from the model's ``config.id2label``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.errors import InvalidParameterError
from augkit.models.batching import DEFAULT_TOKEN_BUDGET, pad_rows, token_budget_batches
from augkit.models.limits import warn_cut
from augkit.models.loaded import LoadedModel
from augkit.terminal.progress import progress_bar


class PairClassifier(LoadedModel):
    """A loaded sequence-pair classifier and its tokenizer; get one with
    :func:`augkit.models.load_pair_classifier` (shared per process) rather than building it.

    >>> nli = load_pair_classifier("some-org/bert-base-mnli")                      # doctest: +SKIP
    >>> nli.labels                                                                 # doctest: +SKIP
    ('entailment', 'neutral', 'contradiction')
    >>> nli.predict([("I lost my card", "My card is missing")])                    # doctest: +SKIP
    [{'entailment': 0.91, 'neutral': 0.07, 'contradiction': 0.02}]
    """

    @property
    def labels(self) -> tuple[str, ...]:
        """Class names in the order of the model's outputs (``config.id2label``)."""
        id2label = self.model.config.id2label
        return tuple(str(id2label[i]) for i in range(self.model.config.num_labels))

    def predict(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        progress: bool = False,
    ) -> list[dict[str, float]]:
        """For each ``(first, second)`` pair (premise, hypothesis for NLI), the probability of
        each class: ``{label: probability}`` in :attr:`labels` order, summing to 1."""
        labels = self.labels
        return [dict(zip(labels, row, strict=True)) for row in self.probabilities(pairs, token_budget=token_budget, progress=progress)]

    def probabilities(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        progress: bool = False,
    ) -> list[list[float]]:
        """Class probabilities of each pair as a list in :attr:`labels` order. Pairs longer
        than the model's limit are cut, the longer text first (a warning says how many)."""
        firsts, seconds = _checked_pairs(pairs)
        if not firsts:
            return []
        limit = self.max_input_tokens
        full = self.tokenizer(firsts, seconds, verbose=False)
        warn_cut(self.name, sum(len(ids) > limit for ids in full["input_ids"]), len(firsts), limit, "pairs")
        encoded = self.tokenizer(firsts, seconds, truncation="longest_first", max_length=limit, verbose=False)
        ids = encoded["input_ids"]
        types = encoded.get("token_type_ids")
        results: list[list[float]] = [[] for _ in ids]
        with progress_bar(len(ids), shown=progress, description="classifying pairs", unit="pair") as bar:
            for batch in token_budget_batches([len(row) for row in ids], token_budget):
                rows = [ids[i] for i in batch]
                type_rows = [types[i] for i in batch] if types is not None else None
                for i, probabilities in zip(batch, self._batch_probabilities(rows, type_rows), strict=True):
                    results[i] = probabilities
                bar.update(len(batch))
        return results

    def _batch_probabilities(self, rows: list[list[int]], type_rows: list[list[int]] | None) -> list[list[float]]:
        import torch

        input_ids, attention_mask = pad_rows(rows, self.tokenizer.pad_token_id or 0, self.device)
        inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if type_rows is not None:
            inputs["token_type_ids"] = pad_rows(type_rows, 0, self.device, width=input_ids.shape[1])[0]
        with torch.inference_mode():
            logits = self.model(**inputs).logits.float()
            probabilities = torch.softmax(logits.double(), dim=-1).cpu()
        return probabilities.tolist()


def _checked_pairs(pairs: Any) -> tuple[list[str], list[str]]:
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise InvalidParameterError(f"pairs must be a list of (text, text) pairs, got {type(pairs).__name__}")
    firsts, seconds = [], []
    for index, pair in enumerate(pairs):
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2 or not all(isinstance(t, str) for t in pair):
            raise InvalidParameterError(f"pair {index} must be two texts (first, second), got {pair!r}")
        firsts.append(pair[0])
        seconds.append(pair[1])
    return firsts, seconds
