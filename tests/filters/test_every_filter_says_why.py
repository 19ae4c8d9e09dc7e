"""Every filter says why it dropped each candidate (issue 36): each filter of the registry runs
in a traced pipeline on real rows where it drops something, and every dropped entry of the
trace carries a reason naming the value and the parameter it broke ("semantic similarity 0.41
below min=0.9", "rank 5 of 7 beyond k=1"). A filter registered without a case here fails
:func:`test_every_registered_filter_has_a_case`, so a new one is covered as soon as it exists.

The rows are read by no other test: TREC's test questions (with their case, for the names and
question marks), every 50th row of CLINC150's validation split (its numbers and "can you"
requests) and its first 40 rows that hold a negation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import augkit
from augkit.filters.scorer import Scorer
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.run import BEYOND_N
from augkit.registry.discovery import get_registry

#: Rows of each data set a case runs on.
TREC_QUESTIONS = 60
CLINC_STRIDE = 50
NEGATED_ROWS = 40
#: What makes a CLINC150 row one the ``negation`` case runs on.
NEGATED = re.compile(r"\b(not|no|never|nothing)\b|n't\b")


@dataclass(frozen=True)
class Case:
    """A pipeline (``{encoder}`` and ``{nli}`` stand for the conftest's tiny models, ``{llm}``
    for a scripted chat server's URL) run on
    ``data`` with ``n``, in which the filter drops candidates whose reasons all match
    ``reason``."""

    spec: str
    data: str
    reason: str
    n: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    oversample: float | None = None


#: One case per filter that drops; the scorers drop nothing (see the coverage test).
CASES = {
    # two EDAs with the same options repeat each other's rewrites
    "dedup": Case("eda+eda", "clinc", r"duplicate of (the source|an earlier candidate)", n=8),
    # nlpaug's random deletion knows nothing of protected spans
    "protected": Case("nlpaug.random_word(action='delete')", "trec", r"protected span lost: '.+' \(\w+\)",
                      options={"protect": ["What"]}),
    "semantic": Case("eda|semantic(min=0.9, max=0.999, model={encoder!r})", "clinc",
                     r"semantic similarity -?\d\.\d+ (below min=0\.9|above max=0\.999)"),
    "label_integrity": Case("eda|label_integrity(min=0.01, model={encoder!r})", "clinc",
                            r"margin -?\d\.\d+ below min=0\.01: nearer to the original (['\"]).+\1, labelled '\w+', "
                            r"than to any of its own label"),
    "entailment": Case("eda|entailment(model={nli!r})", "clinc",
                       r"NLI relation '\w+' not in keep=equivalence"),
    # erap's re-ranking step (augkit-erap): the tiny oracle judges most rewrites not equivalent
    "erap_relation": Case("eda|erap_relation(oracle={nli!r}, similarity_model={encoder!r}, device='cpu')", "clinc",
                          r"judged '\w+' by the oracle, not 'equivalence' \(require_relation=false keeps it\)"),
    # llm_check (augkit-llm), asking a scripted server that always answers the last label listed
    "llm_check": Case("eda|llm_check(base_url={llm!r}, model='scripted', cache=False, nearest_labels=2)", "trec",
                      r"the model classed it as '.+', not '.+'", n=1),
    # pvi and consistency train on TREC's own questions (cross-fitted), with TF-IDF features
    "pvi": Case("eda|pvi(classifier='tfidf')", "trec",
                r"PVI -?\d+\.\d\d bits below -?\d+\.\d\d, quantile=0\.1 of the PVIs of the originals \(cross-fitted\) "
                r"of (label '.+'|all labels)"),
    "consistency": Case("eda|consistency(classifier='tfidf')", "trec",
                        r"label margin -?\d\.\d+ below min=0: the originals' classifier gives '.+' \d\.\d\d, '.+' \d\.\d\d"),
    "length": Case("eda|length(min=0.95, max=1.05)", "clinc",
                   r"length ratio \d\.\d+ (below min=0\.95|above max=1\.05) \(\d+ words for the source's \d+\)"),
    "edit_ratio": Case("eda|edit_ratio(min=0.3)", "clinc", r"char edit ratio \d\.\d+ below min=0\.3"),
    "top_k": Case("eda|length(min=0, max=9)|top_k(k=1)", "clinc", r"rank [2-4] of [2-4] beyond k=1"),
    "rank": Case("eda|length(min=0, max=9)|rank(k=1, length_ratio=1)", "clinc", r"rank [2-4] of [2-4] beyond k=1"),
    "negation": Case("eda(p_rd=0.3)|negation", "clinc negated", r"negation (lost|added): .+"),
    "numbers": Case("eda|numbers", "clinc", r"(number|time|number or time|date) (lost|added|changed): .+", n=8),
    "entities": Case("eda|entities", "trec", r"entity lost: '.+'", n=8),
    "question": Case("nlpaug.random_word(action='swap')|question", "clinc", r"question turned into a statement: .+"),
    "repetition": Case("eda|repetition", "trec", r"repetition loop: .+", n=8),
    # EDA's rewrites are mostly near-copies of their source at the default rouge_l=0.6
    "near_duplicates": Case("eda|near_duplicates", "clinc",
                            r"Rouge-L \d\.\d+ >= rouge_l=0\.6 with (the original|the output kept earlier for row \d+:) "
                            r"(['\"]).+\2"),
}
#: The cut beyond ``n`` of a pipeline that oversamples.
BEYOND_N_CASE = Case("eda", "clinc", r"place [34] of [34] beyond n=2", n=2, oversample=2.0)


@pytest.fixture(scope="module")
def data(shared_data: Path) -> dict[str, pd.DataFrame]:
    lines = (shared_data / "trec" / "sent-conv-torch" / "TREC.test.all").read_text(encoding="utf-8").splitlines()
    labels, texts = zip(*(line.split(" ", 1) for line in lines[:TREC_QUESTIONS]))
    folder = shared_data / "clinc150" / "jianguoz" / "valid"
    clinc_texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()[::CLINC_STRIDE]
    clinc_labels = (folder / "label").read_text(encoding="utf-8").splitlines()[::CLINC_STRIDE]
    all_clinc = zip((folder / "seq.in").read_text(encoding="utf-8").splitlines(),
                    (folder / "label").read_text(encoding="utf-8").splitlines())
    negated = [row for row in all_clinc if NEGATED.search(row[0])][:NEGATED_ROWS]
    return {"trec": pd.DataFrame({"text": texts, "label": labels}),
            "clinc": pd.DataFrame({"text": clinc_texts, "label": clinc_labels}),
            "clinc negated": pd.DataFrame(negated, columns=["text", "label"])}


def _traced(case: Case, frame: pd.DataFrame, request: pytest.FixtureRequest) -> pd.DataFrame:
    models = {name: str(request.getfixturevalue(fixture)) for name, fixture in (("encoder", "tiny_encoder_dir"),
                                                                          ("nli", "tiny_pair_classifier"))
              if "{" + name in case.spec}
    if "{llm" in case.spec:
        models["llm"] = request.getfixturevalue("scripted_llm_server")(_last_label_listed).base_url
    spec = case.spec.format(**models)
    method = Pipeline.from_string(spec, oversample=case.oversample) if case.oversample else spec
    _, trace = augkit.augment(frame, method, n=case.n, seed=36, label_column="label", trace=True, **case.options)
    return trace


def _last_label_listed(request: dict):
    """A chat server's answer to ``llm_check``: the last label its request lists."""
    from augkit.testing.scripted_chat import reply

    listed = request["messages"][-1]["content"].split("Labels:\n", 1)[1].split("\nText: ", 1)[0]
    return reply(listed.splitlines()[-1][2:])


def _assert_every_drop_says_why(trace: pd.DataFrame, step: str, pattern: str) -> None:
    dropped = trace[trace.fate == "dropped"]
    silent = dropped[dropped.reason == ""]
    assert silent.empty, f"drops without a reason: {silent[['dropped_by', 'candidate']].head().to_dict('records')}"
    own = dropped[dropped.dropped_by == step]
    assert len(own) > 0, f"{step!r} dropped nothing here: the case no longer exercises it"
    unlike = [reason for reason in own.reason if not re.fullmatch(pattern, reason)]
    assert not unlike, f"{step!r} gave reasons not of the form {pattern!r}: {unlike[:3]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_candidate_a_filter_drops_has_its_reason_in_the_trace(name, data, request):
    case = CASES[name]
    _assert_every_drop_says_why(_traced(case, data[case.data], request), name, case.reason)


def test_a_candidate_cut_beyond_n_says_its_place(data, request):
    trace = _traced(BEYOND_N_CASE, data["clinc"], request)
    _assert_every_drop_says_why(trace, BEYOND_N, BEYOND_N_CASE.reason)


def _keeps_everything(cls: type) -> bool:
    """A scorer that keeps the base's filtering keeps every candidate: nothing to explain."""
    return issubclass(cls, Scorer) and cls.filter_batch is Scorer.filter_batch and cls.filter is Scorer.filter


def test_every_registered_filter_has_a_case():
    registry = get_registry()
    without = sorted(name for name, entry in registry.filters.items() if name not in CASES and not _keeps_everything(entry.cls))
    assert not without, f"filters with no case showing that they say why they drop: {without}"
    # the steps a method declares for its candidates (paramac's) are registered filters, so covered
    for name, entry in registry.methods.items():
        declared = entry.cls.follow_up is not augkit.Augmenter.follow_up
        for step in (entry.cls().follow_up() if declared else []):
            assert step.name in registry.filters, f"{name}'s follow-up step {step.name!r} is not a registered filter"
