"""Label conditioning (C-BERT, Wu et al. 2019, "Conditional BERT Contextual Augmentation"): the
one contract between ``augkit train contextual`` and the ``contextual`` method's ``condition="label"``.

A masked LM proposing a word in context proposes what fits the sentence, not what fits its
class: in "the service was [MASK]" it may offer "bad" as readily as "good", and a replacement of
the wrong polarity turns a positive example into a negative one with a positive label. C-BERT
conditions the masked LM on the label, so that its proposals stay compatible with it: it
fine-tunes BERT on the labelled originals with the masked-LM objective, the label given to the
model alongside the sentence.

C-BERT gives the label through BERT's segment embeddings (one row per label in place of the
two sentence segments). augkit gives it as a prefix segment of the text instead,
``"{label} {sep_token} {text}"`` (as Kumar et al. 2020, "Data Augmentation using Pre-trained
Transformer Models", condition BERT by prepending the label), because that works for any
masked LM without changing its architecture: RoBERTa and DistilRoBERTa (the method's default
model) have a single segment embedding (``type_vocab_size`` 1), DistilBERT none at all, and
the label travels in the text itself, so the augmenter fills it with the masked-LM runtime
every other method uses (``load_masked_lm(folder).fill_masked``), which knows no segments.
The model reads the label as words, so a readable label name ("card_arrival") also carries
what the pretrained model knows of those words.

Training masks only tokens of the text part (never the prefix), so the model learns to read
the label, never to predict it; the augmenter masks words of the text part of the same string,
shifted by the returned offset.

>>> conditioned("card_arrival", "Where is my card?", "[SEP]")
('card_arrival [SEP] Where is my card?', 19)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: The key of the training record (``augkit-training.json``) naming the labels a model was
#: trained on, in sorted order: the augmenter refuses a label the model never saw, since a
#: prefix it never read conditions nothing.
LABEL_PREFIX_RECORD_KEY = "contextual_labels"
#: The ``target`` of the records ``augkit train contextual`` writes.
TRAINING_TARGET = "contextual"


def conditioned(label: object, text: str, sep_token: str) -> tuple[str, int]:
    """``text`` with ``label`` (written with ``str``) and the model's ``sep_token`` before it,
    and the offset of ``text`` in the result: ``result[offset:] == text``.

    >>> string, offset = conditioned(7, "I lost my card", "</s>")
    >>> string, string[offset:]
    ('7 </s> I lost my card', 'I lost my card')
    """
    prefix = f"{label} {sep_token} "
    return prefix + text, len(prefix)


def trained_labels(model_folder: str | os.PathLike) -> list[str] | None:
    """The labels a folder written by ``augkit train contextual`` was trained on (as written by
    :func:`conditioned`), read from its training record; None when ``model_folder`` is not
    such a model (a hub id, a folder without a record, a record of another target or one
    that cannot be read)."""
    from augkit.plugin import TRAINING_RECORD

    try:
        record = json.loads((Path(model_folder) / TRAINING_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("target") != TRAINING_TARGET:
        return None
    labels = record.get(LABEL_PREFIX_RECORD_KEY)
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        return None
    return labels
