"""BERTScore (Zhang et al., 2020): greedy cosine matching of contextual token embeddings,
on augkit's model runtime (:func:`augkit.models.load_token_encoder`).

Computed exactly as the ``bert-score`` package computes it (v0.3.13, ``bert_score/utils.py``
``greedy_cos_idf``), with results that do not depend on the batch: each text's token
embeddings come from the runtime (one padded shape per text), and the matching of each pair
is done on its own, in float64.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, NamedTuple

from augkit.errors import InvalidParameterError
from augkit.metrics._inputs import References, reference_lists
from augkit.steps.params import check_texts

if TYPE_CHECKING:  # augkit.models loads with the first score, not with augkit.metrics
    from augkit.models.spec import ModelSpec

#: The model BERTScore uses unless told otherwise: RoBERTa-large fine-tuned on MNLI. Its
#: scores correlate with human judgements on WMT16 better than plain roberta-large's (0.754
#: against 0.739, the notes of bert-score's ``model2layers``), at the same size.
DEFAULT_BERTSCORE_MODEL = "roberta-large-mnli"

#: The layer whose hidden states BERTScore compares, per model: the layer whose scores
#: correlated best with human judgements on WMT16 to-English, as the bert-score package tuned
#: it (``model2layers`` in bert_score/utils.py, v0.3.13).
#: A few of its ids are copied here; any other model uses its last layer.
DEFAULT_LAYERS: dict[str, int] = {
    "roberta-large-mnli": 19,
    "roberta-large": 17,
    "roberta-base": 10,
    "distilroberta-base": 5,
    "bert-base-uncased": 9,
    "bert-large-uncased": 18,
    "distilbert-base-uncased": 5,
    "microsoft/deberta-base-mnli": 9,
    "microsoft/deberta-large-mnli": 18,
    "microsoft/deberta-xlarge-mnli": 40,
}

#: English baselines (precision, recall, F1) of the models of :data:`DEFAULT_LAYERS` at that
#: layer: the mean BERTScore of random sentence pairs from Common Crawl, which
#: ``rescale_with_baseline`` maps to 0 (bert-score v0.3.13, ``rescale_baseline/en/<model>.tsv``;
#: Zhang et al., 2020, section 3, "baseline rescaling").
BASELINES: dict[tuple[str, int], tuple[float, float, float]] = {
    ("roberta-large-mnli", 19): (0.6901594, 0.69018, 0.6896288),
    ("roberta-large", 17): (0.83150584, 0.8314941, 0.83122575),
    ("roberta-base", 10): (0.8146725, 0.8146619, 0.814463),
    ("distilroberta-base", 5): (0.84732, 0.84759504, 0.8473319),
    ("bert-base-uncased", 9): (0.35375935, 0.3537393, 0.35219112),
    ("bert-large-uncased", 18): (0.4278576, 0.42786714, 0.42646673),
    ("distilbert-base-uncased", 5): (0.6666034, 0.66660464, 0.66620487),
    ("microsoft/deberta-base-mnli", 9): (0.53045946, 0.5304829, 0.52866036),
    ("microsoft/deberta-large-mnli", 18): (0.45358238, 0.45362508, 0.45173016),
    ("microsoft/deberta-xlarge-mnli", 40): (0.5169066, 0.5170288, 0.5150192),
}

#: Organisations the Hugging Face hub moved the original ids into (``roberta-large`` is now
#: ``FacebookAI/roberta-large``): either spelling finds the same default layer.
_HUB_ORGANISATIONS = ("FacebookAI/", "google-bert/", "distilbert/")


class BertScore(NamedTuple):
    """BERTScore of one candidate against its reference: ``precision`` (how well the
    candidate's tokens are covered by the reference's), ``recall`` (the reverse) and their
    harmonic mean ``f1``."""

    precision: float
    recall: float
    f1: float


def bertscore(
    candidates: Sequence[str],
    references: References,
    *,
    model: str = DEFAULT_BERTSCORE_MODEL,
    layer: int | None = None,
    idf: bool = False,
    rescale_with_baseline: bool = False,
    device: str = "auto",
) -> list[BertScore]:
    """BERTScore of each candidate against its reference(s): one :class:`BertScore`
    ``(precision, recall, f1)`` per candidate, in order.

    Each text is encoded by ``model`` and represented by the hidden states of ``layer``, one
    vector per token. Every candidate token is matched to its most similar reference token
    (cosine), and the reverse (Zhang et al., 2020, "BERTScore: Evaluating Text Generation
    with BERT", section 3):

        P = sum_{c in cand} w(c) max_{r in ref} cos(c, r) / sum_{c in cand} w(c)
        R = sum_{r in ref} w(r) max_{c in cand} cos(c, r) / sum_{r in ref} w(r)
        F1 = 2 P R / (P + R)

    As in the bert-score package: the special tokens (``[CLS]``/``[SEP]``, ``<s>``/``</s>``)
    take part in the matching but weigh 0; other tokens weigh 1, or with ``idf`` their
    inverse document frequency over the references of this call,
    ``log((M + 1) / (m(t) + 1))`` (M references, m(t) of them holding token t). A candidate
    with several references gets the best precision, recall and F1 over them (each taken
    separately, as bert-score does). An empty (or blank) candidate or reference scores
    ``(0, 0, 0)``; so does an F1 whose P + R is 0.

    ``layer`` defaults to :data:`DEFAULT_LAYERS` for the models listed there (bert-score's
    tuned layers: 19 for ``roberta-large-mnli``), else the model's last layer; 0 is the
    embedding output. A layer the model does not have raises
    :class:`~augkit.errors.InvalidParameterError` naming its layer count. Scores are raw
    (unrelated sentences score well above 0: F1 0.69 on average with the default model),
    unless ``rescale_with_baseline``: then ``(x - b) / (1 - b)`` with bert-score's English
    baseline b (:data:`BASELINES`, the models of :data:`DEFAULT_LAYERS` at their default
    layer only).

    ``model`` is a hub id (``id@revision``), a directory or a folder under
    ``$AUGKIT_MODEL_DIR``, loaded by :func:`augkit.models.load_token_encoder` (safetensors
    only, no remote code, shared per process). Results do not depend on the batch: each
    distinct text is embedded once at its own padded shape and each pair matched on its own.

    >>> bertscore(["I lost my card"], ["my card is lost"], model="sentence-transformers/all-MiniLM-L6-v2")  # doctest: +SKIP
    [BertScore(precision=0.8939..., recall=0.8825..., f1=0.8882...)]
    """
    items = check_texts("candidates", candidates)
    references = reference_lists(references, len(items))
    if not isinstance(idf, bool):
        raise InvalidParameterError(f"idf must be True or False, got {idf!r}")
    if not isinstance(rescale_with_baseline, bool):
        raise InvalidParameterError(f"rescale_with_baseline must be True or False, got {rescale_with_baseline!r}")
    from augkit.models.spec import ModelSpec

    if not isinstance(model, (str, ModelSpec)) or not str(model).strip():
        raise InvalidParameterError(f"model must be a model id or a directory, got {model!r}")
    if not items:
        return []
    from augkit.models.token_embeddings import load_token_encoder

    encoder = load_token_encoder(model, device=device, dtype="float32")
    layer = default_layer(model, encoder.num_layers) if layer is None else encoder.check_layer(layer)
    baseline = _baseline(model, layer) if rescale_with_baseline else None
    flat_references = [reference for group in references for reference in group]
    texts = list(dict.fromkeys(items + flat_references))
    states = dict(zip(texts, encoder.token_states(texts, layer), strict=True))
    weight = _idf_weights([states[text].token_ids for text in flat_references]) if idf else None
    # bert-score weighs [CLS] and [SEP] 0 by id: also where a text spells them out
    unweighted = {encoder.tokenizer.cls_token_id, encoder.tokenizer.sep_token_id} - {None}
    scores = []
    for candidate, group in zip(items, references, strict=True):
        pair_scores = [match(states[candidate], states[reference], weight, unweighted) for reference in group]
        best = BertScore(*(max(values) for values in zip(*pair_scores)))
        scores.append(best if baseline is None else BertScore(*((x - b) / (1 - b) for x, b in zip(best, baseline))))
    return scores


def default_layer(model: str | ModelSpec, layers: int) -> int:
    """The layer BERTScore uses for ``model``: :data:`DEFAULT_LAYERS` when it lists the
    model (by hub id, with or without its organisation and revision), else ``layers``, the
    model's last."""
    return DEFAULT_LAYERS.get(_table_id(model), layers)


def _table_id(model: str | ModelSpec) -> str:
    from augkit.models.spec import ModelSpec

    name = ModelSpec.parse(model).name
    for organisation in _HUB_ORGANISATIONS:
        if name.startswith(organisation):
            return name[len(organisation) :]
    return name


def _baseline(model: str | ModelSpec, layer: int) -> tuple[float, float, float]:
    key = (_table_id(model), layer)
    if key not in BASELINES:
        known = ", ".join(f"{name} (layer {number})" for name, number in BASELINES)
        raise InvalidParameterError(
            f"rescale_with_baseline: no baseline for {str(model)!r} at layer {layer}; augkit carries bert-score's "
            f"English baselines for {known}"
        )
    return BASELINES[key]


def _idf_weights(references: list[tuple[int, ...]]) -> Mapping[int, float]:
    """Inverse document frequency of each token id over ``references``:
    ``log((M + 1) / (m + 1))``, M references, m of them holding the token (bert-score's
    ``get_idf_dict``); a token in none of them gets ``log(M + 1)``."""
    counts = Counter(token for ids in references for token in set(ids))
    total = len(references)
    return _IdfWeights({token: math.log((total + 1) / (count + 1)) for token, count in counts.items()}, math.log(total + 1))


class _IdfWeights(dict):
    """Token id -> weight, with ``unseen`` for ids absent from the references."""

    def __init__(self, weights: dict[int, float], unseen: float):
        super().__init__(weights)
        self.unseen = unseen

    def __missing__(self, token: int) -> float:
        return self.unseen


def match(
    candidate: Any, reference: Any, idf: Mapping[int, float] | None = None, unweighted: AbstractSet[int] = frozenset(),
) -> BertScore:
    """BERTScore of one candidate against one reference, from their
    :class:`~augkit.models.TokenStates`: greedy cosine matching over every token (special
    tokens included), special tokens and the ids in ``unweighted`` weighing 0, in float64."""
    import torch

    cand_weights = _weights(candidate, idf, unweighted)
    ref_weights = _weights(reference, idf, unweighted)
    if not cand_weights.sum() or not ref_weights.sum():
        return BertScore(0.0, 0.0, 0.0)  # an empty text (bert-score: "setting raw BERTScores to 0")
    cand = torch.nn.functional.normalize(candidate.vectors.double(), dim=-1)
    ref = torch.nn.functional.normalize(reference.vectors.double(), dim=-1)
    similarity = cand @ ref.T
    precision = float((similarity.max(dim=1).values * cand_weights).sum() / cand_weights.sum())
    recall = float((similarity.max(dim=0).values * ref_weights).sum() / ref_weights.sum())
    total = precision + recall
    f1 = 2 * precision * recall / total if total else 0.0
    return BertScore(precision, recall, f1)


def _weights(states: Any, idf: Mapping[int, float] | None, unweighted: AbstractSet[int]) -> Any:
    import torch

    weights = [
        0.0 if special or token in unweighted else (1.0 if idf is None else idf[token])
        for token, special in zip(states.token_ids, states.special, strict=True)
    ]
    return torch.tensor(weights, dtype=torch.float64)
