"""augkit.metrics.perplexity on a tiny GPT-2 built on the fly, checked against the model's
own log-probabilities; the error for a model that is not there."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from augkit.errors import ModelNotAvailableError
from augkit.metrics import geometric_mean, geometric_std, load_causal_lm, perplexity

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def hand_perplexity(folder, text: str) -> float:
    """exp(mean NLL) of the text's tokens after <|endoftext|>, from the raw logits."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = [tokenizer.bos_token_id] + tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    log_probs = torch.log_softmax(logits, dim=-1)
    nll = [-log_probs[t, ids[t + 1]].item() for t in range(len(ids) - 1)]
    return math.exp(sum(nll) / len(nll))


def test_perplexity_is_exp_of_mean_token_nll(tiny_causal_lm, banking77_sentences):
    texts = banking77_sentences[:5]
    got = perplexity(texts, str(tiny_causal_lm))
    assert got.dtype == np.float64 and got.shape == (5,)
    for text, value in zip(texts, got):
        assert value == pytest.approx(hand_perplexity(tiny_causal_lm, text), rel=1e-4)


def test_batching_and_padding_do_not_change_values(tiny_causal_lm, banking77_sentences):
    texts = banking77_sentences[:40]  # lengths vary, so batches of 8 are padded
    one = perplexity(texts, str(tiny_causal_lm), batch_size=1)
    eight = perplexity(texts, str(tiny_causal_lm), batch_size=8)
    np.testing.assert_allclose(eight, one, rtol=1e-4)
    assert np.isfinite(one).all()


def test_unscorable_and_overlong_texts(tiny_causal_lm):
    long_text = "what is the exchange rate for euros " * 30  # far past the 64 positions
    got = perplexity(["", long_text, "card"], str(tiny_causal_lm))
    assert math.isnan(got[0]) and np.isfinite(got[1:]).all()
    no_start = perplexity(["card"], str(tiny_causal_lm), add_start_token=False)
    tokens = transformers.AutoTokenizer.from_pretrained(tiny_causal_lm)("card")["input_ids"]
    assert math.isnan(no_start[0]) == (len(tokens) < 2)
    assert perplexity([], str(tiny_causal_lm)).shape == (0,)


def test_model_is_loaded_once_per_process(tiny_causal_lm):
    first, second = load_causal_lm(str(tiny_causal_lm), "cpu"), load_causal_lm(str(tiny_causal_lm), "cpu")
    assert first[0] is second[0] and first[1] is second[1]


def test_missing_directory_names_the_model_and_what_a_directory_needs(tmp_path):
    missing = tmp_path / "no-model-here"
    with pytest.raises(ModelNotAvailableError) as caught:
        perplexity(["I lost my card"], str(missing))
    message = str(caught.value)
    assert str(missing) in message and "model.safetensors" in message
    assert isinstance(caught.value, OSError)


def test_unknown_model_id_offline_says_how_to_provide_it():
    code = (
        "from augkit.metrics import perplexity\n"
        "try:\n"
        "    perplexity(['hello there'], 'augkit-tests/no-such-model')\n"
        "except Exception as error:\n"
        "    print(type(error).__name__); print(error)\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False)
    lines = done.stdout.splitlines()
    assert lines[0] == "ModelNotAvailableError", done.stdout + done.stderr
    assert "'augkit-tests/no-such-model'" in lines[1]
    assert any("local directory" in line for line in lines) and any("HF_HOME" in line for line in lines)


def test_geometric_mean_and_std():
    assert geometric_mean([1.0, 100.0]) == pytest.approx(10.0)
    assert geometric_mean([4.0, float("nan"), 9.0]) == pytest.approx(6.0)
    assert geometric_std([7.0, 7.0]) == pytest.approx(1.0)
    assert geometric_std([1.0, 100.0]) == pytest.approx(10.0)  # std of (0, ln 100) is ln 10
    with pytest.raises(ValueError):
        geometric_mean([float("nan")])
    with pytest.raises(ValueError):
        geometric_mean([0.0, 2.0])
