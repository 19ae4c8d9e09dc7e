"""ERAP's re-ranking mode (RR) run for real on SICK with what installs offline: the Bergamot
back-translation engine (alone, and with EDA's synonym replacements beside it) as the generator and an NLI
classifier trained here on SICK's training pairs (benchmarks/erap_sick_nli.py: MiniLM-L6
cross-encoder) as the oracle, in place of the paper's RoBERTa trained on MNLI, SNLI, SICK
and diagnostic sets.

Two measurements:

1. **Relation-controlled paraphrasing** (the paper's Table 3 quantities) on recast SICK's
   test pairs (``augkit erap recast-sick``; the equivalence, forward and reverse ones): for
   each source X and relation R, ``erap(sample_from=..., relation=R, require_relation=False)``
   keeps the best of k samples by equation 5 (the paper's RR rows); R-Con is the share
   whose oracle relation is R; BLEU to the recast reference paraphrase, Div (1 - BLEU to the
   source, no brevity penalty, as equation 1) and iBLEU (alpha 0.8) beside it.
   What a stand-in oracle shows: R-Con is measured by the same classifier that re-ranks, so
   it says how often the samples offered one that *this* oracle accepts, not how often a
   human would; the reference-based BLEU does not depend on the oracle.
2. **Label-projected NLI augmentation** (section 5, Table 6) of SICK train pairs, aware
   (the oracle picks each side's equivalent and more specific/general rewrite) against the
   unaware baseline (the sample taken as equivalent): pairs made per rule, and their
   projected labels checked (a) against SICK's own labels where an augmented pair is a
   SICK pair of any split (exact text, case- and space-insensitive), and (b) against the
   stand-in classifier's reading of the new pair (E vs NE; circular for the aware run,
   whose rewrites that classifier chose, so reported for the unaware run as the label noise
   it would let in).

    .venv/bin/python benchmarks/erap_sick_rr.py --oracle /work/runs/sick-minilm-nli \\
        --out benchmarks/results/erap_sick_rr.json
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import json
import platform
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
SICK = SHARED_DATA / "sick" / "kkalouli" / "SICK.txt"
#: EDA's synonym replacement only: its swaps, insertions and deletions make ungrammatical
#: candidates that an NLI classifier (near bag-of-words on word order) still calls equivalent,
#: and re-ranking then prefers them (read in a first run: "A slicing is man an onion").
SYNONYMS = "eda(alpha_ri=0,alpha_rs=0,p_rd=0)"
GENERATORS = {"bergamot (k=1)": ("backtranslation", 1), "bergamot+synonyms (k=10)": (f"backtranslation+{SYNONYMS}", 10)}


def normalised(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(" .")


def paraphrase_run(oracle: str, per_relation: int, seed: int) -> dict:
    """Table 3's quantities on recast SICK test, per generator."""
    from augkit_erap.recast_sick import recast_sick

    import augkit
    from augkit.metrics import bleu, entailment_relation, sentence_bleu

    recast = recast_sick(SICK)
    test = recast[(recast["split"] == "test") & recast["relation"].isin(["equivalence", "forward", "reverse"])]
    test = test.groupby("relation").head(per_relation).reset_index(drop=True)
    results = {}
    for label, (spec, k) in GENERATORS.items():
        started = time.perf_counter()
        outputs, sources, references, relations = [], [], [], []
        for relation, rows in test.groupby("relation"):
            made = augkit.augment(list(rows["source"]), "erap", n=1, seed=seed, sample_from=spec, num_return=k, relation=relation,
                                  require_relation=False, oracle=oracle, device="cpu")
            for (_, row), out in zip(rows.iterrows(), made):
                if out:
                    outputs.append(out[0])
                    sources.append(row["source"])
                    references.append(row["paraphrase"])
                    relations.append(relation)
        seconds = time.perf_counter() - started
        found = entailment_relation(sources, outputs, model=oracle, device="cpu")
        to_source = sentence_bleu(outputs, sources, brevity_penalty=False)
        per_relation_con = {
            r: round(100 * sum(f == r for f, rr in zip(found, relations) if rr == r) / max(1, relations.count(r)), 2)
            for r in ("equivalence", "forward", "reverse")
        }
        b = bleu(outputs, references)
        self_b = bleu(outputs, sources)
        results[label] = {
            "sources": int(len(test)), "paraphrased": len(outputs), "seconds": round(seconds, 1),
            "R-Con": round(100 * sum(f == r for f, r in zip(found, relations)) / len(outputs), 2),
            "R-Con by relation": per_relation_con,
            "BLEU to reference": round(b, 2), "Div": round(100 - sum(to_source) / len(to_source), 2),
            "iBLEU (alpha 0.8)": round(0.8 * b - 0.2 * self_b, 2),
            "examples": [
                {"relation": r, "source": s, "paraphrase": o, "oracle": f}
                for s, o, r, f in list(zip(sources, outputs, relations, found))[:: max(1, len(outputs) // 18)][:18]
            ],
        }
        print(label, {k: v for k, v in results[label].items() if k != "examples"}, flush=True)
    copy = bleu(list(test["source"]), list(test["paraphrase"]))
    results["copy input (reference)"] = {"BLEU to reference": round(copy, 2), "Div": 0.0, "iBLEU (alpha 0.8)": round(0.8 * copy - 20, 2)}
    return results


def augmentation_run(oracle: str, pairs: int, seed: int) -> dict:
    """Table 6 augmentation of SICK train pairs, aware against unaware."""
    import pandas as pd

    import augkit
    from augkit.plugin import EntailmentOracle

    frame = pd.read_csv(SICK, sep="\t", dtype=str, keep_default_na=False)
    known = {(normalised(a), normalised(b)): label for a, b, label in zip(frame["sentence_A"], frame["sentence_B"],
                                                                          frame["entailment_label"])}
    train = frame[frame["SemEval_set"] == "TRAIN"].head(pairs)[["pair_ID", "sentence_A", "sentence_B", "entailment_label"]]
    judge = EntailmentOracle(oracle, device="cpu")
    results = {}
    runs = {"aware (RR, bergamot+synonyms k=10)": {"k": 10}, "unaware (bergamot+synonyms, first sample)": {"k": 10, "aware": False}}
    for label, options in runs.items():
        started = time.perf_counter()
        out = augkit.augment(train, "erap", n=8, seed=seed, sample_from=f"backtranslation+{SYNONYMS}", oracle=oracle, device="cpu",
                             premise_column="sentence_A", hypothesis_column="sentence_B", label_column="entailment_label",
                             **options)
        seconds = time.perf_counter() - started
        made = out[out["augkit_method"].notna()]
        overlap = [(known[key], lab) for key, lab in zip(zip(map(normalised, made["sentence_A"]), map(normalised, made["sentence_B"])),
                                                      made["entailment_label"]) if key in known]
        nli = judge.nli(list(made["sentence_A"]), list(made["sentence_B"]))
        predicted_entails = [max(p, key=p.get) == "entailment" for p in nli]
        projected_entails = list(made["entailment_label"] == "ENTAILMENT")
        agree = sum(a == b for a, b in zip(predicted_entails, projected_entails))
        rule_agreement = {}
        for rule, a, b in zip(made["augkit_method"], predicted_entails, projected_entails):
            seen, hits = rule_agreement.get(rule, (0, 0))
            rule_agreement[rule] = (seen + 1, hits + (a == b))
        results[label] = {
            "source pairs": len(train), "augmented pairs": len(made), "seconds": round(seconds, 1),
            "per rule": made["augkit_method"].value_counts().to_dict(),
            "per label": made["entailment_label"].value_counts().to_dict(),
            "overlapping SICK pairs": len(overlap), "overlap label agreement": sum(a == b for a, b in overlap),
            "classifier agrees with projected E/NE": round(100 * agree / max(1, len(made)), 2),
            "agreement per rule": {rule: round(100 * hits / seen, 1) for rule, (seen, hits) in rule_agreement.items()},
            "examples": made.sample(min(20, len(made)), random_state=seed)[["sentence_A", "sentence_B", "entailment_label",
                                                                            "augkit_method"]].to_dict("records"),
        }
        print(label, {k: v for k, v in results[label].items() if k != "examples"}, flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", required=True, help="NLI classifier folder (benchmarks/erap_sick_nli.py makes one)")
    parser.add_argument("--per-relation", type=int, default=100, help="recast SICK test sources per relation")
    parser.add_argument("--pairs", type=int, default=300, help="SICK train pairs to augment")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "erap_sick_rr.json")
    args = parser.parse_args()
    record = {
        "date": time.strftime("%Y-%m-%d"), "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "oracle": str(args.oracle), "seed": args.seed,
        "paraphrasing (recast SICK test)": paraphrase_run(args.oracle, args.per_relation, args.seed),
        "NLI augmentation (SICK train)": augmentation_run(args.oracle, args.pairs, args.seed),
    }
    args.out.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    print(f"written {args.out}")


if __name__ == "__main__":
    main()
