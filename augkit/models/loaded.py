"""What every loaded model of the runtime shares: its name, the model, its tokenizer and its
device, the longest input it reads, and how it shows itself."""

from __future__ import annotations

from typing import Any

from augkit.models.limits import model_input_limit


class LoadedModel:
    """Base of the runtime's model families (:class:`~augkit.models.MaskedLM`,
    :class:`~augkit.models.CausalLM`, :class:`~augkit.models.PairClassifier`,
    :class:`~augkit.models.Seq2SeqModel`); get them from their ``load_*`` function (shared per
    process) rather than building them."""

    def __init__(self, name: str, model: Any, tokenizer: Any, device: str):
        self.name = name
        self.model = model
        self.tokenizer = tokenizer
        self.device = device

    @property
    def max_input_tokens(self) -> int:
        """The longest input the model reads, in tokens (special tokens included)."""
        return model_input_limit(self.model, self.tokenizer)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, device={self.device!r})"
