"""ERAP's RL fine-tuning (Sancheti et al. 2022, section 2.3) and hypothesis-only adversary
(section 2.2), on tiny random models: the reward arithmetic of equations 6 and 3 exactly, the
adversary's penalty rule and loss (equation 2), one REINFORCE step's effect, and the run's
reproducibility and resumption."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from augkit_erap.adversary import HypothesisOnlyClassifier, relation_targets
from augkit_erap.relations import CONTROL_TOKENS, controlled_input
from augkit_erap.reward import ErapEvaluator
from augkit_erap.rl import (
    RLSettings,
    fine_tune,
    policy_gradient_loss,
    prefix_scores,
    reference_paraphrases,
    reinforce_step,
    token_returns,
)

from augkit.plugin import UsageError

EXAMPLES = [
    ("how do i learn python quickly", "forward"),
    ("what is the best way to lose weight", "equivalence"),
    ("why is the sky blue", "reverse"),
]
#: Tiny and fast: 2 rows a step, references of at most 5 tokens, 2 beams.
TINY = dict(batch_size=2, max_new_tokens=5, num_beams=2, learning_rate=1e-3, save_steps=1)


def constant_similarity(sources, candidates):
    """r_s inside footnote 1's window, so no score is zeroed."""
    return [0.5] * len(sources)


@pytest.fixture(scope="module")
def oracle(tiny_pair_classifier):
    from augkit.plugin import EntailmentOracle

    return EntailmentOracle(str(tiny_pair_classifier), device="cpu")


# -- equations 6 and 3 ---------------------------------------------------------------------


def test_token_rewards_are_differences_of_prefix_scores_and_returns_are_discounted_sums():
    rewards, returns = token_returns([0.2, 0.5, 0.4], 0.5)
    assert rewards == pytest.approx([0.2, 0.3, -0.1])  # r_1 = f_1, r_t = f_t - f_(t-1)
    assert returns == pytest.approx([0.2 + 0.5 * 0.3 + 0.25 * -0.1, 0.3 + 0.5 * -0.1, -0.1])


def test_without_discount_the_return_is_the_final_score_minus_the_score_before():
    scores = [0.1, 0.7, 0.3, 0.6]
    _, returns = token_returns(scores, 1.0)
    assert returns == pytest.approx([0.6, 0.6 - 0.1, 0.6 - 0.7, 0.6 - 0.3])


def test_prefix_score_is_the_mean_of_its_rollouts_and_the_last_is_the_reference_reward():
    assert prefix_scores([[0.2, 0.4], [1.0, 0.0]], 0.9) == pytest.approx([0.3, 0.5, 0.9])
    assert prefix_scores([], 0.7) == [0.7]  # a one-token reference is its own roll-out


def test_policy_loss_weights_reference_log_probabilities_by_returns_and_skips_padding():
    import math

    import torch

    logits = torch.zeros((2, 3, 4))  # uniform over 4 tokens; token 0 (padding) is never output: 1/3 each
    targets = torch.tensor([[1, 2, 0], [3, 0, 0]])
    loss = policy_gradient_loss(logits, targets, [[1.0, 0.5], [2.0]], banned=[0])
    assert float(loss) == pytest.approx(-(math.log(1 / 3) * 1.5 + math.log(1 / 3) * 2.0) / 2)
    logits.requires_grad_(True)
    policy_gradient_loss(logits, targets, [[1.0, 0.5], [2.0]], banned=[0]).backward()
    assert torch.isfinite(logits.grad).all() and not logits.grad[0, 2].any() and not logits.grad[1, 1:].any()


def test_settings_refuse_a_discount_outside_the_unit_interval():
    with pytest.raises(UsageError, match="gamma"):
        RLSettings(gamma=0.0).check()
    with pytest.raises(UsageError, match="rollouts"):
        RLSettings(rollouts=0).check()
    RLSettings().check()
    assert (RLSettings().alpha, RLSettings().beta, RLSettings().delta, RLSettings().rollouts) == (0.4, 0.4, 0.2, 2)


# -- the adversary -------------------------------------------------------------------------


def test_adversary_targets_are_the_oracle_paraphrase_relations_renormalised():
    targets = relation_targets([
        {"equivalence": 0.3, "forward": 0.1, "reverse": 0.1, "contradiction": 0.2, "neutral": 0.1, "invalid": 0.2},
        {"equivalence": 0.0, "forward": 0.0, "reverse": 0.0, "invalid": 1.0},
    ])
    assert targets[0] == pytest.approx([0.6, 0.2, 0.2])
    assert targets[1] is None  # nothing to learn from a pair that is no paraphrase


def test_adversary_penalty_applies_only_when_its_prediction_is_the_asked_relation(tiny_pair_classifier, oracle):
    adversary = HypothesisOnlyClassifier(str(tiny_pair_classifier), seed=1)
    texts = ["how can i learn python", "what is love", "is the sky blue today", "best way to lose weight"]
    guesses = adversary.relation_probabilities(texts)
    assert all(set(g) == {"equivalence", "forward", "reverse"} and sum(g.values()) == pytest.approx(1) for g in guesses)
    evaluator = ErapEvaluator(oracle, similarity=constant_similarity, adversary=adversary)
    for text, guess in zip(texts, guesses):
        predicted = max(guess, key=guess.get)
        for relation in guess:
            (parts,) = evaluator.evaluate([f"source of {text}"], [text], [relation])
            # guessed in a batch of four, judged alone: float32 differs with the batch by ~1e-6
            assert parts.penalty == pytest.approx(guess[relation] if relation == predicted else 0.0, abs=1e-5)


def test_adversary_train_step_lowers_equation_2_loss_on_its_batch(tiny_pair_classifier):
    adversary = HypothesisOnlyClassifier(str(tiny_pair_classifier), learning_rate=1e-3, seed=0)
    texts = ["how can i learn python", "what is love", "is the sky blue today"]
    targets = [{"equivalence": 0.8, "forward": 0.1, "reverse": 0.1},
               {"equivalence": 0.1, "forward": 0.8, "reverse": 0.1},
               {"equivalence": 0.1, "forward": 0.1, "reverse": 0.3, "invalid": 0.5}]
    before = adversary.loss(texts, targets)
    assert adversary.train_step(texts, targets) is not None
    assert adversary.loss(texts, targets) < before
    assert adversary.steps == 1


def test_a_saved_adversary_loads_with_its_weights_and_step_count(tiny_pair_classifier, tmp_path):
    adversary = HypothesisOnlyClassifier(str(tiny_pair_classifier), learning_rate=1e-3)
    adversary.train_step(["what is love"], [{"equivalence": 1.0, "forward": 0.0, "reverse": 0.0}])
    adversary.save(tmp_path / "adversary")
    again = HypothesisOnlyClassifier.load(tmp_path / "adversary")
    texts = ["what is love", "why is the sky blue"]
    assert again.relation_probabilities(texts) == adversary.relation_probabilities(texts)
    assert (again.steps, again.learning_rate) == (1, 1e-3)


# -- one REINFORCE step --------------------------------------------------------------------


class RewardTheReferences:
    """A stub evaluator: reward 1 for the given paraphrases, 0 for anything else."""

    def __init__(self, rewarded):
        self.rewarded = set(rewarded)

    def evaluate(self, sources, candidates, relations):
        return [SimpleNamespace(reward=1.0 if (s, c) in self.rewarded else 0.0) for s, c in zip(sources, candidates)]


def reference_log_probability(model, tokenizer, rows, references):
    """log P(Y^ref | X, R) of each row, summed over its tokens, P being the distribution the
    generator samples from (no control tokens, no padding)."""
    import torch

    banned = [*tokenizer.convert_tokens_to_ids(list(CONTROL_TOKENS.values())), tokenizer.pad_token_id]
    total = []
    with torch.no_grad():
        for (text, relation), ids in zip(rows, references):
            encoded = tokenizer([controlled_input(text, relation)], return_tensors="pt")
            decoder = torch.tensor([[model.config.decoder_start_token_id, *ids[:-1]]])
            logits = model(**encoded, decoder_input_ids=decoder).logits
            logits[..., banned] = float("-inf")
            total.append(float(torch.log_softmax(logits, -1)[0, torch.arange(len(ids)), torch.tensor(ids)].sum()))
    return total


def test_one_step_changes_the_generator_and_raises_the_log_probability_of_a_rewarded_reference(tiny_erap_generator):
    import torch

    from augkit.plugin import load_for_training

    model, tokenizer = load_for_training(str(tiny_erap_generator), "seq2seq", device="cpu")
    model.eval()
    settings = RLSettings(**{**TINY, "gamma": 1.0})
    rows = EXAMPLES[:2]
    references = reference_paraphrases(model, tokenizer, rows, settings)
    evaluator = RewardTheReferences(zip([text for text, _ in rows], references))
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    outcome = reinforce_step(model, tokenizer, rows, evaluator, optimizer, settings, seed=0)

    assert outcome.references == references  # the step's beam search is the reference above
    assert all(row[-1] == 1.0 for row in outcome.scores)  # f_T: the reference's own reward
    assert all(q >= 0 for row in outcome.returns for q in row) and all(row[0] == 1.0 for row in outcome.returns)
    assert outcome.rollouts == settings.rollouts * sum(len(ids) - 1 for ids in outcome.reference_ids)
    assert any(not torch.equal(before[name], p) for name, p in model.named_parameters())
    after = reference_log_probability(model, tokenizer, rows, outcome.reference_ids)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(before[name])
    assert all(a > b for a, b in zip(after, reference_log_probability(model, tokenizer, rows, outcome.reference_ids)))


# -- runs: control tokens, seeding, resumption ---------------------------------------------


def test_fine_tune_refuses_a_generator_without_control_tokens(tiny_t5, oracle, tmp_path):
    with pytest.raises(UsageError, match="augkit train erap --stage pretrain"):
        fine_tune(str(tiny_t5), EXAMPLES, tmp_path / "out", oracle=oracle, similarity=constant_similarity,
                  adversary=None, settings=RLSettings(**TINY, max_steps=1))


def generator_weights(folder):
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def same_weights(first, second):
    import torch

    return first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)


def test_same_seed_same_parameters_and_a_resumed_run_matches_an_uninterrupted_one(
        tiny_erap_generator, tiny_pair_classifier, oracle, tmp_path):
    def run(folder, steps, *, seed=42, resume=False):
        return fine_tune(str(tiny_erap_generator), EXAMPLES, tmp_path / folder, oracle=oracle,
                         similarity=constant_similarity, adversary=str(tiny_pair_classifier),
                         settings=RLSettings(**TINY, max_steps=steps, seed=seed), resume=resume)

    first = run("a", 1)
    assert not same_weights(generator_weights(tmp_path / "a"), generator_weights(tiny_erap_generator))
    with pytest.raises(UsageError, match="--resume"):
        run("a", 2)
    resumed = run("a", 2, resume=True)
    assert (resumed.resumed_from, resumed.steps, len(resumed.history)) == ("checkpoint-1", 2, 2)
    assert resumed.history[0] == first.history[0]

    straight = run("b", 2)  # same seed, no interruption; its checkpoint-1 is its state after one step
    assert same_weights(generator_weights(tmp_path / "a" / "checkpoint-1"), generator_weights(tmp_path / "b" / "checkpoint-1"))
    assert same_weights(generator_weights(tmp_path / "a"), generator_weights(tmp_path / "b"))
    assert [h["reward"] for h in straight.history] == [h["reward"] for h in resumed.history]

    record = json.loads((tmp_path / "a" / "augkit-training.json").read_text())
    assert (record["target"], record["stage"], record["steps"], len(record["rewards"])) == ("erap", "rl", 2, 2)
    assert {"reward", "consistency", "penalty", "similarity", "diversity", "adversary_loss"} <= set(record["rewards"][0])
    assert (tmp_path / "a" / "adversary" / "model.safetensors").is_file()
    assert sorted(p.name for p in (tmp_path / "a").glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]


def test_importing_the_rl_modules_loads_no_model_library(loaded_by_import):
    assert loaded_by_import("augkit_erap.rl,augkit_erap.adversary", ("torch", "transformers")) == []


class AdversaryOnAFullDisk:
    """An adversary whose folder lands on a full disk: its save fails with ENOSPC (written
    through /dev/full), as a checkpoint saved while the disk fills does."""

    def save(self, folder):
        folder.mkdir()
        (folder / "model.safetensors").symlink_to("/dev/full")
        with open(folder / "model.safetensors", "wb") as file:
            file.write(b"\0" * 100_000)


def test_a_checkpoint_that_fails_while_saving_leaves_no_half_checkpoint_and_the_last_one_whole(tiny_erap_generator, tmp_path):
    import torch
    from augkit_erap.rl import _save_checkpoint

    from augkit.plugin import load_for_training

    model, tokenizer = load_for_training(str(tiny_erap_generator), "seq2seq", device="cpu")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    state = {"step": 1, "history": []}
    settings = RLSettings(**TINY)
    _save_checkpoint(tmp_path, 1, model, tokenizer, optimizer, None, state, settings)
    saved = sorted(p.name for p in (tmp_path / "checkpoint-1").iterdir())
    with pytest.raises(OSError):
        _save_checkpoint(tmp_path, 2, model, tokenizer, optimizer, AdversaryOnAFullDisk(), {**state, "step": 2}, settings)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint-1"]  # no partial folder, no checkpoint-2
    assert sorted(p.name for p in (tmp_path / "checkpoint-1").iterdir()) == saved
