"""The relations an ERAP paraphrase can be asked to hold, and how the generator is told:
a control token prepended to its input (section 2.1, after Kobus et al. 2017's domain tokens).
"""

from __future__ import annotations

from augkit.plugin import PARAPHRASE_RELATIONS, InvalidParameterError

#: Each relation's control token, added to the generator's vocabulary as a special token when
#: it is trained (``augkit train erap``), so that it stays one unit the tokenizer never splits.
CONTROL_TOKENS = {relation: f"<erap_{relation}>" for relation in PARAPHRASE_RELATIONS}

#: Short names users may type for the relations (the paper's symbols' meanings).
RELATION_ALIASES = {"equivalent": "equivalence", "eq": "equivalence", "fwd": "forward", "rev": "reverse"}


def checked_relation(relation: str) -> str:
    """``relation`` as one of ``equivalence``, ``forward``, ``reverse`` (aliases accepted), or
    an error naming the choices."""
    name = RELATION_ALIASES.get(str(relation).strip().lower(), str(relation).strip().lower())
    if name not in PARAPHRASE_RELATIONS:
        raise InvalidParameterError(
            f"relation must be one of {', '.join(PARAPHRASE_RELATIONS)} (equivalence: same meaning; forward: more general, "
            f"the source entails it; reverse: more specific, it entails the source); got {relation!r}"
        )
    return name


def controlled_input(text: str, relation: str) -> str:
    """The generator's input for paraphrasing ``text`` under ``relation``: its control token,
    a space, the text.

    >>> controlled_input("a man plays a guitar", "forward")
    '<erap_forward> a man plays a guitar'
    """
    return f"{CONTROL_TOKENS[checked_relation(relation)]} {text}"


def add_control_tokens(model, tokenizer) -> int:
    """Give a seq2seq ``model`` and its ``tokenizer`` the relation control tokens as special
    tokens (new embedding rows for them), unless they have them already; returns how many
    were added. ``augkit train erap`` does this before pre-training."""
    missing = [token for token in CONTROL_TOKENS.values() if token not in tokenizer.get_vocab()]
    if missing:
        tokenizer.add_tokens(missing, special_tokens=True)
        model.resize_token_embeddings(len(tokenizer))
    return len(missing)


def has_control_tokens(tokenizer) -> bool:
    """True when every relation's control token is one token of ``tokenizer``'s vocabulary."""
    vocabulary = tokenizer.get_vocab()
    return all(token in vocabulary for token in CONTROL_TOKENS.values())
