"""The table of bridged nlpaug augmenters: one :class:`BridgeSpec` per nlpaug class.

Each spec says the augkit name, the nlpaug class, which constructor parameters augkit
exposes (with nlpaug 1.1.11's defaults, so ``augkit info nlpaug.synonym`` shows them without
importing nlpaug; a test compares them with nlpaug's signatures) and what the augmenter
needs to run offline. Parameters left out are the ones a table or a command line cannot
carry or that the bridge owns: ``name``, ``verbose`` (nlpaug's printing), ``tokenizer`` and
``reverse_tokenizer`` (callables), ``force_reload``, ``silence``, ``use_custom_api``,
WordEmbsAug's ``model`` (a loaded Python object; ``model_path`` is exposed), and
``batch_size``: the bridge calls nlpaug once per row (so that a row's draws do not depend on
its batch), where nlpaug's batch size has nothing to do, and the name is
:func:`augkit.augment`'s own.

``nlpaug.tfidf``, ``nlpaug.word_embs`` and ``nlpaug.reserved`` run on what the user gives (an
nlpaug TF-IDF model, a word-vector file, token lists): their specs name the classes of
:mod:`augkit_nlpaug.user_models`, nlpaug's own with each model read from its own path and
checked when the method is built.

Not bridged: ``LambadaAug``. nlpaug 1.1.11's LAMBADA model passes ``num_workers`` to
transformers' ``generate()``, which transformers 5 refuses, and classifies with
``simpletransformers``; docs/methods/nlpaug.md says so.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from augkit_nlpaug.offline import sentence_tokenizer

#: The default of a parameter nlpaug requires (``reserved_tokens``, WordEmbsAug's ``model_type``).
REQUIRED = inspect.Parameter.empty
#: What an augmenter needs beyond nlpaug itself (the docs table's "offline" column).
OFFLINE = "offline"
WORDNET = "wordnet"  # WordNet through NLTK (NLTK_DATA), tagged by the offline tagger
HUB_MODEL = "hub model"  # a Hugging Face model: a local folder offline
#: A model the user trains or provides as files, or token lists: nothing runs on the defaults.
USER_SUPPLIED = "user supplied"
#: The model-backed augmenters sample with torch, and their helpers with NumPy and Python.
MODEL_DRAWS = ("python", "numpy", "torch")
#: nlpaug keeps its models in module-level caches keyed by the folder's base name, and on a
#: cache hit overwrites the cached model's settings (top_k, top_p, lengths) with the new
#: instance's: a second instance changed the first one's outputs, the first instance of a
#: process (every worker's) ran without top_p, and two folders of the same name shared one
#: model. Each bridged instance therefore loads its own model (``force_reload``) and then
#: gets its settings set as nlpaug's cache hit would (:func:`augkit_nlpaug.bridge.apply_model_settings`).
OWN_MODEL = {"force_reload": True}


@dataclass(frozen=True)
class Param:
    """One exposed nlpaug constructor parameter: its default, type, choices and meaning, and
    for a number the least value nlpaug runs with (``minimum``; its ``doc`` says why)."""

    name: str
    default: Any
    annotation: Any
    doc: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    #: nlpaug's own name for it, where augkit's naming table calls the idea otherwise
    #: (docs/plugin-authors.md: ``max_new_tokens`` is nlpaug's ``max_length``).
    nlpaug_name: str | None = None

    @property
    def passed_as(self) -> str:
        """The keyword nlpaug's constructor takes it by."""
        return self.nlpaug_name or self.name


@dataclass(frozen=True)
class BridgeSpec:
    """An nlpaug augmenter as an augkit method.

    ``fixed`` holds nlpaug arguments the bridge sets itself. ``model_params`` name the parameters that hold a Hugging Face model (an id or a local
    folder), of ``model_kind`` (as :class:`augkit.plugin.ModelNeed` names it): such a method
    checks them all before nlpaug loads any, and refuses a model it cannot load with a message
    naming it.
    """

    name: str
    nlpaug_class: str
    description: str
    params: tuple[Param, ...]
    needs: str = OFFLINE
    model_params: tuple[str, ...] = ()
    model_kind: str = ""
    fixed: dict[str, Any] = field(default_factory=dict)
    #: The global generators the nlpaug class draws from (read from nlpaug 1.1.11's code: its
    #: ``sample(list)`` uses Python's ``random``; ``sample(int)`` and its models' ``sample``
    #: NumPy's; the language models torch's). A test runs every offline method under two
    #: NumPy seeds to check that those without "numpy" do not draw from it.
    draws_from: tuple[str, ...] = ("python",)
    #: When ``model_type`` is left empty, nlpaug reads the model family from ``model_path``'s
    #: name and fails late and obscurely when it finds none of these words there: the
    #: bridge checks first and asks for ``model_type`` (see :func:`check_model_type`).
    model_type_markers: tuple[str, ...] = ()
    #: The ``model_type`` values nlpaug's class takes (with the bridge's settings): suggested
    #: then, and the only ones accepted.
    model_types: tuple[str, ...] = ()

    @property
    def module(self) -> str:
        return self.nlpaug_class.rpartition(".")[0]

    @property
    def class_name(self) -> str:
        return self.nlpaug_class.rpartition(".")[2]


_STOPWORDS = (
    Param("stopwords", None, "list[str] | None", "Words never changed."),
    Param("stopwords_regex", None, "str | None", "Regular expression of words never changed."),
)


def _word_amount(aug_p: float = 0.3) -> tuple[Param, ...]:
    """nlpaug's word-level amount: ``aug_p`` of the words, at least ``aug_min``, at most ``aug_max``."""
    return (
        Param("aug_min", 1, int, "Fewest words changed."),
        Param("aug_max", 10, int, "Most words changed."),
        Param("aug_p", aug_p, float, "Share of the words changed."),
    )


def _char_amount(aug_char_min: int = 1) -> tuple[Param, ...]:
    """nlpaug's character-level amount: words chosen, then characters within each word."""
    return (
        Param("aug_char_min", aug_char_min, int, "Fewest characters changed in a chosen word."),
        Param("aug_char_max", 10, int, "Most characters changed in a chosen word."),
        Param("aug_char_p", 0.3, float, "Share of a chosen word's characters changed."),
        Param("aug_word_p", 0.3, float, "Share of the words chosen."),
        Param("aug_word_min", 1, int, "Fewest words chosen."),
        Param("aug_word_max", 10, int, "Most words chosen."),
    )


def _generation(min_length: int, max_length: int) -> tuple[Param, ...]:
    return (
        Param("min_new_tokens", min_length, int, "Fewest tokens generated (nlpaug's min_length).", nlpaug_name="min_length"),
        Param("max_new_tokens", max_length, int, "Most tokens generated (nlpaug's max_length).", nlpaug_name="max_length"),
        Param("temperature", 1.0, float, "Sampling temperature."),
        Param("top_k", 50, int, "Sample among the k most likely tokens."),
        Param("top_p", 0.9, float, "Sample within this cumulative probability."),
        Param("device", "auto", str, "Torch device: 'auto' (CUDA when torch sees a GPU), 'cpu', 'cuda'."),
    )


SPECS: tuple[BridgeSpec, ...] = (
    # character level
    BridgeSpec(
        "nlpaug.keyboard", "nlpaug.augmenter.char.KeyboardAug",
        "nlpaug's KeyboardAug: typos from neighbouring keys of a QWERTY keyboard.",
        (*_char_amount(), *_STOPWORDS,
         Param("include_special_char", True, bool, "Allow special characters as typos."),
         Param("include_numeric", True, bool, "Allow digits as typos."),
         Param("include_upper_case", True, bool, "Allow upper-case letters as typos."),
         Param("lang", "en", str, "Keyboard layout's language (nlpaug ships en, de, es, fr, he, it, nl, pl, th, tr, uk)."),
         Param("model_path", None, "str | None", "A keyboard layout JSON file instead of the packaged one."),
         Param("min_char", 4, int, "Shortest word changed.")),
    ),
    BridgeSpec(
        "nlpaug.ocr", "nlpaug.augmenter.char.OcrAug",
        "nlpaug's OcrAug: OCR confusions (0 for o, 1 for l, ...).",
        (*_char_amount(aug_char_min=2), *_STOPWORDS,
         Param("min_char", 1, int, "Shortest word changed."),
         Param("dict_of_path", None, "str | None", "A JSON file of confusions instead of the packaged one.")),
    ),
    BridgeSpec(
        "nlpaug.random_char", "nlpaug.augmenter.char.RandomCharAug",
        "nlpaug's RandomCharAug: insert, substitute, swap or delete random characters.",
        (Param("action", "substitute", str, "What to do to characters.", ("insert", "substitute", "swap", "delete")),
         *_char_amount(),
         Param("include_upper_case", True, bool, "Draw upper-case letters."),
         Param("include_lower_case", True, bool, "Draw lower-case letters."),
         Param("include_numeric", True, bool, "Draw digits."),
         Param("min_char", 4, int, "Shortest word changed."),
         Param("swap_mode", "adjacent", str, "Which characters a swap exchanges.", ("adjacent", "middle", "random")),
         Param("spec_char", "!@#$%^&*()_+", str, "Special characters drawn."),
         *_STOPWORDS,
         Param("candidates", None, "list[str] | None", "Characters to draw from instead.")),
    ),
    # word level
    BridgeSpec(
        "nlpaug.spelling", "nlpaug.augmenter.word.SpellingAug",
        "nlpaug's SpellingAug: common misspellings from a spelling-error dictionary.",
        (Param("dict_path", None, "str | None", "A misspelling dictionary instead of the packaged English one."),
         *_word_amount(), *_STOPWORDS,
         Param("include_reverse", True, bool, "Also map misspellings back to their correct words.")),
    ),
    BridgeSpec(
        "nlpaug.synonym", "nlpaug.augmenter.word.SynonymAug",
        "nlpaug's SynonymAug: replace words by WordNet synonyms of their part of speech.",
        (Param("aug_src", "wordnet", str, "Where synonyms come from (ppdb needs model_path).", ("wordnet", "ppdb")),
         Param("model_path", None, "str | None", "The PPDB file when aug_src='ppdb'."),
         *_word_amount(),
         Param("lang", "eng", str, "WordNet language (eng; others need the Open Multilingual WordNet)."),
         *_STOPWORDS),
        needs=WORDNET,
    ),
    BridgeSpec(
        "nlpaug.antonym", "nlpaug.augmenter.word.AntonymAug",
        "nlpaug's AntonymAug: replace words by WordNet antonyms (changes the meaning on purpose).",
        (*_word_amount(),
         Param("lang", "eng", str, "WordNet language."),
         *_STOPWORDS),
        needs=WORDNET,
    ),
    BridgeSpec(
        "nlpaug.random_word", "nlpaug.augmenter.word.RandomWordAug",
        "nlpaug's RandomWordAug: swap, delete, crop or substitute random words.",
        (Param("action", "delete", str, "What to do to words.", ("swap", "delete", "crop", "substitute")),
         *_word_amount(), *_STOPWORDS,
         Param("target_words", None, "list[str] | None", "Words that action='substitute' puts in.")),
    ),
    BridgeSpec(
        "nlpaug.split", "nlpaug.augmenter.word.SplitAug",
        "nlpaug's SplitAug: split words in two at a random character.",
        (*_word_amount(),
         # nlpaug draws the split point with np.random.randint(1, len(word) - 1): a two-letter
         # word raised "low >= high" on the row ("fix my top up" with min_char=2)
         Param("min_char", 4, int, "Shortest word split (at least 3: nlpaug cannot split a two-letter word).",
               minimum=3),
         *_STOPWORDS),
        draws_from=("python", "numpy"),  # the split position: sample(int)
    ),
    BridgeSpec(
        "nlpaug.reserved", "augkit_nlpaug.user_models.ReservedAug",
        "nlpaug's ReservedAug: replace reserved words and phrases by others of their list (FWD -> Fwd, Sincerely -> Best Regards).",
        (Param("reserved_tokens", REQUIRED, "list[list[str]]",
               "Lists of tokens or phrases that replace one another, e.g. [['card', 'debit card'], ['transfer', 'payment']]."),
         Param("action", "substitute", str, "What to do to reserved tokens (nlpaug 1.1.11 substitutes only).", ("substitute",)),
         Param("case_sensitive", True, bool, "Match reserved tokens with their case (False: any case)."),
         *_word_amount(),
         Param("generate_all_combinations", False, bool,
               "Give every combination of the reserved tokens' alternatives (the first n); needs aug_p=1.")),
        needs=USER_SUPPLIED,
    ),
    BridgeSpec(
        "nlpaug.tfidf", "augkit_nlpaug.user_models.TfIdfAug",
        "nlpaug's TfIdfAug: substitute words of low TF-IDF, or insert words, drawn by a TF-IDF model trained on your texts (UDA).",
        (Param("model_path", ".", str, "The folder of an nlpaug TF-IDF model (TfIdf().train(tokenized texts), then save(folder))."),
         Param("action", "substitute", str, "Substitute words or insert new ones.", ("insert", "substitute")),
         *_word_amount(),
         Param("top_k", 5, int, "Draw each new word among k words drawn by their TF-IDF scores."),
         *_STOPWORDS),
        needs=USER_SUPPLIED,
        # which words change: np.random.random against their scores, then sample(list); new words: np.random.choice
        draws_from=("python", "numpy"),
    ),
    BridgeSpec(
        "nlpaug.word_embs", "augkit_nlpaug.user_models.WordEmbsAug",
        "nlpaug's WordEmbsAug: substitute words by their nearest neighbours in word vectors, or insert random words of them.",
        (Param("model_type", REQUIRED, str, "The vector file's format: word2vec (binary), glove (text) or fasttext (.vec text).", ("word2vec", "glove", "fasttext")),
         Param("model_path", ".", str,
               "The vector file: word2vec binary (.bin), GloVe text without header, or fastText .vec text with header."),
         Param("action", "substitute", str, "Substitute words or insert new ones.", ("insert", "substitute")),
         *_word_amount(),
         Param("top_k", 100, int, "Draw among the k nearest neighbours."),
         Param("n_gram_separator", "_", str, "What joins the words of a phrase in the vectors' vocabulary (New_York)."),
         *_STOPWORDS,
         Param("skip_check", False, bool, "nlpaug's flag to skip checking the vectors' size (unused by nlpaug 1.1.11).")),
        needs=USER_SUPPLIED,  # neighbours: gensim's most_similar (no draw); the pick: sample(list)
    ),
    BridgeSpec(
        "nlpaug.contextual", "nlpaug.augmenter.word.ContextualWordEmbsAug",
        "nlpaug's ContextualWordEmbsAug: substitute or insert words a masked language model predicts.",
        (Param("model_path", "bert-base-uncased", str, "The masked LM: a Hugging Face id or a local folder."),
         Param("model_type", "", str, "bert, distilbert, roberta or bart; empty: read from model_path's name."),
         Param("action", "substitute", str, "Substitute words or insert new ones.", ("substitute", "insert")),
         Param("top_k", 100, int, "Draw among the k most likely words."),
         *_word_amount(),
         Param("stopwords", None, "list[str] | None", "Words never changed."),
         Param("device", "auto", str, "Torch device: 'auto' (CUDA when torch sees a GPU), 'cpu', 'cuda'."),
         Param("stopwords_regex", None, "str | None", "Regular expression of words never changed.")),
        needs=HUB_MODEL, model_params=("model_path",), model_kind="masked",
        # transformers' fill-mask pipeline: nlpaug's own BERT wrapper (use_custom_api) calls a
        # tokenizer method transformers 5 removed
        fixed={"silence": True, "use_custom_api": False, **OWN_MODEL}, draws_from=MODEL_DRAWS,
        model_type_markers=("longformer", "roberta", "bert", "bart"), model_types=("bert", "distilbert", "roberta", "bart"),
    ),
    BridgeSpec(
        "nlpaug.back_translation", "nlpaug.augmenter.word.BackTranslationAug",
        "nlpaug's BackTranslationAug: translate to a pivot language and back with two translation models.",
        (Param("from_model_name", "facebook/wmt19-en-de", str, "The forward model: a Hugging Face id or a local folder."),
         Param("to_model_name", "facebook/wmt19-de-en", str, "The backward model: a Hugging Face id or a local folder."),
         Param("device", "auto", str, "Torch device: 'auto' (CUDA when torch sees a GPU), 'cpu', 'cuda'."),
         Param("max_new_tokens", 300, int, "Most tokens generated (nlpaug's max_length).", nlpaug_name="max_length")),
        needs=HUB_MODEL, model_params=("from_model_name", "to_model_name"), model_kind="seq2seq", draws_from=MODEL_DRAWS,
        fixed=OWN_MODEL,
    ),
    # sentence level
    BridgeSpec(
        "nlpaug.random_sentence", "nlpaug.augmenter.sentence.RandomSentAug",
        "nlpaug's RandomSentAug: move sentences of a multi-sentence text.",
        (Param("mode", "neighbor", str, "Where a sentence moves.", ("neighbor", "left", "right", "random")),
         Param("action", "swap", str, "What to do to sentences (nlpaug 1.1.11 does swaps only).", ("swap",)),
         *_word_amount()),
        fixed={"tokenizer": sentence_tokenizer},  # not NLTK's punkt, whose data is downloaded
        draws_from=("python", "numpy"),  # its Shuffle model samples with NumPy
    ),
    BridgeSpec(
        "nlpaug.contextual_sentence", "nlpaug.augmenter.sentence.ContextualWordEmbsForSentenceAug",
        "nlpaug's ContextualWordEmbsForSentenceAug: continue the text with a causal language model.",
        (Param("model_path", "gpt2", str, "The causal LM: a Hugging Face id or a local folder."),
         Param("model_type", "", str, "gpt2 (also for distilgpt2) or xlnet; empty: read from model_path's name."),
         *_generation(min_length=100, max_length=500)),
        needs=HUB_MODEL, model_params=("model_path",), model_kind="causal",
        fixed={"silence": True, "use_custom_api": True, **OWN_MODEL}, draws_from=MODEL_DRAWS,
        model_type_markers=("xlnet", "gpt2"), model_types=("gpt2", "xlnet"),
    ),
    BridgeSpec(
        "nlpaug.summarize", "nlpaug.augmenter.sentence.AbstSummAug",
        "nlpaug's AbstSummAug: an abstractive summary of the text by a seq2seq model (T5).",
        (Param("model_path", "t5-base", str, "The summariser: a Hugging Face id or a local folder."),
         Param("tokenizer_path", "t5-base", str, "Its tokenizer: a Hugging Face id or a local folder."),
         *_generation(min_length=20, max_length=50)),
        needs=HUB_MODEL, model_params=("model_path", "tokenizer_path"), model_kind="seq2seq",
        fixed={"use_custom_api": True, **OWN_MODEL}, draws_from=MODEL_DRAWS,
    ),
)

#: The bridge's own settings of nlpaug parameters it does not expose.
ALWAYS = {"verbose": 0}
