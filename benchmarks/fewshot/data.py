"""Labelled splits for the few-shot benchmark, and the K-shot samples drawn from them.

Two layouts are read:

- a folder with ``train/``, ``valid/`` (optional) and ``test/``, each holding ``seq.in`` (one
  text a line) and ``label`` (its label, same line count): the layout of the jianguoz re-packs
  of BANKING77 and CLINC150 in ``../shared/data``;
- a CSV file with a text column, a label column and a split column whose values name the
  rows' split (``train``, ``valid``, and the test split named by ``test_split``), or a CSV of
  training rows with the test rows in a second CSV (``test_path``).

Every split comes back as a DataFrame with exactly two string columns, ``text`` and ``label``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

FOLDER_SPLITS = ("train", "valid", "test")


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
    if path.is_dir():
        if test_path is not None:
            raise DataError(f"--test-data applies to a CSV file; {path} is a folder with its own test/ split")
        return _load_folder(path, name or _folder_name(path))
    if path.is_file():
        return _load_csv(path, text_column, label_column, split_column, test_split, test_path, name or path.stem)
    raise DataError(f"dataset {str(path)!r} does not exist (expected a folder with train/ and test/, or a CSV file)")


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
