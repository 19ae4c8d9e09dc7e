"""``augkit train erap``: ERAP's generator (Sancheti et al. 2022, section 2.4) in its two stages.

    augkit train erap --pairs val.q1 val.q2 -o erap-pretrained --oracle FacebookAI/roberta-large-mnli
    augkit train erap --table parabank.tsv -o erap-pretrained            # augkit parabank's source, paraphrase
    augkit train erap --table recast-sick.csv --relation-column relation --split train -o s2s-a
    augkit train erap --unaware --pairs val.q1 val.q2 -o pretrain-u
    augkit train erap --stage rl --table recast-sick.csv --relation-column relation --split train \\
        --generator erap-pretrained -o erap-rl
    augkit augment data.csv -m erap -p generator=erap-rl -o augmented.csv

``--stage pretrain`` (the default) is :func:`augkit_erap.pretraining.pretrain`; ``--stage rl`` is
:func:`augkit_erap.rl.fine_tune`. One parser serves both: the settings of either stage are
options (a name both stages have is one option; its help gives each stage's default), and an
option of the other stage is refused with a message naming it.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from typing import Any

from augkit.plugin import (
    DEFAULT_NLI_MODEL,
    RenamedFlag,
    UsageError,
    add_settings_options,
    say_progress,
    settings_given,
)
from augkit_erap.pretraining import DEFAULT_BASE_MODEL, LABELLED_PAIRS, PretrainSettings
from augkit_erap.reward import RENAMED_WINDOW
from augkit_erap.rl import RLSettings

HELP = "train ERAP's relation-controlled paraphrase generator: oracle-labelled pre-training, then RL (Sancheti et al. 2022)"
STAGES = ("pretrain", "rl")

#: Option help for each PretrainSettings field; defaults are read from the dataclass.
_PRETRAIN_HELP = {
    "max_length": "longest input and target, in tokens",
    "learning_rate": "AdamW learning rate, linear decay",
    "weight_decay": "AdamW weight decay, not on biases and LayerNorm weights",
    "adam_epsilon": "AdamW epsilon",
    "warmup_steps": "learning-rate warm-up steps",
    "batch_size": "training pairs per device step",
    "epochs": "passes over the (balanced) pairs",
    "gradient_accumulation": "device steps per optimisation step",
    "max_grad_norm": "gradient clipping norm, 0 for none",
    "seed": "random seed: the balancing samples, weights of the new control-token rows, order of the pairs",
    "max_steps": "stop after this many optimisation steps (-1: run all epochs)",
    "save_steps": "write a checkpoint every this many optimisation steps",
    "save_total_limit": "checkpoints kept",
    "logging_steps": "log the loss every this many optimisation steps",
    "balance": "each relation's count after balancing: median (the middle count: the frequent down-sampled, the rare "
               "up-sampled), largest (up-sample only), smallest (down-sample only) or none",
}
#: Option help for each RLSettings field only it has (where the defaults come from:
#: :class:`augkit_erap.rl.RLSettings`).
_RL_HELP = {
    "num_beams": "rl: beam width of the reference paraphrase the roll-outs start from",
    "rollouts": "rl: sampled completions per prefix (the paper's n)",
    "max_new_tokens": "rl: longest reference and roll-out, in tokens (the paper's T)",
    "gamma": "rl: discount of later rewards (equation 3)",
    "alpha": "rl: weight of relation consistency minus the adversary's penalty (equation 5)",
    "beta": "rl: weight of similarity (equation 5)",
    "delta": "rl: weight of diversity (equation 5)",
    "similarity_min": "rl: similarity below this zeroes the reward (footnote 1)",
    "similarity_max": "rl: similarity above this (a copy) zeroes the reward (footnote 1)",
    "adversary_every": "rl: train the adversary after every this many generator steps",
    "adversary_learning_rate": "rl: the adversary's learning rate",
    "max_rollout_rows": "rl: sampled rows per generate call (a memory bound)",
}
#: Options given as arguments of the run rather than as a stage's settings.
_RUN_OPTIONS = frozenset({"max_minutes"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``augkit train erap``."""
    parser.description = (
        "Train ERAP's generator (Sancheti et al. 2022): a seq2seq model told the entailment relation its paraphrase "
        "must hold by a control token before its input (<erap_equivalence>, <erap_forward>, <erap_reverse>). "
        "--stage pretrain (default, section 2.4): an NLI oracle run both ways labels each paraphrase pair (equation 7), "
        "contradiction, neutral and invalid pairs are dropped, the three relations are balanced by up- or "
        "down-sampling (--balance), and the generator learns '<erap_R> source' -> paraphrase with cross-entropy; "
        f"the labelled pairs stay in the output folder ({LABELLED_PAIRS}) so --resume does not run the oracle again. "
        "A table with a relation column (--relation-column, e.g. `augkit erap recast-sick` output) needs no oracle. "
        "--unaware trains on the pairs as they are, no relation (the paper's Pre-train-U). "
        "--stage rl (section 2.3): REINFORCE fine-tuning of a pre-trained generator (--generator) on texts with "
        "relations, rewarded by the oracle, a similarity model and a hypothesis-only adversary. "
        "Checkpoints go to the output folder; --resume continues from the newest; augkit-training.json records the run."
    )
    parser.add_argument("--stage", choices=STAGES, default="pretrain", help="what to train (default: pretrain)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--pairs", nargs=2, metavar=("SOURCES", "PARAPHRASES"),
                        help="pretrain: two line-aligned text files, line i of the second a paraphrase of line i of the "
                             "first (e.g. ../shared/data/quora_pairs/paragen/head_0a142eb/val.q1 and val.q2)")
    source.add_argument("--table", metavar="FILE",
                        help="a .csv/.tsv/.jsonl/.parquet/.xlsx table: paraphrase pairs (pretrain) or texts with "
                             "relations (rl)")
    parser.add_argument("--source-column", default="source", help="with --table: the column of the source texts (default: source)")
    parser.add_argument("--target-column", default="paraphrase",
                        help="pretrain with --table: the column of the paraphrases (default: paraphrase, as augkit parabank "
                             "and augkit erap recast-sick write)")
    parser.add_argument("--relation-column", default=None,
                        help="with --table: each row's relation (equivalence, forward, reverse; contradiction, neutral and "
                             "invalid rows are dropped). pretrain: replaces the oracle's labels; rl: the relation each "
                             "text is rewarded for (without it, every text is trained with each of the three)")
    parser.add_argument("--split", default=None, help="with --table: keep the rows whose split column holds this (e.g. train)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text, CSV, TSV or JSONL input (default: utf-8)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N pairs (or texts) only")
    parser.add_argument("-o", "--output", required=True, help="folder to write the generator and checkpoints to")
    parser.add_argument("-m", "--base-model", default=None,
                        help=f"pretrain: the seq2seq model to start from, id or folder (default: {DEFAULT_BASE_MODEL}; the "
                             "paper's generator is a transformer seq2seq of unstated size)")
    parser.add_argument("--unaware", action="store_true",
                        help="pretrain without relations: pairs as they are, no oracle, no control token in the input "
                             "(Pre-train-U; the control tokens are still added, untrained, for --stage rl)")
    parser.add_argument("--oracle", default=None, metavar="MODEL",
                        help=f"3-class NLI pair classifier of the oracle, id or folder (default: {DEFAULT_NLI_MODEL})")
    parser.add_argument("--generator", default=None, metavar="FOLDER",
                        help="rl: the generator to fine-tune (an `augkit train erap` pretrain output folder)")
    parser.add_argument("--similarity", default=None, metavar="MODEL",
                        help="rl: sentence-transformers model of the similarity reward r_s (default: the rl stage's own)")
    parser.add_argument("--adversary", default=None, metavar="MODEL",
                        help="rl: base model of the hypothesis-only adversary, or 'none' for no adversary (the paper's "
                             "-Adversary ablation; default: the rl stage's own)")
    parser.add_argument("--resume", action="store_true", help="continue from the newest checkpoint in --output")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop at the first step past this many minutes (the oracle's labelling included), with a "
                             "checkpoint --resume continues from (default: no limit)")
    parser.add_argument("--device", default="auto", help="auto (CUDA when torch sees a GPU), cpu, cuda or cuda:N, for the generator and the oracle (default: auto)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bars (default: when standard error is a terminal)")
    defaults, helps, types = _settings_options()
    # default None (given_only): the stage run fills what is not given, and an option of the
    # other stage can be told apart and refused
    add_settings_options(parser, defaults, helps, types=types, given_only=True)
    for old, new in RENAMED_WINDOW.items():  # their old names, until augkit 0.3
        parser.add_argument(f"--{old.replace('_', '-')}", dest=new, type=float, action=RenamedFlag,
                            new_flag=f"--{new.replace('_', '-')}", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Check the options against the stage, run it, print what happened."""
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    if args.max_minutes is not None and not args.max_minutes > 0:
        raise UsageError(f"--max-minutes must be positive, got {args.max_minutes}")
    if args.table is None and (args.split is not None or args.relation_column is not None):
        option = "--split" if args.split is not None else "--relation-column"
        raise UsageError(f"{option} reads a table's column; two line files have no columns (give --table)")
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    if args.stage == "pretrain":
        return _run_pretrain(args, progress)
    return _run_rl(args, progress)


def _run_pretrain(args: argparse.Namespace, progress: bool) -> int:
    from augkit_erap.pretraining import pretrain, read_pairs

    _refuse(args, "pretrain", ("generator", "similarity", "adversary"), "an option of --stage rl")
    if args.unaware and (args.relation_column is not None or args.oracle is not None):
        option = "--relation-column" if args.relation_column is not None else "--oracle"
        raise UsageError(f"--unaware trains without relations; {option} has no use with it")
    if args.relation_column is not None and args.oracle is not None:
        raise UsageError("--relation-column gives the relations; --oracle would not be run (give one of them)")
    settings = _stage_settings(args, PretrainSettings, "pretrain")
    settings.check()
    read = read_pairs(lines=tuple(args.pairs) if args.pairs else None, table=args.table, source_column=args.source_column,
                      target_column=args.target_column, relation_column=args.relation_column, split=args.split,
                      limit=args.limit, encoding=args.encoding)
    model = args.base_model or DEFAULT_BASE_MODEL
    result = pretrain(read.pairs, args.output, model=model, oracle=args.oracle or DEFAULT_NLI_MODEL, aware=not args.unaware,
                      settings=settings, resume=args.resume, max_minutes=args.max_minutes, device=args.device,
                      progress=progress)
    kind = "entailment-aware" if result.aware else "entailment-unaware"
    skipped = f" ({read.skipped} with an empty side left out)" if read.skipped else ""
    _say(f"augkit train erap: pretrain ({kind}) of {model}: {result.pairs} pairs read{skipped}")
    if result.aware:
        source = {"oracle": f"the oracle {result.oracle}", "column": f"the {args.relation_column} column",
                  "labelled-pairs file": f"{LABELLED_PAIRS} of the earlier run (oracle not run again)"}[result.relations_from]
        _say(f"  relations from {source}: {_counts(result.labelled)}")
        _say(f"  dropped {result.dropped} semantically divergent pairs (contradiction, neutral, invalid)")
        rule = f"{settings.balance}, {result.balance_target} per relation" if result.balance_target is not None else settings.balance
        _say(f"  balanced ({rule}): {_counts(result.balanced, keep_zero=True)} -> {result.examples} training pairs")
        if result.missing_relations:
            _say(f"  warning: no {' or '.join(result.missing_relations)} pair: "
                 f"{'its control token stays' if len(result.missing_relations) == 1 else 'their control tokens stay'} "
                 "untrained; give more pairs or pairs labelled with it")
    else:
        _say(f"  {result.examples} training pairs, input the bare source (no relation)")
    _say(f"  {_run_text(result.steps, result.seconds, result.resumed_from, result.stopped_by_time_budget)}; "
         f"{result.progress.summary()}")
    _say(f"  generator saved to {result.output_dir}" + (f" (labelled pairs: {result.output_dir / LABELLED_PAIRS})" if result.aware else ""))
    if result.aware:
        _say(f"  use it: {usage_hint(result.output_dir)}")
    else:
        _say("  its control tokens are untrained: fine-tune it with --stage rl before it serves as -m erap's generator")
    _say(f"  fine-tune it with RL: augkit train erap --stage rl --generator {result.output_dir} --table TEXTS "
         "--relation-column relation -o OUT")
    say_progress("augkit train erap", result.progress)
    return 0


def _run_rl(args: argparse.Namespace, progress: bool) -> int:
    from augkit.plugin import EntailmentOracle
    from augkit_erap.rl import fine_tune

    _refuse(args, "rl", ("base_model",), "an option of --stage pretrain (rl starts from --generator)")
    if args.unaware:
        raise UsageError("--unaware is an option of --stage pretrain; rl fine-tuning always asks for a relation")
    if args.table is None:
        raise UsageError("--stage rl reads texts from a table (--table FILE --source-column COLUMN [--relation-column COLUMN])")
    if args.generator is None:
        raise UsageError("--stage rl needs --generator FOLDER, a generator from `augkit train erap --stage pretrain`")
    settings = _stage_settings(args, RLSettings, "rl")
    settings.check()
    examples, dropped = read_rl_examples(args.table, source_column=args.source_column, relation_column=args.relation_column,
                                         split=args.split, limit=args.limit, encoding=args.encoding)
    options: dict[str, Any] = {}
    if args.similarity is not None:
        options["similarity"] = similarity_scorer(args.similarity)
    if args.adversary is not None:
        options["adversary"] = None if args.adversary.strip().lower() == "none" else args.adversary
    oracle = EntailmentOracle(args.oracle or DEFAULT_NLI_MODEL, device=args.device)
    result = fine_tune(args.generator, examples, args.output, oracle=oracle, settings=settings, resume=args.resume,
                       max_minutes=args.max_minutes, progress=progress, device=args.device, **options)
    left_out = f"; {dropped} rows with a divergent relation left out" if dropped else ""
    each = "" if args.relation_column else " (each text with each relation)"
    _say(f"augkit train erap: rl of {args.generator}: {len(examples)} (text, relation) examples{each}{left_out}")
    adversary = "none" if options.get("adversary", "") is None else (args.adversary or "the default")
    _say(f"  oracle {oracle.model}; similarity {args.similarity or 'the default'}; adversary {adversary}")
    _say(f"  {_run_text(result.steps, result.seconds, result.resumed_from, result.stopped_by_time_budget)}; "
         f"{result.progress.summary()}")
    _say(f"  generator saved to {result.output_dir}")
    _say(f"  use it: {usage_hint(result.output_dir)}")
    say_progress("augkit train erap", result.progress)
    return 0


def usage_hint(folder: Any) -> str:
    """The command that augments a table with the trained generator (the ``erap`` method's
    ``generator`` and ``relation`` parameters)."""
    return f"augkit augment data.csv -m erap -p generator={folder} -p relation=forward -o augmented.csv"


def read_rl_examples(
    table: str,
    *,
    source_column: str = "source",
    relation_column: str | None = None,
    split: str | None = None,
    limit: int | None = None,
    encoding: str = "utf-8",
) -> tuple[list[tuple[str, str]], int]:
    """The (text, relation) examples of the RL stage from a table, and how many rows were left
    out for a divergent relation. Without ``relation_column`` every text comes once with each
    paraphrase relation (section 2.4: RL "only requires input sequences"). Blank texts are
    left out; ``limit`` keeps the first texts."""
    from augkit.plugin import PARAPHRASE_RELATIONS
    from augkit_erap.pretraining import read_pairs

    # a pair of the text with itself: read_pairs' checks, relation names, split and limit
    read = read_pairs(table=table, source_column=source_column, target_column=source_column,
                      relation_column=relation_column, split=split, limit=limit, encoding=encoding)
    texts = read.pairs["source"].tolist()
    if relation_column is None:
        return [(text, relation) for text in texts for relation in PARAPHRASE_RELATIONS], 0
    relations = read.pairs["relation"].tolist()
    examples = [(text, relation) for text, relation in zip(texts, relations) if relation in PARAPHRASE_RELATIONS]
    if not examples:
        raise UsageError(f"no text of {table} has a paraphrase relation (equivalence, forward, reverse) in {relation_column}")
    return examples, len(texts) - len(examples)


def similarity_scorer(model: str):
    """r_s as the RL stage asks for it: one cosine per (source, candidate) pair, by the
    sentence-transformers ``model``."""
    from augkit.plugin import semantic_similarity

    def score(sources, candidates):
        return [float(value) for value in semantic_similarity(list(sources), list(candidates), model=model)]

    return score


def _settings_options() -> tuple[Any, dict[str, str], dict[str, type]]:
    """One settings instance with every field of both stages (the pretrain default where both
    have it), the help of each with each stage's default, and the type of the fields whose
    default is None (read from their annotation)."""
    stages = [("pretrain", PretrainSettings), ("rl", RLSettings)]
    texts = {**_RL_HELP, **_PRETRAIN_HELP}
    defaults: dict[str, Any] = {}
    stage_defaults: dict[str, list[str]] = {}
    types: dict[str, type] = {}
    for stage, settings_class in stages:
        instance, hints = settings_class(), typing.get_type_hints(settings_class)
        for setting in dataclasses.fields(settings_class):
            if setting.name in _RUN_OPTIONS:
                continue
            value = getattr(instance, setting.name)
            defaults.setdefault(setting.name, value)
            stage_defaults.setdefault(setting.name, []).append(f"{stage} {value}")
            if value is None:
                types.setdefault(setting.name, next(t for t in typing.get_args(hints[setting.name]) if t is not type(None)))
    helps = {name: f"{texts.get(name, name.replace('_', ' '))} (default: {'; '.join(stage_defaults[name])})" for name in defaults}
    options = dataclasses.make_dataclass("ErapTrainingOptions", [(name, Any, dataclasses.field(default=value))
                                                                 for name, value in defaults.items()])
    return options(), helps, types


def _stage_settings(args: argparse.Namespace, settings_class: type, stage: str) -> Any:
    """The settings of ``stage`` from the options given (the stage's defaults for the rest);
    an option of the other stage's settings only is refused."""
    given = {name: value for name, value in vars(args).items() if name in _setting_names() and value is not None}
    own = {setting.name for setting in dataclasses.fields(settings_class)}
    foreign = sorted(set(given) - own)
    if foreign:
        other = "rl" if stage == "pretrain" else "pretrain"
        raise UsageError(f"--{foreign[0].replace('_', '-')} is a setting of --stage {other}, not of --stage {stage}")
    return settings_class(**{name: value for name, value in settings_given(args, settings_class).items() if value is not None})


def _setting_names() -> set[str]:
    return {setting.name for cls in (PretrainSettings, RLSettings) for setting in dataclasses.fields(cls)} - _RUN_OPTIONS


def _refuse(args: argparse.Namespace, stage: str, names: tuple[str, ...], what: str) -> None:
    for name in names:
        if getattr(args, name) is not None:
            raise UsageError(f"--{name.replace('_', '-')} is {what}, not of --stage {stage}")


def _run_text(steps: int, seconds: float, resumed_from: str | None, stopped: bool) -> str:
    resumed = f", resumed from {resumed_from}" if resumed_from else ""
    budget = " (stopped by --max-minutes; --resume continues)" if stopped else ""
    return f"{steps} optimisation steps in {seconds:.1f} s{resumed}{budget}"


def _counts(counts: dict[str, int], *, keep_zero: bool = False) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items() if count or keep_zero) or "none"


def _say(line: str) -> None:
    print(line, file=sys.stderr)
