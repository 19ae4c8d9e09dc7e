"""paraphrase_faq is an ordinary pipeline (faq_pipeline) read through its trace: the steps,
their order and the augmenter's options that make the trace complete."""

from __future__ import annotations

import random

from augkit_faq import FAQParaphraser
from augkit_faq.faq import EVERY_CANDIDATE, faq_pipeline


class Repeating:
    """Gives each question's candidates: the question again up to case and punctuation, a
    new text, and that text again in upper case."""

    name = "repeating"

    def generate(self, questions, num_return, seeds, *, progress=False):
        self.asked = num_return
        return [[q.lower() + " .", f"{q} please", f"{q.upper()} PLEASE?", ""] for q in questions]


def test_the_faq_pipeline_runs_the_thesis_steps_in_order():
    pipeline = faq_pipeline(Repeating(), n=2, num_return=7, min_similarity=0.75)
    assert pipeline.count_names == (
        "generated", "dedup", "repetition", "negation", "numbers", "entities", "semantic", "label_integrity",
        "top_k", "beyond n")
    assert pipeline.spec == (  # the run around the FAQ pipeline checks protected spans, not the pipeline itself
        "[protected=False] faq(generator='repeating', num_return=7, keep_duplicates=True, refuse_loops=False)"
        "|dedup(ignore_case=True, ignore_final_punctuation=True)|repetition|negation|numbers|entities"
        "|semantic(min=0.75, max=1.0)|label_integrity(own_source=True)|top_k(k=2, weights={'semantic': 1.0})"
    )
    assert faq_pipeline(Repeating(), screens=()).count_names[1:3] == ("dedup", "semantic")


def test_the_faq_augmenter_returns_repeats_for_dedup_to_drop_only_when_asked():
    generator = Repeating()
    keeping = FAQParaphraser(generator=generator, num_return=5, keep_duplicates=True)
    rows = keeping.augment_batch(["How do I pay?"], 1, [random.Random(0)])
    assert generator.asked == 5  # num_return, not the n the pipeline asks for
    assert rows == [["how do i pay? .", "How do I pay? please", "HOW DO I PAY? PLEASE?"]]  # blank dropped
    dropping = FAQParaphraser(generator=generator)
    assert dropping.augment_batch(["How do I pay?"], 3, [random.Random(0)]) == [["How do I pay? please"]]
    assert generator.asked == 3


def test_the_faq_pipeline_drops_repeats_in_its_dedup_step_and_traces_them():
    pipeline = faq_pipeline(Repeating(), screens=(), min_similarity=0.0)
    pipeline.filters = pipeline.filters[:1]  # the duplicate rule alone: no encoder needed
    outcome = pipeline.run_batch(["How do I pay?"], EVERY_CANDIDATE, 0, trace=True)
    assert [(e.candidate, e.dropped_by) for e in outcome.traces[0]] == [
        ("how do i pay? .", "dedup"), ("How do I pay? please", ""), ("HOW DO I PAY? PLEASE?", "dedup")]
