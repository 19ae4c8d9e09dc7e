"""``augkit train pointer``: train POINTER's insertion model on a corpus of sentences.

    augkit train pointer ../shared/data/banking77/jianguoz/train/seq.in -o pointer-banking --new-model mini --max-minutes 45
    augkit train pointer train.csv --text-column text -o pointer-banking -m bert-base-uncased
    augkit train pointer train.csv -o pointer-banking --resume
"""

from __future__ import annotations

import argparse
import sys

from augkit.plugin import (
    add_settings_options,
    say_progress,
    settings_given,
    settings_helps,
)
from augkit_pointer.training import (
    DEFAULT_BASE_MODEL,
    NEW_MODEL_SHAPES,
    PointerSettings,
)

HELP = "train POINTER's insertion model (a BERT with [NOI]) on a corpus of sentences (Zhang et al. 2020)"

#: Option help for each PointerSettings field, and where its default comes from.
_SETTING_HELP = {
    "max_length": ("longest input in wordpieces with [CLS] and [SEP]; longer sentences are skipped", ""),
    "learning_rate": ("AdamW learning rate, linear decay (default: 1e-5, POINTER's fine-tuning rate, from a pretrained "
                      "model; 1e-4, BERT's pre-training rate, with --new-model)", ""),
    "weight_decay": ("AdamW weight decay, not on biases and LayerNorm weights", "POINTER's training.py"),
    "adam_epsilon": ("AdamW epsilon", "POINTER's training.py"),
    "warmup_steps": ("learning-rate warm-up steps", "POINTER's training.py"),
    "batch_size": ("examples per device step", "POINTER's training.py"),
    "epochs": ("passes over the examples", "POINTER's training.py"),
    "gradient_accumulation": ("device steps per optimisation step", ""),
    "max_grad_norm": ("gradient clipping norm, 0 for none", "BERT's clipping"),
    "seed": ("random seed: weights of a new model, order of the examples", "POINTER's training.py"),
    "max_steps": ("stop after this many optimisation steps (-1: run all epochs)", ""),
    "save_steps": ("write a checkpoint every this many optimisation steps", ""),
    "save_total_limit": ("checkpoints kept", ""),
    "logging_steps": ("log the loss every this many optimisation steps", ""),
    "max_minutes": ("stop at the first step past this many minutes, with a checkpoint --resume continues from "
                    "(default: no limit)", ""),
    "min_words": ("a sentence's stages end at this many words or fewer", ""),
    "vocab_size": ("with --new-model: the most WordPiece entries trained on the corpus", "bert-base-uncased's size"),
}
#: The type of the settings whose default is None (the others take their default's type).
_OPTIONAL_TYPES = {"learning_rate": float, "max_minutes": float}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``augkit train pointer``."""
    parser.description = (
        "Train POINTER's insertion model (Zhang et al. 2020): a BERT masked language model with a [NOI] token, "
        "trained on each sentence's progressive stages (the least important words removed first, no two next to each "
        "other, until two words are left), to grow keywords back into a sentence. Start from a BERT (-m, default "
        f"{DEFAULT_BASE_MODEL}) or from a new random BERT of one of Google's miniature shapes (--new-model) with a "
        "vocabulary trained on the corpus. The output folder is a BERT masked LM and its tokenizer (with [NOI]); "
        "checkpoints go there too, --resume continues from the newest, and augkit-training.json records the run."
    )
    parser.add_argument("corpus", metavar="CORPUS",
                        help="one sentence per line (e.g. ../shared/data/banking77/jianguoz/train/seq.in), or a "
                             ".csv/.tsv/.jsonl/.parquet/.xlsx table with --text-column")
    parser.add_argument("-o", "--output", required=True, help="folder to write the model and checkpoints to")
    parser.add_argument("--text-column", default="text", help="with a table: the column of the sentences (default: text)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of a text, CSV, TSV or JSONL corpus (default: utf-8)")
    parser.add_argument("--limit", type=int, default=None, help="train on the first N sentences only")
    start = parser.add_mutually_exclusive_group()
    start.add_argument("-m", "--model", default=None, help=f"BERT masked LM to start from, id or folder (default: {DEFAULT_BASE_MODEL})")
    start.add_argument("--new-model", default=None, metavar="SHAPE",
                       help="start from a random BERT of this shape instead: "
                            + ", ".join(f"{name} (L{s.layers}/H{s.hidden}/A{s.heads})" for name, s in NEW_MODEL_SHAPES.items())
                            + " (Google's BERT miniatures)")
    parser.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in --output")
    parser.add_argument("--device", default="auto", help="auto (CUDA when torch sees a GPU), cpu, cuda or cuda:N (default: auto)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bars (default: when standard error is a terminal)")
    defaults = PointerSettings()
    add_settings_options(parser, defaults, settings_helps(defaults, _SETTING_HELP), types=_OPTIONAL_TYPES)


def run(args: argparse.Namespace) -> int:
    """Read the corpus, train, say where the model went and how the loss moved."""
    from augkit_pointer.corpus import read_corpus
    from augkit_pointer.training import new_model_shape, train_pointer

    settings = PointerSettings(**settings_given(args, PointerSettings))
    settings.check()
    if args.new_model is not None:
        new_model_shape(args.new_model)  # an unknown shape fails before the corpus is read
    corpus = read_corpus(args.corpus, text_column=args.text_column, limit=args.limit, encoding=args.encoding)
    if corpus.blank:
        print(f"augkit train pointer: left out {corpus.blank} blank lines or cells", file=sys.stderr)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    result = train_pointer(corpus.sentences, args.output, model=args.model or DEFAULT_BASE_MODEL, new_model=args.new_model,
                           settings=settings, resume=args.resume, device=args.device, progress=progress)
    start = f"new {result.new_model} BERT" if result.new_model else result.base_model
    resumed = f", resumed from {result.resumed_from}" if result.resumed_from else ""
    budget = " (stopped by --max-minutes; --resume continues)" if result.stopped_by_time_budget else ""
    skipped = f" ({result.skipped_too_long} longer than --max-length skipped)" if result.skipped_too_long else ""
    print(f"augkit train pointer: {start}, {result.sentences} sentences{skipped} -> {result.examples} examples, "
          f"{result.steps} optimisation steps in {result.seconds:.1f} s{resumed}{budget}; {result.progress.summary()}",
          file=sys.stderr)
    print(f"  model saved to {result.output_dir} (a BERT masked LM whose vocabulary has [NOI])", file=sys.stderr)
    say_progress("augkit train pointer", result.progress)
    return 0
