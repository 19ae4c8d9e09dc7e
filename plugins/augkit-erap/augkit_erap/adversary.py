"""ERAP's hypothesis-only adversary A(l | Y) (Sancheti et al. 2022, section 2.2): a 3-class
sequence classifier over the paraphrase relations that sees the paraphrase Y only, never the
input X. When it can tell the relation the generator was asked for from Y alone, the
generator has used a heuristic (a trailing "with mexico" for reverse, short outputs for
forward), and the evaluator subtracts its likelihood from the reward
(:func:`augkit_erap.reward.adversary_penalty`).

It is trained alternately with the generator, like a GAN's discriminator, on the generator's
paraphrases with the oracle's judgement of (X, Y) as target. Equation 2:

    L(A) = - sum_c O(X, Y)_c log A(l = c | Y),   c in {equivalence, forward, reverse}

The oracle gives six relation likelihoods (:class:`augkit.plugin.RelationJudgement`);
the adversary has three classes, so its target is the oracle's likelihood of the three
paraphrase relations renormalised to sum to 1 (:func:`relation_targets`), i.e. the
oracle's distribution given that Y is a paraphrase at all. A pair whose three paraphrase
likelihoods are all 0 says nothing about which paraphrase relation Y holds and is left out.

>>> adversary = HypothesisOnlyClassifier("FacebookAI/roberta-base")        # doctest: +SKIP
>>> adversary.train_step(["four girls play outside with mexico"],            # doctest: +SKIP
...                      [{"equivalence": 0.1, "forward": 0.1, "reverse": 0.6}])
>>> adversary.relation_probabilities(["a man plays with mexico"])           # doctest: +SKIP
[{'equivalence': 0.2, 'forward': 0.2, 'reverse': 0.6}]

Importing this module loads no torch or transformers.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from augkit.plugin import (
    PARAPHRASE_RELATIONS,
    InputError,
    InvalidParameterError,
    draw_seed,
    generator,
    seeded_torch,
)

#: The paper's adversary is RoBERTa-based (section 2.2); base is the size a CPU can train
#: alongside the generator.
DEFAULT_ADVERSARY_MODEL = "FacebookAI/roberta-base"
#: Not given by the paper: the middle of RoBERTa's GLUE fine-tuning grid {1e-5, 2e-5, 3e-5}
#: (Liu et al. 2019, table 10).
DEFAULT_ADVERSARY_LEARNING_RATE = 2e-5
#: Texts per forward pass (scoring) and per gradient-accumulation chunk (training).
DEFAULT_ADVERSARY_BATCH_SIZE = 32
#: Paraphrases are sentences (recast SICK's are under 40 words); longer texts are cut here.
DEFAULT_ADVERSARY_MAX_LENGTH = 128
#: Gradient clipping, as the house trainer settings use (``max_grad_norm`` 1.0).
MAX_GRAD_NORM = 1.0

#: Files of a saved adversary besides the model and tokenizer: its settings (JSON) and the
#: optimiser state with the number of steps taken (``torch.save`` of tensors and numbers,
#: read back with ``weights_only=True``).
SETTINGS_FILE = "erap-adversary.json"
STATE_FILE = "erap-adversary-state.pt"


def relation_targets(distributions: Sequence[Mapping[str, float] | Any]) -> list[list[float] | None]:
    """Equation 2's targets: for each oracle judgement (a :class:`RelationJudgement` or its
    ``probabilities`` mapping), the likelihoods of equivalence, forward and reverse divided
    by their sum; None when that sum is 0 (no paraphrase relation is likely: no target).

    >>> relation_targets([{"equivalence": 0.2, "forward": 0.1, "reverse": 0.1, "invalid": 0.6}])
    [[0.5, 0.25, 0.25]]
    """
    targets: list[list[float] | None] = []
    for position, item in enumerate(distributions):
        probabilities = getattr(item, "probabilities", item)
        try:
            values = [float(probabilities[relation]) for relation in PARAPHRASE_RELATIONS]
        except (KeyError, TypeError):
            raise InputError(f"target {position} must give the likelihood of each of {', '.join(PARAPHRASE_RELATIONS)}; "
                             f"got {probabilities!r}") from None
        if any(not math.isfinite(v) or v < 0 for v in values):
            raise InputError(f"target {position} has a likelihood that is negative or not finite: {probabilities!r}")
        total = sum(values)
        targets.append([v / total for v in values] if total > 0 else None)
    return targets


class HypothesisOnlyClassifier:
    """The hypothesis-only adversary A(l | Y): any sequence-classification model (a hub id,
    ``id@revision`` or folder, loaded as augkit loads models: safetensors only, no remote
    code) with a 3-way head over equivalence, forward and reverse, and its own AdamW
    optimiser. Implements :class:`augkit_erap.reward.HypothesisOnlyAdversary`.

    A model whose ``id2label`` already names the three relations (an adversary saved by
    :meth:`save`) keeps its head; any other model keeps its encoder and gets a new 3-way
    head, initialised from ``seed``. The model loads on first use.

    ``learning_rate``, ``weight_decay``: AdamW's. ``batch_size``: texts per forward pass.
    ``max_length``: tokens kept of a text. ``seed``: the new head and each training step's
    dropout (step ``k`` draws from ``seed`` and ``k``), so the same seed trains the same way.
    """

    def __init__(self, model: str | os.PathLike = DEFAULT_ADVERSARY_MODEL, *, device: str = "cpu",
                 learning_rate: float = DEFAULT_ADVERSARY_LEARNING_RATE, weight_decay: float = 0.0,
                 batch_size: int = DEFAULT_ADVERSARY_BATCH_SIZE, max_length: int = DEFAULT_ADVERSARY_MAX_LENGTH,
                 seed: int = 0):
        for name, value in (("learning_rate", learning_rate), ("weight_decay", weight_decay)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InvalidParameterError(f"{name} must be a finite number >= 0, got {value!r}")
        for name, value in (("batch_size", batch_size), ("max_length", max_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidParameterError(f"{name} must be an int >= 1, got {value!r}")
        self.model = model
        self.device = device
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.max_length = max_length
        self.seed = seed
        #: Optimisation steps taken (saved and restored with the optimiser state).
        self.steps = 0
        self._network: Any = None
        self._tokenizer: Any = None
        self._optimizer: Any = None
        self._saved_state: Path | None = None

    # -- loading -----------------------------------------------------------------------------

    @classmethod
    def load(cls, folder: str | os.PathLike, *, device: str = "cpu") -> HypothesisOnlyClassifier:
        """The adversary :meth:`save` wrote to ``folder``: its weights, settings, optimiser
        state and step count (to resume training where it stopped)."""
        folder = Path(folder)
        settings_path = folder / SETTINGS_FILE
        if not settings_path.is_file():
            raise InputError(f"{folder} holds no saved ERAP adversary (no {SETTINGS_FILE})")
        settings = json.loads(settings_path.read_text(encoding="utf-8"))
        adversary = cls(folder, device=device, **{k: settings[k] for k in
                                                  ("learning_rate", "weight_decay", "batch_size", "max_length", "seed")})
        if (folder / STATE_FILE).is_file():
            adversary._saved_state = folder / STATE_FILE
        return adversary

    def _load(self) -> None:
        if self._network is not None:
            return
        import torch

        from augkit.plugin import load_for_training, resolve_device

        self.device = resolve_device(self.device)
        network, tokenizer = load_for_training(self.model, "pair", device=self.device)
        if _labels(network.config) != list(PARAPHRASE_RELATIONS):
            network = _with_relation_head(network, self.seed).to(self.device)
        if tokenizer.pad_token is None:
            raise InputError(f"adversary model {str(self.model)!r}: its tokenizer has no padding token, so texts cannot be "
                             "batched; use an encoder such as RoBERTa or BERT")
        self._network, self._tokenizer = network.eval(), tokenizer
        self._optimizer = torch.optim.AdamW(network.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay)
        if self._saved_state is not None:
            state = torch.load(self._saved_state, map_location=self.device, weights_only=True)
            self._optimizer.load_state_dict(state["optimizer"])
            self.steps = int(state["steps"])
            self._saved_state = None

    @property
    def network(self) -> Any:
        """The transformers sequence classifier (loaded on first access)."""
        self._load()
        return self._network

    @property
    def tokenizer(self) -> Any:
        self._load()
        return self._tokenizer

    # -- scoring -----------------------------------------------------------------------------

    def relation_probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """A(l | Y) for each text: the probability of equivalence, forward and reverse, in
        batches of ``batch_size``, in eval mode, without gradients."""
        import torch

        from augkit.plugin import check_texts

        texts = check_texts("texts", texts)
        network = self.network
        out: list[dict[str, float]] = []
        with torch.no_grad():
            for start in range(0, len(texts), self.batch_size):
                logits = network(**self._encode(texts[start : start + self.batch_size])).logits
                for row in torch.softmax(logits.float(), dim=-1).tolist():
                    out.append(dict(zip(PARAPHRASE_RELATIONS, row, strict=True)))
        return out

    def loss(self, texts: Sequence[str], targets: Sequence[Mapping[str, float] | Any]) -> float:
        """Equation 2's loss, averaged over the texts that have a target (eval mode, no
        gradients): how well A predicts the oracle's judgements of these paraphrases."""
        import torch

        kept, rows = self._targeted(texts, targets)
        if not kept:
            return 0.0
        total = 0.0
        with torch.no_grad():
            for start in range(0, len(kept), self.batch_size):
                total += float(self._summed_loss(kept[start : start + self.batch_size], rows[start : start + self.batch_size]))
        return total / len(kept)

    # -- training ----------------------------------------------------------------------------

    def train_step(self, texts: Sequence[str], targets: Sequence[Mapping[str, float] | Any]) -> float | None:
        """One AdamW step on equation 2's loss over ``texts`` (the generator's paraphrases)
        with ``targets`` (the oracle's judgement of each (X, Y): a
        :class:`RelationJudgement` or its ``probabilities``, renormalised by
        :func:`relation_targets`). The batch is run in chunks of ``batch_size`` whose
        gradients add up to the mean over the batch; dropout is on, drawn from ``seed`` and
        the step number. Returns the batch's mean loss before the step, or None when no text
        had a target (no step taken)."""
        import torch

        kept, rows = self._targeted(texts, targets)
        if not kept:
            return None
        network, optimizer = self.network, self._optimizer
        seed = draw_seed(generator(self.seed, "erap-adversary-dropout", self.steps))
        total = 0.0
        with seeded_torch(seed, str(self.device)):
            network.train()
            try:
                optimizer.zero_grad(set_to_none=True)
                for start in range(0, len(kept), self.batch_size):
                    summed = self._summed_loss(kept[start : start + self.batch_size], rows[start : start + self.batch_size])
                    (summed / len(kept)).backward()
                    total += float(summed.detach())
                torch.nn.utils.clip_grad_norm_(network.parameters(), MAX_GRAD_NORM)
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            finally:
                network.eval()
        self.steps += 1
        return total / len(kept)

    def save(self, folder: str | os.PathLike) -> Path:
        """Write the model (safetensors), tokenizer, settings, optimiser state and step count
        to ``folder``; :meth:`load` reads them back."""
        import torch

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.network.save_pretrained(folder, safe_serialization=True)
        self.tokenizer.save_pretrained(folder)
        settings = {"learning_rate": self.learning_rate, "weight_decay": self.weight_decay, "batch_size": self.batch_size,
                    "max_length": self.max_length, "seed": self.seed, "base_model": str(self.model),
                    "labels": list(PARAPHRASE_RELATIONS), "steps": self.steps}
        (folder / SETTINGS_FILE).write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        torch.save({"optimizer": self._optimizer.state_dict(), "steps": self.steps}, folder / STATE_FILE)
        return folder

    # -- helpers -----------------------------------------------------------------------------

    def _encode(self, texts: list[str]) -> Any:
        """The texts' token ids, padded the runtime's one way (:func:`augkit.plugin.pad_rows`:
        on the right, to a multiple of its padding step), with their attention mask."""
        from augkit.plugin import pad_rows

        rows = self._tokenizer(texts, truncation=True, max_length=self.max_length)["input_ids"]
        input_ids, attention_mask = pad_rows(rows, self._tokenizer.pad_token_id, str(self.device))
        return {"input_ids": input_ids, "attention_mask": attention_mask}

    def _targeted(self, texts: Sequence[str], targets: Sequence[Any]) -> tuple[list[str], list[list[float]]]:
        from augkit.plugin import check_texts

        texts, targets = check_texts("texts", texts), list(targets)
        if len(texts) != len(targets):
            raise InputError(f"one target per text is needed: {len(texts)} texts, {len(targets)} targets")
        pairs = [(text, row) for text, row in zip(texts, relation_targets(targets), strict=True) if row is not None]
        return [text for text, _ in pairs], [row for _, row in pairs]

    def _summed_loss(self, texts: list[str], rows: list[list[float]]) -> Any:
        """Equation 2 summed over ``texts``: - sum_c target_c log A(c | Y)."""
        import torch

        logits = self.network(**self._encode(texts)).logits.float()
        target = torch.tensor(rows, dtype=torch.float32, device=logits.device)
        return -(target * torch.log_softmax(logits, dim=-1)).sum()


def _labels(config: Any) -> list[str]:
    mapping = getattr(config, "id2label", None) or {}
    return [str(mapping[i]) for i in sorted(mapping, key=int)]


def _with_relation_head(network: Any, seed: int) -> Any:
    """A copy of the sequence classifier ``network`` whose head has three outputs named by
    the relations: the encoder's weights are kept, the head is drawn anew from ``seed``."""
    import copy

    import transformers

    config = copy.deepcopy(network.config)
    config.id2label = dict(enumerate(PARAPHRASE_RELATIONS))
    config.label2id = {relation: i for i, relation in enumerate(PARAPHRASE_RELATIONS)}
    config.num_labels = len(PARAPHRASE_RELATIONS)
    config.problem_type = "single_label_classification"
    with seeded_torch(seed, "cpu"):  # the new head's initial weights
        fresh = transformers.AutoModelForSequenceClassification.from_config(config)
    prefix = f"{network.base_model_prefix}."
    encoder = {name: tensor for name, tensor in network.state_dict().items() if name.startswith(prefix)}
    missing = fresh.load_state_dict(encoder, strict=False).missing_keys
    if any(name.startswith(prefix) for name in missing):
        raise InputError(f"could not carry the encoder of {type(network).__name__} over to a 3-way relation head "
                         f"(missing: {', '.join(n for n in missing if n.startswith(prefix))[:200]})")
    return fresh


