"""Everything a plugin author needs from augkit, in one documented module.

A plugin (augkit's own EDA, AEDA, back-translation and FAQ plugins included) imports only
``augkit`` and ``augkit.plugin``; every other ``augkit.*`` module is private and may change
without notice (``augkit.testing`` is public too, for plugins' tests).
docs/plugin-authors.md walks through writing a plugin with these names.

Base classes
    :class:`Augmenter` (a method: ``augment`` or ``augment_batch``), :class:`Filter` (a step
    that keeps, drops or scores candidates), :class:`Candidate` (a text with its method and
    scores), :class:`BatchContext` (what ``filter_batch`` and a context-reading ``augment_batch`` know of their rows),
    :class:`DatasetContext` (what ``prepare`` of a filter or augmenter sees once per run), :func:`check_sources`
    (a filter's check that sources and candidate lists line up), :func:`first_distinct` (the
    first ``n`` distinct candidates of a lazy generator), :class:`RowFeedback` and
    :class:`Rejection` (what ``augment_again`` hears in a feedback round: the row's rejected
    candidates, the step that dropped each and why).
Models a step needs
    :class:`ModelNeed`: what a step's ``required_models()`` returns for each model it will load
    (the model, its kind, the parameter naming it), so that a run checks every model before it
    loads any and ``augkit info`` lists them; :func:`needs_within` names the models of a method
    a step runs inside itself (``sample_from=``) through that step's parameter;
    :func:`check_models` checks some at once, for a step that must load them in ``__init__``.
A method run inside a step
    :func:`n_named_as`: that method's warnings about the ``n`` the step asked of it, said again
    with ``n`` named as the parameter the user set (ERAP's ``k``, the FAQ method's ``num_return``).
Errors
    :class:`AugkitError` and its subclasses; raise :class:`InvalidParameterError` for a bad
    constructor argument, :class:`InputError` for bad data, :class:`MissingDependencyError`
    for an absent optional package, :class:`ModelNotAvailableError` for a model that cannot
    be loaded, so that users get augkit's messages and exit codes.
Shared rules and filters
    :class:`ExactDuplicateFilter` is augkit's one duplicate rule (``key``, ``repeats``, with
    :data:`DUPLICATE_OF_SOURCE` and :data:`DUPLICATE_OF_EARLIER`), :class:`EditRatioFilter`
    its one edit-ratio rule (``ratio``, ``keeps``), :func:`repetition_loop` its one rule for
    a decoder caught in a loop, :data:`NEGATION_WORDS` its one list of negations and
    :data:`NUMBER_WORDS` its one table of words naming numbers (word -> value),
    :data:`DATE_AND_TIME_WORDS` the words naming dates, times and units of time: a method
    reuses them rather than writing its own. :class:`SemanticFilter`, :class:`LabelIntegrityFilter` and :class:`TopKFilter` for
    methods built as a pipeline of their own (the FAQ method, the parabank builder), whose
    :class:`TraceEntry` list says what each step did to each candidate.
Parameters
    :data:`RESERVED_PARAMETERS` (names a plugin's constructor must not use: they are
    :func:`augkit.augment`'s own), :func:`check_int`, :func:`check_texts`, :func:`unknown_name_message` and
    :func:`did_you_mean` (augkit's checks and "did you mean" messages). Renamed parameters: set the class
    attribute ``renamed_parameters = {"old": "new"}``; a function's keywords take
    :func:`renamed_keywords`, a command's old flag :class:`RenamedFlag`, a module's old class
    names :func:`renamed_module_names`.
Inputs
    :func:`is_missing_label`: the engine's one rule for a label that is not there (None, NaN,
    pandas' NA, an empty or blank string): such a row is passed through, never a class a
    label-conditioned step learns (``augkit train contextual`` leaves it out of training).
Randomness
    :mod:`augkit.seeding`, the one place seeds are derived: every random choice comes from
    the per-row ``random.Random`` augkit passes (:func:`draw_seed` takes a model's int seed
    from it), or from :func:`derive` / :func:`generator` / :class:`RowSeeder` on the run's
    seed and a salt naming the use; :func:`seeded_torch` seeds torch for one generation.
Text
    :func:`split_words` gives a :class:`WordSequence` (words and the text between them),
    :func:`word_offsets` each word's character span, :func:`join_words` rejoins it unchanged; :func:`delete_words`, :func:`insert_word`,
    :func:`insert_before_word` and :func:`match_case` edit it.
Protected spans
    ``context.protected[i]`` (a :class:`BatchContext` field) holds row ``i``'s
    :class:`ProtectedSpan` tuple: text no method may change. :func:`span_of_words` says which
    words of a :class:`WordSequence` each span covers (:data:`FREE_WORD`: none) and
    :func:`splits_a_span` whether an insertion before a word would fall inside one; a method
    that rewrites freely finds spans in its output with :func:`lost_spans` and
    :func:`relocated`, and offers first the candidates that kept them all
    (:func:`spans_kept_first`). Set ``protects = True`` on a method that never changes a span itself.
Model runtime (loaded on first access)
    :func:`load_seq2seq` (model specs ``id@revision``, folders, ``$AUGKIT_MODEL_DIR``;
    safetensors only, no remote code; shared per process; ``runtime="ctranslate2"`` runs it
    in CTranslate2, and a method's :class:`Runtime` carries that choice), :class:`Seq2SeqModel`,
    :class:`GenerationResult`, :class:`TargetScore`, :data:`DEFAULT_TOKEN_BUDGET`,
    :func:`token_budget_batches` (and, for a plugin running forward passes itself,
    :func:`pad_rows`, :func:`padded_length`, :func:`filler_rows`), :func:`resolve_device`, :func:`load_for_training`,
    :func:`get_encoder` and :func:`cosine_matrix` (the shared sentence encoder), and the
    rest of :data:`_LAZY`.
Training (``augkit train`` targets; loaded on first access)
    :func:`training_folder` (one run per output folder; checkpoints refused without
    ``--resume``, the newest resumed with it), :func:`training_arguments` (transformers'
    ``TrainingArguments`` from a target's settings), :func:`add_settings_options`,
    :func:`settings_helps` and :func:`settings_given` (an option per settings field, its help), :class:`TrainerSettings` and
    :class:`TrainerArgumentsSettings` (the shared settings and their checks, to subclass),
    :func:`check_training_settings`,
    :func:`import_trainer`, :func:`logged_losses`, :func:`time_budget_callback`
    (``--max-minutes``), :func:`ending_log_callback` (the loss logged at the last step),
    :func:`write_training_record` (:data:`TRAINING_RECORD`), :func:`atomic_folder` (a
    checkpoint written by a target's own loop appears whole or not at all), :class:`TrainingProgress` with
    :func:`trainer_progress`, :func:`reward_curve` and :func:`say_progress` (epochs done, the
    loss curve and its warnings, printed and recorded), :func:`warn_if_trained_with_warnings`
    (for a method loading a trained folder), and :func:`train_wordpiece` /
    :func:`bert_wordpiece_tokenizer` (a WordPiece vocabulary trained on a corpus, for a model
    trained from scratch).
Pipelines, tables and progress (loaded on first access)
    :class:`Pipeline`, :func:`parse_pipeline_spec`, :func:`get_registry` (run other methods
    and filters by name), :data:`SOURCE_COLUMN` and :data:`METHOD_COLUMN` (provenance
    columns), :func:`read_table`, :func:`write_table`, :func:`table_format` and
    :class:`XlsxLimits` (plugin commands' files), :func:`progress_bar`,
    :func:`edit_distance_ratio`, :func:`sentence_bleu`, :func:`semantic_similarity`, and the
    entailment oracle (:class:`EntailmentOracle`, :func:`entailment_relation`, :func:`relation_of`,
    :data:`RELATIONS`).
Commands (``register_commands``)
    :class:`CommandContext`, handed to a command's ``run(args, context)``: its ``run_augkit(argv)``
    runs augkit's own command line; :func:`parse_param_options` reads a command's ``-p KEY=VALUE``.
A tab of ``augkit serve``'s page (``register_web_tabs``)
    :class:`TabContext`, handed to a tab's ``build(context)``: the upload limit, the server's
    temporary folder and the upload formats, with the page's rules as methods
    (``context.read_upload(path)``, ``without_server_path``, ``download_path``, ``table_upload``,
    ``header_fitting_widths``, ``status_line``), so that no plugin imports the page itself.

>>> from augkit.plugin import Augmenter, split_words
>>> class Reverse(Augmenter):
...     '''Reverses the order of the words.'''
...     name = "reverse"
...     def augment(self, text, n, rng):
...         words = split_words(text)
...         return [" ".join(reversed(words.words))]
>>> Reverse().augment("lost my card", 1, None)
['card my lost']

Importing this module is light: the lazily loaded names above load their module on first
access, so ``import augkit.plugin`` loads no torch, transformers, pandas or numpy.
"""

from __future__ import annotations

import importlib
from typing import Any

from augkit.augment_options import RESERVED_PARAMETERS
from augkit.errors import (
    AugkitError,
    AugmentationFailedError,
    AugmenterOutputError,
    InputError,
    InvalidParameterError,
    MissingDependencyError,
    ModelNotAvailableError,
    PipelineSpecError,
    UnknownMethodError,
    UnknownParameterError,
    UsageError,
)
from augkit.filters.dedup import (
    DUPLICATE_OF_EARLIER,
    DUPLICATE_OF_SOURCE,
    ExactDuplicateFilter,
)
from augkit.filters.edit_ratio import EditRatioFilter
from augkit.filters.label_integrity import LabelIntegrityFilter
from augkit.filters.negation import NEGATION_WORDS
from augkit.filters.number_vocabulary import DATE_AND_TIME_WORDS, NUMBER_WORDS
from augkit.filters.repetition import repetition_loop
from augkit.filters.semantic import SemanticFilter
from augkit.filters.top_k import TopKFilter
from augkit.models.needs import ModelNeed, check_models, needs_within
from augkit.protection.locate import lost_spans, relocated, spans_kept_first
from augkit.protection.words import FREE as FREE_WORD
from augkit.protection.words import span_of_words, splits_a_span
from augkit.registry.command_context import CommandContext
from augkit.registry.tab_context import TabContext
from augkit.seeding import (
    MODEL_SEED_BITS,
    ROW_SEED_BITS,
    RowSeeder,
    derive,
    draw_seed,
    generator,
    high_bits,
    low_bits,
    resolve_seed,
    seeded_torch,
)
from augkit.steps.augmenter import Augmenter, first_distinct
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.dataset_filter import DatasetFilter
from augkit.steps.feedback import Rejection, RowFeedback
from augkit.steps.filter import Filter, check_sources
from augkit.steps.generated_row import GeneratedRow
from augkit.steps.inputs import is_missing_label
from augkit.steps.nested_warnings import n_named_as
from augkit.steps.params import (
    check_bool,
    check_int,
    check_texts,
    did_you_mean,
    unknown_name_message,
)
from augkit.steps.protected_spans import ProtectedSpan, RowProtection
from augkit.steps.renamed import RenamedFlag, renamed_keywords, renamed_module_names
from augkit.text import (
    WordSequence,
    delete_words,
    insert_before_word,
    insert_word,
    join_words,
    match_case,
    spacing_key,
    split_words,
    word_offsets,
)

#: Names loaded on first access, with the module each comes from: the model runtime (torch
#: and transformers load with the first model, not here), pipelines and the registry, table
#: reading and writing for plugin commands, progress bars, metrics and provenance columns.
_LAZY = {
    # augkit's cache root ($AUGKIT_CACHE_DIR): a subfolder per user
    "CACHE_DIR_ENV": "augkit.files.cache_root",
    "cache_folder": "augkit.files.cache_root",
    # model runtime (augkit.models): resolution of model specs, sharing, batching
    "DEFAULT_TOKEN_BUDGET": "augkit.models",
    "MODEL_DIR_ENV": "augkit.models",
    # the model families: seq2seq, masked LM, causal LM, sequence-pair classifier, token
    # embeddings, sentence encoder
    "CausalLM": "augkit.models",
    "Fill": "augkit.models",
    "MaskedLM": "augkit.models",
    "PairClassifier": "augkit.models",
    "SentenceEncoder": "augkit.models",
    "load_causal_lm": "augkit.models",
    "load_masked_lm": "augkit.models",
    "load_pair_classifier": "augkit.models",
    "TokenEncoder": "augkit.models",
    "load_token_encoder": "augkit.models",
    "GenerationResult": "augkit.models",
    "ModelSource": "augkit.models",
    "ModelSpec": "augkit.models",
    "Seq2SeqModel": "augkit.models",
    "TargetScore": "augkit.models",
    "clear_model_cache": "augkit.models",
    "load_for_training": "augkit.models",
    "load_seq2seq": "augkit.models",
    "Runtime": "augkit.models",
    "SEQ2SEQ_RUNTIMES": "augkit.models",
    "resolve_device": "augkit.models",
    "resolve_dtype": "augkit.models",
    "resolve_model_source": "augkit.models",
    "split_sentences": "augkit.models",
    "token_budget_batches": "augkit.models",
    # batching rules for a plugin that runs a model's forward passes itself (augkit-pointer)
    "pad_rows": "augkit.models.batching",
    "padded_length": "augkit.models.batching",
    "filler_rows": "augkit.models.batching",
    # the sentence encoder (shared, batched)
    "get_encoder": "augkit.models.encoder",
    "cosine_matrix": "augkit.models.encoder",
    "pairwise_cosine": "augkit.models.encoder",
    # pipelines and the registry: a method that runs other methods or filters by name
    "Pipeline": "augkit.pipeline.pipeline",
    "TraceEntry": "augkit.reporting.trace",
    "parse_pipeline_spec": "augkit.pipeline.spec",
    "get_registry": "augkit.registry.discovery",
    # provenance columns of augmented tables
    "SOURCE_COLUMN": "augkit.adapters.provenance",
    "METHOD_COLUMN": "augkit.adapters.provenance",
    # tables and progress for plugin commands (augkit <command>)
    "read_table": "augkit.tables.io",
    "write_table": "augkit.tables.io",
    "table_format": "augkit.tables.io",
    "XlsxLimits": "augkit.tables.xlsx_limits",
    "progress_bar": "augkit.terminal.progress",
    # a plugin command's own -p KEY=VALUE options, typed as augkit augment types them
    "parse_param_options": "augkit.pipeline.param_options",
    # training: the rules every `augkit train` target follows
    "TRAINING_RECORD": "augkit.training.folder",
    "add_settings_options": "augkit.training.settings",
    "settings_given": "augkit.training.settings",
    "settings_helps": "augkit.training.settings",
    "check_training_settings": "augkit.training.settings",
    "import_trainer": "augkit.training.folder",
    "logged_losses": "augkit.training.progress",
    "newest_checkpoint": "augkit.training.folder",
    "time_budget_callback": "augkit.training.progress",
    "training_arguments": "augkit.training.settings",
    "training_folder": "augkit.training.folder",
    "write_training_record": "augkit.training.folder",
    "TrainerSettings": "augkit.training.settings",
    "TrainerArgumentsSettings": "augkit.training.settings",
    "atomic_folder": "augkit.files.atomic",
    "ending_log_callback": "augkit.training.progress",
    "TrainingProgress": "augkit.training.progress",
    "MEAN_REWARD": "augkit.training.progress",
    "trainer_progress": "augkit.training.progress",
    "reward_curve": "augkit.training.progress",
    "say_progress": "augkit.training.progress",
    "warn_if_trained_with_warnings": "augkit.training.folder",
    "train_wordpiece": "augkit.models.tokenizer_training",
    "bert_wordpiece_tokenizer": "augkit.models.tokenizer_training",
    # metrics
    "edit_distance_ratio": "augkit.metrics",
    "sentence_bleu": "augkit.metrics",
    "semantic_similarity": "augkit.metrics",
    # the entailment relation oracle (ERAP's equation 7 on an NLI pair classifier)
    "DEFAULT_NLI_MODEL": "augkit.metrics",
    "PARAPHRASE_RELATIONS": "augkit.metrics",
    "RELATIONS": "augkit.metrics",
    "EntailmentOracle": "augkit.metrics",
    "RelationJudgement": "augkit.metrics",
    "entailment_relation": "augkit.metrics",
    "relation_of": "augkit.metrics",
    "relation_probabilities": "augkit.metrics",
    # scorers and rankers: a plugin's own scorer subclasses Scorer
    "Scorer": "augkit.filters.scorer",
    "RankFilter": "augkit.filters.rank",
    "BertScoreScorer": "augkit.filters.bertscore",
    "DiversityScorer": "augkit.filters.diversity",
    "FluencyScorer": "augkit.filters.fluency",
    "LengthFilter": "augkit.filters.length",
}

__all__ = [
    # a command's context, a web tab's context
    "CommandContext", "TabContext",
    # base classes
    "Augmenter", "BatchContext", "Candidate", "DatasetContext", "Filter", "GeneratedRow", "check_sources", "first_distinct",
    "Rejection", "RowFeedback", "DatasetFilter",
    # errors
    "AugkitError", "AugmentationFailedError", "AugmenterOutputError", "InputError", "InvalidParameterError",
    "MissingDependencyError", "ModelNotAvailableError", "PipelineSpecError", "UnknownMethodError",
    "UnknownParameterError", "UsageError",
    # the models a step loads
    "ModelNeed", "check_models", "needs_within",
    # a method run inside a step
    "n_named_as",
    # shared rules and filters
    "DUPLICATE_OF_EARLIER", "DUPLICATE_OF_SOURCE", "EditRatioFilter", "ExactDuplicateFilter",
    "LabelIntegrityFilter", "SemanticFilter", "TopKFilter", "repetition_loop", "NEGATION_WORDS", "NUMBER_WORDS",
    "DATE_AND_TIME_WORDS",
    # parameters
    "RESERVED_PARAMETERS", "RenamedFlag", "check_bool", "check_int", "check_texts", "did_you_mean", "renamed_keywords",
    "renamed_module_names", "unknown_name_message",
    # inputs
    "is_missing_label",
    # randomness
    "MODEL_SEED_BITS", "ROW_SEED_BITS", "RowSeeder", "derive", "draw_seed", "generator", "high_bits", "low_bits",
    "resolve_seed", "seeded_torch",
    # protected spans
    "FREE_WORD", "ProtectedSpan", "RowProtection", "lost_spans", "relocated", "span_of_words", "spans_kept_first",
    "splits_a_span",
    # text
    "WordSequence", "delete_words", "insert_before_word", "insert_word", "join_words", "match_case", "spacing_key",
    "split_words", "word_offsets",
    # loaded on first access
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    """The lazily loaded names of :data:`_LAZY`, read from their module at each access (not
    copied here), so that this module always gives what its home module holds now."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'augkit.plugin' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
