"""``augkit train paraphraser``: fine-tune a seq2seq paraphraser on paraphrase pairs.

    augkit train paraphraser --pairs quora/val.q1 quora/val.q2 -o my-paraphraser
    augkit train paraphraser --table pairs.tsv --source-column q1 --target-column q2 -o out --resume
    augkit train paraphraser --preset paramod --table paranet.csv --source-column source --target-column paraphrase -o paramod
    augkit faq faq.csv -q question -a answer --generator my-paraphraser -o faq-augmented.csv
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields

from augkit.plugin import add_settings_options, say_progress, settings_given
from augkit_faq.training import (
    DEFAULT_BASE_MODEL,
    NO_PRESET,
    PRESETS,
    TrainingPreset,
    TrainingSettings,
)

HELP = "fine-tune a seq2seq model on paraphrase pairs, the FAQ thesis' recipe"

#: Option help for each TrainingSettings field; defaults are read from the dataclass.
_SETTING_HELP = {
    "max_length": "longest input and target, in tokens",
    "learning_rate": "learning rate (AdamW, linear decay)",
    "weight_decay": "AdamW weight decay",
    "adam_epsilon": "AdamW epsilon",
    "warmup_steps": "learning-rate warm-up steps",
    "batch_size": "training pairs per device step",
    "eval_batch_size": "pairs per evaluation step",
    "epochs": "passes over the pairs",
    "gradient_accumulation": "device steps per optimisation step",
    "max_grad_norm": "gradient clipping norm",
    "seed": "random seed (weights of new layers, data order)",
    "max_steps": "stop after this many optimisation steps (-1: run all epochs)",
    "save_steps": "write a checkpoint every this many optimisation steps",
    "save_total_limit": "checkpoints kept",
    "logging_steps": "log the loss every this many optimisation steps",
    "eval_fraction": "share of pairs held out to report an evaluation loss each epoch (0: none)",
}


def add_arguments(paraphraser: argparse.ArgumentParser) -> None:
    """The arguments of the ``augkit train paraphraser`` target."""
    paraphraser.description = (
        "Fine-tune a seq2seq model (default t5-base) on paraphrase pairs, each turned into the input "
        "'paraphrase: <source> </s>' and the target '<target> </s>' (Ng 2021, section 3.4). Defaults are the "
        "thesis' hyper-parameters. The output folder is a model directory that `augkit faq --generator FOLDER` "
        "loads; checkpoints go there too, and --resume continues from the newest. --preset paramod trains ParaMod "
        "(Liu et al. 2022, appendix A) on ParaNet pairs (`augkit paramac build-pairs`): t5-base, AdamW lr 1e-4, "
        "batch 4, gradient accumulation 4, 5 epochs; options given explicitly override the preset. The input keeps "
        "the 'paraphrase: ' prefix (the authors' ParaMod read the bare sentence), so the folder stays usable as "
        "`augkit faq --generator`; prompt it the same way elsewhere."
    )
    source = paraphraser.add_mutually_exclusive_group(required=True)
    source.add_argument("--pairs", nargs=2, metavar=("SOURCES", "TARGETS"),
                        help="two parallel text files, line i of the first paraphrased by line i of the second "
                             "(e.g. ../shared/data/quora_pairs/paragen/head_0a142eb/val.q1 and val.q2)")
    source.add_argument("--table", metavar="FILE", help="a .csv/.tsv/.jsonl/.parquet/.xlsx table of pairs")
    paraphraser.add_argument("--source-column", default="source", help="with --table: the column of the sources (default: source)")
    paraphraser.add_argument("--target-column", default="target", help="with --table: the column of the paraphrases (default: target)")
    paraphraser.add_argument("-o", "--output", required=True, help="folder to write the model and checkpoints to")
    paraphraser.add_argument(
        "--preset", choices=sorted(PRESETS), default=None,
        help="named hyper-parameters: " + "; ".join(f"{p.name}: {_describe_preset(p)} ({p.source})" for p in PRESETS.values())
        + "; explicit options override them (default: none, the thesis' settings)",
    )
    paraphraser.add_argument("-m", "--model", default=None, help=f"base model id or directory (default: {DEFAULT_BASE_MODEL})")
    paraphraser.add_argument("--limit", type=int, default=None, help="train on the first N pairs only")
    paraphraser.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in --output")
    paraphraser.add_argument("--device", default="auto", help="auto (CUDA when torch sees a GPU), cpu, cuda or cuda:N (default: auto)")
    paraphraser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                             help="progress bar (default: when standard error is a terminal)")
    defaults = TrainingSettings()
    helps = {}
    for setting in fields(TrainingSettings):
        default = getattr(defaults, setting.name)
        by_preset = "".join(f"; {p.name}: {p.settings[setting.name]}" for p in PRESETS.values() if setting.name in p.settings)
        helps[setting.name] = f"{_SETTING_HELP[setting.name]} (default: {default}{by_preset})"
    # default None (given_only): a preset's value applies unless the option is given
    add_settings_options(paraphraser, defaults, helps, given_only=True)


def _describe_preset(preset: TrainingPreset) -> str:
    """What a preset sets, as options: ``-m t5-base, learning-rate 0.0001, ...``."""
    changed = ", ".join(f"{name.replace('_', '-')} {value}" for name, value in preset.settings.items())
    return f"-m {preset.model}, {changed}"


def run(args: argparse.Namespace) -> int:
    """Read the pairs, train, print where the model went and how the loss moved."""
    from augkit_faq.training import read_pairs, train_paraphraser

    preset = PRESETS[args.preset] if args.preset else NO_PRESET
    settings = preset.resolve(settings_given(args, TrainingSettings))
    settings.check()
    model = args.model or preset.model
    read = read_pairs(
        lines=tuple(args.pairs) if args.pairs else None, table=args.table,
        source_column=args.source_column, target_column=args.target_column, limit=args.limit,
    )
    if read.skipped:
        print(f"augkit train: skipped {read.skipped} pairs with an empty side", file=sys.stderr)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    started = time.perf_counter()
    result = train_paraphraser(read.pairs, args.output, model=model, settings=settings, resume=args.resume,
                               device=args.device, progress=progress, preset=args.preset)
    seconds = time.perf_counter() - started
    resumed = f", resumed from {result.resumed_from}" if result.resumed_from else ""
    recipe = f" (preset {args.preset})" if args.preset else ""
    print(f"augkit train paraphraser{recipe}: {result.pairs} pairs, {result.steps} optimisation steps in {seconds:.1f} s{resumed}; "
          f"{result.progress.summary()}", file=sys.stderr)
    if result.eval_loss is not None:
        print(f"  held-out loss {result.eval_loss:.3f}", file=sys.stderr)
    print(f"  model saved to {result.output_dir}; use it with: augkit faq FAQ -q Q -a A --generator {result.output_dir} -o OUT",
          file=sys.stderr)
    say_progress("augkit train paraphraser", result.progress)
    return 0
