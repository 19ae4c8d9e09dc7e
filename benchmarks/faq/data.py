"""The shared FAQ corpora as FAQ tables plus the user queries that belong to each answer.

- StackFAQ (Karan & Snajder 2018, via ML-Recipes/BERT-FAQ): 125 StackExchange threads; a
  thread's question and its first answer make an FAQ pair; its rephrasings (``rephr``, 1,375
  in all, a few empty ones left out) are user queries for that pair.
- JHU COVID-QA FAQ (Poliak et al. 2020, via BERT-FAQ): 68 ``faq`` entries (67 distinct
  answers) and 1,387 ``user_query`` entries, each carrying the answer it belongs to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass
class FaqCorpus:
    """``faq``: question/answer table. ``queries``: user queries with the answer they want."""

    name: str
    faq: pd.DataFrame
    queries: pd.DataFrame


def load_stackfaq(shared_data: Path) -> FaqCorpus:
    """StackFAQ as an FAQ (question, first answer) and its rephrasings as queries."""
    threads = json.loads((shared_data / "stackfaq" / "bert-faq" / "stackExchange-FAQ.json").read_text())["root"]["qapair"]
    faq = pd.DataFrame({"question": [t["question"] for t in threads], "answer": [t["answer"][0] for t in threads]})
    queries = pd.DataFrame(
        [(text, t["answer"][0]) for t in threads for text in t["rephr"] if isinstance(text, str) and text.strip()],
        columns=["query", "answer"],
    )
    return FaqCorpus("stackfaq", faq, queries)


def load_covid_faq(shared_data: Path) -> FaqCorpus:
    """The JHU COVID FAQ entries and its user queries."""
    entries = json.loads((shared_data / "covidfaq_jhu" / "bert-faq" / "query_answer_pairs.json").read_text())
    faq = pd.DataFrame([(e["question"], e["answer"]) for e in entries if e["query_type"] == "faq"], columns=["question", "answer"])
    queries = pd.DataFrame([(e["question"], e["answer"]) for e in entries if e["query_type"] == "user_query"], columns=["query", "answer"])
    return FaqCorpus("covidfaq_jhu", faq, queries)


LOADERS = {"stackfaq": load_stackfaq, "covidfaq_jhu": load_covid_faq}
