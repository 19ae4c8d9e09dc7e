"""Randomly initialised chat language models, saved as a local model directory.

:func:`build_chat_model` writes a Qwen2-shaped causal LM (``config.json``,
``model.safetensors``, ``generation_config.json``) and a byte-level BPE tokenizer trained on
``texts`` with ChatML's special tokens and a Jinja ``chat_template`` in
``tokenizer_config.json`` (system, user and assistant
turns, generation prompt), so ``AutoTokenizer.apply_chat_template`` renders conversations and
an OpenAI-compatible server (``transformers serve``, vLLM) can serve the folder like a user's
own instruction-tuned model. Random weights give random text: for testing the mechanics of
LLM augmentation (requests, parsing, caching), never its quality.

>>> from augkit.testing import build_chat_model
>>> folder = build_chat_model("chat-tiny", ["I lost my card", "where is my refund?"])  # doctest: +SKIP

torch, transformers and tokenizers are imported on first use.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from augkit.errors import MissingDependencyError
from augkit.models.tokenizer_training import GPT2_END, train_byte_level_bpe

#: ChatML's turn markers, as Qwen2's tokenizer has them: ``<|im_start|>role\n...<|im_end|>\n``.
TURN_START = "<|im_start|>"
TURN_END = "<|im_end|>"

#: Qwen2-Instruct's ChatML template without its tool-calling branches: a system turn (a
#: default one when the conversation has none, as Qwen2's), then the user and assistant
#: turns, then an open assistant turn when ``add_generation_prompt`` is set.
CHAT_TEMPLATE = (
    "{%- if messages and messages[0]['role'] == 'system' %}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- set turns = messages[1:] %}"
    "{%- else %}"
    "{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{%- set turns = messages %}"
    "{%- endif %}"
    "{%- for message in turns %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- endif %}"
)


def build_chat_model(
    folder: str | os.PathLike,
    texts: Sequence[str],
    *,
    vocab_size: int = 400,
    padded_vocab_size: int | None = None,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    intermediate: int = 128,
    max_positions: int = 2048,
    seed: int = 0,
    init_std: float = 0.02,
) -> Path:
    """Write a randomly initialised ``Qwen2ForCausalLM``, its chat tokenizer and a sampling
    generation config to ``folder``; return ``folder``.

    ``vocab_size`` tokens are asked of the BPE trainer (filler tokens are appended up to
    ``padded_vocab_size``), then ``<|im_start|>`` and ``<|im_end|>`` are added as special
    tokens. ``hidden``, ``layers``, ``heads``, ``kv_heads`` (grouped-query attention, as
    Qwen2's) and ``intermediate`` give the network's shape; ``max_positions`` its context,
    2,048 by default because ``transformers serve`` asks for 1,024 new tokens when a request
    names no ``max_tokens``. The generation config samples (``do_sample``, as instruction
    models ship), so a request's ``temperature`` and ``seed`` change the output, and stops at
    ``<|im_end|>``. Weights are seeded by ``seed`` inside ``torch.random.fork_rng``: same
    arguments, bitwise the same files.
    """
    try:
        import torch
        import transformers
    except ImportError as error:
        raise MissingDependencyError("building a chat model needs torch and transformers: pip install 'augkit[models]'") from error

    trained = train_byte_level_bpe(texts, vocab_size, padded_vocab_size=padded_vocab_size)
    trained.add_special_tokens([TURN_START, TURN_END])
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=trained, eos_token=TURN_END, pad_token=GPT2_END, unk_token=GPT2_END,
        model_max_length=max_positions, chat_template=CHAT_TEMPLATE,
    )
    end_of_turn, end_of_text = trained.token_to_id(TURN_END), trained.token_to_id(GPT2_END)
    config = transformers.Qwen2Config(
        vocab_size=trained.get_vocab_size(), hidden_size=hidden, intermediate_size=intermediate,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
        max_position_embeddings=max_positions, initializer_range=init_std, tie_word_embeddings=True,
        bos_token_id=end_of_text, eos_token_id=end_of_turn, pad_token_id=end_of_text,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.Qwen2ForCausalLM(config)
    model.eval()
    model.generation_config = transformers.GenerationConfig(
        do_sample=True, temperature=1.0, top_p=1.0, top_k=0,
        bos_token_id=end_of_text, eos_token_id=[end_of_turn, end_of_text], pad_token_id=end_of_text,
    )
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    # in tokenizer_config.json rather than transformers 5's chat_template.jinja: the place
    # every reader of a model folder looks (transformers 4, vLLM, llama.cpp's converter)
    tokenizer.save_pretrained(folder, save_jinja_files=False)
    return folder
