"""ERAP's REINFORCE fine-tuning of a relation-controlled generator (Sancheti et al. 2022,
section 2.3), with the hypothesis-only adversary trained alternately (section 2.2).

One step, for a batch of (X, R) rows:

1. **Reference.** Beam search (``num_beams``) gives the reference paraphrase
   Y^ref = y_1 ... y_T of each row (T counts the end-of-sequence token; a reference cut at
   ``max_new_tokens`` has none). Neither the reference nor the roll-outs may hold a control
   token or padding (they mark the input; they are no word of a paraphrase).
2. **Roll-outs.** For each prefix Y^ref_{1:t}, t = 1 ... T-1, ``rollouts`` (n) complete
   sequences are drawn by multinomial sampling (temperature 1, no top-k or top-p) continuing
   that prefix; Y^ref_{1:T} is complete already, so it is its own roll-out. All prefixes of all
   rows go into one sampled ``generate`` call (up to ``max_rollout_rows`` rows a call): every
   row starts from the decoder's start token and a logits processor forces the row's prefix
   token at each position before t, so rows of different prefix lengths share one decoder
   loop with no padding.
3. **Scores.** Every distinct (X, sampled Y, R) is scored once by
   :class:`~augkit_erap.reward.ErapEvaluator` (one batched call): equation 5's combined reward
   with footnote 1's thresholds, the adversary's penalty included. f(s_t, y_t) is the mean
   over the n roll-outs of prefix t (the reference's own reward for t = T).
4. **Rewards and returns.** r_1 = f_1, r_t = f_t - f_{t-1} (equation 6);
   Q_t = sum_{tau >= t} gamma^(tau - t) r_tau (equation 3). :func:`token_returns` is this, pure.
5. **Loss.** L(G) = -J(G) with the actions taken being the reference's tokens:
   ``loss = -(1/B) sum_b sum_t Q_t log P(y_t^ref | X, R, y^ref_{1:t-1})``, P being the
   distribution generation samples from (control tokens and padding excluded). Only the
   log-probabilities of the reference tokens are differentiated (one teacher-forced forward
   pass of the generator); the roll-outs, their scores and Q are constants. One AdamW step,
   gradients clipped to ``max_grad_norm``.
6. **Adversary.** The step's references, with the oracle's judgement of (X, Y^ref) (kept from
   the evaluator's own oracle call), join the adversary's batch; every ``adversary_every``
   steps the adversary takes one step of equation 2 on that batch
   (:meth:`~augkit_erap.adversary.HypothesisOnlyClassifier.train_step`).

Dropout is off throughout (the generator is in eval mode; gradients flow all the same): the
log-probabilities trained are those of the policy that produced the reference and roll-outs.
Randomness: step k's sampling draws from a seed derived from ``seed`` and k, and the order of
the examples in epoch e from ``seed`` and e, so a run is reproducible and a resumed run
continues exactly as the uninterrupted one would (no random state needs saving).

``fine_tune`` holds its output folder by augkit's training rules (one run per folder; a folder
with checkpoints is refused unless ``resume``, which continues from the newest
``checkpoint-N``), writes checkpoints every ``save_steps`` and at the end, and leaves the
generator (safetensors) with its tokenizer, the adversary (``adversary/``) and
``augkit-training.json`` (settings, rewards over time) in ``output_dir``.

>>> from augkit.plugin import EntailmentOracle                                    # doctest: +SKIP
>>> result = fine_tune("erap-pretrained", [("a man plays a guitar", "forward")],   # doctest: +SKIP
...                    "erap-rl", oracle=EntailmentOracle(), settings=RLSettings(max_steps=100))
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from augkit.plugin import (
    InvalidParameterError,
    MissingDependencyError,
    TrainerSettings,
    UsageError,
    draw_seed,
    renamed_keywords,
    seeded_torch,
)
from augkit.plugin import (
    generator as seeded_generator,
)
from augkit_erap.adversary import (
    DEFAULT_ADVERSARY_LEARNING_RATE,
    DEFAULT_ADVERSARY_MODEL,
    HypothesisOnlyClassifier,
)
from augkit_erap.relations import (
    CONTROL_TOKENS,
    checked_relation,
    controlled_input,
    has_control_tokens,
)
from augkit_erap.reward import (
    ALPHA,
    BETA,
    DELTA,
    RENAMED_WINDOW,
    SIMILARITY_CEILING,
    SIMILARITY_FLOOR,
    ErapEvaluator,
    HypothesisOnlyAdversary,
    RewardWeights,
    SimilarityScorer,
)

#: Files of a checkpoint besides the generator and tokenizer: the generator's optimiser state
#: (``torch.save``, read with ``weights_only=True``), the run's progress (JSON: step, rewards
#: so far, the adversary's pending batch) and the adversary's folder.
OPTIMIZER_FILE = "erap-rl-optimizer.pt"
STATE_FILE = "erap-rl-state.json"
ADVERSARY_FOLDER = "adversary"
#: Salts of the run's derived seeds (:func:`augkit.plugin.generator`), with the step or epoch.
ROLLOUT_SEED_KEY = "erap-rl-rollouts"
ORDER_SEED_KEY = "erap-rl-order"
TRAIN_EXTRA = "pip install augkit-erap (torch, transformers)"


@dataclass
class RLSettings(TrainerSettings):
    """Hyper-parameters of ERAP's RL fine-tuning: the paper's values where section 2.3 gives
    them, documented choices where it does not.

    From the paper: ``alpha``, ``beta``, ``delta`` (equation 5: 0.4, 0.4, 0.2),
    ``similarity_min`` and ``similarity_max`` (footnote 1: 0.3, 0.98), ``rollouts``
    (n = 2 sampled completions per prefix).

    Not given by the paper:

    - ``gamma`` 0.95: equation 3's discount, which the paper only places in (0, 1). Its
      horizon 1 / (1 - gamma) is 20 tokens, longer than a median recast-SICK paraphrase (9
      words, about 12 tokens; 99% of SICK_train sentences have at most 21 words): every
      token still sees most of its sentence's outcome, nearer score changes a little more.
      1 means no discount (as SeqGAN's roll-outs).
    - ``num_beams`` 4: the reference's beam width. The paper gives none; 4 is the default of
      augkit's seq2seq runtime and of the ``erap`` augmenter, so the reference trained on is
      the paraphrase the model will give when it augments (and the width Raffel et al. 2020
      decode T5 with).
    - ``learning_rate`` 1e-5 (AdamW, no decay or warm-up): a low fine-tuning rate, because a
      REINFORCE gradient is noisy and the pre-trained generator is the warm start the paper
      says RL depends on (section 2.4).
    - ``batch_size`` 8 rows: each row costs (T - 1) x n roll-outs, so a step samples about
      300 sequences for SICK-length sentences. ``epochs`` 1: one pass over recast SICK's
      2,712 paraphrase rows is 339 steps. ``max_steps`` > 0 overrides ``epochs``.
    - ``max_new_tokens`` 32: the reference's and roll-outs' length limit T; SICK's longest
      sentence has 32 words and 99% have at most 21 (about 28 subword tokens).
    - ``adversary_every`` 1: the adversary trains after every generator step, the
      alternation of section 2.2; k trains it every k steps on the references of those k.
      ``adversary_learning_rate``: see :data:`~augkit_erap.adversary.DEFAULT_ADVERSARY_LEARNING_RATE`.
    - ``max_grad_norm`` 1.0 and ``adam_epsilon`` 1e-8, ``weight_decay`` 0: transformers'
      Trainer defaults. ``seed`` 42 as augkit's other training targets.
    - ``max_rollout_rows`` 512: sampled rows per ``generate`` call (a memory bound; a step
      with more roll-outs makes several calls). ``save_steps`` 50 and ``save_total_limit``
      2: checkpoints kept (a CPU step takes seconds to minutes).

    The settings every training target shares and their checks are augkit's
    (:class:`augkit.plugin.TrainerSettings`); ``max_grad_norm`` and ``adam_epsilon`` must be
    positive here (the step clips gradients to ``max_grad_norm`` whatever it is).
    """

    learning_rate: float = 1e-5
    num_beams: int = 4
    rollouts: int = 2
    max_new_tokens: int = 32
    gamma: float = 0.95
    alpha: float = ALPHA
    beta: float = BETA
    delta: float = DELTA
    similarity_min: float = SIMILARITY_FLOOR
    similarity_max: float = SIMILARITY_CEILING
    adversary_every: int = 1
    adversary_learning_rate: float = DEFAULT_ADVERSARY_LEARNING_RATE
    max_rollout_rows: int = 512
    save_steps: int = 50

    POSITIVE = (*TrainerSettings.POSITIVE, "num_beams", "rollouts", "max_new_tokens", "adversary_every", "max_grad_norm",
                "max_rollout_rows", "adam_epsilon")
    NON_NEGATIVE = (*TrainerSettings.NON_NEGATIVE, "alpha", "beta", "delta", "similarity_min", "similarity_max",
                    "adversary_learning_rate")

    def check_own(self) -> None:
        if not 0 < self.gamma <= 1:
            raise UsageError(f"gamma must be in (0, 1] (equation 3's discount; 1: none), got {self.gamma!r}")
        self.weights  # noqa: B018  (RewardWeights checks the similarity window)

    @property
    def weights(self) -> RewardWeights:
        """Equation 5's weights and footnote 1's window as :class:`RewardWeights`."""
        try:
            return RewardWeights(self.alpha, self.beta, self.delta, self.similarity_min, self.similarity_max)
        except InvalidParameterError as error:
            raise UsageError(str(error)) from None

    def steps_per_epoch(self, examples: int) -> int:
        return max(1, math.ceil(examples / self.batch_size))

    def total_steps(self, examples: int) -> int:
        """Steps of a run over ``examples`` rows: ``max_steps``, else ``epochs`` passes."""
        if self.max_steps > 0:
            return self.max_steps
        return max(1, math.ceil(self.epochs * self.steps_per_epoch(examples)))


RLSettings.__init__ = renamed_keywords(RENAMED_WINDOW, "RLSettings")(RLSettings.__init__)


def token_returns(scores: Sequence[float], gamma: float) -> tuple[list[float], list[float]]:
    """Equations 6 and 3: from f_1 ... f_T (the mean reward of the roll-outs of each prefix),
    the token rewards r_t (r_1 = f_1, r_t = f_t - f_{t-1}) and the discounted returns
    Q_t = sum_{tau >= t} gamma^(tau - t) r_tau.

    >>> token_returns([0.5, 0.5, 1.0], 1.0)
    ([0.5, 0.0, 0.5], [1.0, 0.5, 0.5])
    """
    rewards = [float(score) - (float(scores[t - 1]) if t else 0.0) for t, score in enumerate(scores)]
    returns = [0.0] * len(rewards)
    following = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        following = rewards[t] + gamma * following
        returns[t] = following
    return rewards, returns


def prefix_scores(rollout_rewards: Sequence[Sequence[float]], reference_reward: float) -> list[float]:
    """f(s_t, y_t) for t = 1 ... T (equation 5's mean over roll-outs): the mean of each
    prefix's roll-out rewards for t < T (``rollout_rewards[t - 1]``), then the reference's
    own reward for t = T (the full reference is complete: it is its own roll-out)."""
    return [sum(rewards) / len(rewards) for rewards in rollout_rewards] + [float(reference_reward)]


@dataclass(frozen=True)
class StepOutcome:
    """What one REINFORCE step did: the loss, each row's reference (its text, its token ids
    y_1 ... y_T, its :class:`~augkit_erap.reward.RewardParts`), the f_t and Q_t of each row,
    how many roll-outs were sampled and how many distinct ones were scored."""

    loss: float
    references: list[str]
    reference_ids: list[list[int]]
    reference_parts: list[Any]
    scores: list[list[float]]
    returns: list[list[float]]
    rollouts: int
    evaluated: int


def reinforce_step(model: Any, tokenizer: Any, rows: Sequence[tuple[str, str]], evaluator: Any, optimizer: Any,
                   settings: RLSettings, *, seed: int, device: str = "cpu") -> StepOutcome:
    """One REINFORCE step of section 2.3 on ``rows`` ((text, relation) pairs) for the
    seq2seq ``model`` with ``optimizer``; ``evaluator`` is anything with ERAP's
    ``evaluate(sources, candidates, relations)`` giving objects with a ``reward``. The
    roll-outs draw from ``seed``. See the module docstring for what is sampled and what is
    differentiated."""
    import torch

    sources = [text for text, _ in rows]
    relations = [checked_relation(relation) for _, relation in rows]
    input_ids, attention_mask = _encode(tokenizer, [controlled_input(s, r) for s, r in zip(sources, relations)], device)
    eos, banned = _eos_ids(model, tokenizer), _never_output(model, tokenizer)
    model.eval()
    with seeded_torch(seed, device), torch.no_grad():
        beams = _beam_search(model, input_ids, attention_mask, banned, settings)
        references = [_actions(row, eos) for row in beams[:, 1:].tolist()]
        sampled = _rollouts(model, input_ids, attention_mask, references, eos, banned, settings)
    reference_texts = _decode(tokenizer, references)
    rollout_texts = _decode(tokenizer, [ids for _, _, ids in sampled])

    # one evaluator call over the distinct (source, candidate, relation) triples
    wanted = [(sources[b], text, relations[b]) for (b, _, _), text in zip(sampled, rollout_texts)]
    wanted += [(sources[b], text, relations[b]) for b, text in enumerate(reference_texts)]
    distinct = list(dict.fromkeys(wanted))
    parts = dict(zip(distinct, evaluator.evaluate(*(list(column) for column in zip(*distinct))), strict=True))

    per_prefix: list[list[list[float]]] = [[[] for _ in range(len(ids) - 1)] for ids in references]
    for (b, t, _), text in zip(sampled, rollout_texts):
        per_prefix[b][t - 1].append(float(parts[(sources[b], text, relations[b])].reward))
    reference_parts = [parts[(sources[b], text, relations[b])] for b, text in enumerate(reference_texts)]
    scores = [prefix_scores(per_prefix[b], reference_parts[b].reward) for b in range(len(rows))]
    returns = [token_returns(row, settings.gamma)[1] for row in scores]

    # L(G) = -(1/B) sum_b sum_t Q_t log P(y_t^ref | s_t): one teacher-forced pass over the references
    logits = model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=beams[:, :-1]).logits
    loss = policy_gradient_loss(logits, beams[:, 1:], returns, banned)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return StepOutcome(float(loss.detach()), reference_texts, references, reference_parts, scores, returns,
                       len(sampled), len(distinct))


def policy_gradient_loss(logits: Any, targets: Any, returns: Sequence[Sequence[float]], banned: Sequence[int] = ()) -> Any:
    """Equation 4's loss on the reference actions: ``-(1/B) sum_b sum_t Q_t log P(y_t | s_t)``.

    ``logits`` (B x L x V) are the generator's scores at each position of the teacher-forced
    references ``targets`` (B x L, padded past each row's end); ``returns[b]`` holds Q_1 ...
    Q_T of row b (T <= L: positions past T do not count). P is the distribution generation
    samples from: the ``banned`` tokens (never output) get no probability."""
    import torch

    logits = logits.float()
    if banned:
        logits = logits.index_fill(-1, torch.tensor(list(banned), device=logits.device), float("-inf"))
    weights = torch.zeros(targets.shape, dtype=torch.float32, device=logits.device)
    counted = torch.zeros(targets.shape, dtype=torch.bool, device=logits.device)
    for b, row in enumerate(returns):
        weights[b, : len(row)] = torch.tensor(list(row), dtype=torch.float32)
        counted[b, : len(row)] = True
    log_probs = torch.log_softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    # padding past a row's end may be a banned token (log P = -inf): leave it out, not times 0
    return -(log_probs.masked_fill(~counted, 0.0) * weights).sum() / len(returns)


def reference_paraphrases(model: Any, tokenizer: Any, rows: Sequence[tuple[str, str]], settings: RLSettings, *,
                          device: str = "cpu") -> list[str]:
    """The beam-search reference Y^ref of each (text, relation) row, as :func:`reinforce_step`
    makes it (``num_beams``, ``max_new_tokens``, control tokens and padding never output)."""
    import torch

    inputs = [controlled_input(text, relation) for text, relation in rows]
    input_ids, attention_mask = _encode(tokenizer, inputs, device)
    eos = _eos_ids(model, tokenizer)
    with torch.no_grad():
        beams = _beam_search(model, input_ids, attention_mask, _never_output(model, tokenizer), settings)
    return _decode(tokenizer, [_actions(row, eos) for row in beams[:, 1:].tolist()])


@dataclass
class RLResult:
    """What :func:`fine_tune` did: where the model is, steps taken (in all, resumed runs
    included), the rewards over time (one entry per step: ``reward`` is the mean reward of the
    step's references, ``prefix_reward`` the mean f_t, then the references' mean consistency,
    penalty, similarity and diversity, the generator's ``loss`` and the adversary's), which
    checkpoint it resumed from, whether the time budget stopped it, how long it took, and
    ``progress``: epochs done and the mean reward's curve (first, best, last) with its warnings
    (:class:`augkit.plugin.TrainingProgress`: RL raises the reward; its policy-gradient loss
    is no measure of progress)."""

    output_dir: Path
    steps: int
    total_steps: int
    examples: int
    history: list[dict[str, Any]] = field(default_factory=list)
    resumed_from: str | None = None
    stopped_by_time_budget: bool = False
    seconds: float = 0.0
    progress: Any = None


def training_pairs(examples: Sequence[Any]) -> list[tuple[str, str]]:
    """``examples`` as (text, relation) pairs: each a (text, relation) pair or a mapping with
    ``text`` and ``relation``; relations checked (aliases accepted), blank texts refused."""
    pairs = []
    for position, example in enumerate(examples):
        if isinstance(example, Mapping):
            text, relation = example.get("text"), example.get("relation")
        elif isinstance(example, Sequence) and not isinstance(example, str) and len(example) == 2:
            text, relation = example
        else:
            raise UsageError(f"example {position} must be a (text, relation) pair or a mapping with text and relation; "
                             f"got {example!r}")
        if not isinstance(text, str) or not text.strip():
            raise UsageError(f"example {position} has no text: {example!r}")
        pairs.append((text.strip(), checked_relation(relation)))
    return pairs


def fine_tune(
    generator: str | os.PathLike,
    examples: Sequence[Any],
    output_dir: str | os.PathLike,
    *,
    oracle: Any,
    similarity: SimilarityScorer | None = None,
    adversary: str | os.PathLike | HypothesisOnlyAdversary | None = DEFAULT_ADVERSARY_MODEL,
    settings: RLSettings | None = None,
    resume: bool = False,
    max_minutes: float | None = None,
    progress: bool = False,
    device: str = "cpu",
) -> RLResult:
    """Fine-tune the pre-trained ERAP ``generator`` (a seq2seq folder or hub id whose
    tokenizer has the relation control tokens) on ``examples`` ((text, relation) pairs,
    :func:`training_pairs`) with REINFORCE (section 2.3), and save it to ``output_dir``.

    ``oracle``: an :class:`augkit.plugin.EntailmentOracle` (or a model spec for one).
    ``similarity``: the r_s scorer (default: MiniLM cosine, see :class:`ErapEvaluator`).
    ``adversary``: the hypothesis-only adversary: a sequence-classification model spec
    (default: RoBERTa-base, the paper's), a :class:`HypothesisOnlyClassifier` (or any object
    with ``relation_probabilities``; trained when it has ``train_step``), or None for no
    adversary (the paper's "-Adversary" ablation). ``resume`` continues the newest checkpoint
    in ``output_dir`` (its generator, optimiser, adversary and step; the same examples are
    required). ``max_minutes`` ends the run at the first step boundary past that many minutes,
    with a checkpoint to resume from. ``device``: ``cpu``, ``cuda``, ``auto``...
    """
    from augkit.plugin import (
        MEAN_REWARD,
        EntailmentOracle,
        TrainingProgress,
        load_for_training,
        progress_bar,
        resolve_device,
        reward_curve,
        training_folder,
    )

    started = time.monotonic()
    settings = settings or RLSettings()
    settings.check()
    if max_minutes is not None and not max_minutes > 0:
        raise UsageError(f"max-minutes must be positive, got {max_minutes!r}")
    pairs = training_pairs(examples)
    if not pairs:
        raise UsageError("no examples to fine-tune on: give (text, relation) pairs")
    try:
        import torch
    except ImportError as error:
        raise MissingDependencyError(f"ERAP's RL fine-tuning needs {error.name}: {TRAIN_EXTRA}") from error
    device = resolve_device(device)
    if isinstance(oracle, (str, os.PathLike)):
        oracle = EntailmentOracle(str(oracle), device=device)
    digest = _examples_digest(pairs)
    output = Path(output_dir)
    deadline = started + max_minutes * 60 if max_minutes else None

    with training_folder(output, resume=resume) as resume_from:
        state = _read_state(Path(resume_from), digest) if resume_from else _fresh_state(digest, len(pairs))
        model, tokenizer = load_for_training(resume_from or generator, "seq2seq", device=device)
        if not has_control_tokens(tokenizer):
            raise UsageError(
                f"the generator {str(generator)!r} has no ERAP control tokens ({', '.join(CONTROL_TOKENS.values())}): "
                "RL fine-tuning starts from a relation-aware generator; pre-train one first with "
                "`augkit train erap --stage pretrain` and fine-tune the model it writes"
            )
        model.eval()  # dropout off; see the module docstring
        optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay,
                                      eps=settings.adam_epsilon)
        if resume_from:
            optimizer.load_state_dict(torch.load(Path(resume_from) / OPTIMIZER_FILE, map_location=device, weights_only=True))
        critic = _adversary(adversary, resume_from, settings, device)
        recorder = _RecordingOracle(oracle)
        evaluator = ErapEvaluator(recorder, similarity=similarity, adversary=critic, weights=settings.weights)

        total = settings.total_steps(len(pairs))
        step = int(state["step"])
        history: list[dict[str, Any]] = state["history"]
        pending = state["adversary_batch"]
        stopped = False
        bar = progress_bar(total, shown=progress, description="train erap (RL)", unit="step")
        bar.update(min(step, total))
        try:
            while step < total:
                rows = [pairs[i] for i in _batch_indices(step, len(pairs), settings)]
                recorder.forget()
                outcome = reinforce_step(model, tokenizer, rows, evaluator, optimizer, settings,
                                         seed=draw_seed(seeded_generator(settings.seed, ROLLOUT_SEED_KEY, step)),
                                         device=device)
                for (text, _), reference in zip(rows, outcome.references):
                    pending["texts"].append(reference)
                    pending["targets"].append(dict(recorder.judgements[(text, reference)].probabilities))
                step += 1
                adversary_loss = None
                if critic is not None and hasattr(critic, "train_step") and step % settings.adversary_every == 0:
                    adversary_loss = critic.train_step(pending["texts"], pending["targets"])
                    pending = {"texts": [], "targets": []}
                history.append(_summary(step, len(pairs), settings, outcome, adversary_loss, started))
                bar.update(1)
                bar.set_postfix(reward=f"{history[-1]['reward']:.3f}")
                if deadline is not None and step < total and time.monotonic() >= deadline:
                    stopped = True
                if step % settings.save_steps == 0 or step == total or stopped:
                    _save_checkpoint(output, step, model, tokenizer, optimizer, critic,
                                     {**state, "step": step, "history": history, "adversary_batch": pending}, settings)
                if stopped:
                    break
        finally:
            bar.close()
        model.save_pretrained(output, safe_serialization=True)
        tokenizer.save_pretrained(output)
        if critic is not None and hasattr(critic, "save"):
            critic.save(output / ADVERSARY_FOLDER)
        epochs = step / settings.steps_per_epoch(len(pairs))
        stopped_by = "--max-minutes" if stopped else "--max-steps" if settings.max_steps > 0 and epochs < settings.epochs else None
        result = RLResult(output_dir=output, steps=step, total_steps=total, examples=len(pairs), history=history,
                          resumed_from=Path(resume_from).name if resume_from else None, stopped_by_time_budget=stopped,
                          seconds=round(time.monotonic() - started, 1),
                          progress=TrainingProgress(epochs, reward_curve(history), MEAN_REWARD, stopped_by))
        _write_record(output, result, generator, oracle, critic, settings, pairs)
    return result


# -- roll-outs --------------------------------------------------------------------------------


def _beam_search(model: Any, input_ids: Any, attention_mask: Any, banned: list[int], settings: RLSettings) -> Any:
    """Y^ref: ``[start, y_1 ... y_T, padding]`` per row, by beam search."""
    return model.generate(input_ids=input_ids, attention_mask=attention_mask, num_beams=settings.num_beams,
                          do_sample=False, num_return_sequences=1, max_new_tokens=settings.max_new_tokens,
                          suppress_tokens=banned or None)


def _rollouts(model: Any, input_ids: Any, attention_mask: Any, references: list[list[int]], eos: set[int],
              banned: list[int], settings: RLSettings) -> list[tuple[int, int, list[int]]]:
    """(row, prefix length t, sampled tokens) for n roll-outs of every prefix Y^ref_{1:t},
    t < T, of every row: sampled in as few ``generate`` calls as ``max_rollout_rows`` allows,
    prefixes forced by :func:`_prefix_forcing`."""
    import torch

    plan = [(b, t) for b, ids in enumerate(references) for t in range(1, len(ids)) for _ in range(settings.rollouts)]
    if not plan:
        return []
    width = max(len(ids) for ids in references)
    forced_rows = torch.zeros((len(references), width), dtype=torch.long)
    for b, ids in enumerate(references):
        forced_rows[b, : len(ids)] = torch.tensor(ids, dtype=torch.long)
    out: list[tuple[int, int, list[int]]] = []
    for start in range(0, len(plan), settings.max_rollout_rows):
        chunk = plan[start : start + settings.max_rollout_rows]
        index = torch.tensor([b for b, _ in chunk], dtype=torch.long, device=input_ids.device)
        lengths = torch.tensor([t for _, t in chunk], dtype=torch.long, device=input_ids.device)
        sampled = model.generate(
            input_ids=input_ids[index], attention_mask=attention_mask[index], do_sample=True, num_beams=1,
            top_k=0, top_p=1.0, temperature=1.0, num_return_sequences=1, max_new_tokens=settings.max_new_tokens,
            suppress_tokens=banned or None, logits_processor=_prefix_forcing(forced_rows.to(input_ids.device)[index], lengths),
        )
        out.extend((b, t, _actions(row, eos)) for (b, t), row in zip(chunk, sampled[:, 1:].tolist()))
    return out


def _prefix_forcing(forced: Any, lengths: Any) -> Any:
    """A logits processor list that makes row i emit ``forced[i, s]`` at each position
    s < ``lengths[i]`` (every other token's score -inf), and leaves later positions free."""
    import transformers

    class ForcedPrefix(transformers.LogitsProcessor):
        def __call__(self, input_ids: Any, scores: Any) -> Any:
            position = input_ids.shape[1] - 1  # tokens generated so far (after the start token)
            rows = (lengths > position).nonzero(as_tuple=True)[0]
            if len(rows):
                tokens = forced[rows, position]
                scores[rows] = float("-inf")
                scores[rows, tokens] = 0.0
            return scores

    return transformers.LogitsProcessorList([ForcedPrefix()])


def _actions(row: list[int], eos: set[int]) -> list[int]:
    """The tokens y_1 ... y_T of a generated row (start token removed): up to and including
    the first end-of-sequence token, or all of them when there is none (cut at the limit)."""
    for position, token in enumerate(row):
        if token in eos:
            return row[: position + 1]
    return row


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    eos = getattr(model.generation_config, "eos_token_id", None)
    if eos is None:
        eos = tokenizer.eos_token_id
    if eos is None:
        return set()
    return {int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])}


def _never_output(model: Any, tokenizer: Any) -> list[int]:
    """Tokens a paraphrase never holds: the relation control tokens (they mark the input;
    a random or under-trained generator may otherwise copy them, and they decode to
    nothing) and the padding token (unless it also ends sequences)."""
    vocabulary = tokenizer.get_vocab()
    banned = [vocabulary[token] for token in CONTROL_TOKENS.values() if token in vocabulary]
    pad = tokenizer.pad_token_id
    if pad is not None and pad not in _eos_ids(model, tokenizer):
        banned.append(int(pad))
    return sorted(set(banned))


def _encode(tokenizer: Any, texts: list[str], device: str) -> tuple[Any, Any]:
    from augkit.plugin import pad_rows

    rows = tokenizer(texts, truncation=True)["input_ids"]
    return pad_rows(rows, tokenizer.pad_token_id, device)


def _decode(tokenizer: Any, rows: list[list[int]]) -> list[str]:
    return [text.strip() for text in tokenizer.batch_decode(rows, skip_special_tokens=True)]


# -- the oracle's judgements, the adversary ----------------------------------------------------


class _RecordingOracle:
    """The oracle, keeping each (source, candidate) judgement the evaluator asks for, so the
    adversary's targets come from the oracle calls the rewards made already."""

    def __init__(self, oracle: Any):
        self.oracle = oracle
        self.judgements: dict[tuple[str, str], Any] = {}

    def judge(self, sources: Sequence[str], candidates: Sequence[str], **options: Any) -> list[Any]:
        found = self.oracle.judge(sources, candidates, **options)
        self.judgements.update(zip(zip(sources, candidates), found))
        return found

    def forget(self) -> None:
        self.judgements.clear()


def _adversary(adversary: Any, resume_from: str | None, settings: RLSettings, device: str) -> Any:
    """The run's adversary: None stays None; a checkpoint's saved adversary when resuming;
    else the given object, or a :class:`HypothesisOnlyClassifier` on the given model spec."""
    if adversary is None:
        return None
    saved = Path(resume_from) / ADVERSARY_FOLDER if resume_from else None
    if saved is not None and saved.is_dir():
        return HypothesisOnlyClassifier.load(saved, device=device)
    if isinstance(adversary, (str, os.PathLike)):
        return HypothesisOnlyClassifier(adversary, device=device, learning_rate=settings.adversary_learning_rate,
                                        seed=settings.seed)
    if not callable(getattr(adversary, "relation_probabilities", None)):
        raise InvalidParameterError("adversary must be a model spec, an object with relation_probabilities(texts), or None; "
                                    f"got {type(adversary).__name__}")
    return adversary


# -- order, progress, checkpoints, record -----------------------------------------------------


def _batch_indices(step: int, examples: int, settings: RLSettings) -> list[int]:
    """The examples of ``step`` (0-based): epoch e visits them in an order drawn from the seed
    and e, ``batch_size`` at a time (the last batch of an epoch may be smaller)."""
    per_epoch = settings.steps_per_epoch(examples)
    epoch, position = divmod(step, per_epoch)
    order = list(range(examples))
    seeded_generator(settings.seed, ORDER_SEED_KEY, epoch).shuffle(order)
    return order[position * settings.batch_size : (position + 1) * settings.batch_size]


def _summary(step: int, examples: int, settings: RLSettings, outcome: StepOutcome, adversary_loss: float | None,
             started: float) -> dict[str, Any]:
    def mean(values: Sequence[float]) -> float:
        return round(sum(values) / len(values), 6) if values else 0.0

    parts = outcome.reference_parts
    return {
        "step": step,
        "epoch": round(step / settings.steps_per_epoch(examples), 4),
        "reward": mean([p.reward for p in parts]),
        "prefix_reward": mean([f for row in outcome.scores for f in row]),
        "consistency": mean([p.consistency for p in parts]),
        "penalty": mean([p.penalty for p in parts]),
        "similarity": mean([p.similarity for p in parts]),
        "diversity": mean([p.diversity for p in parts]),
        "loss": round(outcome.loss, 6),
        "adversary_loss": None if adversary_loss is None else round(adversary_loss, 6),
        "rollouts": outcome.rollouts,
        "evaluated": outcome.evaluated,
        "seconds": round(time.monotonic() - started, 1),
    }


def _examples_digest(pairs: list[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for text, relation in pairs:
        digest.update(f"{relation}\x1f{text}\x1e".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _fresh_state(digest: str, examples: int) -> dict[str, Any]:
    return {"step": 0, "history": [], "adversary_batch": {"texts": [], "targets": []}, "examples": examples,
            "examples_digest": digest}


def _read_state(checkpoint: Path, digest: str) -> dict[str, Any]:
    path = checkpoint / STATE_FILE
    if not path.is_file():
        raise UsageError(f"{checkpoint} is not a checkpoint of ERAP's RL fine-tuning (no {STATE_FILE}); choose another "
                         "output folder")
    state = json.loads(path.read_text(encoding="utf-8"))
    if state.get("examples_digest") != digest:
        raise UsageError(f"--resume continues {checkpoint.name} with the examples it was trained on; these differ "
                         f"({state.get('examples')} examples then). Use the same examples, or another output folder")
    return state


def _save_checkpoint(output: Path, step: int, model: Any, tokenizer: Any, optimizer: Any, adversary: Any,
                     state: dict[str, Any], settings: RLSettings) -> Path:
    """Write ``checkpoint-<step>`` (generator, tokenizer, optimiser, adversary, progress)
    through augkit's atomic folder writer, so a run killed or failing while saving leaves no
    half checkpoint to resume; then keep only the newest ``save_total_limit``."""
    import torch

    from augkit.plugin import atomic_folder

    final = output / f"checkpoint-{step}"
    with atomic_folder(final) as partial:
        model.save_pretrained(partial, safe_serialization=True)
        tokenizer.save_pretrained(partial)
        torch.save(optimizer.state_dict(), partial / OPTIMIZER_FILE)
        if adversary is not None and hasattr(adversary, "save"):
            adversary.save(partial / ADVERSARY_FOLDER)
        (partial / STATE_FILE).write_text(json.dumps({**state, "seed": settings.seed}, indent=1) + "\n", encoding="utf-8")
    steps = sorted(int(p.name.split("-", 1)[1]) for p in output.glob("checkpoint-*")
                   if p.is_dir() and p.name.split("-", 1)[1].isdigit())
    for old in steps[: -settings.save_total_limit]:
        shutil.rmtree(output / f"checkpoint-{old}", ignore_errors=True)
    return final


def _write_record(output: Path, result: RLResult, generator: Any, oracle: Any, adversary: Any, settings: RLSettings,
                  pairs: list[tuple[str, str]]) -> None:
    from augkit.plugin import write_training_record

    write_training_record(output, {
        "target": "erap",
        "stage": "rl",
        "generator": str(generator),
        "oracle": str(getattr(oracle, "model", type(oracle).__name__)),
        "adversary": None if adversary is None else str(getattr(adversary, "model", type(adversary).__name__)),
        "examples": result.examples,
        "relations": dict(Counter(relation for _, relation in pairs)),
        "method": "REINFORCE (Sancheti et al. 2022, section 2.3): beam-search reference, n sampled roll-outs per prefix, "
                  "f_t = mean eq. 5 reward, r_t = f_t - f_(t-1), Q_t discounted by gamma, "
                  "loss = -mean_rows sum_t Q_t log P(reference token t); adversary trained on the references (eq. 2)",
        "steps": result.steps,
        "total_steps": result.total_steps,
        "rewards": result.history,
        "resumed_from": result.resumed_from,
        "stopped_by_time_budget": result.stopped_by_time_budget,
        "progress": result.progress.as_record(),
        "seconds": result.seconds,
        "settings": asdict(settings),
    })
