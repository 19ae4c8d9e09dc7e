"""Bart-uni (ProtAugment's diverse decoding) in the FAQ generator: off by default, ProtAugment's
probability when turned on, the question's own tokens forbidden (not the prompt's), seeded per
question, refused with a method generator, and shown by ``augkit info faq``. On a tiny random
T5 folder, the kind ``augkit train paraphraser`` writes."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from augkit_faq.augmenter import FAQParaphraser  # noqa: E402
from augkit_faq.generators import (  # noqa: E402
    BART_UNI_PROBABILITY,
    Seq2SeqParaphraser,
    resolve_generator,
)
from augkit_faq.prompt import paraphrase_prompt  # noqa: E402

from augkit.plugin import AugkitError, load_seq2seq  # noqa: E402
from augkit.testing import run_command  # noqa: E402


@pytest.fixture(scope="module")
def questions(quora_pairs) -> list[str]:
    return quora_pairs["source"].tolist()[:6]


@pytest.fixture
def generation_calls(tiny_t5, monkeypatch):
    """The options of every runtime ``generate`` call, and the token ids each question's
    candidates were generated from (the model's own sequences, not re-tokenised text)."""
    model = load_seq2seq(str(tiny_t5), device="cpu")
    calls: list[dict] = []
    sequences: list[list[int]] = []
    runtime_generate, model_generate = type(model).generate, model.model.generate

    def spy_runtime(self, texts, **options):
        calls.append({"texts": list(texts), **options})
        return runtime_generate(self, texts, **options)

    def spy_model(*args, **kwargs):
        output = model_generate(*args, **kwargs)
        sequences.extend(output.tolist())
        return output

    monkeypatch.setattr(type(model), "generate", spy_runtime)
    monkeypatch.setattr(model.model, "generate", spy_model)
    return model, calls, sequences


def test_off_by_default_and_protaugments_probability_when_on(tiny_t5, generation_calls, questions):
    model, calls, _ = generation_calls
    assert BART_UNI_PROBABILITY == 0.7  # ProtAugment's p_mask (see generators.py)
    defaults = FAQParaphraser(generator=str(tiny_t5), max_new_tokens=8, device="cpu")
    assert (defaults.forbid_source_unigrams, defaults.forbid_probability) == (False, 0.7)
    defaults.augment_batch(questions[:1], 2, [random.Random(0)])
    assert calls[-1]["forbid_source_unigrams"] == 0.0
    FAQParaphraser(generator=str(tiny_t5), max_new_tokens=8, device="cpu", forbid_source_unigrams=True).augment_batch(
        questions[:1], 2, [random.Random(0)])
    assert calls[-1]["forbid_source_unigrams"] == 0.7


def test_the_questions_own_tokens_are_forbidden_not_the_prompts(tiny_t5, generation_calls, questions):
    model, calls, sequences = generation_calls
    paraphraser = Seq2SeqParaphraser(str(tiny_t5), max_new_tokens=10, device="cpu", forbid_source_unigrams=True, forbid_probability=1.0)
    candidates = paraphraser.generate(questions, 4, list(range(len(questions))))
    assert all(len(row) == 4 for row in candidates)
    assert calls[-1]["texts"] == [paraphrase_prompt(q) for q in questions] and calls[-1]["unigram_sources"] == questions
    forbidden = model.forbidden_unigrams(questions, 1.0)
    # sampling decodes one question at a time, in input order: its 4 candidates follow each other
    for i, banned in enumerate(forbidden):
        for output in sequences[i * 4:(i + 1) * 4]:
            assert not set(output) & set(banned)
    prompt_only = set(model.forbidden_unigrams([paraphrase_prompt("")], 1.0)[0]) - {t for b in forbidden for t in b}
    assert prompt_only  # "paraphrase" and ":" stay allowed


def test_candidates_depend_only_on_the_question_and_its_seed(tiny_t5, questions):
    paraphraser = Seq2SeqParaphraser(str(tiny_t5), max_new_tokens=10, device="cpu", forbid_source_unigrams=True)
    seeds = list(range(50, 50 + len(questions)))
    together = paraphraser.generate(questions, 4, seeds)
    assert together == [paraphraser.generate([q], 4, [s])[0] for q, s in zip(questions, seeds)]
    assert together == paraphraser.generate(questions[::-1], 4, seeds[::-1])[::-1]
    plain = Seq2SeqParaphraser(str(tiny_t5), max_new_tokens=10, device="cpu").generate(questions, 4, seeds)
    assert together != plain


def test_it_composes_in_a_pipeline_string(tiny_t5, questions):
    import augkit

    spec = f"faq(generator='{tiny_t5}', max_new_tokens=8, device=cpu, forbid_source_unigrams=true, forbid_probability=1.0)"
    out = augkit.augment(questions[:3], spec, n=2, seed=0)
    assert len(out) >= 3


@pytest.mark.parametrize("bad", [-0.1, 1.5, "x", True, float("nan")])
def test_a_bad_probability_is_refused_by_name(tiny_t5, bad):
    with pytest.raises(AugkitError, match=r"forbid_probability must be a probability between 0 and 1.*got"):
        Seq2SeqParaphraser(str(tiny_t5), forbid_source_unigrams=True, forbid_probability=bad)
    with pytest.raises(AugkitError, match="forbid_probability"):
        FAQParaphraser(generator=str(tiny_t5), forbid_source_unigrams=True, forbid_probability=bad)


def test_a_switch_that_is_not_a_bool_is_refused(tiny_t5):
    import augkit

    with pytest.raises(AugkitError, match="forbid_source_unigrams must be True or False, got 0.7"):
        Seq2SeqParaphraser(str(tiny_t5), forbid_source_unigrams=0.7)
    with pytest.raises(AugkitError, match="forbid_source_unigrams must be True or False"):
        augkit.augment(["Where is my card?"], f"faq(generator='{tiny_t5}', forbid_source_unigrams=maybe)", n=1, seed=0)


def test_a_method_generator_cannot_forbid_tokens():
    with pytest.raises(AugkitError, match="forbid_source_unigrams .Bart-uni. needs a seq2seq model generator, but 'eda'"):
        FAQParaphraser(generator="eda", forbid_source_unigrams=True)
    with pytest.raises(AugkitError, match="needs a seq2seq model generator"):
        resolve_generator("method:eda", forbid_source_unigrams=True)
    with pytest.raises(AugkitError, match="give it to the generator object"):
        resolve_generator(Seq2SeqParaphraser("some/model"), forbid_source_unigrams=True)
    assert FAQParaphraser(generator="eda").forbid_source_unigrams is False  # off: any generator


def test_augkit_info_shows_both_parameters(capsys):
    assert run_command(["info", "faq"]) == 0
    shown = capsys.readouterr().out
    assert "forbid_source_unigrams: bool = False" in shown and "Bart-uni" in shown
    assert "forbid_probability: float = 0.7" in shown and "ProtAugment's" in shown


def test_augkit_faq_takes_the_flag_with_protaugments_probability_by_default(tiny_t5, generation_calls, questions, tmp_path, capsys):
    import pandas as pd

    _, calls, _ = generation_calls
    faq = tmp_path / "faq.csv"
    pd.DataFrame({"q": questions[:3], "a": ["an answer"] * 3}).to_csv(faq, index=False)
    assert run_command(["faq", str(faq), "-q", "q", "-a", "a", "-g", str(tiny_t5), "-o", str(tmp_path / "out.csv"),
                 "--max-new-tokens", "8", "--forbid-source-unigrams", "--screens", "none"]) == 0
    assert calls[-1]["forbid_source_unigrams"] == BART_UNI_PROBABILITY
    assert run_command(["faq", str(faq), "-q", "q", "-a", "a", "-g", str(tiny_t5), "-o", str(tmp_path / "out2.csv"),
                 "--forbid-source-unigrams", "1.5"]) == 2
    assert "forbid_source_unigrams must be a probability" in capsys.readouterr().err
    assert run_command(["faq", str(faq), "-q", "q", "-a", "a", "-g", "method:eda", "-o", str(tmp_path / "out3.csv"),
                 "--forbid-source-unigrams", "0.5"]) == 2
