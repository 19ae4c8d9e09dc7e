"""The paraphraser's input format, shared by generation and fine-tuning (Ng 2021, section 3.4):
input "paraphrase: <sentence> </s>", target "<paraphrase> </s>". A model prompted the way it
was trained; the "</s>" in the text is T5's end-of-sequence token, as in the thesis."""

from __future__ import annotations

PARAPHRASE_PREFIX = "paraphrase: "
PARAPHRASE_SUFFIX = " </s>"


def paraphrase_prompt(sentence: str) -> str:
    """The model input for ``sentence``: ``"paraphrase: <sentence> </s>"``."""
    return f"{PARAPHRASE_PREFIX}{sentence}{PARAPHRASE_SUFFIX}"


def paraphrase_target(sentence: str) -> str:
    """The training target for ``sentence``: ``"<sentence> </s>"``."""
    return f"{sentence}{PARAPHRASE_SUFFIX}"
