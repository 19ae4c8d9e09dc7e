"""The generators: a seq2seq paraphraser sampled with the thesis' settings (on a tiny random
Marian model: the mechanics, not the quality), augkit methods, and how a name is resolved."""

from __future__ import annotations

import pytest
from augkit_faq.augmenter import FAQParaphraser
from augkit_faq.generators import (
    DEFAULT_GENERATOR,
    MethodParaphraser,
    Seq2SeqParaphraser,
    resolve_generator,
)

from augkit.plugin import AugkitError


@pytest.fixture(scope="module")
def questions(banking77_sentences) -> list[str]:
    return list(dict.fromkeys(banking77_sentences))[:6]


@pytest.fixture(scope="module")
def paraphraser(tiny_marian_pair) -> Seq2SeqParaphraser:
    return Seq2SeqParaphraser(str(tiny_marian_pair[0]), max_new_tokens=12, device="cpu")


def test_samples_depend_only_on_the_question_and_its_seed(paraphraser, questions):
    seeds = list(range(100, 100 + len(questions)))
    together = paraphraser.generate(questions, 5, seeds)
    alone = [paraphraser.generate([q], 5, [s])[0] for q, s in zip(questions, seeds)]
    backwards = paraphraser.generate(questions[::-1], 5, seeds[::-1])[::-1]
    assert together == alone == backwards
    assert all(len(row) == 5 for row in together)
    assert paraphraser.generate(questions[:1], 5, [7]) != paraphraser.generate(questions[:1], 5, [8])


def test_the_ctranslate2_runtime_samples_by_each_questions_seed(tiny_t5, questions, tmp_path, monkeypatch):
    """The thesis' T5 recipe on CTranslate2 (a tiny random T5 here): seeded as on torch."""
    from augkit.plugin import clear_model_cache

    monkeypatch.setenv("AUGKIT_CACHE_DIR", str(tmp_path))
    clear_model_cache()
    converted = FAQParaphraser(str(tiny_t5), max_new_tokens=10, device="cpu", runtime="ctranslate2", compute_type="float32")
    seeds = list(range(100, 100 + len(questions)))
    together = converted._generator.generate(questions, 4, seeds)
    assert together == converted._generator.generate(questions[::-1], 4, seeds[::-1])[::-1]
    assert together != converted._generator.generate(questions, 4, [s + 1 for s in seeds])
    assert any(len(set(row)) > 1 for row in together)
    assert len(list((tmp_path / "ctranslate2").iterdir())) == 1, "converted once, into the cache"
    with pytest.raises(AugkitError, match="runtime='ctranslate2' runs a seq2seq model generator"):
        resolve_generator("backtranslation", runtime="ctranslate2")
    with pytest.raises(AugkitError, match="runtime must be one of transformers, ctranslate2"):
        Seq2SeqParaphraser(str(tiny_t5), runtime="onnx")


def test_top_k_is_applied(tiny_marian_pair, questions):
    greedy = Seq2SeqParaphraser(str(tiny_marian_pair[0]), top_k=1, max_new_tokens=12, device="cpu")
    wide = Seq2SeqParaphraser(str(tiny_marian_pair[0]), top_k=120, top_p=1.0, max_new_tokens=12, device="cpu")
    assert all(len(set(row)) == 1 for row in greedy.generate(questions, 6, [1] * len(questions)))
    assert any(len(set(row)) > 1 for row in wide.generate(questions, 6, [1] * len(questions)))


def test_the_prompt_is_the_thesis_format(tiny_marian_pair, monkeypatch):
    from augkit.plugin import load_seq2seq

    model = load_seq2seq(str(tiny_marian_pair[0]), device="cpu")
    seen = {}
    original = type(model).generate

    def spy(self, texts, **options):
        seen["texts"], seen["options"] = list(texts), options
        return original(self, texts, **options)

    monkeypatch.setattr(type(model), "generate", spy)
    defaults = Seq2SeqParaphraser(str(tiny_marian_pair[0]), device="cpu")
    assert (defaults.top_k, defaults.top_p, defaults.max_new_tokens) == (120, 0.98, 256)  # the thesis' Figure 3.5.1
    Seq2SeqParaphraser(str(tiny_marian_pair[0]), max_new_tokens=16, device="cpu").generate(["Where is my card?"], 3, [0])
    assert seen["texts"] == ["paraphrase: Where is my card? </s>"]
    options = seen["options"]
    assert (options["do_sample"], options["top_k"], options["top_p"], options["max_new_tokens"], options["num_return"]) == (True, 120, 0.98, 16, 3)


def test_names_resolve_to_methods_or_models(tmp_path, tiny_marian_pair):
    assert isinstance(resolve_generator("backtranslation"), MethodParaphraser)
    assert isinstance(resolve_generator("backtranslation+eda"), MethodParaphraser)
    assert isinstance(resolve_generator(DEFAULT_GENERATOR), Seq2SeqParaphraser)
    assert isinstance(resolve_generator(str(tiny_marian_pair[0])), Seq2SeqParaphraser)
    assert isinstance(resolve_generator("model:eda"), Seq2SeqParaphraser)
    (tmp_path / "eda").mkdir()
    assert isinstance(resolve_generator(str(tmp_path / "eda")), Seq2SeqParaphraser)
    with pytest.raises(AugkitError, match="unknown method"):
        resolve_generator("method:edaa")
    with pytest.raises(AugkitError, match="top_k must be"):
        resolve_generator(DEFAULT_GENERATOR, top_k=-1)


def test_a_model_that_is_not_available_says_how_to_provide_it(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(AugkitError, match="AUGKIT_MODEL_DIR") as caught:
        Seq2SeqParaphraser("augkit-tests/no-such-paraphraser@v2", device="cpu").generate(["Where is my card?"], 2, [0])
    assert "hf download augkit-tests/no-such-paraphraser --revision v2 --local-dir models/augkit-tests/no-such-paraphraser" in str(caught.value)
    assert "generator='backtranslation'" in str(caught.value)


def test_method_generator_is_seeded_per_question(questions):
    generator = MethodParaphraser("eda")
    seeds = [5] * len(questions)
    assert generator.generate(questions, 3, seeds) == [generator.generate([q], 3, [5])[0] for q in questions]
    assert all(1 <= len(row) <= 3 for row in generator.generate(questions, 3, seeds))


def test_faq_method_in_a_pipeline_keeps_domain_terms(covid_faq):
    import augkit

    faq = covid_faq.iloc[50:60]
    out = augkit.augment(faq, FAQParaphraser(generator="eda"), n=3, seed=0, text_column="question")
    added = out[out["augkit_method"] == "faq"]
    assert len(added) > 0
    ppe = added[added["augkit_source"] == faq.index[faq["question"].str.contains(r"\(PPE\)")][0]]
    for text in ppe["question"]:  # EDA never saw the long form, so it could not rewrite it
        if "PPE" in text:
            assert "personal protective equipment (PPE)" in text
