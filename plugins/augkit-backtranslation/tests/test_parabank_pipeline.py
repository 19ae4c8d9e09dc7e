"""build_parabank's per-sentence recipe is an ordinary pipeline (parabank_pipeline) whose
trace gives the counts: the steps, their trace names, and pivots looked up per sentence."""

from __future__ import annotations

from augkit_backtranslation.parabank import build_parabank, parabank_pipeline
from augkit_backtranslation.parabank_steps import counted_steps

from augkit.plugin import GenerationResult


class ByPivot:
    """Generates the listed candidates of each pivot; cannot score."""

    def __init__(self, outputs):
        self.outputs = outputs

    def generate(self, texts, *, num_beams, num_return, **options):
        return GenerationResult([self.outputs[text][:num_return] for text in texts])


class Scoring(ByPivot):
    def score(self, sources, targets, **options):
        raise AssertionError("not called by this test")


def test_the_steps_and_their_trace_names_are_the_count_keys():
    pipeline, _ = parabank_pipeline(Scoring({}), Scoring({}), k=3, wrong_script="Latin")
    names = pipeline.count_names
    assert names == ("generated", "wrong_script", "dedup", "dedup#2", "edit_ratio", "dual_score", "top_k", "beyond n")
    assert counted_steps(pipeline) == {"wrong_script": "wrong_script", "copies": "dedup", "duplicates": "dedup#2",
                                       "edit_ratio": "edit_ratio"}
    unscored, _ = parabank_pipeline(ByPivot({}), None, k=3)
    assert unscored.count_names == ("generated", "dedup", "dedup#2", "edit_ratio", "beyond n")
    assert counted_steps(unscored) == {"copies": "dedup", "duplicates": "dedup#2", "edit_ratio": "edit_ratio"}


def test_a_sentence_given_twice_with_different_translations_is_paraphrased_from_each():
    model = ByPivot({"x": ["my card was lost", "MY CARD IS LOST", "my card is lost"], "y": ["i have lost my card", ""]})
    result = build_parabank(["My card is lost", "My card is lost"], ["x", "y"], to_language_model=model,
                            from_language_model=model, k=3)
    assert [(p.row, p.paraphrase, p.translation) for p in result.pairs] == [
        (0, "my card was lost", "x"), (1, "i have lost my card", "y")]
    counts = result.counts
    assert (counts["candidates"], counts["copies"], counts["blank"], counts["rows_with_survivor"]) == (5, 2, 1, 2)
