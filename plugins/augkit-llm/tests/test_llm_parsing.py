"""parse_texts reads the JSON list of strings out of the replies chat models really give, and
says in a few words what was wrong when it cannot (never None, never an exception)."""

from __future__ import annotations

import pytest
from augkit_llm.parsing import Parsed, parse_texts

CARD = ["I can't find my card", "My card is missing", "Where is my card?"]

#: (case name, the model's reply, the texts expected); every reply here yields texts.
READABLE = [
    ("plain list", '["I can\'t find my card", "My card is missing", "Where is my card?"]', CARD),
    ("json fence", '```json\n["I can\'t find my card", "My card is missing", "Where is my card?"]\n```', CARD),
    ("bare fence", '```\n[\n  "I can\'t find my card",\n  "My card is missing",\n  "Where is my card?"\n]\n```', CARD),
    (
        "prose before and after",
        'Sure! Here are 3 paraphrases:\n["I can\'t find my card", "My card is missing", "Where is my card?"]\n'
        "Let me know if you need more.",
        CARD,
    ),
    (
        "prose around a fence",
        'Here you go:\n\n```json\n["I can\'t find my card", "My card is missing", "Where is my card?"]\n```\n\n'
        "These keep the meaning of the original.",
        CARD,
    ),
    ("object with one list", '{"paraphrases": ["I can\'t find my card", "My card is missing", "Where is my card?"]}', CARD),
    (
        "object with one list and other fields",
        '{"label": "lost_or_stolen_card", "count": 3, "examples": ["I can\'t find my card", "My card is missing", "Where is my card?"]}',
        CARD,
    ),
    ("trailing comma", '["I can\'t find my card", "My card is missing", "Where is my card?",]', CARD),
    ("trailing comma in an object", '{"paraphrases": ["I can\'t find my card", "My card is missing", "Where is my card?", ], }', CARD),
    ("python quotes", "['My card is missing', 'Where is my card?']", CARD[1:]),
    ("items padded and empty", '["  I can\'t find my card ", "", "   ", "My card is missing\\n", "Where is my card?"]', CARD),
    ("non-string items dropped", '["I can\'t find my card", 3, null, "My card is missing", ["x"], "Where is my card?"]', CARD),
    ("objects with one string", '[{"text": "I can\'t find my card"}, {"text": "My card is missing"}, {"text": "Where is my card?"}]', CARD),
    ("brackets inside strings", '["Card [physical] missing", "Lost it ]["]', ["Card [physical] missing", "Lost it ]["]),
    ("escaped quotes", r'["She said \"my card is gone\"", "Card gone"]', ['She said "my card is gone"', "Card gone"]),
    ("newline inside a string", '["My card\nis missing"]', ["My card\nis missing"]),
    ("unicode", '["¿Dónde está mi tarjeta?", "カードをなくしました"]', ["¿Dónde está mi tarjeta?", "カードをなくしました"]),
    ("same list twice", 'Answer: ["My card is missing"]\n```json\n["My card is missing"]\n```', ["My card is missing"]),
    ("bracketed prose then the list", "Note [1]: paraphrases follow.\n" + '["My card is missing"]', ["My card is missing"]),
    ("unquoted keys around a valid list", '{paraphrases: ["My card is missing", "Where is my card?"]}', CARD[1:]),
    ("whitespace around", '\n\n   ["My card is missing"]   \n', ["My card is missing"]),
]

#: (case name, the model's reply, the problem expected); every reply here yields no texts.
UNREADABLE = [
    ("numbered prose", "1. I can't find my card\n2. My card is missing\n3. Where is my card?", "no JSON list in the reply"),
    ("refusal", "I'm sorry, but I can't help with that request.", "no JSON list in the reply"),
    ("empty reply", "", "the reply is empty"),
    ("blank reply", "  \n\t ", "the reply is empty"),
    ("none", None, "the reply is empty"),
    ("two different lists", 'Formal: ["I have lost my card"]\nCasual: ["lost my card lol"]', "the reply holds 2 lists"),
    ("object with two lists", '{"formal": ["I have lost my card"], "casual": ["lost my card lol"]}', "the reply holds 2 lists"),
    ("list of numbers", "[1, 2, 3]", "the list holds no strings"),
    ("list of blanks", '["", "  "]', "the list holds no strings"),
    ("empty list", "[]", "the list is empty"),
    ("cut off at max_tokens", '```json\n["I can\'t find my card", "My card is missing", "Where is', "the reply ends inside the list (cut off at max_new_tokens?)"),
    ("object without a list", '{"paraphrase": "My card is missing"}', "no JSON list in the reply"),
    ("single string", '"My card is missing"', "no JSON list in the reply"),
]


@pytest.mark.parametrize(("reply", "texts"), [case[1:] for case in READABLE], ids=[case[0] for case in READABLE])
def test_a_readable_reply_gives_its_strings_and_no_problem(reply, texts):
    assert parse_texts(reply) == Parsed(texts, None)


@pytest.mark.parametrize(("reply", "problem"), [case[1:] for case in UNREADABLE], ids=[case[0] for case in UNREADABLE])
def test_an_unreadable_reply_gives_no_strings_and_says_why(reply, problem):
    assert parse_texts(reply) == Parsed([], problem)


def test_the_cases_cover_at_least_fifteen_replies():
    assert len(READABLE) + len(UNREADABLE) >= 15


@pytest.mark.parametrize("reply", ["[", "]", "{[}]", '["a', '"', "[[[[[[[[", "{" * 2000 + "}" * 2000, "[" * 5000, "```json\n```"])
def test_malformed_replies_never_raise_and_never_return_none(reply):
    parsed = parse_texts(reply)
    assert isinstance(parsed.texts, list)
    assert parsed.texts or parsed.problem


def test_problems_are_short():
    for _, reply, _ in UNREADABLE:
        assert len(parse_texts(reply).problem) <= 60


def test_a_pathological_reply_is_read_in_linear_time(monkeypatch):
    """Deeply nested or unbalanced replies: the characters handed to the JSON decoder, over
    every block tried, stay within a small multiple of the reply's length (a quadratic reading
    would decode each of the 50,000 nested blocks: about 1.25 billion characters). Counted,
    not timed, so a busy machine cannot fail it."""
    import augkit_llm.parsing as parsing

    decode = parsing._decode
    decoded = []
    monkeypatch.setattr(parsing, "_decode", lambda text: decoded.append(len(text)) or decode(text))
    for reply in ("[" * 50_000, "{" * 25_000 + "}" * 25_000, '["a", ' * 10_000):
        decoded.clear()
        assert parse_texts(reply).problem
        assert sum(decoded) <= 4 * len(reply), (reply[:12], len(decoded), sum(decoded))
