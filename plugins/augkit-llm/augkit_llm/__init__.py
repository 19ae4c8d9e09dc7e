"""augkit-llm: augmentation with an instruction-tuned chat model behind any OpenAI-compatible
server (vLLM, llama.cpp's server, Ollama, text-generation-inference, ``transformers serve``,
OpenAI): ``llm_paraphrase`` (label-preserving paraphrases of a row) and ``llm_generate`` (new
examples of a row's label, shown examples of it from the run's own data, and the labels most
easily confused with it as contrast; with ``feedback=``, asked again for what the filters
rejected), and the filter ``llm_check`` (a candidate re-classified among its label and the
nearest labels, dropped when the model assigns it elsewhere).

Importing this package loads neither the openai client nor any model library.
"""

from __future__ import annotations

import augkit
from augkit_llm.augmenters import LLMGenerate, LLMParaphrase
from augkit_llm.check import LLMCheck

__all__ = ["LLMCheck", "LLMGenerate", "LLMParaphrase"]


@augkit.hookimpl
def register_augmenters(register):
    register(LLMParaphrase)
    register(LLMGenerate)


@augkit.hookimpl
def register_filters(register):
    register(LLMCheck)  # `llm_check`: re-classification among the nearest labels
