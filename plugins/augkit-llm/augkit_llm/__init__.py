"""augkit-llm: augmentation with an instruction-tuned chat model behind any OpenAI-compatible
server (vLLM, llama.cpp's server, Ollama, text-generation-inference, ``transformers serve``,
OpenAI): ``llm_paraphrase`` (label-preserving paraphrases of a row) and ``llm_generate`` (new
examples of a row's label, shown examples of it from the run's own data).

Importing this package loads neither the openai client nor any model library.
"""

from __future__ import annotations

import augkit
from augkit_llm.augmenters import LLMGenerate, LLMParaphrase

__all__ = ["LLMGenerate", "LLMParaphrase"]


@augkit.hookimpl
def register_augmenters(register):
    register(LLMParaphrase)
    register(LLMGenerate)
