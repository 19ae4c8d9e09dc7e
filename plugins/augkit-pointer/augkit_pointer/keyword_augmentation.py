"""m augmented keyword lists per sentence: swaps, then WordNet synonyms that fit the
sentence (Chevasson et al. 2023, section 3.3).

For each source sentence and its keywords (:mod:`augkit_pointer.keywords`) this makes m
keyword lists, each the order in which the insertion model receives them:

1. **Shuffle** (first, as the paper orders it): each keyword, with probability ``p_shuf``,
   swaps places with another keyword drawn at random. The final punctuation keyword stays
   last ("?[end]"). The paper's grid search found ``p_shuf = 0`` best on BANKING77 and
   HWU64, 0.25 on Liu and CLINC150.
2. **Synonyms**: each keyword, with probability ``p_syn`` (0.75 in the paper's search), is
   replaced by "a random, but contextually relevant, synonym". The authors take the lemma
   names of the WordNet synset that EWISER picks for the word in context, shuffle them,
   and hand them out in turn over the m lists (so two lists rarely get the same synonym).
   Here, without EWISER, from one of two sources (``synonyms``):

   ``"safe"`` (the default): the synonyms EDA's safe rule accepts for the keyword in
   its sentence (:meth:`augkit_eda.EDA.synonyms_of`): the sense the sentence means (gloss
   overlap, else a dominant sense), the keyword's part of speech and form, common single
   words whose main sense it is. The rule's own sense choice stands in for EWISER's; it
   offers fewer synonyms (on 300 CLINC150 validation rows, 90 of 895 keywords have some,
   against 348 with the ranked source) but not the wrong senses the ranked source lets
   through ("cold" -> "cold-blooded", "weather" -> "atmospheric condition", "restaurant" ->
   "eating house", "move" -> "movement", "transfer" -> "transferee"), and needs no model.
   A phrase keyword (``max_ngram_size > 1``) gets none.

   ``"wordnet-ranked"``: every WordNet lemma name of the keyword's part of speech, ranked in
   context by a model, as follows:

   - **candidates**: the lemma names of every WordNet synset of the keyword in its part of
     speech in context (EDA's :class:`~augkit_eda.tagging.PatternTagger` and WordNet
     lexicon), in WordNet's sense order (most frequent sense first), at most
     ``max_candidates`` of them; a multi-word lemma is one candidate ("call off"), and a
     multi-word keyword is looked up whole ("exchange rate" -> "rate of exchange");
   - never the word itself (nor another form of it, nor a lemma holding it: "card" ->
     "visiting card"), never a WordNet antonym, never a capitalised lemma (a proper name,
     or "ATM" as "asynchronous transfer mode");
   - **re-inflected** to the source word's Penn tag with lemminflect (the paper
     re-conjugates verbs, "where the conjugation carries rich information": "cancelled" ->
     "called off"; here also plural nouns and comparatives); a candidate that cannot be
     inflected is dropped;
   - **ranked** by a :class:`SynonymRanker`, by how well it fits the sentence: a masked
     language model's probability (:class:`MaskedLMRanker`) or the share of the keyword's
     meaning that the sentence keeps with it (:class:`EmbeddingRanker`, offline
     MiniLM, the default);
   - EWISER gives one synset; here the **sense** is that of the best-ranked candidate, and
     the keyword's synonyms are that sense's candidates which the ranker finds relevant
     (above its ``floor``), at most ``top_synonyms``, best first. They are shuffled by the
     row's generator and given out in turn over the m lists, as the authors do.

   Never replaced: the final punctuation, negations ("not", "no", "n't"), stop words (a
   short sentence's keywords may include "is": its WordNet synonyms "exist", "equal" are
   noise), proper nouns (tagged so, or capitalised inside a sentence: "Apple Pay"), a
   piece of a word ("ca" of "can't") and protected spans (``Keyword.protected``), which
   the shuffle also keeps in their order among themselves.

Randomness comes only from each row's ``random.Random``; rankers are deterministic and
batch-invariant (augkit's masked LM and sentence encoder compute each text at the same shape
whatever the batch), so a row gets the same lists alone or in any batch.

>>> import random
>>> from augkit_pointer.keywords import extract_keywords
>>> text = "My card was cancelled yesterday!"
>>> keywords = [extract_keywords(text, random.Random(0))]
>>> augmenter = KeywordAugmenter(p_syn=0.0, p_shuf=0.0)
>>> augmenter.augment([text], keywords, 2, [random.Random(0)])
[[['card', 'cancelled', 'yesterday', '!'], ['card', 'cancelled', 'yesterday', '!']]]
"""

from __future__ import annotations

import functools
import math
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from augkit_eda.stopwords import EDA_STOP_WORDS

from augkit_pointer.keywords import FINAL_PUNCTUATION, Keyword

__all__ = [
    "DEFAULT_AUGMENTATIONS", "DEFAULT_P_SHUF", "DEFAULT_P_SYN", "FILL_DEPTH", "MAX_CANDIDATES", "MIN_SHARE",
    "NEVER_REPLACED", "SYNONYM_SOURCES", "TOP_SYNONYMS", "EmbeddingRanker", "KeywordAugmenter", "MaskedLMRanker",
    "SynonymQuery", "SynonymRanker", "checked_synonym_source", "safe_synonyms", "synonym_candidates",
]

#: Keyword lists per source: the paper's m = 5 ("to match our best baseline", section 4).
DEFAULT_AUGMENTATIONS = 5
#: Probability that a keyword is replaced by a synonym: the paper's grid search found 0.75
#: best on all four datasets (section 4). It applies to keywords that have a synonym, which
#: the safe source offers for about one keyword in ten (see the module docstring).
DEFAULT_P_SYN = 0.75
#: Where keywords' synonyms come from (``synonyms=``), the default first: EDA's safe
#: rule, or every WordNet lemma name ranked in context by a model.
SYNONYM_SOURCES = ("safe", "wordnet-ranked")
#: Probability that a keyword swaps places with another: 0.25 in the paper's search on Liu
#: and CLINC150 (0.0 was best on BANKING77 and HWU64).
DEFAULT_P_SHUF = 0.25
#: Synonyms kept per keyword, best ranked first: EWISER's single synset has a handful of
#: lemma names (WordNet 3.0 has 1.76 per synset on average, so most offer 0-3 others).
TOP_SYNONYMS = 3
#: Candidates ranked per keyword, in WordNet's sense order: all lemma names of a common
#: word run to 20 or more ("charges": "complaints", "cares", "missions", "kicks", ...), each
#: one sentence to embed; the first 10 cover the frequent senses.
MAX_CANDIDATES = 10
#: Tokens the masked LM returns per mask: a candidate whose first word piece is not among
#: them (the likeliest 3% of bert-base's 30,522 tokens) does not fit the context.
FILL_DEPTH = 1000
#: Share of the keyword's meaning a synonym must keep (:class:`EmbeddingRanker`),
#: read off 40 BANKING77 training sentences with MiniLM: right senses score 0.3-0.9
#: ("bought" -> "purchased" 0.92, "expected" -> "anticipated" 0.71, "lost" -> "misplaced"
#: 0.30, "ATM" -> "cash machine" 0.22-0.30), wrong ones mostly below 0 ("card" -> "wit",
#: "bill", "poster": all < 0; "bought" -> "bribed" -2.8) or just above ("pin" -> "peg" 0.14,
#: "long" -> "longsighted" 0.09, "item" -> "particular" 0.04). A few right ones fall below
#: too ("refund" -> "repayment" 0.13, "charged" -> "billed" -0.14 to 0.08): the price of
#: keeping wrong senses out.
MIN_SHARE = 0.2
#: The least meaning (1 - cosine of the source with the keyword deleted) a keyword is taken
#: to carry, so that a word MiniLM hardly notices ("go" in "where did it go?") does not
#: divide by zero.
MIN_MEANING = 0.01
#: Words that are never replaced: negations, whose synonyms (or loss) reverse the sentence.
NEVER_REPLACED = frozenset({"not", "no", "nor", "n't", "never", "cannot"})
#: Penn tags -> WordNet part of speech. Proper nouns (NNP, NNPS) get no synonyms.
_WORDNET_POS = {"NN": "n", "NNS": "n", "VB": "v", "VBD": "v", "VBG": "v", "VBN": "v", "VBP": "v", "VBZ": "v",
                "JJ": "a", "JJR": "a", "JJS": "a", "RB": "r", "RBR": "r", "RBS": "r"}
#: Penn tags whose form a candidate takes from its head word (lemminflect): the verb's first
#: word ("called off"), the noun's last ("credit cards"), a one-word comparative.
_INFLECTED_TAGS = {"VBD": 0, "VBG": 0, "VBN": 0, "VBZ": 0, "NNS": -1, "JJR": 0, "JJS": 0, "RBR": 0, "RBS": 0}


@dataclass(frozen=True, slots=True)
class SynonymQuery:
    """What a ranker scores: the synonym ``candidates`` for ``text[start:end]``, each as it
    would stand in the text (inflected, cased)."""

    text: str
    start: int
    end: int
    candidates: tuple[str, ...]

    def replaced(self, candidate: str) -> str:
        """The text with the keyword replaced by ``candidate``."""
        return self.text[: self.start] + candidate + self.text[self.end :]


@runtime_checkable
class SynonymRanker(Protocol):
    """Scores how well each synonym fits its sentence; higher is better.

    ``score`` receives every keyword of every row of a batch at once (one model call) and
    must give each query the same scores whatever else is in the call. A candidate scoring
    at or below ``floor`` is not relevant in that context and is never used.
    """

    floor: float

    def score(self, queries: Sequence[SynonymQuery]) -> list[list[float]]:
        """One score per candidate of each query, in the candidates' order."""
        ...


class MaskedLMRanker:
    """Ranks synonyms by a masked language model: the keyword is masked and each candidate
    scores the natural-log probability of its first word piece there (one mask per keyword,
    all keywords of all rows in one :meth:`augkit.models.MaskedLM.fill` call). A candidate
    whose first piece is not among the model's ``depth`` likeliest scores ``-inf``: never
    relevant.

    The first piece favours candidates whose first word is common ("call off" scores as
    "call"), the price of one forward pass per keyword rather than one per candidate.

    ``model`` is a model spec for :func:`augkit.plugin.load_masked_lm` (``bert-base-uncased``,
    a folder) or a loaded :class:`~augkit.models.MaskedLM`; loaded on first use.
    ``min_logprob`` is the :attr:`floor`; it defaults to none (any candidate in the top
    ``depth``), as no threshold has been measured with a real masked LM here.
    """

    def __init__(
        self,
        model: str | os.PathLike | Any = "bert-base-uncased",
        *,
        device: str = "auto",
        depth: int = FILL_DEPTH,
        min_logprob: float = -math.inf,
    ):
        _check_count("depth", depth, 1)
        if isinstance(min_logprob, bool) or not isinstance(min_logprob, (int, float)) or min_logprob > 0:
            from augkit.plugin import InvalidParameterError

            raise InvalidParameterError(f"min_logprob must be a log-probability (a number <= 0), got {min_logprob!r}")
        self.model = model
        self.device = device
        self.depth = depth
        self.min_logprob = min_logprob
        self._pieces: dict[str, str] = {}

    @property
    def floor(self) -> float:
        return float(self.min_logprob)

    def score(self, queries: Sequence[SynonymQuery]) -> list[list[float]]:
        if not queries:
            return []
        lm = self._masked_lm()
        fills = lm.fill([q.text for q in queries], [[(q.start, q.end)] for q in queries], k=self.depth)
        scores: list[list[float]] = []
        for query, query_fills in zip(queries, fills, strict=True):
            table = {fill.token: fill.logprob for fill in query_fills[0]} if query_fills and query_fills[0] else {}
            scores.append([table.get(self._first_piece(lm, candidate), -math.inf) for candidate in query.candidates])
        return scores

    def _masked_lm(self) -> Any:
        if isinstance(self.model, (str, os.PathLike)):
            from augkit.plugin import load_masked_lm

            return load_masked_lm(self.model, device=self.device)
        return self.model

    def _first_piece(self, lm: Any, candidate: str) -> str:
        """The candidate's first token as the model would predict it at the mask, which
        follows a space (so a byte-level BPE gives its "Ġword" token)."""
        piece = self._pieces.get(candidate)
        if piece is None:
            tokens = lm.tokenizer.tokenize(" " + candidate)
            piece = self._pieces[candidate] = tokens[0] if tokens else ""
        return piece

    def __repr__(self) -> str:
        return f"MaskedLMRanker({self.model!r}, device={self.device!r}, depth={self.depth}, min_logprob={self.min_logprob})"


class EmbeddingRanker:
    """Ranks synonyms by how much of the keyword's meaning they keep, with augkit's shared
    sentence encoder (``encoder=None`` is all-MiniLM-L6-v2, offline from its package).

    The raw cosine similarity of the source sentence to the sentence with the synonym
    depends on the sentence's length (one word of twenty changes little, whatever it is),
    so it is measured against the sentence with the keyword deleted::

        score = (cos(source, with synonym) - cos(source, without keyword))
                / (1 - cos(source, without keyword))

    1 is the source's own embedding back, 0 no better than dropping the word, below 0 worse
    than dropping it (a wrong sense). The order of one keyword's candidates is that of the
    raw similarity. All variants of all rows are embedded in one call; a candidate at or
    below ``min_share`` (the :attr:`floor`) changes the meaning.
    """

    def __init__(self, encoder: str | None = None, *, device: str = "cpu", min_share: float = MIN_SHARE):
        if isinstance(min_share, bool) or not isinstance(min_share, (int, float)) or not min_share <= 1:
            from augkit.plugin import InvalidParameterError

            raise InvalidParameterError(f"min_share must be a number <= 1 (a share of the keyword's meaning), got {min_share!r}")
        self.encoder = encoder
        self.device = device
        self.min_share = min_share

    @property
    def floor(self) -> float:
        return float(self.min_share)

    def score(self, queries: Sequence[SynonymQuery]) -> list[list[float]]:
        if not queries:
            return []
        from augkit.plugin import get_encoder, pairwise_cosine

        sources = [q.text for q in queries]
        variants = [q.replaced(candidate) for q in queries for candidate in q.candidates]
        deleted = [" ".join(q.replaced("").split()) for q in queries]
        encoder = get_encoder(self.encoder, device=self.device)
        embeddings = encoder.encode(sources + deleted + variants)
        count = len(queries)
        source_vectors, deleted_vectors, variant_vectors = embeddings[:count], embeddings[count : 2 * count], embeddings[2 * count :]
        baselines = pairwise_cosine(source_vectors, deleted_vectors).tolist()
        owners = [index for index, q in enumerate(queries) for _ in q.candidates]
        similarity = pairwise_cosine(source_vectors[owners], variant_vectors).tolist() if owners else []
        scores: list[list[float]] = []
        position = 0
        for query, baseline in zip(queries, baselines, strict=True):
            span = max(1.0 - baseline, MIN_MEANING)
            scores.append([(value - baseline) / span for value in similarity[position : position + len(query.candidates)]])
            position += len(query.candidates)
        return scores

    def __repr__(self) -> str:
        return f"EmbeddingRanker({self.encoder!r}, device={self.device!r}, min_share={self.min_share})"


def checked_synonym_source(synonyms: object) -> str:
    """``synonyms`` when it names one of :data:`SYNONYM_SOURCES`, else an error listing them."""
    if synonyms not in SYNONYM_SOURCES:
        from augkit.plugin import InvalidParameterError, unknown_name_message

        raise InvalidParameterError(unknown_name_message("synonym source", str(synonyms), list(SYNONYM_SOURCES),
                                                         listing="synonyms takes"))
    return str(synonyms)


def safe_synonyms(text: str, keyword: Keyword, tag: str) -> list[str]:
    """The synonyms EDA's safe rule accepts for ``keyword`` in ``text``
    (:meth:`augkit_eda.EDA.synonyms_of`, which reads the word's first occurrence), capitalised
    like the keyword; none for the final punctuation, a phrase, a negation, a proper noun or
    a piece of a word (``tag`` "" or ``NNP``, as :func:`_keyword_tags` gives them).

    >>> text = "how cold will it be tomorrow"
    >>> safe_synonyms(text, Keyword("cold", 4, 8), "JJ")
    []
    """
    word = keyword.text
    if keyword.is_punctuation or tag in ("", "NNP") or " " in word or word.lower().replace("’", "'") in NEVER_REPLACED:
        return []
    try:
        found = _safe_rule().synonyms_of(word, text)
    except ValueError:  # EDA splits the text into other words (segtok's "ca" of "can't")
        return []
    return [_cased_like(word, synonym) for synonym in found]


@functools.lru_cache(maxsize=1)
def _safe_rule() -> Any:
    """EDA's method with its default (safe) synonyms, built once per process."""
    from augkit_eda import EDA

    return EDA()


def synonym_candidates(word: str, tag: str, *, lexicon: Any = None, limit: int | None = MAX_CANDIDATES) -> list[str]:
    """WordNet synonyms of ``word`` (one word or a phrase, as written) used with Penn tag
    ``tag``, in WordNet's sense order, inflected like ``word`` and capitalised like it; at
    most ``limit``. Empty for negations, stop words, proper nouns and words WordNet lacks.

    >>> synonym_candidates("cancelled", "VBN")[:3]
    ['called off', 'scratched', 'scrubbed']
    >>> synonym_candidates("Fees", "NNS")
    []
    """
    return [candidate for candidate, _sense in _candidate_senses(word, tag, lexicon, limit)]


def _candidate_senses(word: str, tag: str, lexicon: Any, limit: int | None) -> list[tuple[str, int]]:
    """:func:`synonym_candidates` with the synset each was first found in (its sense).

    Left out besides the word itself: a WordNet antonym, a capitalised lemma (a proper
    name, or "ATM" as "asynchronous transfer mode"), and a lemma holding the word
    ("pin" -> "pin tumbler", "card" -> "visiting card", "sign" -> "sign up" in "sign up"):
    it repeats the word and is mostly another sense's compound."""
    from augkit_eda.wordnet import default_lexicon

    lexicon = lexicon or default_lexicon()
    key = word.lower().replace("’", "'")
    pos = _WORDNET_POS.get(tag)
    if pos is None or key in NEVER_REPLACED or key in EDA_STOP_WORDS or not key[:1].isalnum():
        return []
    bases = lexicon.base_forms(key.replace(" ", "_"), pos)
    own_words = {*key.split(" "), *(w for base in bases for w in base.split("_"))}
    found: dict[str, int] = {}
    for base in bases:
        for synset in lexicon.synset_ids(base, pos):
            for lemma in lexicon.synset_lemmas(synset):
                if lemma != lemma.lower() or own_words & set(lemma.split("_")):
                    continue
                spelled = lemma.replace("_", " ")
                if lexicon.is_antonym(key, spelled):
                    continue
                form = _inflected(spelled, tag, lexicon)
                if form is None or form == key or form in found:
                    continue
                found[form] = synset
                if limit is not None and len(found) >= limit:
                    return [(_cased_like(word, form), sense) for form, sense in found.items()]
    return [(_cased_like(word, form), sense) for form, sense in found.items()]


def _cased_like(word: str, candidate: str) -> str:
    """A capitalised word gives its synonym a capital ("Cancel" -> "Call off"); an acronym
    gives nothing ("ATM" -> "cash machine", not "CASH MACHINE")."""
    if word[:1].isupper() and not (len(word) > 1 and word.isupper()):
        return candidate[:1].upper() + candidate[1:]
    return candidate


def _inflected(lemma: str, tag: str, lexicon: Any) -> str | None:
    """``lemma`` (spaces between words) in the form ``tag`` asks for, or None when it has
    no such form: a plural-only noun ("papers") is no singular and stays as it is in the
    plural, where lemminflect would write "paperses"; a comparative lemma ("larger") stays
    as it is."""
    words = lemma.split(" ")
    head = _INFLECTED_TAGS.get(tag)
    if tag.startswith("NN"):
        last = words[-1]
        plural_only = last.endswith("s") and any(base != last for base in lexicon.base_forms(last, "n"))
        if plural_only:
            return lemma if tag == "NNS" else None
    if head is None:
        return lemma
    if tag[:2] in ("JJ", "RB"):
        if len(words) > 1:
            return None
        if any(base != lemma for base in lexicon.base_forms(lemma, "a")):
            return lemma  # WordNet lists some comparatives as lemmas: "larger" (of "bigger")
    from lemminflect import getInflection

    forms = getInflection(words[head], tag)
    if not forms:
        return None
    words[head] = forms[0]
    return " ".join(words)


class KeywordAugmenter:
    """Makes ``m`` augmented keyword lists per source (see the module docstring).

    Parameters
    ----------
    ranker : SynonymRanker, optional
        With ``synonyms="wordnet-ranked"``, ranks synonyms by fit; None is an
        :class:`EmbeddingRanker` with the offline MiniLM, built when first needed (never when
        ``p_syn`` is 0, nor with the safe source).
    p_syn : float
        Probability that a keyword is replaced by a synonym (the paper's 0.75).
    synonyms : str
        Where synonyms come from (:data:`SYNONYM_SOURCES`): ``"safe"`` (default), the ones
        EDA's safe rule accepts in the sentence; ``"wordnet-ranked"``, WordNet's lemma
        names ranked by ``ranker`` (see the module docstring).
    p_shuf : float
        Probability that a keyword swaps places with another (0.25; the paper found 0.0
        best on BANKING77 and HWU64).
    top_synonyms : int
        Best-ranked relevant synonyms a keyword draws from.
    max_candidates : int or None
        WordNet candidates ranked per keyword (None: all).

    >>> import random
    >>> from augkit_pointer.keywords import FINAL_PUNCTUATION, Keyword
    >>> text = "lost card, send a new one?"
    >>> keywords = [[Keyword("lost", 0, 4), Keyword("card", 5, 9), Keyword("send", 11, 15), Keyword("?", 25, 26)]]
    >>> KeywordAugmenter(p_syn=0.0, p_shuf=1.0).augment([text], keywords, 3, [random.Random(4)])
    [[['lost', 'send', 'card', '?'], ['card', 'lost', 'send', '?'], ['lost', 'send', 'card', '?']]]
    """

    def __init__(
        self,
        ranker: SynonymRanker | None = None,
        p_syn: float = DEFAULT_P_SYN,
        p_shuf: float = DEFAULT_P_SHUF,
        *,
        synonyms: str = SYNONYM_SOURCES[0],
        top_synonyms: int = TOP_SYNONYMS,
        max_candidates: int | None = MAX_CANDIDATES,
    ):
        from augkit.plugin import InvalidParameterError

        checked_synonym_source(synonyms)

        for name, value in (("p_syn", p_syn), ("p_shuf", p_shuf)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise InvalidParameterError(f"{name} must be a probability in [0, 1], got {value!r}")
        _check_count("top_synonyms", top_synonyms, 1)
        if max_candidates is not None:
            _check_count("max_candidates", max_candidates, 1)
        if ranker is not None and not isinstance(ranker, SynonymRanker):
            raise InvalidParameterError(
                f"ranker must be a SynonymRanker (a score(queries) method and a floor), got {type(ranker).__name__}"
            )
        if ranker is not None and synonyms != "wordnet-ranked":
            raise InvalidParameterError(f"a ranker ranks WordNet's candidates (synonyms='wordnet-ranked'); the {synonyms!r} "
                                        "source takes none: give synonyms='wordnet-ranked' or no ranker")
        self.ranker = ranker
        self.p_syn = p_syn
        self.p_shuf = p_shuf
        self.synonyms_from = synonyms
        self.top_synonyms = top_synonyms
        self.max_candidates = max_candidates

    def augment(
        self, texts: Sequence[str], keywords: Sequence[Sequence[Keyword]], m: int, rngs: Sequence[random.Random]
    ) -> list[list[list[str]]]:
        """For each row, ``m`` keyword lists (keyword strings in the order to generate).

        ``keywords[i]`` are the keywords of ``texts[i]`` in sentence order (a final
        punctuation keyword last), ``rngs[i]`` its row's generator. Synonyms of all rows
        are ranked in one ranker call.
        """
        _check_count("m", m, 1)
        self._check_rows(texts, keywords, rngs)
        pools = self.synonyms(texts, keywords) if self.p_syn > 0 else [[[] for _ in row] for row in keywords]
        return [self._row_lists(row, pool, m, rng) for row, pool, rng in zip(keywords, pools, rngs, strict=True)]

    def synonyms(self, texts: Sequence[str], keywords: Sequence[Sequence[Keyword]]) -> list[list[list[str]]]:
        """For each row and keyword, the synonyms it may take, at most ``top_synonyms``; empty
        when the keyword is never replaced or nothing fits. The safe source gives the ones
        EDA's rule accepts, in WordNet's order; the ranked source the candidates of one
        sense, that of the best-ranked candidate (EWISER picks one synset), above the ranker's
        floor, best first."""
        self._check_rows(texts, keywords, None)
        if self.synonyms_from == "safe":
            return [[[] if keyword.protected else safe_synonyms(text, keyword, tag)[: self.top_synonyms]
                     for keyword, tag in zip(row_keywords, _keyword_tags(text, row_keywords), strict=True)]
                    for text, row_keywords in zip(texts, keywords, strict=True)]
        queries: list[SynonymQuery] = []
        senses: list[list[int]] = []
        owners: list[tuple[int, int]] = []
        for row, (text, row_keywords) in enumerate(zip(texts, keywords, strict=True)):
            for position, (keyword, tag) in enumerate(zip(row_keywords, _keyword_tags(text, row_keywords), strict=True)):
                if keyword.is_punctuation or keyword.protected or not tag:
                    continue
                candidates = _candidate_senses(keyword.text, tag, None, self.max_candidates)
                if candidates:
                    queries.append(SynonymQuery(text, keyword.start, keyword.end, tuple(c for c, _ in candidates)))
                    senses.append([sense for _, sense in candidates])
                    owners.append((row, position))
        pools: list[list[list[str]]] = [[[] for _ in row_keywords] for row_keywords in keywords]
        if not queries:
            return pools
        ranker = self._ranker()
        scores = ranker.score(queries)
        if len(scores) != len(queries) or any(len(s) != len(q.candidates) for s, q in zip(scores, queries)):
            from augkit.plugin import AugmenterOutputError

            raise AugmenterOutputError(f"{ranker!r} gave scores that do not match its queries (one per candidate)")
        for (row, position), query, query_senses, query_scores in zip(owners, queries, senses, scores, strict=True):
            ranked = [i for i in sorted(range(len(query.candidates)), key=lambda i: (-query_scores[i], i))
                      if query_scores[i] > ranker.floor]
            if ranked:  # the sense of the best fit, as EWISER picks one synset
                sense = query_senses[ranked[0]]
                pools[row][position] = [query.candidates[i] for i in ranked if query_senses[i] == sense][: self.top_synonyms]
        return pools

    def _row_lists(self, keywords: Sequence[Keyword], pools: list[list[str]], m: int, rng: random.Random) -> list[list[str]]:
        """The m lists of one row, drawn from its generator alone. Protected keywords take no
        synonym and keep their order among themselves: a swap moves them, after which they
        are put back in order in the places they hold (the draws are those of a row without
        protected keywords)."""
        movable = [i for i, keyword in enumerate(keywords) if not keyword.is_punctuation]
        protected = [i for i, keyword in enumerate(keywords) if keyword.protected]
        # Each keyword's synonyms in a random order, handed out in turn over the m lists.
        turns = [rng.sample(pool, len(pool)) for pool in pools]
        given = [0] * len(keywords)
        lists: list[list[str]] = []
        for _ in range(m):
            order = list(range(len(keywords)))
            if len(movable) > 1:
                for place in movable:
                    if rng.random() < self.p_shuf:
                        other = rng.choice([p for p in movable if p != place])
                        order[place], order[other] = order[other], order[place]
            if len(protected) > 1:
                in_order = iter(protected)
                order = [next(in_order) if index in protected else index for index in order]
            words: list[str] = []
            for index in order:
                word = keywords[index].text
                if turns[index] and not keywords[index].protected and rng.random() < self.p_syn:
                    word = turns[index][given[index] % len(turns[index])]
                    given[index] += 1
                words.append(word)
            lists.append(words)
        return lists

    def _ranker(self) -> SynonymRanker:
        if self.ranker is None:
            self.ranker = EmbeddingRanker()
        return self.ranker

    @staticmethod
    def _check_rows(texts: Any, keywords: Any, rngs: Any) -> None:
        from augkit.plugin import InvalidParameterError

        if isinstance(texts, str):
            raise InvalidParameterError("texts must be a list of texts, not one string")
        if len(keywords) != len(texts) or (rngs is not None and len(rngs) != len(texts)):
            counts = f"{len(texts)} texts, {len(keywords)} keyword lists" + (f", {len(rngs)} rngs" if rngs is not None else "")
            raise InvalidParameterError(f"one keyword list and one rng per text: got {counts}")
        for row, (text, row_keywords) in enumerate(zip(texts, keywords)):
            for keyword in row_keywords:
                if not isinstance(keyword, Keyword) or text[keyword.start : keyword.end] != keyword.text:
                    raise InvalidParameterError(f"keyword {keyword!r} of row {row} is not a Keyword spanning its text {text!r}")
        if rngs is not None:
            for row, rng in enumerate(rngs):
                if not isinstance(rng, random.Random):
                    raise InvalidParameterError(f"rngs[{row}] must be the row's random.Random, got {type(rng).__name__}")

    def __repr__(self) -> str:
        return (
            f"KeywordAugmenter({self.ranker!r}, p_syn={self.p_syn}, p_shuf={self.p_shuf}, synonyms={self.synonyms_from!r}, "
            f"top_synonyms={self.top_synonyms}, max_candidates={self.max_candidates})"
        )


def _keyword_tags(text: str, keywords: Sequence[Keyword]) -> list[str]:
    """The Penn tag of each keyword in its sentence (EDA's tagger): a phrase's head,
    its last word when that is a noun ("credit card"), else its first ("call off"). "" for
    a keyword that no word of augkit's split overlaps, or that is a piece of a word
    ("ca" of "can't")."""
    if not keywords:
        return []
    from augkit_eda.tagging import PatternTagger

    from augkit.plugin import split_words

    sequence = split_words(text)
    tags = PatternTagger.load().tag_words(sequence.words, sequence.glue)
    spans: list[tuple[int, int]] = []
    position = 0
    for before, word in zip(sequence.glue, sequence.words):
        position += len(before)
        spans.append((position, position + len(word)))
        position += len(word)
    found: list[str] = []
    for keyword in keywords:
        inside = [i for i, (start, end) in enumerate(spans) if start < keyword.end and keyword.start < end]
        whole = inside and spans[inside[0]][0] >= keyword.start and spans[inside[-1]][1] <= keyword.end
        if not whole:
            found.append("")
            continue
        head = inside[-1] if tags[inside[-1]].startswith("NN") else inside[0]
        found.append("NNP" if _is_name(text, keyword) else tags[head])
    return found


def _is_name(text: str, keyword: Keyword) -> bool:
    """A capitalised keyword inside a sentence is a name ("Apple Pay", "American Express"),
    whatever the tagger says (its lexicon knows "pay"); an acronym ("ATM") is not."""
    word = keyword.text
    if not word[:1].isupper() or (len(word) > 1 and word.replace(" ", "").isupper()):
        return False
    before = text[: keyword.start].rstrip()
    return bool(before) and before[-1] not in FINAL_PUNCTUATION


def _check_count(name: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        from augkit.plugin import InvalidParameterError

        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
