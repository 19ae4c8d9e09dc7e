"""The fluency scorer: mean per-token log-probability under a causal LM as the score
``fluency``, every candidate kept, the model loaded lazily so the step pickles light."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import augkit  # noqa: E402
from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.filters import FluencyScorer  # noqa: E402
from augkit.models import load_causal_lm  # noqa: E402
from augkit.steps.candidate import Candidate  # noqa: E402
from augkit.steps.context import BatchContext  # noqa: E402


def test_fluency_in_a_pipeline_string_scores_every_eda_candidate(tiny_causal_lm, banking77_10shot):
    frame = banking77_10shot.head(12)
    plain = augkit.augment(frame, "eda", n=2, seed=4)
    scored = augkit.augment(frame, f"eda|fluency(model='{tiny_causal_lm}')", n=2, seed=4)
    assert len(scored) == len(plain)  # a scorer keeps every candidate
    augmented = scored[scored["augkit_method"].notna()]
    assert len(augmented) > 0 and augmented["augkit_fluency"].notna().all()
    expected = load_causal_lm(str(tiny_causal_lm), device="cpu").mean_logprob(augmented["text"].tolist())
    assert augmented["augkit_fluency"].tolist() == pytest.approx(expected, abs=1e-5)
    assert (augmented["augkit_fluency"] < 0).all()


def test_fluency_does_not_depend_on_the_batch(tiny_causal_lm, banking77_10shot):
    frame = banking77_10shot.head(20)
    spec = f"eda|fluency(model='{tiny_causal_lm}')"
    big, small = (augkit.augment(frame, spec, n=2, seed=9, batch_size=size) for size in (64, 3))
    assert big["text"].tolist() == small["text"].tolist()
    assert big["augkit_fluency"].tolist() == pytest.approx(small["augkit_fluency"].tolist(), abs=1e-5, nan_ok=True)


def test_the_step_keeps_candidates_and_loads_no_model_until_used(tiny_causal_lm):
    step = FluencyScorer(model=str(tiny_causal_lm))
    assert step.uses_model and step.scores == ("fluency",)
    assert len(pickle.dumps(step)) < 1000  # only its parameters: cheap to send to workers
    rows = [[Candidate("my card was declined"), Candidate("declined card my was")], []]
    kept = step.filter_batch(["my card got declined", "x"], rows, BatchContext())
    assert kept == rows and all("fluency" in c.scores for c in kept[0])
    assert len(pickle.dumps(step)) < 1000


def test_fluency_is_a_registered_step_with_its_default_model():
    registered = augkit.get_registry().filter("fluency")
    assert registered.cls is FluencyScorer and registered.plugin.name == "augkit"
    assert FluencyScorer().model == "gpt2"
    with pytest.raises(InvalidParameterError, match="fluency: model"):
        FluencyScorer(model="")


def test_the_paramac_scale_is_sigmoid_of_4_over_perplexity_minus_a_half(tiny_causal_lm, banking77_10shot):
    import math

    frame = banking77_10shot.head(10)
    raw = augkit.augment(frame, f"eda|fluency(model='{tiny_causal_lm}')", n=2, seed=4)
    scaled = augkit.augment(frame, f"eda|fluency(model='{tiny_causal_lm}', scale='paramac')", n=2, seed=4)
    made = raw["augkit_method"].notna()
    perplexities = [math.exp(-value) for value in raw.loc[made, "augkit_fluency"]]
    expected = [1 / (1 + math.exp(-4 / ppl)) - 0.5 for ppl in perplexities]
    assert scaled.loc[made, "augkit_fluency"].tolist() == pytest.approx(expected, rel=1e-9)
    assert ((scaled.loc[made, "augkit_fluency"] > 0) & (scaled.loc[made, "augkit_fluency"] < 0.5)).all()
    with pytest.raises(InvalidParameterError, match="scale"):
        FluencyScorer(scale="perplexity")
