"""Top-k fills of masked positions with a masked language model (``bert-base-uncased``-shaped),
batched: the word-substitution engine of ParaMac-style methods.

Texts are tokenised, grouped by padded length and batched by a token budget, so an input
is always computed at the same shape whatever else is in the call: its fills do not depend
on the batch. Only the masked positions go through the (vocabulary-sized) output layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from augkit.errors import InvalidParameterError
from augkit.models.batching import DEFAULT_TOKEN_BUDGET, pad_rows, token_budget_batches
from augkit.models.limits import warn_cut
from augkit.models.loaded import LoadedModel
from augkit.terminal.progress import progress_bar

#: A character span of a text: ``text[start:end]`` is replaced by one mask token
#: (``start == end`` inserts a mask there).
Span = tuple[int, int]


class Fill(NamedTuple):
    """One candidate for a masked position: the vocabulary ``token`` (a WordPiece
    continuation starts with ``##``) and its natural-log probability at that position."""

    token: str
    logprob: float


class MaskedLM(LoadedModel):
    """A loaded masked language model and its tokenizer; get one with
    :func:`augkit.models.load_masked_lm` (shared per process) rather than building it.

    >>> lm = load_masked_lm("bert-base-uncased")                         # doctest: +SKIP
    >>> lm.fill(["I lost my card yesterday"], [[(10, 14)]], k=3)[0][0]   # doctest: +SKIP
    [Fill(token='card', logprob=-0.9), Fill(token='phone', logprob=-2.1), Fill(token='wallet', logprob=-2.3)]
    """

    def __init__(self, name: str, model: Any, tokenizer: Any, device: str):
        if tokenizer.mask_token_id is None:
            raise InvalidParameterError(f"model {name!r} has no mask token: it is not a masked language model")
        super().__init__(name, model, tokenizer, device)
        # Fills are words: never propose [CLS], [SEP], [PAD], [UNK] or [MASK] itself.
        self._special_ids = sorted(set(tokenizer.all_special_ids))

    @property
    def mask_token(self) -> str:
        """The tokenizer's mask token (``[MASK]`` for BERT)."""
        return self.tokenizer.mask_token

    def mask_spans(self, text: str, spans: Sequence[Span]) -> str:
        """``text`` with each character span replaced by the mask token.

        >>> lm.mask_spans("I lost my card", [(2, 6), (10, 14)])            # doctest: +SKIP
        'I [MASK] my [MASK]'
        """
        ordered = _checked_spans(text, spans, 0)
        pieces, position = [], 0
        for start, end in ordered:
            pieces += [text[position:start], self.mask_token]
            position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def fill(
        self,
        texts: Sequence[str],
        spans: Sequence[Sequence[Span]],
        k: int = 5,
        *,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        progress: bool = False,
    ) -> list[list[list[Fill]]]:
        """The ``k`` likeliest single tokens for each span of each text, likeliest first.

        ``spans[i]`` lists character spans ``(start, end)`` of ``texts[i]`` (non-overlapping;
        a span of several words is replaced by one mask). The result is
        ``fills[i][j]``: the top-k :class:`Fill` for ``spans[i][j]``, in the order the spans
        were given. Log-probabilities are over the whole vocabulary; special tokens are
        never proposed. A span beyond the model's limit (texts are cut to it, with a
        warning) gets no fills.
        """
        if isinstance(texts, str) or len(texts) != len(spans):
            raise InvalidParameterError(f"fill needs one list of spans per text: {len(spans)} span lists for {_count(texts)} texts")
        masked, orders = [], []
        for index, (text, text_spans) in enumerate(zip(texts, spans, strict=True)):
            _check_text(text, index)
            if self.mask_token in text:
                raise InvalidParameterError(
                    f"text {index} already contains the mask token {self.mask_token!r}: use fill_masked for such texts"
                )
            ordered = _checked_spans(text, text_spans, index)
            masked.append(self.mask_spans(text, ordered))
            orders.append(sorted(range(len(text_spans)), key=lambda j, s=text_spans: (tuple(s[j]), j)))
        by_position = self.fill_masked(masked, k, token_budget=token_budget, progress=progress)
        results: list[list[list[Fill]]] = []
        for order, fills in zip(orders, by_position, strict=True):
            row: list[list[Fill]] = [[] for _ in order]
            for position, span_index in enumerate(order):
                if position < len(fills):
                    row[span_index] = fills[position]
            results.append(row)
        return results

    def fill_masked(
        self,
        texts: Sequence[str],
        k: int = 5,
        *,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        progress: bool = False,
    ) -> list[list[list[Fill]]]:
        """The ``k`` likeliest tokens for every mask token already in each text:
        ``fills[i][j]`` for the j-th mask of ``texts[i]``, likeliest first. A text without a
        mask gets ``[]``."""
        if isinstance(texts, str):
            raise InvalidParameterError("fill_masked takes a list of texts, not one string")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidParameterError(f"k must be an integer >= 1, got {k!r}")
        for index, text in enumerate(texts):
            _check_text(text, index)
        limit = self.max_input_tokens
        ids = [tuple(row) for row in self.tokenizer(list(texts), verbose=False)["input_ids"]] if texts else []
        cut = [i for i, row in enumerate(ids) if len(row) > limit]
        warn_cut(self.name, len(cut), len(ids), limit)
        ids = [row if len(row) <= limit else row[: limit - 1] + row[-1:] for row in ids]
        mask_id = self.tokenizer.mask_token_id
        positions = [[p for p, token in enumerate(row) if token == mask_id] for row in ids]
        results: list[list[list[Fill]]] = [[] for _ in ids]
        wanted = [i for i in range(len(ids)) if positions[i]]
        with progress_bar(len(wanted), shown=progress, description="filling masks", unit="text") as bar:
            for batch in token_budget_batches([len(ids[i]) for i in wanted], token_budget):
                members = [wanted[b] for b in batch]
                top = self._top_k([ids[i] for i in members], [positions[i] for i in members], k)
                for i, fills in zip(members, top, strict=True):
                    results[i] = fills
                bar.update(len(members))
        return results

    def _top_k(self, rows: list[tuple[int, ...]], positions: list[list[int]], k: int) -> list[list[list[Fill]]]:
        import torch

        input_ids, attention_mask = pad_rows(rows, self.tokenizer.pad_token_id or 0, self.device)
        rows_index = torch.tensor([r for r, row in enumerate(positions) for _ in row], device=self.device)
        columns = torch.tensor([p for row in positions for p in row], device=self.device)
        with torch.inference_mode():
            logits = self.logits_at(input_ids, attention_mask, rows_index, columns).float()
            logprobs = torch.log_softmax(logits, dim=-1)
            logprobs[:, self._special_ids] = float("-inf")
            values, indices = logprobs.topk(min(k, logprobs.shape[-1] - len(self._special_ids)), dim=-1)
        values, indices = values.cpu().tolist(), indices.cpu().tolist()
        fills: list[list[list[Fill]]] = []
        flat = 0
        for row in positions:
            per_mask = []
            for _ in row:
                tokens = self.tokenizer.convert_ids_to_tokens(indices[flat])
                per_mask.append([Fill(token, value) for token, value in zip(tokens, values[flat], strict=True)])
                flat += 1
            fills.append(per_mask)
        return fills

    def logits_at(self, input_ids: Any, attention_mask: Any, rows: Any, columns: Any) -> Any:
        """Vocabulary logits at the positions ``(rows[i], columns[i])`` of a padded batch only
        (one row of logits per position, in that order): the masked positions when filling,
        every gap when an insertion model (augkit-pointer) predicts. The output layer (hidden
        x vocabulary, most of a BERT-base forward pass on short texts) is given just those
        rows by a hook on its input; a model without a separate output layer computes all
        positions."""
        output_layer = self.model.get_output_embeddings()
        if output_layer is None:
            return self.model(input_ids=input_ids, attention_mask=attention_mask).logits[rows, columns]

        def keep_masked_rows(_module, inputs):
            return (inputs[0][rows, columns], *inputs[1:])

        handle = output_layer.register_forward_pre_hook(keep_masked_rows)
        try:
            return self.model(input_ids=input_ids, attention_mask=attention_mask).logits
        finally:
            handle.remove()


def _count(items: Any) -> Any:
    return len(items) if hasattr(items, "__len__") else "?"


def _check_text(text: Any, index: int) -> None:
    if not isinstance(text, str):
        raise InvalidParameterError(f"texts to fill must be str; item {index} is {type(text).__name__}")


def _checked_spans(text: str, spans: Sequence[Span], index: int) -> list[Span]:
    """``spans`` sorted by start, after checking each is an in-range (start, end) of ints and
    that no two overlap."""
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence):
        raise InvalidParameterError(f"the spans of text {index} must be a list of (start, end) pairs, got {spans!r}")
    checked: list[Span] = []
    for span in spans:
        if (
            not isinstance(span, Sequence) or len(span) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) for v in span)
            or not 0 <= span[0] <= span[1] <= len(text)
        ):
            raise InvalidParameterError(
                f"span {span!r} of text {index} must be (start, end) with 0 <= start <= end <= {len(text)} (the text's length)"
            )
        checked.append((int(span[0]), int(span[1])))
    checked.sort()
    for (_, end), (start, _) in zip(checked, checked[1:]):
        if start < end:
            raise InvalidParameterError(f"spans of text {index} overlap: {checked}")
    return checked
