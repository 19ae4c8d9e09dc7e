"""The FAQ evidence benchmark (benchmarks/faq): corpus loading, the retrieval measure, and one
small end-to-end run with an offline generator."""

from __future__ import annotations

import json

from benchmarks.faq.__main__ import main
from benchmarks.faq.data import load_covid_faq, load_stackfaq
from benchmarks.faq.retrieval import top1_accuracy_embeddings, top1_accuracy_tfidf


def test_corpora_pair_every_query_with_an_answer_of_the_faq(shared_data):
    for corpus in (load_stackfaq(shared_data), load_covid_faq(shared_data)):
        answers = set(corpus.faq["answer"])
        assert len(corpus.faq) in (125, 68) and len(corpus.queries) > 1000
        assert set(corpus.queries["answer"]) <= answers
        assert corpus.queries["query"].map(lambda q: isinstance(q, str) and q.strip() != "").all()


def test_retrieval_is_perfect_when_the_queries_are_indexed_and_drops_when_answers_are_shuffled(shared_data):
    corpus = load_covid_faq(shared_data)
    queries = corpus.queries.drop_duplicates("query", keep=False).iloc[:200]
    texts, answers = queries["query"].tolist(), queries["answer"].tolist()
    assert top1_accuracy_embeddings(texts, answers, texts, answers) == 1.0
    # a query of stop words only is a zero TF-IDF vector, which matches nothing
    assert top1_accuracy_tfidf(texts, answers, texts, answers) >= 0.97
    faq_texts, faq_answers = corpus.faq["question"].tolist(), corpus.faq["answer"].tolist()
    right = top1_accuracy_embeddings(faq_texts, faq_answers, texts, answers)
    wrong = top1_accuracy_embeddings(faq_texts, faq_answers[1:] + faq_answers[:1], texts, answers)
    assert right > wrong + 0.2


def test_a_small_run_writes_consistent_counts(tmp_path, shared_data):
    out_json, out_md = tmp_path / "faq.json", tmp_path / "faq.md"
    code = main(["--data", str(shared_data), "--corpora", "covidfaq_jhu", "--generators", "eda", "--limit", "12",
                 "--num-return", "4", "--out-json", str(out_json), "--out-md", str(out_md)])
    assert code == 0
    run = json.loads(out_json.read_text())["runs"][0]
    s = run["summary"]
    assert s["generated"] >= s["unique"] >= s["after_semantic"] >= s["after_integrity"] == s["accepted"] > 0
    assert run["retrieval"]["after"]["index_size"] == 12 + s["accepted"]
    assert "| covidfaq_jhu | `eda` | 12 |" in out_md.read_text()
