"""ERAP's pre-training of the generator on paraphrase pairs (Sancheti et al. 2022, section 2.4),
in its two forms:

- **entailment-aware** (Pre-train-A): the oracle (section 3, equation 7: an NLI classifier run
  both ways, :class:`augkit.plugin.EntailmentOracle`) labels each pair (X, Y) with its relation;
  the semantically divergent pairs (``contradiction``, ``neutral``, ``invalid``) are dropped;
  the three paraphrase relations are balanced by up- or down-sampling (:func:`balanced_copies`);
  the generator learns ``<erap_{relation}> X`` -> ``Y`` with cross-entropy
  (:func:`~augkit_erap.relations.controlled_input`). Pairs whose relation is known already (a
  relation column, e.g. recast SICK) skip the oracle and go through the same drop and balance.
- **entailment-unaware** (Pre-train-U, ``aware=False``): the pairs as they are, ``X`` -> ``Y``,
  no relation and no control token in the input.

Either way the control tokens are added to the generator's vocabulary first (new embedding rows;
the unaware generator leaves them untrained), so both can go on to the RL stage, which asks for
relations (ERAP-U is RL on an unaware pre-training). Optimisation is transformers'
``Seq2SeqTrainer`` under augkit's training rules (:func:`augkit.plugin.training_folder`: one run
per folder, checkpoints refused without ``resume``, the newest resumed with it).

The output folder holds the generator (``save_pretrained``, safetensors) with
``augkit-training.json`` and, for an aware run, :data:`LABELLED_PAIRS`: every pair read, its
relation, the oracle's likelihood of it and how many times it is in the balanced training set
(``copies``; 0 for a dropped or down-sampled pair). A resumed run reads that file instead of
running the oracle again.

>>> pairs = read_pairs(lines=("val.q1", "val.q2")).pairs                      # doctest: +SKIP
>>> pretrain(pairs, "erap-pretrained", model="t5-base", oracle="FacebookAI/roberta-large-mnli")  # doctest: +SKIP
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from augkit.plugin import (
    PARAPHRASE_RELATIONS,
    RELATIONS,
    InputError,
    TrainerArgumentsSettings,
    UsageError,
    unknown_name_message,
)
from augkit_erap.relations import (
    CONTROL_TOKENS,
    RELATION_ALIASES,
    add_control_tokens,
    controlled_input,
)

#: The generator to start from. The paper's generator is "a transformer-based sequence-to-sequence
#: model" (section 2.1), its size and initialisation unstated; t5-base is a pretrained one of that
#: kind, and augkit's FAQ paraphraser starts from it too.
DEFAULT_BASE_MODEL = "t5-base"
TRAIN_EXTRA = "pip install augkit-erap (torch, transformers, accelerate, datasets)"
#: The file of an aware run's labelled pairs, in its output folder (JSON Lines: texts stay text).
LABELLED_PAIRS = "erap-labelled-pairs.jsonl"
#: Section 3: "contradictory, neutral or invalid pairs are considered as semantically-divergent".
DIVERGENT_RELATIONS = tuple(relation for relation in RELATIONS if relation not in PARAPHRASE_RELATIONS)
#: How many pairs each relation gets after balancing (:func:`balance_target`); the paper says
#: only "upsample or downsample to have balanced data across relations" (section 2.4).
BALANCE_RULES = ("median", "largest", "smallest", "none")
#: The column naming each row's split in a recast SICK table (train, dev, test).
SPLIT_COLUMN = "split"
#: Pairs judged per oracle call: the progress bar moves and memory stays bounded on a corpus of
#: millions (the oracle batches within a call by its token budget).
LABELLING_CHUNK = 1024


@dataclass
class PretrainSettings(TrainerArgumentsSettings):
    """Hyper-parameters of ``augkit train erap`` (``--stage pretrain``); the trainer's settings
    and their checks are augkit's (:class:`augkit.plugin.TrainerArgumentsSettings`).

    The paper gives none for pre-training in its main text; these are augkit's choices for a
    T5 fine-tuned on sentence pairs: AdamW at 3e-4 (the FAQ trainer's T5 rate, Ng 2021),
    8 pairs x 4 accumulation steps, one pass (a paraphrase corpus such as ParaBank is large),
    ``max_length`` 128 tokens (sentence-level pairs). ``balance``: the :data:`BALANCE_RULES`
    entry that sets each relation's count (:func:`balance_target`); ``seed`` draws the
    balancing samples as well as the trainer's order.
    """

    learning_rate: float = 3e-4
    gradient_accumulation: int = 4
    max_length: int = 128
    balance: str = "median"

    POSITIVE = (*TrainerArgumentsSettings.POSITIVE, "max_length")

    def check_own(self) -> None:
        if self.balance not in BALANCE_RULES:
            raise UsageError(unknown_name_message("balance rule", str(self.balance), list(BALANCE_RULES)))


@dataclass
class PairsRead:
    """Paraphrase pairs (a DataFrame with ``source``, ``target`` and, when given, ``relation``)
    and how many were left out for an empty side."""

    pairs: Any
    skipped: int


@dataclass
class PretrainResult:
    """What a pre-training run did: where the generator is, what the oracle found, what was
    trained on, how the loss moved.

    ``labelled``: pairs per relation (all six) before dropping; ``dropped``: the divergent
    ones; ``balanced``: training pairs per paraphrase relation after balancing (for an unaware
    run, ``{"none": pairs}``). ``relations_from``: ``oracle`` (judged in this run),
    ``labelled-pairs file`` (read back on resume), ``column`` (given) or None (unaware).
    """

    output_dir: Path
    base_model: str
    aware: bool
    pairs: int
    examples: int
    steps: int
    labelled: dict[str, int] = field(default_factory=dict)
    dropped: int = 0
    balanced: dict[str, int] = field(default_factory=dict)
    balance_target: int | None = None
    relations_from: str | None = None
    oracle: str | None = None
    losses: list[tuple[int, float]] = field(default_factory=list)
    resumed_from: str | None = None
    stopped_by_time_budget: bool = False
    seconds: float = 0.0
    #: Epochs done, first, best and last loss, and their warnings (:class:`augkit.plugin.TrainingProgress`).
    progress: Any = None

    @property
    def missing_relations(self) -> list[str]:
        """Paraphrase relations no training pair has: their control tokens stay untrained."""
        return [r for r in PARAPHRASE_RELATIONS if self.aware and not self.balanced.get(r)]


def read_pairs(
    *,
    lines: tuple[str | os.PathLike, str | os.PathLike] | None = None,
    table: str | os.PathLike | None = None,
    source_column: str = "source",
    target_column: str = "paraphrase",
    relation_column: str | None = None,
    split: str | None = None,
    limit: int | None = None,
    encoding: str = "utf-8",
) -> PairsRead:
    """Paraphrase pairs from two line-aligned files (line i of the second paraphrases line i
    of the first, as the Quora pair files ``val.q1``/``val.q2``) or from a table's columns
    (``augkit parabank`` writes ``source`` and ``paraphrase``; recast SICK adds ``relation``).

    ``relation_column``: the relation of each pair, already known (names of
    :data:`augkit.plugin.RELATIONS` or their aliases, any case); the oracle is then not needed.
    ``split``: keep the rows whose ``split`` column holds it (``augkit erap recast-sick``
    writes train, dev and test in one table). Pairs with an empty side are counted and left out; ``limit`` keeps the first pairs.
    """
    import pandas as pd

    if (lines is None) == (table is None):
        raise UsageError("give the pairs either as two line-aligned files or as a table, not both")
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    if lines is not None:
        if relation_column is not None or split is not None:
            option = "--relation-column" if relation_column is not None else "--split"
            raise UsageError(f"{option} reads a table's column; two line files have no columns (give --table)")
        first, second = (_read_lines(Path(path), encoding) for path in lines)
        if len(first) != len(second):
            raise InputError(f"the two pair files must have as many lines: {lines[0]} has {len(first)}, {lines[1]} has {len(second)}")
        frame = pd.DataFrame({"source": first, "target": second})
    else:
        from augkit.plugin import read_table

        data = read_table(table, encoding=encoding)
        wanted = [source_column, target_column] + ([relation_column] if relation_column is not None else [])
        wanted += [SPLIT_COLUMN] if split is not None else []
        for column in wanted:
            if column not in data.columns:
                raise InputError(unknown_name_message("column", column, [str(c) for c in data.columns], listing="its columns are")
                                 + f" (in {table})")
        if split is not None:
            splits = sorted(set(map(str, data[SPLIT_COLUMN])))
            if split not in splits:
                raise InputError(unknown_name_message("split", split, splits, listing=f"the {SPLIT_COLUMN} column of {table} holds"))
            data = data[data[SPLIT_COLUMN].astype(str) == split].reset_index(drop=True)
        frame = pd.DataFrame({"source": data[source_column].tolist(), "target": data[target_column].tolist()})
        if relation_column is not None:
            frame["relation"] = [_relation_name(value, row, relation_column) for row, value in enumerate(data[relation_column], 1)]
    present = frame["source"].map(_is_text) & frame["target"].map(_is_text)
    frame = frame[present].reset_index(drop=True)
    if limit is not None:
        frame = frame.iloc[:limit]
    if frame.empty:
        raise InputError("no paraphrase pairs to train on (every pair has an empty side, or the input is empty)")
    return PairsRead(frame, int((~present).sum()))


def label_pairs(sources: Sequence[str], targets: Sequence[str], oracle: Any, *, progress: bool = False) -> list[tuple[str, float]]:
    """Each pair's relation by the oracle (equation 7: the NLI labels of (X, Y) and of (Y, X))
    and the oracle's likelihood of it, judged :data:`LABELLING_CHUNK` pairs at a time.
    ``oracle``: an :class:`augkit.plugin.EntailmentOracle` (or anything with its ``judge``)."""
    from augkit.plugin import progress_bar

    labels: list[tuple[str, float]] = []
    with progress_bar(len(sources), shown=progress, description="erap oracle", unit="pair") as bar:
        for start in range(0, len(sources), LABELLING_CHUNK):
            judged = oracle.judge(sources[start : start + LABELLING_CHUNK], targets[start : start + LABELLING_CHUNK])
            labels.extend((j.relation, float(j.probabilities.get(j.relation, float("nan")))) for j in judged)
            bar.update(len(judged))
    return labels


def balance_target(counts: Sequence[int], rule: str = "median") -> int:
    """How many training pairs each paraphrase relation gets, from the counts of the relations
    that have pairs (a relation with none cannot be up-sampled and is left out):

    - ``median`` (default): the middle count (of two, their mean rounded), so that with three
      relations the most frequent is down-sampled, the rarest up-sampled and the middle one
      kept as it is: the "upsample or downsample" of section 2.4, keeping the set near its size;
    - ``largest``: up-sample only (every pair kept, the rare ones repeated);
    - ``smallest``: down-sample only (no pair repeated, the most left out);
    - ``none``: no balancing (see :func:`balanced_copies`).

    >>> balance_target([900, 300, 120]), balance_target([900, 300, 120], "largest")
    (300, 900)
    """
    if rule not in BALANCE_RULES or rule == "none":
        raise UsageError(unknown_name_message("balance rule", str(rule), [r for r in BALANCE_RULES if r != "none"]))
    counts = [count for count in counts if count > 0]
    if not counts:
        return 0
    if rule == "largest":
        return max(counts)
    if rule == "smallest":
        return min(counts)
    return int(round(statistics.median(counts)))


def balanced_copies(relations: Sequence[str], *, rule: str = "median", seed: int = 42) -> list[int]:
    """How many times each pair goes into the training set: 0 for a divergent pair; for a
    pair of relation R with n_R pairs and :func:`balance_target` t, each pair
    ``t // n_R`` times and ``t % n_R`` of them (drawn without replacement) once more, so a
    down-sampled relation keeps ``t`` distinct pairs and an up-sampled one repeats its pairs
    as evenly as can be. The draws come from ``random.Random(seed)``, relation by relation
    in the order equivalence, forward, reverse: the same relations and seed give the same
    copies. ``rule="none"`` keeps every paraphrase pair once.

    >>> balanced_copies(["equivalence", "forward", "equivalence", "reverse", "reverse", "neutral"])
    [1, 2, 1, 1, 1, 0]
    """
    copies = [0] * len(relations)
    rows = {relation: [i for i, r in enumerate(relations) if r == relation] for relation in PARAPHRASE_RELATIONS}
    if rule == "none":
        for found in rows.values():
            for i in found:
                copies[i] = 1
        return copies
    target = balance_target([len(found) for found in rows.values()], rule)
    rng = random.Random(seed)
    for found in rows.values():
        if not found:
            continue
        whole, extra = divmod(target, len(found))
        for i in found:
            copies[i] = whole
        for i in rng.sample(found, extra):
            copies[i] += 1
    return copies


def pretrain(
    pairs: Any,
    output_dir: str | os.PathLike,
    *,
    model: str = DEFAULT_BASE_MODEL,
    oracle: Any = None,
    aware: bool = True,
    settings: PretrainSettings | None = None,
    resume: bool = False,
    max_minutes: float | None = None,
    device: str = "cpu",
    progress: bool = True,
) -> PretrainResult:
    """Pre-train the generator ``model`` (a seq2seq id or folder) on ``pairs`` (DataFrame with
    ``source`` and ``target``, and ``relation`` when known) and save it to ``output_dir``.

    ``aware=True`` (Pre-train-A): relations from the ``relation`` column, else from ``oracle``
    (an :class:`augkit.plugin.EntailmentOracle`, a model spec for one, or None for
    :data:`augkit.plugin.DEFAULT_NLI_MODEL`); divergent pairs dropped, relations balanced by
    ``settings.balance``, input ``<erap_{relation}> source``. ``aware=False`` (Pre-train-U):
    every pair, input ``source``. ``max_minutes`` ends the run (oracle included) at the first
    step past it, with a checkpoint; ``resume=True`` continues from the newest checkpoint and
    reuses :data:`LABELLED_PAIRS` (it must be of the same pairs).
    """
    from augkit.plugin import (
        ending_log_callback,
        import_trainer,
        logged_losses,
        time_budget_callback,
        trainer_progress,
        training_arguments,
        training_folder,
    )

    started = time.monotonic()
    settings = settings or PretrainSettings()
    settings.check()
    if max_minutes is not None and not max_minutes > 0:
        raise UsageError(f"max-minutes must be positive, got {max_minutes!r}")
    if pairs is None or len(pairs) == 0:
        raise InputError("no paraphrase pairs to train on")
    transformers = import_trainer("pre-training the ERAP generator", TRAIN_EXTRA)
    output = Path(output_dir)
    with training_folder(output, resume=resume) as resume_from:
        if aware:
            labelled, relations_from, oracle_name = _labelled_pairs(pairs, output, oracle, settings, resume, device, progress)
            kept = labelled[labelled["copies"] > 0]
            inputs = [controlled_input(s, r) for s, r, n in zip(kept["source"], kept["relation"], kept["copies"]) for _ in range(n)]
            targets = [t for t, n in zip(kept["target"], kept["copies"]) for _ in range(n)]
            if not inputs:
                raise InputError(f"no pair to train on: all {len(labelled)} pairs are semantically divergent "
                                 f"({_counts_text(Counter(labelled['relation']))}); the oracle keeps equivalence, forward "
                                 "and reverse pairs")
        else:
            labelled, relations_from, oracle_name = None, None, None
            inputs, targets = pairs["source"].tolist(), pairs["target"].tolist()
        network, tokenizer = _starting_model(model, device, settings.seed)
        budget = time_budget_callback(max_minutes, started=started) if max_minutes else None
        trainer = transformers.Seq2SeqTrainer(
            model=network,
            args=training_arguments(transformers.Seq2SeqTrainingArguments, output, settings, device=device, progress=progress),
            train_dataset=_dataset(inputs, targets, tokenizer, settings.max_length),
            data_collator=transformers.DataCollatorForSeq2Seq(tokenizer, model=network, label_pad_token_id=-100),
            processing_class=tokenizer,
            callbacks=[*([budget] if budget else []), ending_log_callback()],
        )
        trainer.train(resume_from_checkpoint=resume_from)
        trainer.save_model(str(output))
        tokenizer.save_pretrained(str(output))
        result = PretrainResult(
            output_dir=output, base_model=str(model), aware=aware, pairs=len(pairs), examples=len(inputs),
            steps=trainer.state.global_step, relations_from=relations_from, oracle=oracle_name,
            losses=logged_losses(trainer.state.log_history), resumed_from=Path(resume_from).name if resume_from else None,
            stopped_by_time_budget=bool(budget and budget.stopped),
            progress=trainer_progress(trainer.state, settings=settings, budget=budget),
        )
        if labelled is not None:
            counts = Counter(labelled["relation"])
            result.labelled = {relation: counts.get(relation, 0) for relation in RELATIONS}
            result.dropped = sum(counts.get(relation, 0) for relation in DIVERGENT_RELATIONS)
            copies = labelled.groupby("relation")["copies"].sum()
            result.balanced = {relation: int(copies.get(relation, 0)) for relation in PARAPHRASE_RELATIONS}
            if settings.balance != "none":
                result.balance_target = balance_target([counts.get(r, 0) for r in PARAPHRASE_RELATIONS], settings.balance)
        else:
            result.balanced = {"none": len(inputs)}
        result.seconds = round(time.monotonic() - started, 1)
        _write_record(output, result, settings, tokenizer)
    return result


def _labelled_pairs(pairs: Any, output: Path, oracle: Any, settings: PretrainSettings, resume: bool, device: str,
                    progress: bool) -> tuple[Any, str, str | None]:
    """The pairs with ``relation``, ``likelihood`` and ``copies``: read back from
    :data:`LABELLED_PAIRS` on resume, else labelled (by the given column or the oracle),
    balanced and written there. Also where the relations came from and the oracle's name."""
    import pandas as pd

    from augkit.plugin import read_table, write_table

    path = output / LABELLED_PAIRS
    if resume and path.is_file():
        saved = read_table(path)
        if saved["source"].tolist() != pairs["source"].tolist() or saved["target"].tolist() != pairs["target"].tolist():
            raise UsageError(f"{path} holds the labelled pairs of other input than this run's ({len(saved)} pairs, this run "
                             f"{len(pairs)}); resume with the same pairs and --limit, or train into another folder")
        return saved, "labelled-pairs file", _saved_oracle(output)
    frame = pd.DataFrame({"source": pairs["source"].tolist(), "target": pairs["target"].tolist()})
    if "relation" in pairs.columns:
        frame["relation"], frame["likelihood"] = pairs["relation"].tolist(), float("nan")
        relations_from, oracle_name = "column", None
    else:
        judge = _oracle(oracle, device)
        labels = label_pairs(frame["source"].tolist(), frame["target"].tolist(), judge, progress=progress)
        frame["relation"], frame["likelihood"] = [r for r, _ in labels], [p for _, p in labels]
        relations_from, oracle_name = "oracle", str(getattr(judge, "model", type(judge).__name__))
    frame["copies"] = balanced_copies(frame["relation"].tolist(), rule=settings.balance, seed=settings.seed)
    write_table(frame, path)
    return frame, relations_from, oracle_name


def _oracle(oracle: Any, device: str) -> Any:
    """``oracle`` when it judges already, else an :class:`EntailmentOracle` on that model (None:
    the default NLI model)."""
    if hasattr(oracle, "judge"):
        return oracle
    from augkit.plugin import EntailmentOracle

    return EntailmentOracle(oracle, device=device)


def _saved_oracle(output: Path) -> str | None:
    """The oracle an earlier run of this folder recorded, when its record is there."""
    import json

    from augkit.plugin import TRAINING_RECORD

    record = output / TRAINING_RECORD
    try:
        return json.loads(record.read_text(encoding="utf-8")).get("oracle") if record.is_file() else None
    except (OSError, ValueError):
        return None


def _starting_model(model: str, device: str, seed: int) -> tuple[Any, Any]:
    """The base seq2seq model and its tokenizer, with the control tokens (checkpoints of this
    run have them too: the vocabulary grows the same way each time). transformers draws the
    new embedding rows around the mean of the others from torch's global generator: they are
    drawn here from ``seed``, leaving the global state as it was."""
    from augkit.plugin import load_for_training, seeded_torch

    network, tokenizer = load_for_training(model, "seq2seq", device=device)
    with seeded_torch(seed, "cpu"):  # the control tokens' initial embeddings
        add_control_tokens(network, tokenizer)
    return network, tokenizer


def _dataset(inputs: list[str], targets: list[str], tokenizer: Any, max_length: int) -> Any:
    """The tokenised training set: input ids and target ids (``labels``), both cut at
    ``max_length`` tokens."""
    import datasets

    def encode(batch: dict) -> dict:
        encoded = tokenizer(batch["input"], max_length=max_length, truncation=True)
        encoded["labels"] = tokenizer(text_target=batch["target"], max_length=max_length, truncation=True)["input_ids"]
        return encoded

    table = datasets.Dataset.from_dict({"input": inputs, "target": targets})
    return table.map(encode, batched=True, remove_columns=["input", "target"], desc="tokenising")


def _write_record(output: Path, result: PretrainResult, settings: PretrainSettings, tokenizer: Any) -> None:
    from augkit.plugin import write_training_record

    write_training_record(output, {
        "target": "erap",
        "stage": "pretrain",
        "entailment_aware": result.aware,
        "base_model": result.base_model,
        "input": "<erap_{relation}> <source>" if result.aware else "<source>",
        "control_tokens": {relation: {"token": token, "id": tokenizer.convert_tokens_to_ids(token)}
                           for relation, token in CONTROL_TOKENS.items()},
        "relations_from": result.relations_from,
        "oracle": result.oracle,
        "labelled_pairs": LABELLED_PAIRS if result.aware else None,
        "pairs": result.pairs,
        "relations_before_balancing": result.labelled,
        "dropped_divergent": result.dropped,
        "balance": settings.balance if result.aware else None,
        "balance_target": result.balance_target,
        "relations_after_balancing": result.balanced,
        "missing_relations": result.missing_relations,
        "examples": result.examples,
        "steps": result.steps,
        "losses": result.losses,
        "resumed_from": result.resumed_from,
        "stopped_by_time_budget": result.stopped_by_time_budget,
        "progress": result.progress.as_record(),
        "seconds": result.seconds,
        "settings": asdict(settings),
    })


def _relation_name(value: Any, row: int, column: str) -> str:
    """A relation column's cell (of the ``row``-th pair, from 1) as one of :data:`RELATIONS`
    (aliases accepted, any case)."""
    name = str(value).strip().lower()
    name = RELATION_ALIASES.get(name, name)
    if name not in RELATIONS:
        raise InputError(f"pair {row}: {column} {value!r} is not a relation; relations are: {', '.join(RELATIONS)}")
    return name


def _counts_text(counts: Counter) -> str:
    return ", ".join(f"{relation} {counts[relation]}" for relation in RELATIONS if counts.get(relation))


def _read_lines(path: Path, encoding: str) -> list[str]:
    if not path.is_file():
        raise InputError(f"pair file {str(path)!r} does not exist")
    return path.read_text(encoding=encoding).splitlines()


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
