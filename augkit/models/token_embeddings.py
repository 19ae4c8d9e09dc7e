"""Contextual token embeddings: the hidden states of one layer of an encoder (BERT, RoBERTa,
DeBERTa, MiniLM...) for every token of a text, batched. What BERTScore compares.

Texts are tokenised, grouped by padded length and batched by a token budget, and a small
batch is topped up to the sentence encoder's ``MIN_TOKENS_PER_PASS``, so a text is always
computed at the same shape on the same kernels whatever else is in the call: its vectors
are bitwise the same in any batch. A sentence-transformers folder works too: its transformer is loaded (from the
folder itself or from the subfolder its ``modules.json`` names), not its pooling.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from augkit.errors import InvalidParameterError
from augkit.models.batching import (
    DEFAULT_TOKEN_BUDGET,
    filler_rows,
    pad_rows,
    padded_length,
    token_budget_batches,
)
from augkit.models.limits import warn_cut
from augkit.models.loaded import LoadedModel
from augkit.models.spec import ModelSpec, resolve_model_source
from augkit.terminal.progress import progress_bar

#: Tokenizer classes that get a space before the text. Byte-level BPE (GPT-2, RoBERTa) spells
#: a word differently at the start of a text ("Card") than after a space ("ĠCard"); BERTScore
#: encodes with ``add_prefix_space=True`` for exactly these classes (bert_score/utils.py
#: ``sent_encode``), so a text's first word gets the token it has mid-sentence.
PREFIX_SPACE_TOKENIZERS = ("GPT2Tokenizer", "GPT2TokenizerFast", "RobertaTokenizer", "RobertaTokenizerFast")


class TokenStates(NamedTuple):
    """One text as the model read it: its ``token_ids`` (special tokens included),
    ``special`` (True at the tokens the tokenizer added: ``[CLS]``/``[SEP]``, ``<s>``/``</s>``)
    and ``vectors``, a float32 CPU tensor of ``len(token_ids) x hidden size``: the hidden
    states of the layer asked for."""

    token_ids: tuple[int, ...]
    special: tuple[bool, ...]
    vectors: Any


class TokenEncoder(LoadedModel):
    """A loaded encoder and its tokenizer, giving per-token hidden states; get one with
    :func:`load_token_encoder` (shared per process) rather than building it.

    >>> encoder = load_token_encoder("roberta-large")                   # doctest: +SKIP
    >>> encoder.num_layers                                               # doctest: +SKIP
    24
    >>> [v.shape for v in encoder.embeddings(["I lost my card"], layer=17)]  # doctest: +SKIP
    [torch.Size([4, 1024])]
    """

    def __init__(self, name: str, model: Any, tokenizer: Any, device: str):
        if getattr(model.config, "is_encoder_decoder", False):
            raise InvalidParameterError(
                f"model {name!r} is an encoder-decoder ({type(model).__name__}): token embeddings need an "
                "encoder-only model (BERT, RoBERTa, DeBERTa, MiniLM...)"
            )
        super().__init__(name, model, tokenizer, device)
        self._prefix_space = any(cls.__name__ in PREFIX_SPACE_TOKENIZERS for cls in type(tokenizer).__mro__)

    @property
    def num_layers(self) -> int:
        """Transformer layers of the model: ``layer`` may be 0 (the embedding output) to this."""
        layers = getattr(self.model.config, "num_hidden_layers", None)
        if isinstance(layers, int) and layers >= 0:
            return layers
        return len(self._hidden_states([self._empty_row()])) - 1  # a config that does not say

    def check_layer(self, layer: int) -> int:
        """``layer`` itself when the model has it, else an :class:`InvalidParameterError`
        naming the model's layer count."""
        count = self.num_layers
        if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer <= count:
            raise InvalidParameterError(
                f"layer {layer!r} is out of range for {self.name!r}: it has {count} layers "
                f"(0 is the embedding output, 1 to {count} the transformer layers)"
            )
        return layer

    def token_states(
        self, texts: Sequence[str], layer: int, *, token_budget: int = DEFAULT_TOKEN_BUDGET, progress: bool = False,
    ) -> list[TokenStates]:
        """Every token of each text with its hidden state at ``layer`` (0: the embedding
        output, as ``output_hidden_states`` counts), special tokens included and marked.

        Texts are stripped of surrounding whitespace; GPT-2 and RoBERTa tokenizers get a
        space before the text (:data:`PREFIX_SPACE_TOKENIZERS`). Texts longer than the
        model's limit are cut to it, keeping the final special token (a warning says how
        many). Each distinct text is computed once.
        """
        if isinstance(texts, str):
            raise InvalidParameterError("token_states takes a list of texts, not one string")
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidParameterError(f"texts to embed must be str; item {index} is {type(text).__name__}")
        self.check_layer(layer)
        distinct = list(dict.fromkeys(texts))
        rows, special = self._rows(distinct)
        vectors: list[Any] = [None] * len(rows)
        with progress_bar(len(rows), shown=progress, description="embedding tokens", unit="text") as bar:
            for batch in token_budget_batches([len(row) for row in rows], token_budget):
                for i, states in zip(batch, self._layer_states([rows[i] for i in batch], layer), strict=True):
                    vectors[i] = states
                bar.update(len(batch))
        by_text = {text: TokenStates(rows[i], special[i], vectors[i]) for i, text in enumerate(distinct)}
        return [by_text[text] for text in texts]

    def embeddings(
        self, texts: Sequence[str], layer: int, *, token_budget: int = DEFAULT_TOKEN_BUDGET, progress: bool = False,
    ) -> list[Any]:
        """The hidden states at ``layer`` of each text's own tokens (special tokens left
        out): one float32 CPU tensor of ``tokens x hidden size`` per text, an empty text
        giving ``0 x hidden size``. Options as :meth:`token_states`."""
        out = []
        for states in self.token_states(texts, layer, token_budget=token_budget, progress=progress):
            keep = [i for i, special in enumerate(states.special) if not special]
            out.append(states.vectors[keep])
        return out

    def _rows(self, texts: list[str]) -> tuple[list[tuple[int, ...]], list[tuple[bool, ...]]]:
        """Token ids and special-token marks of each text, cut to the model's limit."""
        if not texts:
            return [], []
        prepared = [" " + text.strip() if self._prefix_space and text.strip() else text.strip() for text in texts]
        encoded = self.tokenizer(prepared, return_special_tokens_mask=True, verbose=False)
        limit = self.max_input_tokens
        ids, marks = encoded["input_ids"], encoded["special_tokens_mask"]
        warn_cut(self.name, sum(len(row) > limit for row in ids), len(ids), limit)
        return [tuple(_cut(row, limit)) for row in ids], [tuple(bool(m) for m in _cut(row, limit)) for row in marks]

    def _empty_row(self) -> tuple[int, ...]:
        return tuple(self.tokenizer("", verbose=False)["input_ids"]) or (self.tokenizer.pad_token_id or 0,)

    def _layer_states(self, rows: list[tuple[int, ...]], layer: int) -> list[Any]:
        # A pass of few token rows takes another CPU kernel path (last bits differ): top it up
        # with copies of its first text, the sentence encoder's rule (MIN_TOKENS_PER_PASS).
        padded = rows + rows[:1] * filler_rows(len(rows), padded_length(max(len(row) for row in rows)))
        hidden = self._hidden_states(padded)[layer].float().cpu()
        return [hidden[r, : len(row)].clone() for r, row in enumerate(rows)]

    def _hidden_states(self, rows: list[tuple[int, ...]]) -> tuple[Any, ...]:
        import torch

        input_ids, attention_mask = pad_rows(rows, self.tokenizer.pad_token_id or 0, self.device)
        with torch.inference_mode():
            return self.model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states


def _cut(row: list, limit: int) -> list:
    """The first ``limit`` items of ``row``, keeping its last (the final special token)."""
    return row if len(row) <= limit else row[: limit - 1] + row[-1:]


def load_token_encoder(spec: str | os.PathLike | ModelSpec, *, device: str = "auto", dtype: str = "auto") -> TokenEncoder:
    """The shared :class:`TokenEncoder` for ``spec`` (hub id, ``id@revision``, directory,
    folder under ``$AUGKIT_MODEL_DIR``, or a packaged model such as
    ``sentence-transformers/all-MiniLM-L6-v2``), loaded with ``AutoModel`` on first use;
    same resolution, sharing, safety (safetensors only, no remote code) and errors as
    :func:`~augkit.models.load_seq2seq`. A sentence-transformers folder loads the
    transformer its ``modules.json`` names."""
    from augkit.models.loading import _shared_runtime

    return _shared_runtime(_transformer_folder(spec), "token", TokenEncoder, device, dtype)


def _transformer_folder(spec: str | os.PathLike | ModelSpec) -> str | os.PathLike | ModelSpec:
    """``spec`` itself, or, for a sentence-transformers folder whose transformer lies in a
    subfolder (``0_Transformer/``), that subfolder. all-MiniLM-L6-v2 keeps its transformer
    at the folder's root (``"path": ""``), which loads as it is."""
    source = resolve_model_source(spec)
    folder = Path(source.location)
    if not source.local or (folder / "config.json").is_file() or not (folder / "modules.json").is_file():
        return spec
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return spec
    for module in modules if isinstance(modules, list) else []:
        if isinstance(module, dict) and str(module.get("type", "")).endswith(".Transformer"):
            return str(folder / module.get("path", ""))
    return spec
