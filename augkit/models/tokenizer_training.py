"""Training a WordPiece (BERT) or byte-level BPE (GPT-2) tokenizer on a corpus with the
``tokenizers`` library: for models trained from scratch (``augkit train pointer --new-model``)
and for the random test models of :mod:`augkit.testing`; optionally padded with filler tokens
to a real model's vocabulary size (a benchmark then pays for a full-size output layer).

:func:`bert_wordpiece_tokenizer` wraps :func:`train_wordpiece` as the transformers tokenizer a
BERT model saves beside itself. ``tokenizers`` and ``transformers`` are imported on first use.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from augkit.errors import MissingDependencyError

#: BERT's special tokens, in bert-base-uncased's order of importance.
BERT_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
#: GPT-2's one special token: start, end and separator of documents.
GPT2_END = "<|endoftext|>"


def _tokenizers() -> Any:
    try:
        import tokenizers
    except ImportError as error:
        raise MissingDependencyError("training a tokenizer needs tokenizers: pip install tokenizers") from error
    return tokenizers


def _check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str) or not len(texts):
        raise ValueError("texts must be a non-empty sequence of sentences")


def train_wordpiece(texts: Sequence[str], vocab_size: int, *, padded_vocab_size: int | None = None) -> Any:
    """A lower-casing BERT WordPiece ``tokenizers.Tokenizer`` for ``texts``, with
    ``[CLS] A [SEP]`` / ``[CLS] A [SEP] B [SEP]`` templates (segment ids 0 and 1).

    The vocabulary is built here rather than by ``tokenizers``' WordPiece trainer, whose
    choice among equally frequent pieces changes from run to run: the special tokens, every
    character of ``texts`` (word-initial and ``##`` continuation, so any word of those
    characters tokenises), then the most frequent words (ties in alphabetical order) up to
    ``vocab_size``. Same texts, same vocabulary."""
    _check_texts(texts)
    tokenizers = _tokenizers()
    normalizer = tokenizers.normalizers.BertNormalizer(lowercase=True)
    pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(word for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text)))
    characters = sorted({character for word in counts for character in word})
    names = [*BERT_SPECIAL, *characters, *(f"##{c}" for c in characters)]
    taken = set(names)
    for word, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if len(names) >= vocab_size:
            break
        if word not in taken:
            names.append(word)
            taken.add(word)
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordPiece({name: i for i, name in enumerate(names)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = tokenizers.decoders.WordPiece()
    tokenizer.add_special_tokens(list(BERT_SPECIAL))
    tokenizer = _padded(tokenizer, padded_vocab_size, "filler{}")
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = tokenizers.processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tokenizer


def bert_wordpiece_tokenizer(
    texts: Sequence[str], vocab_size: int, *, max_length: int, padded_vocab_size: int | None = None
) -> Any:
    """A transformers fast tokenizer over :func:`train_wordpiece`'s vocabulary for ``texts``,
    with BERT's special tokens and, as ``bert-base-uncased``'s, segment ids (``token_type_ids``)
    among its outputs; ``max_length`` is the longest input it is meant for (the model's
    positions)."""
    try:
        import transformers
    except ImportError as error:
        raise MissingDependencyError("a BERT tokenizer needs transformers: pip install 'augkit[models]'") from error
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=train_wordpiece(texts, vocab_size, padded_vocab_size=padded_vocab_size),
        pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
        model_max_length=max_length, model_input_names=["input_ids", "token_type_ids", "attention_mask"],
    )


def train_byte_level_bpe(texts: Sequence[str], vocab_size: int, *, padded_vocab_size: int | None = None) -> Any:
    """A GPT-2-style byte-level BPE ``tokenizers.Tokenizer`` trained on ``texts`` (every
    byte has a token, so any text round-trips), ``<|endoftext|>`` its one special token."""
    _check_texts(texts)
    tokenizers = _tokenizers()
    byte_level = tokenizers.pre_tokenizers.ByteLevel
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE())
    tokenizer.pre_tokenizer = byte_level(add_prefix_space=False)
    tokenizer.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[GPT2_END], initial_alphabet=byte_level.alphabet())
    tokenizer.train_from_iterator(list(texts), trainer)
    return _padded(tokenizer, padded_vocab_size, "Ġfiller{}")


def _padded(tokenizer: Any, size: int | None, pattern: str) -> Any:
    """``tokenizer`` with filler tokens (``pattern`` with their id) appended to its model's
    vocabulary up to ``size`` entries: never produced from text of the training
    characters, they only make the embedding and output layers that large."""
    if size is None or size <= tokenizer.get_vocab_size():
        if size is not None and size < tokenizer.get_vocab_size():
            raise ValueError(f"padded_vocab_size={size} is smaller than the {tokenizer.get_vocab_size()} tokens trained")
        return tokenizer
    state = json.loads(tokenizer.to_str())
    vocab = state["model"]["vocab"]
    index = len(vocab)
    while len(vocab) < size:
        name = pattern.format(index)
        if name not in vocab:
            vocab[name] = len(vocab)
        index += 1
    return type(tokenizer).from_str(json.dumps(state))
