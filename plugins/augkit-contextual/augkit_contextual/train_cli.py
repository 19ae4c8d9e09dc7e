"""``augkit train contextual``: fine-tune a masked LM on labelled rows, conditioned on their
labels (C-BERT, Wu et al. 2019), for ``augkit augment -m contextual -p condition=label``.

    augkit train contextual ../shared/data/banking77/polyai/train.csv --label-column category -o contextual-banking
    augkit train contextual intents.jsonl --label-column intent --text-column utterance -o ctx -m bert-base-uncased --max-minutes 30
    augkit train contextual intents.jsonl --label-column intent --text-column utterance -o ctx --resume
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
from augkit_contextual.training import DEFAULT_BASE_MODEL, ContextualSettings

HELP = "fine-tune a masked LM on labelled rows with the label as a prefix, for contextual's condition=label (C-BERT)"

#: Option help for each ContextualSettings field, and where its default comes from
#: ("C-BERT": 1024er/cbert_aug, cbert_finetune.py and cbert_utils.py, the paper's code).
_SETTING_HELP = {
    "learning_rate": ("AdamW learning rate, linear decay", "C-BERT"),
    "weight_decay": ("AdamW weight decay, not on biases and LayerNorm weights", "C-BERT"),
    "adam_epsilon": ("AdamW epsilon", "transformers' default"),
    "warmup_steps": ("learning-rate warm-up steps", "C-BERT declares a warm-up it never applies"),
    "batch_size": ("rows per device step", "C-BERT"),
    "epochs": ("passes over the rows", "C-BERT"),
    "gradient_accumulation": ("device steps per optimisation step", ""),
    "max_grad_norm": ("gradient clipping norm, 0 for none", "BERT's clipping"),
    "seed": ("random seed: order of the rows and the tokens masked", "C-BERT"),
    "max_steps": ("stop after this many optimisation steps (-1: run all epochs)", ""),
    "save_steps": ("write a checkpoint every this many optimisation steps", ""),
    "save_total_limit": ("checkpoints kept", ""),
    "logging_steps": ("log the loss every this many optimisation steps", ""),
    "max_length": ("longest row in tokens, label prefix and special tokens included; longer texts are cut at the end",
                   "C-BERT's max_seq_length"),
    "mlm_probability": ("share of the text's tokens predicted (80%% masked, 10%% random, 10%% kept; at least one a row; "
                        "never the label)", "BERT's and C-BERT's"),
    "max_minutes": ("stop at the first step past this many minutes, with a checkpoint --resume continues from "
                    "(default: no limit)", ""),
}
#: The type of the settings whose default is None (the others take their default's type).
_OPTIONAL_TYPES = {"max_minutes": float}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``augkit train contextual``."""
    parser.description = (
        "Fine-tune a masked language model on labelled rows, conditioned on their labels (C-BERT, Wu et al. 2019): "
        "each row is read as 'LABEL SEP TEXT' (SEP: the model's separator token) and the masked-LM loss is taken on "
        "tokens of the text only, so the model learns to read the label. The contextual method then draws its "
        "proposals conditioned on each row's label (-p condition=label -p model=DIR) and refuses a label the model "
        f"was not trained on. Start from any masked LM (-m, default {DEFAULT_BASE_MODEL}); the output folder is that "
        "model fine-tuned, with its tokenizer; checkpoints go there too, --resume continues from the newest, and "
        "augkit-training.json records the labels and the run. Rows without a label or a text are left out and counted."
    )
    parser.add_argument("data", metavar="DATA", help="labelled table: .csv, .tsv, .jsonl, .parquet or .xlsx")
    parser.add_argument("--label-column", default="label", help="label column (default: label)")
    parser.add_argument("--text-column", default="text", help="text column (default: text)")
    parser.add_argument("-o", "--output", required=True, help="folder to write the model and checkpoints to")
    parser.add_argument("-m", "--model", default=DEFAULT_BASE_MODEL,
                        help=f"masked LM to start from, id or folder (default: {DEFAULT_BASE_MODEL}, the method's default)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of a CSV, TSV or JSONL DATA (default: utf-8)")
    parser.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in --output")
    parser.add_argument("--device", default="auto", help="auto (CUDA when torch sees a GPU), cpu, cuda or cuda:N (default: auto)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bars (default: when standard error is a terminal)")
    defaults = ContextualSettings()
    add_settings_options(parser, defaults, settings_helps(defaults, _SETTING_HELP), types=_OPTIONAL_TYPES)


def run(args: argparse.Namespace) -> int:
    """Read the table, train, say where the model went, on which labels, and how the loss moved."""
    from augkit_contextual.training import read_labelled_rows, train_contextual

    settings = ContextualSettings(**settings_given(args, ContextualSettings))
    settings.check()
    texts, labels = read_labelled_rows(args.data, text_column=args.text_column, label_column=args.label_column,
                                       encoding=args.encoding)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    source = {"data": str(args.data), "text_column": args.text_column, "label_column": args.label_column}
    result = train_contextual(texts, labels, args.output, model=args.model, settings=settings, resume=args.resume,
                              device=args.device, progress=progress, source=source)
    rows = result.rows
    left_out = [f"{count} {what}" for count, what in ((rows.missing_label, "without a label"),
                                                        (rows.blank_text, "without a text"),
                                                        (rows.no_text_token, "whose label leaves no room for text"))
                if count]
    if left_out:
        print(f"augkit train contextual: left out rows: {', '.join(left_out)}", file=sys.stderr)
    resumed = f", resumed from {result.resumed_from}" if result.resumed_from else ""
    budget = " (stopped by --max-minutes; --resume continues)" if result.stopped_by_time_budget else ""
    cut = f" ({rows.truncated} cut to --max-length)" if rows.truncated else ""
    print(f"augkit train contextual: {result.base_model}, {result.examples} rows{cut} of {len(result.labels)} labels, "
          f"{result.steps} optimisation steps in {result.seconds:.1f} s{resumed}{budget}; {result.progress.summary()}",
          file=sys.stderr)
    print(f"  model saved to {result.output_dir} (use it with -m contextual -p model={result.output_dir} "
          "-p condition=label)", file=sys.stderr)
    say_progress("augkit train contextual", result.progress)
    return 0
