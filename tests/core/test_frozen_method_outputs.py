"""Every built-in method's exact outputs, and a few pipelines' that drop and rank, frozen at
commit 68a6199, before the core was laid out by job (issue 36): the redesign must change no
output for the same seed.

Each run goes through :func:`augkit.augment_with_report` on nine CLINC150 validation rows
(a question, a name, an amount, a time, a negation, two words...) and two BANKING77
validation rows of three sentences, with seed 0, n=2 and the
tiny models, scripted chat server and nlpaug models of the conftest
(:data:`conftest.BUILT_IN_METHODS`). Saved per run: the output table's columns and rows
(text, label, ``augkit_source``, ``augkit_method``), and its trace: every candidate with its
generator and its fate (``kept``, ``none``, or the name of the step that dropped it). Not
saved: the trace's free-text reasons and the summary's wording, which the redesign may
improve, and score values (their rounding is not an output; what they decide is).

The expected file was written by running this module as a script at commit 68a6199 (it runs
this module's tests under pytest, which builds the tiny models, and writes what they got)::

    AUGKIT_SHARED_DATA=/path/to/shared/data NLTK_DATA=.cache/nltk_data \\
        .venv/bin/python tests/core/test_frozen_method_outputs.py

Do not write it again during the redesign: a difference is an output the redesign changed.
A method added later gets its outputs frozen when it lands, the others left as they are::

    AUGKIT_ADD_FROZEN_METHOD_OUTPUTS=1 NLTK_DATA=.cache/nltk_data \\
        .venv/bin/python -m pytest tests/core/test_frozen_method_outputs.py -k contextual

(``contextual``, issue 38, was added so.)
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

if __name__ == "__main__":  # run as a script: the repository's root holds the conftest
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import augkit
from conftest import (
    BUILT_IN_METHODS,
    SLOW_METHODS,
    read_lines,
    registered_built_in_methods,
)

EXPECTED = Path(__file__).parents[1] / "fixtures" / "frozen_method_outputs.json"
#: Set by the script mode: the tests record what they got instead of comparing.
WRITE_VARIABLE = "AUGKIT_WRITE_FROZEN_METHOD_OUTPUTS"
#: Set to add the runs the saved file lacks (a method added later), leaving every other as saved.
ADD_VARIABLE = "AUGKIT_ADD_FROZEN_METHOD_OUTPUTS"
#: Lines of CLINC150's validation split (0-based): a translation question, a credit card,
#: "don't know", Delta's carry-on policy, a text to Bob, a visa, "don't talk anymore", a
#: table for 3 at 8 pm under a name, and 100 dollars in euros.
ROWS = [6, 306, 456, 1206, 2556, 2706, 2256, 482, 1740]
#: Lines of BANKING77's validation split (0-based) of three sentences each: what nlpaug's
#: sentence mover moves (CLINC150's texts are one sentence each).
MULTI_SENTENCE_ROWS = [3, 29]
SEED, N = 0, 2
#: The output columns saved beside the list of columns: the others hold scores.
SAVED_COLUMNS = ("text", "label", "augkit_source", "augkit_method")


def _transformers_round_trip(get: Callable[[str], Any]) -> dict:
    forward, _ = get("tiny_marian_pair")  # root/en-xx and root/xx-en
    return {"engine": "transformers", "pivots": "xx", "forward_model": str(forward.parent / "en-{pivot}"),
            "backward_model": str(forward.parent / "{pivot}-en"), "num_return": 2, "device": "cpu"}


#: Runs beyond each built-in method on its own: name -> (method or pipeline, parameters from
#: the fixtures, keywords of the run).
RUNS: dict[str, tuple[str, Callable[[Callable[[str], Any]], dict], dict]] = {
    "backtranslation (transformers engine)": ("backtranslation", _transformers_round_trip, {}),
    # the random models loop on most rows, and the tiny oracle finds no equivalence: these
    # let their candidates through, so the guard sees outputs of theirs and not only reasons
    "backtranslation (transformers engine, loops kept)": (
        "backtranslation", lambda get: {**_transformers_round_trip(get), "refuse_loops": False}, {}),
    "pointer (loops kept)": ("pointer", lambda get: {**BUILT_IN_METHODS["pointer"](get), "refuse_loops": False}, {}),
    "erap (any relation)": ("erap", lambda get: {**BUILT_IN_METHODS["erap"](get), "require_relation": False}, {}),
    "label-safe recipe": ("eda|negation|numbers|entities|question|semantic|label_integrity", lambda get: {}, {}),
    "label-safe back-translation": (
        "backtranslation|negation|numbers|entities|question|semantic(max=1.0)|label_integrity(own_source=True)",
        lambda get: {}, {}),
    "scores and rank": ("eda+aeda|semantic(drop=false)|diversity|rank(semantic=4, diversity=1.2)", lambda get: {}, {}),
    "semantic and top_k": ("eda|semantic|top_k", lambda get: {}, {}),
    # EDA never edits a protected span; the keyboard's typos do, and the protected step drops them
    "dedup, edit ratio and protected spans": (
        "eda(alpha_sr=0.05,alpha_ri=0.05,alpha_rs=0.05,p_rd=0.05)+nlpaug.keyboard|dedup(ignore_case=True)|edit_ratio(min=0.1)",
        lambda get: {}, {"protect": ["credit card", "carry on"]}),
}
ALL_RUNS = {**{name: (name, setup, {}) for name, setup in BUILT_IN_METHODS.items()}, **RUNS}


@pytest.fixture(scope="module")
def rows(shared_data) -> pd.DataFrame:
    frames = []
    for dataset, lines in (("clinc150", ROWS), ("banking77", MULTI_SENTENCE_ROWS)):
        folder = shared_data / dataset / "jianguoz" / "valid"
        texts, labels = read_lines(folder / "seq.in"), read_lines(folder / "label")
        frames.append(pd.DataFrame({"text": [texts[i] for i in lines], "label": [labels[i] for i in lines]}))
    return pd.concat(frames, ignore_index=True)


def _plain(value: Any) -> Any:
    """A cell as JSON holds it: NaN as null, numpy numbers as Python numbers."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value.item() if hasattr(value, "item") else value


def run_outputs(rows: pd.DataFrame, method: str, params: dict, keywords: dict) -> dict:
    """One run's output columns, saved rows and trace (source, generator, candidate, fate)."""
    out, report = augkit.augment_with_report(rows, method, n=N, seed=SEED, label_column="label", trace=True,
                                             **keywords, **params)
    saved = [column for column in SAVED_COLUMNS if column in out.columns]
    return {
        "columns": list(out.columns),
        "rows": [[_plain(value) for value in row] for row in out[saved].itertuples(index=False)],
        "trace": [[_plain(entry.source), entry.method, entry.candidate, entry.dropped_by or entry.fate]
                  for entry in report.trace],
    }


@pytest.fixture(scope="module")
def frozen():
    """The saved outputs; in the script mode, a dict the tests fill, written when all ran."""
    saved = json.loads(EXPECTED.read_text(encoding="utf-8"))
    if os.environ.get(ADD_VARIABLE):
        added: dict[str, dict] = {}
        yield added
        saved.update({name: run for name, run in added.items() if name not in saved})
        EXPECTED.write_text(json.dumps({name: saved[name] for name in ALL_RUNS if name in saved}, ensure_ascii=False,
                                       indent=1) + "\n", encoding="utf-8")
        return
    if not os.environ.get(WRITE_VARIABLE):
        yield saved
        return
    written: dict[str, dict] = {}
    yield written
    if written.keys() == ALL_RUNS.keys():
        EXPECTED.write_text(json.dumps({name: written[name] for name in ALL_RUNS}, ensure_ascii=False, indent=1) + "\n",
                            encoding="utf-8")


def test_every_built_in_method_has_frozen_outputs(frozen):
    if not os.environ.get(WRITE_VARIABLE):
        assert frozen.keys() == ALL_RUNS.keys()
    assert registered_built_in_methods() == set(BUILT_IN_METHODS)


@pytest.mark.parametrize("run", [
    pytest.param(name, marks=pytest.mark.slow) if name in SLOW_METHODS else name for name in ALL_RUNS])
def test_a_run_gives_the_outputs_frozen_at_68a6199(run, rows, frozen, request):
    method, setup, keywords = ALL_RUNS[run]
    actual = run_outputs(rows, method, setup(request.getfixturevalue), keywords)
    if os.environ.get(WRITE_VARIABLE) or os.environ.get(ADD_VARIABLE):
        frozen[run] = actual
        return
    expected = frozen[run]
    assert actual["columns"] == expected["columns"]
    assert actual["rows"] == expected["rows"]
    assert actual["trace"] == expected["trace"]


if __name__ == "__main__":
    os.environ[WRITE_VARIABLE] = "1"
    done = pytest.main([__file__, "-q", "-p", "no:randomly", "-p", "no:cacheprovider"])
    print(f"wrote {EXPECTED}" if done == 0 else f"not written: a run failed (pytest exit {done})")
    sys.exit(done)
